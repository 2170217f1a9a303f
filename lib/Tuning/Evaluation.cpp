//===- Evaluation.cpp - Cost models on held-out tasks ---------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/Evaluation.h"
#include "tcl/Transforms/TaskExtraction.h"
#include "tcl/Tuning/Metrics.h"
#include "tcl/Tuning/TunedSchedules.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Parser/Parser.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tcl;

static constexpr double kInfinity = std::numeric_limits<double>::infinity();

static double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

llvm::Expected<std::vector<FeaturizedGroup>>
mlir::tcl::featurizeGroups(TuningDatabase &database,
                           llvm::ArrayRef<DatasetGroup> groups,
                           FeatureKind kind, MLIRContext *context) {
  context->loadDialect<TclDialect>();
  std::map<std::string, std::optional<HardwareFeatures>> hardware;
  std::map<std::string, TaskFeatures> tasks;
  std::vector<FeaturizedGroup> result;
  for (const DatasetGroup &group : groups) {
    if (!hardware.count(group.platform)) {
      std::optional<Platform> platform = database.getPlatform(group.platform);
      hardware[group.platform] =
          platform ? std::optional(platform->getFeatures()) : std::nullopt;
    }
    const std::optional<HardwareFeatures> &known = hardware[group.platform];
    // A workload's groups on other platforms share its task features.
    auto taskIt = tasks.find(group.workloadKey);
    if (taskIt == tasks.end()) {
      std::optional<WorkloadEntry> workload =
          database.getWorkload(group.workloadKey);
      OwningOpRef<ModuleOp> module =
          workload ? parseSourceString<ModuleOp>(workload->module, context)
                   : OwningOpRef<ModuleOp>();
      auto anchor =
          module ? dyn_cast_or_null<linalg::LinalgOp>(findTaskAnchor(*module))
                 : linalg::LinalgOp();
      FailureOr<TaskFeatures> task =
          anchor ? TaskFeatures::fromAnchor(anchor) : FailureOr<TaskFeatures>();
      if (failed(task))
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "workload '" +
                                           group.workloadKey.substr(0, 60) +
                                           "' does not parse");
      taskIt = tasks.emplace(group.workloadKey, *task).first;
    }
    const TaskFeatures &task = taskIt->second;
    FeaturizedGroup featurized;
    featurized.workloadKey = group.workloadKey;
    featurized.platform = group.platform;
    featurized.anchorClass = static_cast<unsigned>(task.anchorClass);
    for (auto [recordIndex, record] : llvm::enumerate(group.records)) {
      OwningOpRef<ModuleOp> holder;
      ScheduleOp schedule =
          parseStoredSchedule(record.schedule, context, holder);
      if (!schedule)
        continue;
      FailureOr<std::vector<float>> features =
          featurize(schedule, task, known ? &*known : nullptr, kind);
      if (failed(features))
        continue;
      featurized.features.push_back(std::move(*features));
      featurized.latencies.push_back(record.isOk() ? record.medianSeconds
                                                   : kInfinity);
      featurized.recordIndices.push_back(recordIndex);
    }
    result.push_back(std::move(featurized));
  }
  return result;
}

FeaturizedGroup mlir::tcl::pickPrograms(const FeaturizedGroup &group,
                                        llvm::ArrayRef<size_t> programs) {
  FeaturizedGroup picked;
  picked.workloadKey = group.workloadKey;
  picked.platform = group.platform;
  picked.anchorClass = group.anchorClass;
  for (size_t program : programs) {
    picked.features.push_back(group.features[program]);
    picked.latencies.push_back(group.latencies[program]);
    if (program < group.recordIndices.size())
      picked.recordIndices.push_back(group.recordIndices[program]);
  }
  return picked;
}

FeaturizedGroup
mlir::tcl::trainingPrograms(const FeaturizedGroup &group,
                            llvm::ArrayRef<TuningRecord> records,
                            const TrainingLabelOptions &options) {
  std::vector<size_t> programs;
  for (auto [program, record] : llvm::enumerate(group.recordIndices))
    if (!options.leavesOut(records[record]))
      programs.push_back(program);
  FeaturizedGroup kept = pickPrograms(group, programs);
  // A record without a fastest run (0: not kept) keeps its median.
  if (options.fastestRun)
    for (auto [latency, record] : llvm::zip(kept.latencies, kept.recordIndices))
      if (std::isfinite(latency) && records[record].minSeconds > 0)
        latency = records[record].minSeconds;
  return kept;
}

std::vector<CostSample>
mlir::tcl::makeSamples(llvm::ArrayRef<FeaturizedGroup> groups) {
  std::vector<CostSample> samples;
  for (auto [index, group] : llvm::enumerate(groups)) {
    double best = kInfinity;
    for (double latency : group.latencies)
      best = std::min(best, latency);
    for (auto [features, latency] : llvm::zip(group.features, group.latencies))
      samples.push_back({features, relativeThroughput(latency, best),
                         static_cast<unsigned>(index)});
  }
  return samples;
}

CostModelEvaluation
mlir::tcl::rankHeldOut(CostModel &model, llvm::ArrayRef<FeaturizedGroup> test) {
  CostModelEvaluation result;
  std::vector<RankedGroup> groups;
  auto start = std::chrono::steady_clock::now();
  for (const FeaturizedGroup &group : test)
    groups.push_back({model.predict(group.features), group.latencies, 1});
  result.scoreSeconds = secondsSince(start);
  size_t evaluated = 0;
  for (const RankedGroup &group : groups) {
    result.testRecords += group.latencies.size();
    if (group.latencies.size() < 2)
      continue;
    ++evaluated;
    std::vector<double> throughputs;
    for (double latency : group.latencies)
      throughputs.push_back(std::isfinite(latency) ? 1 / latency : 0);
    result.spearman += spearman(group.scores, throughputs);
    result.ndcg5 += ndcgAtK(group, 5);
    result.pairwiseAccuracy += pairwiseAccuracy(group);
  }
  if (evaluated) {
    result.spearman /= evaluated;
    result.ndcg5 /= evaluated;
    result.pairwiseAccuracy /= evaluated;
  }
  result.testTasks = test.size();
  result.top1 = topKScore(groups, 1);
  result.top5 = topKScore(groups, 5);
  for (const RankedGroup &group : groups)
    result.groupTop1.push_back(topKScore(group, 1));
  return result;
}

std::vector<std::vector<float>>
mlir::tcl::makeScoringBatch(llvm::ArrayRef<FeaturizedGroup> groups,
                            size_t count) {
  std::vector<const std::vector<float> *> programs;
  for (const FeaturizedGroup &group : groups)
    for (const std::vector<float> &features : group.features)
      programs.push_back(&features);
  std::vector<std::vector<float>> batch;
  if (programs.empty())
    return batch;
  batch.reserve(count);
  for (size_t i = 0; i < count; ++i)
    batch.push_back(*programs[i % programs.size()]);
  return batch;
}

double mlir::tcl::timeScoring(CostModel &model,
                              llvm::ArrayRef<std::vector<float>> batch) {
  if (batch.empty())
    return 0;
  (void)model.predict(batch.take_front(64)); // warm up
  auto start = std::chrono::steady_clock::now();
  (void)model.predict(batch);
  return secondsSince(start);
}

double mlir::tcl::timeScoring4096(CostModel &model,
                                  llvm::ArrayRef<FeaturizedGroup> groups) {
  std::vector<std::vector<float>> batch = makeScoringBatch(groups);
  std::vector<double> seconds;
  for (int run = 0; run < 3; ++run)
    seconds.push_back(timeScoring(model, batch));
  std::sort(seconds.begin(), seconds.end());
  return seconds[1];
}

llvm::Expected<CostModelEvaluation>
mlir::tcl::trainAndEvaluate(CostModel &model,
                            llvm::ArrayRef<FeaturizedGroup> train,
                            llvm::ArrayRef<FeaturizedGroup> test) {
  std::vector<CostSample> samples = makeSamples(train);
  auto start = std::chrono::steady_clock::now();
  if (llvm::Error error = model.update(samples))
    return std::move(error);
  double trainSeconds = secondsSince(start);
  CostModelEvaluation result = rankHeldOut(model, test);
  result.trainSeconds = trainSeconds;
  result.trainTasks = train.size();
  result.trainRecords = samples.size();
  return result;
}

llvm::Expected<CostModelEvaluation>
mlir::tcl::evaluateCostModel(TuningDatabase &database, llvm::StringRef platform,
                             CostModel &model, MLIRContext *context) {
  // Database order (the order tasks were tuned), alternating.
  std::vector<DatasetGroup> groups;
  for (const TuningDatabase::Summary &row : database.summarize()) {
    if (row.platform != platform || row.records < 2)
      continue;
    DatasetGroup group;
    group.workloadKey = row.workloadKey;
    group.platform = row.platform;
    group.records = database.getRecords(row.workloadKey, row.platform);
    keepLatestCodegen(group.records);
    if (group.records.size() < 2)
      continue;
    groups.push_back(std::move(group));
  }
  auto featurized =
      featurizeGroups(database, groups, model.getFeatureKind(), context);
  if (!featurized)
    return featurized.takeError();
  std::vector<FeaturizedGroup> train, test;
  for (auto [index, group] : llvm::enumerate(*featurized))
    (index % 2 ? test : train).push_back(std::move(group));
  if (test.empty() || train.empty())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "need at least two tasks with records on platform '" + platform + "'");
  return trainAndEvaluate(model, train, test);
}
