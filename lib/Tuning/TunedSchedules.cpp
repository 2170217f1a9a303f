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

llvm::Expected<Platform> mlir::tcl::registerPlatform(TuningDatabase &database,
                                                    const Platform &platform,
                                                    bool probe) {
  // Measuring code the host cannot execute would only record crashes.
  if (probe)
    if (llvm::Error error = checkHostSupports(platform.getTarget()))
      return std::move(error);
  std::optional<Platform> stored = database.getPlatform(platform.getName());
  if (!stored)
    if (llvm::Error error = database.addPlatform(platform))
      return std::move(error);
  if (stored && (stored->getFeatures().isProbed() || !probe))
    return *stored;
  Platform known(platform.getTarget(), platform.getThreads());
  if (probe) {
    llvm::Expected<HardwareFeatures> probed = probeHardware(platform);
    if (!probed)
      return probed.takeError();
    known.setFeatures(*probed);
  }
  if (llvm::Error error = database.setPlatformFeatures(known))
    return std::move(error);
  return known;
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
                               const Platform &platform) {
  module.getContext()->loadDialect<TclDialect>();
  llvm::StringSet<> scheduled;
  module.walk([&](ScheduleOp op) { scheduled.insert(op.getTask()); });
  unsigned applied = 0;
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  for (const TaskSummary &summary : summarizeTasks(module)) {
    if (scheduled.contains(summary.name))
      continue;
    std::optional<TuningRecord> best =
        database.getBest(summary.key, platform.getName());
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
