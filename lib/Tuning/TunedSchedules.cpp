//===- TunedSchedules.cpp - Schedules from the tuning database ------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/TunedSchedules.h"
#include "tcl/Runtime/Machine.h"
#include "tcl/Transforms/Pipelines.h"
#include "tcl/Transforms/TaskExtraction.h"

#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::tcl;

llvm::Expected<Platform> mlir::tcl::registerPlatform(TuningDatabase &database,
                                                     Platform platform,
                                                     bool probe) {
  if (probe) {
    // Measuring code the host cannot execute would only record crashes.
    if (llvm::Error error = checkHostSupports(platform.getTarget()))
      return std::move(error);
    // What is measured here is this machine's: another machine's figures
    // for the same target are another platform.
    std::string here = getHostMachineName();
    if (platform.getMachine().empty())
      platform = platform.onMachine(here);
    else if (platform.getMachine() != here)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "cannot measure platform '" + platform.getName() +
              "' here: this host is a " + here + " machine (measure on '" +
              platform.onMachine(here).getName() + "')");
  }
  std::optional<Platform> stored = database.getPlatform(platform.getName());
  if (!stored)
    if (llvm::Error error = database.addPlatform(platform))
      return std::move(error);
  if (stored && (stored->getFeatures().isProbed() || !probe))
    return *stored;
  Platform known = Platform(platform.getTarget(), platform.getThreads())
                       .onMachine(platform.getMachine());
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

std::vector<std::string>
mlir::tcl::getStandInPlatforms(TuningDatabase &database,
                               const Platform &platform) {
  std::vector<std::string> names;
  auto add = [&](const std::string &name) {
    if (!llvm::is_contained(names, name) && database.getPlatform(name))
      names.push_back(name);
  };
  add(platform.onMachine(getHostMachineName()).getName());
  add(platform.getName());
  for (const Platform &other : database.getPlatforms())
    if (other.getNameWithoutMachine() == platform.getNameWithoutMachine())
      add(other.getName());
  return names;
}

llvm::Expected<std::string>
mlir::tcl::resolvePlatformName(TuningDatabase &database, llvm::StringRef name) {
  if (database.getPlatform(name))
    return name.str();
  llvm::Expected<Platform> platform = Platform::parse(name);
  if (!platform)
    return platform.takeError();
  std::vector<std::string> machines;
  if (platform->getMachine().empty())
    for (const Platform &other : database.getPlatforms())
      if (other.getNameWithoutMachine() == platform->getName())
        machines.push_back(other.getName());
  std::string here = platform->onMachine(getHostMachineName()).getName();
  if (llvm::is_contained(machines, here))
    return here;
  if (machines.size() == 1)
    return machines.front();
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      machines.empty()
          ? "the database has no platform '" + name + "'"
          : "platform '" + name + "' was measured on several machines: " +
                llvm::join(machines, ", ") + " (name one)");
}

ScheduleOp mlir::tcl::parseStoredSchedule(llvm::StringRef text,
                                          MLIRContext *context,
                                          OwningOpRef<ModuleOp> &holder,
                                          std::string *why) {
  ScopedDiagnosticHandler capture(context, [&](Diagnostic &diagnostic) {
    if (why)
      *why += (why->empty() ? "" : "; ") + diagnostic.str();
    return success();
  });
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
  std::vector<std::string> standIns = getStandInPlatforms(database, platform);
  for (const TaskSummary &summary : summarizeTasks(module)) {
    if (scheduled.contains(summary.name))
      continue;
    std::optional<TuningRecord> best;
    for (const std::string &name : standIns)
      if ((best = database.getBest(summary.key, name, kCodegenVersion)))
        break;
    if (!best)
      continue;
    OwningOpRef<ModuleOp> holder;
    std::string why;
    ScheduleOp schedule =
        parseStoredSchedule(best->schedule, module.getContext(), holder, &why);
    if (!schedule)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "the tuning database's schedule for task '" + summary.name +
              "' does not parse: " + why);
    Operation *copy = builder.clone(*schedule);
    cast<ScheduleOp>(copy).setTask(summary.name);
    ++applied;
  }
  return applied;
}
