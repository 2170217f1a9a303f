//===- Search.h - Evolutionary schedule search over a model's tasks -*- C++
//-*-===//
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
//   3. an evolutionary search proposes candidates for it: a population of
//      the best measured genomes and random samples, evolved for a few
//      generations by crossover and mutation with fitness = the CostModel's
//      score (invalid children are discarded by the verifier);
//   4. a Sampler picks the batch to measure among the candidates not
//      measured yet (top-k by score plus epsilon random picks);
//   5. the batch is measured (isolated worker), written to the database in
//      one transaction, and the cost model is refitted on every record.
//
// Everything random comes from one seeded generator, so the same seed and
// the same measurements give the same proposals. A run killed at any point
// resumes from the database: its records count as measured (never measured
// again), seed the population and train the model.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_SEARCH_H
#define TCL_TUNING_SEARCH_H

#include "tcl/Runtime/Measure.h"
#include "tcl/Tuning/CostModel.h"
#include "tcl/Tuning/Database.h"

#include "mlir/IR/BuiltinOps.h"

#include <functional>
#include <random>

namespace mlir::tcl {

//===----------------------------------------------------------------------===//
// Sampler: which candidates to measure
//===----------------------------------------------------------------------===//

struct SamplerPick {
  size_t index;
  /// Picked for exploration rather than for its score.
  bool exploratory;
};

class Sampler {
public:
  virtual ~Sampler();
  virtual llvm::StringRef getName() const = 0;
  /// Picks up to `count` distinct candidates given their scores.
  virtual std::vector<SamplerPick>
  select(llvm::ArrayRef<double> scores, size_t count, std::mt19937_64 &rng) = 0;
};

/// The best `count` by score, except that each slot is, with probability
/// `epsilon`, a uniformly random candidate instead.
std::unique_ptr<Sampler> createTopKEpsilonSampler(double epsilon);

//===----------------------------------------------------------------------===//
// TaskScheduler: which task gets the next batch
//===----------------------------------------------------------------------===//

/// Spreads trials over a model's tasks. First every task once, in order
/// (warm-up). Then the task with the largest priority
///   w_i * (alpha * (b_i(t_i - window) - b_i(t_i)) / window
///          + (1 - alpha) * b_i(t_i) / t_i)
/// where w_i is the task's weight (occurrences), b_i(t) its best latency
/// after t trials and t_i its trials so far: the first term is the recent
/// rate of improvement (Ansor's backward gradient), the second an
/// optimistic estimate that a task keeps improving as it did on average.
/// A task without a successful measurement has infinite priority. Ties go
/// to the lower index.
class TaskScheduler {
public:
  explicit TaskScheduler(std::vector<double> weights, double alpha = 0.5,
                         unsigned window = 16);
  size_t next() const;
  /// After a batch: `task` has `trials` trials, its best is `bestSeconds`
  /// (infinity if none succeeded).
  void record(size_t task, unsigned trials, double bestSeconds);
  /// `task` has nothing left to try: it is never picked again.
  void retire(size_t task);
  double priority(size_t task) const;

private:
  std::vector<double> weights;
  double alpha;
  unsigned window;
  /// Per task: (trials, best) after each batch.
  std::vector<std::vector<std::pair<unsigned, double>>> history;
  std::vector<bool> retired;
};

//===----------------------------------------------------------------------===//
// Tuner
//===----------------------------------------------------------------------===//

struct TuningOptions {
  /// The platform measured; by default the host's.
  Platform platform = Platform::host();
  /// Trials (measured candidates, the default schedules included) to spend.
  unsigned trials = 64;
  /// Count the trials already in the database for these tasks (a rerun of
  /// a killed run continues to the same total).
  bool resume = false;
  unsigned batchSize = 16;
  unsigned population = 96;
  unsigned generations = 3;
  double epsilon = 0.1;
  std::string costModel = "xgboost";
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
};

using MeasureFn =
    std::function<std::vector<MeasureResult>(llvm::ArrayRef<MeasureInput>)>;

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
  /// (trials in all, sum over tasks of weight * best seconds).
  std::vector<std::pair<unsigned, double>> modelCurve;
  /// Tasks without a search space (named, with the reason).
  std::vector<std::string> skipped;
};

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

/// Adds `platform` to the database and returns it with its hardware
/// features: those stored, or (with `probe`, when the stored ones are not
/// probed) freshly probed ones, which are then stored. `probe` means the
/// caller measures on this machine: it fails, before anything is stored, if
/// this host cannot execute the platform's code.
llvm::Expected<Platform> registerPlatform(TuningDatabase &database,
                                          const Platform &platform, bool probe);

/// Parses a schedule stored as text (a database record) in `context`.
/// `holder` keeps the parsed module alive; null if it does not parse.
ScheduleOp parseStoredSchedule(llvm::StringRef text, MLIRContext *context,
                               OwningOpRef<ModuleOp> &holder);

/// Adds to `module` (tasks extracted) the best schedule the database holds
/// for each task on the platform; returns how many tasks got one.
llvm::Expected<unsigned> applyTunedSchedules(ModuleOp module,
                                             TuningDatabase &database,
                                             const Platform &platform);

/// Per task: weight, trials, default and tuned latency, speed-up.
void printTuningTable(const TuningReport &report, llvm::raw_ostream &os);
/// Best latency against trials: the whole model (sum of weight x best) and
/// each task's speed-up over its default schedule, as an SVG image.
void writeTuningCurveSvg(const TuningReport &report, llvm::raw_ostream &os);

} // namespace mlir::tcl

#endif // TCL_TUNING_SEARCH_H
