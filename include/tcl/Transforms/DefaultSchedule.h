//===- DefaultSchedule.h - Untuned schedules per op class -------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The schedule tcl uses for a task it has not tuned: a small, documented
// heuristic per operator class and platform (all target heuristics live in
// DefaultSchedule.cpp). Sizes come from the platform's vector width W (in
// f32 lanes):
//
//   matmul / batch matmul: [threads > 1] a parallel level splitting the
//     larger parallel dimension across threads; a cache tile of about
//     64 x 16W x 128 (M x N x K), and when B exceeds 2 MiB and M has at
//     least 256 rows (or B exceeds 4 MiB and M has at least 64) the cache
//     loops run n, k, m with each B panel packed once (pad, hoisted) for
//     all row tiles; a register
//     tile 8 x 2W x 1; vectorize; accumulators hoisted out of the k loop;
//     k unrolled by 4.
//   2-D convolution (NHWC/NCHW, grouped), depthwise convolution, pooling:
//     [threads > 1] a parallel level over output rows (else groups, else
//     channels); a tile with one output row and one kernel row, 8 output
//     columns (16 when the channel tile is narrower than W) and 2W
//     channels (1 input channel and kernel column per step, and one group,
//     for convolutions); decompose to 1-D; vectorize; hoist (convolutions).
//   generic (elementwise, reductions, softmax parts): [threads > 1] a
//     parallel level over the outermost parallel dimension; the innermost
//     dimension tiled to 4W (parallel) or kept whole up to 4096 (reduction),
//     the others to 1; vectorize when all extents are static.
//
// Tile sizes are divisors of the extent where a good one exists, so tiles
// are full; otherwise partial tiles are padded.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TRANSFORMS_DEFAULTSCHEDULE_H
#define TCL_TRANSFORMS_DEFAULTSCHEDULE_H

#include "tcl/Dialect/Tcl/IR/TclOps.h"
#include "tcl/Target/Platform.h"

#include "mlir/Pass/Pass.h"

namespace mlir::linalg {
class LinalgOp;
} // namespace mlir::linalg

namespace mlir::tcl {

/// Whether MLIR's vectorizer takes this generic, tiled to a row of its
/// innermost loop: operands read through projected permutations (with
/// broadcasts), and each tensor.extract in the body a load the vectorizer
/// makes contiguous or a broadcast (indices that do not change along the
/// innermost loop, but the last, which may step with it: a Resize of
/// channels-last images reads rows of channels), not a gather, which
/// measured no faster than scalar loops. Others (a reversed Slice) stay
/// scalar loops.
bool isVectorizableGeneric(linalg::LinalgOp op);

/// Whether a depthwise convolution's register tile of `columns` x
/// `vectors` accumulators keeps them in registers across the kernel rows
/// (hoist_accumulators) beside a kernel row's weights (`kernelColumns` x
/// `vectors`) and an input vector, in `registers` vector registers (not
/// AVX2's 16 with 8 x 2 vectors). The default schedules and the search
/// space hoist where it does.
bool fitsDepthwiseAccumulators(int64_t columns, int64_t vectors,
                               int64_t kernelColumns, unsigned registers);

/// Builds at `builder`'s insertion point the default schedule for `anchor`,
/// the anchor of task `task`, on `platform` (with `hasEpilogue` if ops are
/// tagged as its epilogue). Always returns a schedule that verifies; on an
/// anchor it has no heuristic for, an empty one (plain loops).
ScheduleOp buildDefaultSchedule(OpBuilder &builder, linalg::LinalgOp anchor,
                                StringRef task, const Platform &platform,
                                bool hasEpilogue);

} // namespace mlir::tcl

#endif // TCL_TRANSFORMS_DEFAULTSCHEDULE_H
