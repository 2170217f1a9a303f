//===- PrefetchAccumulators.cpp - Prefetch the next register tile ---------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// A register tile whose accumulators were hoisted out of its reduction loop
// (hoist_accumulators) loads them once before that loop and stores them once
// after it. Where the loop around it moves to the next tile, those loads
// miss the caches whenever the output panel outgrows L2, and every one of
// them stalls the FMAs that follow (see the pass description in
// Passes.td). This pass prefetches the next tile's accumulators while the
// current tile's reduction runs.
//
//===----------------------------------------------------------------------===//

#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_PREFETCHACCUMULATORS
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;

namespace {
/// x86's cache line.
constexpr int64_t kCacheLineBytes = 64;
/// More lines than this in one tile are not prefetched: such a tile is not
/// a register tile, and its loads are not what stalls.
constexpr int64_t kMaxPrefetchedLines = 64;
/// Tiles whose accumulators are updated fewer times than this in their
/// reduction are not prefetched: a depthwise convolution's nine taps leave
/// little time for the prefetches to pay off, and they compete with the
/// tile's own loads. (With every tile prefetched, depthwise and grouped
/// rows of the kernel bench ran 10-30 % slower in one interleaved pair of
/// runs, Zen 4: within this host's noise, so the threshold errs on the safe
/// side; matmuls and full convolutions update theirs 128-4608 times.)
constexpr int64_t kMinAccumulatorUpdates = 32;
} // namespace

/// `loop`'s trip count, or the threshold's where it is not static.
static int64_t getTripCount(scf::ForOp loop) {
  std::optional<int64_t> trips = constantTripCount(
      loop.getLowerBound(), loop.getUpperBound(), loop.getStep());
  return trips ? *trips : kMinAccumulatorUpdates;
}

/// How many times the reduction loop nest `reduction` updates the
/// accumulators of type `type`: its ops that compute a value of that type
/// (contractions, FMAs, adds), each counted once per iteration of the loops
/// around it in the nest. A loop whose trip count is not static counts as
/// many iterations as the threshold asks for.
static int64_t countAccumulatorUpdates(scf::ForOp reduction, Type type) {
  int64_t updates = 0;
  reduction.getBody()->walk([&](Operation *op) {
    if (isa<scf::ForOp, scf::YieldOp, vector::TransferReadOp>(op) ||
        !llvm::is_contained(op->getResultTypes(), type))
      return;
    int64_t iterations = 1;
    for (Operation *parent = op->getParentOp(); parent != reduction;
         parent = parent->getParentOp())
      if (auto loop = dyn_cast<scf::ForOp>(parent))
        iterations *= getTripCount(loop);
    updates += iterations * getTripCount(reduction);
  });
  return updates;
}

/// The accumulator tile that `reduction` carries in registers: an init that
/// is a transfer_read, in reduction's block, of a subview defined there too,
/// at indices 0, in bounds, of the memref's innermost dims, whose rows are
/// contiguous; and whose result is written back to the same subview.
static vector::TransferReadOp
getHoistedAccumulators(scf::ForOp reduction, Value init, unsigned resultIndex) {
  auto read = init.getDefiningOp<vector::TransferReadOp>();
  if (!read || read->getBlock() != reduction->getBlock() ||
      !read.getPermutationMap().isMinorIdentity() || read.getMask() ||
      llvm::any_of(read.getInBoundsValues(), [](bool in) { return !in; }) ||
      llvm::any_of(read.getIndices(),
                   [](Value index) { return !isConstantIntValue(index, 0); }))
    return nullptr;
  auto view = read.getSource().getDefiningOp<memref::SubViewOp>();
  if (!view || view->getBlock() != reduction->getBlock())
    return nullptr;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(getStridesAndOffset(view.getType(), strides, offset)) ||
      strides.back() != 1)
    return nullptr;
  bool writtenBack =
      llvm::any_of(reduction.getResult(resultIndex).getUsers(), [&](auto *op) {
        auto write = dyn_cast<vector::TransferWriteOp>(op);
        return write && write.getSource() == read.getSource();
      });
  return writtenBack ? read : nullptr;
}

/// Before `reduction`, prefetches each cache line of the tile that `read`
/// loads as it will be in the next iteration of `outer` (the same tile
/// where this is the last iteration, so that every address is in bounds).
/// The tile's rows start on a cache line where the buffer is aligned (64
/// bytes) and rows are whole vectors apart, so a line every 64 bytes of a
/// row covers it.
static void prefetchNextTile(scf::ForOp reduction, scf::ForOp outer,
                             vector::TransferReadOp read) {
  auto view = read.getSource().getDefiningOp<memref::SubViewOp>();
  Value iv = outer.getInductionVar();
  if (!llvm::is_contained(view->getOperands(), iv) ||
      countAccumulatorUpdates(reduction, read.getVectorType()) <
          kMinAccumulatorUpdates)
    return;
  VectorType type = read.getVectorType();
  ArrayRef<int64_t> shape = type.getShape();
  int64_t elementBytes = type.getElementTypeBitWidth() / 8;
  if (elementBytes == 0)
    return;
  int64_t lineElements = std::max<int64_t>(1, kCacheLineBytes / elementBytes);
  int64_t linesPerRow = llvm::divideCeil(shape.back(), lineElements);
  int64_t rows = type.getNumElements() / shape.back();
  if (rows * linesPerRow > kMaxPrefetchedLines)
    return;

  OpBuilder b(reduction);
  Location loc = reduction.getLoc();
  Value next = b.create<arith::AddIOp>(loc, iv, outer.getStep());
  Value inside = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, next,
                                         outer.getUpperBound());
  Value nextIv = b.create<arith::SelectOp>(loc, inside, next, iv);
  IRMapping mapping;
  mapping.map(iv, nextIv);
  Value nextView = b.clone(*view, mapping)->getResult(0);

  // The vector's dims are the memref's innermost ones (a minor identity):
  // the leading memref dims stay at 0.
  unsigned memrefRank = view.getType().getRank();
  unsigned leadingDims = memrefRank - type.getRank();
  Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
  SmallVector<int64_t> rowShape(shape.drop_back());
  for (int64_t row = 0; row < rows; ++row) {
    SmallVector<Value> indices(leadingDims, zero);
    SmallVector<int64_t> position = delinearize(row, computeStrides(rowShape));
    for (int64_t index : position)
      indices.push_back(b.create<arith::ConstantIndexOp>(loc, index));
    indices.push_back(zero);
    for (int64_t line = 0; line < linesPerRow; ++line) {
      indices.back() =
          b.create<arith::ConstantIndexOp>(loc, line * lineElements);
      b.create<memref::PrefetchOp>(loc, nextView, indices, /*isWrite=*/true,
                                   /*localityHint=*/3, /*isDataCache=*/true);
    }
  }
}

namespace {
struct PrefetchAccumulatorsPass
    : public tcl::impl::PrefetchAccumulatorsBase<PrefetchAccumulatorsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> reductions;
    getOperation().walk([&](scf::ForOp loop) {
      if (isa_and_nonnull<scf::ForOp>(loop->getParentOp()) &&
          llvm::any_of(loop.getInitArgs(), [](Value init) {
            return isa<VectorType>(init.getType());
          }))
        reductions.push_back(loop);
    });
    for (scf::ForOp reduction : reductions) {
      auto outer = cast<scf::ForOp>(reduction->getParentOp());
      for (auto [index, init] : llvm::enumerate(reduction.getInitArgs()))
        if (vector::TransferReadOp read =
                getHoistedAccumulators(reduction, init, index))
          prefetchNextTile(reduction, outer, read);
    }
  }
};
} // namespace
