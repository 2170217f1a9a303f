//===- SearchSpace.h - Sketches and random schedules of a task --*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The schedule space of one task. A sketch rule per anchor class fixes the
// structure of the schedule (the tile levels, which loops each level may
// tile, packing, parallelization, epilogue fusion, vectorization,
// accumulator hoisting, unrolling); a genome fills in its parameters:
//
//   matmul / batch matmul: outer level (parallel m, n, batch) [parallelize]
//     [fuse_epilogue]; cache level (m, n, k) [loop order m-n-k, n-m-k or
//     n-k-m] [B packed]; register level (m, n; k = 1; its n is the vector
//     width); vectorize; hoist; unroll k by u.
//   2-D window ops: outer level (output rows, channels, groups)
//     [parallelize] [fuse_epilogue]; inner level (1 row, columns, channels;
//     1 input channel and kernel column for convolutions, 1 group for
//     grouped ones); decompose; vectorize; [hoist, when the inner level
//     has a reduction loop].
//   generic: outer level (parallel loops) [parallelize]; inner level (the
//     innermost loop, the others 1); [vectorize].
//   any op class on a GPU: block level (the innermost 3 parallel loops),
//     parallelize blocks [fuse_epilogue]; thread level (each thread's tile
//     of the innermost 2; at most 1024 threads), parallelize threads;
//     reduction level (the reductions) [unroll the innermost by u].
//
// Tile sizes are chains of divisors: a loop's size at each level divides
// its size at the level above, so tiles are always full. The verifier is
// the judge of the rest: build() may produce a schedule that does not
// verify, and the search discards it.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_SEARCHSPACE_H
#define TCL_TUNING_SEARCHSPACE_H

#include "tcl/Dialect/Tcl/IR/TclOps.h"
#include "tcl/Target/Platform.h"

#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace mlir::linalg {
class LinalgOp;
} // namespace mlir::linalg

namespace mlir::tcl {

/// A point of a search space.
struct Genome {
  /// tiles[level][dim]: the loop's tile size at that level (its size at the
  /// level above: not tiled there).
  std::vector<std::vector<int64_t>> tiles;
  /// The sketch's discrete choices (see SearchSpace::getKnobNames).
  std::vector<int64_t> knobs;

  /// "64,64,128|8,32,1;1,0,4": levels by '|', then the knobs.
  std::string str() const;
  static std::optional<Genome> parse(llvm::StringRef text);
  bool operator==(const Genome &other) const {
    return tiles == other.tiles && knobs == other.knobs;
  }
};

class SearchSpace {
public:
  /// The space of the task anchored at `anchor` (a payload op with static
  /// shapes) on `platform`, or null if tcl has no sketch for it.
  static std::unique_ptr<SearchSpace>
  create(linalg::LinalgOp anchor, const Platform &platform, bool hasEpilogue);

  /// A random genome (random annotation of the sketch).
  Genome sample(std::mt19937_64 &rng) const;
  /// Changes one tile chain entry (re-fitting the levels below) or one
  /// knob.
  Genome mutate(const Genome &genome, std::mt19937_64 &rng) const;
  /// Takes each loop's whole tile chain, and each knob, from one parent or
  /// the other.
  Genome crossover(const Genome &a, const Genome &b,
                   std::mt19937_64 &rng) const;
  /// Whether `genome` has this space's shape, valid tile chains (sizes that
  /// divide the level above where the level is parallel) and an innermost
  /// tile of at most 4096 elements (it is unrolled into vector
  /// code; larger ones take minutes to compile).
  bool isWellFormed(const Genome &genome) const;

  /// Builds the schedule of `genome` for task `task` at `builder`'s
  /// insertion point. It may not verify.
  ScheduleOp build(OpBuilder &builder, Location loc, llvm::StringRef task,
                   const Genome &genome) const;

  /// The genome whose schedule is `schedule`'s (the same primitives, in
  /// the same order), if the space has one: a default schedule's, so that
  /// the search evolves it too. Tries the schedule's tile levels as the
  /// genome's levels with every choice of the knobs.
  std::optional<Genome> findGenome(ScheduleOp schedule) const;

  llvm::ArrayRef<std::string> getKnobNames() const { return knobNames; }
  llvm::ArrayRef<int64_t> getExtents() const { return extents; }

private:
  enum class Rule { Free, One, Parent };
  SearchSpace() = default;
  Genome sampleOnce(std::mt19937_64 &rng) const;
  Genome mutateOnce(const Genome &genome, std::mt19937_64 &rng) const;
  Genome crossoverOnce(const Genome &a, const Genome &b,
                       std::mt19937_64 &rng) const;
  /// Whether tile level `level` of `genome` is sequential: its loops are
  /// peeled where a tile does not divide (an scf.forall is not).
  bool isPeeledLevel(const Genome &genome, unsigned level) const;
  /// The sizes a free tile of `parent` may take: its divisors, and at a
  /// peeled level the powers of two below it too (odd extents such as 1000
  /// channels or 13 columns have few useful divisors).
  std::vector<int64_t> getTileChoices(int64_t parent, bool peeled) const;
  /// A random size of a tile of `parent` allowed by `rule`.
  int64_t pick(Rule rule, int64_t parent, bool peeled,
               std::mt19937_64 &rng) const;
  void refit(Genome &genome, unsigned fromLevel, unsigned dim,
             std::mt19937_64 &rng) const;
  /// The GPU sketch's levels and knobs for an op of `anchorClass`; false
  /// if it has no parallel loop to spread over blocks.
  bool setUpGpuSketch(AnchorClass anchorClass);
  /// GPU sketches: the threads of a block (block tiles / thread tiles).
  int64_t getGpuThreadsPerBlock(const Genome &genome) const;
  /// GPU matmul sketches: the bytes of shared memory the block's tiles of
  /// A and B at one step of k take (knob `shared`).
  int64_t getGpuSharedBytes(const Genome &genome) const;
  /// GPU sketches: the schedule of `genome`.
  void buildGpu(OpBuilder &b, Location loc, const Genome &genome) const;

  AnchorClass anchorClass;
  std::string anchorName;
  std::string target;
  std::string loopKinds;
  std::vector<int64_t> extents;
  /// rules[level][dim].
  std::vector<std::vector<Rule>> rules;
  std::vector<std::string> knobNames;
  std::vector<std::vector<int64_t>> knobChoices;
  bool hasEpilogue = false;
  /// Matmul: batch loops before m, n, k.
  unsigned batchDims = 0;
  /// Window ops: the loops of the register tile's columns and channels and
  /// of the kernel's columns; the ISA's vector lanes and registers (whether
  /// a depthwise tile's accumulators fit them, fitsDepthwiseAccumulators).
  unsigned columnDim = 0, channelDim = 0, kernelColumnDim = 0;
  /// A full convolution: the loop of its input channels.
  std::optional<unsigned> inputChannelDim;
  /// A convolution with its filter in blocks of output channels: the loop
  /// of the blocks (knob `blocks`: one block at a time below the outer
  /// level, as its default schedule computes them).
  std::optional<unsigned> blockDim;
  int64_t lanes = 1;
  unsigned vectorRegisters = 0;
  /// The GPU sketch (the same for every op class).
  bool gpu = false;
};

} // namespace mlir::tcl

#endif // TCL_TUNING_SEARCHSPACE_H
