//===- ToolOptions.cpp - Command-line flags the tools share ---------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Driver/ToolOptions.h"
#include "tcl/Support/InstallPaths.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace mlir::tcl;

PlatformFlags::PlatformFlags(llvm::cl::OptionCategory &category,
                             llvm::StringRef defaultTargetHelp)
    : targetHelp(("Target platform (" +
                  llvm::join(llvm::map_range(getTargetArchs(),
                                             [](const TargetArch &arch) {
                                               return arch.name;
                                             }),
                             ", ") +
                  "; default: " + defaultTargetHelp + ")")
                     .str()),
      target("target", llvm::cl::desc(targetHelp), llvm::cl::cat(category)),
      threads("num-threads",
              llvm::cl::desc("Threads that run parallel loops (OpenMP)"),
              llvm::cl::init(1), llvm::cl::cat(category)) {}

llvm::Expected<const TargetArch *> PlatformFlags::getTarget() const {
  if (target.empty())
    return nullptr;
  if (const TargetArch *arch = lookupTargetArch(target))
    return arch;
  llvm::SmallVector<llvm::StringRef> known;
  for (const TargetArch &arch : getTargetArchs())
    known.push_back(arch.name);
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "unknown target '" + target +
          "'; known targets: " + llvm::join(known, " "));
}

llvm::Expected<Platform>
PlatformFlags::getPlatform(const TargetArch &fallback) const {
  llvm::Expected<const TargetArch *> named = getTarget();
  if (!named)
    return named.takeError();
  return Platform::get(*named ? (*named)->name : fallback.name, threads);
}

MeasureFlags::MeasureFlags(llvm::cl::OptionCategory &category,
                           const MeasureOptions &defaults)
    : defaults(defaults),
      repeats("measure-repeats",
              llvm::cl::desc("Timed runs per measured candidate"),
              llvm::cl::init(defaults.repeats), llvm::cl::cat(category)),
      timeoutSeconds(
          "measure-timeout",
          llvm::cl::desc("Seconds a candidate may take (compile, check, "
                         "runs) before it is recorded as a timeout"),
          llvm::cl::init(defaults.timeoutSeconds), llvm::cl::cat(category)),
      coldCaches(
          "measure-cold-caches",
          llvm::cl::desc("Overwrite 64 MB before each timed run of a "
                         "candidate, so that it starts with its data out "
                         "of the L1 and L2 caches, as a task of a model "
                         "does whose neighbours' data evicted its own "
                         "(keep such measurements in a database of their "
                         "own: their latencies are not comparable with "
                         "warm ones)"),
          llvm::cl::init(defaults.flushCache), llvm::cl::cat(category)),
      parallelBuilds(
          "parallel-builds",
          llvm::cl::desc("Candidates compiled at the same time (default: "
                         "one a core); timed runs still go one at a time, "
                         "with no build running"),
          llvm::cl::init(0), llvm::cl::cat(category)) {}

MeasureOptions MeasureFlags::get() const {
  MeasureOptions options = defaults;
  options.repeats = repeats;
  options.timeoutSeconds = timeoutSeconds;
  options.flushCache = coldCaches;
  options.parallelBuilds =
      parallelBuilds ? parallelBuilds : getDefaultParallelBuilds();
  return options;
}

SearchFlags::SearchFlags(llvm::cl::OptionCategory &category,
                         llvm::StringRef seedHelp, llvm::StringRef batchHelp,
                         unsigned defaultBatchSize)
    : seed("seed", llvm::cl::desc(seedHelp), llvm::cl::init(1),
           llvm::cl::cat(category)),
      batchSize("batch-size", llvm::cl::desc(batchHelp),
                llvm::cl::init(defaultBatchSize), llvm::cl::cat(category)),
      sampler("sampler",
              llvm::cl::desc("Which candidates of a search round to measure: "
                             "topk (the best by the cost model, some at "
                             "random) or rdu (uncertainty, diversity and "
                             "density in the model's view, METHOD.md 3); "
                             "tcl-compile: rdu with mamba, tlp and mlp, topk "
                             "with xgboost and random; collect: topk"),
              llvm::cl::init("topk"), llvm::cl::cat(category)),
      committeeMembers(
          "committee-members",
          llvm::cl::desc("With --sampler=rdu: models of the cost model's "
                         "kind, each refitted on a bootstrap resample, whose "
                         "spread is the uncertainty"),
          llvm::cl::init(2), llvm::cl::cat(category)) {}

std::string mlir::tcl::findPretrainedCostModel(llvm::StringRef name) {
  std::string path =
      getInstallPath(("share/tcl/cost-models/" + name + "-cpu.bin").str());
  return llvm::sys::fs::exists(path) ? path : std::string();
}
