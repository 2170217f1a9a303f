//===- TransformOps.cpp - tcl's transform dialect extension ---------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Transforms/TransformOps.h"
#include "tcl/Support/GroupedConv.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformTypes.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::tcl;

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
  // Input [N, H, W, 1, C] -> [N, W, C]; filter [1, KH, KW, C, F] ->
  // [KW, C, F]; output [N, OH, OW, 1, F] -> [N, OW, F] (or H for W).
  Value newInput = tensor::createCanonicalRankReducingExtractSliceOp(
      rewriter, loc, input, dropUnitDims(typeOf(input), {spatial, 3}));
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
  llvm::sort(
      loops, [&](scf::ForOp a, scf::ForOp b) { return depth(a) > depth(b); });
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
