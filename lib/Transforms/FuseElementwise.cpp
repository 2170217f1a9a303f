//===- FuseElementwise.cpp - Merge chains of elementwise ops --------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

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
    linalg::populateFoldReshapeOpsByCollapsingPatterns(
        patterns, [](OpOperand *fused) {
          auto reshape = fused->get().getDefiningOp<tensor::ExpandShapeOp>();
          return reshape && reshape.getSrc().getDefiningOp<linalg::LinalgOp>();
        });
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
