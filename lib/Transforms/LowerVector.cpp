//===- LowerVector.cpp - Vector lowering before LLVM conversion -----------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_LOWERVECTOR
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;

namespace {
struct LowerVectorPass
    : public mlir::tcl::impl::LowerVectorBase<LowerVectorPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // Contractions become outer products and those FMAs: the register-tile
    // form of a matmul (one broadcast of A times a row of B per k).
    vector::VectorTransformsOptions options;
    options.setVectorTransformsOptions(
        vector::VectorContractLowering::OuterProduct);
    options.setVectorMultiReductionLowering(
        vector::VectorMultiReductionLowering::InnerParallel);
    options.setVectorTransposeLowering(
        vector::VectorTransposeLowering::EltWise);

    RewritePatternSet patterns(ctx);
    vector::populateVectorToVectorCanonicalizationPatterns(patterns);
    vector::populateVectorContractLoweringPatterns(patterns, options);
    vector::populateVectorOuterProductLoweringPatterns(patterns);
    vector::populateVectorMultiReductionLoweringPatterns(
        patterns, options.vectorMultiReductionLowering);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorBroadcastLoweringPatterns(patterns);
    vector::populateVectorMaskOpLoweringPatterns(patterns);
    vector::populateVectorShapeCastLoweringPatterns(patterns);
    vector::populateVectorTransposeLoweringPatterns(patterns, options);
    vector::populateVectorTransferLoweringPatterns(patterns,
                                                   /*maxTransferRank=*/1);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
