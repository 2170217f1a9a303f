//===- CollapseContiguousLoops.cpp - One long loop for contiguous ops -----===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The linalg ops no schedule vectorized (fills and copies around padding,
// elementwise ops outside tasks) become loop nests whose innermost loop is
// the innermost dimension: 3 channels for an image, 16 or 64 for a feature
// map. LLVM fully unrolls such a short loop and then vectorizes the next one
// out, with gathers and scatters of stride 3 or 64. Merging the loops whose
// elements are adjacent in every operand gives LLVM one long contiguous loop
// instead, which it vectorizes with plain loads and stores.
//
//===----------------------------------------------------------------------===//

#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_COLLAPSECONTIGUOUSLOOPS
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;

namespace {

/// Whether `op` is an elementwise op on buffers whose loops can merge: all
/// parallel, static, over projected-permutation maps, with no linalg.index
/// (its values would need delinearizing).
bool isCollapsible(linalg::LinalgOp op) {
  if (!isa<linalg::GenericOp, linalg::CopyOp, linalg::FillOp>(op) ||
      !op.hasPureBufferSemantics() || op.getNumLoops() < 2 ||
      op.getNumLoops() != op.getNumParallelLoops() || op.hasDynamicShape())
    return false;
  if (!llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isProjectedPermutation(); }))
    return false;
  auto generic = dyn_cast<linalg::GenericOp>(*op);
  return !generic || !generic.hasIndexSemantics();
}

/// Whether loops `outer` and `outer + 1` of `op` are adjacent in every
/// operand: each map that reads them has them as adjacent results, and the
/// buffer's stride of the outer one is the inner one's stride times its size
/// (static strides), so that one index walks both.
bool areAdjacentEverywhere(linalg::LinalgOp op, unsigned outer) {
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    std::optional<unsigned> outerResult =
        map.getResultPosition(getAffineDimExpr(outer, op->getContext()));
    std::optional<unsigned> innerResult =
        map.getResultPosition(getAffineDimExpr(outer + 1, op->getContext()));
    if (!outerResult && !innerResult)
      continue; // A broadcast along both loops.
    if (!outerResult || !innerResult || *innerResult != *outerResult + 1)
      return false;
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type)
      return false;
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(getStridesAndOffset(type, strides, offset)))
      return false;
    int64_t outerStride = strides[*outerResult];
    int64_t innerStride = strides[*innerResult];
    int64_t innerSize = type.getDimSize(*innerResult);
    if (ShapedType::isDynamic(outerStride) ||
        ShapedType::isDynamic(innerStride) ||
        outerStride != innerStride * innerSize)
      return false;
  }
  return true;
}

/// The op's loops grouped into runs that are adjacent everywhere, outermost
/// first; empty if no two loops merge.
SmallVector<ReassociationIndices> getLoopGroups(linalg::LinalgOp op) {
  SmallVector<ReassociationIndices> groups;
  bool merges = false;
  for (unsigned loop = 0, e = op.getNumLoops(); loop < e; ++loop) {
    if (loop > 0 && areAdjacentEverywhere(op, loop - 1)) {
      groups.back().push_back(loop);
      merges = true;
      continue;
    }
    groups.push_back({static_cast<int64_t>(loop)});
  }
  if (!merges)
    return {};
  return groups;
}

struct CollapseContiguousLoopsPass
    : public mlir::tcl::impl::CollapseContiguousLoopsBase<
          CollapseContiguousLoopsPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> candidates;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isCollapsible(op))
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : candidates) {
      SmallVector<ReassociationIndices> groups = getLoopGroups(op);
      if (groups.empty() ||
          !linalg::areDimSequencesPreserved(op.getIndexingMapsArray(), groups))
        continue;
      rewriter.setInsertionPoint(op);
      // Upstream collapses generics and copies (and crashes on a generalized
      // fill's scalar operand); a fill's loops are its buffer's dimensions.
      if (auto fill = dyn_cast<linalg::FillOp>(*op)) {
        Value buffer = rewriter.create<memref::CollapseShapeOp>(
            fill.getLoc(), fill.getOutputs()[0], groups);
        rewriter.replaceOpWithNewOp<linalg::FillOp>(fill, fill.getInputs(),
                                                    buffer);
        continue;
      }
      // A refusal leaves the op as it is: its loops are correct, only
      // shorter. Upstream checks every buffer operand against the grouping
      // of the loops as if all loops indexed it, so an operand of lower rank
      // with a strided layout (a fused epilogue's bias slice) is refused.
      FailureOr<linalg::CollapseResult> collapsed =
          linalg::collapseOpIterationDims(op, groups, rewriter);
      if (failed(collapsed))
        continue;
      // Ops on buffers have no results to replace.
      rewriter.eraseOp(op);
    }
  }
};

} // namespace
