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

/// A multi_reduction whose kept dimensions all have extent 1 (one row of a
/// softmax or a normalization, vectorized along the row) reduces its whole
/// source to one value: as a vector.reduction of the flattened source, which
/// LLVM lowers to a tree of vector ops (FP sums reassociated, as the
/// pipeline's vector-to-LLVM conversion allows). The InnerParallel lowering
/// would extract every element and combine them one by one: a chain of 64
/// dependent scalar ops for a row of 64 (a max pooling of 4x64x64 rows ran
/// at 5x the time of plain loops).
struct ReduceSingleRowAtOnce
    : public OpRewritePattern<vector::MultiDimReductionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::MultiDimReductionOp reduction,
                                PatternRewriter &rewriter) const override {
    VectorType source = reduction.getSourceVectorType();
    if (source.isScalable() || source.getRank() < 1 ||
        reduction->getParentOfType<vector::MaskOp>())
      return failure();
    SmallVector<bool> reduced = reduction.getReductionMask();
    for (auto [dim, size] : llvm::enumerate(source.getShape()))
      if (!reduced[dim] && size != 1)
        return failure();
    Location loc = reduction.getLoc();
    // Leading unit dims are dropped by an extract (a view of the row); a
    // shape_cast of several non-unit dims would be lowered element by element.
    auto flatType =
        VectorType::get({source.getNumElements()}, source.getElementType());
    ArrayRef<int64_t> leading = source.getShape().drop_back();
    Value flat = reduction.getSource();
    if (llvm::all_of(leading, [](int64_t size) { return size == 1; }))
      flat = rewriter.create<vector::ExtractOp>(
          loc, flat, SmallVector<int64_t>(leading.size(), 0));
    else
      flat = rewriter.create<vector::ShapeCastOp>(loc, flatType, flat);
    Value acc = reduction.getAcc();
    auto accType = dyn_cast<VectorType>(acc.getType());
    if (accType)
      acc = rewriter.create<vector::ExtractOp>(
          loc, acc, SmallVector<int64_t>(accType.getRank(), 0));
    Value result = rewriter.create<vector::ReductionOp>(
        loc, reduction.getKind(), flat, acc);
    if (accType)
      result = rewriter.create<vector::BroadcastOp>(loc, accType, result);
    rewriter.replaceOp(reduction, result);
    return success();
  }
};

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
    patterns.add<ReduceSingleRowAtOnce>(ctx, /*benefit=*/2);
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
