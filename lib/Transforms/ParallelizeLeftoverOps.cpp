//===- ParallelizeLeftoverOps.cpp - Leftover elementwise ops on threads ---===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Ops outside every task (a padded input's fill and copy, layout
// transposes, unfused elementwise ops) have no schedule, so nothing made
// their loops parallel. Large ones are memory-bound passes over megabytes:
// split them among the threads like the tasks around them.
//
//===----------------------------------------------------------------------===//

#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_PARALLELIZELEFTOVEROPS
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;

namespace {

/// Smaller ops cost less than the threads' fork and join (a few us).
constexpr int64_t kMinParallelElements = 16384;

/// The loop of `op` to split among `threads`: its first of at least that
/// many iterations, if `op` is a large, static, all-parallel op on buffers
/// outside any loop.
std::optional<unsigned> getSplitLoop(linalg::LinalgOp op, unsigned threads) {
  if (!op.hasPureBufferSemantics() || op.hasDynamicShape() ||
      op.getNumLoops() == 0 || op.getNumLoops() != op.getNumParallelLoops() ||
      op->getParentOp() != op->getParentOfType<func::FuncOp>().getOperation())
    return std::nullopt;
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  int64_t elements = 1;
  for (int64_t extent : extents)
    elements *= extent;
  if (elements < kMinParallelElements)
    return std::nullopt;
  for (auto [loop, extent] : llvm::enumerate(extents))
    if (extent >= static_cast<int64_t>(threads))
      return loop;
  return std::nullopt;
}

struct ParallelizeLeftoverOpsPass
    : public mlir::tcl::impl::ParallelizeLeftoverOpsBase<
          ParallelizeLeftoverOpsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (numThreads <= 1)
      return;
    SmallVector<std::pair<linalg::LinalgOp, unsigned>> work;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (std::optional<unsigned> loop = getSplitLoop(op, numThreads))
        work.emplace_back(op, *loop);
    });
    IRRewriter rewriter(&getContext());
    for (auto [op, loop] : work) {
      SmallVector<int64_t> sizes(op.getNumLoops(), 0);
      int64_t extent = op.getStaticLoopRanges()[loop];
      // The threads share the split loop's iterations (OpenMP's static
      // schedule hands each a contiguous range), one at a time when loops
      // remain inside: with a chunk of extent / threads (16 of 32 rows), the
      // chunk's loops all had small constant trip counts, and LLVM unrolled
      // a transpose's 16 x 32 x 64 of them whole, level after level (30,756
      // loads: UNet for 2 threads compiled in 35 s).
      sizes[loop] = loop + 1 < op.getNumLoops()
                        ? 1
                        : (extent + numThreads - 1) / numThreads;
      linalg::LinalgTilingOptions options;
      options.setTileSizes(sizes).setLoopType(
          linalg::LinalgTilingLoopType::ParallelLoops);
      rewriter.setInsertionPoint(op);
      if (failed(linalg::tileLinalgOp(rewriter, op, options)))
        continue;
      rewriter.eraseOp(op);
    }
  }
};

} // namespace
