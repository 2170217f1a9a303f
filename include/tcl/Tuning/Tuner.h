//===- Tuner.h - Schedule search over a model's tasks -----------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The tuner. For a module whose tasks are extracted (tcl-extract-tasks):
//
//   1. each task becomes a workload (TaskExtraction's extractTaskWorkload)
//      with a SearchSpace; its default schedule is measured first (the
//      untuned baseline, and a floor: the tuned result is never worse);
//   2. a TaskScheduler picks the task to work on next;
//   3. an evolutionary search (lib/Tuning/Evolution.h) proposes candidates
//      for it, and a Sampler picks the batch among those not measured yet
//      (top-k + epsilon, or RDU);
//   4. the batch is measured (isolated worker), written to the database in
//      one transaction, and the cost model is refitted on every record (and
//      so is the RDU sampler's committee).
//
// Everything random comes from one seeded generator, so the same seed and
// the same measurements give the same proposals. A run killed at any point
// resumes from the database: its records count as measured (never measured
// again), seed the population and train the model.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_TUNER_H
#define TCL_TUNING_TUNER_H

#include "tcl/Runtime/Measure.h"
#include "tcl/Tuning/Database.h"
#include "tcl/Tuning/Report.h"

#include "mlir/IR/BuiltinOps.h"

#include <functional>

namespace mlir::tcl {

struct TuningOptions {
  /// The platform measured; by default the host's.
  Platform platform = Platform::host();
  /// Trials (measured candidates, the default schedules included) to spend;
  /// 0: getDefaultTrials of the module's task count.
  unsigned trials = 0;
  /// Count the trials already in the database for these tasks (a rerun of
  /// a killed run continues to the same total).
  bool resume = false;
  /// Measure each task's default schedule first, as the baseline and a
  /// parent of the search's populations. Without, the search starts from
  /// samples of the space alone, as Ansor and Tenset are measured: what the
  /// cost model finds, not what the defaults already had (on a host whose
  /// defaults were tuned for it, they leave a search little to find).
  bool startFromDefaults = true;
  unsigned batchSize = 16;
  unsigned population = 96;
  unsigned generations = 3;
  double epsilon = 0.1;
  /// Which candidates of a round to measure (createSampler): "topk" (top-k
  /// + epsilon) or "rdu" (METHOD.md §3, with a committee of
  /// `committeeMembers` models of the cost model's kind for uncertainty);
  /// empty: the cost model's default (getDefaultSampler).
  std::string sampler;
  unsigned committeeMembers = 2;
  std::string costModel = "xgboost";
  /// How a learned model loaded from costModelFile learns from the run:
  /// "finetune" or "correct" (parseOnlineLearning).
  std::string onlineLearning = "finetune";
  uint64_t seed = 1;
  /// Dataset collection (tcl-tuning-db collect) instead of tuning: every
  /// task gets this many trials (the database's count), in round-robin
  /// batches so a stopped collection covers all tasks evenly; `trials` is
  /// ignored.
  unsigned trialsPerTask = 0;
  /// The share of each batch drawn uniformly from the search space, the
  /// rest proposed by the evolutionary search (Tenset's mix of random
  /// samples and programs a search visits).
  double randomFraction = 0;
  /// Measurements are taken on this machine: it must run the platform, and
  /// is probed for its hardware features when the database does not have
  /// them yet (registerPlatform).
  bool probeHardware = true;
  /// A model file for a learned cost model to start from (CostModel::load).
  std::string costModelFile;
  /// After the search, at most this many times a task: its fastest record,
  /// if not its default, is measured again beside the default (one batch a
  /// round, both records taking the new measurement) until the fastest is
  /// the default or a schedule measured again. The fastest of many noisy
  /// measurements is more often lucky than fast: without this, tasks whose
  /// winner measured 1.1-2x faster than the default ran as fast or slower
  /// in the model. 0: none (dataset collection never confirms).
  unsigned confirmationRounds = 3;
};

/// The budget of a tuning run that names none: kDefaultTrialsPerTask trials
/// a task, at least kMinDefaultTrials. A fixed total would spend itself on
/// the default schedules of a model with many tasks (ResNet-18 has 33) and
/// leave the search nothing.
constexpr unsigned kDefaultTrialsPerTask = 16;
constexpr unsigned kMinDefaultTrials = 64;
unsigned getDefaultTrials(size_t tasks);

using MeasureFn =
    std::function<std::vector<MeasureResult>(llvm::ArrayRef<MeasureInput>)>;

class Tuner {
public:
  Tuner(TuningDatabase &database, TuningOptions options, MeasureFn measure);
  /// Tunes the tasks of `module` (tasks already extracted). Progress goes to
  /// `progress` (live on a terminal, one line per batch otherwise).
  llvm::Expected<TuningReport> tune(ModuleOp module,
                                    llvm::raw_ostream *progress = nullptr);

private:
  TuningDatabase &database;
  TuningOptions options;
  MeasureFn measure;
};

} // namespace mlir::tcl

#endif // TCL_TUNING_TUNER_H
