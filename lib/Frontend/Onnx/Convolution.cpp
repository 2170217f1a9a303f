//===- Convolution.cpp - ONNX Conv and pools to linalg --------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The window ops: Conv, MaxPool and AveragePool, 1-D or 2-D, computed as 2-D
// linalg convolutions and poolings on channels-last (NHWC) tensors.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "tcl/Support/GroupedConv.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace mlir::tcl;
using namespace mlir::tcl::onnx_import;

namespace {

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
  const std::vector<int64_t> *lists[] = {&kernel, &strides, &dilations};
  const char *names[] = {"kernel_shape", "strides", "dilations"};
  for (int i = 0; i < 3; ++i)
    for (int64_t value : *lists[i])
      if (value < 1)
        return error(Importer::describe(node) + ": " + names[i] +
                     " must be at least 1, got " + std::to_string(value));
  std::vector<int64_t> inputHW(xShape.begin() + 2, xShape.end());
  std::vector<int64_t> pads(2 * spatial, 0);
  std::string autoPad = Importer::getString(node, "auto_pad", "NOTSET");
  if (autoPad == "NOTSET") {
    pads = Importer::getInts(node, "pads", pads);
    if (pads.size() != 2 * spatial)
      return error(Importer::describe(node) + ": expects " +
                   std::to_string(2 * spatial) + " pads, got " +
                   std::to_string(pads.size()));
    for (int64_t pad : pads)
      if (pad < 0)
        return error(Importer::describe(node) +
                     ": pads must be non-negative, got " + std::to_string(pad));
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

/// Convolution weights [F, C/group, (KH,) KW] as a 4-D [F, C/group, KH, KW]
/// tensor: a constant when they are one, else a value.
struct ConvWeights {
  std::optional<ConstantData> constant;
  Value value;
  std::array<int64_t, 4> shape;

  /// The weights viewed as `viewShape` (same elements, row-major), then
  /// permuted by `perm`.
  Value permuted(Importer &im, llvm::ArrayRef<int64_t> viewShape,
                 llvm::ArrayRef<int64_t> perm) const {
    if (constant) {
      ConstantData view = *constant;
      view.shape.assign(viewShape.begin(), viewShape.end());
      return im.materialize(permuteConstant(view, perm));
    }
    return transposeTensor(im, im.reshape(value, viewShape), perm);
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
  Value w;
  if (llvm::Error e = im.input(node, 1, w))
    return std::move(e);
  llvm::ArrayRef<int64_t> ws = Importer::shapeOf(w);
  if (ws.size() != 3 && ws.size() != 4)
    return error(Importer::describe(node) +
                 ": only 1-D and 2-D convolutions are supported");
  weights.shape = {ws[0], ws[1], ws.size() == 4 ? ws[2] : 1, ws.back()};
  weights.value = im.reshape(w, weights.shape);
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
  Value x;
  if (llvm::Error e = im.inputs(node, x))
    return e;
  auto weights = convWeights(im, node);
  if (!weights)
    return weights.takeError();
  const std::array<int64_t, 4> &ws = weights->shape;
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  std::vector<int64_t> kernel(ws.begin() + 2, ws.end());
  if (xs.size() == 3)
    kernel.erase(kernel.begin());
  // kernel_shape, if given, must be what the weights say.
  std::vector<int64_t> given = Importer::getInts(node, "kernel_shape", kernel);
  if (given != kernel)
    return error(Importer::describe(node) + ": kernel_shape " +
                 formatShape(given) + " does not match the weights' " +
                 formatShape(kernel) + " window (weights " + formatShape(ws) +
                 ")");
  auto g = windowGeometry(node, xs, kernel);
  if (!g)
    return g.takeError();
  int64_t group = Importer::getInt(node, "group", 1);
  int64_t n = xs[0], c = xs[1], f = ws[0];
  if (group < 1 || c % group != 0 || f % group != 0 || ws[1] != c / group)
    return error(Importer::describe(node) + ": weights " + formatShape(ws) +
                 " do not match " + std::to_string(c) + " input channels in " +
                 std::to_string(group) + " group(s)");
  Value input = nhwcInput(im, x, *g, 0.0f);
  SmallVector<NamedAttribute> attrs = {
      stridesAttr(im, g->strides, "strides"),
      stridesAttr(im, g->dilations, "dilations")};
  Value result;
  if (group == 1) {
    // [F, C, KH, KW] -> [KH, KW, C, F]
    Value filter = weights->permuted(im, ws, {2, 3, 1, 0});
    Value init = im.filled({n, g->outH, g->outW, f}, 0.0f);
    result = im.b.create<linalg::Conv2DNhwcHwcfOp>(
                     im.loc, TypeRange{init.getType()},
                     ValueRange{input, filter}, ValueRange{init}, attrs)
                 .getResult(0);
  } else if (group == c && f == c) {
    // Depthwise: [C, 1, KH, KW] -> [KH, KW, 1, C] -> [KH, KW, C]
    Value filter =
        im.reshape(weights->permuted(im, ws, {2, 3, 1, 0}), {ws[2], ws[3], c});
    Value init = im.filled({n, g->outH, g->outW, f}, 0.0f);
    result = im.b.create<linalg::DepthwiseConv2DNhwcHwcOp>(
                     im.loc, TypeRange{init.getType()},
                     ValueRange{input, filter}, ValueRange{init}, attrs)
                 .getResult(0);
  } else {
    // Grouped (or depthwise with a channel multiplier): one grouped
    // convolution over channels viewed as [group, C/group], which tcl
    // schedules as one task (tcl/Support/GroupedConv.h).
    int64_t groupIn = c / group, groupOut = f / group;
    llvm::ArrayRef<int64_t> is = Importer::shapeOf(input);
    SmallVector<ReassociationIndices> lastSplit = {{0}, {1}, {2}, {3, 4}};
    Value groupedInput = im.b.create<tensor::ExpandShapeOp>(
        im.loc, im.f32Tensor({is[0], is[1], is[2], group, groupIn}), input,
        lastSplit);
    // [F, C/G, KH, KW] = [G, F/G, C/G, KH, KW] -> [G, KH, KW, C/G, F/G]
    Value filter = weights->permuted(
        im, {group, groupOut, groupIn, ws[2], ws[3]}, {0, 3, 4, 2, 1});
    Value init = im.filled({n, g->outH, g->outW, group, groupOut}, 0.0f);
    GroupedConvWindow window;
    window.strides = g->strides;
    window.dilations = g->dilations;
    Value grouped =
        buildGroupedConv(im.b, im.loc, groupedInput, filter, init, window);
    result = im.b.create<tensor::CollapseShapeOp>(
        im.loc, im.f32Tensor({n, g->outH, g->outW, f}), grouped, lastSplit);
  }
  Value bias;
  if (llvm::Error e = im.optionalInput(node, 2, bias))
    return e;
  if (bias) {
    // Channels last: the bias broadcasts along the innermost dimension.
    auto biased = im.elementwise(
        node, {result, bias}, [](OpBuilder &b, Location loc, ValueRange args) {
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
  Value x;
  if (llvm::Error e = im.inputs(node, x))
    return e;
  if (node.output_size() > 1 && !node.output(1).empty())
    return error(Importer::describe(node) + ": the Indices output is not "
                                            "supported");
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  auto g = windowGeometry(node, xs, Importer::getInts(node, "kernel_shape"),
                          Importer::getInt(node, "ceil_mode", 0) != 0);
  if (!g)
    return g.takeError();
  float padValue = max ? -std::numeric_limits<float>::infinity() : 0.0f;
  Value input = nhwcInput(im, x, *g, padValue);
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

} // namespace

void onnx_import::registerConvolutionConverters(ConverterTable &table) {
  table.insert({
      {"Conv", convertConv},
      {"MaxPool",
       [](Importer &im, const onnx::NodeProto &node) {
         return convertPool(im, node, /*max=*/true);
       }},
      {"AveragePool",
       [](Importer &im, const onnx::NodeProto &node) {
         return convertPool(im, node, /*max=*/false);
       }},
  });
}
