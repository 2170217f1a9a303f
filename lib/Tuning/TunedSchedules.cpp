//===- TunedSchedules.cpp - Schedules from the tuning database ------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/TunedSchedules.h"
#include "tcl/Runtime/Machine.h"
#include "tcl/Transforms/TaskExtraction.h"

#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::tcl;

llvm::Expected<HardwareFeatures>
mlir::tcl::registerPlatform(TuningDatabase &database, llvm::StringRef target,
                            unsigned threads, bool probe) {
  const Platform *platform = lookupPlatform(target);
  if (!platform)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "unknown target '" + target + "'");
  // Measuring code the host cannot execute would only record crashes.
  if (probe)
    if (llvm::Error error = checkHostSupports(*platform))
      return std::move(error);
  PlatformEntry entry = PlatformEntry::make(target, threads);
  std::optional<HardwareFeatures> stored;
  if (std::optional<PlatformEntry> existing = database.getPlatform(entry.name))
    stored = HardwareFeatures::fromJson(existing->features);
  else if (llvm::Error error = database.addPlatform(entry))
    return std::move(error);
  if (stored && (stored->isProbed() || !probe))
    return *stored;
  HardwareFeatures features =
      HardwareFeatures::fromPlatform(*platform, threads);
  if (probe) {
    llvm::Expected<HardwareFeatures> probed = probeHardware(*platform, threads);
    if (!probed)
      return probed.takeError();
    features = *probed;
  }
  if (llvm::Error error =
          database.setPlatformFeatures(entry.name, features.toJson()))
    return std::move(error);
  return features;
}

ScheduleOp mlir::tcl::parseStoredSchedule(llvm::StringRef text,
                                          MLIRContext *context,
                                          OwningOpRef<ModuleOp> &holder) {
  holder = parseSourceString<ModuleOp>(text, context);
  ScheduleOp schedule;
  if (holder)
    holder->walk([&](ScheduleOp op) { schedule = op; });
  return schedule;
}

llvm::Expected<unsigned>
mlir::tcl::applyTunedSchedules(ModuleOp module, TuningDatabase &database,
                               llvm::StringRef target, unsigned numThreads) {
  module.getContext()->loadDialect<TclDialect>();
  PlatformEntry platform = PlatformEntry::make(target, numThreads);
  llvm::StringSet<> scheduled;
  module.walk([&](ScheduleOp op) { scheduled.insert(op.getTask()); });
  unsigned applied = 0;
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  for (const TaskSummary &summary : summarizeTasks(module)) {
    if (scheduled.contains(summary.name))
      continue;
    std::optional<TuningRecord> best =
        database.getBest(summary.key, platform.name);
    if (!best)
      continue;
    OwningOpRef<ModuleOp> holder;
    ScheduleOp schedule =
        parseStoredSchedule(best->schedule, module.getContext(), holder);
    if (!schedule)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "the tuning database's schedule for task '" + summary.name +
              "' does not parse");
    Operation *copy = builder.clone(*schedule);
    cast<ScheduleOp>(copy).setTask(summary.name);
    ++applied;
  }
  return applied;
}
