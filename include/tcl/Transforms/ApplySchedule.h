//===- ApplySchedule.h - tcl.sched -> transform dialect ---------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Applying a schedule: the payload operations of a task are located by their
// `tcl.task` / `tcl.epilogue` attributes, the schedule is lowered onto a
// `transform.named_sequence` of upstream transform ops, and the transform
// interpreter runs it. Tiling, fusion, vectorization etc. are MLIR's own.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TRANSFORMS_APPLYSCHEDULE_H
#define TCL_TRANSFORMS_APPLYSCHEDULE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "tcl/Dialect/Tcl/IR/TclOps.h"

namespace mlir::tcl {

/// The payload operations of one instance of a task.
struct TaskInstance {
  /// The anchor op (tagged `tcl.task`).
  Operation *anchor = nullptr;
  /// Its epilogue ops (tagged `tcl.epilogue`), producers before consumers.
  SmallVector<Operation *> epilogue;
};

/// Finds every instance of `schedule`'s task under `root` and checks it
/// against the schedule (anchor op name, iteration domain, epilogue shape).
FailureOr<SmallVector<TaskInstance>> findTaskInstances(ScheduleOp schedule,
                                                       Operation *root);

/// Builds, at `builder`'s insertion point, the transform.named_sequence named
/// `name` that applies `schedule` to `instance`. The payload operations of
/// `instance` are tagged so the sequence can match them
/// (see `tagTaskInstance`).
FailureOr<Operation *> buildTransformSequence(OpBuilder &builder,
                                              ScheduleOp schedule,
                                              const TaskInstance &instance,
                                              StringRef name);

/// Tags the payload operations of `instance` for the sequence built by
/// `buildTransformSequence`; `untagTaskInstances` removes the tags again.
void tagTaskInstance(const TaskInstance &instance);
void untagTaskInstances(Operation *root);

/// Applies `schedule` to every instance of its task under `root`.
LogicalResult applySchedule(ScheduleOp schedule, Operation *root);

/// The platform to compile `module` for when none is asked for: that of its
/// schedules (they are bound to one), else the most capable one this host
/// runs (getHostTargetArch).
StringRef getDefaultTarget(ModuleOp module);

} // namespace mlir::tcl

#endif // TCL_TRANSFORMS_APPLYSCHEDULE_H
