//===- TaskExtraction.h - A model's tuning tasks ----------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TRANSFORMS_TASKEXTRACTION_H
#define TCL_TRANSFORMS_TASKEXTRACTION_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>
#include <vector>

namespace mlir::linalg {
class LinalgOp;
} // namespace mlir::linalg

namespace mlir::tcl {

/// One task of a module: what tcl tunes and schedules as a unit.
struct TaskSummary {
  std::string name;
  /// The workload key: anchor op, operand types, attributes, epilogue ops.
  std::string key;
  std::string anchorName;
  /// How many times the workload occurs in the module.
  unsigned weight = 0;
  /// Epilogue ops fused with each occurrence.
  unsigned epilogueOps = 0;
  /// FLOPs of one occurrence of the anchor (0 if unknown).
  double flops = 0;
};

/// Whether `op` can anchor a task: an operation on tensors that tcl can
/// schedule (lookupAnchor) with at least one loop. A rank-0 op (a scalar
/// computation on 0-d tensors) has no loop a schedule could transform: it
/// stays plain code.
bool isTaskAnchor(linalg::LinalgOp op);

/// FLOPs of one execution of `op`: iteration points times the arithmetic
/// ops of its body (0 if a loop extent is dynamic). The one count every
/// report, feature and benchmark uses.
double countFlops(linalg::LinalgOp op);
/// FLOPs of the schedulable ops (task anchors) under `root`: what reports
/// and benchmarks divide by the time.
double countAnchorFlops(Operation *root);

/// Tags the module's tasks (see the tcl-extract-tasks pass) and returns
/// them in order of first occurrence.
std::vector<TaskSummary> extractTasks(ModuleOp module);

/// The tasks already tagged in `module`.
std::vector<TaskSummary> summarizeTasks(ModuleOp module);

/// The first task anchor (an op tagged tcl.task, outside schedules) in
/// `module`, e.g. the anchor of an extracted workload; null if none.
Operation *findTaskAnchor(ModuleOp module);

/// The first occurrence of task `task` in `module` as a module of its own:
/// `func.func @<entry>` computing the anchor (with the `tensor.pad`s that
/// produce its inputs) and its epilogue, tagged as task `renamedTask`.
/// Values the task reads from outside become arguments,
/// except what is cheap to recompute (scalar constants, tensor.empty,
/// linalg.fill of those), which is cloned. This is what the tuner measures
/// and what the database stores as the workload. Fails if the task is not
/// in the module.
FailureOr<OwningOpRef<ModuleOp>> extractTaskWorkload(ModuleOp module,
                                                     StringRef task,
                                                     StringRef entry,
                                                     StringRef renamedTask);

} // namespace mlir::tcl

#endif // TCL_TRANSFORMS_TASKEXTRACTION_H
