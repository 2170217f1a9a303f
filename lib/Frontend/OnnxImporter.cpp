//===- OnnxImporter.cpp - ONNX models to linalg on tensors ----------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// One converter per ONNX operator type, registered in a table. Converters
// build linalg named ops where linalg has one (matmul, convolutions, pooling,
// transpose) so that tcl can schedule them, and linalg.generic for
// elementwise ops and reductions. Shapes are static: ONNX shape inference
// plus the user's --input-shape fix them at import time.
//
//===----------------------------------------------------------------------===//

#include "tcl/Frontend/OnnxImporter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include "onnx/onnx_pb.h"
#include "onnx/shape_inference/implementation.h"

#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <numeric>

using namespace mlir;
using namespace mlir::tcl;

namespace {

llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string formatShape(llvm::ArrayRef<int64_t> shape) {
  std::string text;
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "x" : "") + std::to_string(shape[i]);
  return text.empty() ? "scalar" : text;
}

//===----------------------------------------------------------------------===//
// Tensor data
//===----------------------------------------------------------------------===//

/// Values of an initializer or Constant node: floats or integers.
struct ConstantData {
  std::vector<int64_t> shape;
  std::vector<float> floats; // for float tensors
  std::vector<int64_t> ints; // for integer tensors
  bool isFloat = true;
  int64_t size() const {
    return std::accumulate(shape.begin(), shape.end(), int64_t(1),
                           std::multiplies<int64_t>());
  }
};

llvm::Expected<ConstantData> readTensor(const onnx::TensorProto &tensor) {
  ConstantData data;
  data.shape.assign(tensor.dims().begin(), tensor.dims().end());
  int64_t count = data.size();
  if (tensor.has_data_location() &&
      tensor.data_location() == onnx::TensorProto::EXTERNAL)
    return error("tensor '" + tensor.name() +
                 "' keeps its data in an external file, which tcl does not "
                 "read yet");
  const std::string &raw = tensor.raw_data();
  auto fromRaw = [&](auto tag, auto &out) -> llvm::Error {
    using T = decltype(tag);
    if (raw.size() != count * sizeof(T))
      return error("tensor '" + tensor.name() + "' has " +
                   std::to_string(raw.size()) + " bytes of data for " +
                   std::to_string(count) + " elements");
    const T *values = reinterpret_cast<const T *>(raw.data());
    out.assign(values, values + count);
    return llvm::Error::success();
  };
  switch (tensor.data_type()) {
  case onnx::TensorProto::FLOAT:
    if (!raw.empty()) {
      if (llvm::Error e = fromRaw(float(), data.floats))
        return std::move(e);
    } else {
      data.floats.assign(tensor.float_data().begin(),
                         tensor.float_data().end());
    }
    break;
  case onnx::TensorProto::DOUBLE: {
    std::vector<double> values;
    if (!raw.empty()) {
      if (llvm::Error e = fromRaw(double(), values))
        return std::move(e);
    } else {
      values.assign(tensor.double_data().begin(), tensor.double_data().end());
    }
    data.floats.assign(values.begin(), values.end());
    break;
  }
  case onnx::TensorProto::INT64:
    data.isFloat = false;
    if (!raw.empty()) {
      if (llvm::Error e = fromRaw(int64_t(), data.ints))
        return std::move(e);
    } else {
      data.ints.assign(tensor.int64_data().begin(), tensor.int64_data().end());
    }
    break;
  case onnx::TensorProto::INT32: {
    data.isFloat = false;
    std::vector<int32_t> values;
    if (!raw.empty()) {
      if (llvm::Error e = fromRaw(int32_t(), values))
        return std::move(e);
    } else {
      values.assign(tensor.int32_data().begin(), tensor.int32_data().end());
    }
    data.ints.assign(values.begin(), values.end());
    break;
  }
  default:
    return error("tensor '" + tensor.name() + "' has ONNX element type " +
                 std::to_string(tensor.data_type()) +
                 "; tcl reads float, double, int32 and int64 tensors");
  }
  if ((int64_t)(data.isFloat ? data.floats.size() : data.ints.size()) != count)
    return error("tensor '" + tensor.name() +
                 "' has the wrong number of "
                 "elements");
  return data;
}

//===----------------------------------------------------------------------===//
// Importer
//===----------------------------------------------------------------------===//

class Importer;
using Converter =
    std::function<llvm::Error(Importer &, const onnx::NodeProto &)>;

class Importer {
public:
  Importer(MLIRContext *context) : b(context), loc(b.getUnknownLoc()) {}

  llvm::Expected<OwningOpRef<ModuleOp>>
  importModel(onnx::ModelProto &model, const OnnxImportOptions &options);

  // Access for converters.
  OpBuilder b;
  Location loc;

  llvm::Expected<Value> input(const onnx::NodeProto &node, int index) {
    if (index >= node.input_size() || node.input(index).empty())
      return error(describe(node) + " lacks input " + std::to_string(index));
    auto found = values.find(node.input(index));
    if (found == values.end())
      return error(describe(node) + " uses '" + node.input(index) +
                   "', which is not defined before it");
    return found->second;
  }
  bool hasInput(const onnx::NodeProto &node, int index) const {
    return index < node.input_size() && !node.input(index).empty();
  }
  const ConstantData *constant(const onnx::NodeProto &node, int index) const {
    if (!hasInput(node, index))
      return nullptr;
    auto found = constants.find(node.input(index));
    return found == constants.end() ? nullptr : &found->second;
  }
  void define(const onnx::NodeProto &node, Value value, int index = 0) {
    values[node.output(index)] = value;
  }
  /// Defines the node's output from a converter's result, or passes its
  /// error on.
  llvm::Error define(const onnx::NodeProto &node, llvm::Expected<Value> value) {
    if (!value)
      return value.takeError();
    define(node, *value);
    return llvm::Error::success();
  }

  static std::string describe(const onnx::NodeProto &node) {
    return node.op_type() + " node '" +
           (node.name().empty() ? node.output(0) : node.name()) + "'";
  }

  static const onnx::AttributeProto *attribute(const onnx::NodeProto &node,
                                               llvm::StringRef name) {
    for (const onnx::AttributeProto &attr : node.attribute())
      if (attr.name() == name)
        return &attr;
    return nullptr;
  }
  static int64_t getInt(const onnx::NodeProto &node, llvm::StringRef name,
                        int64_t fallback) {
    const onnx::AttributeProto *attr = attribute(node, name);
    return attr ? attr->i() : fallback;
  }
  static float getFloat(const onnx::NodeProto &node, llvm::StringRef name,
                        float fallback) {
    const onnx::AttributeProto *attr = attribute(node, name);
    return attr ? attr->f() : fallback;
  }
  static std::vector<int64_t> getInts(const onnx::NodeProto &node,
                                      llvm::StringRef name,
                                      std::vector<int64_t> fallback = {}) {
    const onnx::AttributeProto *attr = attribute(node, name);
    if (!attr)
      return fallback;
    return std::vector<int64_t>(attr->ints().begin(), attr->ints().end());
  }
  static std::string getString(const onnx::NodeProto &node,
                               llvm::StringRef name, std::string fallback) {
    const onnx::AttributeProto *attr = attribute(node, name);
    return attr ? attr->s() : fallback;
  }

  static llvm::ArrayRef<int64_t> shapeOf(Value value) {
    return cast<RankedTensorType>(value.getType()).getShape();
  }
  RankedTensorType f32Tensor(llvm::ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, b.getF32Type());
  }
  Value f32Constant(float value) {
    return b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(value));
  }
  Value denseConstant(llvm::ArrayRef<int64_t> shape,
                      llvm::ArrayRef<float> data) {
    auto type = f32Tensor(shape);
    return b.create<arith::ConstantOp>(loc, type,
                                       DenseElementsAttr::get(type, data));
  }
  Value filled(llvm::ArrayRef<int64_t> shape, float value) {
    Value empty = b.create<tensor::EmptyOp>(loc, shape, b.getF32Type());
    return b.create<linalg::FillOp>(loc, f32Constant(value), empty)
        .getResult(0);
  }
  Value empty(llvm::ArrayRef<int64_t> shape) {
    return b.create<tensor::EmptyOp>(loc, shape, b.getF32Type());
  }

  /// A linalg.generic over `shape` (all parallel) reading `inputs` with
  /// numpy broadcasting.
  llvm::Expected<Value>
  elementwise(const onnx::NodeProto &node, llvm::ArrayRef<Value> inputs,
              std::function<Value(OpBuilder &, Location, ValueRange)> body);

  /// Reshapes a static tensor (collapse to 1-D, expand to `shape`).
  Value reshape(Value value, llvm::ArrayRef<int64_t> shape);

  /// A linalg.generic with explicit maps and iterators.
  Value generic(llvm::ArrayRef<Value> inputs, Value init,
                llvm::ArrayRef<AffineMap> maps,
                llvm::ArrayRef<utils::IteratorType> iterators,
                std::function<Value(OpBuilder &, Location, ValueRange)> body) {
    auto op = b.create<linalg::GenericOp>(
        loc, TypeRange{init.getType()}, ValueRange(inputs), ValueRange{init},
        maps, iterators,
        [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
          nested.create<linalg::YieldOp>(nestedLoc,
                                         body(nested, nestedLoc, args));
        });
    return op.getResult(0);
  }

  llvm::StringMap<Value> values;
  llvm::StringMap<ConstantData> constants;
};

llvm::Expected<Value> Importer::elementwise(
    const onnx::NodeProto &node, llvm::ArrayRef<Value> inputs,
    std::function<Value(OpBuilder &, Location, ValueRange)> body) {
  size_t rank = 0;
  for (Value value : inputs)
    rank = std::max(rank, shapeOf(value).size());
  std::vector<int64_t> shape(rank, 1);
  for (Value value : inputs) {
    llvm::ArrayRef<int64_t> in = shapeOf(value);
    for (size_t i = 0; i < in.size(); ++i) {
      int64_t &out = shape[rank - in.size() + i];
      if (in[i] == out || in[i] == 1)
        continue;
      if (out != 1)
        return error(describe(node) + ": shapes " + formatShape(in) + " and " +
                     formatShape(shape) + " do not broadcast");
      out = in[i];
    }
  }
  SmallVector<AffineMap> maps;
  for (Value value : inputs) {
    llvm::ArrayRef<int64_t> in = shapeOf(value);
    SmallVector<AffineExpr> exprs;
    for (size_t i = 0; i < in.size(); ++i) {
      size_t dim = rank - in.size() + i;
      exprs.push_back(in[i] == 1 && shape[dim] != 1 ? b.getAffineConstantExpr(0)
                                                    : b.getAffineDimExpr(dim));
    }
    maps.push_back(AffineMap::get(rank, 0, exprs, b.getContext()));
  }
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return generic(inputs, empty(shape), maps, iterators, body);
}

Value Importer::reshape(Value value, llvm::ArrayRef<int64_t> shape) {
  llvm::ArrayRef<int64_t> from = shapeOf(value);
  if (from == shape)
    return value;
  int64_t count = std::accumulate(from.begin(), from.end(), int64_t(1),
                                  std::multiplies<int64_t>());
  Value flat = value;
  if (from.size() != 1) {
    SmallVector<ReassociationIndices> all(1);
    for (size_t i = 0; i < from.size(); ++i)
      all[0].push_back(i);
    flat = from.empty() ? b.create<tensor::ExpandShapeOp>(
                               loc, f32Tensor({1}), value,
                               SmallVector<ReassociationIndices>{})
                              .getResult()
                        : b.create<tensor::CollapseShapeOp>(
                               loc, f32Tensor({count}), value, all)
                              .getResult();
  }
  if (shape.size() == 1)
    return flat;
  SmallVector<ReassociationIndices> all(shape.empty() ? 0 : 1);
  for (size_t i = 0; i < shape.size(); ++i)
    all[0].push_back(i);
  if (shape.empty())
    return b.create<tensor::CollapseShapeOp>(loc, f32Tensor({}), flat, all);
  return b.create<tensor::ExpandShapeOp>(loc, f32Tensor(shape), flat, all);
}

//===----------------------------------------------------------------------===//
// Converters
//===----------------------------------------------------------------------===//

using BodyFn = std::function<Value(OpBuilder &, Location, ValueRange)>;

Converter unary(std::function<Value(OpBuilder &, Location, Value)> fn) {
  return [fn](Importer &im, const onnx::NodeProto &node) -> llvm::Error {
    auto x = im.input(node, 0);
    if (!x)
      return x.takeError();
    auto result = im.elementwise(
        node, {*x}, [&](OpBuilder &b, Location loc, ValueRange args) {
          return fn(b, loc, args[0]);
        });
    return im.define(node, std::move(result));
  };
}

/// Unary ops that are one MLIR op.
template <typename OpTy> Converter unaryOp() {
  return unary([](OpBuilder &b, Location loc, Value x) {
    return b.create<OpTy>(loc, x).getResult();
  });
}

/// Binary ops, and variadic ones (Max, Min, Sum) folded left to right.
template <typename OpTy> Converter binary() {
  return [](Importer &im, const onnx::NodeProto &node) -> llvm::Error {
    std::vector<Value> inputs;
    for (int i = 0; i < node.input_size(); ++i) {
      auto value = im.input(node, i);
      if (!value)
        return value.takeError();
      inputs.push_back(*value);
    }
    auto result = im.elementwise(
        node, inputs, [](OpBuilder &b, Location loc, ValueRange args) {
          Value acc = args[0];
          for (Value next : args.drop_front().drop_back())
            acc = b.create<OpTy>(loc, acc, next);
          return acc;
        });
    return im.define(node, std::move(result));
  };
}

llvm::Error convertClip(Importer &im, const onnx::NodeProto &node) {
  auto x = im.input(node, 0);
  if (!x)
    return x.takeError();
  // Bounds: attributes (opset < 11), constant inputs, or runtime scalars.
  std::optional<float> lo, hi;
  if (Importer::attribute(node, "min"))
    lo = Importer::getFloat(node, "min", 0);
  if (Importer::attribute(node, "max"))
    hi = Importer::getFloat(node, "max", 0);
  std::vector<Value> inputs = {*x};
  int loInput = -1, hiInput = -1;
  for (int index : {1, 2}) {
    if (!im.hasInput(node, index))
      continue;
    if (const ConstantData *bound = im.constant(node, index);
        bound && bound->isFloat && bound->floats.size() == 1) {
      (index == 1 ? lo : hi) = bound->floats[0];
      continue;
    }
    auto value = im.input(node, index);
    if (!value)
      return value.takeError();
    (index == 1 ? loInput : hiInput) = inputs.size();
    inputs.push_back(*value);
  }
  auto result = im.elementwise(
      node, inputs, [&](OpBuilder &b, Location loc, ValueRange args) {
        auto bound = [&](std::optional<float> constant, int input) -> Value {
          if (input >= 0)
            return args[input];
          if (constant)
            return b.create<arith::ConstantOp>(loc,
                                               b.getF32FloatAttr(*constant));
          return nullptr;
        };
        Value v = args[0];
        if (Value low = bound(lo, loInput))
          v = b.create<arith::MaximumFOp>(loc, v, low);
        if (Value high = bound(hi, hiInput))
          v = b.create<arith::MinimumFOp>(loc, v, high);
        return v;
      });
  return im.define(node, std::move(result));
}

/// Spatial padding [begin..., end...] of a 2-D window op (Conv, pools).
llvm::Expected<std::array<int64_t, 4>>
windowPads(const onnx::NodeProto &node, llvm::ArrayRef<int64_t> inputHW,
           llvm::ArrayRef<int64_t> kernel, llvm::ArrayRef<int64_t> strides,
           llvm::ArrayRef<int64_t> dilations) {
  std::string autoPad = Importer::getString(node, "auto_pad", "NOTSET");
  std::array<int64_t, 4> pads{0, 0, 0, 0};
  if (autoPad == "NOTSET") {
    std::vector<int64_t> given = Importer::getInts(node, "pads", {0, 0, 0, 0});
    if (given.size() != 4)
      return error(Importer::describe(node) + ": expects 4 pads, got " +
                   std::to_string(given.size()));
    std::copy(given.begin(), given.end(), pads.begin());
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (int i = 0; i < 2; ++i) {
      int64_t out = (inputHW[i] + strides[i] - 1) / strides[i];
      int64_t total = std::max<int64_t>(0, (out - 1) * strides[i] +
                                               (kernel[i] - 1) * dilations[i] +
                                               1 - inputHW[i]);
      int64_t small = total / 2;
      pads[i] = autoPad == "SAME_UPPER" ? small : total - small;
      pads[i + 2] = total - pads[i];
    }
  } else if (autoPad != "VALID") {
    return error(Importer::describe(node) + ": auto_pad '" + autoPad +
                 "' is not supported");
  }
  return pads;
}

Value padSpatial(Importer &im, Value x, const std::array<int64_t, 4> &pads,
                 float value) {
  if (pads == std::array<int64_t, 4>{0, 0, 0, 0})
    return x;
  llvm::ArrayRef<int64_t> shape = Importer::shapeOf(x);
  SmallVector<int64_t> padded(shape.begin(), shape.end());
  padded[2] += pads[0] + pads[2];
  padded[3] += pads[1] + pads[3];
  SmallVector<OpFoldResult> low = {im.b.getIndexAttr(0), im.b.getIndexAttr(0),
                                   im.b.getIndexAttr(pads[0]),
                                   im.b.getIndexAttr(pads[1])};
  SmallVector<OpFoldResult> high = {im.b.getIndexAttr(0), im.b.getIndexAttr(0),
                                    im.b.getIndexAttr(pads[2]),
                                    im.b.getIndexAttr(pads[3])};
  return im.b.create<tensor::PadOp>(im.loc, im.f32Tensor(padded), x, low, high,
                                    im.f32Constant(value));
}

struct WindowGeometry {
  std::vector<int64_t> kernel, strides, dilations;
  std::array<int64_t, 4> pads;
  int64_t outH, outW;
};

llvm::Expected<WindowGeometry> windowGeometry(const onnx::NodeProto &node,
                                              llvm::ArrayRef<int64_t> xShape,
                                              std::vector<int64_t> kernel) {
  if (xShape.size() != 4)
    return error(Importer::describe(node) +
                 ": only 2-D windows (4-D NCHW "
                 "inputs) are supported, got " +
                 formatShape(xShape));
  WindowGeometry g;
  g.kernel = kernel;
  g.strides = Importer::getInts(node, "strides", {1, 1});
  g.dilations = Importer::getInts(node, "dilations", {1, 1});
  if (g.kernel.size() != 2 || g.strides.size() != 2 || g.dilations.size() != 2)
    return error(Importer::describe(node) +
                 ": kernel, strides and dilations must have 2 entries");
  auto pads =
      windowPads(node, xShape.drop_front(2), g.kernel, g.strides, g.dilations);
  if (!pads)
    return pads.takeError();
  g.pads = *pads;
  auto out = [&](int i) {
    int64_t extent = xShape[2 + i] + g.pads[i] + g.pads[i + 2];
    int64_t window = (g.kernel[i] - 1) * g.dilations[i] + 1;
    return (extent - window) / g.strides[i] + 1;
  };
  g.outH = out(0);
  g.outW = out(1);
  if (g.outH <= 0 || g.outW <= 0)
    return error(Importer::describe(node) + ": the window is larger than the "
                                            "padded input");
  return g;
}

NamedAttribute stridesAttr(Importer &im, llvm::ArrayRef<int64_t> values,
                           llvm::StringRef name) {
  auto type = RankedTensorType::get({2}, im.b.getI64Type());
  return im.b.getNamedAttr(name, DenseIntElementsAttr::get(type, values));
}

/// Permutes a tensor with linalg.transpose.
Value transposeTensor(Importer &im, Value x, llvm::ArrayRef<int64_t> perm) {
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  SmallVector<int64_t> shape;
  for (int64_t d : perm)
    shape.push_back(xs[d]);
  return im.b.create<linalg::TransposeOp>(im.loc, x, im.empty(shape), perm)
      .getResult()[0];
}

/// A 4-D tensor permuted by `perm`: at import time when it is a constant
/// (weights), else with a linalg.transpose.
Value permuted(Importer &im, Value value, const ConstantData *constant,
               llvm::ArrayRef<int64_t> perm) {
  if (!constant || !constant->isFloat || constant->shape.size() != 4)
    return transposeTensor(im, value, perm);
  llvm::ArrayRef<int64_t> from = constant->shape;
  std::array<int64_t, 4> to, fromStrides, index;
  for (int d = 0; d < 4; ++d)
    to[d] = from[perm[d]];
  fromStrides[3] = 1;
  for (int d = 2; d >= 0; --d)
    fromStrides[d] = fromStrides[d + 1] * from[d + 1];
  std::vector<float> data(constant->floats.size());
  size_t out = 0;
  for (index[0] = 0; index[0] < to[0]; ++index[0])
    for (index[1] = 0; index[1] < to[1]; ++index[1])
      for (index[2] = 0; index[2] < to[2]; ++index[2])
        for (index[3] = 0; index[3] < to[3]; ++index[3]) {
          int64_t offset = 0;
          for (int d = 0; d < 4; ++d)
            offset += index[d] * fromStrides[perm[d]];
          data[out++] = constant->floats[offset];
        }
  return im.denseConstant(to, data);
}

/// ONNX convolutions are NCHW. tcl computes them channels-last (NHWC input,
/// HWCF/HWC weights), the layout its convolution schedules vectorize well:
/// the input is transposed in, the weights are permuted at import, and the
/// result (with its bias) is transposed back.
llvm::Error convertConv(Importer &im, const onnx::NodeProto &node) {
  auto x = im.input(node, 0);
  if (!x)
    return x.takeError();
  auto w = im.input(node, 1);
  if (!w)
    return w.takeError();
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(*x),
                          ws = Importer::shapeOf(*w);
  if (ws.size() != 4)
    return error(Importer::describe(node) +
                 ": only 2-D convolutions are supported");
  auto g = windowGeometry(
      node, xs, Importer::getInts(node, "kernel_shape", {ws[2], ws[3]}));
  if (!g)
    return g.takeError();
  int64_t group = Importer::getInt(node, "group", 1);
  int64_t n = xs[0], c = xs[1], f = ws[0];
  bool depthwise = group != 1 && group == c && f == c && ws[1] == 1;
  if (group == 1 && ws[1] != c)
    return error(Importer::describe(node) + ": weights " + formatShape(ws) +
                 " do not match " + std::to_string(c) + " input channels");
  if (group != 1 && !depthwise)
    return error(Importer::describe(node) + ": group=" + std::to_string(group) +
                 " with " + std::to_string(c) + " input and " +
                 std::to_string(f) +
                 " output channels is not supported (only 1 or depthwise)");
  Value padded = padSpatial(im, *x, g->pads, 0.0f);
  Value input = transposeTensor(im, padded, {0, 2, 3, 1});
  SmallVector<NamedAttribute> attrs = {
      stridesAttr(im, g->strides, "strides"),
      stridesAttr(im, g->dilations, "dilations")};
  Value init = im.filled({n, g->outH, g->outW, f}, 0.0f);
  Value result;
  if (depthwise) {
    // [C, 1, KH, KW] -> [KH, KW, 1, C] -> [KH, KW, C]
    Value weights =
        im.reshape(permuted(im, *w, im.constant(node, 1), {2, 3, 1, 0}),
                   {ws[2], ws[3], c});
    result = im.b.create<linalg::DepthwiseConv2DNhwcHwcOp>(
                     im.loc, TypeRange{init.getType()},
                     ValueRange{input, weights}, ValueRange{init}, attrs)
                 .getResult(0);
  } else {
    // [F, C, KH, KW] -> [KH, KW, C, F]
    Value weights = permuted(im, *w, im.constant(node, 1), {2, 3, 1, 0});
    result = im.b.create<linalg::Conv2DNhwcHwcfOp>(
                     im.loc, TypeRange{init.getType()},
                     ValueRange{input, weights}, ValueRange{init}, attrs)
                 .getResult(0);
  }
  if (im.hasInput(node, 2)) {
    auto bias = im.input(node, 2);
    if (!bias)
      return bias.takeError();
    // Channels last: the bias broadcasts along the innermost dimension.
    auto biased = im.elementwise(
        node, {result, *bias}, [](OpBuilder &b, Location loc, ValueRange args) {
          return b.create<arith::AddFOp>(loc, args[0], args[1]).getResult();
        });
    if (!biased)
      return biased.takeError();
    result = *biased;
  }
  im.define(node, transposeTensor(im, result, {0, 3, 1, 2}));
  return llvm::Error::success();
}

llvm::Error convertPool(Importer &im, const onnx::NodeProto &node, bool max) {
  auto x = im.input(node, 0);
  if (!x)
    return x.takeError();
  if (Importer::getInt(node, "ceil_mode", 0) != 0)
    return error(Importer::describe(node) + ": ceil_mode=1 is not supported");
  if (node.output_size() > 1 && !node.output(1).empty())
    return error(Importer::describe(node) + ": the Indices output is not "
                                            "supported");
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(*x);
  auto g = windowGeometry(node, xs, Importer::getInts(node, "kernel_shape"));
  if (!g)
    return g.takeError();
  float padValue = max ? -std::numeric_limits<float>::infinity() : 0.0f;
  Value padded = padSpatial(im, *x, g->pads, padValue);
  SmallVector<NamedAttribute> attrs = {
      stridesAttr(im, g->strides, "strides"),
      stridesAttr(im, g->dilations, "dilations")};
  std::vector<int64_t> outShape = {xs[0], xs[1], g->outH, g->outW};
  Value window = im.empty(g->kernel);
  Value init = im.filled(outShape, padValue);
  Value result;
  if (max) {
    result = im.b.create<linalg::PoolingNchwMaxOp>(
                     im.loc, TypeRange{init.getType()},
                     ValueRange{padded, window}, ValueRange{init}, attrs)
                 .getResult(0);
    im.define(node, result);
    return llvm::Error::success();
  }
  result = im.b.create<linalg::PoolingNchwSumOp>(
                   im.loc, TypeRange{init.getType()},
                   ValueRange{padded, window}, ValueRange{init}, attrs)
               .getResult(0);
  // Divisors: the window size, or with count_include_pad=0 the number of
  // window positions inside the unpadded input (computed here, at import).
  bool includePad = Importer::getInt(node, "count_include_pad", 0) != 0;
  std::vector<float> divisors(g->outH * g->outW);
  for (int64_t oy = 0; oy < g->outH; ++oy)
    for (int64_t ox = 0; ox < g->outW; ++ox) {
      int64_t count = 0;
      for (int64_t ky = 0; ky < g->kernel[0]; ++ky)
        for (int64_t kx = 0; kx < g->kernel[1]; ++kx) {
          int64_t y = oy * g->strides[0] + ky * g->dilations[0] - g->pads[0];
          int64_t xx = ox * g->strides[1] + kx * g->dilations[1] - g->pads[1];
          bool inside = y >= 0 && y < xs[2] && xx >= 0 && xx < xs[3];
          count += includePad || inside;
        }
      divisors[oy * g->outW + ox] = static_cast<float>(count);
    }
  Value divisor = im.denseConstant({g->outH, g->outW}, divisors);
  auto divided = im.elementwise(
      node, {result, divisor}, [](OpBuilder &b, Location loc, ValueRange args) {
        return b.create<arith::DivFOp>(loc, args[0], args[1]).getResult();
      });
  return im.define(node, std::move(divided));
}

/// Sum of `x` over `axes` (sorted), keeping them as size-1 dims if `keep`.
Value reduceSum(Importer &im, Value x, llvm::ArrayRef<int64_t> axes,
                bool keep) {
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  size_t rank = xs.size();
  SmallVector<int64_t> reduced;
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iterators;
  for (size_t d = 0; d < rank; ++d) {
    bool isAxis = llvm::is_contained(axes, (int64_t)d);
    iterators.push_back(isAxis ? utils::IteratorType::reduction
                               : utils::IteratorType::parallel);
    if (!isAxis) {
      reduced.push_back(xs[d]);
      outExprs.push_back(im.b.getAffineDimExpr(d));
    }
  }
  MLIRContext *ctx = im.b.getContext();
  Value sum = im.generic(
      {x}, im.filled(reduced, 0.0f),
      {AffineMap::getMultiDimIdentityMap(rank, ctx),
       AffineMap::get(rank, 0, outExprs, ctx)},
      iterators, [](OpBuilder &b, Location loc, ValueRange args) {
        return b.create<arith::AddFOp>(loc, args[0], args[1]).getResult();
      });
  if (!keep)
    return sum;
  SmallVector<int64_t> kept(xs.begin(), xs.end());
  for (int64_t axis : axes)
    kept[axis] = 1;
  return im.reshape(sum, kept);
}

llvm::Error divideBy(Importer &im, const onnx::NodeProto &node, Value value,
                     float divisor) {
  Value scale = im.f32Constant(divisor);
  auto result = im.elementwise(
      node, {value}, [scale](OpBuilder &b, Location loc, ValueRange args) {
        return b.create<arith::DivFOp>(loc, args[0], scale).getResult();
      });
  return im.define(node, std::move(result));
}

llvm::Error convertGlobalAveragePool(Importer &im,
                                     const onnx::NodeProto &node) {
  auto x = im.input(node, 0);
  if (!x)
    return x.takeError();
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(*x);
  if (xs.size() < 3)
    return error(Importer::describe(node) + ": needs a spatial dimension");
  SmallVector<int64_t> axes;
  float count = 1;
  for (size_t d = 2; d < xs.size(); ++d) {
    axes.push_back(d);
    count *= xs[d];
  }
  return divideBy(im, node, reduceSum(im, *x, axes, /*keep=*/true), count);
}

llvm::Error convertReduceMean(Importer &im, const onnx::NodeProto &node) {
  auto x = im.input(node, 0);
  if (!x)
    return x.takeError();
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(*x);
  int64_t rank = xs.size();
  std::vector<int64_t> axes = Importer::getInts(node, "axes");
  if (const ConstantData *given = im.constant(node, 1))
    axes = given->ints;
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  float count = 1;
  for (int64_t &axis : axes) {
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank)
      return error(Importer::describe(node) + ": axis out of range");
    count *= xs[axis];
  }
  llvm::sort(axes);
  bool keep = Importer::getInt(node, "keepdims", 1) != 0;
  return divideBy(im, node, reduceSum(im, *x, axes, keep), count);
}

llvm::Error convertBatchNorm(Importer &im, const onnx::NodeProto &node) {
  auto x = im.input(node, 0);
  if (!x)
    return x.takeError();
  if (Importer::getInt(node, "training_mode", 0) != 0 ||
      (node.output_size() > 1 && !node.output(1).empty()))
    return error(Importer::describe(node) +
                 ": training mode (running "
                 "statistics outputs) is not supported");
  float epsilon = Importer::getFloat(node, "epsilon", 1e-5f);
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(*x);
  if (xs.size() < 2)
    return error(Importer::describe(node) + ": needs a channel dimension");
  int64_t c = xs[1];
  // Parameters become [C, 1, ..., 1] so they broadcast over [N, C, ...].
  std::vector<int64_t> paramShape(xs.size() - 1, 1);
  paramShape[0] = c;
  const ConstantData *scale = im.constant(node, 1),
                     *bias = im.constant(node, 2), *mean = im.constant(node, 3),
                     *var = im.constant(node, 4);
  std::vector<Value> inputs = {*x};
  bool folded = scale && bias && mean && var;
  if (folded) {
    // The usual case (initializers): y = x * a + b, a and b folded here.
    std::vector<float> a(c), shift(c);
    for (int64_t i = 0; i < c; ++i) {
      a[i] = scale->floats[i] / std::sqrt(var->floats[i] + epsilon);
      shift[i] = bias->floats[i] - mean->floats[i] * a[i];
    }
    inputs.push_back(im.denseConstant(paramShape, a));
    inputs.push_back(im.denseConstant(paramShape, shift));
  } else {
    for (int index = 1; index <= 4; ++index) {
      auto value = im.input(node, index);
      if (!value)
        return value.takeError();
      if (Importer::shapeOf(*value) != llvm::ArrayRef<int64_t>{c})
        return error(Importer::describe(node) + ": parameters must have " +
                     std::to_string(c) + " channels");
      inputs.push_back(im.reshape(*value, paramShape));
    }
  }
  auto result = im.elementwise(
      node, inputs, [&](OpBuilder &b, Location loc, ValueRange args) {
        if (folded) {
          Value scaled = b.create<arith::MulFOp>(loc, args[0], args[1]);
          return b.create<arith::AddFOp>(loc, scaled, args[2]).getResult();
        }
        // (x - mean) * scale / sqrt(var + epsilon) + bias
        Value eps =
            b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(epsilon));
        Value centered = b.create<arith::SubFOp>(loc, args[0], args[3]);
        Value deviation = b.create<math::SqrtOp>(
            loc, b.create<arith::AddFOp>(loc, args[4], eps));
        Value normalized = b.create<arith::DivFOp>(
            loc, b.create<arith::MulFOp>(loc, centered, args[1]), deviation);
        return b.create<arith::AddFOp>(loc, normalized, args[2]).getResult();
      });
  return im.define(node, std::move(result));
}

Value transpose2D(Importer &im, Value x) {
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  Value init = im.empty({xs[1], xs[0]});
  return im.b
      .create<linalg::TransposeOp>(im.loc, x, init,
                                   llvm::ArrayRef<int64_t>{1, 0})
      .getResult()[0];
}

llvm::Error convertGemm(Importer &im, const onnx::NodeProto &node) {
  auto a = im.input(node, 0);
  if (!a)
    return a.takeError();
  auto bm = im.input(node, 1);
  if (!bm)
    return bm.takeError();
  Value lhs = *a, rhs = *bm;
  if (Importer::shapeOf(lhs).size() != 2 || Importer::shapeOf(rhs).size() != 2)
    return error(Importer::describe(node) + ": A and B must be matrices");
  if (Importer::getInt(node, "transA", 0))
    lhs = transpose2D(im, lhs);
  bool transB = Importer::getInt(node, "transB", 0) != 0;
  int64_t m = Importer::shapeOf(lhs)[0], k = Importer::shapeOf(lhs)[1];
  int64_t n = transB ? Importer::shapeOf(rhs)[0] : Importer::shapeOf(rhs)[1];
  int64_t rk = transB ? Importer::shapeOf(rhs)[1] : Importer::shapeOf(rhs)[0];
  if (rk != k)
    return error(Importer::describe(node) + ": inner dimensions differ");
  Value init = im.filled({m, n}, 0.0f);
  Value product = transB ? im.b.create<linalg::MatmulTransposeBOp>(
                                   im.loc, TypeRange{init.getType()},
                                   ValueRange{lhs, rhs}, ValueRange{init})
                               .getResult(0)
                         : im.b.create<linalg::MatmulOp>(
                                   im.loc, TypeRange{init.getType()},
                                   ValueRange{lhs, rhs}, ValueRange{init})
                               .getResult(0);
  float alpha = Importer::getFloat(node, "alpha", 1.0f);
  float beta = Importer::getFloat(node, "beta", 1.0f);
  std::vector<Value> inputs = {product};
  if (im.hasInput(node, 2)) {
    auto c = im.input(node, 2);
    if (!c)
      return c.takeError();
    inputs.push_back(*c);
  }
  if (inputs.size() == 1 && alpha == 1.0f) {
    im.define(node, product);
    return llvm::Error::success();
  }
  auto result = im.elementwise(
      node, inputs, [&](OpBuilder &b, Location loc, ValueRange args) {
        Value v = args[0];
        if (alpha != 1.0f)
          v = b.create<arith::MulFOp>(
              loc, v,
              b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(alpha)));
        if (args.size() > 2) {
          Value c = args[1];
          if (beta != 1.0f)
            c = b.create<arith::MulFOp>(
                loc, c,
                b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(beta)));
          v = b.create<arith::AddFOp>(loc, v, c);
        }
        return v;
      });
  return im.define(node, std::move(result));
}

llvm::Error convertMatMul(Importer &im, const onnx::NodeProto &node) {
  auto a = im.input(node, 0);
  if (!a)
    return a.takeError();
  auto bm = im.input(node, 1);
  if (!bm)
    return bm.takeError();
  llvm::ArrayRef<int64_t> as = Importer::shapeOf(*a),
                          bs = Importer::shapeOf(*bm);
  if (as.size() >= 2 && bs.size() == 2 && as.back() == bs[0]) {
    // [..., M, K] x [K, N]: fold the leading dims into M.
    int64_t rows = std::accumulate(as.begin(), as.end() - 1, int64_t(1),
                                   std::multiplies<int64_t>());
    Value lhs = im.reshape(*a, {rows, as.back()});
    Value init = im.filled({rows, bs[1]}, 0.0f);
    Value product =
        im.b.create<linalg::MatmulOp>(im.loc, TypeRange{init.getType()},
                                      ValueRange{lhs, *bm}, ValueRange{init})
            .getResult(0);
    SmallVector<int64_t> shape(as.begin(), as.end() - 1);
    shape.push_back(bs[1]);
    im.define(node, im.reshape(product, shape));
    return llvm::Error::success();
  }
  if (as.size() == bs.size() && as.size() >= 3 &&
      as.drop_back(2) == bs.drop_back(2) && as.back() == bs[bs.size() - 2]) {
    int64_t batch = std::accumulate(as.begin(), as.end() - 2, int64_t(1),
                                    std::multiplies<int64_t>());
    int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
    Value lhs = im.reshape(*a, {batch, m, k});
    Value rhs = im.reshape(*bm, {batch, k, n});
    Value init = im.filled({batch, m, n}, 0.0f);
    Value product = im.b.create<linalg::BatchMatmulOp>(
                            im.loc, TypeRange{init.getType()},
                            ValueRange{lhs, rhs}, ValueRange{init})
                        .getResult(0);
    SmallVector<int64_t> shape(as.begin(), as.end() - 1);
    shape.push_back(n);
    im.define(node, im.reshape(product, shape));
    return llvm::Error::success();
  }
  return error(Importer::describe(node) + ": shapes " + formatShape(as) +
               " and " + formatShape(bs) +
               " are not supported (matrix, "
               "stacked-by-matrix and equal-batch products are)");
}

llvm::Error convertSoftmax(Importer &im, const onnx::NodeProto &node) {
  auto x = im.input(node, 0);
  if (!x)
    return x.takeError();
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(*x);
  int64_t rank = xs.size();
  int64_t axis = Importer::getInt(node, "axis", -1);
  if (axis < 0)
    axis += rank;
  if (axis != rank - 1)
    return error(Importer::describe(node) +
                 ": only softmax over the last axis is supported");
  MLIRContext *ctx = im.b.getContext();
  SmallVector<AffineExpr> rowExprs;
  for (int64_t d = 0; d + 1 < rank; ++d)
    rowExprs.push_back(im.b.getAffineDimExpr(d));
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap row = AffineMap::get(rank, 0, rowExprs, ctx);
  SmallVector<utils::IteratorType> reduce(rank, utils::IteratorType::parallel);
  reduce.back() = utils::IteratorType::reduction;
  SmallVector<utils::IteratorType> parallel(rank,
                                            utils::IteratorType::parallel);
  SmallVector<int64_t> rows(xs.begin(), xs.end() - 1);
  Value max = im.generic(
      {*x}, im.filled(rows, -std::numeric_limits<float>::infinity()),
      {identity, row}, reduce, [](OpBuilder &b, Location loc, ValueRange args) {
        return b.create<arith::MaximumFOp>(loc, args[0], args[1]).getResult();
      });
  Value sum =
      im.generic({*x, max}, im.filled(rows, 0.0f), {identity, row, row}, reduce,
                 [](OpBuilder &b, Location loc, ValueRange args) {
                   Value e = b.create<math::ExpOp>(
                       loc, b.create<arith::SubFOp>(loc, args[0], args[1]));
                   return b.create<arith::AddFOp>(loc, e, args[2]).getResult();
                 });
  Value result =
      im.generic({*x, max, sum}, im.empty(xs), {identity, row, row, identity},
                 parallel, [](OpBuilder &b, Location loc, ValueRange args) {
                   Value e = b.create<math::ExpOp>(
                       loc, b.create<arith::SubFOp>(loc, args[0], args[1]));
                   return b.create<arith::DivFOp>(loc, e, args[2]).getResult();
                 });
  im.define(node, result);
  return llvm::Error::success();
}

llvm::Error convertTranspose(Importer &im, const onnx::NodeProto &node) {
  auto x = im.input(node, 0);
  if (!x)
    return x.takeError();
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(*x);
  std::vector<int64_t> perm = Importer::getInts(node, "perm");
  if (perm.empty())
    for (int64_t d = xs.size() - 1; d >= 0; --d)
      perm.push_back(d);
  if (perm.size() != xs.size())
    return error(Importer::describe(node) + ": perm does not match the rank");
  SmallVector<int64_t> shape;
  for (int64_t d : perm)
    shape.push_back(xs[d]);
  Value result =
      im.b.create<linalg::TransposeOp>(im.loc, *x, im.empty(shape), perm)
          .getResult()[0];
  im.define(node, result);
  return llvm::Error::success();
}

/// Ops that only change the shape: Flatten, Reshape, Squeeze, Unsqueeze.
llvm::Error convertReshapeLike(Importer &im, const onnx::NodeProto &node) {
  auto x = im.input(node, 0);
  if (!x)
    return x.takeError();
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(*x);
  int64_t rank = xs.size();
  int64_t count = std::accumulate(xs.begin(), xs.end(), int64_t(1),
                                  std::multiplies<int64_t>());
  std::vector<int64_t> shape;
  const std::string &type = node.op_type();
  auto axesOf = [&]() -> std::vector<int64_t> {
    if (const ConstantData *given = im.constant(node, 1))
      return given->ints;
    return Importer::getInts(node, "axes");
  };
  if (type == "Flatten") {
    int64_t axis = Importer::getInt(node, "axis", 1);
    if (axis < 0)
      axis += rank;
    int64_t outer = std::accumulate(xs.begin(), xs.begin() + axis, int64_t(1),
                                    std::multiplies<int64_t>());
    shape = {outer, count / outer};
  } else if (type == "Reshape") {
    const ConstantData *target = im.constant(node, 1);
    if (!target || target->isFloat)
      return error(Importer::describe(node) + ": the target shape must be a "
                                              "constant");
    int64_t known = 1, inferred = -1;
    for (size_t i = 0; i < target->ints.size(); ++i) {
      int64_t dim = target->ints[i];
      if (dim == 0 && !Importer::getInt(node, "allowzero", 0))
        dim = xs[i];
      if (dim == -1)
        inferred = i;
      else
        known *= dim;
      shape.push_back(dim);
    }
    if (inferred >= 0)
      shape[inferred] = count / known;
  } else if (type == "Squeeze") {
    std::vector<int64_t> axes = axesOf();
    for (int64_t &axis : axes)
      if (axis < 0)
        axis += rank;
    for (int64_t d = 0; d < rank; ++d)
      if (!(axes.empty() ? xs[d] == 1 : llvm::is_contained(axes, d)))
        shape.push_back(xs[d]);
  } else { // Unsqueeze
    std::vector<int64_t> axes = axesOf();
    int64_t outRank = rank + axes.size();
    for (int64_t &axis : axes)
      if (axis < 0)
        axis += outRank;
    size_t next = 0;
    for (int64_t d = 0; d < outRank; ++d)
      shape.push_back(llvm::is_contained(axes, d) ? 1 : xs[next++]);
  }
  int64_t newCount = std::accumulate(shape.begin(), shape.end(), int64_t(1),
                                     std::multiplies<int64_t>());
  if (newCount != count)
    return error(Importer::describe(node) + ": cannot reshape " +
                 formatShape(xs) + " into " + formatShape(shape));
  im.define(node, im.reshape(*x, shape));
  return llvm::Error::success();
}

llvm::Error convertConcat(Importer &im, const onnx::NodeProto &node) {
  std::vector<Value> inputs;
  for (int i = 0; i < node.input_size(); ++i) {
    auto value = im.input(node, i);
    if (!value)
      return value.takeError();
    inputs.push_back(*value);
  }
  llvm::ArrayRef<int64_t> first = Importer::shapeOf(inputs[0]);
  int64_t rank = first.size();
  int64_t axis = Importer::getInt(node, "axis", 0);
  if (axis < 0)
    axis += rank;
  SmallVector<int64_t> shape(first.begin(), first.end());
  shape[axis] = 0;
  for (Value value : inputs)
    shape[axis] += Importer::shapeOf(value)[axis];
  Value result = im.empty(shape);
  int64_t offset = 0;
  for (Value value : inputs) {
    llvm::ArrayRef<int64_t> vs = Importer::shapeOf(value);
    SmallVector<OpFoldResult> offsets(rank, im.b.getIndexAttr(0));
    offsets[axis] = im.b.getIndexAttr(offset);
    SmallVector<OpFoldResult> sizes, strides(rank, im.b.getIndexAttr(1));
    for (int64_t size : vs)
      sizes.push_back(im.b.getIndexAttr(size));
    result = im.b.create<tensor::InsertSliceOp>(im.loc, value, result, offsets,
                                                sizes, strides);
    offset += vs[axis];
  }
  im.define(node, result);
  return llvm::Error::success();
}

/// Gather with constant indices: slices of the data along the axis.
llvm::Error convertGather(Importer &im, const onnx::NodeProto &node) {
  auto data = im.input(node, 0);
  if (!data)
    return data.takeError();
  const ConstantData *indices = im.constant(node, 1);
  if (!indices || indices->isFloat || indices->shape.size() > 1)
    return error(Importer::describe(node) + ": only constant scalar or 1-D "
                                            "indices are supported");
  llvm::ArrayRef<int64_t> ds = Importer::shapeOf(*data);
  int64_t rank = ds.size();
  int64_t axis = Importer::getInt(node, "axis", 0);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return error(Importer::describe(node) + ": axis out of range");
  SmallVector<Value> slices;
  for (int64_t index : indices->ints) {
    if (index < 0)
      index += ds[axis];
    if (index < 0 || index >= ds[axis])
      return error(Importer::describe(node) + ": index " +
                   std::to_string(index) + " out of range");
    SmallVector<OpFoldResult> offsets(rank, im.b.getIndexAttr(0)), sizes,
        strides(rank, im.b.getIndexAttr(1));
    offsets[axis] = im.b.getIndexAttr(index);
    SmallVector<int64_t> sliceShape(ds.begin(), ds.end());
    sliceShape[axis] = 1;
    for (int64_t size : sliceShape)
      sizes.push_back(im.b.getIndexAttr(size));
    slices.push_back(im.b.create<tensor::ExtractSliceOp>(
        im.loc, im.f32Tensor(sliceShape), *data, offsets, sizes, strides));
  }
  Value result;
  SmallVector<int64_t> shape(ds.begin(), ds.end());
  if (indices->shape.empty()) {
    shape.erase(shape.begin() + axis); // A scalar index drops the axis.
    result = im.reshape(slices[0], shape);
  } else {
    shape[axis] = slices.size();
    result = im.empty(shape);
    for (auto [position, slice] : llvm::enumerate(slices)) {
      SmallVector<OpFoldResult> offsets(rank, im.b.getIndexAttr(0)), sizes,
          strides(rank, im.b.getIndexAttr(1));
      offsets[axis] = im.b.getIndexAttr(position);
      for (int64_t size : Importer::shapeOf(slice))
        sizes.push_back(im.b.getIndexAttr(size));
      result = im.b.create<tensor::InsertSliceOp>(im.loc, slice, result,
                                                  offsets, sizes, strides);
    }
  }
  im.define(node, result);
  return llvm::Error::success();
}

llvm::Error convertConstant(Importer &im, const onnx::NodeProto &node) {
  const onnx::AttributeProto *value = Importer::attribute(node, "value");
  if (!value || !value->has_t())
    return error(Importer::describe(node) + ": only the 'value' tensor form "
                                            "is supported");
  auto data = readTensor(value->t());
  if (!data)
    return data.takeError();
  im.constants[node.output(0)] = *data;
  if (data->isFloat)
    im.define(node, im.denseConstant(data->shape, data->floats));
  return llvm::Error::success();
}

const std::map<std::string, Converter> &getConverters() {
  using M = std::function<Value(OpBuilder &, Location, Value)>;
  static const std::map<std::string, Converter> converters = {
      {"Identity",
       [](Importer &im, const onnx::NodeProto &node) -> llvm::Error {
         auto x = im.input(node, 0);
         if (!x)
           return x.takeError();
         im.define(node, *x);
         if (const ConstantData *c = im.constant(node, 0))
           im.constants[node.output(0)] = *c;
         return llvm::Error::success();
       }},
      {"Constant", convertConstant},
      {"Relu", unary(M([](OpBuilder &b, Location loc, Value x) {
         return b.create<arith::MaximumFOp>(
             loc, x, b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(0)));
       }))},
      {"Sigmoid", unary(M([](OpBuilder &b, Location loc, Value x) {
         Value one = b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(1));
         Value e = b.create<math::ExpOp>(loc, b.create<arith::NegFOp>(loc, x));
         return b.create<arith::DivFOp>(loc, one,
                                        b.create<arith::AddFOp>(loc, one, e));
       }))},
      {"Tanh", unaryOp<math::TanhOp>()},
      {"Sqrt", unaryOp<math::SqrtOp>()},
      {"Exp", unaryOp<math::ExpOp>()},
      {"Log", unaryOp<math::LogOp>()},
      {"Erf", unaryOp<math::ErfOp>()},
      {"Abs", unaryOp<math::AbsFOp>()},
      {"Neg", unaryOp<arith::NegFOp>()},
      {"Add", binary<arith::AddFOp>()},
      {"Sub", binary<arith::SubFOp>()},
      {"Mul", binary<arith::MulFOp>()},
      {"Div", binary<arith::DivFOp>()},
      {"Pow", binary<math::PowFOp>()},
      {"Max", binary<arith::MaximumFOp>()},
      {"Min", binary<arith::MinimumFOp>()},
      {"Sum", binary<arith::AddFOp>()},
      {"Clip", convertClip},
      {"Conv", convertConv},
      {"MaxPool",
       [](Importer &im, const onnx::NodeProto &node) {
         return convertPool(im, node, /*max=*/true);
       }},
      {"AveragePool",
       [](Importer &im, const onnx::NodeProto &node) {
         return convertPool(im, node, /*max=*/false);
       }},
      {"GlobalAveragePool", convertGlobalAveragePool},
      {"ReduceMean", convertReduceMean},
      {"BatchNormalization", convertBatchNorm},
      {"Gemm", convertGemm},
      {"MatMul", convertMatMul},
      {"Softmax", convertSoftmax},
      {"Transpose", convertTranspose},
      {"Flatten", convertReshapeLike},
      {"Reshape", convertReshapeLike},
      {"Squeeze", convertReshapeLike},
      {"Unsqueeze", convertReshapeLike},
      {"Concat", convertConcat},
      {"Gather", convertGather},
  };
  return converters;
}

llvm::Expected<std::vector<int64_t>>
staticShape(const onnx::ValueInfoProto &info,
            const OnnxImportOptions &options) {
  auto given = options.inputShapes.find(info.name());
  if (given != options.inputShapes.end())
    return given->second;
  if (!info.type().has_tensor_type())
    return error("graph input '" + info.name() + "' is not a tensor");
  std::vector<int64_t> shape;
  const onnx::TensorShapeProto &proto = info.type().tensor_type().shape();
  for (int d = 0; d < proto.dim_size(); ++d) {
    const auto &dim = proto.dim(d);
    if (!dim.has_dim_value() || dim.dim_value() <= 0)
      return error(
          "graph input '" + info.name() + "' has a dynamic dimension " +
          (dim.has_dim_param() ? "'" + dim.dim_param() + "' " : "") + "(dim " +
          std::to_string(d) + "); give its shape with --input-shape " +
          info.name() + "=1x3x224x224 (for example)");
    shape.push_back(dim.dim_value());
  }
  return shape;
}

llvm::Expected<OwningOpRef<ModuleOp>>
Importer::importModel(onnx::ModelProto &model,
                      const OnnxImportOptions &options) {
  MLIRContext *ctx = b.getContext();
  ctx->loadDialect<arith::ArithDialect, func::FuncDialect,
                   linalg::LinalgDialect, math::MathDialect,
                   tensor::TensorDialect>();
  const onnx::GraphProto &graph = model.graph();

  for (const onnx::TensorProto &init : graph.initializer()) {
    auto data = readTensor(init);
    if (!data)
      return data.takeError();
    constants[init.name()] = *data;
  }

  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  SmallVector<Type> argTypes;
  std::vector<std::string> argNames;
  for (const onnx::ValueInfoProto &in : graph.input()) {
    if (constants.count(in.name()))
      continue; // An initializer listed as an input (older exporters).
    int32_t elementType = in.type().tensor_type().elem_type();
    if (elementType != onnx::TensorProto::FLOAT)
      return error("graph input '" + in.name() + "' has ONNX element type " +
                   std::to_string(elementType) +
                   "; tcl compiles float (f32) inputs only");
    auto shape = staticShape(in, options);
    if (!shape)
      return shape.takeError();
    argTypes.push_back(f32Tensor(*shape));
    argNames.push_back(in.name());
  }
  auto func = b.create<func::FuncOp>(loc, options.functionName,
                                     b.getFunctionType(argTypes, {}));
  Block *body = func.addEntryBlock();
  b.setInsertionPointToStart(body);
  for (auto [name, arg] : llvm::zip_equal(argNames, body->getArguments()))
    values[name] = arg;
  for (auto &[name, data] : constants)
    if (data.isFloat)
      values[name] = denseConstant(data.shape, data.floats);

  const auto &converters = getConverters();
  for (int index = 0; index < graph.node_size(); ++index) {
    const onnx::NodeProto &node = graph.node(index);
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      return error("unsupported operator '" + node.domain() +
                   "::" + node.op_type() + "' (node '" + node.name() + "', #" +
                   std::to_string(index) + ")");
    auto converter = converters.find(node.op_type());
    if (converter == converters.end())
      return error("unsupported operator '" + node.op_type() + "' (node '" +
                   (node.name().empty() ? node.output(0) : node.name()) +
                   "', #" + std::to_string(index) + ")");
    loc = NameLoc::get(
        b.getStringAttr(node.name().empty() ? node.output(0) : node.name()));
    if (llvm::Error e = converter->second(*this, node))
      return std::move(e);
  }
  loc = b.getUnknownLoc();

  SmallVector<Value> results;
  for (const onnx::ValueInfoProto &out : graph.output()) {
    auto found = values.find(out.name());
    if (found == values.end())
      return error("graph output '" + out.name() +
                   "' is not computed by "
                   "any supported node");
    results.push_back(found->second);
  }
  b.create<func::ReturnOp>(loc, results);
  func.setFunctionType(
      b.getFunctionType(argTypes, ValueRange(results).getTypes()));
  // The graph's names, for the compiled model's C API.
  for (auto [index, name] : llvm::enumerate(argNames))
    func.setArgAttr(index, "tcl.name", b.getStringAttr(name));
  for (int index = 0; index < graph.output_size(); ++index)
    func.setResultAttr(index, "tcl.name",
                       b.getStringAttr(graph.output(index).name()));
  if (failed(verify(*module)))
    return error("the imported module does not verify (a tcl importer bug)");
  return module;
}

} // namespace

llvm::Expected<OwningOpRef<ModuleOp>>
mlir::tcl::importOnnxFile(llvm::StringRef path, MLIRContext *context,
                          const OnnxImportOptions &options) {
  std::ifstream stream(path.str(), std::ios::binary);
  if (!stream)
    return error("cannot open '" + path + "'");
  onnx::ModelProto model;
  if (!model.ParseFromIstream(&stream))
    return error("'" + path +
                 "' is not a valid ONNX model (protobuf parse "
                 "failed)");
  if (!model.has_graph())
    return error("'" + path + "' has no graph");
  // Fix the user-given input shapes before shape inference, so it can
  // propagate them.
  for (onnx::ValueInfoProto &in : *model.mutable_graph()->mutable_input()) {
    auto given = options.inputShapes.find(in.name());
    if (given == options.inputShapes.end())
      continue;
    onnx::TensorShapeProto *shape =
        in.mutable_type()->mutable_tensor_type()->mutable_shape();
    shape->clear_dim();
    for (int64_t dim : given->second)
      shape->add_dim()->set_dim_value(dim);
  }
  try {
    onnx::shape_inference::InferShapes(model);
  } catch (const std::exception &e) {
    return error("ONNX shape inference failed on '" + path + "': " + e.what());
  }
  Importer importer(context);
  return importer.importModel(model, options);
}

llvm::Error mlir::tcl::parseInputShape(llvm::StringRef text,
                                       OnnxImportOptions &options) {
  auto [name, dims] = text.rsplit('=');
  if (name.empty() || dims.empty())
    return error("--input-shape expects name=DxDx..., got '" + text + "'");
  std::vector<int64_t> shape;
  llvm::SmallVector<llvm::StringRef> parts;
  dims.split(parts, 'x');
  for (llvm::StringRef part : parts) {
    int64_t dim;
    if (part.getAsInteger(10, dim) || dim <= 0)
      return error("--input-shape '" + text + "': '" + part +
                   "' is not a positive dimension");
    shape.push_back(dim);
  }
  options.inputShapes[name.str()] = shape;
  return llvm::Error::success();
}

std::vector<std::string> mlir::tcl::getSupportedOnnxOps() {
  std::vector<std::string> names;
  for (const auto &[name, converter] : getConverters())
    names.push_back(name);
  return names;
}

llvm::Error mlir::tcl::readOnnxTensorFile(llvm::StringRef path,
                                          std::vector<int64_t> &shape,
                                          std::vector<float> &data) {
  std::ifstream stream(path.str(), std::ios::binary);
  onnx::TensorProto tensor;
  if (!stream || !tensor.ParseFromIstream(&stream))
    return error("cannot read an ONNX tensor from '" + path + "'");
  if (tensor.data_type() != onnx::TensorProto::FLOAT)
    return error("'" + path + "' holds ONNX element type " +
                 std::to_string(tensor.data_type()) + ", not float");
  auto values = readTensor(tensor);
  if (!values)
    return values.takeError();
  shape = values->shape;
  data = values->floats;
  return llvm::Error::success();
}

llvm::Expected<std::vector<OnnxTensor>>
mlir::tcl::readOnnxTestData(llvm::StringRef dir, llvm::StringRef prefix,
                            size_t count) {
  std::vector<OnnxTensor> tensors(count);
  for (size_t i = 0; i < count; ++i) {
    std::string path = (dir + "/" + prefix + std::to_string(i) + ".pb").str();
    if (llvm::Error e =
            readOnnxTensorFile(path, tensors[i].shape, tensors[i].data))
      return std::move(e);
  }
  return tensors;
}
