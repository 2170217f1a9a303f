//===- PropagateLayout.cpp - Move layout transposes out of the way --------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The importer brackets every channels-last convolution and pool with
// NCHW->NHWC and NHWC->NCHW transposes. Between two convolutions sit
// elementwise ops (bias, ReLU, residual add): moving the trailing transpose
// below them lets it meet the next leading transpose, and the two compose
// to the identity.
//
//===----------------------------------------------------------------------===//

#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_PROPAGATELAYOUT
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;

namespace {

/// transpose(transpose(x)) -> transpose(x) with the composed permutation,
/// or x when it is the identity.
struct ComposeTransposes : public OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::TransposeOp outer,
                                PatternRewriter &rewriter) const override {
    auto inner = outer.getInput().getDefiningOp<linalg::TransposeOp>();
    if (!inner)
      return failure();
    // outer[i] = inner[.. i[p] ..]: result dim d is inner dim outerPerm[d],
    // which is source dim innerPerm[outerPerm[d]].
    SmallVector<int64_t> perm;
    for (int64_t d : outer.getPermutation())
      perm.push_back(inner.getPermutation()[d]);
    if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size()))) {
      rewriter.replaceOp(outer, inner.getInput());
      return success();
    }
    rewriter.replaceOpWithNewOp<linalg::TransposeOp>(outer, inner.getInput(),
                                                     outer.getInit(), perm);
    return success();
  }
};

/// A transpose whose users are only transposes and generics: moving it
/// below one of those generics does not add a transpose in the end.
static bool isMovable(linalg::TransposeOp transpose) {
  return llvm::all_of(transpose->getUsers(), [](Operation *user) {
    return isa<linalg::TransposeOp, linalg::GenericOp>(user);
  });
}

/// A generic whose full-size (identity-map) inputs are all transposes with
/// one permutation P is computed on the transposes' sources instead: loop d
/// of the old domain becomes loop P[d]. An all-parallel generic then writes
/// the source layout and a transpose after it restores the old result;
/// a generic with reductions keeps its output, read through the new loops.
struct SinkTransposeThroughGeneric
    : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics())
      return failure();
    std::optional<SmallVector<int64_t>> perm;
    SmallVector<Value> sources;
    for (OpOperand *input : op.getDpsInputOperands()) {
      Value replacement = input->get();
      if (op.getMatchingIndexingMap(input).isIdentity()) {
        auto transpose = input->get().getDefiningOp<linalg::TransposeOp>();
        if (!transpose || !isMovable(transpose))
          return failure();
        SmallVector<int64_t> p(transpose.getPermutation());
        if (perm && *perm != p)
          return failure();
        perm = p;
        replacement = transpose.getInput();
      }
      sources.push_back(replacement);
    }
    if (!perm)
      return failure();
    unsigned rank = perm->size();
    MLIRContext *ctx = op.getContext();
    // Old loop d is new loop P[d].
    SmallVector<AffineExpr> oldInNew;
    for (int64_t d : *perm)
      oldInNew.push_back(getAffineDimExpr(d, ctx));
    AffineMap substitution = AffineMap::get(rank, 0, oldInNew, ctx);

    SmallVector<AffineMap> maps;
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      maps.push_back(map.isIdentity()
                         ? AffineMap::getMultiDimIdentityMap(rank, ctx)
                         : map.compose(substitution));
    }
    SmallVector<utils::IteratorType> iterators(rank);
    for (unsigned d = 0; d < rank; ++d)
      iterators[(*perm)[d]] = op.getIteratorTypesArray()[d];

    OpOperand *init = op.getDpsInitOperand(0);
    AffineMap outputMap = op.getMatchingIndexingMap(init);
    bool elementwise = outputMap.isIdentity() &&
                       op.getNumReductionLoops() == 0 &&
                       !op.payloadUsesValueFromOperand(init);
    Value newInit = init->get();
    if (elementwise) {
      auto oldType = cast<RankedTensorType>(init->get().getType());
      SmallVector<int64_t> shape(rank);
      for (unsigned d = 0; d < rank; ++d)
        shape[(*perm)[d]] = oldType.getDimSize(d);
      newInit = rewriter.create<tensor::EmptyOp>(op.getLoc(), shape,
                                                 oldType.getElementType());
      maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
    } else {
      maps.push_back(outputMap.compose(substitution));
    }
    auto moved = rewriter.create<linalg::GenericOp>(
        op.getLoc(), TypeRange{newInit.getType()}, sources, ValueRange{newInit},
        maps, iterators);
    rewriter.inlineRegionBefore(op.getRegion(), moved.getRegion(),
                                moved.getRegion().begin());
    moved->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    if (!elementwise) {
      rewriter.replaceOp(op, moved.getResults());
      return success();
    }
    rewriter.replaceOpWithNewOp<linalg::TransposeOp>(op, moved.getResult(0),
                                                     init->get(), *perm);
    return success();
  }
};

struct PropagateLayoutPass
    : public mlir::tcl::impl::PropagateLayoutBase<PropagateLayoutPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ComposeTransposes, SinkTransposeThroughGeneric>(&getContext());
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
