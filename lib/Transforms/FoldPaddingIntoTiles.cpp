//===- FoldPaddingIntoTiles.cpp - tiles read the unpadded input -----------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// tcl.fold_padding_into_tiles: after tiling, the tiles of an op whose input
// is padded read the unpadded tensor where they lie inside it, and pad
// themselves at its sides, so that no padded copy of the whole input is
// built (see the op's description in TransformOps.td).
//
//===----------------------------------------------------------------------===//

#include "tcl/Transforms/TransformOps.h"

#include "mlir/Analysis/FlatLinearValueConstraints.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformTypes.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::tcl;

namespace {
/// An index as `constant + sum of coefficient * value`.
struct LinearIndex {
  int64_t constant = 0;
  SmallVector<std::pair<Value, int64_t>> terms;
};

/// Where a slice of a padded tensor lies inside its source along one
/// dimension, as a condition on the induction variable of `loop`:
/// `low <= outer + coefficient * iv + inner` and
/// `outer + coefficient * iv + inner + size <= low + rows` for every value
/// `inner` of the loops nested inside `loop` takes, in [innerMin, innerMax].
struct InteriorCondition {
  scf::ForOp loop;
  int64_t coefficient = 0;
  LinearIndex outer;
  int64_t innerMin = 0, innerMax = 0;
  int64_t size = 0, low = 0, rows = 0;
};
} // namespace

/// Marks on the slices of a padded tensor while the loops around them are
/// split (copied with the slices): the padded dimensions along which a
/// slice is known to lie inside the source, and those the loop being split
/// decides.
static constexpr StringLiteral kInteriorDimsAttrName = "__tcl_interior_dims";
static constexpr StringLiteral kSplitDimsAttrName = "__tcl_split_dims";
/// Marks a slice that may read the padding: it becomes a padded tile of its
/// own.
static constexpr StringLiteral kSideAttrName = "__tcl_side";

/// `offset` as a linear index of the values it is computed from through
/// affine.apply ops; none if it is not linear.
static std::optional<LinearIndex> getLinearIndex(OpFoldResult offset) {
  if (std::optional<int64_t> constant = getConstantIntValue(offset))
    return LinearIndex{*constant, {}};
  Value value = cast<Value>(offset);
  auto apply = value.getDefiningOp<affine::AffineApplyOp>();
  if (!apply)
    return LinearIndex{0, {{value, 1}}};
  AffineMap map = apply.getAffineMap();
  SmallVector<Value> operands(apply.getOperands());
  affine::fullyComposeAffineMapAndOperands(&map, &operands);
  SmallVector<int64_t> flat;
  if (map.getNumResults() != 1 ||
      failed(getFlattenedAffineExpr(map.getResult(0), map.getNumDims(),
                                    map.getNumSymbols(), &flat)) ||
      flat.size() != operands.size() + 1)
    return std::nullopt;
  LinearIndex index{flat.back(), {}};
  for (auto [value, coefficient] : llvm::zip(operands, flat)) {
    if (coefficient == 0)
      continue;
    Value operand = value;
    auto *term = llvm::find_if(
        index.terms, [&](auto &term) { return term.first == operand; });
    if (term != index.terms.end())
      term->second += coefficient;
    else
      index.terms.push_back({operand, coefficient});
  }
  return index;
}

/// A constant no greater (`upper`: no smaller) than every value `bound`
/// takes: a constant, or the max (min) of one with anything.
static std::optional<int64_t> getConstantBound(Value bound, bool upper) {
  if (std::optional<int64_t> constant = getConstantIntValue(bound))
    return constant;
  Operation *op = bound.getDefiningOp();
  if (!op || !(upper ? isa<arith::MinSIOp>(op) : isa<arith::MaxSIOp>(op)))
    return std::nullopt;
  std::optional<int64_t> lhs = getConstantBound(op->getOperand(0), upper);
  std::optional<int64_t> rhs = getConstantBound(op->getOperand(1), upper);
  if (lhs && rhs)
    return upper ? std::min(*lhs, *rhs) : std::max(*lhs, *rhs);
  return lhs ? lhs : rhs;
}

namespace {
/// Constants that bound a loop (getConstantBound) and its step.
struct ConstantLoopBounds {
  int64_t lower, upper, step;
};
} // namespace

static std::optional<ConstantLoopBounds>
getConstantLoopBounds(scf::ForOp loop) {
  std::optional<int64_t> lower = getConstantBound(loop.getLowerBound(), false);
  std::optional<int64_t> upper = getConstantBound(loop.getUpperBound(), true);
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lower || !upper || !step || *step <= 0)
    return std::nullopt;
  return ConstantLoopBounds{*lower, *upper, *step};
}

/// The smallest and largest values the induction variable of `loop` takes,
/// where constants bound them; none if the loop may not run.
static std::optional<std::pair<int64_t, int64_t>>
getIterationRange(scf::ForOp loop) {
  std::optional<ConstantLoopBounds> bounds = getConstantLoopBounds(loop);
  if (!bounds || bounds->upper <= bounds->lower)
    return std::nullopt;
  int64_t last = bounds->upper - 1;
  // With an exact start, the last value is a step's multiple from it (a
  // column loop 0 to 120 by 8 ends at 112).
  if (std::optional<int64_t> start = getConstantIntValue(loop.getLowerBound()))
    last = *start + (last - *start) / bounds->step * bounds->step;
  return std::make_pair(bounds->lower, last);
}

/// The smallest and largest values of `coefficient` times the induction
/// variable of `loop` (getIterationRange); none if the loop may not run.
static std::optional<std::pair<int64_t, int64_t>>
getScaledIterationRange(scf::ForOp loop, int64_t coefficient) {
  std::optional<std::pair<int64_t, int64_t>> range = getIterationRange(loop);
  if (!range)
    return std::nullopt;
  int64_t low = coefficient * range->first, high = coefficient * range->second;
  if (coefficient < 0)
    std::swap(low, high);
  return std::make_pair(low, high);
}

/// Whether `slice` takes a unit-stride, rank-preserving slice.
static bool isPlainSlice(Operation *op) {
  auto slice = dyn_cast<tensor::ExtractSliceOp>(op);
  return slice && slice.hasUnitStride() &&
         slice.getSourceType().getRank() == slice.getResultType().getRank();
}

/// The values that the offsets of the output tiles of the ops reading
/// `slice` are computed from: the induction variables of their tile loops.
static llvm::SmallPtrSet<Value, 8>
getOutputTileValues(tensor::ExtractSliceOp slice) {
  llvm::SmallPtrSet<Value, 8> values;
  for (Operation *user : slice->getUsers()) {
    auto consumer = dyn_cast<DestinationStyleOpInterface>(user);
    if (!consumer || consumer.getNumDpsInits() == 0)
      continue;
    // Up through slices of the output and the accumulators of reduction
    // loops (a kernel row's loop carries the output tile it adds to).
    Value output = consumer.getDpsInitOperand(0)->get();
    while (true) {
      if (auto outputSlice = output.getDefiningOp<tensor::ExtractSliceOp>()) {
        for (OpFoldResult offset : outputSlice.getMixedOffsets())
          if (std::optional<LinearIndex> index = getLinearIndex(offset))
            for (auto [value, coefficient] : index->terms)
              values.insert(value);
        output = outputSlice.getSource();
        continue;
      }
      auto iterArg = dyn_cast<BlockArgument>(output);
      auto loop = iterArg
                      ? dyn_cast<scf::ForOp>(iterArg.getOwner()->getParentOp())
                      : scf::ForOp();
      if (!loop || iterArg.getArgNumber() == 0)
        break;
      output = loop.getInitArgs()[iterArg.getArgNumber() - 1];
    }
  }
  return values;
}

/// The condition under which `slice` of `pad` lies inside the source along
/// `dim`, on the loop that decides it; none if it cannot be told.
static std::optional<InteriorCondition>
getInteriorCondition(tensor::PadOp pad, tensor::ExtractSliceOp slice,
                     unsigned dim) {
  std::optional<LinearIndex> index =
      getLinearIndex(slice.getMixedOffsets()[dim]);
  if (!index)
    return std::nullopt;
  // The loop: the innermost enclosing one whose induction variable moves the
  // slice forward and the output tile too. (Not a kernel-window loop: its
  // side taps would copy a padded tile for every input channel.)
  llvm::SmallPtrSet<Value, 8> outputValues = getOutputTileValues(slice);
  scf::ForOp loop;
  for (auto [value, coefficient] : index->terms) {
    auto owner = scf::getForInductionVarOwner(value);
    if (!owner || coefficient <= 0 || !owner->isProperAncestor(slice) ||
        !outputValues.contains(value))
      continue;
    if (!loop || loop->isProperAncestor(owner))
      loop = owner;
  }
  std::optional<int64_t> step =
      loop ? getConstantIntValue(loop.getStep()) : std::nullopt;
  if (!loop || !step || *step <= 0)
    return std::nullopt;
  InteriorCondition condition;
  condition.loop = loop;
  condition.outer.constant = index->constant;
  condition.size = slice.getStaticSizes()[dim];
  condition.low = pad.getStaticLow()[dim];
  condition.rows = pad.getSourceType().getDimSize(dim);
  if (ShapedType::isDynamic(condition.size))
    return std::nullopt;
  for (auto [value, coefficient] : index->terms) {
    if (value == loop.getInductionVar()) {
      condition.coefficient = coefficient;
      continue;
    }
    if (loop.isDefinedOutsideOfLoop(value)) {
      condition.outer.terms.push_back({value, coefficient});
      continue;
    }
    auto inner = scf::getForInductionVarOwner(value);
    if (!inner || !loop->isProperAncestor(inner) ||
        !getConstantLoopBounds(inner))
      return std::nullopt;
    std::optional<std::pair<int64_t, int64_t>> range =
        getScaledIterationRange(inner, coefficient);
    if (!range)
      continue; // The loop never runs.
    condition.innerMin += range->first;
    condition.innerMax += range->second;
  }
  return condition;
}

/// The share of a tiled op's work whose tiles must lie inside the unpadded
/// input (or be built with vectors) for its padding to be folded. Depthwise
/// 3x3, 8-column tiles, side tiles copied element by element (Zen 4): 112x112
/// maps (84% inside) ran faster folded, 56x56 (69%) as fast, 14x14 (0%)
/// slower; their side columns split off, all three (86%) run faster.
static constexpr double kMinInteriorFraction = 0.75;

/// The share of the iterations of `condition`'s loop for which it holds,
/// where the loop's bounds and the condition are constants.
static std::optional<double> getInteriorFraction(InteriorCondition condition) {
  std::optional<ConstantLoopBounds> bounds =
      getConstantLoopBounds(condition.loop);
  if (!bounds || bounds->upper <= bounds->lower)
    return std::nullopt;
  // Values from outside: each iteration of an outer tile loop counts (a
  // border tile row of an outer level is as much a side as one of this
  // level); others (a thread's offset) count as 0.
  SmallVector<int64_t> bases = {condition.outer.constant};
  for (auto [value, coefficient] : condition.outer.terms) {
    auto outerLoop = scf::getForInductionVarOwner(value);
    std::optional<ConstantLoopBounds> outer =
        outerLoop ? getConstantLoopBounds(outerLoop) : std::nullopt;
    if (!outer ||
        bases.size() * ((outer->upper - outer->lower) / outer->step + 1) > 4096)
      continue;
    SmallVector<int64_t> expanded;
    for (int64_t base : bases)
      for (int64_t iv = outer->lower; iv < outer->upper; iv += outer->step)
        expanded.push_back(base + coefficient * iv);
    bases = std::move(expanded);
  }
  int64_t total = 0, inside = 0;
  for (int64_t base : bases) {
    int64_t first = llvm::divideCeilSigned(
        condition.low - condition.innerMin - base, condition.coefficient);
    int64_t last =
        llvm::divideFloorSigned(condition.low + condition.rows -
                                    condition.size - condition.innerMax - base,
                                condition.coefficient);
    for (int64_t iv = bounds->lower; iv < bounds->upper; iv += bounds->step) {
      ++total;
      inside += iv >= first && iv <= last;
    }
  }
  return static_cast<double>(inside) / total;
}

/// The smallest and largest values `offset` takes, where it is linear in
/// induction variables of loops with constant bounds; none otherwise.
static std::optional<std::pair<int64_t, int64_t>>
getOffsetRange(OpFoldResult offset) {
  std::optional<LinearIndex> index = getLinearIndex(offset);
  if (!index)
    return std::nullopt;
  int64_t lowest = index->constant, highest = index->constant;
  for (auto [value, coefficient] : index->terms) {
    auto loop = scf::getForInductionVarOwner(value);
    std::optional<std::pair<int64_t, int64_t>> range =
        loop ? getScaledIterationRange(loop, coefficient) : std::nullopt;
    if (!range)
      return std::nullopt;
    lowest += range->first;
    highest += range->second;
  }
  return std::make_pair(lowest, highest);
}

/// Whether `slice` lies inside the source of `pad` along `dim` whatever the
/// loops do: an offset whose every value keeps it inside, or no padding
/// there.
static bool isInteriorAlways(tensor::PadOp pad, tensor::ExtractSliceOp slice,
                             unsigned dim) {
  int64_t low = pad.getStaticLow()[dim];
  if (low == 0 && pad.getStaticHigh()[dim] == 0)
    return true;
  OpFoldResult offset = slice.getMixedOffsets()[dim];
  int64_t size = slice.getStaticSizes()[dim];
  // A row a kernel tap reads that SkipZeroBorderTapsOp knows is inside.
  std::optional<LinearIndex> index = getLinearIndex(offset);
  auto readsInside = [&](const std::pair<Value, int64_t> &term) {
    auto loop = scf::getForInductionVarOwner(term.first);
    auto inside =
        loop ? loop->getAttrOfType<DenseI64ArrayAttr>(kTapsInsideAttrName)
             : DenseI64ArrayAttr();
    return inside && llvm::is_contained(inside.asArrayRef(), dim);
  };
  if (size == 1 && index && llvm::any_of(index->terms, readsInside))
    return true;
  std::optional<std::pair<int64_t, int64_t>> range = getOffsetRange(offset);
  return range && !ShapedType::isDynamic(size) && range->first >= low &&
         range->second + size <= low + pad.getSourceType().getDimSize(dim);
}

static SmallVector<int64_t> getDimsAttr(Operation *op, StringRef name) {
  if (auto dims = op->getAttrOfType<DenseI64ArrayAttr>(name))
    return SmallVector<int64_t>(dims.asArrayRef());
  return {};
}

/// The padded dimensions along which `slice` is not yet known to lie inside
/// the source of `pad`.
static SmallVector<unsigned> getOpenDims(tensor::PadOp pad,
                                         tensor::ExtractSliceOp slice) {
  SmallVector<int64_t> interior = getDimsAttr(slice, kInteriorDimsAttrName);
  SmallVector<unsigned> open;
  for (unsigned dim = 0; dim < slice.getResultType().getRank(); ++dim)
    if (!llvm::is_contained(interior, dim) &&
        !isInteriorAlways(pad, slice, dim))
      open.push_back(dim);
  return open;
}

/// `slice` of `pad` read from the source: directly where it lies inside it
/// along every dimension known so far to be inside (`direct`: every
/// dimension), else as a tile of the padding value with the part of the
/// source it covers inserted.
static void readFromSource(RewriterBase &rewriter, tensor::PadOp pad,
                           tensor::ExtractSliceOp slice, bool direct) {
  SmallVector<unsigned> open = getOpenDims(pad, slice);
  direct |= open.empty();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(slice);
  Location loc = slice.getLoc();
  AffineExpr d0, d1;
  bindDims(rewriter.getContext(), d0, d1);
  SmallVector<OpFoldResult> sourceOffsets, sizes, tileOffsets;
  RankedTensorType type = slice.getResultType();
  for (auto [dim, sliceOffset] : llvm::enumerate(slice.getMixedOffsets())) {
    OpFoldResult offset = sliceOffset;
    int64_t low = pad.getStaticLow()[dim];
    int64_t rows = pad.getSourceType().getDimSize(dim);
    OpFoldResult size = rewriter.getIndexAttr(type.getDimSize(dim));
    if (direct || !llvm::is_contained(open, dim)) {
      sourceOffsets.push_back(affine::makeComposedFoldedAffineApply(
          rewriter, loc, d0 - low, {offset}));
      sizes.push_back(size);
      tileOffsets.push_back(rewriter.getIndexAttr(0));
      continue;
    }
    // The rows [offset - low, offset - low + size) of the source, clamped
    // to [0, rows), land at their distance from offset - low.
    auto clamp = [&](AffineExpr expr) {
      AffineMap atLeast = AffineMap::get(
          1, 0, {expr, getAffineConstantExpr(0, expr.getContext())},
          rewriter.getContext());
      OpFoldResult raised =
          affine::makeComposedFoldedAffineMax(rewriter, loc, atLeast, {offset});
      AffineMap atMost = AffineMap::get(
          1, 0, {d0, getAffineConstantExpr(rows, rewriter.getContext())},
          rewriter.getContext());
      return affine::makeComposedFoldedAffineMin(rewriter, loc, atMost,
                                                 {raised});
    };
    OpFoldResult first = clamp(d0 - low);
    OpFoldResult end = clamp(d0 - low + type.getDimSize(dim));
    sourceOffsets.push_back(first);
    sizes.push_back(affine::makeComposedFoldedAffineApply(
        rewriter, loc, d1 - d0, {first, end}));
    tileOffsets.push_back(affine::makeComposedFoldedAffineApply(
        rewriter, loc, d0 - d1 + low, {first, offset}));
  }
  SmallVector<OpFoldResult> strides(type.getRank(), rewriter.getIndexAttr(1));
  Value padding = pad.getConstantPaddingValue();
  SmallVector<int64_t> staticSizes;
  for (OpFoldResult size : sizes)
    if (std::optional<int64_t> constant = getConstantIntValue(size))
      staticSizes.push_back(*constant);
  if (!direct && staticSizes.size() == sizes.size() &&
      !llvm::is_contained(staticSizes, 0)) {
    // A tile that covers a static part of the source (a tile at a side of
    // the map) is built with vectors: the padding value, the part over it.
    // (Element by element, these copies ran a depthwise convolution 1.5x
    // slower than the padded copy of its whole input.)
    Value empty = rewriter.create<tensor::EmptyOp>(loc, type.getShape(),
                                                   type.getElementType());
    auto tileVector = VectorType::get(type.getShape(), type.getElementType());
    auto partVector = VectorType::get(staticSizes, type.getElementType());
    Value zero = rewriter.create<arith::ConstantIndexOp>(loc, 0);
    SmallVector<Value> zeros(type.getRank(), zero);
    SmallVector<bool> inBounds(type.getRank(), true);
    Value filled =
        rewriter
            .create<vector::TransferWriteOp>(
                loc,
                rewriter.create<vector::BroadcastOp>(loc, tileVector, padding),
                empty, zeros, inBounds)
            .getResult();
    Value part = rewriter.create<vector::TransferReadOp>(
        loc, partVector, pad.getSource(),
        getValueOrCreateConstantIndexOp(rewriter, loc, sourceOffsets), padding,
        inBounds);
    Value tile =
        rewriter
            .create<vector::TransferWriteOp>(
                loc, part, filled,
                getValueOrCreateConstantIndexOp(rewriter, loc, tileOffsets),
                inBounds)
            .getResult();
    rewriter.replaceOp(slice, tile);
    return;
  }
  Value read = rewriter.create<tensor::ExtractSliceOp>(
      loc, pad.getSource(), sourceOffsets, sizes, strides);
  if (!direct) {
    Value empty = rewriter.create<tensor::EmptyOp>(loc, type.getShape(),
                                                   type.getElementType());
    Value filled =
        rewriter.create<linalg::FillOp>(loc, padding, empty).getResult(0);
    read = rewriter.create<tensor::InsertSliceOp>(loc, read, filled,
                                                  tileOffsets, sizes, strides);
  }
  if (read.getType() != type)
    read = rewriter.create<tensor::CastOp>(loc, type, read);
  rewriter.replaceOp(slice, read);
}

/// Splits `loop` into the iterations before `first`, those from `first` to
/// `end` and those after (both on the loop's grid or at its upper bound);
/// returns the three loops.
static std::array<scf::ForOp, 3>
splitLoop(RewriterBase &rewriter, scf::ForOp loop, Value first, Value end) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(loop);
  Value lowerBounds[] = {loop.getLowerBound(), first, end};
  Value upperBounds[] = {first, end, loop.getUpperBound()};
  SmallVector<Value> inits(loop.getInitArgs());
  std::array<scf::ForOp, 3> parts;
  for (unsigned part = 0; part < 3; ++part) {
    auto clone = cast<scf::ForOp>(rewriter.clone(*loop));
    rewriter.modifyOpInPlace(clone, [&] {
      clone.setLowerBound(lowerBounds[part]);
      clone.setUpperBound(upperBounds[part]);
      clone.getInitArgsMutable().assign(inits);
    });
    inits.assign(clone.getResults().begin(), clone.getResults().end());
    parts[part] = clone;
  }
  if (loop->getNumResults() == 0)
    rewriter.eraseOp(loop);
  else
    rewriter.replaceOp(loop, inits);
  return parts;
}

/// The bounds [first, end) of the iterations of `loop` for which every
/// condition holds, on the loop's grid and within its bounds.
static std::pair<Value, Value>
getInteriorIterations(RewriterBase &rewriter, scf::ForOp loop,
                      ArrayRef<InteriorCondition> conditions) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(loop);
  Location loc = loop.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  int64_t step = *getConstantIntValue(loop.getStep());
  // For each condition, the first and the last iteration in the interior:
  // iv >= ceil((low - innerMin - outer) / c) and
  // iv <= floor((low + rows - size - innerMax - outer) / c).
  SmallVector<OpFoldResult> firsts, lasts;
  for (const InteriorCondition &condition : conditions) {
    SmallVector<OpFoldResult> operands;
    AffineExpr outer = getAffineConstantExpr(condition.outer.constant, ctx);
    for (auto [value, coefficient] : condition.outer.terms) {
      outer = outer + getAffineDimExpr(operands.size(), ctx) * coefficient;
      operands.push_back(value);
    }
    unsigned numDims = operands.size();
    AffineExpr first = (condition.low - condition.innerMin - outer)
                           .ceilDiv(condition.coefficient);
    AffineExpr last = (condition.low + condition.rows - condition.size -
                       condition.innerMax - outer)
                          .floorDiv(condition.coefficient);
    firsts.push_back(affine::makeComposedFoldedAffineApply(
        rewriter, loc, AffineMap::get(numDims, 0, first), operands));
    lasts.push_back(affine::makeComposedFoldedAffineApply(
        rewriter, loc, AffineMap::get(numDims, 0, last), operands));
  }
  auto maxOf = [&](ArrayRef<OpFoldResult> values) {
    SmallVector<AffineExpr> exprs;
    for (unsigned i = 0; i < values.size(); ++i)
      exprs.push_back(getAffineDimExpr(i, ctx));
    return affine::makeComposedFoldedAffineMax(
        rewriter, loc, AffineMap::get(values.size(), 0, exprs, ctx), values);
  };
  auto minOf = [&](ArrayRef<OpFoldResult> values) {
    SmallVector<AffineExpr> exprs;
    for (unsigned i = 0; i < values.size(); ++i)
      exprs.push_back(getAffineDimExpr(i, ctx));
    return affine::makeComposedFoldedAffineMin(
        rewriter, loc, AffineMap::get(values.size(), 0, exprs, ctx), values);
  };
  OpFoldResult lower = loop.getLowerBound();
  OpFoldResult upper = loop.getUpperBound();
  AffineExpr lb = getAffineDimExpr(0, ctx), iv = getAffineDimExpr(1, ctx);
  // The first iteration on the grid at or after `first`, at least lb.
  OpFoldResult first = maxOf(
      {lower, affine::makeComposedFoldedAffineApply(
                  rewriter, loc,
                  AffineMap::get(2, 0, lb + (iv - lb).ceilDiv(step) * step),
                  {lower, maxOf(firsts)})});
  first = minOf({first, upper});
  // The first iteration on the grid after `last`.
  OpFoldResult end = affine::makeComposedFoldedAffineApply(
      rewriter, loc,
      AffineMap::get(2, 0, lb + ((iv - lb).floorDiv(step) + 1) * step),
      {lower, minOf(lasts)});
  end = minOf({maxOf({end, first}), upper});
  return {getValueOrCreateConstantIndexOp(rewriter, loc, first),
          getValueOrCreateConstantIndexOp(rewriter, loc, end)};
}

/// Removes `pad`, its slices reading its source (see FoldPaddingIntoTilesOp);
/// false where it leaves the pad as it is.
static bool foldPaddingIntoTiles(RewriterBase &rewriter, tensor::PadOp pad) {
  RankedTensorType sourceType = pad.getSourceType();
  if (!pad.getConstantPaddingValue() || !sourceType.hasStaticShape() ||
      !pad.getResultType().hasStaticShape() ||
      ShapedType::isDynamicShape(pad.getStaticLow()) ||
      ShapedType::isDynamicShape(pad.getStaticHigh()))
    return false;
  // Besides slices, the pad may feed what is dead: the op whose tiles were
  // fused into its consumer's loops stays until the next clean-up, and
  // takes the pad with it then.
  if (!llvm::all_of(pad->getUsers(), [](Operation *user) {
        return isPlainSlice(user) || isOpTriviallyDead(user);
      }))
    return false;

  // Slices of slices become slices of the padded tensor.
  SmallVector<tensor::ExtractSliceOp> worklist;
  for (Operation *user : pad->getUsers())
    if (isPlainSlice(user))
      worklist.push_back(cast<tensor::ExtractSliceOp>(user));
  AffineExpr d0, d1;
  bindDims(rewriter.getContext(), d0, d1);
  while (!worklist.empty()) {
    tensor::ExtractSliceOp outer = worklist.pop_back_val();
    if (outer->use_empty() || !llvm::all_of(outer->getUsers(), isPlainSlice))
      continue;
    for (Operation *user : llvm::make_early_inc_range(outer->getUsers())) {
      auto inner = cast<tensor::ExtractSliceOp>(user);
      rewriter.setInsertionPoint(inner);
      SmallVector<OpFoldResult> offsets;
      for (auto [outerOffset, innerOffset] :
           llvm::zip(outer.getMixedOffsets(), inner.getMixedOffsets()))
        offsets.push_back(affine::makeComposedFoldedAffineApply(
            rewriter, inner.getLoc(), d0 + d1, {outerOffset, innerOffset}));
      auto composed = rewriter.create<tensor::ExtractSliceOp>(
          inner.getLoc(), inner.getResultType(), pad.getResult(), offsets,
          inner.getMixedSizes(), inner.getMixedStrides());
      rewriter.replaceOp(inner, composed);
      worklist.push_back(composed);
    }
    rewriter.eraseOp(outer);
  }

  auto getSlices = [&] {
    SmallVector<tensor::ExtractSliceOp> slices;
    for (Operation *user : pad->getUsers())
      if (isPlainSlice(user))
        slices.push_back(cast<tensor::ExtractSliceOp>(user));
    return slices;
  };
  // Every slice must have static sizes, and each padded dimension a loop
  // that decides it or bounded offsets; else the pad stays. Nor where most
  // of the work (a slice's elements times its loops' trips) would be in
  // tiles that pad themselves (kMinInteriorFraction).
  double insideWork = 0, allWork = 0;
  for (tensor::ExtractSliceOp slice : getSlices()) {
    if (!slice.getResultType().hasStaticShape())
      return false;
    double inside = 1;
    for (unsigned dim : getOpenDims(pad, slice)) {
      std::optional<InteriorCondition> condition =
          getInteriorCondition(pad, slice, dim);
      // A slice whose offset no tile loop decides pads itself where it
      // crosses a side; at a constant offset (the side columns of a
      // convolution split there) its tile is built with vectors, at about
      // the cost of reading it: it counts as inside.
      if (!condition) {
        std::optional<std::pair<int64_t, int64_t>> range =
            getOffsetRange(slice.getMixedOffsets()[dim]);
        if (!range)
          return false;
        if (range->first != range->second)
          inside = 0;
        continue;
      }
      if (std::optional<double> fraction = getInteriorFraction(*condition))
        inside *= *fraction;
    }
    double work = slice.getResultType().getNumElements();
    for (auto loop = slice->getParentOfType<scf::ForOp>(); loop;
         loop = loop->getParentOfType<scf::ForOp>())
      if (std::optional<ConstantLoopBounds> bounds =
              getConstantLoopBounds(loop))
        work *= std::max<int64_t>(
            0, llvm::divideCeil(bounds->upper - bounds->lower, bounds->step));
    insideWork += inside * work;
    allWork += work;
  }
  if (allWork == 0 || insideWork < kMinInteriorFraction * allWork)
    return false;

  // Slices at a side of the source are rebuilt at the end: the loops that
  // run once must first fold away, for their offsets to become constants.
  auto isSide = [](tensor::ExtractSliceOp slice) {
    return slice->hasAttr(kSideAttrName);
  };
  auto markSide = [&](tensor::ExtractSliceOp slice) {
    slice->setAttr(kSideAttrName, rewriter.getUnitAttr());
  };
  while (true) {
    SmallVector<tensor::ExtractSliceOp> slices = getSlices();
    auto *next = llvm::find_if(
        slices, [&](tensor::ExtractSliceOp slice) { return !isSide(slice); });
    if (next == slices.end())
      break;
    tensor::ExtractSliceOp slice = *next;
    SmallVector<unsigned> open = getOpenDims(pad, slice);
    if (open.empty()) {
      readFromSource(rewriter, pad, slice, /*direct=*/true);
      continue;
    }
    // The outermost of the loops that decide its open dimensions is split
    // first, for every slice inside it that it decides.
    // (A dimension that no tile loop decides, across a side, stays open: the
    // slice pads itself there, whatever the loops.)
    scf::ForOp loop;
    bool analyzed = true;
    for (unsigned dim : open) {
      std::optional<InteriorCondition> condition =
          getInteriorCondition(pad, slice, dim);
      if (!condition) {
        analyzed &= getOffsetRange(slice.getMixedOffsets()[dim]).has_value();
        continue;
      }
      if (!loop || condition->loop->isProperAncestor(loop))
        loop = condition->loop;
    }
    if (!loop || !analyzed) {
      markSide(slice);
      continue;
    }
    SmallVector<InteriorCondition> conditions;
    for (tensor::ExtractSliceOp inside : getSlices()) {
      if (isSide(inside) || !loop->isProperAncestor(inside))
        continue;
      SmallVector<int64_t> splitDims;
      for (unsigned dim : getOpenDims(pad, inside)) {
        std::optional<InteriorCondition> condition =
            getInteriorCondition(pad, inside, dim);
        if (condition && condition->loop == loop) {
          conditions.push_back(*condition);
          splitDims.push_back(dim);
        }
      }
      if (!splitDims.empty())
        inside->setAttr(kSplitDimsAttrName,
                        rewriter.getDenseI64ArrayAttr(splitDims));
    }
    auto [first, end] = getInteriorIterations(rewriter, loop, conditions);
    std::array<scf::ForOp, 3> parts = splitLoop(rewriter, loop, first, end);
    for (tensor::ExtractSliceOp inside : getSlices()) {
      SmallVector<int64_t> splitDims = getDimsAttr(inside, kSplitDimsAttrName);
      if (splitDims.empty())
        continue;
      inside->removeAttr(kSplitDimsAttrName);
      if (!parts[1]->isProperAncestor(inside)) {
        markSide(inside);
        continue;
      }
      SmallVector<int64_t> interior =
          getDimsAttr(inside, kInteriorDimsAttrName);
      interior.append(splitDims);
      inside->setAttr(kInteriorDimsAttrName,
                      rewriter.getDenseI64ArrayAttr(interior));
    }
  }

  // Fold the loops that run once (with their offsets) and the bounds, then
  // rebuild the slices at the sides.
  SmallVector<Operation *> nests;
  for (tensor::ExtractSliceOp slice : getSlices()) {
    Operation *outermost = slice;
    for (Operation *parent = slice->getParentOp();
         parent && parent != pad->getParentOp(); parent = parent->getParentOp())
      if (isa<scf::ForOp>(parent))
        outermost = parent;
    if (!llvm::is_contained(nests, outermost))
      nests.push_back(outermost);
  }
  SmallVector<Operation *> foldable;
  for (Operation *nest : nests)
    nest->walk([&](Operation *op) {
      if (isa<scf::ForOp, affine::AffineApplyOp, affine::AffineMinOp,
              affine::AffineMaxOp>(op) ||
          isa<arith::ArithDialect>(op->getDialect()))
        foldable.push_back(op);
    });
  RewritePatternSet patterns(rewriter.getContext());
  scf::ForOp::getCanonicalizationPatterns(patterns, rewriter.getContext());
  affine::AffineApplyOp::getCanonicalizationPatterns(patterns,
                                                     rewriter.getContext());
  affine::AffineMinOp::getCanonicalizationPatterns(patterns,
                                                   rewriter.getContext());
  affine::AffineMaxOp::getCanonicalizationPatterns(patterns,
                                                   rewriter.getContext());
  GreedyRewriteConfig config;
  config.strictMode = GreedyRewriteStrictness::ExistingAndNewOps;
  if (OpBuilder::Listener *listener = rewriter.getListener();
      listener && listener->getKind() ==
                      OpBuilder::ListenerBase::Kind::RewriterBaseListener)
    config.listener = static_cast<RewriterBase::Listener *>(listener);
  (void)applyOpPatternsAndFold(foldable, std::move(patterns), config);
  for (tensor::ExtractSliceOp slice : getSlices())
    readFromSource(rewriter, pad, slice, /*direct=*/false);
  for (Operation *dead : llvm::make_early_inc_range(pad->getUsers()))
    rewriter.eraseOp(dead);
  rewriter.eraseOp(pad);
  return true;
}

DiagnosedSilenceableFailure
FoldPaddingIntoTilesOp::apply(transform::TransformRewriter &rewriter,
                              transform::TransformResults &,
                              transform::TransformState &state) {
  SmallVector<tensor::PadOp> pads;
  for (Operation *op : state.getPayloadOps(getTarget())) {
    auto target = dyn_cast<linalg::LinalgOp>(op);
    if (!target || !target.hasPureTensorSemantics() ||
        target.getNumDpsInputs() == 0)
      continue;
    Value input = target.getDpsInputOperand(0)->get();
    while (auto slice = input.getDefiningOp<tensor::ExtractSliceOp>())
      input = slice.getSource();
    if (auto pad = input.getDefiningOp<tensor::PadOp>())
      if (!llvm::is_contained(pads, pad))
        pads.push_back(pad);
  }
  for (tensor::PadOp pad : pads)
    foldPaddingIntoTiles(rewriter, pad);
  return DiagnosedSilenceableFailure::success();
}

void FoldPaddingIntoTilesOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::consumesHandle(getTargetMutable(), effects);
  transform::modifiesPayload(effects);
}
