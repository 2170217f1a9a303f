//===- Tokenizer.h - Schedules as token matrices ----------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The cost model reads a schedule as a sequence of tokens, one per schedule
// primitive (METHOD.md §1). `tokenize` turns a schedule, its task and its
// platform into a row-major float matrix [maxLength, kWidth]:
//
//   row i < number of primitives: token of primitive i, then the task part,
//                                  then the hardware part;
//   remaining rows:                all zero (padding). Longer programs are
//                                  cropped to their first maxLength primitives.
//
// Token part (kTokenWidth = 57 columns), with D = kMaxDims = 8 loop dims:
//   [ 0, 10)  primitive kind, one-hot in PrimitiveKind order
//   [10, 18)  per-dimension parameter:
//               tile: log2(1 + size)   interchange: loop position
//               unroll: log2(factor) at its dim   vectorize: log2(1 + extent)
//   [18, 26)  dimensions the primitive touches (0/1)
//   [26, 34)  log2(1 + extent) of each dimension before the primitive
//               (0 for a dynamic extent or a missing dimension)
//   [34, 40)  scalars: tile level the primitive refers to,
//               log2(factor) (split_reduction), padded operand count,
//               hoisted loops (pad), number of loop dims, parallel level
//               (0 sequential, 1 CPU threads or GPU blocks, 2 GPU threads)
//   [40, 48)  tile: 1 for each dimension whose tile size does not divide its
//               extent (partial tiles: peeled or padded)
//   [48, 57)  what the primitive makes of the hardware (since layout v2):
//               tile: log2(1 + iterations of one tile), log2(1 + tiles),
//                 log2(1 + bytes one tile touches over all operands), that
//                 footprint fits L1 (0/1) and fits L2 (0/1), the share of
//                 the threads' capacity a parallel level's tiles use;
//               vectorize: log2(1 + accumulator vectors of the innermost
//                 tile), accumulator vectors / vector registers, 1 if the
//                 vectorized dimension is not a multiple of the lanes.
//             Quantities the networks would otherwise have to learn as
//             products and ratios of the columns above.
// Task part (kTaskWidth = 20): anchor class one-hot (7, AnchorClass order),
//   log2(1 + FLOPs), log2(1 + bytes), loop count, reduction loop count,
//   log2(1 + extent) of each original loop dim (8), dynamic-extent flag.
// Hardware part (kHardwareWidth = 14): ISA one-hot (4, IsaLevel order),
//   log2(1 + vector bits), GPU flag, then from the platform's
//   HardwareFeatures (probed on the machine, zero when unknown):
//   log2(1 + threads), log2(1 + cores), vector registers / 8,
//   log2(1 + KiB) of L1, L2 and L3, log2(1 + peak GFLOP/s),
//   log2(1 + bandwidth GB/s).
//
// Dimensions beyond kMaxDims are dropped from the per-dimension columns.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_TOKENIZER_H
#define TCL_TUNING_TOKENIZER_H

#include "mlir/Support/LogicalResult.h"
#include "tcl/Dialect/Tcl/IR/TclOps.h"
#include "tcl/Target/Platform.h"

#include <vector>

namespace mlir::linalg {
class LinalgOp;
} // namespace mlir::linalg

namespace mlir::tcl {

/// Primitive kinds in token one-hot order. Keep stable: trained models
/// depend on it.
enum class PrimitiveKind : unsigned {
  Tile = 0,
  Interchange,
  Parallelize,
  FuseEpilogue,
  Decompose,
  SplitReduction,
  Pad,
  Vectorize,
  Unroll,
  HoistAccumulators,
};
constexpr unsigned kNumPrimitiveKinds = 10;

/// Returns the kind of a schedule primitive op.
PrimitiveKind getPrimitiveKind(Operation *op);

/// What the cost model knows about a task independent of its schedule.
struct TaskFeatures {
  AnchorClass anchorClass = AnchorClass::Generic;
  SmallVector<int64_t> extents;
  unsigned numReductionLoops = 0;
  /// Arithmetic operations of one execution (a multiply-add counts 2).
  double flops = 0;
  /// Bytes of all operands (inputs read once, outputs written once).
  double bytes = 0;

  /// How an operand is indexed: each result of its indexing map as a sum of
  /// loop dimensions times coefficients (a convolution's input row is
  /// `stride * oh + dilation * kh`). Enough to count the elements a tile
  /// touches.
  struct OperandAccess {
    unsigned elementBytes = 4;
    SmallVector<SmallVector<std::pair<unsigned, int64_t>, 2>> results;
  };
  SmallVector<OperandAccess, 3> operands;

  /// Bytes a tile of `tileExtents` (one per loop dimension) touches over all
  /// operands; 0 when the accesses are unknown or the ranks disagree.
  double getFootprintBytes(ArrayRef<int64_t> tileExtents) const;

  /// Derives the features from a payload anchor op (static shapes only).
  static FailureOr<TaskFeatures> fromAnchor(linalg::LinalgOp anchor);
};

class Tokenizer {
public:
  static constexpr unsigned kMaxDims = 8;
  static constexpr unsigned kTokenWidth = 57;
  static constexpr unsigned kTaskWidth = 20;
  static constexpr unsigned kHardwareWidth = 14;
  static constexpr unsigned kWidth = kTokenWidth + kTaskWidth + kHardwareWidth;
  /// The version of the layout above. Bump it with any change to what a
  /// column means: learned cost models record the layout they were trained
  /// on (getFeatureLayout) and one of another version is refused.
  static constexpr unsigned kLayoutVersion = 2;

  explicit Tokenizer(unsigned maxLength = 32) : maxLength(maxLength) {}

  unsigned getMaxLength() const { return maxLength; }

  /// Tokenizes `schedule` (which must verify) for `task` on the machine
  /// described by `hardware` (by default, only what the schedule's platform
  /// says, one thread). Returns a row-major [maxLength, kWidth] matrix.
  FailureOr<std::vector<float>>
  tokenize(ScheduleOp schedule, const TaskFeatures &task,
           const HardwareFeatures *hardware = nullptr) const;

private:
  unsigned maxLength;
};

} // namespace mlir::tcl

#endif // TCL_TUNING_TOKENIZER_H
