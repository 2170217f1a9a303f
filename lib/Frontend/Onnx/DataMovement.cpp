//===- DataMovement.cpp - ONNX ops that copy and rearrange elements -------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Tile, DepthToSpace and SpaceToDepth as reshapes around a broadcast or a
// transpose; Pad as tensor.pad (constant mode) or a linalg.generic that
// reads each output element's source (reflect, edge, wrap); Trilu as a
// masking linalg.generic; Resize (nearest, linear) as a linalg.generic that
// reads its sources through index tables computed at import. Repeats, pads,
// k and Resize's scales or sizes must be known at compile time, since tcl's
// shapes are static.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tcl;
using namespace mlir::tcl::onnx_import;

Value onnx_import::padTensor(Importer &im, Value x, llvm::ArrayRef<int64_t> low,
                             llvm::ArrayRef<int64_t> high, Value value) {
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  SmallVector<int64_t> padded;
  for (size_t d = 0; d < xs.size(); ++d)
    padded.push_back(xs[d] + low[d] + high[d]);
  if (padded == xs)
    return x;
  auto type = RankedTensorType::get(padded, Importer::elementTypeOf(x));
  return im.b.create<tensor::PadOp>(im.loc, type, x, im.indexAttrs(low),
                                    im.indexAttrs(high), value);
}

namespace {

/// Tile: x as [1, d0, 1, d1, ...] broadcast to [r0, d0, r1, d1, ...], whose
/// adjacent pairs merge into [r0 * d0, r1 * d1, ...].
llvm::Error convertTile(Importer &im, const onnx::NodeProto &node) {
  Value x;
  if (llvm::Error e = im.inputs(node, x))
    return e;
  auto repeats = constantInts(im, node, 1);
  if (!repeats)
    return repeats.takeError();
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  if (repeats->size() != xs.size())
    return error(Importer::describe(node) + ": " +
                 std::to_string(repeats->size()) + " repeats for a rank-" +
                 std::to_string(xs.size()) +
                 " input (it needs one per dimension)");
  SmallVector<int64_t> spread, copies, tiled;
  for (auto [dim, repeat] : llvm::zip_equal(xs, *repeats)) {
    if (repeat < 1)
      return error(Importer::describe(node) + ": repeat " +
                   std::to_string(repeat) +
                   " is not supported (empty results are not; repeats must "
                   "be at least 1)");
    spread.append({1, dim});
    copies.append({repeat, dim});
    tiled.push_back(repeat * dim);
  }
  if (llvm::Error e = checkShape(Importer::describe(node), copies))
    return e;
  auto result = im.elementwise(
      node, {im.reshape(x, spread)},
      [](OpBuilder &, Location, ValueRange args) { return args[0]; }, nullptr,
      copies);
  if (!result)
    return result.takeError();
  im.define(node, im.reshape(*result, tiled));
  return llvm::Error::success();
}

/// The blocksize of DepthToSpace and SpaceToDepth, checked with their NCHW
/// input's rank.
llvm::Expected<int64_t> blockSize(const onnx::NodeProto &node,
                                  llvm::ArrayRef<int64_t> xs) {
  if (xs.size() != 4)
    return error(Importer::describe(node) + ": needs an NCHW input, got " +
                 formatShape(xs));
  int64_t block = Importer::getInt(node, "blocksize", 0);
  if (block < 1)
    return error(Importer::describe(node) +
                 ": blocksize must be at least 1, got " +
                 std::to_string(block));
  return block;
}

/// DepthToSpace: channels split into a block (DCR: block rows, block
/// columns, channels; CRD: channels first), moved next to the rows and
/// columns they spread over.
llvm::Error convertDepthToSpace(Importer &im, const onnx::NodeProto &node) {
  Value x;
  if (llvm::Error e = im.inputs(node, x))
    return e;
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  auto block = blockSize(node, xs);
  if (!block)
    return block.takeError();
  int64_t b = *block, n = xs[0], c = xs[1], h = xs[2], w = xs[3];
  std::string mode = Importer::getString(node, "mode", "DCR");
  if (mode != "DCR" && mode != "CRD")
    return error(Importer::describe(node) + ": mode '" + mode +
                 "' is not supported (DCR and CRD are)");
  if (c % (b * b) != 0)
    return error(Importer::describe(node) + ": its " + std::to_string(c) +
                 " channels are not a multiple of blocksize^2 = " +
                 std::to_string(b * b));
  int64_t depth = c / (b * b);
  bool dcr = mode == "DCR";
  Value split = im.reshape(x, dcr ? SmallVector<int64_t>{n, b, b, depth, h, w}
                                  : SmallVector<int64_t>{n, depth, b, b, h, w});
  Value moved = transposeTensor(im, split,
                                dcr ? SmallVector<int64_t>{0, 3, 4, 1, 5, 2}
                                    : SmallVector<int64_t>{0, 1, 4, 2, 5, 3});
  im.define(node, im.reshape(moved, {n, depth, h * b, w * b}));
  return llvm::Error::success();
}

/// SpaceToDepth: each blocksize x blocksize block of rows and columns moved
/// into the channels (block rows, block columns, channels).
llvm::Error convertSpaceToDepth(Importer &im, const onnx::NodeProto &node) {
  Value x;
  if (llvm::Error e = im.inputs(node, x))
    return e;
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  auto block = blockSize(node, xs);
  if (!block)
    return block.takeError();
  int64_t b = *block, n = xs[0], c = xs[1], h = xs[2], w = xs[3];
  if (h % b != 0 || w % b != 0)
    return error(Importer::describe(node) + ": its height and width (" +
                 formatShape(xs.drop_front(2)) +
                 ") are not multiples of blocksize " + std::to_string(b));
  Value split = im.reshape(x, {n, c, h / b, b, w / b, b});
  Value moved = transposeTensor(im, split, {0, 3, 5, 1, 2, 4});
  im.define(node, im.reshape(moved, {n, c * b * b, h / b, w / b}));
  return llvm::Error::success();
}

/// A scalar of element type `type` holding `value`.
TypedAttr scalarAttr(OpBuilder &b, Type type, double value) {
  if (type.isF32())
    return b.getF32FloatAttr(static_cast<float>(value));
  return b.getIntegerAttr(type, static_cast<int64_t>(value));
}

/// Pad's constant: its constant_value input (a constant or a run-time
/// scalar), its value attribute (before opset 11), or 0.
llvm::Expected<Value> padConstant(Importer &im, const onnx::NodeProto &node,
                                  Type type) {
  if (im.opset < 11 || !im.hasInput(node, 2))
    return im.b
        .create<arith::ConstantOp>(
            im.loc,
            scalarAttr(im.b, type, Importer::getFloat(node, "value", 0)))
        .getResult();
  if (const ConstantData *given = im.constant(node, 2)) {
    if (given->size() != 1)
      return error(Importer::describe(node) +
                   ": its constant_value must be a scalar");
    return im.b
        .create<arith::ConstantOp>(im.loc,
                                   scalarAttr(im.b, type, given->asDouble(0)))
        .getResult();
  }
  Value value;
  if (llvm::Error e = im.input(node, 2, value))
    return std::move(e);
  llvm::ArrayRef<int64_t> vs = Importer::shapeOf(value);
  if (elementCount(vs) != 1 || Importer::elementTypeOf(value) != type)
    return error(Importer::describe(node) +
                 ": its constant_value must be a scalar of the input's type");
  SmallVector<Value> zeros(vs.size(),
                           im.b.create<arith::ConstantIndexOp>(im.loc, 0));
  return im.b.create<tensor::ExtractOp>(im.loc, value, zeros).getResult();
}

/// The index of the element of a dimension of `size` that position `i`
/// (which may be outside [0, size)) reads in reflect, edge or wrap mode.
Value sourceIndex(OpBuilder &b, Location loc, llvm::StringRef mode, Value i,
                  int64_t size) {
  auto constant = [&](int64_t v) -> Value {
    return b.create<arith::ConstantIndexOp>(loc, v);
  };
  Value last = constant(size - 1);
  if (mode == "edge")
    return b.create<arith::MaxSIOp>(loc, constant(0),
                                    b.create<arith::MinSIOp>(loc, i, last));
  if (mode == "wrap") {
    Value n = constant(size);
    Value rem = b.create<arith::RemSIOp>(loc, i, n);
    return b.create<arith::RemSIOp>(loc, b.create<arith::AddIOp>(loc, rem, n),
                                    n);
  }
  // Reflect (without repeating the edge): -i before, 2 (size - 1) - i after.
  Value negative =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, i, constant(0));
  i = b.create<arith::SelectOp>(
      loc, negative, b.create<arith::SubIOp>(loc, constant(0), i), i);
  Value beyond =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sgt, i, last);
  return b.create<arith::SelectOp>(
      loc, beyond, b.create<arith::SubIOp>(loc, constant(2 * (size - 1)), i),
      i);
}

/// Pad: negative pads crop (a slice), positive ones pad in the node's mode.
llvm::Error convertPad(Importer &im, const onnx::NodeProto &node) {
  Value x;
  if (llvm::Error e = im.inputs(node, x))
    return e;
  std::string subject = Importer::describe(node);
  std::string mode = Importer::getString(node, "mode", "constant");
  if (!llvm::is_contained({"constant", "reflect", "edge", "wrap"}, mode))
    return error(subject + ": mode '" + mode +
                 "' is not supported (constant, reflect, edge and wrap are)");
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  int64_t rank = xs.size();
  std::vector<int64_t> pads = Importer::getInts(node, "pads");
  if (im.opset >= 11) {
    auto given = constantInts(im, node, 1);
    if (!given)
      return given.takeError();
    pads = *given;
  }
  std::vector<int64_t> axes;
  if (im.hasInput(node, 3)) {
    auto given = constantInts(im, node, 3);
    if (!given)
      return given.takeError();
    for (int64_t axis : *given) {
      auto normalized = Importer::normalizeAxis(node, axis, rank, rank);
      if (!normalized)
        return normalized.takeError();
      if (llvm::is_contained(axes, *normalized))
        return error(subject + ": axis " + std::to_string(*normalized) +
                     " is given twice");
      axes.push_back(*normalized);
    }
  } else {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  if (pads.size() != 2 * axes.size())
    return error(subject + ": " + std::to_string(pads.size()) + " pads for " +
                 std::to_string(axes.size()) +
                 " axes (it needs 2 per axis: all begins, then all ends)");
  SmallVector<int64_t> low(rank, 0), high(rank, 0), offsets(rank, 0),
      sizes(xs.begin(), xs.end());
  for (auto [k, axis] : llvm::enumerate(axes)) {
    int64_t before = pads[k], after = pads[k + axes.size()];
    offsets[axis] = std::max<int64_t>(0, -before);
    sizes[axis] -= offsets[axis] + std::max<int64_t>(0, -after);
    low[axis] = std::max<int64_t>(0, before);
    high[axis] = std::max<int64_t>(0, after);
    if (sizes[axis] < 1)
      return error(subject + ": its pads crop dimension " +
                   std::to_string(axis) + " (" + std::to_string(xs[axis]) +
                   ") to nothing (empty results are not supported)");
    if (mode == "reflect" && std::max(low[axis], high[axis]) > sizes[axis] - 1)
      return error(subject + ": reflect pads of dimension " +
                   std::to_string(axis) + " must be smaller than its size " +
                   std::to_string(sizes[axis]));
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d)
    shape.push_back(sizes[d] + low[d] + high[d]);
  if (llvm::Error e = checkShape(subject, shape))
    return e;
  Type type = Importer::elementTypeOf(x);
  Value source = x;
  if (sizes != xs)
    source = im.b.create<tensor::ExtractSliceOp>(
        im.loc, RankedTensorType::get(sizes, type), x, im.indexAttrs(offsets),
        im.indexAttrs(sizes), im.indexAttrs(SmallVector<int64_t>(rank, 1)));
  if (mode == "constant") {
    auto value = padConstant(im, node, type);
    if (!value)
      return value.takeError();
    im.define(node, padTensor(im, source, low, high, *value));
    return llvm::Error::success();
  }
  // Each output element reads its source element (the source index is not
  // an affine function of the output's).
  Value result = im.extractAt(
      source, shape, {}, {}, [&](OpBuilder &b, Location loc, ValueRange) {
        SmallVector<Value> indices;
        for (int64_t d = 0; d < rank; ++d) {
          Value i = b.create<linalg::IndexOp>(loc, d);
          if (low[d] == 0 && high[d] == 0) {
            indices.push_back(i);
            continue;
          }
          i = b.create<arith::SubIOp>(
              loc, i, b.create<arith::ConstantIndexOp>(loc, low[d]));
          indices.push_back(sourceIndex(b, loc, mode, i, sizes[d]));
        }
        return indices;
      });
  im.define(node, result);
  return llvm::Error::success();
}

/// Trilu: keeps the elements of each matrix (the last two dimensions) on
/// and above (upper) or on and below the k-th diagonal, zeroes the others.
llvm::Error convertTrilu(Importer &im, const onnx::NodeProto &node) {
  Value x;
  if (llvm::Error e = im.inputs(node, x))
    return e;
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  int64_t rank = xs.size();
  if (rank < 2)
    return error(Importer::describe(node) +
                 ": needs matrices (rank 2 or more), got " + formatShape(xs));
  int64_t k = 0;
  if (im.hasInput(node, 1)) {
    const ConstantData *given = im.constant(node, 1);
    if (!given || given->isFloat() || given->size() != 1)
      return error(Importer::describe(node) +
                   ": its k must be an integer scalar known at compile time");
    // Beyond the matrix, k keeps all or nothing: clamped, it fits an index.
    k = std::clamp<int64_t>(given->ints[0], -xs[rank - 2] - 1,
                            xs[rank - 1] + 1);
  }
  bool upper = Importer::getInt(node, "upper", 1) != 0;
  Type type = Importer::elementTypeOf(x);
  auto result = im.elementwise(
      node, {x}, [&](OpBuilder &b, Location loc, ValueRange args) {
        Value row = b.create<linalg::IndexOp>(loc, rank - 2);
        Value column = b.create<linalg::IndexOp>(loc, rank - 1);
        Value offset = b.create<arith::SubIOp>(loc, column, row);
        Value kept = b.create<arith::CmpIOp>(
            loc, upper ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle,
            offset, b.create<arith::ConstantIndexOp>(loc, k));
        Value zero = b.create<arith::ConstantOp>(loc, b.getZeroAttr(type));
        return b.create<arith::SelectOp>(loc, kept, args[0], zero).getResult();
      });
  return im.define(node, std::move(result));
}

/// Where output position `o` of a dimension resized from `in` to `out`
/// entries by `scale` reads the input, by coordinate_transformation_mode.
double resizeSource(llvm::StringRef mode, int64_t o, int64_t in, int64_t out,
                    double scale) {
  if (mode == "half_pixel")
    return (o + 0.5) / scale - 0.5;
  if (mode == "pytorch_half_pixel")
    return out > 1 ? (o + 0.5) / scale - 0.5 : 0;
  if (mode == "align_corners")
    return out == 1 ? 0 : o * double(in - 1) / double(out - 1);
  if (mode == "asymmetric")
    return o / scale;
  return (o + 0.5) / scale; // tf_half_pixel_for_nn
}

/// The input entries and weights one resized dimension reads: output
/// position o reads lower[o] (nearest), or lower[o] and upper[o] weighted
/// 1 - weight[o] and weight[o] (linear). Computed at import, since shapes
/// are static.
struct ResizedAxis {
  std::vector<int64_t> lower, upper;
  std::vector<float> weight;
};

/// Resize (opset 11+) in nearest or linear mode with scales or sizes known
/// at compile time: a linalg.generic whose body reads each output element's
/// source elements (tensor.extract) from index tables computed at import.
llvm::Error convertResize(Importer &im, const onnx::NodeProto &node) {
  Value x;
  if (llvm::Error e = im.inputs(node, x))
    return e;
  std::string subject = Importer::describe(node);
  if (im.opset < 11)
    return error(subject + ": opset " + std::to_string(im.opset) +
                 " Resize is not supported (opset 11 and later are)");
  std::string mode = Importer::getString(node, "mode", "nearest");
  std::string coordinates =
      Importer::getString(node, "coordinate_transformation_mode", "half_pixel");
  std::string rounding =
      Importer::getString(node, "nearest_mode", "round_prefer_floor");
  if (mode != "nearest" && mode != "linear")
    return error(subject + ": mode '" + mode +
                 "' is not supported (nearest and linear are)");
  if (!llvm::is_contained({"half_pixel", "pytorch_half_pixel", "align_corners",
                           "asymmetric", "tf_half_pixel_for_nn"},
                          coordinates))
    return error(subject + ": coordinate_transformation_mode '" + coordinates +
                 "' is not supported (half_pixel, pytorch_half_pixel, "
                 "align_corners, asymmetric and tf_half_pixel_for_nn are)");
  if (!llvm::is_contained(
          {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"},
          rounding))
    return error(subject + ": nearest_mode '" + rounding +
                 "' is not supported");
  if (Importer::getInt(node, "antialias", 0) != 0 ||
      Importer::attribute(node, "axes") ||
      Importer::getString(node, "keep_aspect_ratio_policy", "stretch") !=
          "stretch")
    return error(subject + ": antialias, axes and keep_aspect_ratio_policy "
                           "are not supported");
  Type type = Importer::elementTypeOf(x);
  if (mode == "linear" && !type.isF32())
    return error(subject + ": linear mode needs a float input");
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  int64_t rank = xs.size();
  std::vector<int64_t> out(rank);
  std::vector<double> scales(rank);
  if (im.hasInput(node, 3)) {
    auto sizes = constantInts(im, node, 3);
    if (!sizes)
      return sizes.takeError();
    if (static_cast<int64_t>(sizes->size()) != rank)
      return error(subject + ": " + std::to_string(sizes->size()) +
                   " sizes for a rank-" + std::to_string(rank) + " input");
    out = *sizes;
    for (int64_t d = 0; d < rank; ++d)
      scales[d] = double(out[d]) / double(xs[d]);
  } else {
    const ConstantData *given = im.constant(node, 2);
    if (!given || !given->isFloat())
      return error(subject + ": its scales or sizes must be known at compile "
                             "time (tcl's shapes are static)");
    if (given->size() != rank)
      return error(subject + ": " + std::to_string(given->size()) +
                   " scales for a rank-" + std::to_string(rank) + " input");
    for (int64_t d = 0; d < rank; ++d) {
      scales[d] = given->floats[d];
      double size = std::floor(xs[d] * scales[d]);
      out[d] = size > 0 && size <= kMaxElements ? int64_t(size) : 0;
    }
  }
  for (int64_t d = 0; d < rank; ++d)
    if (out[d] < 1 || !(scales[d] > 0))
      return error(subject + ": resizing " + formatShape(xs) + " to " +
                   formatShape(out) +
                   " is not supported (empty results are not)");
  if (llvm::Error e = checkShape(subject, out))
    return e;
  // The dimensions that change, with what each output position reads.
  std::vector<std::pair<int64_t, ResizedAxis>> resized;
  for (int64_t d = 0; d < rank; ++d) {
    ResizedAxis axis;
    bool identity = out[d] == xs[d];
    for (int64_t o = 0; o < out[d]; ++o) {
      double source = resizeSource(coordinates, o, xs[d], out[d], scales[d]);
      int64_t lower, upper;
      float weight = 0;
      if (mode == "nearest") {
        double floor = std::floor(source);
        bool half = source - floor == 0.5;
        if (rounding == "floor" || (half && rounding == "round_prefer_floor"))
          lower = floor;
        else if (rounding == "ceil" || half)
          lower = std::ceil(source);
        else
          lower = std::round(source);
        lower = upper = std::clamp<int64_t>(lower, 0, xs[d] - 1);
      } else {
        source = std::clamp<double>(source, 0, xs[d] - 1);
        lower = std::floor(source);
        upper = std::min<int64_t>(lower + 1, xs[d] - 1);
        weight = source - lower;
      }
      identity &= lower == o && weight == 0;
      axis.lower.push_back(lower);
      axis.upper.push_back(upper);
      axis.weight.push_back(weight);
    }
    if (!identity)
      resized.emplace_back(d, std::move(axis));
  }
  if (resized.empty()) {
    im.define(node, x);
    return llvm::Error::success();
  }
  // The weights are generic inputs, each read along its output dimension;
  // the index tables are read in the body (tensor.extract at the loop's
  // index): MLIR's vectorizer counts a block argument as varying along
  // every loop, so image reads at indices from inputs became gathers,
  // while an index read at the index of an outer loop is invariant along
  // the innermost, and the image read along it a contiguous load (NHWC:
  // the channels).
  auto table = [&](int64_t d, ConstantData data) {
    data.shape = {out[d]};
    return im.materialize(data);
  };
  bool linear = mode == "linear";
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  // Each resized dimension's tables of lower and upper (linear) indices.
  SmallVector<std::pair<Value, Value>> indexTables;
  MLIRContext *ctx = im.b.getContext();
  for (auto &[d, axis] : resized) {
    ConstantData lower, upper, weight;
    lower.kind = upper.kind = ElementKind::Int;
    lower.ints = axis.lower;
    upper.ints = axis.upper;
    weight.floats = axis.weight;
    indexTables.emplace_back(table(d, lower),
                             linear ? table(d, upper) : Value());
    if (linear) {
      inputs.push_back(table(d, weight));
      maps.push_back(AffineMap::get(rank, 0, im.b.getAffineDimExpr(d), ctx));
    }
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  Value source = x;
  Value result = im.generic(
      inputs, im.empty(out, type), maps,
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        SmallVector<Value> loops;
        for (int64_t d = 0; d < rank; ++d)
          loops.push_back(b.create<linalg::IndexOp>(loc, d));
        // Entry `loops[d]` of an index table, as an index.
        auto read = [&](Value indexTable, int64_t d) -> Value {
          Value entry = b.create<tensor::ExtractOp>(loc, indexTable, loops[d]);
          return b.create<arith::IndexCastOp>(loc, b.getIndexType(), entry);
        };
        if (!linear) {
          SmallVector<Value> at = loops;
          for (auto [k, entry] : llvm::enumerate(resized))
            at[entry.first] = read(indexTables[k].first, entry.first);
          return b.create<tensor::ExtractOp>(loc, source, at);
        }
        // Linear: the weighted sum over the 2^k corners around the source.
        Value sum;
        for (unsigned corner = 0; corner < (1u << resized.size()); ++corner) {
          SmallVector<Value> at = loops;
          Value weight;
          for (auto [k, entry] : llvm::enumerate(resized)) {
            bool up = corner & (1u << k);
            at[entry.first] = read(
                up ? indexTables[k].second : indexTables[k].first, entry.first);
            Value w = args[k];
            if (!up)
              w = b.create<arith::SubFOp>(
                  loc, b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(1)),
                  w);
            weight = weight ? b.create<arith::MulFOp>(loc, weight, w) : w;
          }
          Value term = b.create<arith::MulFOp>(
              loc, weight, b.create<tensor::ExtractOp>(loc, source, at));
          sum = sum ? b.create<arith::AddFOp>(loc, sum, term) : term;
        }
        return sum;
      });
  im.define(node, result);
  return llvm::Error::success();
}

} // namespace

void onnx_import::registerDataMovementConverters(ConverterTable &table) {
  table.insert({
      {"Tile", convertTile},
      {"DepthToSpace", convertDepthToSpace},
      {"SpaceToDepth", convertSpaceToDepth},
      {"Pad", convertPad},
      {"Trilu", convertTrilu},
      {"Resize", convertResize},
  });
}
