//===- Evaluation.cpp - Cost models on held-out tasks ---------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/Search/Evaluation.h"
#include "tcl/Transforms/TaskExtraction.h"
#include "tcl/Tuning/Search/Metrics.h"
#include "tcl/Tuning/Search/Search.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Parser/Parser.h"

#include <chrono>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tcl;

namespace {
/// A task's records as features and latencies (infinity: failed).
struct TaskData {
  std::vector<std::vector<float>> features;
  std::vector<double> latencies;
};

llvm::Expected<TaskData> loadTask(TuningDatabase &database,
                                  const TuningDatabase::Summary &row,
                                  FeatureKind kind, MLIRContext *context) {
  std::optional<HardwareFeatures> hardware;
  if (std::optional<PlatformEntry> platform =
          database.getPlatform(row.platform))
    hardware = HardwareFeatures::fromJson(platform->features);
  std::optional<WorkloadEntry> workload = database.getWorkload(row.workloadKey);
  OwningOpRef<ModuleOp> module =
      workload ? parseSourceString<ModuleOp>(workload->module, context)
               : OwningOpRef<ModuleOp>();
  auto anchor =
      module ? dyn_cast_or_null<linalg::LinalgOp>(findTaskAnchor(*module))
             : linalg::LinalgOp();
  FailureOr<TaskFeatures> task =
      anchor ? TaskFeatures::fromAnchor(anchor) : FailureOr<TaskFeatures>();
  if (failed(task))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "workload '" + row.workloadKey.substr(0, 60) + "' does not parse");
  TaskData data;
  for (const TuningRecord &record :
       database.getRecords(row.workloadKey, row.platform)) {
    OwningOpRef<ModuleOp> holder;
    ScheduleOp schedule = parseStoredSchedule(record.schedule, context, holder);
    if (!schedule)
      continue;
    FailureOr<std::vector<float>> features =
        featurize(schedule, *task, hardware ? &*hardware : nullptr, kind);
    if (failed(features))
      continue;
    data.features.push_back(std::move(*features));
    data.latencies.push_back(record.isOk()
                                 ? record.medianSeconds
                                 : std::numeric_limits<double>::infinity());
  }
  return data;
}
} // namespace

llvm::Expected<CostModelEvaluation>
mlir::tcl::evaluateCostModel(TuningDatabase &database, llvm::StringRef platform,
                             CostModel &model, MLIRContext *context) {
  context->loadDialect<TclDialect>();
  CostModelEvaluation result;
  std::vector<CostSample> train;
  std::vector<TaskData> test;
  unsigned index = 0;
  for (const TuningDatabase::Summary &row : database.summarize()) {
    if (row.platform != platform)
      continue;
    auto data = loadTask(database, row, model.getFeatureKind(), context);
    if (!data)
      return data.takeError();
    if (data->latencies.size() < 2)
      continue;
    if (index++ % 2 == 1) {
      result.testRecords += data->latencies.size();
      test.push_back(std::move(*data));
      continue;
    }
    double best = std::numeric_limits<double>::infinity();
    for (double latency : data->latencies)
      best = std::min(best, latency);
    for (auto [features, latency] : llvm::zip(data->features, data->latencies))
      train.push_back({features,
                       std::isfinite(latency) ? float(best / latency) : 0.0f,
                       static_cast<unsigned>(result.trainTasks)});
    ++result.trainTasks;
  }
  result.testTasks = test.size();
  result.trainRecords = train.size();
  if (test.empty() || train.empty())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "need at least two tasks with records on platform '" + platform + "'");
  auto start = std::chrono::steady_clock::now();
  if (llvm::Error error = model.update(train))
    return std::move(error);
  result.trainSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::vector<RankedGroup> groups;
  for (TaskData &data : test) {
    RankedGroup group{model.predict(data.features), data.latencies, 1};
    std::vector<double> throughputs;
    for (double latency : data.latencies)
      throughputs.push_back(std::isfinite(latency) ? 1 / latency : 0);
    result.spearman += spearman(group.scores, throughputs) / test.size();
    result.ndcg5 += ndcgAtK(group, 5) / test.size();
    result.pairwiseAccuracy += pairwiseAccuracy(group) / test.size();
    groups.push_back(std::move(group));
  }
  result.top1 = topKScore(groups, 1);
  result.top5 = topKScore(groups, 5);
  return result;
}
