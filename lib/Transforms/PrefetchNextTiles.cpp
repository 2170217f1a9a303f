//===- PrefetchNextTiles.cpp - Prefetch what the next tiles read ----------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// A register tile whose accumulators were hoisted out of its reduction loop
// (hoist_accumulators) loads them once before that loop and stores them once
// after it. Where the loop around it moves to the next tile, those loads
// miss the caches whenever the output panel outgrows L2, and every one of
// them stalls the FMAs that follow. A packed panel (a hoisted pad) is copied
// at the speed of the memory it comes from, with nothing to overlap it.
// This pass prefetches both while the current tiles compute (see the pass
// description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_PREFETCHNEXTTILES
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

/// A loop's static lower bound, step and trip count.
struct StaticLoop {
  scf::ForOp loop;
  int64_t lower, step, trips;
};

static std::optional<StaticLoop> getStaticLoop(scf::ForOp loop) {
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  std::optional<int64_t> trips = constantTripCount(
      loop.getLowerBound(), loop.getUpperBound(), loop.getStep());
  if (!lower || !step || !trips || *trips <= 0)
    return std::nullopt;
  return StaticLoop{loop, *lower, *step, *trips};
}

/// `loop`'s trip count, or the threshold's where it is not static.
static int64_t getTripCount(scf::ForOp loop) {
  std::optional<StaticLoop> known = getStaticLoop(loop);
  return known ? known->trips : kMinAccumulatorUpdates;
}

/// How the rows (innermost dim) of a tile of `type` fall into cache lines:
/// the rows, the elements a line holds and the lines a row spans.
struct RowLines {
  int64_t rows, lineElements, linesPerRow;
};

static std::optional<RowLines> getRowLines(ShapedType type) {
  int64_t elementBytes = type.getElementTypeBitWidth() / 8;
  if (elementBytes == 0)
    return std::nullopt;
  int64_t rowElements = type.getShape().back();
  int64_t lineElements = std::max<int64_t>(1, kCacheLineBytes / elementBytes);
  return RowLines{
      type.getNumElements() / rowElements, lineElements,
      static_cast<int64_t>(llvm::divideCeil(rowElements, lineElements))};
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

/// `view` as `loop`'s next iteration defines it: its induction variable
/// advanced by a step, kept where this is the last iteration (so that every
/// address is in bounds).
static Value cloneForNextIteration(OpBuilder &b, memref::SubViewOp view,
                                   scf::ForOp loop) {
  Location loc = view.getLoc();
  Value iv = loop.getInductionVar();
  Value next = b.create<arith::AddIOp>(loc, iv, loop.getStep());
  Value inside = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, next,
                                         loop.getUpperBound());
  IRMapping mapping;
  mapping.map(iv, b.create<arith::SelectOp>(loc, inside, next, iv));
  return b.clone(*view, mapping)->getResult(0);
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
  if (!llvm::is_contained(view->getOperands(), iv))
    return;
  VectorType type = read.getVectorType();
  std::optional<RowLines> lines = getRowLines(type);
  if (!lines || lines->rows * lines->linesPerRow > kMaxPrefetchedLines)
    return;

  OpBuilder b(reduction);
  Location loc = reduction.getLoc();
  Value nextView = cloneForNextIteration(b, view, outer);

  // The vector's dims are the memref's innermost ones (a minor identity):
  // the leading memref dims stay at 0.
  unsigned memrefRank = view.getType().getRank();
  unsigned leadingDims = memrefRank - type.getRank();
  Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
  SmallVector<int64_t> rowStrides =
      computeStrides(SmallVector<int64_t>(type.getShape().drop_back()));
  for (int64_t row = 0; row < lines->rows; ++row) {
    SmallVector<Value> indices(leadingDims, zero);
    for (int64_t index : delinearize(row, rowStrides))
      indices.push_back(b.create<arith::ConstantIndexOp>(loc, index));
    indices.push_back(zero);
    for (int64_t line = 0; line < lines->linesPerRow; ++line) {
      indices.back() =
          b.create<arith::ConstantIndexOp>(loc, line * lines->lineElements);
      b.create<memref::PrefetchOp>(loc, nextView, indices, /*isWrite=*/true,
                                   /*localityHint=*/3, /*isDataCache=*/true);
    }
  }
}

/// The source of a packing copy that `loop`'s body makes before `user`: a
/// linalg.copy of a subview, defined in that body and moving with `loop`,
/// of static sizes whose rows (innermost dim) are contiguous.
static memref::SubViewOp getPackedPanel(scf::ForOp loop, Operation *user) {
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (&op == user)
      break;
    auto copy = dyn_cast<linalg::CopyOp>(&op);
    if (!copy || !copy.hasPureBufferSemantics())
      continue;
    auto panel = copy.getInputs()[0].getDefiningOp<memref::SubViewOp>();
    if (!panel || panel->getBlock() != loop.getBody() ||
        !panel.getType().hasStaticShape() ||
        !llvm::is_contained(panel->getOperands(), loop.getInductionVar()))
      continue;
    SmallVector<int64_t> strides;
    int64_t offset;
    if (succeeded(getStridesAndOffset(panel.getType(), strides, offset)) &&
        strides.back() == 1)
      return panel;
  }
  return nullptr;
}

/// The tiles of `reduction` that read a packed panel (a tile of an operand
/// copied into a buffer of their own, GotoBLAS' B panel) each prefetch a
/// share of the lines of the panel the next iteration of the panel's loop
/// packs, into L2: tile t of T (numbered over the loops between the panel's
/// loop and `reduction`) takes rows [t * r, t * r + r) of its R,
/// r = ceil(R / T), and its reduction's iteration i the lines [i * p,
/// i * p + p) of them, p = ceil(lines / trips). Every trip count must be
/// static. Why: the copy reads the operand from L3 or memory at the speed
/// of that stream and nothing overlaps it (a 128x768x3072 matmul's B, 9.4
/// MB read once a call: 8.3 % of its time in the copy, perf, Zen 4);
/// prefetched while the tiles compute, it copies from L2. One line an
/// iteration, not all of a tile's lines before its reduction: the first
/// prefetch of a burst stalled the tile (7 % of the kernel's samples on
/// it; 3 % spread out, where the FMAs around it keep the core busy).
static void prefetchNextPanel(scf::ForOp reduction) {
  SmallVector<scf::ForOp> tileLoops;
  Operation *user = reduction;
  memref::SubViewOp panel;
  scf::ForOp panelLoop;
  for (Operation *parent = reduction->getParentOp(); !panel;
       parent = parent->getParentOp()) {
    auto loop = dyn_cast_or_null<scf::ForOp>(parent);
    if (!loop || tileLoops.size() > 4)
      return;
    panel = getPackedPanel(loop, user);
    if (panel)
      panelLoop = loop;
    else
      tileLoops.push_back(loop);
    user = loop;
  }
  // Every bound first, so that nothing is built where one is not static.
  std::optional<StaticLoop> iterations = getStaticLoop(reduction);
  if (!iterations)
    return;
  SmallVector<StaticLoop> numbered;
  int64_t tiles = 1;
  for (scf::ForOp loop : tileLoops) {
    std::optional<StaticLoop> level = getStaticLoop(loop);
    if (!level)
      return;
    numbered.push_back(*level);
    tiles *= level->trips;
  }
  MemRefType type = panel.getType();
  std::optional<RowLines> rowLines = getRowLines(type);
  if (!rowLines)
    return;
  auto [rows, lineElements, linesPerRow] = *rowLines;
  int64_t rowsPerTile = std::min<int64_t>(llvm::divideCeil(rows, tiles),
                                          kMaxPrefetchedLines / linesPerRow);
  if (rowsPerTile == 0)
    return;
  int64_t lines = rowsPerTile * linesPerRow;
  int64_t linesPerIteration = llvm::divideCeil(lines, iterations->trips);

  // Before the reduction: the tile's number (its index in each loop, the
  // innermost fastest), its first row, and the next panel.
  OpBuilder b(reduction);
  Location loc = reduction.getLoc();
  auto constant = [&](int64_t value) -> Value {
    return b.create<arith::ConstantIndexOp>(loc, value);
  };
  auto indexIn = [&](StaticLoop &level) -> Value {
    return b.create<arith::DivUIOp>(
        loc,
        b.create<arith::SubIOp>(loc, level.loop.getInductionVar(),
                                constant(level.lower)),
        constant(level.step));
  };
  Value tile = constant(0);
  int64_t tilesInside = 1;
  for (StaticLoop &level : numbered) {
    tile = b.create<arith::AddIOp>(
        loc, tile,
        b.create<arith::MulIOp>(loc, indexIn(level), constant(tilesInside)));
    tilesInside *= level.trips;
  }
  Value nextPanel = cloneForNextIteration(b, panel, panelLoop);
  Value firstRow = b.create<arith::MulIOp>(loc, tile, constant(rowsPerTile));
  Value lastRow = constant(rows - 1);

  // In each iteration of the reduction: its lines, where they are in the
  // tile's share and the panel.
  SmallVector<int64_t> rowStrides =
      computeStrides(SmallVector<int64_t>(type.getShape().drop_back()));
  b.setInsertionPointToStart(reduction.getBody());
  Value iteration = indexIn(*iterations);
  for (int64_t i = 0; i < linesPerIteration; ++i) {
    Value line = b.create<arith::AddIOp>(
        loc,
        b.create<arith::MulIOp>(loc, iteration, constant(linesPerIteration)),
        constant(i));
    Value row = b.create<arith::AddIOp>(
        loc, firstRow,
        b.create<arith::DivUIOp>(loc, line, constant(linesPerRow)));
    Value inside = b.create<arith::AndIOp>(
        loc,
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, line,
                                constant(lines)),
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sle, row, lastRow));
    auto ifInside = b.create<scf::IfOp>(loc, inside, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifInside.thenBlock());
    SmallVector<Value> indices;
    for (int64_t stride : rowStrides) {
      indices.push_back(b.create<arith::DivUIOp>(loc, row, constant(stride)));
      row = b.create<arith::RemUIOp>(loc, row, constant(stride));
    }
    indices.push_back(b.create<arith::MulIOp>(
        loc, b.create<arith::RemUIOp>(loc, line, constant(linesPerRow)),
        constant(lineElements)));
    b.create<memref::PrefetchOp>(loc, nextPanel, indices, /*isWrite=*/false,
                                 /*localityHint=*/2, /*isDataCache=*/true);
  }
}

namespace {
struct PrefetchNextTilesPass
    : public tcl::impl::PrefetchNextTilesBase<PrefetchNextTilesPass> {
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
      bool registerTile = false;
      for (auto [index, init] : llvm::enumerate(reduction.getInitArgs())) {
        vector::TransferReadOp read =
            getHoistedAccumulators(reduction, init, index);
        if (!read || countAccumulatorUpdates(reduction, read.getVectorType()) <
                         kMinAccumulatorUpdates)
          continue;
        prefetchNextTile(reduction, outer, read);
        registerTile = true;
      }
      if (registerTile)
        prefetchNextPanel(reduction);
    }
  }
};
} // namespace
