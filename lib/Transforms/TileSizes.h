//===- TileSizes.h - Tile sizes of the default schedules --------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// How the CPU default schedules (DefaultSchedule.cpp) size their thread,
// cache and register tiles: the pickers and what they weigh (registers,
// vector remainders, thread balance). Private to lib/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_LIB_TRANSFORMS_TILESIZES_H
#define TCL_LIB_TRANSFORMS_TILESIZES_H

#include <cstdint>
#include <optional>

namespace mlir::tcl::tiles {

/// Splits `extent` into about `parts` chunks, each a multiple of `multiple`.
int64_t chunk(int64_t extent, int64_t parts, int64_t multiple);

/// A register tile: output columns (a window op's) or rows (a matmul's) x
/// channels or columns in vector lanes.
struct RegisterTile {
  int64_t columns;
  int64_t channels;
};

/// Whether `size` lanes are whole vectors or one power-of-two vector
/// narrower than the ISA's: other sizes (24 or 20 lanes of 16) take
/// several pieces (getVectorOps), more vector ops than their lanes need.
bool isWholeVectors(int64_t size, int64_t lanes);

/// Accumulators a register tile needs in flight to hide the multiply-adds'
/// latency, and the most the register file holds beside the operands.
int64_t getLatencyAccumulators(unsigned registers);
int64_t getMaxAccumulators(unsigned registers);

/// Whether a register tile of `columns` x `vectors` accumulators fits the
/// registers beside one row of the other operand's vectors and a
/// broadcast. (7 x 4 vectors did not: LLVM spilled and shuffled registers
/// on every step, 15% slower than 7 x 2 on a 49x440x440 matmul.)
bool fitsRegisters(int64_t columns, int64_t vectors, unsigned registers);

/// Whether the remainder that register tiles of `size` lanes leave of
/// `extent` (a peeled tile, see LoopDim::peeled) is none or one
/// power-of-two piece; others are split into several (getVectorOps), which
/// thread and cache tiles avoid.
bool hasVectorRemainder(int64_t extent, int64_t size);

/// The vector ops (registers) of a register tile row of `size` lanes: the
/// emitter splits it into power-of-two pieces (SplitVectorRemaindersOp,
/// 24 = 16 + 8), each of whole vectors or one narrower.
int64_t getVectorOps(int64_t size, int64_t lanes);

/// The register tile for `width` output columns (or rows) and `channels`
/// channels (or columns) when the usual one (8 x 2 vectors) does not fit
/// them (1000 channels, a 13x13 map, 100 rows, one row): tiles of a
/// power-of-two number of lanes, no more accumulators than `registers`
/// hold (remainder tiles included: they are split into power-of-two
/// pieces, see getVectorOps), at the least cost in FMA issue slots per
/// reduction step over the whole plane, remainder tiles included (a tile
/// with fewer accumulators than the latency needs costs as if it had that
/// many), then with the fewest remainder tiles. (Falling back to one
/// column of one channel made such convolutions scalar and latency-bound:
/// 25x slower than a tuned schedule; allowing only tiles that divide the
/// extents left 8-lane tiles for 1000 channels, 30% below the vendor
/// library; allowing only power-of-two remainders left one-vector tiles
/// for 440 columns, 20% slower than two vectors with 24 = 16 + 8 left.)
RegisterTile pickRegisterTile(int64_t width, int64_t channels, int64_t lanes,
                              unsigned registers);

/// For a convolution with a kernel window: a register tile of all its
/// `channels` output channels where they are more than a vector but not
/// whole vectors, at most 4 of them (split into power-of-two pieces), and
/// pickRegisterTile's tile would leave a remainder of several pieces,
/// over the most columns up to 16 that divide the map's `width` and fit the
/// registers beside the weights and a broadcast while keeping the latency's
/// accumulators; none otherwise. Each broadcast of the input then serves
/// every piece: 3x3 52->52 at 28x28 ran 218-229 GFLOP/s at 4 x (16 + 16 +
/// 16 + 4) lanes (7 x 52 the same) against 201 at pickRegisterTile's 14 x
/// 32 with a 14 x 20 remainder; 44 channels 172 -> 194, 26 channels 122 ->
/// 153, with AVX2 76 -> 102 (Zen 5, one thread).
std::optional<RegisterTile> pickWholeChannelTile(int64_t width,
                                                 int64_t channels,
                                                 int64_t lanes,
                                                 unsigned registers);

/// A cache tile of `extent` for register tiles of `multiple`: the extent if
/// it is at most `preferred`, else a multiple of `multiple` that divides it
/// and is at least half of `preferred`, else the largest multiple of
/// `multiple` up to `preferred` (its loop is peeled; the register tiles in
/// every full cache tile are then whole).
int64_t pickCacheTile(int64_t extent, int64_t preferred, int64_t multiple);

/// The tile of a level that fuses the epilogue, with one thread, for
/// register tiles of `registerTile`: the largest divisor of `extent` up to
/// `preferred` that is at least half of it or a multiple of `registerTile`
/// (fused ops are vectorized only in tiles that divide the domain) and,
/// with `vectorRemainder`, leaves a register-tile remainder that
/// vectorizes; else pickCacheTile's.
int64_t pickFusedTile(int64_t extent, int64_t preferred, int64_t registerTile,
                      bool vectorRemainder);

/// How well a parallel tile of `tile` balances `extent` over `threads`.
double getThreadBalance(int64_t extent, int64_t tile, unsigned threads);

/// The tile of a parallel level over `threads`, or 0 if none fits: it
/// divides `extent` (an scf.forall is not peeled: its partial tiles would
/// have sizes known only at run time, which a convolution cannot vectorize
/// and a matmul pads on every reduction step) into `threads` to 4 x
/// `threads` tiles (8 x where none of those counts divides it), the count
/// that balances the threads best, then a multiple of `multiple`, then the
/// largest. With `lanes`, only tiles whose vectors of `lanes` leave a
/// remainder that vectorizes (a channel split).
int64_t pickThreadTile(int64_t extent, unsigned threads, int64_t multiple,
                       int64_t lanes);

/// The tile of a thread level over a dimension that register tiles of
/// `lanes`-wide vectors cover (a matmul's columns, a convolution's
/// channels): pickThreadTile's, whose remainder vectorizes as well as the
/// whole extent's would with tiles of two vectors. (Halving 1000 columns
/// left 20 lanes over, 500 = 15 x 32 + 20, so the register tiles fell back
/// to one vector: a 169x1000x512 matmul ran 7% slower on two threads than
/// in five tiles of 200 = 6 x 32 + 8.) `multiple` as pickThreadTile's.
int64_t pickVectorThreadTile(int64_t extent, unsigned threads, int64_t multiple,
                             int64_t lanes);

/// The largest multiple of `multiple` (which divides `extent`) that divides
/// `extent` and is at most `preferred` (at least `multiple`): a tile with no
/// partial remainder, whose register tiles are all whole.
int64_t pickDividingTile(int64_t extent, int64_t preferred, int64_t multiple);

} // namespace mlir::tcl::tiles

#endif // TCL_LIB_TRANSFORMS_TILESIZES_H
