//===- ScheduleState.h - Loop-nest state a schedule walks -------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// A tcl.sched.schedule is verified, tokenized and lowered by replaying its
// primitives over an abstract description of the anchor op's loop nest: the
// iteration domain (extent and kind per loop dimension) and the tile levels
// created so far. This file is the one place that knows how each primitive
// changes that description, so the verifier, the tokenizer and the lowering
// onto the transform dialect can never disagree.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_DIALECT_TCL_IR_SCHEDULESTATE_H
#define TCL_DIALECT_TCL_IR_SCHEDULESTATE_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cmath>
#include <cstdint>
#include <optional>

namespace mlir {
class Operation;
namespace tcl {

/// The operator classes a schedule can be anchored on. The tokenizer encodes
/// this as a one-hot; keep the order stable (it is part of the token layout).
enum class AnchorClass : unsigned {
  Matmul = 0,
  BatchMatmul,
  Conv2D,
  DepthwiseConv2D,
  Pool2D,
  Conv1D, // A 2-D window op after `decompose`.
  Generic,
};
constexpr unsigned kNumAnchorClasses = 7;

/// A pair of loop dimensions (output position, window position) that
/// `decompose` removes once both have extent 1.
struct WindowDims {
  unsigned output;
  unsigned window;
};

/// What tcl knows about a linalg operation that can anchor a schedule.
struct AnchorInfo {
  StringRef opName;
  AnchorClass anchorClass;
  /// 'p' (parallel) or 'r' (reduction) per loop dimension; empty for
  /// linalg.generic, whose loops the schedule declares.
  StringRef loopKinds;
  /// For 2-D window ops: the H and W (output, window) loop pairs.
  std::optional<WindowDims> heightDims, widthDims;
  /// For 2-D window ops: the channel loop that schedules vectorize (the
  /// output channel of a convolution, the channel of a depthwise
  /// convolution or pooling).
  std::optional<unsigned> channelDim;
  /// For convolutions: the input channel loop they reduce over.
  std::optional<unsigned> inputChannelDim;
  /// For grouped convolutions: the group loop, which `decompose` removes
  /// too (it must then have extent 1).
  std::optional<unsigned> groupDim;
  /// Operation name after `decompose` (empty if it cannot be decomposed).
  StringRef decomposedName;
  /// Whether MLIR's vectorizer handles this op directly.
  bool vectorizable;
};

/// Returns the description of `opName`, or nullptr if it cannot anchor a
/// schedule.
const AnchorInfo *lookupAnchor(StringRef opName);
/// Returns the description of payload op `op`, or nullptr if it cannot
/// anchor a schedule. A linalg.generic of a form tcl schedules like a named
/// op (a grouped convolution, tcl/Support/GroupedConv.h; a batch matmul of
/// permuted operands, tcl/Support/PermutedBatchMatmul.h) gets that form's
/// description.
const AnchorInfo *lookupAnchor(Operation *op);
/// The anchor name schedules use for payload op `op`: the form's name for a
/// recognized linalg.generic, else the operation name.
StringRef getAnchorName(Operation *op);
/// All supported anchor operation names (for diagnostics).
ArrayRef<AnchorInfo> getSupportedAnchors();

enum class LoopKind : unsigned { Parallel = 0, Reduction = 1 };

/// One dimension of the (current) iteration domain of the anchor op.
struct LoopDim {
  /// Extent of the dimension inside the innermost tile created so far;
  /// ShapedType::kDynamic if unknown.
  int64_t extent;
  LoopKind kind;
  /// False once the innermost tiles may be partial with a size known only at
  /// run time (a tile size that does not divide a dynamic extent, or a
  /// parallel tile level, an scf.forall, that does not divide it): such
  /// tiles are padded to the full static tile to be vectorized.
  bool evenlyTiled = true;
  /// True once a sequential tile level did not divide the extent: its loops
  /// are peeled, and the remainder tiles are copies of the nest with smaller
  /// static extents (so still vectorized without padding).
  bool peeled = false;
};

/// Where the iterations of a parallel tile level (an scf.forall) run.
enum class ParallelMapping : unsigned {
  /// The CPU threads of an OpenMP team.
  CpuThreads = 0,
  /// The blocks of a GPU grid.
  GpuBlocks,
  /// The threads of a GPU block.
  GpuThreads,
};
/// The keyword of a GPU mapping in `tcl.sched.parallelize` ("blocks",
/// "threads"); empty for CpuThreads.
StringRef getParallelMappingKeyword(ParallelMapping mapping);
/// Loops a GPU-mapped level may have (x, y, z), and threads a block may have.
constexpr unsigned kMaxGpuMappedLoops = 3;
constexpr int64_t kMaxGpuThreadsPerBlock = 1024;

/// One `tile` primitive and the primitives attached to it.
struct TileLevel {
  /// Tile size per loop dimension of the domain at that point (0 = untiled).
  SmallVector<int64_t> sizes;
  /// Loop order: a permutation of the domain's dimensions, outermost first.
  SmallVector<int64_t> interchange;
  /// Kind of each loop dimension of the domain at that point.
  SmallVector<LoopKind> kinds;
  /// Trip count per dimension (ShapedType::kDynamic if unknown, 1 if
  /// untiled).
  SmallVector<int64_t> tripCounts;
  /// Emitted as one scf.forall instead of a scf.for nest.
  bool parallel = false;
  /// Where a parallel level's iterations run.
  ParallelMapping mapping = ParallelMapping::CpuThreads;
  /// The task's epilogue is tiled at this level and the anchor fused into it.
  bool fusesEpilogue = false;

  /// The dimensions that get a loop at this level, outermost first.
  SmallVector<int64_t> loopDims() const;
  /// The first reduction dimension this level tiles, if any.
  std::optional<int64_t> findTiledReduction() const;
};

/// The replayed state of a schedule. Each primitive's `applyToState` checks
/// its preconditions against it (emitting a diagnostic that names the
/// primitive and the reason) and then updates it.
struct ScheduleState {
  const AnchorInfo *anchor = nullptr;
  /// Current anchor operation name (changes with decompose/split_reduction).
  std::string anchorName;
  SmallVector<LoopDim> dims;
  SmallVector<TileLevel, 3> levels;
  bool decomposed = false;
  bool splitReduction = false;
  bool padded = false;
  bool vectorized = false;
  bool hoisted = false;

  unsigned getNumDims() const { return dims.size(); }
  /// The parallel level mapped to `mapping`, if any.
  const TileLevel *findParallelLevel(ParallelMapping mapping) const;
  /// Whether the schedule maps loops onto a GPU (blocks or threads).
  bool isGpuMapped() const;
  /// The loops hoist_accumulators keeps the accumulators in registers
  /// across, innermost first, as (tile level, dimension): the reduction
  /// loops that enclose the innermost one directly in the last level; on a
  /// GPU also those of the sequential levels of reductions only around it
  /// (steps whose tiles go to shared memory).
  SmallVector<std::pair<unsigned, int64_t>> getAccumulatorLoops() const;
  /// Number of elements of the innermost tile's iteration space, or
  /// ShapedType::kDynamic.
  int64_t innermostTileVolume() const;
};

/// How well `parts` parallel tiles keep `threads` busy: the share of the
/// thread slots of ceil(parts / threads) rounds that have a tile (1 when
/// the parts divide evenly). The default schedules choose thread tiles by
/// it and the cost model's tokens carry it.
inline double getParallelBalance(double parts, unsigned threads) {
  if (parts <= 0 || threads == 0)
    return 0;
  return parts / (std::ceil(parts / threads) * threads);
}

/// Formats a list of sizes as "[a, b, c]" with '?' for dynamic values.
std::string formatSizes(ArrayRef<int64_t> sizes);

} // namespace tcl
} // namespace mlir

#endif // TCL_DIALECT_TCL_IR_SCHEDULESTATE_H
