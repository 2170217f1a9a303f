//===- TransformOps.cpp - tcl's transform dialect extension ---------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Transforms/TransformOps.h"
#include "PaddedSlices.h"
#include "VectorPieces.h"
#include "tcl/Support/GroupedConv.h"
#include "tcl/Transforms/Passes.h"

#include "mlir/Analysis/FlatLinearValueConstraints.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformTypes.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::tcl;

/// Whether the padding of `op`'s input is worth folding into its tiles: a
/// depthwise convolution or a pooling does a tap's few operations for each
/// input element, so the padded copy costs as much as the op (Zen 4, 1
/// thread, folded vs not: depthwise 3x3/2 96 @112 18-20 -> 42-45 GFLOP/s).
/// A grouped convolution of few channels a group does not many more (16
/// groups of 8 channels, 3x3/2 @56: the copy took a third of the time);
/// folded with its side columns split off, it ran 20-25% faster (Zen 5, 1
/// and 2 threads; folded without that split, 20-35% slower). It folds where
/// the copy would be made: not where its input was computed into an empty
/// tensor, which tcl-write-into-consumers makes the middle of the padded
/// one (RegNet-Y's 1x1 convolutions before their grouped ones), so no copy
/// is made. Not a full convolution: beside its many multiply-adds for each
/// element the copy is cheap, and tiles that pad themselves cost more
/// (ResNet-18's 7x7/2 stem 83-96 vs 103-110 GFLOP/s; 3x3 512->512 @7,
/// whose tiles span the map, 2.2x slower).
bool mlir::tcl::isPaddingWorthFolding(Operation *op) {
  auto pad = op->getOperand(0).getDefiningOp<tensor::PadOp>();
  if (!pad)
    return false;
  if (isa<linalg::DepthwiseConv2DNhwcHwcOp, linalg::PoolingNhwcMaxOp,
          linalg::PoolingNhwcSumOp>(op))
    return true;
  std::optional<GroupedConvWindow> grouped = matchGroupedConv(op);
  return grouped && !grouped->sharedInput &&
         !isComputedIntoEmptyTensor(pad.getSource());
}

std::optional<PaddedSideColumns>
mlir::tcl::getPaddedSideColumns(linalg::LinalgOp op, unsigned columnDim,
                                unsigned windowDim, int64_t columns,
                                int64_t kernelColumns) {
  auto pad = op->getOperand(0).getDefiningOp<tensor::PadOp>();
  if (!pad || !pad.getSourceType().hasStaticShape() ||
      ShapedType::isDynamicShape(pad.getStaticLow()) ||
      ShapedType::isDynamicShape(pad.getStaticHigh()))
    return std::nullopt;
  // Input W is dimension 2 of NHWC (and of the grouped form's NHWGC); the
  // W loops are the op's. Its index is `stride * ow + dilation * kw`, read
  // off the indexing map, which every window op has (the grouped form has
  // no stride attributes).
  constexpr unsigned kInputW = 2;
  AffineMap inputMap = op.getIndexingMapsArray()[0];
  SmallVector<int64_t> coefficients;
  if (inputMap.getNumResults() <= kInputW ||
      failed(getFlattenedAffineExpr(inputMap.getResult(kInputW),
                                    inputMap.getNumDims(), 0, &coefficients)))
    return std::nullopt;
  int64_t stride = coefficients[columnDim];
  int64_t dilation = coefficients[windowDim];
  int64_t low = pad.getStaticLow()[kInputW];
  if (stride <= 0 || dilation <= 0 || pad.getStaticHigh()[kInputW] + low == 0)
    return std::nullopt;
  int64_t inputColumns = pad.getSourceType().getDimSize(kInputW);
  // Output column c reads input columns [c * stride - low, ... +
  // (kernelColumns - 1) * dilation]: inside for c in [first, last].
  int64_t first = llvm::divideCeil(low, stride);
  int64_t lastInside = llvm::divideFloorSigned(
      inputColumns - 1 - (kernelColumns - 1) * dilation + low, stride);
  return PaddedSideColumns{first, lastInside - first + 1,
                           columns - 1 - lastInside};
}

/// `type` without dimensions `dims` (all of extent 1).
static RankedTensorType dropUnitDims(RankedTensorType type,
                                     ArrayRef<unsigned> dims) {
  SmallVector<int64_t> shape;
  for (auto [dim, extent] : llvm::enumerate(type.getShape()))
    if (!llvm::is_contained(dims, dim))
      shape.push_back(extent);
  return RankedTensorType::get(shape, type.getElementType());
}

DiagnosedSilenceableFailure DecomposeGroupedConvOp::applyToOne(
    transform::TransformRewriter &rewriter, linalg::LinalgOp target,
    transform::ApplyToEachResultList &results, transform::TransformState &) {
  std::optional<GroupedConvWindow> window = matchGroupedConv(target);
  if (!window || !target.hasPureTensorSemantics())
    return emitDefaultSilenceableFailure(target)
           << "is not a grouped 2-D convolution on tensors";
  SmallVector<int64_t> extents = target.getStaticLoopRanges();
  auto isUnit = [&](unsigned output, unsigned window) {
    return extents[output] == 1 && extents[window] == 1;
  };
  // The H pair first, as the schedule verifier (DecomposeOp) assumes.
  bool dropHeight = isUnit(kGroupedOH, kGroupedKH);
  if (extents[kGroupedG] != 1 ||
      (!dropHeight && !isUnit(kGroupedOW, kGroupedKW)))
    return emitDefaultSilenceableFailure(target)
           << "needs the group loop and the H or W (output, kernel) loops at "
              "extent 1";
  // Operand dimensions that go: the dropped spatial one and the group.
  unsigned spatial = dropHeight ? 1 : 2;
  Location loc = target.getLoc();
  Value input = target.getDpsInputOperand(0)->get();
  Value filter = target.getDpsInputOperand(1)->get();
  Value output = target.getDpsInitOperand(0)->get();
  auto typeOf = [](Value value) {
    return cast<RankedTensorType>(value.getType());
  };
  rewriter.setInsertionPoint(target);
  // Input [N, H, W, 1, C] (or [N, H, W, C]) -> [N, W, C]; filter
  // [1, KH, KW, C, F] -> [KW, C, F]; output [N, OH, OW, 1, F] -> [N, OW, F]
  // (or H for W).
  Value newInput = tensor::createCanonicalRankReducingExtractSliceOp(
      rewriter, loc, input,
      dropUnitDims(typeOf(input),
                   getGroupedConvInputDropDims(*window, spatial)));
  Value newFilter = tensor::createCanonicalRankReducingExtractSliceOp(
      rewriter, loc, filter, dropUnitDims(typeOf(filter), {0, spatial}));
  RankedTensorType newOutputType = dropUnitDims(typeOf(output), {spatial, 3});
  Value newOutput = tensor::createCanonicalRankReducingExtractSliceOp(
      rewriter, loc, output, newOutputType);
  unsigned kept = dropHeight ? 1 : 0;
  auto conv = rewriter.create<linalg::Conv1DNwcWcfOp>(
      loc, newOutputType, ValueRange{newInput, newFilter},
      ValueRange{newOutput}, rewriter.getI64VectorAttr({window->strides[kept]}),
      rewriter.getI64VectorAttr({window->dilations[kept]}));
  Value inserted = tensor::createCanonicalRankReducingInsertSliceOp(
      rewriter, loc, conv.getResult(0), output);
  rewriter.replaceOp(target, inserted);
  results.push_back(conv);
  return DiagnosedSilenceableFailure::success();
}

/// The canonicalization patterns of every loaded dialect and registered op,
/// with those that fold the affine.min of tile sizes within loops.
static FrozenRewritePatternSet getPeelingCleanupPatterns(MLIRContext *ctx) {
  RewritePatternSet patterns(ctx);
  for (Dialect *dialect : ctx->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : ctx->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, ctx);
  scf::populateSCFForLoopCanonicalizationPatterns(patterns);
  return FrozenRewritePatternSet(std::move(patterns));
}

DiagnosedSilenceableFailure
PeelPartialLoopsOp::apply(transform::TransformRewriter &rewriter,
                          transform::TransformResults &,
                          transform::TransformState &state) {
  SmallVector<scf::ForOp> loops;
  for (Operation *op : state.getPayloadOps(getTarget()))
    if (auto loop = dyn_cast<scf::ForOp>(op))
      loops.push_back(loop);
  // Innermost first: peeling a loop copies its body, inner peels included.
  auto depth = [](Operation *op) {
    unsigned result = 0;
    for (Operation *parent = op->getParentOp(); parent;
         parent = parent->getParentOp())
      ++result;
    return result;
  };
  llvm::sort(loops,
             [&](scf::ForOp a, scf::ForOp b) { return depth(a) > depth(b); });
  SmallVector<scf::ForOp> peeled;
  for (scf::ForOp loop : loops) {
    std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (!lower || !upper || !step || *step <= 1 ||
        (*upper - *lower) % *step == 0)
      continue;
    scf::ForOp remainder;
    rewriter.setInsertionPoint(loop);
    if (failed(scf::peelForLoopAndSimplifyBounds(rewriter, loop, remainder)))
      continue;
    // The remainder runs once, at the peeled loop's new upper bound: its
    // tile offsets and sizes become constants.
    rewriter.setInsertionPoint(remainder);
    Value start = rewriter.create<arith::ConstantIndexOp>(
        remainder.getLoc(), *upper - (*upper - *lower) % *step);
    rewriter.replaceAllUsesWith(remainder.getInductionVar(), start);
    peeled.append({loop, remainder});
  }
  if (peeled.empty())
    return DiagnosedSilenceableFailure::success();

  // Fold the now constant tile sizes into static types (and the remainder
  // loops of inner dimensions into their bodies) inside the outermost loops
  // peeled. Those loops themselves stay: they may be all that encloses a
  // copy of the nest, and a schedule's clean-ups work within loops.
  SmallVector<scf::ForOp> outermost;
  for (scf::ForOp loop : peeled)
    if (llvm::none_of(peeled, [&](scf::ForOp other) {
          return other != loop && other->isProperAncestor(loop);
        }))
      outermost.push_back(loop);
  FrozenRewritePatternSet patterns = getPeelingCleanupPatterns(getContext());
  GreedyRewriteConfig config;
  // Handles follow the ops that canonicalization replaces.
  if (OpBuilder::Listener *listener = rewriter.getListener();
      listener && listener->getKind() ==
                      OpBuilder::ListenerBase::Kind::RewriterBaseListener)
    config.listener = static_cast<RewriterBase::Listener *>(listener);
  for (scf::ForOp loop : outermost)
    (void)applyPatternsAndFoldGreedily(loop.getRegion(), patterns, config);
  return DiagnosedSilenceableFailure::success();
}

void PeelPartialLoopsOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getTargetMutable(), effects);
  transform::modifiesPayload(effects);
}

//===----------------------------------------------------------------------===//
// SkipZeroBorderTapsOp
//===----------------------------------------------------------------------===//

namespace {
/// A spatial dimension of a convolution: its input operand's dimension and
/// its filter operand's kernel-window dimension.
struct ConvWindowDim {
  unsigned input;
  unsigned filter;
};

/// One offset along a dimension in a chain of slices, as a function of a
/// loop's induction variable: `base + coefficient * iv`, `base` built
/// before the loop.
struct LinearOffset {
  Value base;
  int64_t coefficient = 0;
};
} // namespace

/// The H and W window dimensions of the convolutions and poolings whose
/// border taps can be skipped (none for other ops).
static SmallVector<ConvWindowDim> getConvWindowDims(linalg::LinalgOp op) {
  // A pooling's second input is its window: [KH, KW].
  if (isa<linalg::Conv2DNhwcHwcfOp, linalg::DepthwiseConv2DNhwcHwcOp,
          linalg::PoolingNhwcMaxOp, linalg::PoolingNhwcSumOp>(op))
    return {{1, 0}, {2, 1}};
  // Input [N, H, W, G, C], filter [G, KH, KW, C, F].
  if (matchGroupedConv(op))
    return {{1, 1}, {2, 2}};
  return {};
}

/// Whether a tap of `op` that reads only `padding` changes nothing: -inf
/// for a max pooling, zero for a convolution's products and a sum pooling.
static bool isNeutralPadding(linalg::LinalgOp op, Value padding) {
  if (isa<linalg::PoolingNhwcMaxOp>(op)) {
    FloatAttr value;
    return matchPattern(padding, m_Constant(&value)) &&
           value.getValue().isInfinity() && value.getValue().isNegative();
  }
  return isZeroConstant(padding);
}

/// The tensor padded with `op`'s neutral value (isNeutralPadding) that
/// `value` is a chain of unit-stride slices of (getPaddedSource), with the
/// slices' offsets along `dim`; null if there is none.
static tensor::PadOp getNeutralPadding(linalg::LinalgOp op, Value value,
                                       unsigned dim,
                                       SmallVector<OpFoldResult> &offsets) {
  // Along the same dimension: the callers index the pad by `dim`.
  unsigned padDim = dim;
  tensor::PadOp pad = getPaddedSource(value, padDim, offsets);
  if (!pad || padDim != dim ||
      !isNeutralPadding(op, pad.getConstantPaddingValue()))
    return {};
  return pad;
}

/// `offset` as `base + coefficient * iv` of `loop`'s induction variable,
/// its base built before the loop: a constant, a value defined outside the
/// loop, the induction variable, or an affine.apply of those.
static std::optional<LinearOffset>
getLinearOffset(RewriterBase &rewriter, scf::ForOp loop, OpFoldResult offset) {
  Location loc = loop.getLoc();
  Value iv = loop.getInductionVar();
  if (std::optional<int64_t> constant = getConstantIntValue(offset))
    return LinearOffset{rewriter.create<arith::ConstantIndexOp>(loc, *constant),
                        0};
  Value value = cast<Value>(offset);
  if (loop.isDefinedOutsideOfLoop(value))
    return LinearOffset{value, 0};
  if (value == iv)
    return LinearOffset{rewriter.create<arith::ConstantIndexOp>(loc, 0), 1};
  auto apply = value.getDefiningOp<affine::AffineApplyOp>();
  if (!apply || !llvm::all_of(apply.getOperands(), [&](Value operand) {
        return operand == iv || loop.isDefinedOutsideOfLoop(operand);
      }))
    return std::nullopt;
  // The base is the map at iv = 0; the coefficient its change from 0 to 1
  // (with the other operands at 0), which must double from 0 to 2.
  AffineMap map = apply.getAffineMap();
  auto evaluate = [&](int64_t ivValue) -> std::optional<int64_t> {
    SmallVector<Attribute> operands;
    for (Value operand : apply.getOperands())
      operands.push_back(
          rewriter.getIndexAttr(operand == iv ? ivValue : int64_t(0)));
    SmallVector<Attribute> results;
    if (map.getNumResults() != 1 || failed(map.constantFold(operands, results)))
      return std::nullopt;
    auto result = dyn_cast<IntegerAttr>(results.front());
    if (!result)
      return std::nullopt;
    return result.getInt();
  };
  std::optional<int64_t> at0 = evaluate(0), at1 = evaluate(1),
                         at2 = evaluate(2);
  if (!at0 || !at1 || !at2 || *at2 - *at0 != 2 * (*at1 - *at0))
    return std::nullopt;
  SmallVector<Value> operands(apply.getOperands());
  Value zero = rewriter.create<arith::ConstantIndexOp>(loc, 0);
  for (Value &operand : operands)
    if (operand == iv)
      operand = zero;
  Value base = rewriter.create<affine::AffineApplyOp>(loc, map, operands);
  return LinearOffset{base, *at1 - *at0};
}

/// Narrows the loop of `target`'s window dimension `dim` to the taps whose
/// input is not all border; false if it cannot tell which they are.
static bool skipZeroBorderTaps(RewriterBase &rewriter, linalg::LinalgOp target,
                               ConvWindowDim dim) {
  Value filter = target.getDpsInputOperand(1)->get();
  auto filterSlice = filter.getDefiningOp<tensor::ExtractSliceOp>();
  auto filterType = dyn_cast<RankedTensorType>(filter.getType());
  if (!filterSlice || !filterType || filterType.getDimSize(dim.filter) != 1)
    return false;
  auto tap = dyn_cast<Value>(filterSlice.getMixedOffsets()[dim.filter]);
  auto loop =
      tap ? dyn_cast_or_null<scf::ForOp>(scf::getForInductionVarOwner(tap))
          : scf::ForOp();
  std::optional<int64_t> step =
      loop ? getConstantIntValue(loop.getStep()) : std::nullopt;
  if (!loop || step != 1 || !loop->isProperAncestor(target))
    return false;
  // Skipping an iteration skips the target's contribution and nothing else.
  bool alone = true;
  loop.getBody()->walk([&](linalg::LinalgOp op) {
    alone &= op.getOperation() == target.getOperation();
  });
  if (!alone)
    return false;

  Value input = target.getDpsInputOperand(0)->get();
  auto inputType = dyn_cast<RankedTensorType>(input.getType());
  SmallVector<OpFoldResult> offsets;
  tensor::PadOp pad = getNeutralPadding(target, input, dim.input, offsets);
  if (!pad || !inputType || inputType.isDynamicDim(dim.input) ||
      pad.getSourceType().isDynamicDim(dim.input) ||
      ShapedType::isDynamic(pad.getStaticLow()[dim.input]))
    return false;

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(loop);
  Location loc = loop.getLoc();
  // The tile reads rows [offset, offset + span) of the padded input, the
  // rows [low, low + rows) of which are not padding.
  Value base = rewriter.create<arith::ConstantIndexOp>(loc, 0);
  int64_t coefficient = 0;
  for (OpFoldResult offset : offsets) {
    std::optional<LinearOffset> linear =
        getLinearOffset(rewriter, loop, offset);
    if (!linear)
      return false;
    base = rewriter.create<arith::AddIOp>(loc, base, linear->base);
    coefficient += linear->coefficient;
  }
  if (coefficient <= 0)
    return false;
  int64_t span = inputType.getDimSize(dim.input);
  int64_t low = pad.getStaticLow()[dim.input];
  int64_t rows = pad.getSourceType().getDimSize(dim.input);
  auto constant = [&](int64_t value) {
    return rewriter.create<arith::ConstantIndexOp>(loc, value);
  };
  // A tap iv reads some row that is not padding iff
  // base + c * iv + span > low and base + c * iv < low + rows.
  Value first = rewriter.create<arith::AddIOp>(
      loc,
      rewriter.create<arith::FloorDivSIOp>(
          loc, rewriter.create<arith::SubIOp>(loc, constant(low - span), base),
          constant(coefficient)),
      constant(1));
  Value end = rewriter.create<arith::CeilDivSIOp>(
      loc, rewriter.create<arith::SubIOp>(loc, constant(low + rows), base),
      constant(coefficient));
  Value lower =
      rewriter.create<arith::MaxSIOp>(loc, loop.getLowerBound(), first);
  Value upper = rewriter.create<arith::MinSIOp>(loc, loop.getUpperBound(), end);
  rewriter.modifyOpInPlace(loop, [&] {
    loop.setLowerBound(lower);
    loop.setUpperBound(upper);
    // A tap that reads one row and not only padding reads inside.
    if (span == 1)
      loop->setAttr(kTapsInsideAttrName,
                    rewriter.getDenseI64ArrayAttr({int64_t(dim.input)}));
  });
  return true;
}

DiagnosedSilenceableFailure
SkipZeroBorderTapsOp::apply(transform::TransformRewriter &rewriter,
                            transform::TransformResults &,
                            transform::TransformState &state) {
  for (Operation *op : state.getPayloadOps(getTarget())) {
    auto target = dyn_cast<linalg::LinalgOp>(op);
    if (!target || !target.hasPureTensorSemantics())
      continue;
    for (ConvWindowDim dim : getConvWindowDims(target))
      skipZeroBorderTaps(rewriter, target, dim);
  }
  return DiagnosedSilenceableFailure::success();
}

void SkipZeroBorderTapsOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getTargetMutable(), effects);
  transform::modifiesPayload(effects);
}

/// The loop of `op` that indexes its first output's innermost dimension
/// (SplitVectorRemaindersOp), if that is a plain loop index.
static std::optional<unsigned> getVectorDim(linalg::LinalgOp op) {
  if (op.getNumDpsInits() == 0)
    return std::nullopt;
  AffineMap map = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (map.getNumResults() == 0)
    return std::nullopt;
  auto dim = dyn_cast<AffineDimExpr>(map.getResults().back());
  if (!dim)
    return std::nullopt;
  return dim.getPosition();
}

DiagnosedSilenceableFailure
SplitVectorRemaindersOp::apply(transform::TransformRewriter &rewriter,
                               transform::TransformResults &results,
                               transform::TransformState &state) {
  SmallVector<Operation *> pieces;
  for (Operation *op : state.getPayloadOps(getTarget())) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    std::optional<unsigned> dim =
        linalgOp ? getVectorDim(linalgOp) : std::nullopt;
    if (!dim) {
      pieces.push_back(op);
      continue;
    }
    int64_t extent = linalgOp.getStaticLoopRanges()[*dim];
    SmallVector<int64_t> sizes = {extent};
    if (!ShapedType::isDynamic(extent) && extent > 0)
      sizes = getVectorPieces(extent);
    // Each split leaves the rest as an op whose domain starts at 0.
    auto rest = cast<TilingInterface>(op);
    for (int64_t size : ArrayRef(sizes).drop_back()) {
      rewriter.setInsertionPoint(rest);
      auto [first, second] =
          linalg::splitOp(rewriter, rest, *dim, rewriter.getIndexAttr(size));
      pieces.push_back(first);
      rest = second;
    }
    pieces.push_back(rest);
  }
  results.set(cast<OpResult>(getPieces()), pieces);
  return DiagnosedSilenceableFailure::success();
}

void SplitVectorRemaindersOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::consumesHandle(getTargetMutable(), effects);
  transform::producesHandle(getOperation()->getOpResults(), effects);
  transform::modifiesPayload(effects);
}

#define GET_OP_CLASSES
#include "tcl/Transforms/TransformOps.cpp.inc"

namespace {
class TclTransformExtension
    : public transform::TransformDialectExtension<TclTransformExtension> {
public:
  using Base::Base;

  void init() {
    declareGeneratedDialect<linalg::LinalgDialect>();
    declareGeneratedDialect<tensor::TensorDialect>();
    declareGeneratedDialect<scf::SCFDialect>();
    declareGeneratedDialect<affine::AffineDialect>();
    declareGeneratedDialect<vector::VectorDialect>();
    registerTransformOps<
#define GET_OP_LIST
#include "tcl/Transforms/TransformOps.cpp.inc"
        >();
  }
};
} // namespace

void mlir::tcl::registerTransformDialectExtension(DialectRegistry &registry) {
  registry.addExtensions<TclTransformExtension>();
}
