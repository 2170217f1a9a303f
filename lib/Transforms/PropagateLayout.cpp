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
// to the identity. A concatenation (a chain of insert_slices) is built in
// the layout of its parts, a gather (Resize) reads its source through the
// transpose's permutation and writes the layout its consumer wants, and the
// NCW views and causal pads between 1-D convolutions (2-D ones with H = 1)
// let the transposes through.
//
//===----------------------------------------------------------------------===//

#include "tcl/Support/PermutedBatchMatmul.h"
#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
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

/// `shape` without its unit dims.
static SmallVector<int64_t> getSqueezedShape(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> squeezed;
  for (int64_t extent : shape)
    if (extent != 1)
      squeezed.push_back(extent);
  return squeezed;
}

/// Whether `reshape` only adds or drops unit dims.
static bool isUnitDimReshape(Operation *reshape) {
  if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(reshape))
    return false;
  auto shapeOf = [](Value value) {
    return cast<RankedTensorType>(value.getType()).getShape();
  };
  return getSqueezedShape(shapeOf(reshape->getOperand(0))) ==
         getSqueezedShape(shapeOf(reshape->getResult(0)));
}

/// `value` (static shape) reshaped to `shape`, which has the same non-unit
/// extents in the same order: through the squeezed shape.
static Value reshapeUnitDims(PatternRewriter &rewriter, Location loc,
                             Value value, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  auto squeezedType =
      RankedTensorType::get(getSqueezedShape(shape), type.getElementType());
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  if (type != squeezedType)
    value = rewriter.create<tensor::CollapseShapeOp>(
        loc, squeezedType, value,
        *getReassociationIndicesForReshape(type, squeezedType));
  if (squeezedType != resultType)
    value = rewriter.create<tensor::ExpandShapeOp>(
        loc, resultType, value,
        *getReassociationIndicesForReshape(squeezedType, resultType));
  return value;
}

/// A transpose that moves only unit dims (the others keep their order) is a
/// reshape: transpose(x: 1x32x128, [1, 0, 2]) -> expand(collapse(x): 32x128)
/// (a batch-second encoder's input). A copy that moves no data.
struct TransposeOfUnitDimsAsReshape
    : public OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::TransposeOp transpose,
                                PatternRewriter &rewriter) const override {
    auto sourceType =
        dyn_cast<RankedTensorType>(transpose.getInput().getType());
    auto resultType = dyn_cast<RankedTensorType>(transpose.getInit().getType());
    if (!sourceType || !resultType || !sourceType.hasStaticShape() ||
        !transpose.hasPureTensorSemantics())
      return failure();
    // The source dims that are not unit dims, in the result's order.
    SmallVector<int64_t> kept;
    for (int64_t d : transpose.getPermutation())
      if (sourceType.getDimSize(d) != 1)
        kept.push_back(d);
    if (!llvm::is_sorted(kept))
      return failure();
    rewriter.replaceOp(transpose, reshapeUnitDims(rewriter, transpose.getLoc(),
                                                  transpose.getInput(),
                                                  resultType.getShape()));
    return success();
  }
};

/// A transpose whose users are only ops it can move below (transposes,
/// generics, concatenations' insert_slices, pads, reshapes): moving it below
/// one of them does not add a transpose in the end.
static bool isMovable(linalg::TransposeOp transpose) {
  return llvm::all_of(transpose->getUsers(), [](Operation *user) {
    return isa<linalg::TransposeOp, linalg::GenericOp, tensor::InsertSliceOp,
               tensor::PadOp, tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
        user);
  });
}

/// The map from new loops to old loops when old loop d becomes new loop
/// oldToNew[d]: old d_i = new d_{oldToNew[i]}.
static AffineMap getLoopSubstitution(ArrayRef<int64_t> oldToNew,
                                     MLIRContext *ctx) {
  SmallVector<AffineExpr> oldInNew;
  for (int64_t d : oldToNew)
    oldInNew.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(oldToNew.size(), 0, oldInNew, ctx);
}

/// Renumbers the linalg.index ops of `body` after its loops moved: old loop
/// d is new loop oldToNew[d].
static void renumberIndexOps(Region &body, ArrayRef<int64_t> oldToNew,
                             RewriterBase &rewriter) {
  SmallVector<linalg::IndexOp> indices;
  body.walk([&](linalg::IndexOp index) { indices.push_back(index); });
  for (linalg::IndexOp index : indices)
    rewriter.modifyOpInPlace(index,
                             [&] { index.setDim(oldToNew[index.getDim()]); });
}

/// Replaces `op` by transpose(input, perm) into a new empty tensor of op's
/// result type.
static void replaceWithTranspose(PatternRewriter &rewriter, Operation *op,
                                 Value input, ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  Value init = rewriter.create<tensor::EmptyOp>(op->getLoc(), type.getShape(),
                                                type.getElementType());
  rewriter.replaceOpWithNewOp<linalg::TransposeOp>(op, input, init, perm);
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
    AffineMap substitution = getLoopSubstitution(*perm, ctx);

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
    renumberIndexOps(moved.getRegion(), *perm, rewriter);
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

/// tensor.extract from a transpose reads its source: element i of
/// transpose(x, P) is element j of x with j[P[d]] = i[d]. A gather (the
/// generic of a Resize) then no longer needs its source transposed.
struct ExtractThroughTranspose : public OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractOp extract,
                                PatternRewriter &rewriter) const override {
    auto transpose = extract.getTensor().getDefiningOp<linalg::TransposeOp>();
    if (!transpose)
      return failure();
    SmallVector<Value> indices =
        applyPermutation(llvm::to_vector(extract.getIndices()),
                         invertPermutationVector(transpose.getPermutation()));
    rewriter.replaceOpWithNewOp<tensor::ExtractOp>(
        extract, transpose.getInput(), indices);
    return success();
  }
};

/// transpose(G) for an all-parallel generic G that reads no full-size input
/// elementwise (a gather, a broadcast: SinkTransposeThroughGeneric has
/// nothing to move through) and whose only user is the transpose: G's loops
/// are permuted so that it writes the transposed layout itself. Result dim
/// j of the transpose is G's loop Q[j]: old loop d becomes new loop
/// Q^-1[d].
struct WriteTransposedLayout : public OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::TransposeOp transpose,
                                PatternRewriter &rewriter) const override {
    auto op = transpose.getInput().getDefiningOp<linalg::GenericOp>();
    if (!op || op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics() ||
        !op->hasOneUse() || op.getNumReductionLoops() != 0)
      return failure();
    OpOperand *init = op.getDpsInitOperand(0);
    if (!op.getMatchingIndexingMap(init).isIdentity() ||
        op.payloadUsesValueFromOperand(init))
      return failure();
    if (llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *input) {
          return op.getMatchingIndexingMap(input).isIdentity();
        }))
      return failure();
    SmallVector<int64_t> oldToNew =
        invertPermutationVector(transpose.getPermutation());
    AffineMap substitution = getLoopSubstitution(oldToNew, op.getContext());
    SmallVector<AffineMap> maps;
    for (OpOperand *input : op.getDpsInputOperands())
      maps.push_back(op.getMatchingIndexingMap(input).compose(substitution));
    unsigned rank = oldToNew.size();
    maps.push_back(AffineMap::getMultiDimIdentityMap(rank, op.getContext()));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto moved = rewriter.create<linalg::GenericOp>(
        op.getLoc(), TypeRange{transpose.getInit().getType()},
        op.getDpsInputs(), ValueRange{transpose.getInit()}, maps, iterators);
    rewriter.inlineRegionBefore(op.getRegion(), moved.getRegion(),
                                moved.getRegion().begin());
    renumberIndexOps(moved.getRegion(), oldToNew, rewriter);
    moved->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    rewriter.replaceOp(transpose, moved.getResults());
    rewriter.eraseOp(op);
    return success();
  }
};

/// A concatenation (insert_slices into an empty tensor) of transposes with
/// one permutation P is built from their sources and transposed once:
/// insert_slice(transpose(a, P), dest) -> transpose(insert_slice(a, dest'),
/// P), where dest' is an empty tensor or the source of dest = transpose(d,
/// P) (the chain's previous step). A part that is not a transpose, inserted
/// into such a chain, is transposed by P^-1 first. The transpose after the
/// chain then meets the next consumer's (UNet: the skip connection's
/// concatenation between two channels-last convolutions).
struct SinkTransposeThroughInsertSlice
    : public OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::InsertSliceOp insert,
                                PatternRewriter &rewriter) const override {
    RankedTensorType destType = insert.getDestType();
    if (insert.getSourceType().getRank() != destType.getRank() ||
        !destType.hasStaticShape())
      return failure();
    auto sourceTranspose =
        insert.getSource().getDefiningOp<linalg::TransposeOp>();
    auto destTranspose = insert.getDest().getDefiningOp<linalg::TransposeOp>();
    bool destEmpty =
        insert.getDest().getDefiningOp<tensor::EmptyOp>() != nullptr;
    if (destTranspose && !destTranspose->hasOneUse())
      destTranspose = nullptr;
    std::optional<SmallVector<int64_t>> perm;
    if (destTranspose)
      perm = SmallVector<int64_t>(destTranspose.getPermutation());
    else if (sourceTranspose && destEmpty)
      perm = SmallVector<int64_t>(sourceTranspose.getPermutation());
    else
      return failure();
    if (sourceTranspose && sourceTranspose.getPermutation() != ArrayRef(*perm))
      sourceTranspose = nullptr;

    Location loc = insert.getLoc();
    // Dim d of the transposed (old) tensors is dim P[d] of the sources: the
    // sources' dims are the old ones in the order of P^-1.
    SmallVector<int64_t> inverse = invertPermutationVector(*perm);
    auto permute = [&](auto values) {
      return applyPermutation(ArrayRef(values), inverse);
    };
    Type elementType = destType.getElementType();
    Value source;
    if (sourceTranspose) {
      source = sourceTranspose.getInput();
    } else {
      RankedTensorType sourceType = insert.getSourceType();
      if (!sourceType.hasStaticShape())
        return failure();
      Value empty = rewriter.create<tensor::EmptyOp>(
          loc, permute(sourceType.getShape()), elementType);
      source = rewriter
                   .create<linalg::TransposeOp>(loc, insert.getSource(), empty,
                                                invertPermutationVector(*perm))
                   ->getResult(0);
    }
    Value dest;
    if (destTranspose)
      dest = destTranspose.getInput();
    else
      dest = rewriter.create<tensor::EmptyOp>(loc, permute(destType.getShape()),
                                              elementType);
    Value inserted = rewriter.create<tensor::InsertSliceOp>(
        loc, source, dest, permute(insert.getMixedOffsets()),
        permute(insert.getMixedSizes()), permute(insert.getMixedStrides()));
    replaceWithTranspose(rewriter, insert, inserted, *perm);
    return success();
  }
};

/// pad(transpose(x, P)) -> transpose(pad(x), P) with the padding of dim d
/// on dim P[d] (a 1-D convolution's causal padding, between the transposes
/// around its channels-last 2-D form). Only for a pad that feeds layout ops
/// (reshapes, transposes): a pad that a convolution reads stays next to it,
/// where its tiles fold it.
struct SinkTransposeThroughPad : public OpRewritePattern<tensor::PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::PadOp pad,
                                PatternRewriter &rewriter) const override {
    auto transpose = pad.getSource().getDefiningOp<linalg::TransposeOp>();
    Value padding = pad.getConstantPaddingValue();
    if (!transpose || !isMovable(transpose) || !padding || pad.getNofold() ||
        !pad.getResultType().hasStaticShape())
      return failure();
    if (!llvm::all_of(pad->getUsers(), [](Operation *user) {
          return isa<linalg::TransposeOp, tensor::ExpandShapeOp,
                     tensor::CollapseShapeOp>(user);
        }))
      return failure();
    ArrayRef<int64_t> perm = transpose.getPermutation();
    SmallVector<int64_t> inverse = invertPermutationVector(perm);
    SmallVector<OpFoldResult> low =
        applyPermutation(pad.getMixedLowPad(), inverse);
    SmallVector<OpFoldResult> high =
        applyPermutation(pad.getMixedHighPad(), inverse);
    Location loc = pad.getLoc();
    auto padded = rewriter.create<tensor::PadOp>(
        loc, /*resultType=*/Type(), transpose.getInput(), low, high, padding);
    replaceWithTranspose(rewriter, pad, padded.getResult(), perm);
    return success();
  }
};

/// collapse_shape(transpose(x, P)) -> transpose(collapse_shape(x), P') where
/// each group of collapsed dims comes from consecutive dims of x, in order
/// (NCHW with H = 1 -> NCW, the view of a 1-D convolution's result).
struct SinkTransposeThroughCollapse
    : public OpRewritePattern<tensor::CollapseShapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::CollapseShapeOp collapse,
                                PatternRewriter &rewriter) const override {
    auto transpose = collapse.getSrc().getDefiningOp<linalg::TransposeOp>();
    if (!transpose || !isMovable(transpose) ||
        !collapse.getResultType().hasStaticShape())
      return failure();
    ArrayRef<int64_t> perm = transpose.getPermutation();
    // Group k reads the dims of x starting at firstSource[k].
    SmallVector<ReassociationIndices> groups =
        collapse.getReassociationIndices();
    SmallVector<int64_t> firstSource;
    for (const ReassociationIndices &group : groups) {
      for (auto [i, d] : llvm::enumerate(group))
        if (perm[d] != perm[group.front()] + static_cast<int64_t>(i))
          return failure();
      firstSource.push_back(perm[group.front()]);
    }
    // The groups in the order of x's dims.
    SmallVector<int64_t> order =
        llvm::to_vector(llvm::seq<int64_t>(0, groups.size()));
    llvm::sort(order, [&](int64_t a, int64_t b) {
      return firstSource[a] < firstSource[b];
    });
    SmallVector<ReassociationIndices> sourceGroups;
    SmallVector<int64_t> newPerm(groups.size());
    for (auto [position, k] : llvm::enumerate(order)) {
      ReassociationIndices run;
      for (size_t i = 0; i < groups[k].size(); ++i)
        run.push_back(firstSource[k] + i);
      sourceGroups.push_back(run);
      newPerm[k] = position;
    }
    Location loc = collapse.getLoc();
    Value collapsed = rewriter.create<tensor::CollapseShapeOp>(
        loc, transpose.getInput(), sourceGroups);
    replaceWithTranspose(rewriter, collapse, collapsed, newPerm);
    return success();
  }
};

/// expand_shape(transpose(y, P)) -> transpose(expand_shape(y), P'): dim d of
/// the transpose, which is y's dim P[d], expands into the same sizes, now
/// in y's order (NCW -> NCHW with H = 1 before a 1-D convolution's
/// channels-last 2-D form).
struct SinkTransposeThroughExpand
    : public OpRewritePattern<tensor::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExpandShapeOp expand,
                                PatternRewriter &rewriter) const override {
    auto transpose = expand.getSrc().getDefiningOp<linalg::TransposeOp>();
    RankedTensorType type = expand.getResultType();
    if (!transpose || !isMovable(transpose) || !type.hasStaticShape())
      return failure();
    ArrayRef<int64_t> perm = transpose.getPermutation();
    SmallVector<int64_t> inverse = invertPermutationVector(perm);
    SmallVector<ReassociationIndices> groups = expand.getReassociationIndices();
    // y's dim j expands like the transpose's dim inverse[j]; offset[j] is
    // where its group starts in the new expanded tensor.
    SmallVector<ReassociationIndices> sourceGroups;
    SmallVector<int64_t> shape, offset(perm.size());
    for (auto [j, d] : llvm::enumerate(inverse)) {
      offset[j] = shape.size();
      ReassociationIndices run;
      for (int64_t k : groups[d]) {
        run.push_back(shape.size());
        shape.push_back(type.getDimSize(k));
      }
      sourceGroups.push_back(run);
    }
    SmallVector<int64_t> newPerm(type.getRank());
    for (auto [d, group] : llvm::enumerate(groups))
      for (auto [i, k] : llvm::enumerate(group))
        newPerm[k] = offset[perm[d]] + i;
    Location loc = expand.getLoc();
    Value expanded = rewriter.create<tensor::ExpandShapeOp>(
        loc, RankedTensorType::get(shape, type.getElementType()),
        transpose.getInput(), sourceGroups);
    replaceWithTranspose(rewriter, expand, expanded, newPerm);
    return success();
  }
};

/// expand_shape(collapse_shape(x)) through the finest shape both reshapes
/// share: the importer reshapes through a flat vector, and a flat vector of
/// a strided slice (one head's part of a fused QKV projection, 32x1x128 of
/// 32x1x384) is not a view: bufferization copies it. 32x1x128 -> 4096 ->
/// 32x4x32 becomes 32x1x128 -> 32x128 -> 32x4x32, two views.
struct ReshapeThroughCommonShape
    : public OpRewritePattern<tensor::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExpandShapeOp expand,
                                PatternRewriter &rewriter) const override {
    auto collapse = expand.getSrc().getDefiningOp<tensor::CollapseShapeOp>();
    if (!collapse || !collapse.getSrcType().hasStaticShape() ||
        !expand.getResultType().hasStaticShape())
      return failure();
    ArrayRef<int64_t> source = collapse.getSrcType().getShape();
    ArrayRef<int64_t> result = expand.getResultType().getShape();
    // Runs of source and result dims with equal products, shortest first.
    SmallVector<ReassociationIndices> sourceGroups, resultGroups;
    SmallVector<int64_t> common;
    size_t i = 0, j = 0;
    while (i < source.size() && j < result.size()) {
      ReassociationIndices sourceRun = {static_cast<int64_t>(i)};
      ReassociationIndices resultRun = {static_cast<int64_t>(j)};
      int64_t sourceProduct = source[i++], resultProduct = result[j++];
      while (sourceProduct != resultProduct) {
        if (sourceProduct < resultProduct && i < source.size()) {
          sourceProduct *= source[i];
          sourceRun.push_back(i++);
        } else if (sourceProduct > resultProduct && j < result.size()) {
          resultProduct *= result[j];
          resultRun.push_back(j++);
        } else {
          return failure();
        }
      }
      sourceGroups.push_back(sourceRun);
      resultGroups.push_back(resultRun);
      common.push_back(sourceProduct);
    }
    // Trailing unit dims join the last run.
    for (; i < source.size(); ++i)
      if (source[i] != 1 || sourceGroups.empty())
        return failure();
      else
        sourceGroups.back().push_back(i);
    for (; j < result.size(); ++j)
      if (result[j] != 1 || resultGroups.empty())
        return failure();
      else
        resultGroups.back().push_back(j);
    // Nothing finer than what is there (a flat vector, or these reshapes).
    if (common.size() <= 1 ||
        ArrayRef(common) == collapse.getResultType().getShape())
      return failure();
    // A side whose runs are single dims needs no reshape.
    auto isIdentity = [](ArrayRef<ReassociationIndices> groups) {
      return llvm::all_of(groups, [](const ReassociationIndices &group) {
        return group.size() == 1;
      });
    };
    auto commonType =
        RankedTensorType::get(common, expand.getResultType().getElementType());
    Value reshaped = collapse.getSrc();
    if (!isIdentity(sourceGroups))
      reshaped = rewriter.create<tensor::CollapseShapeOp>(
          collapse.getLoc(), commonType, reshaped, sourceGroups);
    if (isIdentity(resultGroups))
      rewriter.replaceOp(expand, reshaped);
    else
      rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
          expand, expand.getResultType(), reshaped, resultGroups);
    return success();
  }
};

/// A batch-matmul operand laid out as the tensor it is a transpose of.
struct OperandLayout {
  /// The loop of each dim, in the tensor's order.
  std::array<unsigned, 3> dims;
  /// The operand's shape in that order (the tensor's, up to unit dims).
  SmallVector<int64_t> shape;
};

/// The layout of a 3-D batch-matmul operand of `shape`, whose dims iterate
/// `dims`, when its non-unit dims, in order, are the dims `positionOf`
/// of the tensor it is read from or written to: sorted by those positions,
/// unit dims first (they can go anywhere).
static OperandLayout getTransposedLayout(ArrayRef<int64_t> shape,
                                         ArrayRef<int64_t> positionOf,
                                         const std::array<unsigned, 3> &dims) {
  SmallVector<int64_t> rank(shape.size(), -1);
  size_t next = 0;
  for (auto [d, extent] : llvm::enumerate(shape))
    if (extent != 1)
      rank[d] = positionOf[next++];
  SmallVector<int64_t> order =
      llvm::to_vector(llvm::seq<int64_t>(0, shape.size()));
  llvm::sort(order, [&](int64_t a, int64_t b) {
    return std::make_pair(rank[a], a) < std::make_pair(rank[b], b);
  });
  OperandLayout layout;
  for (auto [position, d] : llvm::enumerate(order)) {
    layout.dims[position] = dims[d];
    layout.shape.push_back(shape[d]);
  }
  return layout;
}

/// collapse_shape(extract_slice) that only drops unit dims -> a
/// rank-reducing extract_slice. memref.collapse_shape cannot merge a unit
/// dim whose stride is not its neighbour's extent times stride (a head's
/// 32x1x128 slice of a fused 32x1x384 QKV projection has strides [384, 384,
/// 1]), so bufferization would copy the slice; a rank-reducing subview
/// drops the unit dim with its stride.
struct CollapseOfSliceAsRankReducingSlice
    : public OpRewritePattern<tensor::CollapseShapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::CollapseShapeOp collapse,
                                PatternRewriter &rewriter) const override {
    auto slice = collapse.getSrc().getDefiningOp<tensor::ExtractSliceOp>();
    if (!slice || !isUnitDimReshape(collapse) ||
        !collapse.getResultType().hasStaticShape())
      return failure();
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        collapse, collapse.getResultType(), slice.getSource(),
        slice.getMixedOffsets(), slice.getMixedSizes(),
        slice.getMixedStrides());
    return success();
  }
};

/// linalg.batch_matmul (or tcl's form of it) reads its inputs and writes its
/// result in the layouts around it: an input that is a transpose, seen
/// through reshapes of unit dims, is read from the transpose's source; a
/// result whose one user is such a transpose is written in its layout
/// (attention's [S, H, D] <-> [H, S, D] copies of queries, values and
/// outputs). The right-hand side and the result keep n their innermost
/// dim, which the batch matmul's kernel loads and stores as vectors; a
/// transposed key ([S, H, D] read as [H, D, S]) keeps its transpose.
struct FoldTransposesIntoBatchMatmul
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<tcl::BatchMatmulLayout> layout;
    if (isa<linalg::BatchMatmulOp>(op))
      layout = tcl::BatchMatmulLayout();
    else
      layout = tcl::matchPermutedBatchMatmul(op);
    if (!layout || !op.hasPureTensorSemantics() ||
        llvm::any_of(op->getOperandTypes(), [](Type type) {
          return !cast<RankedTensorType>(type).hasStaticShape();
        }))
      return failure();
    Location loc = op.getLoc();
    bool changed = false;
    // Inputs.
    Value lhs = op.getDpsInputOperand(0)->get();
    Value rhs = op.getDpsInputOperand(1)->get();
    auto readInPlace = [&](Value &operand, std::array<unsigned, 3> &dims,
                           bool keepNInnermost) {
      Value value = operand;
      while (Operation *reshape = value.getDefiningOp()) {
        if (!isUnitDimReshape(reshape) || !reshape->hasOneUse())
          break;
        value = reshape->getOperand(0);
      }
      auto transpose = value.getDefiningOp<linalg::TransposeOp>();
      if (!transpose || !transpose->hasOneUse())
        return;
      // Non-unit dim j of the transpose's result is its source's dim
      // perm[d] for the j-th non-unit d.
      auto sourceType = cast<RankedTensorType>(transpose.getInput().getType());
      SmallVector<int64_t> positionOf;
      for (int64_t source : transpose.getPermutation())
        if (sourceType.getDimSize(source) != 1)
          positionOf.push_back(source);
      OperandLayout read = getTransposedLayout(
          cast<RankedTensorType>(operand.getType()).getShape(), positionOf,
          dims);
      if (keepNInnermost && read.dims[2] != tcl::kBatchMatmulN)
        return;
      operand =
          reshapeUnitDims(rewriter, loc, transpose.getInput(), read.shape);
      dims = read.dims;
      changed = true;
    };
    readInPlace(lhs, layout->lhs, /*keepNInnermost=*/false);
    readInPlace(rhs, layout->rhs, /*keepNInnermost=*/true);
    // The result, through reshapes of unit dims to one transpose.
    Value result = op->getResult(0);
    Operation *user = op.getOperation();
    linalg::TransposeOp transpose;
    while (user->getNumResults() == 1 && user->getResult(0).hasOneUse()) {
      Value value = user->getResult(0);
      user = *value.getUsers().begin();
      auto next = dyn_cast<linalg::TransposeOp>(user);
      if (next && next.getInput() == value) {
        transpose = next;
        break;
      }
      if (!isUnitDimReshape(user))
        break;
    }
    auto fill = op.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>();
    Value init = op.getDpsInitOperand(0)->get();
    bool writesInPlace = false;
    if (transpose && fill &&
        fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>()) {
      // Non-unit dim j of the result is the transpose's source dim s_j,
      // which goes to its result's dim inverse[s_j].
      SmallVector<int64_t> inverse =
          invertPermutationVector(transpose.getPermutation());
      auto sourceType = cast<RankedTensorType>(transpose.getInput().getType());
      SmallVector<int64_t> positionOf;
      for (int64_t s = 0; s < sourceType.getRank(); ++s)
        if (sourceType.getDimSize(s) != 1)
          positionOf.push_back(inverse[s]);
      OperandLayout written = getTransposedLayout(
          cast<RankedTensorType>(result.getType()).getShape(), positionOf,
          layout->result);
      if (written.dims[2] == tcl::kBatchMatmulN) {
        Value empty = rewriter.create<tensor::EmptyOp>(
            loc, written.shape, getElementTypeOrSelf(result.getType()));
        init = rewriter.create<linalg::FillOp>(loc, fill.getInputs()[0], empty)
                   .getResult(0);
        layout->result = written.dims;
        writesInPlace = true;
        changed = true;
      }
    }
    if (!changed)
      return failure();
    Value computed =
        tcl::buildBatchMatmul(rewriter, loc, lhs, rhs, init, *layout);
    if (!writesInPlace) {
      rewriter.replaceOp(op, computed);
      return success();
    }
    rewriter.replaceOp(
        transpose, reshapeUnitDims(
                       rewriter, loc, computed,
                       cast<RankedTensorType>(transpose->getResult(0).getType())
                           .getShape()));
    return success();
  }
};

struct PropagateLayoutPass
    : public mlir::tcl::impl::PropagateLayoutBase<PropagateLayoutPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // Before any transpose moves: one that is a reshape goes away.
    patterns.add<TransposeOfUnitDimsAsReshape>(&getContext(), /*benefit=*/2);
    patterns.add<ComposeTransposes, SinkTransposeThroughGeneric,
                 ExtractThroughTranspose, WriteTransposedLayout,
                 SinkTransposeThroughInsertSlice, SinkTransposeThroughPad,
                 SinkTransposeThroughCollapse, SinkTransposeThroughExpand,
                 FoldTransposesIntoBatchMatmul, ReshapeThroughCommonShape,
                 CollapseOfSliceAsRankReducingSlice>(&getContext());
    // The importer reshapes through a flat vector (collapse to 1-D, then
    // expand); composed, the reshapes only drop or add unit dims, which
    // the transposes move through.
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns,
                                                         &getContext());
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
