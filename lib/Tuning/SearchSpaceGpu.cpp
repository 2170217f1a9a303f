//===- SearchSpaceGpu.cpp - The GPU sketch of every op class --------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// On a GPU every op class has one sketch: a block level over the innermost
// parallel loops, a thread level, and a sequential level over the
// reductions; matmuls may keep a thread's outputs in registers and read
// the block's input tiles from shared memory.
//
//===----------------------------------------------------------------------===//

#include "tcl/Transforms/Passes.h"
#include "tcl/Tuning/SearchSpace.h"

using namespace mlir;
using namespace mlir::tcl;

namespace {
enum GpuKnob { kGpuUnroll = 0, kGpuRegisters, kGpuShared };
/// A GPU matmul's register tile (knob `registers`): at most this many
/// accumulators a thread, and this many elements in its vectorized step
/// (accumulators times the k step); a larger tile stays scalar, since its
/// accumulators would spill.
constexpr int64_t kMaxGpuAccumulators = 64, kMaxGpuRegisterStep = 256;
/// Shared memory a block may have without opting in (its inputs' tiles of
/// a step, knob `shared`); a larger step keeps its tiles in global memory.
constexpr int64_t kMaxGpuSharedBytes = 48 * 1024;
/// Loops a GPU sketch maps onto blocks and onto threads: the innermost
/// parallel ones (a grid has 3 dimensions; threads x and y).
constexpr unsigned kGpuBlockLoops = 3, kGpuThreadLoops = 2;
} // namespace

bool SearchSpace::setUpGpuSketch(AnchorClass anchorClass) {
  unsigned numDims = extents.size();
  using R = Rule;
  // Every op class: a block level over the innermost parallel loops, a
  // thread level (each thread's tile of the innermost two), a sequential
  // level over the reductions.
  gpu = true;
  std::vector<R> blocks(numDims, R::Parent), threads(numDims, R::Parent),
      reductions(numDims, R::Parent);
  unsigned blockLoops = 0, threadLoops = 0;
  for (unsigned d = numDims; d-- > 0;) {
    if (loopKinds[d] == 'r') {
      reductions[d] = R::Free;
      continue;
    }
    if (blockLoops++ < kGpuBlockLoops)
      blocks[d] = R::Free;
    if (threadLoops++ < kGpuThreadLoops)
      threads[d] = R::Free;
  }
  if (blockLoops == 0)
    return false;
  rules = {blocks, threads, reductions};
  knobNames = {"unroll"};
  knobChoices = {{1, 2, 4}};
  // Matmuls may keep each thread's outputs in registers across k.
  if (anchorClass == AnchorClass::Matmul ||
      anchorClass == AnchorClass::BatchMatmul) {
    knobNames.push_back("registers");
    knobChoices.push_back({0, 1});
    // And, with a register tile, read the block's tiles of the inputs
    // from shared memory, a step of k at a time.
    knobNames.push_back("shared");
    knobChoices.push_back({0, 1});
  }
  return true;
}

int64_t SearchSpace::getGpuSharedBytes(const Genome &genome) const {
  // A matmul's loops: [batch...,] m, n, k. Per step of k, A's tile is
  // batch x m and B's batch x n, each row padded.
  size_t numDims = extents.size();
  if (numDims < 3)
    return 0;
  int64_t batch = 1;
  for (size_t dim = 0; dim + 3 < numDims; ++dim)
    batch *= genome.tiles[0][dim];
  int64_t rows = genome.tiles[0][numDims - 3] + kSharedRowPadding;
  int64_t columns = genome.tiles[0][numDims - 2] + kSharedRowPadding;
  return genome.tiles[2][numDims - 1] * batch * (rows + columns) *
         static_cast<int64_t>(sizeof(float));
}

int64_t SearchSpace::getGpuThreadsPerBlock(const Genome &genome) const {
  int64_t threads = 1;
  for (size_t dim = 0; dim < extents.size(); ++dim)
    threads *= genome.tiles[0][dim] / genome.tiles[1][dim];
  return threads;
}

void SearchSpace::buildGpu(OpBuilder &b, Location loc,
                           const Genome &genome) const {
  // The block and thread levels must exist even where a genome's tiles are
  // whole (one block, one thread): their loops of one trip are kept.
  auto mappedLevel = [&](unsigned level, ParallelMapping mapping) {
    SmallVector<int64_t> sizes;
    for (size_t dim = 0; dim < extents.size(); ++dim)
      sizes.push_back(rules[level][dim] == Rule::Free ? genome.tiles[level][dim]
                                                      : 0);
    b.create<TileOp>(loc, b.getDenseI64ArrayAttr(sizes));
    b.create<ParallelizeOp>(loc, mapping);
  };
  mappedLevel(0, ParallelMapping::GpuBlocks);
  if (hasEpilogue)
    b.create<FuseEpilogueOp>(loc);
  mappedLevel(1, ParallelMapping::GpuThreads);
  SmallVector<int64_t> sizes;
  std::optional<int64_t> innermostReduction;
  for (size_t dim = 0; dim < extents.size(); ++dim) {
    int64_t size = genome.tiles[2][dim];
    bool tiled = rules[2][dim] == Rule::Free && size != genome.tiles[1][dim];
    sizes.push_back(tiled ? size : 0);
    if (tiled)
      innermostReduction = dim;
  }
  // A register tile: the thread's outputs (its tile's parallel part) and a
  // step of the reduction, vectorized, the accumulators hoisted out of the
  // reduction loop where there is one.
  int64_t accumulators = 1, step = 1;
  for (size_t dim = 0; dim < extents.size(); ++dim) {
    step *= genome.tiles[2][dim];
    if (loopKinds[dim] == 'p')
      accumulators *= genome.tiles[2][dim];
  }
  // With the step's tiles of A and B in shared memory (pad on a GPU), the
  // register tile takes one k at a time.
  bool shared = innermostReduction && genome.knobs.size() > kGpuShared &&
                genome.knobs[kGpuShared] &&
                getGpuSharedBytes(genome) <= kMaxGpuSharedBytes;
  if (shared)
    step = accumulators;
  if (genome.knobs.size() > kGpuRegisters && genome.knobs[kGpuRegisters] &&
      accumulators <= kMaxGpuAccumulators && step <= kMaxGpuRegisterStep) {
    if (innermostReduction)
      b.create<TileOp>(loc, b.getDenseI64ArrayAttr(sizes));
    if (shared) {
      b.create<PadOp>(loc, b.getDenseI64ArrayAttr({0, 1}), IntegerAttr());
      SmallVector<int64_t> single(extents.size(), 0);
      single[*innermostReduction] = 1;
      b.create<TileOp>(loc, b.getDenseI64ArrayAttr(single));
    }
    b.create<VectorizeOp>(loc);
    if (innermostReduction)
      b.create<HoistAccumulatorsOp>(loc);
    return;
  }
  if (!innermostReduction)
    return;
  b.create<TileOp>(loc, b.getDenseI64ArrayAttr(sizes));
  int64_t trips = genome.tiles[1][*innermostReduction] /
                  genome.tiles[2][*innermostReduction];
  int64_t factor = std::min(genome.knobs[kGpuUnroll], trips);
  if (factor > 1)
    b.create<UnrollOp>(loc, b.getI64IntegerAttr(2),
                       b.getI64IntegerAttr(*innermostReduction),
                       b.getI64IntegerAttr(factor));
}
