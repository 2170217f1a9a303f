//===- Report.h - What a tuning run reports, and how ------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// What a tuning run reports (per task: trials, default and best latency,
// the best latency after each batch; for the whole model: the weighted sum
// of the best latencies), and its three renderings: the progress line
// printed after each batch, a Markdown table and an SVG chart of the best
// latency against trials.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_REPORT_H
#define TCL_TUNING_REPORT_H

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <utility>
#include <vector>

namespace mlir::tcl {

struct TaskReport {
  std::string name, key;
  unsigned weight = 0;
  double flops = 0;
  unsigned trials = 0;
  unsigned failures = 0;
  double defaultSeconds = 0, bestSeconds = 0;
  /// (trials of this task, best seconds) after each batch.
  std::vector<std::pair<unsigned, double>> curve;
};

struct TuningReport {
  std::vector<TaskReport> tasks;
  /// (trials in all, sum over tasks of weight * best seconds), from when
  /// every task has a best.
  std::vector<std::pair<unsigned, double>> modelCurve;
  /// Tasks without a search space (named, with the reason).
  std::vector<std::string> skipped;
  /// After the search: schedules measured again beside their task's default
  /// (TuningOptions::confirmationRounds), and the tasks whose search winner
  /// did not stay faster than the default then.
  unsigned remeasured = 0;
  std::vector<std::string> defaultsKept;
};

/// Where a tuning run stands after a batch.
struct TuningProgress {
  unsigned trialsDone = 0, trialsBudget = 0;
  /// Trials the database had when the run started (resumed ones): they
  /// took no time in this run.
  unsigned trialsBefore = 0;
  double elapsedSeconds = 0;
  /// Sum over tasks of weight * best seconds; 0 while a task has none.
  double modelSeconds = 0;
};

/// The progress line after a batch of `task`: trials, the task's best
/// latency and GFLOP/s, the whole model's latency, the time spent and an
/// estimate of the time left. `live` (a terminal) redraws the line in
/// place instead of adding one.
void printTuningProgress(const TaskReport &task, const TuningProgress &progress,
                         bool live, llvm::raw_ostream &os);
/// Per task: weight, trials, default and tuned latency, speed-up.
void printTuningTable(const TuningReport &report, llvm::raw_ostream &os);
/// Best latency against trials: the whole model (sum of weight x best) and
/// each task's speed-up over its default schedule, as an SVG image.
void writeTuningCurveSvg(const TuningReport &report, llvm::raw_ostream &os);

} // namespace mlir::tcl

#endif // TCL_TUNING_REPORT_H
