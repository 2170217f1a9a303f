//===- TuningState.h - The tuner's state of a task --------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Private to the tuner (Tuner.cpp, Confirmation.cpp) and its evolutionary
// search (Evolution.cpp): what they know of each task while tuning (its
// workload, search space, what was measured and how fast) and the candidates
// they pass around.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_LIB_TUNING_TUNINGSTATE_H
#define TCL_LIB_TUNING_TUNINGSTATE_H

#include "tcl/Runtime/Measure.h"
#include "tcl/Tuning/Database.h"
#include "tcl/Tuning/Report.h"
#include "tcl/Tuning/SearchSpace.h"
#include "tcl/Tuning/Tokenizer.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringSet.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mlir::tcl {

/// The task's name inside its workload, which the schedules built for it
/// refer to.
inline constexpr llvm::StringLiteral kWorkloadTask = "task";
/// The workload's entry function, which the worker measures.
inline constexpr llvm::StringLiteral kWorkloadEntry = "task";

/// One candidate schedule of a task.
struct Candidate {
  /// Empty for a default schedule.
  Genome genome;
  std::string schedule;
  std::vector<float> features;
};

/// The state of one task during tuning.
struct TaskState {
  TaskReport report;
  OwningOpRef<ModuleOp> workload;
  std::string workloadText;
  std::unique_ptr<SearchSpace> space;
  TaskFeatures features;
  /// The workload's anchor, and whether it has an epilogue to fuse.
  linalg::LinalgOp anchor;
  bool hasEpilogue = false;
  /// Genomes (text) and schedules already measured.
  llvm::StringSet<> measured;
  /// Measured candidates that succeeded, with their time, best first.
  std::vector<std::pair<double, Genome>> good;
  /// Every measured sample's features and seconds (infinity: failed).
  std::vector<std::pair<std::vector<float>, double>> samples;
};

/// `op` printed as text.
inline std::string printOp(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

/// Sets `record`'s status, message, times, repeats and error to `result`'s
/// (Confirmation.cpp).
void setMeasurement(TuningRecord &record, const MeasureResult &result);

/// What the worker measures of `task` with `schedule` (Confirmation.cpp):
/// the task's workload with the schedule added.
MeasureInput makeMeasureInput(TaskState &task, llvm::StringRef schedule,
                              const Platform &platform);

/// After the search (Confirmation.cpp): for up to `rounds` rounds, the
/// fastest successful record of each task, if not its default and not yet
/// measured again, is measured again beside the default, in one batch a
/// round, and both records take the new measurement
/// (TuningDatabase::updateMeasurements). Then each task's report takes its
/// default and best times from the records. `report` counts the
/// measurements and names the tasks left with their default.
llvm::Error confirmFastest(
    TuningDatabase &database, const Platform &platform,
    llvm::ArrayRef<std::unique_ptr<TaskState>> tasks,
    llvm::function_ref<std::vector<MeasureResult>(llvm::ArrayRef<MeasureInput>)>
        measure,
    unsigned rounds, TuningReport &report, llvm::raw_ostream *out, bool live);

} // namespace mlir::tcl

#endif // TCL_LIB_TUNING_TUNINGSTATE_H
