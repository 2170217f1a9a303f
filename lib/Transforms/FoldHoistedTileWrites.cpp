//===- FoldHoistedTileWrites.cpp - Pieces written straight into a tile ----===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The vector pieces of a register tile (48 lanes = 32 + 16), once their
// accumulators are hoisted out of the reduction loops, are written back in
// an order that one-shot bufferization can only honour by copying the tile.
// Writing each piece straight into the tile keeps it in place (see the
// pass description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_FOLDHOISTEDTILEWRITES
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;

namespace {
/// insert_slice(transfer_write(%v, %slice), %dest[offsets]) ->
/// transfer_write(%v, %dest[offsets]) where %v covers %slice and %slice is
/// not a slice of %dest.
struct FoldHoistedTileWrite : OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::InsertSliceOp insert,
                                PatternRewriter &rewriter) const override {
    auto write = insert.getSource().getDefiningOp<vector::TransferWriteOp>();
    if (!write || write.getMask() || write.hasOutOfBoundsDim() ||
        !write.getPermutationMap().isMinorIdentity() || !insert.hasUnitStride())
      return failure();
    auto slice = write.getSource().getDefiningOp<tensor::ExtractSliceOp>();
    if (!slice || slice.getSource() == insert.getDest())
      return failure();
    auto sliceType = cast<RankedTensorType>(write.getSource().getType());
    if (!sliceType.hasStaticShape() ||
        sliceType.getShape() != write.getVectorType().getShape() ||
        !llvm::all_of(write.getIndices(), [](Value index) {
          return matchPattern(index, m_Zero());
        }))
      return failure();
    // The vector's dimensions are the destination's that the insert keeps.
    unsigned destRank = insert.getDestType().getRank();
    llvm::SmallBitVector dropped = insert.getDroppedDims();
    SmallVector<AffineExpr> vectorDims;
    for (unsigned dim = 0; dim < destRank; ++dim)
      if (!dropped[dim])
        vectorDims.push_back(rewriter.getAffineDimExpr(dim));
    AffineMap map =
        AffineMap::get(destRank, 0, vectorDims, rewriter.getContext());
    SmallVector<Value> offsets = getValueOrCreateConstantIndexOp(
        rewriter, insert.getLoc(), insert.getMixedOffsets());
    rewriter.replaceOpWithNewOp<vector::TransferWriteOp>(
        insert, write.getVector(), insert.getDest(), offsets,
        AffineMapAttr::get(map), /*mask=*/Value(), write.getInBoundsAttr());
    return success();
  }
};

struct FoldHoistedTileWritesPass
    : public tcl::impl::FoldHoistedTileWritesBase<FoldHoistedTileWritesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldHoistedTileWrite>(&getContext());
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
