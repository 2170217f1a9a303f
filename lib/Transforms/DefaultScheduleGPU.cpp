//===- DefaultScheduleGPU.cpp - Untuned schedules for NVIDIA GPUs ---------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// One rule for every op class, over the anchor's parallel loops:
//
//   threads: the innermost parallel loop onto x (neighbouring threads write
//     neighbouring elements: coalesced), the next one onto y, at most
//     kThreadsPerBlock threads; each thread computes a register tile of
//     kReuseTile x kReuseTile outputs for convolutions, one output for
//     the others (elementwise, reductions, pooling, depthwise);
//   matmuls and batch matmuls: a register tile of up to 8 x 8 outputs
//     that stays in registers across the reduction (vectorized, its
//     accumulators hoisted out of the k loop: each step of k loads a
//     column of A and a row of B (128-bit loads) and does 8 x 8
//     multiply-adds), 256 threads; the tiles shrink while the grid would
//     have fewer than kMinBlocks blocks;
//   blocks: one thread level's worth of those loops, and one index of the
//     next outer parallel loop (a grid has three dimensions; loops further
//     out stay whole, a loop in every thread); the epilogue fused at this
//     level and again, element by element, at the thread level;
//   reductions stay whole in each thread.
//
// Every tile size divides its extent (a dynamic extent gets tile 1), so
// blocks are full and every thread loop has a static trip count.
//
//===----------------------------------------------------------------------===//

#include "ScheduleWriter.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tcl;

namespace {
constexpr int64_t kThreadsPerBlock = 256;
constexpr int64_t kThreadsX = 64;
constexpr int64_t kReuseTile = 4;
// Matmuls: the best of the schedules measured on an H100 (2048^3, kernels
// timed with CUDA events, scripts/gpu-check.sh): 8 x 8 outputs a thread and
// 16 x 16 threads, k one step at a time, 1.09 ms (the scalar 4 x 4 tiles
// before: 50.9 ms; cuBLAS: 0.36 ms). Steps of 4 took 1.43 ms, but needed
// 240 registers then (constants were kernel arguments); now 128.
constexpr int64_t kMatmulRegisterTile = 8;
constexpr int64_t kMatmulThreads = 16;
constexpr int64_t kMatmulReductionTile = 1;
// About one block per multiprocessor of an H100 (132) or an A100 (108).
constexpr int64_t kMinBlocks = 128;

/// The largest divisor of `extent` that is at most `limit` (1 for a dynamic
/// extent).
int64_t largestDivisor(int64_t extent, int64_t limit) {
  if (ShapedType::isDynamic(extent))
    return 1;
  for (int64_t size = std::min(extent, limit); size > 1; --size)
    if (extent % size == 0)
      return size;
  return 1;
}

bool isMatmul(AnchorClass anchorClass) {
  return anchorClass == AnchorClass::Matmul ||
         anchorClass == AnchorClass::BatchMatmul;
}

/// Gives each of `dims` (the thread dimensions, x first) a register tile,
/// the largest divisor of its extent up to `perThread`, and threads: up to
/// `limitX` along x, what is left of `budget` along y. Returns the blocks
/// the grid has along them.
int64_t assignThreadTiles(ScheduleWriter &w, ArrayRef<unsigned> dims,
                          int64_t perThread, int64_t limitX, int64_t budget,
                          SmallVector<int64_t> &registerTile,
                          SmallVector<int64_t> &threads) {
  int64_t blocks = 1;
  for (auto [index, dim] : llvm::enumerate(dims)) {
    int64_t extent = w.extent(dim);
    registerTile[dim] = largestDivisor(extent, perThread);
    int64_t rest =
        ShapedType::isDynamic(extent) ? 1 : extent / registerTile[dim];
    threads[dim] = largestDivisor(
        rest, index == 0 ? limitX : budget / threads[dims.front()]);
    if (!ShapedType::isDynamic(extent))
      blocks *= extent / (registerTile[dim] * threads[dim]);
  }
  return blocks;
}

/// A matmul's register tile and threads: the largest tile and block, from
/// 8 x 8 outputs a thread and 256 threads (at most 16 along x; y takes the
/// rest when x is narrow) down to 64 threads, whose grid has at least
/// kMinBlocks blocks (counting the batch, one block an index); the smallest
/// if none.
void pickMatmulTiles(ScheduleWriter &w, ArrayRef<unsigned> dims,
                     int64_t batchBlocks, SmallVector<int64_t> &registerTile,
                     SmallVector<int64_t> &threads) {
  for (int64_t tile = kMatmulRegisterTile; tile >= 1; tile /= 2)
    for (int64_t budget = kThreadsPerBlock; budget >= 64; budget /= 2)
      if (batchBlocks * assignThreadTiles(w, dims, tile, kMatmulThreads, budget,
                                          registerTile, threads) >=
          kMinBlocks)
        return;
}
} // namespace

void mlir::tcl::writeGpuDefaultSchedule(ScheduleWriter &w,
                                        AnchorClass anchorClass,
                                        ArrayRef<utils::IteratorType> kinds,
                                        bool hasEpilogue) {
  SmallVector<unsigned> parallel;
  for (auto [dim, kind] : llvm::enumerate(kinds))
    if (kind == utils::IteratorType::parallel)
      parallel.push_back(dim);
  if (parallel.empty())
    return;
  unsigned numDims = kinds.size();
  // Thread dimensions, x first.
  SmallVector<unsigned, 2> threadDims;
  for (unsigned dim : llvm::reverse(parallel))
    if (threadDims.size() < 2)
      threadDims.push_back(dim);
  SmallVector<int64_t> registerTile(numDims, 0), threads(numDims, 1);
  // The batch loop (the next outer parallel one) gives a block an index.
  bool hasBatch = parallel.size() > threadDims.size();
  int64_t batchExtent =
      hasBatch ? w.extent(parallel[parallel.size() - threadDims.size() - 1])
               : 1;
  bool registerMatmul = isMatmul(anchorClass) && threadDims.size() == 2 &&
                        parallel.size() < numDims;
  if (registerMatmul) {
    pickMatmulTiles(w, threadDims,
                    ShapedType::isDynamic(batchExtent) ? 1 : batchExtent,
                    registerTile, threads);
  } else {
    assignThreadTiles(w, threadDims,
                      anchorClass == AnchorClass::Conv2D ? kReuseTile : 1,
                      kThreadsX, kThreadsPerBlock, registerTile, threads);
  }
  // The block level: the thread dimensions' block tiles, one index of the
  // next outer parallel loop. Sizes equal to an extent are kept (a loop of
  // one trip): the level must exist even when one block does it all.
  SmallVector<int64_t> blockTile(numDims, 0);
  for (unsigned dim : threadDims)
    blockTile[dim] = registerTile[dim] * threads[dim];
  if (hasBatch)
    blockTile[parallel[parallel.size() - threadDims.size() - 1]] = 1;
  w.tileExactly(blockTile);
  w.parallelize(ParallelMapping::GpuBlocks);
  if (hasEpilogue)
    w.fuseEpilogue();
  w.tileExactly(registerTile);
  w.parallelize(ParallelMapping::GpuThreads);
  if (!registerMatmul)
    return;
  // The reduction in steps of kMatmulReductionTile (the rest of the
  // thread's loops whole), the step vectorized, the accumulators hoisted.
  SmallVector<int64_t> reductionTile(numDims, 0);
  for (auto [dim, kind] : llvm::enumerate(kinds))
    if (kind == utils::IteratorType::reduction)
      reductionTile[dim] = largestDivisor(w.extent(dim), kMatmulReductionTile);
  w.tileExactly(reductionTile);
  w.vectorize();
  w.hoistAccumulators();
}
