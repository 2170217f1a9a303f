//===- Evaluation.h - Cost models on held-out tasks -------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Trains a cost model on some groups of a dataset (a workload on a
// platform, Dataset.h) and measures how well it ranks the programs of the
// held-out ones (Metrics.h): Tenset's top-1 and top-5 scores, and per group
// Spearman's rho, NDCG@5 and pairwise accuracy, averaged. Labels are the
// throughput relative to the best of the group (0 for a failed program).
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_EVALUATION_H
#define TCL_TUNING_EVALUATION_H

#include "tcl/Tuning/CostModel.h"
#include "tcl/Tuning/Database.h"
#include "tcl/Tuning/Dataset.h"

#include "mlir/IR/MLIRContext.h"

namespace mlir::tcl {

/// A group's programs as features of one kind, with their latencies
/// (infinity: failed).
struct FeaturizedGroup {
  std::string workloadKey, platform;
  /// The task's operator type (AnchorClass).
  unsigned anchorClass = 0;
  std::vector<std::vector<float>> features;
  std::vector<double> latencies;
  /// Where each program came from: its index in the DatasetGroup's records.
  std::vector<size_t> recordIndices;
};

/// `group` with only the programs at `programs` (indices into its
/// features, in that order): its task, platform and operator type, their
/// features, latencies and record indices (if it has them).
FeaturizedGroup pickPrograms(const FeaturizedGroup &group,
                             llvm::ArrayRef<size_t> programs);

/// How training reads a group's timings. Held-out groups are ranked by
/// their medians always: what the search compares.
struct TrainingLabelOptions {
  /// Label each program by its fastest timed run instead of the median:
  /// on a shared host, other load only ever adds time.
  bool fastestRun = false;
  /// Leave out the programs whose runs spread more than this
  /// (TuningRecord::timingSpread); 0 keeps all.
  double maxSpread = 0;

  /// Whether training leaves `record` out as too noisy.
  bool leavesOut(const TuningRecord &record) const {
    return maxSpread > 0 && record.timingSpread() > maxSpread;
  }
};

/// The programs of `group` to train on, labelled as `options` say.
/// `records` are those `group` was featurized from (its recordIndices index
/// them); the result has no programs when every one is left out.
FeaturizedGroup trainingPrograms(const FeaturizedGroup &group,
                                 llvm::ArrayRef<TuningRecord> records,
                                 const TrainingLabelOptions &options);

/// Featurizes `groups` of `database` for models reading `kind`. Records
/// whose schedule does not parse are skipped; a group whose workload does
/// not parse is an error.
llvm::Expected<std::vector<FeaturizedGroup>>
featurizeGroups(TuningDatabase &database, llvm::ArrayRef<DatasetGroup> groups,
                FeatureKind kind, MLIRContext *context);

/// Training samples from groups: labels relative to each group's best.
std::vector<CostSample> makeSamples(llvm::ArrayRef<FeaturizedGroup> groups);

struct CostModelEvaluation {
  size_t trainTasks = 0, testTasks = 0, trainRecords = 0, testRecords = 0;
  double top1 = 0, top5 = 0;
  /// Means over the held-out groups.
  double spearman = 0, ndcg5 = 0, pairwiseAccuracy = 0;
  double trainSeconds = 0;
  /// Seconds to score the held-out programs group by group, and to score
  /// 4096 programs in one call (timeScoring4096; 0 if not timed).
  double scoreSeconds = 0, scoreSecondsPer4096 = 0;
  /// Each held-out group's top-1 score, in the order of the groups ranked
  /// (where a model loses is usually a few tasks, not all of them).
  std::vector<double> groupTop1;
};

/// `count` programs of `groups` (cycled), to score at once as the search
/// scores a generation's candidates; empty if the groups have none.
std::vector<std::vector<float>>
makeScoringBatch(llvm::ArrayRef<FeaturizedGroup> groups, size_t count = 4096);

/// Seconds one predict call on `batch` takes (after a warm-up call on a
/// few of its programs).
double timeScoring(CostModel &model, llvm::ArrayRef<std::vector<float>> batch);

/// The median of three timeScoring calls on 4096 programs of `groups`.
double timeScoring4096(CostModel &model,
                       llvm::ArrayRef<FeaturizedGroup> groups);

/// Ranks the programs of each `test` group with `model` (already trained).
CostModelEvaluation rankHeldOut(CostModel &model,
                                llvm::ArrayRef<FeaturizedGroup> test);

/// Trains `model` on `train` (one update with every sample), then ranks
/// `test`.
llvm::Expected<CostModelEvaluation>
trainAndEvaluate(CostModel &model, llvm::ArrayRef<FeaturizedGroup> train,
                 llvm::ArrayRef<FeaturizedGroup> test);

/// The quick check of tcl-tuning-db evaluate: the groups of `platform`
/// with two or more records, every other one (in database order) held out.
llvm::Expected<CostModelEvaluation> evaluateCostModel(TuningDatabase &database,
                                                      llvm::StringRef platform,
                                                      CostModel &model,
                                                      MLIRContext *context);

} // namespace mlir::tcl

#endif // TCL_TUNING_EVALUATION_H
