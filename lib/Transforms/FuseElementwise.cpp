//===- FuseElementwise.cpp - Merge chains of elementwise ops --------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Support/GroupedConv.h"
#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;

namespace {

/// Fuse a producer into its consumer only if nothing is computed twice: the
/// producer has this one use, and the consumer reads each of its elements
/// once (a permutation map, no broadcast).
bool fusesWithoutRecomputation(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  if (!producer || !producer->hasOneUse())
    return false;
  auto consumer = dyn_cast<linalg::GenericOp>(fused->getOwner());
  return consumer && consumer.getMatchingIndexingMap(fused).isPermutation();
}

/// Whether `value` is computed in a shape finer than the one its consumers
/// read through a collapse, possibly through elementwise generics that
/// already compute in that shape: a grouped convolution's result
/// ([N, OH, OW, G, F]) or a Winograd output transform's
/// ([N, OH/m, m, OW/m, m, F]).
bool isComputedUncollapsed(Value value, unsigned depth = 0) {
  auto generic = value.getDefiningOp<linalg::GenericOp>();
  if (!generic || depth > 8)
    return false;
  if (tcl::matchGroupedConv(generic) ||
      generic->hasAttr(tcl::kWinogradOutputAttrName))
    return true;
  if (generic.getNumReductionLoops() != 0)
    return false;
  return llvm::any_of(generic.getDpsInputOperands(), [&](OpOperand *input) {
    return input->get().getType() == value.getType() &&
           generic.getMatchingIndexingMap(input).isIdentity() &&
           isComputedUncollapsed(input->get(), depth + 1);
  });
}

struct FuseElementwisePass
    : public mlir::tcl::impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    linalg::populateElementwiseOpsFusionPatterns(patterns,
                                                 fusesWithoutRecomputation);
    // generic(expand_shape(matmul)) -> expand_shape(generic'(matmul)): an
    // epilogue behind a reshape (MatMul of [B, M, K] by [K, N] is computed
    // as [B*M, K] x [K, N]) is computed in the producer's shape, so that it
    // can join the producer's task.
    // (Not for an epilogue of a grouped convolution or a Winograd output
    // transform, which the expansion below computes in their shape: the two
    // would undo each other forever.)
    linalg::populateFoldReshapeOpsByCollapsingPatterns(
        patterns, [](OpOperand *fused) {
          auto reshape = fused->get().getDefiningOp<tensor::ExpandShapeOp>();
          // The patterns also offer pads (tensor.pad of an expand_shape);
          // a pad stays after the reshape.
          auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
          return reshape && consumer &&
                 reshape.getSrc().getDefiningOp<linalg::LinalgOp>() &&
                 llvm::none_of(consumer.getDpsInputOperands(),
                               [](OpOperand *input) {
                                 return isComputedUncollapsed(input->get());
                               });
        });
    // generic(collapse_shape(grouped conv)) -> collapse_shape(generic'(...)):
    // a grouped convolution computes [N, OH, OW, G, F/G], collapsed to the
    // channels (a Winograd output transform [N, OH/m, m, OW/m, m, F],
    // collapsed to rows and columns); its epilogue is computed in the
    // uncollapsed shape, so that it can join the convolution's task.
    linalg::populateFoldReshapeOpsByExpansionPatterns(
        patterns, [](OpOperand *fused) {
          auto reshape = fused->get().getDefiningOp<tensor::CollapseShapeOp>();
          return reshape && isComputedUncollapsed(reshape.getSrc());
        });
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
