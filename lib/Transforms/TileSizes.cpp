//===- TileSizes.cpp - Tile sizes of the default schedules ----------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// See TileSizes.h for what each picker weighs and why.
//
//===----------------------------------------------------------------------===//

#include "TileSizes.h"
#include "ScheduleWriter.h"
#include "VectorPieces.h"

#include "tcl/Dialect/Tcl/IR/ScheduleState.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>

namespace mlir::tcl::tiles {

int64_t chunk(int64_t extent, int64_t parts, int64_t multiple) {
  int64_t size = llvm::divideCeil(extent, parts);
  return std::min<int64_t>(extent, llvm::alignTo(size, multiple));
}

bool isWholeVectors(int64_t size, int64_t lanes) {
  return size % lanes == 0 || (size < lanes && llvm::isPowerOf2_64(size));
}

int64_t getLatencyAccumulators(unsigned registers) { return registers / 2; }

int64_t getMaxAccumulators(unsigned registers) { return registers - 4; }

bool fitsRegisters(int64_t columns, int64_t vectors, unsigned registers) {
  return columns * vectors <= getMaxAccumulators(registers) &&
         (columns + 1) * vectors + 1 <= static_cast<int64_t>(registers);
}

bool hasVectorRemainder(int64_t extent, int64_t size) {
  int64_t remainder = extent % size;
  return remainder == 0 || llvm::isPowerOf2_64(remainder);
}

int64_t getVectorOps(int64_t size, int64_t lanes) {
  int64_t ops = 0;
  for (int64_t piece : getVectorPieces(size))
    ops += llvm::divideCeil(piece, lanes);
  return ops;
}

RegisterTile pickRegisterTile(int64_t width, int64_t channels, int64_t lanes,
                              unsigned registers) {
  // The channel tiles of a power-of-two number of lanes up to 8 vectors,
  // narrower ones first. (Other widths are split into power-of-two pieces
  // when vectorized; unsplit, a 7 x 48 tile ran at 5 GFLOP/s.)
  SmallVector<int64_t> sizes;
  for (int64_t size = lanes / 2; size >= 1; size /= 2)
    sizes.push_back(size);
  for (int64_t size = lanes; size <= 8 * lanes; size *= 2)
    sizes.push_back(size);
  int64_t latency = getLatencyAccumulators(registers);
  auto slots = [&](int64_t columns, int64_t size) -> int64_t {
    if (columns == 0 || size == 0)
      return 0;
    return std::max<int64_t>(columns * getVectorOps(size, lanes), latency);
  };
  RegisterTile best{1, 1};
  int64_t bestCost = std::numeric_limits<int64_t>::max(), bestRemainders = 0;
  for (int64_t columns = 1; columns <= std::min<int64_t>(width, 16);
       ++columns) {
    for (int64_t size : sizes) {
      if (size > channels)
        continue;
      // Narrower than a vector only where the channels are (small groups).
      if (size < lanes && channels % size != 0)
        continue;
      int64_t fullColumns = width / columns, restColumns = width % columns;
      int64_t fullChannels = channels / size, restChannels = channels % size;
      int64_t vectors = getVectorOps(size, lanes);
      if (!fitsRegisters(columns,
                         std::max(vectors, getVectorOps(restChannels, lanes)),
                         registers))
        continue;
      int64_t cost = fullColumns * fullChannels * slots(columns, size) +
                     fullColumns * slots(columns, restChannels) +
                     fullChannels * slots(restColumns, size) +
                     slots(restColumns, restChannels);
      // Tiles of more than 2 vectors a row must save a tenth of the slots:
      // at about equal costs they ran slower (5 x 4 vectors against 13 x 2:
      // 9% on a 169x1000x512 matmul, 3% on 49x440x440, Zen 5).
      cost *= vectors > 2 ? 11 : 10;
      // Of equal costs, fewer remainder tiles (less peeled code).
      int64_t remainders = (restColumns ? fullChannels : 0) +
                           (restChannels ? fullColumns : 0) +
                           (restColumns && restChannels ? 1 : 0);
      if (cost < bestCost ||
          (cost == bestCost && remainders < bestRemainders)) {
        bestCost = cost;
        bestRemainders = remainders;
        best = {columns, size};
      }
    }
  }
  return best;
}

std::optional<RegisterTile> pickWholeChannelTile(int64_t width,
                                                 int64_t channels,
                                                 int64_t lanes,
                                                 unsigned registers) {
  if (ShapedType::isDynamic(width) || ShapedType::isDynamic(channels) ||
      channels <= lanes || channels % lanes == 0 || channels > 4 * lanes)
    return std::nullopt;
  // Where the usual tile leaves its channels' remainder in one piece, that
  // ran as fast or faster (20 = 16 + 4 channels: 158 GFLOP/s against 137
  // in one tile of 20, Zen 5, AVX-512; 103 against 71 with AVX2).
  RegisterTile usual = pickRegisterTile(width, channels, lanes, registers);
  if (hasVectorRemainder(channels, usual.channels))
    return std::nullopt;
  int64_t vectors = getVectorOps(channels, lanes);
  for (int64_t columns = std::min<int64_t>(16, width); columns >= 1; --columns)
    if (width % columns == 0 && fitsRegisters(columns, vectors, registers) &&
        columns * vectors >= getLatencyAccumulators(registers))
      return RegisterTile{columns, channels};
  return std::nullopt;
}

int64_t pickCacheTile(int64_t extent, int64_t preferred, int64_t multiple) {
  int64_t tile = pickTile(extent, preferred, multiple);
  if (ShapedType::isDynamic(extent) || extent % tile == 0 ||
      tile % multiple == 0)
    return tile;
  return std::max(multiple, preferred - preferred % multiple);
}

int64_t pickFusedTile(int64_t extent, int64_t preferred, int64_t registerTile,
                      bool vectorRemainder) {
  if (ShapedType::isDynamic(extent))
    return pickCacheTile(extent, preferred, registerTile);
  int64_t largest = std::min(extent, preferred);
  for (int64_t tile = largest; tile >= 1; --tile)
    if (extent % tile == 0 &&
        (2 * tile >= largest || tile % registerTile == 0) &&
        (!vectorRemainder || hasVectorRemainder(tile, registerTile)))
      return tile;
  return pickCacheTile(extent, preferred, registerTile);
}

double getThreadBalance(int64_t extent, int64_t tile, unsigned threads) {
  if (tile <= 0)
    return 0;
  return getParallelBalance(llvm::divideCeil(extent, tile), threads);
}

int64_t pickThreadTile(int64_t extent, unsigned threads, int64_t multiple,
                       int64_t lanes) {
  if (ShapedType::isDynamic(extent) || threads < 2)
    return 0;
  int64_t best = 0;
  double bestBalance = 0;
  bool bestAligned = false;
  // (169 rows, a 13x13 map, in 13 tiles ran a 169x1000x512 matmul 11%
  // faster on two threads than its 1000 columns in halves.)
  int64_t maxParts = 4 * static_cast<int64_t>(threads);
  if (llvm::none_of(llvm::seq<int64_t>(threads, maxParts + 1),
                    [&](int64_t parts) { return extent % parts == 0; }))
    maxParts *= 2;
  for (int64_t parts = threads; parts <= maxParts; ++parts) {
    if (extent % parts != 0)
      continue;
    int64_t tile = extent / parts;
    if (lanes && !hasVectorRemainder(tile, lanes))
      continue;
    double balance = getThreadBalance(extent, tile, threads);
    bool aligned = tile % multiple == 0;
    if (balance > bestBalance + 1e-9 ||
        (balance > bestBalance - 1e-9 && aligned && !bestAligned)) {
      best = tile;
      bestBalance = balance;
      bestAligned = aligned;
    }
  }
  return best;
}

int64_t pickVectorThreadTile(int64_t extent, unsigned threads, int64_t multiple,
                             int64_t lanes) {
  int64_t width = hasVectorRemainder(extent, 2 * lanes) ? 2 * lanes : lanes;
  return pickThreadTile(extent, threads, multiple, width);
}

int64_t pickDividingTile(int64_t extent, int64_t preferred, int64_t multiple) {
  int64_t best = multiple;
  for (int64_t size = multiple; size <= std::min(extent, preferred);
       size += multiple)
    if (extent % size == 0)
      best = size;
  return best;
}

} // namespace mlir::tcl::tiles
