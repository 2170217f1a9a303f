//===- LowerVector.cpp - Vector lowering before LLVM conversion -----------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
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

/// A math op on n-D vectors (n > 1) as one op a 1-D row: NVVM's conversion
/// lowers math ops to libdevice calls lane by lane on 1-D vectors only
/// (a fused epilogue's erf or exp on a register tile would stay
/// unconverted).
struct UnrollMathToRows : public RewritePattern {
  explicit UnrollMathToRows(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<math::MathDialect>(op->getDialect()) || op->getNumResults() != 1 ||
        op->getNumRegions() != 0)
      return failure();
    auto type = dyn_cast<VectorType>(op->getResult(0).getType());
    if (!type || type.getRank() < 2 || type.isScalable() ||
        llvm::any_of(op->getOperandTypes(),
                     [&](Type operand) { return operand != type; }))
      return failure();
    auto rowType =
        VectorType::get(type.getShape().back(), type.getElementType());
    ArrayRef<int64_t> leading = type.getShape().drop_back();
    Location loc = op->getLoc();
    Value result = rewriter.create<arith::ConstantOp>(
        loc, type, rewriter.getZeroAttr(type));
    SmallVector<int64_t> unit(leading.size(), 1);
    for (SmallVector<int64_t> position : StaticTileOffsetRange(leading, unit)) {
      SmallVector<Value> operands =
          llvm::map_to_vector(op->getOperands(), [&](Value operand) -> Value {
            return rewriter.create<vector::ExtractOp>(loc, operand, position);
          });
      OperationState state(loc, op->getName(), operands, {rowType},
                           op->getAttrs());
      Value computed = rewriter.create(state)->getResult(0);
      result =
          rewriter.create<vector::InsertOp>(loc, computed, result, position);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LowerVectorPass
    : public mlir::tcl::impl::LowerVectorBase<LowerVectorPass> {
  using LowerVectorBase::LowerVectorBase;
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
    if (unrollMath)
      patterns.add<UnrollMathToRows>(ctx);
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
