//===- Convolution.cpp - ONNX Conv and pools to linalg --------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The window ops: Conv, ConvTranspose, MaxPool and AveragePool, 1-D or 2-D,
// computed as 2-D linalg convolutions and poolings on channels-last (NHWC)
// tensors.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "tcl/Support/GroupedConv.h"
#include "tcl/Support/Indexing.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/MathExtras.h"

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

/// A grouped convolution of an NHWC `input` (C = group x C/group channels)
/// with `filter` in the grouped form's [G, KH, KW, C/G, F/G] layout, as one
/// op (tcl/Support/GroupedConv.h), its result [N, OH, OW, F].
Value groupedConvNhwc(Importer &im, Value input, Value filter, int64_t group,
                      llvm::ArrayRef<int64_t> outNHW, int64_t groupOut,
                      const GroupedConvWindow &window) {
  llvm::ArrayRef<int64_t> is = Importer::shapeOf(input);
  SmallVector<ReassociationIndices> lastSplit = {{0}, {1}, {2}, {3, 4}};
  Value groupedInput = im.b.create<tensor::ExpandShapeOp>(
      im.loc, im.f32Tensor({is[0], is[1], is[2], group, is[3] / group}), input,
      lastSplit);
  Value init =
      im.filled({outNHW[0], outNHW[1], outNHW[2], group, groupOut}, 0.0f);
  Value grouped =
      buildGroupedConv(im.b, im.loc, groupedInput, filter, init, window);
  return im.b.create<tensor::CollapseShapeOp>(
      im.loc, im.f32Tensor({outNHW[0], outNHW[1], outNHW[2], group * groupOut}),
      grouped, lastSplit);
}

/// The convolution's result plus its optional bias (input 2), which
/// broadcasts along the channels, innermost in NHWC.
llvm::Expected<Value> addBias(Importer &im, const onnx::NodeProto &node,
                              Value result) {
  Value bias;
  if (llvm::Error e = im.optionalInput(node, 2, bias))
    return std::move(e);
  if (!bias)
    return result;
  return im.elementwise(
      node, {result, bias}, [](OpBuilder &b, Location loc, ValueRange args) {
        return b.create<arith::AddFOp>(loc, args[0], args[1]).getResult();
      });
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
    // [F, C/G, KH, KW] = [G, F/G, C/G, KH, KW] -> [G, KH, KW, C/G, F/G]
    Value filter = weights->permuted(
        im, {group, groupOut, groupIn, ws[2], ws[3]}, {0, 3, 4, 2, 1});
    GroupedConvWindow window;
    window.strides = g->strides;
    window.dilations = g->dilations;
    result = groupedConvNhwc(im, input, filter, group, {n, g->outH, g->outW},
                             groupOut, window);
  }
  auto biased = addBias(im, node, result);
  if (!biased)
    return biased.takeError();
  result = *biased;
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

/// The spatial geometry of a ConvTranspose, per dimension (H then W): the
/// input is spread `stride` apart with zeros between, padded by `low` and
/// `high` (negative: cropped), and convolved with the flipped kernel at
/// stride 1.
struct TransposedGeometry {
  std::array<int64_t, 2> strides = {1, 1}, dilations = {1, 1}, kernel = {1, 1};
  std::array<int64_t, 2> low = {0, 0}, high = {0, 0}, out = {1, 1};
};

llvm::Expected<TransposedGeometry>
transposedGeometry(const onnx::NodeProto &node, llvm::ArrayRef<int64_t> xs,
                   llvm::ArrayRef<int64_t> kernel) {
  size_t spatial = xs.size() - 2;
  std::vector<int64_t> ones(spatial, 1), zeros(spatial, 0);
  std::vector<int64_t> strides = Importer::getInts(node, "strides", ones);
  std::vector<int64_t> dilations = Importer::getInts(node, "dilations", ones);
  std::vector<int64_t> outputPadding =
      Importer::getInts(node, "output_padding", zeros);
  std::vector<int64_t> outputShape = Importer::getInts(node, "output_shape");
  std::vector<int64_t> pads =
      Importer::getInts(node, "pads", std::vector<int64_t>(2 * spatial, 0));
  std::string autoPad = Importer::getString(node, "auto_pad", "NOTSET");
  auto describe = [&] { return Importer::describe(node) + ": "; };
  if (strides.size() != spatial || dilations.size() != spatial ||
      outputPadding.size() != spatial || pads.size() != 2 * spatial ||
      (!outputShape.empty() && outputShape.size() != spatial))
    return error(describe() +
                 "strides, dilations, output_padding and "
                 "output_shape need " +
                 std::to_string(spatial) + " entries, pads " +
                 std::to_string(2 * spatial));
  if (autoPad != "NOTSET" && autoPad != "SAME_UPPER" &&
      autoPad != "SAME_LOWER" && autoPad != "VALID")
    return error(describe() + "auto_pad '" + autoPad + "' is not supported");
  TransposedGeometry g;
  size_t offset = 2 - spatial; // A 1-D op is 2-D with a height of 1.
  for (size_t i = 0; i < spatial; ++i) {
    int64_t in = xs[2 + i], s = strides[i], d = dilations[i], k = kernel[i];
    if (s < 1 || d < 1 || outputPadding[i] < 0 || outputPadding[i] >= s)
      return error(describe() + "strides and dilations must be at least 1 "
                                "and output_padding in [0, stride)");
    int64_t natural = s * (in - 1) + outputPadding[i] + (k - 1) * d + 1;
    int64_t start = pads[i], end = pads[i + spatial];
    // An output size, given or implied by SAME, decides the padding; the
    // odd unit goes to the end for SAME_UPPER, as ONNX specifies.
    std::optional<int64_t> wanted;
    if (!outputShape.empty())
      wanted = outputShape[i];
    else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER")
      wanted = in * s;
    else if (autoPad == "VALID")
      start = end = 0;
    if (wanted) {
      // Rounded down (as ONNX's reference does): a negative total, an
      // output larger than the natural one, grows at the end.
      int64_t total = natural - *wanted;
      int64_t half = llvm::divideFloorSigned(total, 2);
      start = autoPad == "SAME_UPPER" ? half : total - half;
      end = total - start;
    }
    int64_t out = natural - start - end;
    if (out < 1)
      return error(describe() +
                   "the output would have no element along "
                   "spatial dimension " +
                   std::to_string(i));
    g.strides[offset + i] = s;
    g.dilations[offset + i] = d;
    g.kernel[offset + i] = k;
    g.low[offset + i] = (k - 1) * d - start;
    g.high[offset + i] = (k - 1) * d - end + outputPadding[i];
    g.out[offset + i] = out;
  }
  return g;
}

/// ConvTranspose (1-D or 2-D, any group count) as a convolution: the NHWC
/// input spread by the strides and padded (one tensor.insert_slice into
/// zeros), then convolved at stride 1 with the kernel flipped and its
/// channel dimensions swapped (one generic, folded for constant weights).
llvm::Error convertConvTranspose(Importer &im, const onnx::NodeProto &node) {
  Value x, w;
  if (llvm::Error e = im.inputs(node, x, w))
    return e;
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  llvm::ArrayRef<int64_t> wsGiven = Importer::shapeOf(w);
  if ((xs.size() != 3 && xs.size() != 4) || wsGiven.size() != xs.size())
    return error(Importer::describe(node) +
                 ": only 1-D and 2-D transposed convolutions (NCW or NCHW "
                 "inputs, weights of the same rank) are supported, got "
                 "input " +
                 formatShape(xs) + " and weights " + formatShape(wsGiven));
  if (!Importer::elementTypeOf(x).isF32() ||
      !Importer::elementTypeOf(w).isF32())
    return error(Importer::describe(node) + ": needs float tensors");
  std::vector<int64_t> kernel(wsGiven.begin() + 2, wsGiven.end());
  if (Importer::getInts(node, "kernel_shape", kernel) != kernel)
    return error(Importer::describe(node) +
                 ": kernel_shape does not match "
                 "the weights " +
                 formatShape(wsGiven));
  int64_t group = Importer::getInt(node, "group", 1);
  int64_t n = xs[0], c = xs[1];
  if (group < 1 || wsGiven[0] != c || c % group != 0)
    return error(Importer::describe(node) + ": weights " +
                 formatShape(wsGiven) + " do not match " + std::to_string(c) +
                 " input channels in " + std::to_string(group) + " group(s)");
  auto g = transposedGeometry(node, xs, kernel);
  if (!g)
    return g.takeError();
  bool oneDimensional = xs.size() == 3;
  int64_t groupOut = wsGiven[1], f = groupOut * group, groupIn = c / group;
  int64_t kh = g->kernel[0], kw = g->kernel[1];
  Value weights = im.reshape(w, {c, groupOut, kh, kw});
  Value input = transposeTensor(
      im, oneDimensional ? im.reshape(x, {n, c, 1, xs[2]}) : x, {0, 2, 3, 1});

  // Spread and pad: zeros with the input written `stride` apart.
  std::array<int64_t, 2> inHW = {oneDimensional ? 1 : xs[2], xs.back()};
  SmallVector<int64_t> padded = {n, 0, 0, c}, offsets = {0, 0, 0, 0};
  for (int i = 0; i < 2; ++i) {
    padded[1 + i] = (inHW[i] - 1) * g->strides[i] + 1 +
                    std::max<int64_t>(g->low[i], 0) +
                    std::max<int64_t>(g->high[i], 0);
    offsets[1 + i] = std::max<int64_t>(g->low[i], 0);
  }
  Value spread = im.b.create<tensor::InsertSliceOp>(
      im.loc, input, im.filled(padded, 0.0f), im.indexAttrs(offsets),
      im.indexAttrs({n, inHW[0], inHW[1], c}),
      im.indexAttrs({1, g->strides[0], g->strides[1], 1}));
  if (g->low[0] < 0 || g->low[1] < 0 || g->high[0] < 0 || g->high[1] < 0) {
    SmallVector<int64_t> from = {0, 0, 0, 0}, sizes = padded;
    for (int i = 0; i < 2; ++i) {
      from[1 + i] = -std::min<int64_t>(g->low[i], 0);
      sizes[1 + i] -= from[1 + i] - std::min<int64_t>(g->high[i], 0);
    }
    spread = im.b.create<tensor::ExtractSliceOp>(
        im.loc, im.f32Tensor(sizes), spread, im.indexAttrs(from),
        im.indexAttrs(sizes), im.indexAttrs({1, 1, 1, 1}));
  }

  // The filter: [C, F/G, KH, KW] read flipped, as HWCF (one group) or as
  // the grouped form's [G, KH, KW, C/G, F/G]. Each of the 4 source indices
  // is a constant plus multiples of filter indices; a flip has a negative
  // coefficient, which a linalg map could say but tiling cannot handle, so
  // constant weights are flipped at import and others read element by
  // element.
  struct Term {
    unsigned dim;
    int64_t coefficient;
  };
  struct SourceIndex {
    int64_t constant;
    SmallVector<Term, 2> terms;
  };
  SmallVector<int64_t> filterShape;
  std::array<SourceIndex, 4> source;
  if (group == 1) {
    filterShape = {kh, kw, c, f};
    source = {SourceIndex{0, {{2, 1}}}, SourceIndex{0, {{3, 1}}},
              SourceIndex{kh - 1, {{0, -1}}}, SourceIndex{kw - 1, {{1, -1}}}};
  } else {
    filterShape = {group, kh, kw, groupIn, groupOut};
    source = {SourceIndex{0, {{0, groupIn}, {3, 1}}}, SourceIndex{0, {{4, 1}}},
              SourceIndex{kh - 1, {{1, -1}}}, SourceIndex{kw - 1, {{2, -1}}}};
  }
  Value filter;
  if (const ConstantData *constant = im.constant(node, 1)) {
    ConstantData flipped = ConstantData::zeros(
        ElementKind::Float, {filterShape.begin(), filterShape.end()});
    llvm::SmallVector<int64_t> strides = rowMajorStrides({c, groupOut, kh, kw});
    int64_t out = 0;
    forEachIndex(filterShape, [&](llvm::ArrayRef<int64_t> index) {
      int64_t offset = 0;
      for (auto [d, from] : llvm::enumerate(source)) {
        int64_t value = from.constant;
        for (const Term &term : from.terms)
          value += term.coefficient * index[term.dim];
        offset += value * strides[d];
      }
      flipped.floats[out++] = constant->floats[offset];
    });
    filter = im.materialize(flipped);
  } else {
    filter = im.extractAt(
        weights, filterShape, {}, {},
        [&](OpBuilder &b, Location loc, ValueRange) {
          SmallVector<Value> position;
          for (const SourceIndex &from : source) {
            Value value = b.create<arith::ConstantIndexOp>(loc, from.constant);
            for (const Term &term : from.terms)
              value = b.create<arith::AddIOp>(
                  loc, value,
                  b.create<arith::MulIOp>(
                      loc, b.create<linalg::IndexOp>(loc, term.dim),
                      b.create<arith::ConstantIndexOp>(loc, term.coefficient)));
            position.push_back(value);
          }
          return position;
        });
  }
  SmallVector<NamedAttribute> attrs = {
      stridesAttr(im, {1, 1}, "strides"),
      stridesAttr(im, g->dilations, "dilations")};
  Value result;
  if (group == 1) {
    Value init = im.filled({n, g->out[0], g->out[1], f}, 0.0f);
    result = im.b.create<linalg::Conv2DNhwcHwcfOp>(
                     im.loc, TypeRange{init.getType()},
                     ValueRange{spread, filter}, ValueRange{init}, attrs)
                 .getResult(0);
  } else {
    GroupedConvWindow window;
    window.dilations = g->dilations;
    result = groupedConvNhwc(im, spread, filter, group,
                             {n, g->out[0], g->out[1]}, groupOut, window);
  }
  auto biased = addBias(im, node, result);
  if (!biased)
    return biased.takeError();
  result = *biased;
  WindowGeometry layout;
  layout.oneDimensional = oneDimensional;
  im.define(node, fromNhwc(im, result, layout));
  return llvm::Error::success();
}

} // namespace

void onnx_import::registerConvolutionConverters(ConverterTable &table) {
  table.insert({
      {"Conv", convertConv},
      {"ConvTranspose", convertConvTranspose},
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
