//===- Normalization.cpp - ONNX instance, group, Lp and local norms -------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// InstanceNormalization and GroupNormalization standardize over the spatial
// dimensions of each channel (of each group of channels) with the helper
// LayerNormalization uses; LpNormalization divides by an L1 or L2 norm;
// LRN divides by a power of the sum of squares over neighbouring channels.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::tcl;
using namespace mlir::tcl::onnx_import;

namespace {

/// x * scale + bias, elementwise with broadcasting.
llvm::Expected<Value> scaleAndShift(Importer &im, const onnx::NodeProto &node,
                                    Value x, Value scale, Value bias) {
  return im.elementwise(
      node, {x, scale, bias}, [](OpBuilder &b, Location loc, ValueRange args) {
        return b
            .create<arith::AddFOp>(
                loc, b.create<arith::MulFOp>(loc, args[0], args[1]), args[2])
            .getResult();
      });
}

/// centered * inverse of a standardization.
llvm::Expected<Value> normalized(Importer &im, const onnx::NodeProto &node,
                                 const Standardized &parts) {
  return im.elementwise(
      node, {parts.centered, parts.inverse},
      [](OpBuilder &b, Location loc, ValueRange args) {
        return b.create<arith::MulFOp>(loc, args[0], args[1]).getResult();
      });
}

/// A per-channel parameter of `count` entries as [count, 1, ..., 1], which
/// broadcasts over [N, count, ...] of rank `rank`; an error names it if it
/// has another shape.
llvm::Expected<Value> perChannel(Importer &im, const onnx::NodeProto &node,
                                 int index, const char *name, int64_t count,
                                 int64_t rank) {
  Value value;
  if (llvm::Error e = im.input(node, index, value))
    return std::move(e);
  if (Importer::shapeOf(value) != llvm::ArrayRef<int64_t>{count} ||
      !Importer::elementTypeOf(value).isF32())
    return error(Importer::describe(node) + ": its " + name + " has shape " +
                 formatShape(Importer::shapeOf(value)) +
                 "; it must be a float tensor of " + std::to_string(count) +
                 " entries");
  SmallVector<int64_t> shape(rank - 1, 1);
  shape[0] = count;
  return im.reshape(value, shape);
}

/// InstanceNormalization: each channel of each sample standardized over its
/// spatial dimensions, then scaled and shifted per channel.
llvm::Error convertInstanceNorm(Importer &im, const onnx::NodeProto &node) {
  Value x;
  if (llvm::Error e = im.inputs(node, x))
    return e;
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  int64_t rank = xs.size();
  if (rank < 3)
    return error(Importer::describe(node) +
                 ": needs a batch, a channel and a spatial dimension, got " +
                 formatShape(xs));
  auto scale = perChannel(im, node, 1, "scale", xs[1], rank);
  if (!scale)
    return scale.takeError();
  auto bias = perChannel(im, node, 2, "bias", xs[1], rank);
  if (!bias)
    return bias.takeError();
  SmallVector<int64_t> axes;
  for (int64_t d = 2; d < rank; ++d)
    axes.push_back(d);
  auto parts = standardize(im, node, x, axes,
                           Importer::getFloat(node, "epsilon", 1e-5f));
  if (!parts)
    return parts.takeError();
  auto y = normalized(im, node, *parts);
  if (!y)
    return y.takeError();
  return im.define(node, scaleAndShift(im, node, *y, *scale, *bias));
}

/// GroupNormalization (opset 18, 21): the channels of each sample in
/// num_groups groups, each standardized over its channels and spatial
/// dimensions; scaled and shifted per channel (opset 21) or per group
/// (opset 18, which ONNX changed since).
llvm::Error convertGroupNorm(Importer &im, const onnx::NodeProto &node) {
  Value x;
  if (llvm::Error e = im.inputs(node, x))
    return e;
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  int64_t rank = xs.size();
  if (rank < 3)
    return error(Importer::describe(node) +
                 ": needs a batch, a channel and a spatial dimension, got " +
                 formatShape(xs));
  int64_t groups = Importer::getInt(node, "num_groups", 0);
  int64_t n = xs[0], c = xs[1];
  if (groups < 1 || c % groups != 0)
    return error(Importer::describe(node) + ": num_groups " +
                 std::to_string(groups) + " does not divide its " +
                 std::to_string(c) + " channels");
  int64_t rest = std::accumulate(xs.begin() + 2, xs.end(), c / groups,
                                 std::multiplies<int64_t>());
  Value grouped = im.reshape(x, {n, groups, rest});
  auto parts = standardize(im, node, grouped, {2},
                           Importer::getFloat(node, "epsilon", 1e-5f));
  if (!parts)
    return parts.takeError();
  auto y = normalized(im, node, *parts);
  if (!y)
    return y.takeError();
  bool perGroup = im.opset < 21;
  int64_t count = perGroup ? groups : c;
  auto scale = perChannel(im, node, 1, "scale", count, perGroup ? 3 : rank);
  if (!scale)
    return scale.takeError();
  auto bias = perChannel(im, node, 2, "bias", count, perGroup ? 3 : rank);
  if (!bias)
    return bias.takeError();
  if (perGroup) {
    auto shifted = scaleAndShift(im, node, *y, *scale, *bias);
    if (!shifted)
      return shifted.takeError();
    im.define(node, im.reshape(*shifted, xs));
    return llvm::Error::success();
  }
  return im.define(node,
                   scaleAndShift(im, node, im.reshape(*y, xs), *scale, *bias));
}

/// LpNormalization: x divided by its L1 or L2 norm along `axis`.
llvm::Error convertLpNorm(Importer &im, const onnx::NodeProto &node) {
  Value x;
  if (llvm::Error e = im.inputs(node, x))
    return e;
  if (!Importer::elementTypeOf(x).isF32())
    return error(Importer::describe(node) + ": needs a float input");
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  int64_t rank = xs.size();
  auto axis = Importer::axisAttribute(node, rank, -1);
  if (!axis)
    return axis.takeError();
  int64_t p = Importer::getInt(node, "p", 2);
  if (p != 1 && p != 2)
    return error(Importer::describe(node) + ": p must be 1 or 2, got " +
                 std::to_string(p));
  Value sum = reduce(
      im, x, {}, {*axis}, im.b.getF32FloatAttr(0),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value term =
            p == 1 ? b.create<math::AbsFOp>(loc, args[0]).getResult()
                   : b.create<arith::MulFOp>(loc, args[0], args[0]).getResult();
        return b.create<arith::AddFOp>(loc, args[1], term).getResult();
      });
  SmallVector<int64_t> kept(xs.begin(), xs.end());
  kept[*axis] = 1;
  auto result = im.elementwise(
      node, {x, im.reshape(sum, kept)},
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value norm =
            p == 1 ? args[1] : b.create<math::SqrtOp>(loc, args[1]).getResult();
        return b.create<arith::DivFOp>(loc, args[0], norm).getResult();
      });
  return im.define(node, std::move(result));
}

/// LRN: x / (bias + alpha / size * s)^beta, s the sum of squares over the
/// size channels around each one (floor((size - 1) / 2) before, the rest
/// after): a sum of size shifted slices of the zero-padded squares.
llvm::Error convertLRN(Importer &im, const onnx::NodeProto &node) {
  Value x;
  if (llvm::Error e = im.inputs(node, x))
    return e;
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  int64_t rank = xs.size();
  if (rank < 2 || !Importer::elementTypeOf(x).isF32())
    return error(Importer::describe(node) +
                 ": needs a float input with a channel dimension, got " +
                 formatShape(xs));
  int64_t size = Importer::getInt(node, "size", 0);
  if (size < 1)
    return error(Importer::describe(node) + ": size must be at least 1, got " +
                 std::to_string(size));
  float alpha = Importer::getFloat(node, "alpha", 1e-4f);
  float beta = Importer::getFloat(node, "beta", 0.75f);
  float bias = Importer::getFloat(node, "bias", 1.0f);
  auto squares = im.elementwise(
      node, {x}, [](OpBuilder &b, Location loc, ValueRange args) {
        return b.create<arith::MulFOp>(loc, args[0], args[0]).getResult();
      });
  if (!squares)
    return squares.takeError();
  SmallVector<int64_t> low(rank, 0), high(rank, 0);
  low[1] = (size - 1) / 2;
  high[1] = size - 1 - low[1];
  Value padded = padTensor(im, *squares, low, high, im.f32Constant(0));
  std::vector<Value> windows = {x};
  for (int64_t k = 0; k < size; ++k)
    windows.push_back(im.extractAlongAxis(padded, 1, k, xs[1]));
  auto result = im.elementwise(
      node, windows, [&](OpBuilder &b, Location loc, ValueRange args) {
        Value sum = args[1];
        for (Value square : args.drop_front(2).drop_back())
          sum = b.create<arith::AddFOp>(loc, sum, square);
        auto constant = [&](float v) -> Value {
          return b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(v));
        };
        Value base = b.create<arith::AddFOp>(
            loc, constant(bias),
            b.create<arith::MulFOp>(loc, constant(alpha / size), sum));
        Value scale =
            b.create<math::PowFOp>(loc, base, constant(-beta)).getResult();
        return b.create<arith::MulFOp>(loc, args[0], scale).getResult();
      });
  return im.define(node, std::move(result));
}

} // namespace

void onnx_import::registerNormalizationConverters(ConverterTable &table) {
  table.insert({
      {"InstanceNormalization", convertInstanceNorm},
      {"GroupNormalization", convertGroupNorm},
      {"LpNormalization", convertLpNorm},
      {"LRN", convertLRN},
  });
}
