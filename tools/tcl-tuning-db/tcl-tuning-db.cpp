//===- tcl-tuning-db.cpp - Inspect, export and import tuning databases ----===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
//   tcl-tuning-db DB summary            per workload and platform: records,
//                                       failures, best latency and GFLOP/s
//   tcl-tuning-db DB export [-o FILE]   every record as JSON lines
//   tcl-tuning-db DB import FILE        adds the records of a JSON lines file
//   tcl-tuning-db DB evaluate [--platform P]
//                                       trains each cost model on every other
//                                       workload, ranks the held-out ones
//   tcl-tuning-db DB collect [GRAPH.mlir ...] --platform P
//                 [--random-tasks N] [--programs-per-task N] [--seed S]
//                                       measures programs of the tasks of
//                                       each graph (tcl-compile --emit=graph)
//                                       and of N random tasks into the
//                                       database, resuming where it stopped
//   tcl-tuning-db DB export-dataset -o DIR [--platforms P,Q] [--note TEXT]
//                                       writes a compact dataset (Dataset.h)
//   tcl-tuning-db DB import-dataset DIR adds a dataset's records
//
//===----------------------------------------------------------------------===//

#include "tcl/Driver/ToolOptions.h"
#include "tcl/Registration/Registration.h"
#include "tcl/Runtime/Machine.h"
#include "tcl/Support/CommandLine.h"
#include "tcl/Tuning/Collect.h"
#include "tcl/Tuning/Database.h"
#include "tcl/Tuning/Dataset.h"
#include "tcl/Tuning/Evaluation.h"
#include "tcl/Tuning/TunedSchedules.h"
#include "tcl/Tuning/Tuner.h"

#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

#include <unistd.h>

using namespace mlir::tcl;

// The tool's own options, the only ones --help lists (showOnlyInHelp).
static llvm::cl::OptionCategory toolCategory("Options");
static llvm::cl::opt<std::string> databasePath(llvm::cl::Positional,
                                               llvm::cl::desc("<database>"),
                                               llvm::cl::Required,
                                               llvm::cl::cat(toolCategory));
static llvm::cl::opt<std::string>
    command(llvm::cl::Positional,
            llvm::cl::desc("<summary | export | import | evaluate | collect | "
                           "export-dataset | import-dataset>"),
            llvm::cl::init("summary"), llvm::cl::cat(toolCategory));
static llvm::cl::list<std::string>
    files(llvm::cl::Positional,
          llvm::cl::desc("[file to import | graphs to collect from]"),
          llvm::cl::cat(toolCategory));
static llvm::cl::opt<std::string> outputPath("o",
                                             llvm::cl::desc("Export to FILE"),
                                             llvm::cl::init("-"),
                                             llvm::cl::cat(toolCategory));

static llvm::cl::opt<std::string> platformName(
    "platform",
    llvm::cl::desc("Platform to evaluate on or collect for, "
                   "<target>/<threads>t (x86-avx512/1t, x86-avx512/2t, "
                   "x86-avx2/1t, x86-sse42/1t; default: this host's with "
                   "one thread); measured here, it is tied to this host's "
                   "machine (x86-avx512/1t@znver4); evaluate takes "
                   "either form"),
    llvm::cl::init(mlir::tcl::getHostTargetArch().name.str() + "/1t"),
    llvm::cl::cat(toolCategory));

static llvm::cl::list<std::string>
    exportPlatforms("platforms",
                    llvm::cl::desc("export-dataset: only these platforms"),
                    llvm::cl::CommaSeparated, llvm::cl::cat(toolCategory));
static llvm::cl::opt<std::string>
    note("note",
         llvm::cl::desc("export-dataset: how the data was collected "
                        "(kept in MANIFEST.json)"),
         llvm::cl::init(""), llvm::cl::cat(toolCategory));

static llvm::cl::OptionCategory collectCategory("Options of collect");
static llvm::cl::opt<unsigned>
    randomTasks("random-tasks",
                llvm::cl::desc("Random matmul/conv/depthwise/pool tasks to "
                               "add to the graphs' tasks"),
                llvm::cl::init(0), llvm::cl::cat(collectCategory));
static llvm::cl::opt<unsigned> programsPerTask(
    "programs-per-task",
    llvm::cl::desc("Measured programs per task and platform (the default "
                   "schedule included), counting what the database has"),
    llvm::cl::init(100), llvm::cl::cat(collectCategory));
static SearchFlags searchFlags(collectCategory,
                               "Seed of the random tasks and of the sampling",
                               "Programs per task and turn (one transaction)",
                               /*defaultBatchSize=*/10);
static llvm::cl::opt<double> randomFraction(
    "random-fraction",
    llvm::cl::desc("Share of each batch sampled uniformly; the rest comes "
                   "from the evolutionary search"),
    llvm::cl::init(0.5), llvm::cl::cat(collectCategory));
static llvm::cl::opt<std::string> collectCostModel(
    "cost-model",
    llvm::cl::desc("The cost model the search's proposals are scored with "
                   "(random: the evolution explores blind; --sampler=rdu "
                   "needs another: xgboost, mamba, tlp, mlp)"),
    llvm::cl::init("random"), llvm::cl::cat(collectCategory));
static MeasureFlags measureFlags(collectCategory, [] {
  MeasureOptions defaults;
  defaults.warmup = 1;
  defaults.repeats = 5;
  defaults.timeoutSeconds = 20;
  return defaults;
}());
static llvm::cl::opt<double> maxForeignLoad(
    "max-foreign-load",
    llvm::cl::desc("Re-measure a batch when other processes kept more than "
                   "this many cores busy meanwhile; negative: never check"),
    llvm::cl::init(0.25), llvm::cl::cat(collectCategory));

static int fail(llvm::Error error) {
  llvm::errs() << "tcl-tuning-db: " << llvm::toString(std::move(error)) << "\n";
  return 1;
}

static int collect(TuningDatabase &database) {
  llvm::Expected<Platform> platform = Platform::parse(platformName);
  if (!platform)
    return fail(platform.takeError());
  // The load monitor tells this collector's processes (it and its
  // measurement workers) from everything else by process group.
  setpgid(0, 0);

  CollectOptions options;
  options.platform = *platform;
  options.graphs = files;
  options.randomTasks = randomTasks;
  options.programsPerTask = programsPerTask;
  options.seed = searchFlags.getSeed();
  options.batchSize = searchFlags.getBatchSize();
  options.randomFraction = randomFraction;
  options.costModel = collectCostModel;
  options.sampler = searchFlags.getSampler();
  options.committeeMembers = searchFlags.getCommitteeMembers();
  options.measure = measureFlags.get();
  options.maxForeignLoad = maxForeignLoad;
  mlir::DialectRegistry registry;
  registerTclDialects(registry);
  mlir::MLIRContext context(registry);
  auto report = collectDataset(database, options, &context, &llvm::errs());
  if (!report)
    return fail(report.takeError());
  unsigned trials = 0, failures = 0;
  for (const TaskReport &task : report->tuning.tasks) {
    trials += task.trials;
    failures += task.failures;
  }
  llvm::errs() << "collect: " << report->tuning.tasks.size() << " tasks, "
               << trials << " programs on " << platformName << " (" << failures
               << " failed), " << report->tuning.skipped.size()
               << " tasks without a search space; " << report->guard.remeasured
               << " batches re-measured for foreign load, "
               << report->guard.referenceWaits
               << " waits for the reference kernel\n";
  for (const std::string &skipped : report->tuning.skipped)
    llvm::errs() << "  skipped: " << skipped << "\n";
  return 0;
}

static constexpr llvm::StringLiteral kCommands[] = {
    "summary", "export",         "import",        "evaluate",
    "collect", "export-dataset", "import-dataset"};

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  showOnlyInHelp({&toolCategory, &collectCategory});
  llvm::cl::ParseCommandLineOptions(argc, argv, "tcl tuning database tool\n");
  // Before opening (and so creating) the database: a mistyped command must
  // not leave an empty database behind.
  if (!llvm::is_contained(kCommands, command))
    return fail(llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "unknown command '" + command + "' (" +
            llvm::join(llvm::ArrayRef(kCommands), ", ") + ")"));
  auto database = TuningDatabase::open(databasePath);
  if (!database)
    return fail(database.takeError());
  if (command == "summary") {
    std::vector<TuningDatabase::Summary> rows = (*database)->summarize();
    // Totals first: with hundreds of tasks, the progress of a collection.
    struct PlatformTotal {
      size_t tasks = 0, records = 0, failures = 0;
      unsigned oldestCodegen = ~0u, latestCodegen = 0;
    };
    llvm::MapVector<llvm::StringRef, PlatformTotal> platforms;
    for (const TuningDatabase::Summary &row : rows) {
      PlatformTotal &total = platforms[row.platform];
      ++total.tasks;
      total.records += row.records;
      total.failures += row.failures;
      total.oldestCodegen = std::min(total.oldestCodegen, row.oldestCodegen);
      total.latestCodegen = std::max(total.latestCodegen, row.latestCodegen);
    }
    // Code generations (kCodegenVersion; 0: before versions were kept): the
    // search measures again what an earlier one measured.
    llvm::outs() << "| platform | tasks | records | failed | codegen |\n"
                    "| --- | ---: | ---: | ---: | --- |\n";
    for (const auto &[platform, total] : platforms) {
      std::string codegen = std::to_string(total.oldestCodegen);
      if (total.latestCodegen != total.oldestCodegen)
        codegen += "-" + std::to_string(total.latestCodegen);
      llvm::outs() << "| " << platform << " | " << total.tasks << " | "
                   << total.records << " | " << total.failures << " | "
                   << codegen << " |\n";
    }
    llvm::outs() << "\n| workload | platform | records | failed | best (ms) "
                    "| GFLOP/s |\n| --- | --- | ---: | ---: | ---: | ---: |\n";
    for (const TuningDatabase::Summary &row : rows) {
      std::string key = row.workloadKey.substr(0, 100);
      llvm::outs() << "| " << key << (row.workloadKey.size() > 100 ? "..." : "")
                   << " | " << row.platform << " | " << row.records << " | "
                   << row.failures << " | "
                   << llvm::format("%.4f", row.bestSeconds * 1e3) << " | "
                   << llvm::format("%.1f",
                                   row.bestSeconds > 0
                                       ? row.flops / row.bestSeconds * 1e-9
                                       : 0.0)
                   << " |\n";
    }
    return 0;
  }
  if (command == "export") {
    std::error_code ec;
    llvm::ToolOutputFile output(outputPath, ec, llvm::sys::fs::OF_Text);
    if (ec)
      return fail(
          llvm::createStringError(ec, "cannot write '" + outputPath + "'"));
    if (llvm::Error error = (*database)->exportJsonLines(output.os()))
      return fail(std::move(error));
    output.keep();
    return 0;
  }
  if (command == "import") {
    std::string file = files.empty() ? "-" : files.front();
    auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(file);
    if (!buffer)
      return fail(llvm::createStringError(buffer.getError(),
                                          "cannot read '" + file + "'"));
    auto added = (*database)->importJsonLines((*buffer)->getBuffer());
    if (!added)
      return fail(added.takeError());
    llvm::outs() << "imported " << *added << " records\n";
    return 0;
  }
  if (command == "evaluate") {
    // A platform named without its machine means this host's (or the only
    // machine's) records.
    auto evaluated = resolvePlatformName(**database, platformName);
    if (!evaluated)
      return fail(evaluated.takeError());
    mlir::DialectRegistry registry;
    registerTclDialects(registry);
    mlir::MLIRContext context(registry);
    context.loadAllAvailableDialects();
    llvm::outs() << "| cost model | train tasks / records | held-out tasks / "
                    "records | top-1 | top-5 | Spearman | NDCG@5 | pairwise "
                    "accuracy | training (s) |\n| --- | --- | --- | ---: | "
                    "---: | ---: | ---: | ---: | ---: |\n";
    for (const std::string &name : getCostModelNames()) {
      std::unique_ptr<CostModel> model = createCostModel(name, /*seed=*/1);
      if (!model) // A learned model whose library cannot be opened.
        return fail(openLearnedCostModels());
      auto result = evaluateCostModel(**database, *evaluated, *model, &context);
      if (!result)
        return fail(result.takeError());
      llvm::outs() << llvm::formatv(
          "| {0} | {1} / {2} | {3} / {4} | {5:F3} | {6:F3} | {7:F3} | "
          "{8:F3} | {9:F3} | {10:F2} |\n",
          name, result->trainTasks, result->trainRecords, result->testTasks,
          result->testRecords, result->top1, result->top5, result->spearman,
          result->ndcg5, result->pairwiseAccuracy, result->trainSeconds);
    }
    return 0;
  }
  if (command == "collect")
    return collect(**database);
  if (command == "export-dataset") {
    if (outputPath == "-")
      return fail(
          llvm::createStringError(llvm::inconvertibleErrorCode(),
                                  "export-dataset needs -o <directory>"));
    DatasetManifest manifest;
    manifest.command = "tcl-tuning-db " + databasePath + " export-dataset";
    manifest.date = currentTimeIso();
    manifest.machine = describeHost();
    manifest.notes = note;
    if (searchFlags.hasSeed())
      manifest.seed = std::to_string(searchFlags.getSeed());
    if (llvm::Error error =
            exportDataset(**database, outputPath, manifest, exportPlatforms))
      return fail(std::move(error));
    llvm::outs() << "wrote " << outputPath << "\n";
    return 0;
  }
  if (command == "import-dataset") {
    if (files.empty())
      return fail(llvm::createStringError(llvm::inconvertibleErrorCode(),
                                          "import-dataset needs a directory"));
    auto added = importDataset(**database, files.front());
    if (!added)
      return fail(added.takeError());
    llvm::outs() << "imported " << *added << " records\n";
    return 0;
  }
  llvm_unreachable("every command in kCommands is handled above");
}
