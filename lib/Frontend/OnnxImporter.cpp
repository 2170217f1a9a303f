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
#include "tcl/Support/Indexing.h"

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

/// Element types the importer carries: f32 for data, i64 for integers
/// (indices, shapes), i1 for booleans (masks).
enum class ElementKind { Float, Int, Bool };

/// A tensor whose value is known at import time: an initializer, a Constant
/// node, or the result of evaluating a node on such tensors (shape
/// computations, see getEvaluators).
struct ConstantData {
  std::vector<int64_t> shape;
  ElementKind kind = ElementKind::Float;
  std::vector<float> floats; // Float
  std::vector<int64_t> ints; // Int, and Bool as 0 or 1

  bool isFloat() const { return kind == ElementKind::Float; }
  int64_t size() const {
    return std::accumulate(shape.begin(), shape.end(), int64_t(1),
                           std::multiplies<int64_t>());
  }
  /// A zero-filled tensor.
  static ConstantData zeros(ElementKind kind, std::vector<int64_t> shape) {
    ConstantData data;
    data.kind = kind;
    data.shape = std::move(shape);
    if (data.isFloat())
      data.floats.assign(data.size(), 0.0f);
    else
      data.ints.assign(data.size(), 0);
    return data;
  }
  /// Element `from` of `source` (of the same kind) becomes element `to`.
  void copyElement(int64_t to, const ConstantData &source, int64_t from) {
    if (isFloat())
      floats[to] = source.floats[from];
    else
      ints[to] = source.ints[from];
  }
  double asDouble(int64_t i) const {
    return isFloat() ? floats[i] : static_cast<double>(ints[i]);
  }
};

llvm::Expected<ConstantData> readTensor(const onnx::TensorProto &tensor) {
  ConstantData data;
  data.shape.assign(tensor.dims().begin(), tensor.dims().end());
  // Dimensions come from the file: check them before multiplying.
  constexpr int64_t kMaxElements = int64_t(1) << 40;
  int64_t count = 1;
  for (int64_t dim : data.shape) {
    if (dim < 0 || (dim > 0 && count > kMaxElements / dim))
      return error("tensor '" + tensor.name() + "' has invalid dimensions " +
                   formatShape(data.shape));
    count *= dim;
  }
  if (tensor.has_data_location() &&
      tensor.data_location() == onnx::TensorProto::EXTERNAL)
    return error("tensor '" + tensor.name() +
                 "' keeps its data in an external file, which tcl does not "
                 "read yet");
  const std::string &raw = tensor.raw_data();
  // Reads raw bytes of element type T, or else the typed field `typed`.
  auto read = [&](auto tag, const auto &typed, auto &out) -> llvm::Error {
    using T = decltype(tag);
    if (raw.empty()) {
      out.assign(typed.begin(), typed.end());
      return llvm::Error::success();
    }
    if (raw.size() != count * sizeof(T))
      return error("tensor '" + tensor.name() + "' has " +
                   std::to_string(raw.size()) + " bytes of data for " +
                   std::to_string(count) + " elements");
    const T *values = reinterpret_cast<const T *>(raw.data());
    out.assign(values, values + count);
    return llvm::Error::success();
  };
  llvm::Error status = [&]() -> llvm::Error {
    switch (tensor.data_type()) {
    case onnx::TensorProto::FLOAT:
      return read(float(), tensor.float_data(), data.floats);
    case onnx::TensorProto::DOUBLE:
      return read(double(), tensor.double_data(), data.floats);
    case onnx::TensorProto::INT64:
      data.kind = ElementKind::Int;
      return read(int64_t(), tensor.int64_data(), data.ints);
    case onnx::TensorProto::INT32:
      data.kind = ElementKind::Int;
      return read(int32_t(), tensor.int32_data(), data.ints);
    case onnx::TensorProto::INT8:
      data.kind = ElementKind::Int;
      return read(int8_t(), tensor.int32_data(), data.ints);
    case onnx::TensorProto::UINT8:
      data.kind = ElementKind::Int;
      return read(uint8_t(), tensor.int32_data(), data.ints);
    case onnx::TensorProto::BOOL:
      data.kind = ElementKind::Bool;
      if (llvm::Error e = read(uint8_t(), tensor.int32_data(), data.ints))
        return e;
      for (int64_t &value : data.ints)
        value = value != 0;
      return llvm::Error::success();
    default:
      return error("tensor '" + tensor.name() + "' has ONNX element type " +
                   std::to_string(tensor.data_type()) +
                   "; tcl reads float, double, int8/32/64, uint8 and bool "
                   "tensors");
    }
  }();
  if (status)
    return std::move(status);
  if ((int64_t)(data.isFloat() ? data.floats.size() : data.ints.size()) !=
      count)
    return error("tensor '" + tensor.name() +
                 "' has the wrong number of "
                 "elements");
  return data;
}

//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

/// Row-major offset in a tensor of `shape` of the element that `index` (of
/// the broadcast shape, same or higher rank) reads under numpy broadcasting.
int64_t broadcastOffset(llvm::ArrayRef<int64_t> shape,
                        llvm::ArrayRef<int64_t> index) {
  int64_t offset = 0, stride = 1;
  size_t lead = index.size() - shape.size();
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    offset += (shape[d] == 1 ? 0 : index[lead + d]) * stride;
    stride *= shape[d];
  }
  return offset;
}

/// The numpy broadcast of `shapes`, or nullopt if they do not broadcast.
std::optional<std::vector<int64_t>>
broadcastShapes(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes) {
  size_t rank = 0;
  for (llvm::ArrayRef<int64_t> shape : shapes)
    rank = std::max(rank, shape.size());
  std::vector<int64_t> result(rank, 1);
  for (llvm::ArrayRef<int64_t> shape : shapes)
    for (size_t i = 0; i < shape.size(); ++i) {
      int64_t &out = result[rank - shape.size() + i];
      if (shape[i] == out || shape[i] == 1)
        continue;
      if (out != 1)
        return std::nullopt;
      out = shape[i];
    }
  return result;
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
    if (Value value = lookup(node.input(index)))
      return value;
    return error(describe(node) + " uses '" + node.input(index) +
                 "', which is not defined before it");
  }
  /// The value named `name`; a constant known at import time is
  /// materialized on first use. Null if `name` is not defined.
  Value lookup(llvm::StringRef name) {
    auto found = values.find(name);
    if (found != values.end())
      return found->second;
    auto constant = constants.find(name);
    if (constant == constants.end())
      return nullptr;
    return values[name] = materialize(constant->second);
  }
  Value materialize(const ConstantData &data) {
    auto type = RankedTensorType::get(data.shape, elementType(data.kind));
    DenseElementsAttr attr;
    if (data.kind == ElementKind::Float)
      attr = DenseElementsAttr::get(type, llvm::ArrayRef(data.floats));
    else if (data.kind == ElementKind::Int)
      attr = DenseElementsAttr::get(type, llvm::ArrayRef(data.ints));
    else
      attr = DenseElementsAttr::get(
          type, llvm::ArrayRef(llvm::to_vector(llvm::map_range(
                    data.ints, [](int64_t v) -> int8_t { return v != 0; }))));
    return b.create<arith::ConstantOp>(loc, type, attr);
  }
  Type elementType(ElementKind kind) {
    switch (kind) {
    case ElementKind::Float:
      return b.getF32Type();
    case ElementKind::Int:
      return b.getI64Type();
    case ElementKind::Bool:
      // Bytes, not i1: i1 tensors in memory would be read as packed bits by
      // vector loads. Bodies compare (i1) and widen with boolToByte.
      return b.getI8Type();
    }
    llvm_unreachable("unknown element kind");
  }
  static bool isBool(Value value) { return elementTypeOf(value).isInteger(8); }
  static Value boolToByte(OpBuilder &b, Location loc, Value flag) {
    return b.create<arith::ExtUIOp>(loc, b.getI8Type(), flag);
  }
  static Value byteToBool(OpBuilder &b, Location loc, Value byte) {
    Value zero = b.create<arith::ConstantOp>(loc, b.getI8IntegerAttr(0));
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, byte, zero);
  }
  static Type elementTypeOf(Value value) {
    return cast<RankedTensorType>(value.getType()).getElementType();
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
  /// An uninitialized tensor, f32 unless `elementType` is given.
  Value empty(llvm::ArrayRef<int64_t> shape, Type elementType = nullptr) {
    return b.create<tensor::EmptyOp>(
        loc, shape, elementType ? elementType : b.getF32Type());
  }

  /// A linalg.generic reading `inputs` with numpy broadcasting, over their
  /// broadcast shape (and `shape` too, if given). The result has the element
  /// type of the first input unless `resultType` is given.
  llvm::Expected<Value>
  elementwise(const onnx::NodeProto &node, llvm::ArrayRef<Value> inputs,
              std::function<Value(OpBuilder &, Location, ValueRange)> body,
              Type resultType = nullptr, llvm::ArrayRef<int64_t> shape = {});

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
  /// The model's version of the default ONNX operator set.
  int64_t opset = 21;
};

llvm::Expected<Value> Importer::elementwise(
    const onnx::NodeProto &node, llvm::ArrayRef<Value> inputs,
    std::function<Value(OpBuilder &, Location, ValueRange)> body,
    Type resultType, llvm::ArrayRef<int64_t> minShape) {
  SmallVector<llvm::ArrayRef<int64_t>> shapes = {minShape};
  for (Value value : inputs)
    shapes.push_back(shapeOf(value));
  std::optional<std::vector<int64_t>> broadcast = broadcastShapes(shapes);
  if (!broadcast) {
    std::string list;
    for (llvm::ArrayRef<int64_t> shape : llvm::drop_begin(shapes))
      list += " " + formatShape(shape);
    return error(describe(node) + ": shapes" + list + " do not broadcast" +
                 (minShape.empty() ? "" : " to " + formatShape(minShape)));
  }
  const std::vector<int64_t> &shape = *broadcast;
  size_t rank = shape.size();
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
  Type element = resultType ? resultType : elementTypeOf(inputs[0]);
  return generic(inputs, empty(shape, element), maps, iterators, body);
}

Value Importer::reshape(Value value, llvm::ArrayRef<int64_t> shape) {
  llvm::ArrayRef<int64_t> from = shapeOf(value);
  if (from == shape)
    return value;
  auto typed = [&](llvm::ArrayRef<int64_t> dims) {
    return RankedTensorType::get(dims, elementTypeOf(value));
  };
  int64_t count = std::accumulate(from.begin(), from.end(), int64_t(1),
                                  std::multiplies<int64_t>());
  Value flat = value;
  if (from.size() != 1) {
    SmallVector<ReassociationIndices> all(1);
    for (size_t i = 0; i < from.size(); ++i)
      all[0].push_back(i);
    flat =
        from.empty()
            ? b.create<tensor::ExpandShapeOp>(
                   loc, typed({1}), value, SmallVector<ReassociationIndices>{})
                  .getResult()
            : b.create<tensor::CollapseShapeOp>(loc, typed({count}), value, all)
                  .getResult();
  }
  if (shape.size() == 1)
    return flat;
  SmallVector<ReassociationIndices> all(shape.empty() ? 0 : 1);
  for (size_t i = 0; i < shape.size(); ++i)
    all[0].push_back(i);
  if (shape.empty())
    return b.create<tensor::CollapseShapeOp>(loc, typed({}), flat, all);
  return b.create<tensor::ExpandShapeOp>(loc, typed(shape), flat, all);
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

/// Binary ops, and variadic ones (Max, Min, Sum) folded left to right: the
/// float op, or the integer one on integers (none: an error).
template <typename FloatOp, typename IntOp = void> Converter binary() {
  return [](Importer &im, const onnx::NodeProto &node) -> llvm::Error {
    std::vector<Value> inputs;
    for (int i = 0; i < node.input_size(); ++i) {
      auto value = im.input(node, i);
      if (!value)
        return value.takeError();
      inputs.push_back(*value);
    }
    bool onFloats = isa<FloatType>(Importer::elementTypeOf(inputs[0]));
    if constexpr (std::is_void_v<IntOp>) {
      if (!onFloats)
        return error(Importer::describe(node) +
                     ": integer operands are not supported");
    }
    auto result = im.elementwise(
        node, inputs, [&](OpBuilder &b, Location loc, ValueRange args) {
          Value acc = args[0];
          for (Value next : args.drop_front().drop_back()) {
            if constexpr (!std::is_void_v<IntOp>) {
              if (!onFloats) {
                acc = b.create<IntOp>(loc, acc, next);
                continue;
              }
            }
            acc = b.create<FloatOp>(loc, acc, next);
          }
          return acc;
        });
    return im.define(node, std::move(result));
  };
}

/// Pow: float bases; float or integer exponents.
llvm::Error convertPow(Importer &im, const onnx::NodeProto &node) {
  auto base = im.input(node, 0);
  if (!base)
    return base.takeError();
  auto exponent = im.input(node, 1);
  if (!exponent)
    return exponent.takeError();
  if (!Importer::elementTypeOf(*base).isF32())
    return error(Importer::describe(node) +
                 ": integer bases are not supported");
  auto result = im.elementwise(
      node, {*base, *exponent},
      [](OpBuilder &b, Location loc, ValueRange args) {
        Value power = args[1];
        if (!isa<FloatType>(power.getType()))
          power = b.create<arith::SIToFPOp>(loc, b.getF32Type(), power);
        return b.create<math::PowFOp>(loc, args[0], power).getResult();
      });
  return im.define(node, std::move(result));
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
        bound && bound->isFloat() && bound->floats.size() == 1) {
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

/// Geometry of a 1-D or 2-D window op (Conv, pools), always as 2-D: a 1-D op
/// is computed as a 2-D one over a height of 1.
struct WindowGeometry {
  bool oneDimensional = false;
  std::array<int64_t, 2> kernel, strides, dilations;
  /// Explicit padding: top, left, bottom, right.
  std::array<int64_t, 4> pads;
  /// Extra padding at the bottom and right so that ceil_mode's last window
  /// fits (not counted by count_include_pad).
  std::array<int64_t, 2> ceilPads = {0, 0};
  int64_t outH, outW;
};

llvm::Expected<WindowGeometry> windowGeometry(const onnx::NodeProto &node,
                                              llvm::ArrayRef<int64_t> xShape,
                                              std::vector<int64_t> kernel,
                                              bool ceilMode = false) {
  if (xShape.size() != 3 && xShape.size() != 4)
    return error(Importer::describe(node) +
                 ": only 1-D and 2-D windows (NCW or NCHW inputs) are "
                 "supported, got " +
                 formatShape(xShape));
  size_t spatial = xShape.size() - 2;
  std::vector<int64_t> ones(spatial, 1);
  std::vector<int64_t> strides = Importer::getInts(node, "strides", ones);
  std::vector<int64_t> dilations = Importer::getInts(node, "dilations", ones);
  if (kernel.size() != spatial || strides.size() != spatial ||
      dilations.size() != spatial)
    return error(Importer::describe(node) +
                 ": kernel, strides and dilations must have " +
                 std::to_string(spatial) + " entries");
  std::vector<int64_t> inputHW(xShape.begin() + 2, xShape.end());
  std::vector<int64_t> pads(2 * spatial, 0);
  std::string autoPad = Importer::getString(node, "auto_pad", "NOTSET");
  if (autoPad == "NOTSET") {
    pads = Importer::getInts(node, "pads", pads);
    if (pads.size() != 2 * spatial)
      return error(Importer::describe(node) + ": expects " +
                   std::to_string(2 * spatial) + " pads, got " +
                   std::to_string(pads.size()));
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (size_t i = 0; i < spatial; ++i) {
      int64_t out = (inputHW[i] + strides[i] - 1) / strides[i];
      int64_t total = std::max<int64_t>(0, (out - 1) * strides[i] +
                                               (kernel[i] - 1) * dilations[i] +
                                               1 - inputHW[i]);
      int64_t small = total / 2;
      pads[i] = autoPad == "SAME_UPPER" ? small : total - small;
      pads[i + spatial] = total - pads[i];
    }
  } else if (autoPad != "VALID") {
    return error(Importer::describe(node) + ": auto_pad '" + autoPad +
                 "' is not supported");
  }
  if (spatial == 1) { // Height 1: a 2-D window of 1 x kernel.
    kernel.insert(kernel.begin(), 1);
    strides.insert(strides.begin(), 1);
    dilations.insert(dilations.begin(), 1);
    inputHW.insert(inputHW.begin(), 1);
    pads = {0, pads[0], 0, pads[1]};
  }
  WindowGeometry g;
  g.oneDimensional = spatial == 1;
  std::copy(kernel.begin(), kernel.end(), g.kernel.begin());
  std::copy(strides.begin(), strides.end(), g.strides.begin());
  std::copy(dilations.begin(), dilations.end(), g.dilations.begin());
  std::copy(pads.begin(), pads.end(), g.pads.begin());
  std::array<int64_t, 2> out;
  for (int i = 0; i < 2; ++i) {
    int64_t extent = inputHW[i] + g.pads[i] + g.pads[i + 2];
    int64_t window = (g.kernel[i] - 1) * g.dilations[i] + 1;
    if (extent < window)
      return error(Importer::describe(node) + ": the window is larger than "
                                              "the padded input");
    out[i] = (extent - window) / g.strides[i] + 1;
    if (ceilMode && (extent - window) % g.strides[i] != 0) {
      // One more window, if it starts inside the input or the top/left
      // padding (as ONNX and PyTorch define ceil_mode).
      if (out[i] * g.strides[i] < inputHW[i] + g.pads[i]) {
        g.ceilPads[i] = out[i] * g.strides[i] + window - extent;
        ++out[i];
      }
    }
  }
  g.outH = out[0];
  g.outW = out[1];
  return g;
}

/// Pads the spatial dimensions (1 and 2) of an NHWC tensor.
Value padSpatialNhwc(Importer &im, Value x, const WindowGeometry &g,
                     float value) {
  std::array<int64_t, 2> high = {g.pads[2] + g.ceilPads[0],
                                 g.pads[3] + g.ceilPads[1]};
  if (g.pads[0] == 0 && g.pads[1] == 0 && high[0] == 0 && high[1] == 0)
    return x;
  llvm::ArrayRef<int64_t> shape = Importer::shapeOf(x);
  SmallVector<int64_t> padded(shape.begin(), shape.end());
  padded[1] += g.pads[0] + high[0];
  padded[2] += g.pads[1] + high[1];
  auto index = [&](int64_t v) -> OpFoldResult { return im.b.getIndexAttr(v); };
  SmallVector<OpFoldResult> lowPads = {index(0), index(g.pads[0]),
                                       index(g.pads[1]), index(0)};
  SmallVector<OpFoldResult> highPads = {index(0), index(high[0]),
                                        index(high[1]), index(0)};
  return im.b.create<tensor::PadOp>(im.loc, im.f32Tensor(padded), x, lowPads,
                                    highPads, im.f32Constant(value));
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
  return im.b
      .create<linalg::TransposeOp>(
          im.loc, x, im.empty(shape, Importer::elementTypeOf(x)), perm)
      .getResult()[0];
}

/// A constant permuted by `perm` at import time.
ConstantData permuteConstant(const ConstantData &from,
                             llvm::ArrayRef<int64_t> perm) {
  std::vector<int64_t> shape;
  for (int64_t d : perm)
    shape.push_back(from.shape[d]);
  ConstantData to = ConstantData::zeros(from.kind, shape);
  llvm::SmallVector<int64_t> strides = rowMajorStrides(from.shape);
  int64_t out = 0;
  forEachIndex(shape, [&](llvm::ArrayRef<int64_t> index) {
    int64_t offset = 0;
    for (size_t d = 0; d < perm.size(); ++d)
      offset += index[d] * strides[perm[d]];
    to.copyElement(out++, from, offset);
  });
  return to;
}

/// Convolution weights [F, C/group, (KH,) KW] as a 4-D [F, C/group, KH, KW]
/// tensor: a constant when they are one, else a value.
struct ConvWeights {
  std::optional<ConstantData> constant;
  Value value;
  std::array<int64_t, 4> shape;

  /// Output channels [begin, begin + count), permuted by `perm`.
  Value slice(Importer &im, int64_t begin, int64_t count,
              llvm::ArrayRef<int64_t> perm) const {
    if (constant) {
      int64_t perFilter = constant->size() / shape[0];
      ConstantData part;
      part.shape = {count, shape[1], shape[2], shape[3]};
      part.floats.assign(constant->floats.begin() + begin * perFilter,
                         constant->floats.begin() +
                             (begin + count) * perFilter);
      return im.materialize(permuteConstant(part, perm));
    }
    Value part = value;
    if (count != shape[0]) {
      auto index = [&](int64_t v) -> OpFoldResult {
        return im.b.getIndexAttr(v);
      };
      part = im.b.create<tensor::ExtractSliceOp>(
          im.loc, im.f32Tensor({count, shape[1], shape[2], shape[3]}), value,
          SmallVector<OpFoldResult>{index(begin), index(0), index(0), index(0)},
          SmallVector<OpFoldResult>{index(count), index(shape[1]),
                                    index(shape[2]), index(shape[3])},
          SmallVector<OpFoldResult>(4, index(1)));
    }
    return transposeTensor(im, part, perm);
  }
};

llvm::Expected<ConvWeights> convWeights(Importer &im,
                                        const onnx::NodeProto &node) {
  ConvWeights weights;
  if (const ConstantData *constant = im.constant(node, 1)) {
    if (!constant->isFloat())
      return error(Importer::describe(node) + ": weights must be float");
    weights.constant = *constant;
    if (constant->shape.size() == 3)
      weights.constant->shape.insert(weights.constant->shape.begin() + 2, 1);
    if (weights.constant->shape.size() != 4)
      return error(Importer::describe(node) +
                   ": only 1-D and 2-D convolutions are supported");
    std::copy(weights.constant->shape.begin(), weights.constant->shape.end(),
              weights.shape.begin());
    return weights;
  }
  auto w = im.input(node, 1);
  if (!w)
    return w.takeError();
  llvm::ArrayRef<int64_t> ws = Importer::shapeOf(*w);
  if (ws.size() != 3 && ws.size() != 4)
    return error(Importer::describe(node) +
                 ": only 1-D and 2-D convolutions are supported");
  weights.shape = {ws[0], ws[1], ws.size() == 4 ? ws[2] : 1, ws.back()};
  weights.value = im.reshape(*w, weights.shape);
  return weights;
}

/// The NCHW (or NCW) input of a window op as an NHWC tensor, padded.
Value nhwcInput(Importer &im, Value x, const WindowGeometry &g,
                float padValue) {
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  if (g.oneDimensional)
    x = im.reshape(x, {xs[0], xs[1], 1, xs[2]});
  return padSpatialNhwc(im, transposeTensor(im, x, {0, 2, 3, 1}), g, padValue);
}

/// An NHWC result back in the op's NCHW (or NCW) layout.
Value fromNhwc(Importer &im, Value y, const WindowGeometry &g) {
  Value nchw = transposeTensor(im, y, {0, 3, 1, 2});
  if (!g.oneDimensional)
    return nchw;
  llvm::ArrayRef<int64_t> ys = Importer::shapeOf(nchw);
  return im.reshape(nchw, {ys[0], ys[1], ys[3]});
}

/// ONNX convolutions are NCHW. tcl computes them channels-last (NHWC input,
/// HWCF/HWC weights), the layout its convolution schedules vectorize well:
/// the input is transposed in, the weights are permuted at import, and the
/// result (with its bias) is transposed back. tcl-propagate-layout then
/// removes the transposes between consecutive convolutions.
llvm::Error convertConv(Importer &im, const onnx::NodeProto &node) {
  auto x = im.input(node, 0);
  if (!x)
    return x.takeError();
  auto weights = convWeights(im, node);
  if (!weights)
    return weights.takeError();
  const std::array<int64_t, 4> &ws = weights->shape;
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(*x);
  std::vector<int64_t> kernel(ws.begin() + 2, ws.end());
  if (xs.size() == 3)
    kernel.erase(kernel.begin());
  auto g =
      windowGeometry(node, xs, Importer::getInts(node, "kernel_shape", kernel));
  if (!g)
    return g.takeError();
  int64_t group = Importer::getInt(node, "group", 1);
  int64_t n = xs[0], c = xs[1], f = ws[0];
  if (group < 1 || c % group != 0 || f % group != 0 || ws[1] != c / group)
    return error(Importer::describe(node) + ": weights " + formatShape(ws) +
                 " do not match " + std::to_string(c) + " input channels in " +
                 std::to_string(group) + " group(s)");
  Value input = nhwcInput(im, *x, *g, 0.0f);
  SmallVector<NamedAttribute> attrs = {
      stridesAttr(im, g->strides, "strides"),
      stridesAttr(im, g->dilations, "dilations")};
  auto conv = [&](Value in, Value filter, int64_t channels, bool depthwise) {
    Value init = im.filled({n, g->outH, g->outW, channels}, 0.0f);
    if (depthwise)
      return im.b
          .create<linalg::DepthwiseConv2DNhwcHwcOp>(
              im.loc, TypeRange{init.getType()}, ValueRange{in, filter},
              ValueRange{init}, attrs)
          .getResult(0);
    return im.b
        .create<linalg::Conv2DNhwcHwcfOp>(im.loc, TypeRange{init.getType()},
                                          ValueRange{in, filter},
                                          ValueRange{init}, attrs)
        .getResult(0);
  };
  Value result;
  if (group == 1) {
    // [F, C, KH, KW] -> [KH, KW, C, F]
    result = conv(input, weights->slice(im, 0, f, {2, 3, 1, 0}), f, false);
  } else if (group == c && f == c) {
    // Depthwise: [C, 1, KH, KW] -> [KH, KW, 1, C] -> [KH, KW, C]
    Value filter =
        im.reshape(weights->slice(im, 0, f, {2, 3, 1, 0}), {ws[2], ws[3], c});
    result = conv(input, filter, f, true);
  } else {
    // Grouped: one convolution per group on its slice of the channels.
    int64_t groupIn = c / group, groupOut = f / group;
    llvm::ArrayRef<int64_t> is = Importer::shapeOf(input);
    result = im.empty({n, g->outH, g->outW, f});
    auto index = [&](int64_t v) -> OpFoldResult {
      return im.b.getIndexAttr(v);
    };
    SmallVector<OpFoldResult> ones(4, index(1));
    for (int64_t i = 0; i < group; ++i) {
      Value slice = im.b.create<tensor::ExtractSliceOp>(
          im.loc, im.f32Tensor({is[0], is[1], is[2], groupIn}), input,
          SmallVector<OpFoldResult>{index(0), index(0), index(0),
                                    index(i * groupIn)},
          SmallVector<OpFoldResult>{index(is[0]), index(is[1]), index(is[2]),
                                    index(groupIn)},
          ones);
      Value part =
          conv(slice, weights->slice(im, i * groupOut, groupOut, {2, 3, 1, 0}),
               groupOut, false);
      result = im.b.create<tensor::InsertSliceOp>(
          im.loc, part, result,
          SmallVector<OpFoldResult>{index(0), index(0), index(0),
                                    index(i * groupOut)},
          SmallVector<OpFoldResult>{index(n), index(g->outH), index(g->outW),
                                    index(groupOut)},
          ones);
    }
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
  im.define(node, fromNhwc(im, result, *g));
  return llvm::Error::success();
}

/// MaxPool and AveragePool, computed channels-last like convolutions.
llvm::Error convertPool(Importer &im, const onnx::NodeProto &node, bool max) {
  auto x = im.input(node, 0);
  if (!x)
    return x.takeError();
  if (node.output_size() > 1 && !node.output(1).empty())
    return error(Importer::describe(node) + ": the Indices output is not "
                                            "supported");
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(*x);
  auto g = windowGeometry(node, xs, Importer::getInts(node, "kernel_shape"),
                          Importer::getInt(node, "ceil_mode", 0) != 0);
  if (!g)
    return g.takeError();
  float padValue = max ? -std::numeric_limits<float>::infinity() : 0.0f;
  Value input = nhwcInput(im, *x, *g, padValue);
  SmallVector<NamedAttribute> attrs = {
      stridesAttr(im, g->strides, "strides"),
      stridesAttr(im, g->dilations, "dilations")};
  Value window = im.empty({g->kernel[0], g->kernel[1]});
  Value init = im.filled({xs[0], g->outH, g->outW, xs[1]}, padValue);
  Value result;
  if (max) {
    result = im.b.create<linalg::PoolingNhwcMaxOp>(
                     im.loc, TypeRange{init.getType()},
                     ValueRange{input, window}, ValueRange{init}, attrs)
                 .getResult(0);
    im.define(node, fromNhwc(im, result, *g));
    return llvm::Error::success();
  }
  result = im.b.create<linalg::PoolingNhwcSumOp>(
                   im.loc, TypeRange{init.getType()}, ValueRange{input, window},
                   ValueRange{init}, attrs)
               .getResult(0);
  // Divisors: the window positions inside the input, plus those in the
  // explicit padding with count_include_pad=1 (never those ceil_mode adds),
  // computed here, at import.
  bool includePad = Importer::getInt(node, "count_include_pad", 0) != 0;
  std::array<int64_t, 2> inputHW = {g->oneDimensional ? 1 : xs[2], xs.back()};
  std::vector<float> divisors(g->outH * g->outW);
  for (int64_t oy = 0; oy < g->outH; ++oy)
    for (int64_t ox = 0; ox < g->outW; ++ox) {
      int64_t count = 0;
      for (int64_t ky = 0; ky < g->kernel[0]; ++ky)
        for (int64_t kx = 0; kx < g->kernel[1]; ++kx) {
          std::array<int64_t, 2> at = {
              oy * g->strides[0] + ky * g->dilations[0] - g->pads[0],
              ox * g->strides[1] + kx * g->dilations[1] - g->pads[1]};
          bool counted = true;
          for (int i = 0; i < 2; ++i) {
            int64_t lo = includePad ? -g->pads[i] : 0;
            int64_t hi = inputHW[i] + (includePad ? g->pads[i + 2] : 0);
            counted &= at[i] >= lo && at[i] < hi;
          }
          count += counted;
        }
      divisors[oy * g->outW + ox] = static_cast<float>(count);
    }
  Value divisor = im.denseConstant({g->outH, g->outW, 1}, divisors);
  auto divided = im.elementwise(
      node, {result, divisor}, [](OpBuilder &b, Location loc, ValueRange args) {
        return b.create<arith::DivFOp>(loc, args[0], args[1]).getResult();
      });
  if (!divided)
    return divided.takeError();
  im.define(node, fromNhwc(im, *divided, *g));
  return llvm::Error::success();
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
  if (scale && bias && mean && var) {
    // The usual case (initializers): y = x * a + b, a and b computed here,
    // as two ops so that tcl-fold-batch-norm can move the scale into a
    // convolution before.
    std::vector<float> a(c), shift(c);
    for (int64_t i = 0; i < c; ++i) {
      a[i] = scale->floats[i] / std::sqrt(var->floats[i] + epsilon);
      shift[i] = bias->floats[i] - mean->floats[i] * a[i];
    }
    auto arithmetic = [&](Value value, llvm::ArrayRef<float> parameter,
                          bool multiply) {
      return im.elementwise(
          node, {value, im.denseConstant(paramShape, parameter)},
          [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
            if (multiply)
              return b.create<arith::MulFOp>(loc, args[0], args[1]);
            return b.create<arith::AddFOp>(loc, args[0], args[1]);
          });
    };
    auto scaled = arithmetic(*x, a, /*multiply=*/true);
    if (!scaled)
      return scaled.takeError();
    return im.define(node, arithmetic(*scaled, shift, /*multiply=*/false));
  }
  {
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

/// Transpose's permutation (reversed dimensions by default).
llvm::Expected<std::vector<int64_t>>
transposePermutation(const onnx::NodeProto &node, size_t rank) {
  std::vector<int64_t> perm = Importer::getInts(node, "perm");
  if (perm.empty())
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  std::vector<int64_t> sorted = perm;
  llvm::sort(sorted);
  for (size_t d = 0; d < sorted.size(); ++d)
    if (sorted[d] != static_cast<int64_t>(d) || perm.size() != rank)
      return error(Importer::describe(node) +
                   ": perm is not a permutation of the " +
                   std::to_string(rank) + " dimensions");
  return perm;
}

/// Softmax and LogSoftmax: over `axis` (opset >= 13), or over all dimensions
/// from `axis` on (older opsets, which flatten the input to 2-D there).
llvm::Error convertSoftmax(Importer &im, const onnx::NodeProto &node,
                           bool logarithm) {
  auto x = im.input(node, 0);
  if (!x)
    return x.takeError();
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(*x);
  int64_t rank = xs.size();
  bool flattening = im.opset < 13;
  int64_t axis = Importer::getInt(node, "axis", flattening ? 1 : -1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return error(Importer::describe(node) + ": axis out of range");
  auto reduced = [&](int64_t d) { return flattening ? d >= axis : d == axis; };
  MLIRContext *ctx = im.b.getContext();
  SmallVector<AffineExpr> rowExprs;
  SmallVector<int64_t> rows;
  SmallVector<utils::IteratorType> reduce,
      parallel(rank, utils::IteratorType::parallel);
  for (int64_t d = 0; d < rank; ++d) {
    reduce.push_back(reduced(d) ? utils::IteratorType::reduction
                                : utils::IteratorType::parallel);
    if (!reduced(d)) {
      rowExprs.push_back(im.b.getAffineDimExpr(d));
      rows.push_back(xs[d]);
    }
  }
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap row = AffineMap::get(rank, 0, rowExprs, ctx);
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
  Value result = im.generic(
      {*x, max, sum}, im.empty(xs), {identity, row, row, identity}, parallel,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value shifted = b.create<arith::SubFOp>(loc, args[0], args[1]);
        if (logarithm)
          return b
              .create<arith::SubFOp>(loc, shifted,
                                     b.create<math::LogOp>(loc, args[2]))
              .getResult();
        return b
            .create<arith::DivFOp>(loc, b.create<math::ExpOp>(loc, shifted),
                                   args[2])
            .getResult();
      });
  im.define(node, result);
  return llvm::Error::success();
}

/// LayerNormalization (opset 17) over the dimensions from `axis` on, with
/// its optional Mean and InvStdDev outputs.
llvm::Error convertLayerNorm(Importer &im, const onnx::NodeProto &node) {
  auto x = im.input(node, 0);
  if (!x)
    return x.takeError();
  auto scale = im.input(node, 1);
  if (!scale)
    return scale.takeError();
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(*x);
  int64_t rank = xs.size();
  int64_t axis = Importer::getInt(node, "axis", -1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return error(Importer::describe(node) + ": axis out of range");
  float epsilon = Importer::getFloat(node, "epsilon", 1e-5f);
  SmallVector<int64_t> axes;
  float count = 1;
  for (int64_t d = axis; d < rank; ++d) {
    axes.push_back(d);
    count *= xs[d];
  }
  Value divisor = im.f32Constant(count);
  auto mean = [&](Value sum) {
    return im.elementwise(
        node, {sum}, [&](OpBuilder &b, Location loc, ValueRange args) {
          return b.create<arith::DivFOp>(loc, args[0], divisor).getResult();
        });
  };
  auto average = mean(reduceSum(im, *x, axes, /*keep=*/true));
  if (!average)
    return average.takeError();
  auto centered = im.elementwise(
      node, {*x, *average}, [](OpBuilder &b, Location loc, ValueRange args) {
        return b.create<arith::SubFOp>(loc, args[0], args[1]).getResult();
      });
  if (!centered)
    return centered.takeError();
  auto squares = im.elementwise(
      node, {*centered}, [](OpBuilder &b, Location loc, ValueRange args) {
        return b.create<arith::MulFOp>(loc, args[0], args[0]).getResult();
      });
  if (!squares)
    return squares.takeError();
  auto variance = mean(reduceSum(im, *squares, axes, /*keep=*/true));
  if (!variance)
    return variance.takeError();
  Value eps = im.f32Constant(epsilon);
  auto inverse = im.elementwise(
      node, {*variance}, [&](OpBuilder &b, Location loc, ValueRange args) {
        return b
            .create<math::RsqrtOp>(loc,
                                   b.create<arith::AddFOp>(loc, args[0], eps))
            .getResult();
      });
  if (!inverse)
    return inverse.takeError();
  std::vector<Value> inputs = {*centered, *inverse, *scale};
  if (im.hasInput(node, 2)) {
    auto bias = im.input(node, 2);
    if (!bias)
      return bias.takeError();
    inputs.push_back(*bias);
  }
  auto y = im.elementwise(
      node, inputs, [](OpBuilder &b, Location loc, ValueRange args) {
        Value v = b.create<arith::MulFOp>(
            loc, b.create<arith::MulFOp>(loc, args[0], args[1]), args[2]);
        if (args.size() > 4)
          v = b.create<arith::AddFOp>(loc, v, args[3]);
        return v;
      });
  if (!y)
    return y.takeError();
  im.define(node, *y);
  if (node.output_size() > 1 && !node.output(1).empty())
    im.define(node, *average, 1);
  if (node.output_size() > 2 && !node.output(2).empty())
    im.define(node, *inverse, 2);
  return llvm::Error::success();
}

llvm::Error convertTranspose(Importer &im, const onnx::NodeProto &node) {
  auto x = im.input(node, 0);
  if (!x)
    return x.takeError();
  auto perm = transposePermutation(node, Importer::shapeOf(*x).size());
  if (!perm)
    return perm.takeError();
  im.define(node, transposeTensor(im, *x, *perm));
  return llvm::Error::success();
}

/// The output shape of the ops that only change the shape: Flatten,
/// Reshape, Squeeze, Unsqueeze.
llvm::Expected<std::vector<int64_t>> reshapeTarget(Importer &im,
                                                   const onnx::NodeProto &node,
                                                   llvm::ArrayRef<int64_t> xs) {
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
  if (im.hasInput(node, 1) && !im.constant(node, 1))
    return error(Importer::describe(node) +
                 ": its shape or axes input must be known at compile time "
                 "(a constant, or computed from shapes)");
  if (type == "Flatten") {
    int64_t axis = Importer::getInt(node, "axis", 1);
    if (axis < 0)
      axis += rank;
    int64_t outer = std::accumulate(xs.begin(), xs.begin() + axis, int64_t(1),
                                    std::multiplies<int64_t>());
    shape = {outer, outer ? count / outer : 0};
  } else if (type == "Reshape") {
    const ConstantData *target = im.constant(node, 1);
    if (!target || target->isFloat())
      return error(Importer::describe(node) + ": the target shape must be a "
                                              "constant");
    int64_t known = 1, inferred = -1;
    for (size_t i = 0; i < target->ints.size(); ++i) {
      int64_t dim = target->ints[i];
      if (dim == 0 && !Importer::getInt(node, "allowzero", 0) && i < xs.size())
        dim = xs[i];
      if (dim == -1)
        inferred = i;
      else
        known *= dim;
      shape.push_back(dim);
    }
    if (inferred >= 0 && known != 0)
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
  return shape;
}

llvm::Error convertReshapeLike(Importer &im, const onnx::NodeProto &node) {
  auto x = im.input(node, 0);
  if (!x)
    return x.takeError();
  auto shape = reshapeTarget(im, node, Importer::shapeOf(*x));
  if (!shape)
    return shape.takeError();
  im.define(node, im.reshape(*x, *shape));
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
  if (axis < 0 || axis >= rank)
    return error(Importer::describe(node) + ": axis out of range");
  SmallVector<int64_t> shape(first.begin(), first.end());
  shape[axis] = 0;
  for (Value value : inputs)
    shape[axis] += Importer::shapeOf(value)[axis];
  Value result = im.empty(shape, Importer::elementTypeOf(inputs[0]));
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
  if (!indices || indices->isFloat() || indices->shape.size() > 1)
    return error(Importer::describe(node) + ": only constant scalar or 1-D "
                                            "indices are supported");
  llvm::ArrayRef<int64_t> ds = Importer::shapeOf(*data);
  int64_t rank = ds.size();
  int64_t axis = Importer::getInt(node, "axis", 0);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return error(Importer::describe(node) + ": axis out of range");
  Type element = Importer::elementTypeOf(*data);
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
        im.loc, RankedTensorType::get(sliceShape, element), *data, offsets,
        sizes, strides));
  }
  Value result;
  SmallVector<int64_t> shape(ds.begin(), ds.end());
  if (indices->shape.empty()) {
    shape.erase(shape.begin() + axis); // A scalar index drops the axis.
    result = im.reshape(slices[0], shape);
  } else {
    shape[axis] = slices.size();
    result = im.empty(shape, element);
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

/// Which elements Slice takes from each dimension of its data.
struct SliceSpec {
  std::vector<int64_t> starts, steps, sizes;
};

llvm::Expected<SliceSpec> sliceSpec(Importer &im, const onnx::NodeProto &node,
                                    llvm::ArrayRef<int64_t> ds) {
  int64_t rank = ds.size();
  std::vector<int64_t> starts, ends, axes, steps;
  if (im.opset < 10) {
    starts = Importer::getInts(node, "starts");
    ends = Importer::getInts(node, "ends");
    axes = Importer::getInts(node, "axes");
  } else {
    for (auto [index, list] : {std::pair(1, &starts), std::pair(2, &ends),
                               std::pair(3, &axes), std::pair(4, &steps)}) {
      if (!im.hasInput(node, index))
        continue;
      const ConstantData *given = im.constant(node, index);
      if (!given || given->isFloat())
        return error(Importer::describe(node) +
                     ": starts, ends, axes and steps must be known at "
                     "compile time (constants, or computed from shapes)");
      *list = given->ints;
    }
  }
  if (axes.empty())
    for (size_t k = 0; k < starts.size(); ++k)
      axes.push_back(k);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return error(Importer::describe(node) +
                 ": starts, ends, axes and steps differ in length");
  SliceSpec spec{std::vector<int64_t>(rank, 0), std::vector<int64_t>(rank, 1),
                 std::vector<int64_t>(ds.begin(), ds.end())};
  for (size_t k = 0; k < starts.size(); ++k) {
    int64_t axis = axes[k] < 0 ? axes[k] + rank : axes[k];
    if (axis < 0 || axis >= rank)
      return error(Importer::describe(node) + ": axis out of range");
    int64_t dim = ds[axis], step = steps[k];
    if (step == 0)
      return error(Importer::describe(node) + ": a step is 0");
    int64_t start = starts[k] < 0 ? starts[k] + dim : starts[k];
    int64_t end = ends[k] < 0 ? ends[k] + dim : ends[k];
    int64_t size;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
      size = end > start ? (end - start + step - 1) / step : 0;
    } else {
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
      size = start > end ? (start - end - step - 1) / -step : 0;
    }
    spec.starts[axis] = start;
    spec.steps[axis] = step;
    spec.sizes[axis] = size;
  }
  return spec;
}

llvm::Error convertSlice(Importer &im, const onnx::NodeProto &node) {
  auto data = im.input(node, 0);
  if (!data)
    return data.takeError();
  llvm::ArrayRef<int64_t> ds = Importer::shapeOf(*data);
  auto spec = sliceSpec(im, node, ds);
  if (!spec)
    return spec.takeError();
  if (llvm::is_contained(spec->sizes, 0))
    return error(Importer::describe(node) + ": the slice is empty");
  Type element = Importer::elementTypeOf(*data);
  auto resultType = RankedTensorType::get(spec->sizes, element);
  if (llvm::all_of(spec->steps, [](int64_t step) { return step > 0; })) {
    auto attrs = [&](llvm::ArrayRef<int64_t> values) {
      return llvm::to_vector(llvm::map_range(values, [&](int64_t v) {
        return OpFoldResult(im.b.getIndexAttr(v));
      }));
    };
    Value slice = im.b.create<tensor::ExtractSliceOp>(
        im.loc, resultType, *data, attrs(spec->starts), attrs(spec->sizes),
        attrs(spec->steps));
    im.define(node, slice);
    return llvm::Error::success();
  }
  // Negative steps: a generic that reads data[start + i * step] with
  // tensor.extract (affine maps with negative coefficients do not tile).
  int64_t rank = ds.size();
  MLIRContext *ctx = im.b.getContext();
  Value source = *data;
  Value result = im.generic(
      {}, im.empty(spec->sizes, element),
      {AffineMap::getMultiDimIdentityMap(rank, ctx)},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location loc, ValueRange) {
        SmallVector<Value> indices;
        for (int64_t d = 0; d < rank; ++d) {
          Value i = b.create<linalg::IndexOp>(loc, d);
          Value step = b.create<arith::ConstantIndexOp>(loc, spec->steps[d]);
          Value start = b.create<arith::ConstantIndexOp>(loc, spec->starts[d]);
          indices.push_back(b.create<arith::AddIOp>(
              loc, start, b.create<arith::MulIOp>(loc, i, step)));
        }
        return b.create<tensor::ExtractOp>(loc, source, indices).getResult();
      });
  im.define(node, result);
  return llvm::Error::success();
}

/// The constant 1-D integer input `index` (a shape), or an error.
llvm::Expected<std::vector<int64_t>>
constantInts(Importer &im, const onnx::NodeProto &node, int index) {
  const ConstantData *given = im.constant(node, index);
  if (!given || given->isFloat())
    return error(Importer::describe(node) + ": input " + std::to_string(index) +
                 " must be an integer tensor known at compile time (a "
                 "constant, or computed from shapes)");
  return given->ints;
}

llvm::Error convertExpand(Importer &im, const onnx::NodeProto &node) {
  auto x = im.input(node, 0);
  if (!x)
    return x.takeError();
  auto shape = constantInts(im, node, 1);
  if (!shape)
    return shape.takeError();
  auto result = im.elementwise(
      node, {*x},
      [](OpBuilder &, Location, ValueRange args) { return args[0]; }, nullptr,
      *shape);
  return im.define(node, std::move(result));
}

llvm::Error convertWhere(Importer &im, const onnx::NodeProto &node) {
  std::vector<Value> inputs;
  for (int i = 0; i < 3; ++i) {
    auto value = im.input(node, i);
    if (!value)
      return value.takeError();
    inputs.push_back(*value);
  }
  if (!Importer::isBool(inputs[0]))
    return error(Importer::describe(node) + ": the condition must be bool");
  auto result = im.elementwise(
      node, inputs,
      [](OpBuilder &b, Location loc, ValueRange args) {
        return b
            .create<arith::SelectOp>(loc, Importer::byteToBool(b, loc, args[0]),
                                     args[1], args[2])
            .getResult();
      },
      Importer::elementTypeOf(inputs[1]));
  return im.define(node, std::move(result));
}

/// Equal, Less, Greater, LessOrEqual, GreaterOrEqual: bool results.
Converter comparison(arith::CmpFPredicate floatPredicate,
                     arith::CmpIPredicate intPredicate) {
  return [=](Importer &im, const onnx::NodeProto &node) -> llvm::Error {
    auto lhs = im.input(node, 0);
    if (!lhs)
      return lhs.takeError();
    auto rhs = im.input(node, 1);
    if (!rhs)
      return rhs.takeError();
    auto result = im.elementwise(
        node, {*lhs, *rhs},
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          Value flag =
              isa<FloatType>(args[0].getType())
                  ? b.create<arith::CmpFOp>(loc, floatPredicate, args[0],
                                            args[1])
                        .getResult()
                  : b.create<arith::CmpIOp>(loc, intPredicate, args[0], args[1])
                        .getResult();
          return Importer::boolToByte(b, loc, flag);
        },
        im.elementType(ElementKind::Bool));
    return im.define(node, std::move(result));
  };
}

/// The element kind ONNX element type `type` is carried as.
std::optional<ElementKind> kindOfOnnxType(int64_t type) {
  switch (type) {
  case onnx::TensorProto::FLOAT:
  case onnx::TensorProto::DOUBLE:
    return ElementKind::Float;
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::INT16:
  case onnx::TensorProto::INT8:
  case onnx::TensorProto::UINT8:
  case onnx::TensorProto::UINT16:
  case onnx::TensorProto::UINT32:
    return ElementKind::Int;
  case onnx::TensorProto::BOOL:
    return ElementKind::Bool;
  default:
    return std::nullopt;
  }
}

llvm::Expected<ElementKind> castTarget(const onnx::NodeProto &node) {
  int64_t to = Importer::getInt(node, "to", onnx::TensorProto::FLOAT);
  if (std::optional<ElementKind> kind = kindOfOnnxType(to))
    return *kind;
  return error(Importer::describe(node) + ": casting to ONNX element type " +
               std::to_string(to) + " is not supported");
}

llvm::Error convertCast(Importer &im, const onnx::NodeProto &node) {
  auto x = im.input(node, 0);
  if (!x)
    return x.takeError();
  auto kind = castTarget(node);
  if (!kind)
    return kind.takeError();
  Type to = im.elementType(*kind), from = Importer::elementTypeOf(*x);
  if (to == from) {
    im.define(node, *x);
    return llvm::Error::success();
  }
  auto result = im.elementwise(
      node, {*x},
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        Value v = args[0];
        bool fromBool = from.isInteger(8), toBool = to.isInteger(8);
        if (toBool) {
          Value flag =
              from.isF32()
                  ? b.create<arith::CmpFOp>(
                         loc, arith::CmpFPredicate::UNE, v,
                         b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(0)))
                        .getResult()
                  : b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, v,
                                            b.create<arith::ConstantOp>(
                                                loc, b.getIntegerAttr(from, 0)))
                        .getResult();
          return Importer::boolToByte(b, loc, flag);
        }
        if (from.isF32())
          return b.create<arith::FPToSIOp>(loc, to, v);
        if (to.isF32())
          return fromBool ? b.create<arith::UIToFPOp>(loc, to, v).getResult()
                          : b.create<arith::SIToFPOp>(loc, to, v).getResult();
        return b.create<arith::ExtUIOp>(loc, to, v); // bool -> int
      },
      to);
  return im.define(node, std::move(result));
}

/// Shape: always known at compile time, since tcl's shapes are static.
llvm::Error convertShape(Importer &im, const onnx::NodeProto &node) {
  std::vector<int64_t> shape;
  if (const ConstantData *given = im.constant(node, 0)) {
    shape = given->shape;
  } else {
    auto x = im.input(node, 0);
    if (!x)
      return x.takeError();
    shape = Importer::shapeOf(*x);
  }
  int64_t rank = shape.size();
  auto bound = [&](int64_t value) {
    return std::clamp<int64_t>(value < 0 ? value + rank : value, 0, rank);
  };
  int64_t start = bound(Importer::getInt(node, "start", 0));
  int64_t end = bound(Importer::getInt(node, "end", rank));
  ConstantData result;
  result.kind = ElementKind::Int;
  if (end > start)
    result.ints.assign(shape.begin() + start, shape.begin() + end);
  result.shape = {static_cast<int64_t>(result.ints.size())};
  im.constants[node.output(0)] = std::move(result);
  return llvm::Error::success();
}

llvm::Error convertConstantOfShape(Importer &im, const onnx::NodeProto &node) {
  auto shape = constantInts(im, node, 0);
  if (!shape)
    return shape.takeError();
  ConstantData fill = ConstantData::zeros(ElementKind::Float, {1});
  if (const onnx::AttributeProto *value = Importer::attribute(node, "value")) {
    auto data = readTensor(value->t());
    if (!data)
      return data.takeError();
    if (data->size() != 1)
      return error(Importer::describe(node) + ": value must have one element");
    fill = *data;
  }
  ConstantData result = ConstantData::zeros(fill.kind, *shape);
  for (int64_t i = 0; i < result.size(); ++i)
    result.copyElement(i, fill, 0);
  im.constants[node.output(0)] = std::move(result);
  return llvm::Error::success();
}

llvm::Error convertRange(Importer &im, const onnx::NodeProto &node) {
  const ConstantData *start = im.constant(node, 0),
                     *limit = im.constant(node, 1),
                     *delta = im.constant(node, 2);
  if (!start || !limit || !delta || start->size() != 1 || limit->size() != 1 ||
      delta->size() != 1)
    return error(Importer::describe(node) +
                 ": start, limit and delta must be scalars known at compile "
                 "time");
  double first = start->asDouble(0), step = delta->asDouble(0);
  if (step == 0)
    return error(Importer::describe(node) + ": delta is 0");
  int64_t count = std::max<int64_t>(
      0, static_cast<int64_t>(std::ceil((limit->asDouble(0) - first) / step)));
  ConstantData result = ConstantData::zeros(start->kind, {count});
  for (int64_t i = 0; i < count; ++i) {
    if (result.isFloat())
      result.floats[i] = static_cast<float>(first + i * step);
    else
      result.ints[i] = start->ints[0] + i * delta->ints[0];
  }
  im.constants[node.output(0)] = std::move(result);
  return llvm::Error::success();
}

llvm::Error convertConstant(Importer &im, const onnx::NodeProto &node) {
  ConstantData data;
  if (const onnx::AttributeProto *value = Importer::attribute(node, "value")) {
    auto tensor = readTensor(value->t());
    if (!tensor)
      return tensor.takeError();
    data = std::move(*tensor);
  } else if (const auto *f = Importer::attribute(node, "value_float")) {
    data.floats = {f->f()};
  } else if (const auto *fs = Importer::attribute(node, "value_floats")) {
    data.floats.assign(fs->floats().begin(), fs->floats().end());
    data.shape = {static_cast<int64_t>(data.floats.size())};
  } else if (const auto *i = Importer::attribute(node, "value_int")) {
    data.kind = ElementKind::Int;
    data.ints = {i->i()};
  } else if (const auto *is = Importer::attribute(node, "value_ints")) {
    data.kind = ElementKind::Int;
    data.ints.assign(is->ints().begin(), is->ints().end());
    data.shape = {static_cast<int64_t>(data.ints.size())};
  } else {
    return error(Importer::describe(node) +
                 ": only the value, value_float(s) and value_int(s) forms "
                 "are supported");
  }
  im.constants[node.output(0)] = std::move(data);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Import-time evaluation
//===----------------------------------------------------------------------===//
//
// A node whose inputs are all known at import time is evaluated here instead
// of being converted: shape computations (Shape -> Gather -> Concat ->
// Reshape) must be, since tcl's shapes are static, and folding the rest
// keeps the module small.

using Evaluator = std::function<llvm::Expected<ConstantData>(
    Importer &, const onnx::NodeProto &, llvm::ArrayRef<const ConstantData *>)>;

/// Elementwise evaluation with numpy broadcasting: in doubles when an input
/// is float, else in integers; the result has kind `kind`, or the first
/// input's kind when unset.
Evaluator
evaluateElementwise(std::optional<ElementKind> kind,
                    std::function<double(llvm::ArrayRef<double>)> onFloats,
                    std::function<int64_t(llvm::ArrayRef<int64_t>)> onInts) {
  return [=](Importer &, const onnx::NodeProto &node,
             llvm::ArrayRef<const ConstantData *> inputs)
             -> llvm::Expected<ConstantData> {
    SmallVector<llvm::ArrayRef<int64_t>> shapes;
    bool anyFloat = false;
    for (const ConstantData *input : inputs) {
      shapes.push_back(input->shape);
      anyFloat |= input->isFloat();
    }
    auto shape = broadcastShapes(shapes);
    if (!shape)
      return error(Importer::describe(node) + ": shapes do not broadcast");
    if ((anyFloat && !onFloats) || (!anyFloat && !onInts))
      return error(Importer::describe(node) + ": not defined on " +
                   (anyFloat ? "floats" : "integers"));
    ConstantData result =
        ConstantData::zeros(kind ? *kind : inputs[0]->kind, *shape);
    SmallVector<double> doubles(inputs.size());
    SmallVector<int64_t> ints(inputs.size());
    int64_t out = 0;
    forEachIndex(*shape, [&](llvm::ArrayRef<int64_t> index) {
      for (auto [i, input] : llvm::enumerate(inputs)) {
        int64_t offset = broadcastOffset(input->shape, index);
        if (anyFloat)
          doubles[i] = input->asDouble(offset);
        else
          ints[i] = input->ints[offset];
      }
      if (anyFloat) {
        double value = onFloats(doubles);
        if (result.isFloat())
          result.floats[out] = static_cast<float>(value);
        else
          result.ints[out] = static_cast<int64_t>(value);
      } else {
        int64_t value = onInts(ints);
        if (result.isFloat())
          result.floats[out] = static_cast<float>(value);
        else
          result.ints[out] = value;
      }
      ++out;
    });
    return result;
  };
}

/// Evaluates data movement: output element at `index` is input 0's element
/// at the offset `source` gives (nullopt: the node is not supported).
llvm::Expected<ConstantData>
gatherElements(const ConstantData &input, std::vector<int64_t> shape,
               llvm::function_ref<int64_t(llvm::ArrayRef<int64_t>)> source) {
  ConstantData result = ConstantData::zeros(input.kind, std::move(shape));
  int64_t out = 0;
  forEachIndex(result.shape, [&](llvm::ArrayRef<int64_t> index) {
    result.copyElement(out++, input, source(index));
  });
  return result;
}

const std::map<std::string, Evaluator> &getEvaluators() {
  using Doubles = llvm::ArrayRef<double>;
  using Ints = llvm::ArrayRef<int64_t>;
  auto sameData = [](Importer &im, const onnx::NodeProto &node,
                     llvm::ArrayRef<const ConstantData *> inputs)
      -> llvm::Expected<ConstantData> {
    ConstantData result = *inputs[0];
    if (node.op_type() == "Identity")
      return result;
    auto shape = reshapeTarget(im, node, inputs[0]->shape);
    if (!shape)
      return shape.takeError();
    result.shape = *shape;
    return result;
  };
  auto compare = [](auto predicate) {
    return evaluateElementwise(
        ElementKind::Bool,
        [=](Doubles v) -> double { return predicate(v[0], v[1]); },
        [=](Ints v) -> int64_t { return predicate(v[0], v[1]); });
  };
  static const std::map<std::string, Evaluator> evaluators = {
      {"Identity", sameData},
      {"Reshape", sameData},
      {"Flatten", sameData},
      {"Squeeze", sameData},
      {"Unsqueeze", sameData},
      {"Add", evaluateElementwise(
                  std::nullopt, [](Doubles v) { return v[0] + v[1]; },
                  [](Ints v) { return v[0] + v[1]; })},
      {"Sub", evaluateElementwise(
                  std::nullopt, [](Doubles v) { return v[0] - v[1]; },
                  [](Ints v) { return v[0] - v[1]; })},
      {"Mul", evaluateElementwise(
                  std::nullopt, [](Doubles v) { return v[0] * v[1]; },
                  [](Ints v) { return v[0] * v[1]; })},
      {"Div", evaluateElementwise(
                  std::nullopt, [](Doubles v) { return v[0] / v[1]; },
                  [](Ints v) { return v[1] ? v[0] / v[1] : 0; })},
      {"Neg", evaluateElementwise(
                  std::nullopt, [](Doubles v) { return -v[0]; },
                  [](Ints v) { return -v[0]; })},
      {"Equal", compare([](auto a, auto b) { return a == b; })},
      {"Less", compare([](auto a, auto b) { return a < b; })},
      {"Greater", compare([](auto a, auto b) { return a > b; })},
      {"LessOrEqual", compare([](auto a, auto b) { return a <= b; })},
      {"GreaterOrEqual", compare([](auto a, auto b) { return a >= b; })},
      {"Where",
       [](Importer &im, const onnx::NodeProto &node,
          llvm::ArrayRef<const ConstantData *> inputs)
           -> llvm::Expected<ConstantData> {
         return evaluateElementwise(
             inputs[1]->kind, [](Doubles v) { return v[0] != 0 ? v[1] : v[2]; },
             [](Ints v) { return v[0] != 0 ? v[1] : v[2]; })(im, node, inputs);
       }},
      {"Cast",
       [](Importer &, const onnx::NodeProto &node,
          llvm::ArrayRef<const ConstantData *> inputs)
           -> llvm::Expected<ConstantData> {
         auto kind = castTarget(node);
         if (!kind)
           return kind.takeError();
         const ConstantData &in = *inputs[0];
         ConstantData result = ConstantData::zeros(*kind, in.shape);
         for (int64_t i = 0; i < in.size(); ++i) {
           if (*kind == ElementKind::Float)
             result.floats[i] = static_cast<float>(in.asDouble(i));
           else if (*kind == ElementKind::Bool)
             result.ints[i] = in.asDouble(i) != 0;
           else
             result.ints[i] =
                 in.isFloat() ? static_cast<int64_t>(in.floats[i]) : in.ints[i];
         }
         return result;
       }},
      {"Transpose",
       [](Importer &, const onnx::NodeProto &node,
          llvm::ArrayRef<const ConstantData *> inputs)
           -> llvm::Expected<ConstantData> {
         auto perm = transposePermutation(node, inputs[0]->shape.size());
         if (!perm)
           return perm.takeError();
         return permuteConstant(*inputs[0], *perm);
       }},
      {"Slice",
       [](Importer &im, const onnx::NodeProto &node,
          llvm::ArrayRef<const ConstantData *> inputs)
           -> llvm::Expected<ConstantData> {
         const ConstantData &data = *inputs[0];
         auto spec = sliceSpec(im, node, data.shape);
         if (!spec)
           return spec.takeError();
         llvm::SmallVector<int64_t> strides = rowMajorStrides(data.shape);
         return gatherElements(data, spec->sizes, [&](Ints index) {
           int64_t offset = 0;
           for (size_t d = 0; d < index.size(); ++d)
             offset +=
                 (spec->starts[d] + index[d] * spec->steps[d]) * strides[d];
           return offset;
         });
       }},
      {"Gather",
       [](Importer &, const onnx::NodeProto &node,
          llvm::ArrayRef<const ConstantData *> inputs)
           -> llvm::Expected<ConstantData> {
         const ConstantData &data = *inputs[0], &indices = *inputs[1];
         int64_t rank = data.shape.size();
         int64_t axis = Importer::getInt(node, "axis", 0);
         if (axis < 0)
           axis += rank;
         if (axis < 0 || axis >= rank || indices.isFloat())
           return error(Importer::describe(node) +
                        ": bad axis or non-integer indices");
         for (int64_t index : indices.ints)
           if (index < -data.shape[axis] || index >= data.shape[axis])
             return error(Importer::describe(node) + ": index " +
                          std::to_string(index) + " out of range");
         std::vector<int64_t> shape(data.shape.begin(),
                                    data.shape.begin() + axis);
         shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
         shape.insert(shape.end(), data.shape.begin() + axis + 1,
                      data.shape.end());
         llvm::SmallVector<int64_t> strides = rowMajorStrides(data.shape),
                                    indexStrides =
                                        rowMajorStrides(indices.shape);
         int64_t indexRank = indices.shape.size();
         return gatherElements(data, shape, [&](Ints out) {
           int64_t position = 0;
           for (int64_t d = 0; d < indexRank; ++d)
             position += out[axis + d] * indexStrides[d];
           int64_t index = indices.ints[position];
           if (index < 0)
             index += data.shape[axis];
           int64_t offset = index * strides[axis];
           for (int64_t d = 0; d < axis; ++d)
             offset += out[d] * strides[d];
           for (int64_t d = axis + 1; d < rank; ++d)
             offset += out[d - 1 + indexRank] * strides[d];
           return offset;
         });
       }},
      {"Concat",
       [](Importer &, const onnx::NodeProto &node,
          llvm::ArrayRef<const ConstantData *> inputs)
           -> llvm::Expected<ConstantData> {
         int64_t rank = inputs[0]->shape.size();
         int64_t axis = Importer::getInt(node, "axis", 0);
         if (axis < 0)
           axis += rank;
         if (axis < 0 || axis >= rank)
           return error(Importer::describe(node) + ": axis out of range");
         std::vector<int64_t> shape = inputs[0]->shape;
         shape[axis] = 0;
         for (const ConstantData *input : inputs) {
           if (input->kind != inputs[0]->kind ||
               input->shape.size() != shape.size())
             return error(Importer::describe(node) +
                          ": inputs differ in type or rank");
           shape[axis] += input->shape[axis];
         }
         ConstantData result = ConstantData::zeros(inputs[0]->kind, shape);
         int64_t out = 0;
         forEachIndex(shape, [&](Ints index) {
           SmallVector<int64_t> at(index.begin(), index.end());
           size_t which = 0;
           while (at[axis] >= inputs[which]->shape[axis])
             at[axis] -= inputs[which++]->shape[axis];
           result.copyElement(out++, *inputs[which],
                              broadcastOffset(inputs[which]->shape, at));
         });
         return result;
       }},
      {"Expand",
       [](Importer &, const onnx::NodeProto &node,
          llvm::ArrayRef<const ConstantData *> inputs)
           -> llvm::Expected<ConstantData> {
         const ConstantData &data = *inputs[0];
         auto shape = broadcastShapes({data.shape, inputs[1]->ints});
         if (!shape || inputs[1]->isFloat())
           return error(Importer::describe(node) + ": cannot expand " +
                        formatShape(data.shape));
         return gatherElements(data, *shape, [&](Ints index) {
           return broadcastOffset(data.shape, index);
         });
       }},
  };
  return evaluators;
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
      {"Add", binary<arith::AddFOp, arith::AddIOp>()},
      {"Sub", binary<arith::SubFOp, arith::SubIOp>()},
      {"Mul", binary<arith::MulFOp, arith::MulIOp>()},
      {"Div", binary<arith::DivFOp, arith::DivSIOp>()},
      {"Pow", convertPow},
      {"Max", binary<arith::MaximumFOp, arith::MaxSIOp>()},
      {"Min", binary<arith::MinimumFOp, arith::MinSIOp>()},
      {"Sum", binary<arith::AddFOp, arith::AddIOp>()},
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
      {"Softmax",
       [](Importer &im, const onnx::NodeProto &node) {
         return convertSoftmax(im, node, /*logarithm=*/false);
       }},
      {"LogSoftmax",
       [](Importer &im, const onnx::NodeProto &node) {
         return convertSoftmax(im, node, /*logarithm=*/true);
       }},
      {"LayerNormalization", convertLayerNorm},
      {"Transpose", convertTranspose},
      {"Slice", convertSlice},
      {"Expand", convertExpand},
      {"Where", convertWhere},
      {"Equal",
       comparison(arith::CmpFPredicate::OEQ, arith::CmpIPredicate::eq)},
      {"Less",
       comparison(arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt)},
      {"Greater",
       comparison(arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt)},
      {"LessOrEqual",
       comparison(arith::CmpFPredicate::OLE, arith::CmpIPredicate::sle)},
      {"GreaterOrEqual",
       comparison(arith::CmpFPredicate::OGE, arith::CmpIPredicate::sge)},
      {"Cast", convertCast},
      {"Shape", convertShape},
      {"ConstantOfShape", convertConstantOfShape},
      {"Range", convertRange},
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

  for (const onnx::OperatorSetIdProto &set : model.opset_import())
    if (set.domain().empty() || set.domain() == "ai.onnx")
      opset = set.version();
  for (const onnx::TensorProto &init : graph.initializer()) {
    auto data = readTensor(init);
    if (!data)
      return data.takeError();
    constants[init.name()] = *data;
  }
  for (const auto &[name, path] : options.boundInputs) {
    std::ifstream stream(path, std::ios::binary);
    onnx::TensorProto tensor;
    if (!stream || !tensor.ParseFromIstream(&stream))
      return error("cannot read an ONNX tensor for input '" + name +
                   "' from '" + path + "'");
    auto data = readTensor(tensor);
    if (!data)
      return data.takeError();
    constants[name] = *data;
  }

  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  SmallVector<Type> argTypes;
  std::vector<std::string> argNames;
  for (const onnx::ValueInfoProto &in : graph.input()) {
    if (constants.count(in.name()))
      continue; // An initializer (listed by older exporters) or bound.
    int32_t elementType = in.type().tensor_type().elem_type();
    if (elementType != onnx::TensorProto::FLOAT)
      return error("graph input '" + in.name() + "' has ONNX element type " +
                   std::to_string(elementType) +
                   "; tcl compiles float (f32) inputs only (bind an "
                   "integer input that determines shapes to a value with "
                   "--bind-input " +
                   in.name() + "=value.pb)");
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

  const auto &converters = getConverters();
  const auto &evaluators = getEvaluators();
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
    // Inputs known at import time; evaluate the node if all of them are.
    SmallVector<const ConstantData *> known;
    bool allKnown = true;
    for (int i = 0; i < node.input_size(); ++i) {
      if (!hasInput(node, i))
        continue;
      const ConstantData *data = constant(node, i);
      allKnown &= data != nullptr;
      known.push_back(data);
    }
    allKnown &= !known.empty();
    auto evaluator = evaluators.find(node.op_type());
    if (evaluator != evaluators.end() && allKnown) {
      auto result = evaluator->second(*this, node, known);
      if (!result)
        return result.takeError();
      constants[node.output(0)] = std::move(*result);
      continue;
    }
    if (llvm::Error e = converter->second(*this, node))
      return std::move(e);
  }
  loc = b.getUnknownLoc();

  SmallVector<Value> results;
  for (const onnx::ValueInfoProto &out : graph.output()) {
    Value result = lookup(out.name());
    if (!result)
      return error("graph output '" + out.name() +
                   "' is not computed by "
                   "any supported node");
    if (!elementTypeOf(result).isF32())
      return error("graph output '" + out.name() + "' has element type " +
                   (isBool(result) ? "bool" : "integer") +
                   "; tcl's compiled models return f32 tensors only");
    results.push_back(result);
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

llvm::Error mlir::tcl::parseBoundInput(llvm::StringRef text,
                                       OnnxImportOptions &options) {
  auto [name, path] = text.split('=');
  if (name.empty() || path.empty())
    return error("--bind-input expects name=value.pb, got '" + text + "'");
  options.boundInputs[name.str()] = path.str();
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
