//===- Confirmation.cpp - The search's winners measured again -------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// What the tuner measures: a task's workload with a candidate schedule; and,
// once the search is done, each task's fastest record measured again beside
// its default schedule before it is trusted (TuningOptions::
// confirmationRounds).
//
//===----------------------------------------------------------------------===//

#include "TuningState.h"
#include "tcl/Transforms/Pipelines.h"
#include "tcl/Tuning/TunedSchedules.h"

#include "mlir/IR/Builders.h"

#include <optional>
#include <set>

using namespace mlir;
using namespace mlir::tcl;

void mlir::tcl::setMeasurement(TuningRecord &record,
                               const MeasureResult &result) {
  record.status = result.status == MeasureStatus::Ok
                      ? "ok"
                      : llvm::StringRef(toString(result.status)).str();
  record.message = result.message;
  record.minSeconds = result.minSeconds;
  record.medianSeconds = result.medianSeconds;
  record.maxSeconds = result.maxSeconds;
  record.repeats = result.repeats;
  record.maxError = result.maxError;
}

MeasureInput mlir::tcl::makeMeasureInput(TaskState &task,
                                         llvm::StringRef schedule,
                                         const Platform &platform) {
  OwningOpRef<ModuleOp> module = task.workload->clone();
  OwningOpRef<ModuleOp> holder;
  if (ScheduleOp op =
          parseStoredSchedule(schedule, task.workload->getContext(), holder))
    OpBuilder::atBlockEnd(module->getBody()).clone(*op);
  MeasureInput input;
  input.workload = task.workloadText;
  input.candidate = printOp(*module);
  input.entry = kWorkloadEntry.str();
  input.platform = platform;
  return input;
}

llvm::Error mlir::tcl::confirmFastest(
    TuningDatabase &database, const Platform &platform,
    llvm::ArrayRef<std::unique_ptr<TaskState>> tasks,
    llvm::function_ref<std::vector<MeasureResult>(llvm::ArrayRef<MeasureInput>)>
        measure,
    unsigned rounds, TuningReport &report, llvm::raw_ostream *out, bool live) {
  // Schedules of each task measured again in this run.
  std::vector<std::set<std::string>> remeasured(tasks.size());
  // A task's default record and the record a compile would use
  // (TuningDatabase::getBest), both of this code generation.
  auto defaultAndBest = [&](const TaskState &task) {
    std::pair<std::optional<TuningRecord>, std::optional<TuningRecord>> found;
    for (TuningRecord &record :
         database.getRecords(task.report.key, platform.getName()))
      if (record.codegen == kCodegenVersion && record.isOk() &&
          record.proposer == "default")
        found.first = std::move(record);
    found.second =
        database.getBest(task.report.key, platform.getName(), kCodegenVersion);
    if (found.second && found.second->codegen != kCodegenVersion)
      found.second.reset();
    return found;
  };
  for (unsigned attempt = 0; attempt < rounds; ++attempt) {
    std::vector<MeasureInput> inputs;
    std::vector<TuningRecord> records;
    for (auto [index, task] : llvm::enumerate(tasks)) {
      auto [defaultRecord, best] = defaultAndBest(*task);
      if (!defaultRecord || !best ||
          best->schedule == defaultRecord->schedule ||
          remeasured[index].count(best->schedule))
        continue;
      for (const TuningRecord &record : {*defaultRecord, *best}) {
        inputs.push_back(makeMeasureInput(*task, record.schedule, platform));
        remeasured[index].insert(record.schedule);
        records.push_back(record);
      }
    }
    if (inputs.empty())
      break;
    if (out)
      *out << (live && attempt == 0 ? "\n" : "")
           << "measuring the fastest schedules of " << inputs.size() / 2
           << " task(s) again beside their defaults\n";
    std::vector<MeasureResult> results = measure(inputs);
    for (auto [record, result] : llvm::zip(records, results)) {
      setMeasurement(record, result);
      record.time.clear();
    }
    if (llvm::Error error = database.updateMeasurements(records))
      return error;
    report.remeasured += records.size();
  }
  for (auto [index, task] : llvm::enumerate(tasks)) {
    auto [defaultRecord, best] = defaultAndBest(*task);
    if (best)
      task->report.bestSeconds = best->medianSeconds;
    if (!defaultRecord)
      continue;
    task->report.defaultSeconds = defaultRecord->medianSeconds;
    // Its winner was measured again and is no longer the fastest.
    if (best && best->schedule == defaultRecord->schedule &&
        remeasured[index].size() > 1)
      report.defaultsKept.push_back(task->report.name);
  }
  return llvm::Error::success();
}
