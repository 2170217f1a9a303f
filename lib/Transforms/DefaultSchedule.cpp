//===- DefaultSchedule.cpp - Untuned schedules per op class ---------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// All of tcl's target heuristics for untuned code. See DefaultSchedule.h for
// the rules; the numbers below are the ones that text describes.
//
//===----------------------------------------------------------------------===//

#include "tcl/Transforms/DefaultSchedule.h"
#include "ScheduleWriter.h"
#include "TaskInstanceTags.h"
#include "TileSizes.h"
#include "tcl/Support/GroupedConv.h"
#include "tcl/Transforms/Passes.h"
#include "tcl/Transforms/TaskExtraction.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_DEFAULTSCHEDULES
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;
using namespace mlir::tcl;
using namespace mlir::tcl::tiles;

bool mlir::tcl::fitsDepthwiseAccumulators(int64_t columns, int64_t vectors,
                                          int64_t kernelColumns,
                                          unsigned registers) {
  return (columns + kernelColumns) * vectors + 1 <=
         static_cast<int64_t>(registers);
}

namespace {
/// Register tile rows of a matmul: 8 rows x 2 vectors keeps 16 accumulators
/// in registers (of 32 with AVX-512, of 16 with AVX2 which then spills a
/// little but still beats narrower tiles).
constexpr int64_t kMatmulRegisterRows = 8;
constexpr int64_t kMatmulCacheRows = 64;
constexpr int64_t kMatmulCacheDepth = 128;
/// With B packed (loops n, k, m), a thread's panel of C (its rows x the
/// cache tile's columns) is loaded and stored once per cache tile of k:
/// where that panel outgrows the L2 cache it comes from L3 each time, so
/// the depth doubles while the panel takes at least this many bytes per
/// step of k, up to kMatmulMaxCacheDepth (then a 512 KB panel of B).
/// (1024^3, one thread, C panel 1 MB: depth 128 14.5 ms, 256 13.7, 512
/// 13.1; 2048^3 138 -> 112 ms at 512; two threads: 1024^3 (512 KB) best at
/// 256, 7.7 -> 6.6 ms, 2048^3 62 -> 56 ms at 512; 128-row matmuls (128 KB)
/// ran alike at any depth; Intel Xeon, Granite Rapids class.)
constexpr int64_t kMatmulPanelBytesPerStep = 4 << 10;
constexpr int64_t kMatmulMaxCacheDepth = 512;
constexpr int64_t kMatmulUnroll = 4;
/// B matrices larger than this (about an L2 cache) are packed per panel.
constexpr double kMatmulPackBytes = 2 << 20;
/// ... when enough row tiles reuse each packed panel: at least this many
/// rows, or one cache tile of rows for a B more than twice that size.
/// (Zen 5, unpacked vs packed: 128x3072x768 (B 9.4 MB, its rows 12 KB
/// apart) 96 -> 160 GFLOP/s, 64x4096x1024 94 -> 118-138, 128x768x3072
/// 132-140 -> 160; 128x768x768 (B 2.4 MB) ran 2-9% slower packed.)
constexpr int64_t kMatmulPackMinRows = 4 * kMatmulCacheRows;
/// Columns of a matmul's cache tile, in vector lanes.
constexpr int64_t kMatmulCacheLaneGroups = 16;
/// ... and of a panel of B (panelsB; 64-256 columns ran alike).
constexpr int64_t kMatmulPanelLaneGroups = 8;
constexpr int64_t kConvOutputColumns = 8;
/// Weights of a convolution's channel tile that stay in cache (L2, with
/// room for the input rows) while the output positions use them.
constexpr int64_t kConvWeightSliceBytes = 96 << 10;
/// What stays in the L2 cache while a kernel sweeps it (1 MB, the smallest
/// L2 of the x86 hosts: AMD Zen 4 and 5; Intel's since Sapphire Rapids have
/// 2 MB), and what one band of a convolution's output channels' weights may
/// take of it.
constexpr int64_t kResidentBytes = 1 << 20;
constexpr int64_t kConvChannelBandBytes = 512 << 10;
constexpr int64_t kMaxWholeReduction = 4096;

/// Whether a matmul's tile of `rows` x `columns` x `depth` packs its panels
/// of B (see kMatmulPackBytes). So does a B of half that whose rows lie a
/// multiple of 2 KB apart (`columns` is all of B's), used by as many rows:
/// a cache tile of its rows then folds onto a few L1 sets, and a packed
/// panel is contiguous (512^3 2.01 -> 1.83 ms with one thread, 1.09 ->
/// 0.91 ms with two; 256x512x512 1.00 -> 0.90 ms; Intel Xeon).
bool packsB(int64_t rows, int64_t columns, int64_t depth) {
  double bBytes = static_cast<double>(columns) * depth * 4;
  bool setsFold = !ShapedType::isDynamic(columns) && (columns * 4) % 2048 == 0;
  return (bBytes > kMatmulPackBytes ||
          (setsFold && bBytes >= kMatmulPackBytes / 2)) &&
         (rows >= kMatmulPackMinRows ||
          (bBytes > 2 * kMatmulPackBytes && rows >= kMatmulCacheRows));
}

/// Whether a matmul's tile of `rows` x `columns` x `depth` loops over
/// panels of B's columns outside its rows (see kResidentBytes): B is
/// larger than the L2 cache and not packed, while A fits it. Each panel
/// (all of k: the accumulators stay in registers through the whole
/// reduction) then stays in L2 while all the rows use it, and A stays in L2
/// across the panels; in row tiles, every tile read all of B from L3.
/// (169x1000x512, a 1x1 convolution at 13x13: 1.15 -> 0.89 ms with one
/// thread, 0.90 -> 0.46 ms with two splitting the columns; 128x768x768
/// 0.91 -> 0.87 and 0.53 -> 0.50 ms; Intel Xeon, Granite Rapids class.)
/// Not where B's rows lie a multiple of 2 KB apart (`columns` is all of
/// B's): a panel's rows then fold onto a few cache sets (32x4096x1024 ran
/// 2.2x slower in panels).
bool panelsB(int64_t rows, int64_t columns, int64_t depth) {
  return !packsB(rows, columns, depth) && (columns * 4) % 2048 != 0 &&
         static_cast<double>(columns) * depth * 4 > kResidentBytes &&
         static_cast<double>(rows) * depth * 4 <= kResidentBytes;
}

/// Matmul and batch matmul: `batch` is 1 for batch_matmul (dims b, m, n, k).
void writeMatmul(ScheduleWriter &w, unsigned batch, int64_t lanes,
                 unsigned registers, unsigned threads, bool hasEpilogue) {
  unsigned m = batch, n = batch + 1, k = batch + 2;
  auto sizes = [&](int64_t sm, int64_t sn, int64_t sk) {
    SmallVector<int64_t> result(batch, 1);
    result.append({sm, sn, sk});
    return result;
  };
  bool isStatic = !ShapedType::isDynamic(w.extent(m)) &&
                  !ShapedType::isDynamic(w.extent(n));
  // Where the L2-based choices (panelsB, A and B resident) apply: a matmul
  // of static extents (the thread level does not tile k).
  bool staticMatmul =
      batch == 0 && isStatic && !ShapedType::isDynamic(w.extent(k));
  // Threads: tiles that divide the batch, the rows or the columns (see
  // pickThreadTile), whichever balances best; on a tie the rows if there
  // are at least as many, or if only the rows' tiles hold whole cache tiles
  // and each thread reads all of B unpacked (128x768x768 in row halves of
  // 64: a median 4-14% lower than in column halves of 384 = 256 + 128 on two
  // threads, Zen 5; 128x768x3072, whose B each thread would pack whole, ran
  // no faster); else about equal chunks of the larger.
  SmallVector<int64_t> threadTile;
  if (threads > 1) {
    if (batch && w.extent(0) >= threads) {
      threadTile = sizes(w.extent(m), w.extent(n), 0);
      threadTile[0] = chunk(w.extent(0), threads, 1);
    } else {
      int64_t rows =
          pickThreadTile(w.extent(m), threads, kMatmulRegisterRows, 0);
      int64_t columns =
          pickVectorThreadTile(w.extent(n), threads, 2 * lanes, lanes);
      double rowBalance = getThreadBalance(w.extent(m), rows, threads);
      double columnBalance = getThreadBalance(w.extent(n), columns, threads);
      int64_t cacheColumns = kMatmulCacheLaneGroups * lanes;
      bool rowsKeepCacheTiles = rows > 0 && rows % kMatmulCacheRows == 0 &&
                                columns % cacheColumns != 0 &&
                                !packsB(rows, w.extent(n), w.extent(k));
      bool byRows = rowBalance > columnBalance + 1e-9 ||
                    (rowBalance > columnBalance - 1e-9 &&
                     (w.extent(m) >= w.extent(n) || rowsKeepCacheTiles));
      // B in column panels (panelsB): the threads split the columns where
      // that balances as well as the rows, so that each reads half of B.
      if (staticMatmul && panelsB(w.extent(m), w.extent(n), w.extent(k))) {
        int64_t panelColumns = pickThreadTile(w.extent(n), threads, lanes, 0);
        if (panelColumns && getThreadBalance(w.extent(n), panelColumns,
                                             threads) > rowBalance - 1e-9) {
          columns = panelColumns;
          byRows = false;
        }
      }
      if (rows == 0 && columns == 0) {
        byRows = w.extent(m) >= w.extent(n);
        rows = chunk(w.extent(m), threads, kMatmulRegisterRows);
        columns = chunk(w.extent(n), threads, 2 * lanes);
      }
      threadTile =
          byRows ? sizes(rows, w.extent(n), 0) : sizes(w.extent(m), columns, 0);
    }
    if (batch)
      threadTile[0] = threadTile[0] ? threadTile[0] : 1;
  }
  // The extents one thread's tile has.
  int64_t rowExtent = threadTile.empty() ? w.extent(m) : threadTile[m];
  int64_t columnExtent = threadTile.empty() ? w.extent(n) : threadTile[n];

  bool panels = staticMatmul && panelsB(rowExtent, w.extent(n), w.extent(k));
  // (All of B counts: with the columns split, each thread's part of B
  // would no longer fit Zen's 1 MB L2 with A. The register tiles cover a
  // panel.)
  if (panels)
    columnExtent =
        pickCacheTile(columnExtent, kMatmulPanelLaneGroups * lanes, 2 * lanes);
  int64_t mr = std::min(kMatmulRegisterRows, rowExtent);
  int64_t nr = std::min(2 * lanes, columnExtent);
  // Where that register tile does not divide the rows and columns (100
  // rows, 1000 columns), is not whole vectors (24 columns) or has too few
  // accumulators to hide the FMA latency (fewer than 8 rows: a
  // matrix-vector product ran at 6 GFLOP/s with 2), one chosen for these
  // extents, remainder tiles included (pickRegisterTile); the loops peel
  // the remainders.
  if (isStatic) {
    // divideCeil of two int64_t is unsigned; the counts are small.
    int64_t accumulators =
        mr * static_cast<int64_t>(llvm::divideCeil(nr, lanes));
    bool latencyBound = accumulators < getLatencyAccumulators(registers);
    if (!isWholeVectors(nr, lanes) || latencyBound || rowExtent % mr != 0 ||
        columnExtent % nr != 0) {
      RegisterTile tile =
          pickRegisterTile(rowExtent, columnExtent, lanes, registers);
      mr = tile.columns;
      nr = tile.channels;
    }
    // A tile of all of a few rows (7 of 49, a 1x1 convolution at 7x7, on
    // each of two threads) keeps fewer accumulators in 2 vectors a row than
    // the latency needs: a vector wider at a time while they fit the
    // registers (49x440x440 on two threads: 7 x 3 vectors ran 11% faster
    // than 7 x 2, Intel Xeon).
    if (mr == rowExtent && nr == 2 * lanes)
      while (mr * (nr / lanes) < getLatencyAccumulators(registers) &&
             nr + lanes <= columnExtent &&
             fitsRegisters(mr, nr / lanes + 1, registers))
        nr += lanes;
  }
  // Outer level: threads and/or the epilogue (only parallel dims; with
  // panels of B, all the rows: the panels come first).
  if (threads > 1 || hasEpilogue) {
    SmallVector<int64_t> outer =
        threadTile.empty()
            ? sizes(panels ? 0
                           : pickFusedTile(w.extent(m), kMatmulCacheRows, mr,
                                           false),
                    pickFusedTile(w.extent(n), kMatmulCacheLaneGroups * lanes,
                                  nr, true),
                    0)
            : threadTile;
    if (w.tile(outer)) {
      if (threads > 1)
        w.parallelize();
      if (hasEpilogue)
        w.fuseEpilogue();
    }
  }
  // Cache level. When B does not fit in the L2 cache, loop over B panels
  // (n, then k) and copy each into a contiguous buffer once for all the row
  // tiles that use it (GotoBLAS order); otherwise keep B in place.
  // With panels of B, the panel is the cache tile. Where a thread's A and
  // B stay in L2 together (at most 1 MB), the cache tiles take all of k:
  // the accumulators stay in registers through the whole reduction instead
  // of being stored and loaded again every 128 steps (49x160x960, a 1x1
  // convolution at 7x7: 0.080 -> 0.068 ms with one thread, 0.056 -> 0.042
  // with two; 256x256x256 0.179 -> 0.162 ms; Intel Xeon).
  // (A batch matmul's B is not packed.)
  bool packB = batch == 0 && packsB(w.extent(m), w.extent(n), w.extent(k));
  int64_t cacheColumns =
      pickCacheTile(w.extent(n), kMatmulCacheLaneGroups * lanes, nr);
  int64_t depth = kMatmulCacheDepth;
  if (packB)
    while (depth < kMatmulMaxCacheDepth &&
           4 * rowExtent * cacheColumns >= depth * kMatmulPanelBytesPerStep)
      depth *= 2;
  bool residentAB =
      staticMatmul &&
      4.0 * w.extent(k) * (w.extent(m) + w.extent(n)) <= kResidentBytes;
  bool tiled =
      panels ? w.tile(sizes(0,
                            pickCacheTile(w.extent(n),
                                          kMatmulPanelLaneGroups * lanes, nr),
                            0))
             : w.tile(sizes(pickCacheTile(w.extent(m), kMatmulCacheRows, mr),
                            cacheColumns,
                            residentAB ? 0 : pickTile(w.extent(k), depth)));
  if (tiled && packB) {
    w.interchange({1, 2, 0});
    w.pad({1}, /*hoist=*/1);
  }
  // Register level: the k loop (trip count = the cache tile's depth) carries
  // the accumulators in registers and is unrolled.
  int64_t kTrips = w.extent(k);
  w.tile(sizes(std::min(mr, w.extent(m)), std::min(nr, w.extent(n)), 1));
  w.vectorize();
  if (kTrips > 1) {
    w.hoistAccumulators();
    w.unroll(k, std::min(kMatmulUnroll, kTrips));
  }
}

/// 2-D window ops with (output row, kernel row) dims, an output column dim,
/// a channel dim to vectorize and the dims that stay at 1.
void writeWindowOp(ScheduleWriter &w, const AnchorInfo &info, int64_t lanes,
                   unsigned registers, unsigned threads, bool hasEpilogue,
                   bool fillsOutput) {
  unsigned numDims = info.loopKinds.size();
  unsigned rowDim = info.heightDims->output;
  unsigned kernelRowDim = info.heightDims->window;
  unsigned columnDim = info.widthDims->output;
  unsigned channelDim = *info.channelDim;

  // Threads split rows, groups or channels, whichever balances them best
  // (on a tie in that order): rows and groups are tiled to 1 further in, so
  // their thread tiles may leave a partial one; channels are not, so theirs
  // must divide (pickThreadTile). ResNet-18's 7x7 maps split into 4 + 3
  // rows, their 512 channels evenly. With one thread, a fused epilogue's
  // level takes rows by a divisor: fused ops are vectorized only in tiles
  // that divide the domain. So does the fill of the output, which that
  // level fuses too (as a sequential level of parallel loops does): each
  // band of rows is zeroed right before it is computed, not the whole
  // output first (MobileNetV2's depthwise 3x3 32 @112 spent a quarter of
  // its time in that fill, which wrote 1.6 MB out of the cache). The fill
  // now moves on into the register tiles, which start from zero
  // (FillFusion.cpp); the bands stay (not measured without them since).
  //
  // A convolution whose weights do not stay in the L2 cache while its input
  // does sweeps the input once per band of output channels, not the weights
  // once per band of rows (sweepsInput): its thread tiles split the
  // channels where that balances as well, so each thread reads only its
  // share of the weights; with one thread, a band of channels whose weights
  // stay in L2 takes the rows' place; and a level of register-tile channels
  // comes before the rows (below). SqueezeNet's 1x1 512->1000 at 13x13
  // (2 MB of weights, read from L3 for every row) ran 1.9x faster with one
  // thread and 2.1x with two, ResNet-18's 3x3 256->256 at 14x14 1.2x with
  // one (Intel Xeon, Granite Rapids class, 2 MB L2).
  std::optional<unsigned> inputChannelDim =
      info.groupDim ? std::nullopt : info.inputChannelDim;
  // A convolution whose filter is in blocks of output channels
  // (tcl-block-convolution-filters) computes a block at a time over all the
  // output positions, so that the block's weights, contiguous, stay in L2
  // meanwhile (ResNet-18's 3x3 512->512 at 7x7: 1.18 MB a block, read once
  // from L3 instead of once per row); threads split the blocks, so each
  // reads only its share of the weights.
  bool blockedFilter = info.opName == kFilterBlockedConvAnchorName;
  int64_t channelWeightBytes = 0;
  bool sweepsInput = false;
  if (inputChannelDim) {
    int64_t perChannel = 4 * w.extent(kernelRowDim) *
                         w.extent(info.widthDims->window) *
                         w.extent(*inputChannelDim);
    // (The input the output positions read, without the stride's share.)
    int64_t inputBytes =
        4 * w.extent(rowDim) * w.extent(columnDim) * w.extent(*inputChannelDim);
    bool isStatic = llvm::none_of(
        ArrayRef<unsigned>{kernelRowDim, info.widthDims->window,
                           *inputChannelDim, rowDim, columnDim, channelDim},
        [&](unsigned dim) { return ShapedType::isDynamic(w.extent(dim)); });
    if (isStatic) {
      channelWeightBytes = perChannel;
      sweepsInput = perChannel * w.extent(channelDim) > kResidentBytes &&
                    inputBytes <= kResidentBytes;
    }
  }
  if (threads > 1 || hasEpilogue || fillsOutput) {
    SmallVector<int64_t> outer(numDims, 0);
    std::optional<unsigned> splitDim;
    int64_t splitTile = 0;
    double splitBalance = 0;
    auto consider = [&](unsigned dim, int64_t tile) {
      double balance =
          tile ? getThreadBalance(w.extent(dim), tile, threads) : 0;
      if (balance > splitBalance + 1e-9) {
        splitDim = dim;
        splitTile = tile;
        splitBalance = balance;
      }
    };
    auto partialTile = [&](unsigned dim) -> int64_t {
      if (ShapedType::isDynamic(w.extent(dim)) || w.extent(dim) < threads)
        return 0;
      int64_t tile = pickThreadTile(w.extent(dim), threads, 1, 0);
      return tile ? tile : chunk(w.extent(dim), threads, 1);
    };
    if (threads > 1) {
      // (First, so that it wins ties; any remainder: the channel level
      // below tiles it.)
      if (sweepsInput)
        consider(channelDim,
                 pickThreadTile(w.extent(channelDim), threads, lanes, 0));
      // (A filter-blocked convolution's blocks come first, to win ties.)
      if (blockedFilter)
        consider(*info.groupDim, partialTile(*info.groupDim));
      consider(rowDim, partialTile(rowDim));
      if (info.groupDim && !blockedFilter)
        consider(*info.groupDim, partialTile(*info.groupDim));
      consider(channelDim, pickVectorThreadTile(w.extent(channelDim), threads,
                                                lanes, lanes));
      if (splitDim)
        outer[*splitDim] = splitTile;
    } else {
      outer[rowDim] = ShapedType::isDynamic(w.extent(rowDim))
                          ? pickTile(w.extent(rowDim), 8)
                          : pickDividingTile(w.extent(rowDim), 8, 1);
      if (blockedFilter) {
        outer[rowDim] = 0;
        outer[*info.groupDim] = 1;
      }
      if (sweepsInput && outer[rowDim] < w.extent(rowDim)) {
        int64_t band = pickFusedTile(
            w.extent(channelDim),
            std::max(kConvChannelBandBytes / channelWeightBytes, 2 * lanes),
            2 * lanes, /*vectorRemainder=*/true);
        if (w.extent(channelDim) % band == 0) {
          outer[rowDim] = 0;
          outer[channelDim] = band;
        }
      }
    }
    if (w.tile(outer)) {
      if (threads > 1)
        w.parallelize();
      if (hasEpilogue)
        w.fuseEpilogue();
    }
  }
  // Accumulators are hoisted out of the innermost reduction loop, if the
  // inner tile has one: reductions come last, so it is innermost.
  bool reduces = false;
  for (unsigned dim = 0; dim < numDims; ++dim)
    reduces |= info.loopKinds[dim] == 'r' && w.extent(dim) > 1;
  SmallVector<int64_t> inner(numDims, 0);
  inner[0] = 1; // batch
  inner[rowDim] = 1;
  inner[kernelRowDim] = 1;
  inner[channelDim] = pickTile(w.extent(channelDim), 2 * lanes, lanes);
  // A channel tile narrower than a vector (small groups) needs more output
  // columns to keep enough accumulators in flight.
  int64_t columns =
      inner[channelDim] < lanes ? 2 * kConvOutputColumns : kConvOutputColumns;
  inner[columnDim] = pickTile(w.extent(columnDim), columns);
  bool isStatic = !ShapedType::isDynamic(w.extent(channelDim)) &&
                  !ShapedType::isDynamic(w.extent(columnDim));
  // Elsewhere one chosen for these extents, remainder tiles included
  // (pickRegisterTile); the loops peel the remainders.
  int64_t sliceChannels = 0;
  // A full convolution with a kernel window whose output channels are not
  // whole vectors takes them all in one register tile where that fits.
  bool window = info.inputChannelDim && (w.extent(kernelRowDim) != 1 ||
                                         w.extent(info.widthDims->window) != 1);
  std::optional<RegisterTile> whole;
  if (isStatic && window && !info.groupDim)
    whole = pickWholeChannelTile(w.extent(columnDim), w.extent(channelDim),
                                 lanes, registers);
  if (whole) {
    inner[columnDim] = whole->columns;
    inner[channelDim] = sliceChannels = whole->channels;
  } else if (isStatic && (!isWholeVectors(inner[channelDim], lanes) ||
                          w.extent(channelDim) % inner[channelDim] != 0 ||
                          w.extent(columnDim) % inner[columnDim] != 0)) {
    RegisterTile tile = pickRegisterTile(
        w.extent(columnDim), w.extent(channelDim), lanes, registers);
    inner[columnDim] = tile.columns;
    inner[channelDim] = tile.channels;
  } else if (isStatic && info.inputChannelDim) {
    // A convolution over a map of 7 or 14 columns (7-column tiles) keeps
    // fewer accumulators than the multiply-adds' latency needs. A map of at
    // most 16 columns first takes all of them, while they fit the
    // registers (ResNet-18's 3x3 256->256 at 14x14: 14 x 2 vectors ran
    // 25-35% faster than 7 x 4 on Zen 5); then wider channel tiles, while
    // they fit the registers and leave whole vectors of the channels
    // (3x3 512->512 at 7x7: 7 x 4 vectors ran 15% faster than 7 x 2). With
    // a kernel window, a vector at a time while they fit beside the
    // weights and a broadcast (fitsRegisters): 7 x 4 vectors spilled and
    // shuffled registers there on every step, 7 x 3 (split into 32 + 16
    // lanes, SplitVectorRemaindersOp) ran 9-12% faster. A 1x1 kernel fits
    // them too: it spilled one accumulator a step and ran 18% faster at
    // 7 x 4 than at 7 x 3 while its accumulators were loaded, but since
    // they start from zero (tcl.forward_filled_reads) LLVM moves the
    // spilled one through all the others every step (ResNet-18's 1x1/2
    // 64->128: 7 x 4 0.066 ms, 7 x 2 0.053, Zen 5).
    auto accumulators = [&](int64_t channels) {
      return inner[columnDim] *
             static_cast<int64_t>(llvm::divideCeil(channels, lanes));
    };
    int64_t width = w.extent(columnDim);
    int64_t vectors = llvm::divideCeil(inner[channelDim], lanes);
    if (accumulators(inner[channelDim]) < getLatencyAccumulators(registers) &&
        width <= 16 && width * vectors <= getMaxAccumulators(registers))
      inner[columnDim] = width;
    // A wider map with a kernel window takes the most columns up to 16 that
    // divide it and fit the registers beside the weights and a broadcast:
    // each weight vector loaded serves more of them (3x3 64->64 at 56x56:
    // 14 x 2 vectors ran 15% faster than 8 x 2; 3x3/2 64->128 at 56x56 11%
    // faster than 7 x 3 with one thread, 10% with two; Intel Xeon).
    else if (window && !info.groupDim && width > 16)
      for (int64_t columns = 16; columns > inner[columnDim]; --columns)
        if (width % columns == 0 &&
            fitsRegisters(columns, vectors, registers)) {
          inner[columnDim] = columns;
          break;
        }
    sliceChannels = inner[channelDim];
    auto widened = [&](int64_t channels) {
      return window ? channels + lanes : 2 * channels;
    };
    auto fits = [&](int64_t channels) {
      if (channels > std::min(4 * lanes, w.extent(channelDim)))
        return false;
      if (window)
        return channels % lanes == 0 && w.extent(channelDim) % lanes == 0 &&
               fitsRegisters(inner[columnDim],
                             llvm::divideCeil(channels, lanes), registers);
      return w.extent(channelDim) % channels == 0 &&
             fitsRegisters(inner[columnDim], llvm::divideCeil(channels, lanes),
                           registers);
    };
    while (accumulators(inner[channelDim]) <
               getLatencyAccumulators(registers) &&
           fits(widened(inner[channelDim])))
      inner[channelDim] = widened(inner[channelDim]);
    // A block of output channels (up to 4 vectors) is one register tile
    // where its accumulators fit, though one register short of
    // fitsRegisters: LLVM keeps one accumulator on the stack (a store and a
    // load a step), and still 3x3 512->512 at 7x7 in blocks of 64 ran 10 %
    // faster at 7 x 4 vectors than at 7 x 3 plus a 7 x 1 remainder, 13 %
    // faster than at 7 x 2 (Intel Xeon).
    int64_t blockVectors = w.extent(channelDim) / lanes;
    if (blockedFilter && w.extent(channelDim) % lanes == 0 &&
        blockVectors <= 4 &&
        inner[columnDim] * blockVectors <= getMaxAccumulators(registers))
      inner[channelDim] = w.extent(channelDim);
  } else if (isStatic && info.anchorClass == AnchorClass::DepthwiseConv2D &&
             !ShapedType::isDynamic(w.extent(info.widthDims->window))) {
    // A depthwise convolution over a map of at most 16 columns that its
    // column tile covers in several pieces (14x14 maps: 7 columns x 2
    // vectors) takes all the columns and half the channels: as many
    // accumulators, but each input vector loaded for the window serves
    // twice the outputs (MobileNetV2's 3x3 576 @14 ran at 68 -> 83 GFLOP/s,
    // 384 @14 at 74 -> 83, on Zen 5), while the accumulators, the window's
    // weights and an input vector fit the registers (not with AVX2's 16).
    int64_t width = w.extent(columnDim);
    int64_t halfVectors = inner[channelDim] / (2 * lanes);
    int64_t kernelColumns = w.extent(info.widthDims->window);
    if (width <= 16 && inner[columnDim] < width &&
        inner[channelDim] % (2 * lanes) == 0 &&
        (width + kernelColumns) * halfVectors + 1 <=
            static_cast<int64_t>(registers)) {
      inner[columnDim] = width;
      inner[channelDim] /= 2;
    }
  }
  if (!sliceChannels)
    sliceChannels = inner[channelDim];
  // Convolutions also step through input channels and kernel columns one at
  // a time, and grouped ones through one group.
  if (info.groupDim)
    inner[*info.groupDim] = 1;
  if (info.inputChannelDim) {
    inner[*info.inputChannelDim] = 1;
    inner[info.widthDims->window] = 1;
  }
  // Partial tiles are peeled into static ones, except where the extent is
  // known only at run time: the decomposed op vectorizes only static tiles.
  for (auto [dim, size] : llvm::enumerate(inner))
    if (size != 0 && ShapedType::isDynamic(w.extent(dim)))
      size = 1;
  // Blocks of output channels one at a time (where the threads' level left
  // several), as above.
  if (blockedFilter && w.extent(*info.groupDim) > 1) {
    SmallVector<int64_t> blocks(numDims, 0);
    blocks[*info.groupDim] = 1;
    w.tile(blocks);
  }
  // A convolution whose weights for one channel tile (all input channels)
  // are large (3x3x512x32 floats: 590 KB, strided by the output channels)
  // first takes a channel tile and a slice of input channels whose weights
  // stay in cache while every output position uses them. ResNet-18's
  // 3x3 512->512 at 7x7 ran at half the speed without. One that sweeps its
  // input (above) takes the channel tile in any case.
  if (inputChannelDim) {
    int64_t kernelRows = w.extent(kernelRowDim);
    int64_t kernelColumns = w.extent(info.widthDims->window);
    int64_t inputChannels = w.extent(*inputChannelDim);
    // (Sized for the channel tile before it was widened for its
    // accumulators: halving the slice ran ResNet-18's 3x3 256->256 at
    // 14x14 10% slower.)
    int64_t tileBytes = kernelRows * kernelColumns * sliceChannels * 4;
    bool slicesInputs = !ShapedType::isDynamic(kernelRows) &&
                        !ShapedType::isDynamic(kernelColumns) &&
                        !ShapedType::isDynamic(inputChannels) &&
                        inputChannels * tileBytes > kConvWeightSliceBytes;
    if (slicesInputs || sweepsInput) {
      SmallVector<int64_t> cache(numDims, 0);
      cache[channelDim] = inner[channelDim];
      if (slicesInputs)
        cache[*inputChannelDim] = pickDividingTile(
            inputChannels,
            std::max<int64_t>(1, kConvWeightSliceBytes / tileBytes), 1);
      w.tile(cache);
    }
  }
  w.tile(inner);
  w.decompose();
  w.vectorize();
  if (info.inputChannelDim && reduces)
    w.hoistAccumulators();
  // A depthwise convolution keeps its accumulators in registers across the
  // kernel rows too, where they fit (fitsDepthwiseAccumulators): otherwise
  // every kernel row loads and stores them (MobileNetV2's 3x3/2 96 @112 ran
  // at 23 -> 38 GFLOP/s, 3x3 32 @112 at 42 -> 55, on Zen 4).
  else if (isStatic && reduces &&
           info.anchorClass == AnchorClass::DepthwiseConv2D &&
           !ShapedType::isDynamic(w.extent(info.widthDims->window)) &&
           fitsDepthwiseAccumulators(
               inner[columnDim], llvm::divideCeil(inner[channelDim], lanes),
               w.extent(info.widthDims->window), registers))
    w.hoistAccumulators();
}

void writeGeneric(ScheduleWriter &w, ArrayRef<utils::IteratorType> kinds,
                  int64_t lanes, unsigned threads, bool vectorizable) {
  unsigned numDims = kinds.size();
  bool isStatic = true;
  for (unsigned dim = 0; dim < numDims; ++dim)
    isStatic &= !ShapedType::isDynamic(w.extent(dim));
  if (threads > 1) {
    for (unsigned dim = 0; dim < numDims; ++dim) {
      if (kinds[dim] != utils::IteratorType::parallel ||
          ShapedType::isDynamic(w.extent(dim)) || w.extent(dim) < threads)
        continue;
      SmallVector<int64_t> outer(numDims, 0);
      outer[dim] = chunk(w.extent(dim), threads, 1);
      if (w.tile(outer))
        w.parallelize();
      break;
    }
  }
  if (!isStatic)
    return;
  SmallVector<int64_t> inner(numDims, 1);
  unsigned last = numDims - 1;
  if (kinds[last] == utils::IteratorType::parallel)
    inner[last] = pickTile(w.extent(last), 4 * lanes, lanes);
  else if (w.extent(last) <= kMaxWholeReduction)
    inner[last] = w.extent(last);
  else
    inner[last] = pickTile(w.extent(last), 1024, lanes);
  w.tile(inner);
  if (vectorizable)
    w.vectorize();
}
} // namespace

/// Whether `value`, computed in `op`'s body (or outside it), is the same
/// along `op`'s loop `innermost`: what MLIR's vectorizer takes for a loop
/// invariant, so not a block argument (an element of an input).
static bool isInvariantAlong(linalg::LinalgOp op, Value value,
                             unsigned innermost) {
  if (isa<BlockArgument>(value))
    return value.getParentBlock() != op.getBlock();
  Operation *def = value.getDefiningOp();
  if (!op->isProperAncestor(def))
    return true;
  if (auto index = dyn_cast<linalg::IndexOp>(def))
    return index.getDim() != innermost;
  return llvm::all_of(def->getOperands(), [&](Value operand) {
    return isInvariantAlong(op, operand, innermost);
  });
}

/// Whether `value` steps by one along `op`'s loop `innermost`: its index,
/// plus what is invariant along it.
static bool stepsAlong(linalg::LinalgOp op, Value value, unsigned innermost) {
  if (auto index = value.getDefiningOp<linalg::IndexOp>())
    return index.getDim() == innermost;
  auto add = value.getDefiningOp<arith::AddIOp>();
  return add && ((stepsAlong(op, add.getLhs(), innermost) &&
                  isInvariantAlong(op, add.getRhs(), innermost)) ||
                 (stepsAlong(op, add.getRhs(), innermost) &&
                  isInvariantAlong(op, add.getLhs(), innermost)));
}

bool mlir::tcl::isVectorizableGeneric(linalg::LinalgOp op) {
  unsigned innermost = op.getNumLoops() - 1;
  bool gathers = false;
  op->walk([&](tensor::ExtractOp extract) {
    OperandRange indices = extract.getIndices();
    if (indices.empty())
      return;
    ArrayRef<int64_t> shape = extract.getTensor().getType().getShape();
    for (auto [d, index] : llvm::enumerate(indices.drop_back()))
      gathers |= shape[d] != 1 && !isInvariantAlong(op, index, innermost);
    gathers |= !isInvariantAlong(op, indices.back(), innermost) &&
               !stepsAlong(op, indices.back(), innermost);
  });
  return !gathers && llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
    return map.isProjectedPermutation(/*allowZeroInResults=*/true);
  });
}

ScheduleOp mlir::tcl::buildDefaultSchedule(OpBuilder &builder,
                                           linalg::LinalgOp anchor,
                                           StringRef task,
                                           const Platform &platform,
                                           bool hasEpilogue) {
  assert(anchor.getNumLoops() > 0 &&
         "a rank-0 op has no loop to schedule (see isTaskAnchor)");
  std::string kinds;
  for (utils::IteratorType kind : anchor.getIteratorTypesArray())
    kinds.push_back(kind == utils::IteratorType::reduction ? 'r' : 'p');
  StringRef opName = getAnchorName(anchor);
  auto schedule = builder.create<ScheduleOp>(
      anchor->getLoc(), task, opName, platform.getTargetName(),
      anchor.getStaticLoopRanges(), kinds);
  const AnchorInfo *info = lookupAnchor(opName);
  if (!info)
    return schedule;
  int64_t lanes = std::max<int64_t>(1, platform.getTarget().vectorBits / 32);
  unsigned threads = platform.getThreads();
  unsigned registers =
      HardwareFeatures::fromTarget(platform.getTarget(), threads)
          .vectorRegisters;
  {
    OpBuilder::InsertionGuard guard(builder);
    ScheduleWriter writer(builder, schedule);
    if (platform.getTarget().kind == TargetKind::GPU)
      writeGpuDefaultSchedule(writer, info->anchorClass,
                              anchor.getIteratorTypesArray(), hasEpilogue);
    else
      switch (info->anchorClass) {
      case AnchorClass::Matmul:
        writeMatmul(writer, 0, lanes, registers, threads, hasEpilogue);
        break;
      case AnchorClass::BatchMatmul:
        writeMatmul(writer, 1, lanes, registers, threads, hasEpilogue);
        break;
      case AnchorClass::Conv2D:
      case AnchorClass::DepthwiseConv2D:
      case AnchorClass::Pool2D:
        writeWindowOp(writer, *info, lanes, registers, threads, hasEpilogue,
                      getAnchorFill(anchor) != nullptr);
        break;
      case AnchorClass::Generic:
        writeGeneric(writer, anchor.getIteratorTypesArray(), lanes, threads,
                     isVectorizableGeneric(anchor));
        break;
      case AnchorClass::Conv1D:
        break;
      }
  }
  // A heuristic that produced an invalid schedule for some shape must not
  // break compilation: fall back to plain loops.
  ScopedDiagnosticHandler silence(builder.getContext(),
                                  [](Diagnostic &) { return success(); });
  if (failed(schedule.replay()))
    schedule.getBody().front().clear();
  return schedule;
}

namespace {
struct DefaultSchedulesPass
    : public mlir::tcl::impl::DefaultSchedulesBase<DefaultSchedulesPass> {
  using DefaultSchedulesBase::DefaultSchedulesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::Expected<Platform> platform = Platform::get(target, numThreads);
    if (!platform) {
      module.emitError("tcl-default-schedules: ")
          << llvm::toString(platform.takeError());
      return signalPassFailure();
    }
    llvm::StringSet<> scheduled;
    module.walk(
        [&](ScheduleOp schedule) { scheduled.insert(schedule.getTask()); });
    // Name untagged anchors and collect one anchor per unscheduled task.
    unsigned next = 0;
    llvm::StringSet<> epilogueTasks;
    SmallVector<std::pair<linalg::LinalgOp, std::string>> anchors;
    llvm::StringSet<> seen;
    module.walk([&](linalg::LinalgOp op) {
      // Scheduled code keeps its task's tag (a partial tile: another shape).
      if (op->getParentOfType<ScheduleOp>() || isInsideTaskNest(op))
        return;
      if (auto tag = op->getAttrOfType<StringAttr>(kEpilogueAttrName)) {
        epilogueTasks.insert(tag.getValue());
        return;
      }
      // A rank-0 op has no loop to schedule, even when tagged: plain code.
      if (op.getNumLoops() == 0)
        return;
      auto task = op->getAttrOfType<StringAttr>(kTaskAttrName);
      if (!task) {
        if (!isTaskAnchor(op))
          return;
        std::string name;
        do
          name = "default_" + std::to_string(next++);
        while (scheduled.contains(name) || seen.contains(name));
        task = StringAttr::get(&getContext(), name);
        op->setAttr(kTaskAttrName, task);
      }
      if (scheduled.contains(task.getValue()) ||
          !seen.insert(task.getValue()).second)
        return;
      anchors.push_back({op, task.getValue().str()});
    });
    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    for (auto &[anchor, task] : anchors)
      buildDefaultSchedule(builder, anchor, task, *platform,
                           epilogueTasks.contains(task));
  }
};
} // namespace
