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
//     kReuseTile x kReuseTile outputs for ops that reuse their inputs
//     across outputs (matmul, batch matmul, convolution), one output for
//     the others (elementwise, reductions, pooling, depthwise);
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

bool reusesInputs(AnchorClass anchorClass) {
  return anchorClass == AnchorClass::Matmul ||
         anchorClass == AnchorClass::BatchMatmul ||
         anchorClass == AnchorClass::Conv2D;
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
  int64_t perThread = reusesInputs(anchorClass) ? kReuseTile : 1;
  SmallVector<int64_t> registerTile(numDims, 0), threads(numDims, 1);
  int64_t budget = kThreadsPerBlock;
  for (auto [index, dim] : llvm::enumerate(threadDims)) {
    int64_t extent = w.extent(dim);
    registerTile[dim] = largestDivisor(extent, perThread);
    int64_t rest =
        ShapedType::isDynamic(extent) ? 1 : extent / registerTile[dim];
    threads[dim] = largestDivisor(rest, index == 0 ? kThreadsX : budget);
    budget /= threads[dim];
  }
  // The block level: the thread dimensions' block tiles, one index of the
  // next outer parallel loop. Sizes equal to an extent are kept (a loop of
  // one trip): the level must exist even when one block does it all.
  SmallVector<int64_t> blockTile(numDims, 0);
  for (unsigned dim : threadDims)
    blockTile[dim] = registerTile[dim] * threads[dim];
  if (parallel.size() > threadDims.size())
    blockTile[parallel[parallel.size() - threadDims.size() - 1]] = 1;
  w.tileExactly(blockTile);
  w.parallelize(ParallelMapping::GpuBlocks);
  if (hasEpilogue)
    w.fuseEpilogue();
  w.tileExactly(registerTile);
  w.parallelize(ParallelMapping::GpuThreads);
}
