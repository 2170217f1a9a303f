//===- TaskInstanceTags.h - How sequences find their payload ----*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The temporary attributes through which a schedule's transform sequence
// (TransformEmitter.cpp) finds the ops of the task instance it applies to,
// which ApplySchedule.cpp tags before running it and removes after. Private
// to lib/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_LIB_TRANSFORMS_TASKINSTANCETAGS_H
#define TCL_LIB_TRANSFORMS_TASKINSTANCETAGS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <string>

namespace mlir::tcl {

/// Temporary payload attribute through which the transform sequence finds
/// the operations of the task instance it applies to.
inline constexpr StringLiteral kMatchAttrName = "__tcl_sched_match";
/// Match keys: the anchor, the fill that initializes its output, and the
/// epilogue ops (kEpilogueKeyBase + position).
inline constexpr int64_t kAnchorKey = 0;
inline constexpr int64_t kAnchorFillKey = 1;
inline constexpr int64_t kEpilogueKeyBase = 2;
/// Temporary payload attribute on the outermost loop of the task instance
/// (once its first tile level exists): the sequence's clean-ups work there.
inline constexpr StringLiteral kNestAttrName = "__tcl_sched_nest";
/// Temporary payload attributes through which a tile level that peels its
/// loops finds them, the anchor and the fused ops again: peeling copies
/// them (with their attributes), and the copies are in no handle. Every
/// temporary attribute's name starts with kTempAttrPrefix.
inline constexpr StringLiteral kTempAttrPrefix = "__tcl_sched";
inline constexpr StringLiteral kAnchorCopyAttrName = "__tcl_sched_anchor";
inline constexpr StringLiteral kTileFillCopyAttrName = "__tcl_sched_tile_fill";
inline std::string getLoopAttrName(unsigned level, unsigned position) {
  return ("__tcl_sched_loop_" + Twine(level) + "_" + Twine(position)).str();
}
inline std::string getFusedAttrName(unsigned index) {
  return ("__tcl_sched_fused_" + Twine(index)).str();
}

/// The linalg.fill that initializes `anchor`'s output, if `anchor` is its
/// only user: fusing it keeps the output tile in cache.
linalg::FillOp getAnchorFill(Operation *anchor);

} // namespace mlir::tcl

#endif // TCL_LIB_TRANSFORMS_TASKINSTANCETAGS_H
