//===- FoldConstants.cpp - Evaluate linalg ops on constants ---------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Support/Indexing.h"
#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_FOLDCONSTANTS
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;
using namespace mlir::tcl;

namespace {

/// linalg.transpose of a constant -> the permuted constant.
struct FoldConstantTranspose : public OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    DenseElementsAttr input;
    if (!matchPattern(op.getInput(), m_Constant(&input)))
      return failure();
    auto resultType = cast<RankedTensorType>(op.getResult()[0].getType());
    if (input.isSplat()) {
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(
          op, resultType, input.resizeSplat(resultType));
      return success();
    }
    ArrayRef<int64_t> perm = op.getPermutation();
    SmallVector<int64_t> inStrides =
        rowMajorStrides(cast<ShapedType>(input.getType()).getShape());
    auto values = llvm::to_vector(input.getValues<Attribute>());
    SmallVector<Attribute> permuted;
    permuted.reserve(values.size());
    forEachIndex(resultType.getShape(), [&](ArrayRef<int64_t> index) {
      int64_t offset = 0;
      for (size_t d = 0; d < perm.size(); ++d)
        offset += index[d] * inStrides[perm[d]];
      permuted.push_back(values[offset]);
    });
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, resultType, DenseElementsAttr::get(resultType, permuted));
    return success();
  }
};

/// An all-parallel generic whose inputs are all constants -> a constant,
/// computed by folding its body's ops element by element.
struct FoldConstantGeneric : public OpRewritePattern<linalg::GenericOp> {
  FoldConstantGeneric(MLIRContext *ctx, int64_t maxElements)
      : OpRewritePattern(ctx), maxElements(maxElements) {}

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 0 ||
        !op.hasPureTensorSemantics() ||
        op.payloadUsesValueFromOperand(op.getDpsInitOperand(0)))
      return failure();
    auto resultType = dyn_cast<RankedTensorType>(op.getResult(0).getType());
    if (!resultType || !resultType.hasStaticShape() ||
        resultType.getNumElements() > maxElements ||
        !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity())
      return failure();
    SmallVector<SmallVector<Attribute>> inputs;
    SmallVector<SmallVector<int64_t>> inputStrides;
    for (OpOperand *input : op.getDpsInputOperands()) {
      DenseElementsAttr value;
      if (!matchPattern(input->get(), m_Constant(&value)))
        return failure();
      inputs.push_back(llvm::to_vector(value.getValues<Attribute>()));
      inputStrides.push_back(
          rowMajorStrides(cast<ShapedType>(value.getType()).getShape()));
    }
    Block &body = op.getRegion().front();
    SmallVector<Attribute> results;
    results.reserve(resultType.getNumElements());
    bool folded = true;
    forEachIndex(resultType.getShape(), [&](ArrayRef<int64_t> index) {
      if (!folded)
        return;
      DenseMap<Value, Attribute> known;
      for (auto [i, input] : llvm::enumerate(op.getDpsInputOperands())) {
        SmallVector<int64_t> at =
            op.getMatchingIndexingMap(input).compose(index);
        int64_t offset = 0;
        for (auto [position, stride] : llvm::zip(at, inputStrides[i]))
          offset += position * stride;
        known[body.getArgument(i)] =
            inputs[i].size() == 1 ? inputs[i][0] : inputs[i][offset];
      }
      Attribute result = evaluate(body, known);
      if (!result) {
        folded = false;
        return;
      }
      results.push_back(result);
    });
    if (!folded)
      return rewriter.notifyMatchFailure(op, "the body does not fold");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, resultType, DenseElementsAttr::get(resultType, results));
    return success();
  }

  /// The value the body yields, given its arguments' values; null if an op
  /// does not fold to a constant.
  static Attribute evaluate(Block &body, DenseMap<Value, Attribute> &known) {
    auto valueOf = [&](Value value) -> Attribute {
      if (Attribute attr = known.lookup(value))
        return attr;
      Attribute constant;
      if (matchPattern(value, m_Constant(&constant)))
        return constant;
      return nullptr;
    };
    for (Operation &op : body.without_terminator()) {
      SmallVector<Attribute> operands;
      for (Value operand : op.getOperands())
        operands.push_back(valueOf(operand));
      SmallVector<OpFoldResult> folded;
      if (op.getNumResults() != 1 || failed(op.fold(operands, folded)) ||
          folded.size() != 1)
        return nullptr;
      Attribute result = isa<Attribute>(folded[0])
                             ? cast<Attribute>(folded[0])
                             : valueOf(cast<Value>(folded[0]));
      if (!result)
        return nullptr;
      known[op.getResult(0)] = result;
    }
    return valueOf(body.getTerminator()->getOperand(0));
  }

  int64_t maxElements;
};

struct FoldConstantsPass
    : public mlir::tcl::impl::FoldConstantsBase<FoldConstantsPass> {
  using FoldConstantsBase::FoldConstantsBase;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<FoldConstantTranspose>(ctx);
    patterns.add<FoldConstantGeneric>(ctx, maxElements);
    tensor::populateFoldConstantExtractSlicePatterns(
        patterns, [](tensor::ExtractSliceOp) { return true; });
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
