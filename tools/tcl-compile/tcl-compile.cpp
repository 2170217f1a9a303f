//===- tcl-compile.cpp - tcl's compiler driver ----------------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Compiles a .mlir file of linalg ops and their tcl.sched schedules, or an
// ONNX model (imported to linalg, function @tcl_forward), for a target
// platform. --emit selects how far: `mlir` (schedules applied), `llvm`
// (LLVM IR after -O3), `obj` (object file) or `so` (shared library); for a
// GPU target, `ptx` (the kernels' PTX). Public
// functions get C interface wrappers `_mlir_ciface_<name>` whose results are
// out-parameters.
//
//===----------------------------------------------------------------------===//

#include "tcl/Driver/Compiler.h"
#include "tcl/Driver/ToolOptions.h"
#include "tcl/Support/CommandLine.h"
#include "tcl/Target/Platform.h"
#include "tcl/Tuning/Report.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace mlir;

// The tool's own options, the only ones --help lists (showOnlyInHelp).
static llvm::cl::OptionCategory toolCategory("Options");
static llvm::cl::opt<std::string>
    inputFilename(llvm::cl::Positional,
                  llvm::cl::desc("<input.mlir | model.onnx>"),
                  llvm::cl::Required, llvm::cl::cat(toolCategory));
static llvm::cl::list<std::string> inputShapes(
    "input-shape",
    llvm::cl::desc("Static shape of an ONNX graph input: name=1x3x224x224"),
    llvm::cl::cat(toolCategory));
static llvm::cl::list<std::string> boundInputs(
    "bind-input",
    llvm::cl::desc("Fix an ONNX graph input to the value in an ONNX tensor "
                   "file: name=value.pb (e.g. an integer input that "
                   "determines shapes)"),
    llvm::cl::cat(toolCategory));
static llvm::cl::opt<bool> optimizeGraph(
    "optimize-graph",
    llvm::cl::desc("Run the graph-level optimizations on imported ONNX "
                   "models (layout propagation, constant and BatchNorm "
                   "folding, 1x1 convolutions as matmuls, 3x3 ones by "
                   "Winograd's algorithm, elementwise fusion)"),
    llvm::cl::init(true), llvm::cl::cat(toolCategory));
static llvm::cl::opt<bool> winograd(
    "winograd",
    llvm::cl::desc("Compute 3x3 stride-1 convolutions with constant filters "
                   "by Winograd's algorithm (F(4x4, 3x3), else F(2x2, 3x3)); "
                   "--winograd=false keeps them direct (results within "
                   "rounding of each other)"),
    llvm::cl::init(true), llvm::cl::cat(toolCategory));
static llvm::cl::opt<bool> blockFilters(
    "block-filters",
    llvm::cl::desc("Pack the constant filters of convolutions with 256 or "
                   "more output channels into blocks of 64 channels at "
                   "compile time (tcl-block-convolution-filters); "
                   "--block-filters=false keeps them in HWCF"),
    llvm::cl::init(true), llvm::cl::cat(toolCategory));
static llvm::cl::opt<std::string>
    outputFilename("o", llvm::cl::desc("Output file"),
                   llvm::cl::value_desc("filename"), llvm::cl::init("-"),
                   llvm::cl::cat(toolCategory));
static tcl::PlatformFlags
    platformFlags(toolCategory,
                  "that of the input's schedules, else this host's, " +
                      tcl::getHostTargetArch().name.str());
static llvm::cl::opt<tcl::EmitKind> emitKind(
    "emit", llvm::cl::desc("What to produce"),
    llvm::cl::values(
        clEnumValN(tcl::EmitKind::Graph, "graph",
                   "MLIR of the optimized graph with its tasks tagged, "
                   "before scheduling (what the tuner and the dataset "
                   "collector read)"),
        clEnumValN(tcl::EmitKind::MLIR, "mlir",
                   "MLIR with the schedules applied"),
        clEnumValN(tcl::EmitKind::LLVM, "llvm", "LLVM IR"),
        clEnumValN(tcl::EmitKind::Object, "obj", "an object file"),
        clEnumValN(tcl::EmitKind::SharedLibrary, "so", "a shared library"),
        clEnumValN(tcl::EmitKind::PTX, "ptx",
                   "PTX of the kernels (GPU targets)")),
    llvm::cl::init(tcl::EmitKind::SharedLibrary), llvm::cl::cat(toolCategory));
static llvm::cl::opt<std::string>
    apiEntry("entry",
             llvm::cl::desc("Function that gets the C API (tcl_model_*) in .so "
                            "output and whose header is written next to it"),
             llvm::cl::init(tcl::kOnnxEntryName), llvm::cl::cat(toolCategory));
static llvm::cl::opt<unsigned> compileThreads(
    "compile-threads",
    llvm::cl::desc("Threads that optimize and generate the code of a shared "
                   "library, each for a share of its functions (0: one a "
                   "core)"),
    llvm::cl::init(0), llvm::cl::cat(toolCategory));
static llvm::cl::opt<bool>
    timing("timing",
           llvm::cl::desc("Print how long each phase (and each MLIR pass) "
                          "took to standard error"),
           llvm::cl::cat(toolCategory));
static llvm::cl::opt<bool> profile(
    "profile",
    llvm::cl::desc("Count in the compiled code where each run's time goes "
                   "(every loop nest's calls: the tasks' and the leftover "
                   "ops'), for tcl-run --library=... --profile"),
    llvm::cl::cat(toolCategory));
static llvm::cl::opt<bool> dumpTasks(
    "dump-tasks",
    llvm::cl::desc("List the tasks (anchor + epilogue, deduplicated by "
                   "workload key) with weights and FLOPs, and stop"),
    llvm::cl::cat(toolCategory));

// Tuning (the built-in search) and the tuning database.
static llvm::cl::OptionCategory tuningCategory("Tuning options");
static llvm::cl::opt<std::string> tuningDb(
    "tuning-db",
    llvm::cl::desc("Tuning database (SQLite): compile with the best schedule "
                   "it holds for each task on the target and thread count; "
                   "with --tune, where the measurements go"),
    llvm::cl::cat(tuningCategory));
static llvm::cl::opt<bool>
    tune("tune", llvm::cl::desc("Search schedules for the tasks first"),
         llvm::cl::cat(tuningCategory));
static llvm::cl::opt<unsigned>
    trials("trials",
           llvm::cl::desc("Candidates to measure with --tune, the default "
                          "schedules included (default: 16 a task, at least "
                          "64)"),
           llvm::cl::init(0), llvm::cl::cat(tuningCategory));
static llvm::cl::opt<bool>
    resume("resume",
           llvm::cl::desc("Count the trials already in the database toward "
                          "--trials (continue a killed run)"),
           llvm::cl::cat(tuningCategory));
static llvm::cl::opt<bool> fromDefaults(
    "from-defaults",
    llvm::cl::desc("With --tune, measure each task's default schedule first "
                   "and let the search start from it (=false: from samples "
                   "of the search space alone, as Ansor and Tenset are "
                   "measured)"),
    llvm::cl::init(true), llvm::cl::cat(tuningCategory));
static llvm::cl::opt<std::string>
    costModel("cost-model",
              llvm::cl::desc("Cost model guiding the search: xgboost, "
                             "mamba, tlp, mlp, random"),
              llvm::cl::init("xgboost"), llvm::cl::cat(tuningCategory));
static llvm::cl::opt<std::string> costModelFile(
    "cost-model-file",
    llvm::cl::desc("A trained model to start from (tcl-cost-model train); "
                   "it is fine-tuned online on this run's measurements. "
                   "Default: the pretrained model shipped with tcl, if any "
                   "(share/tcl/cost-models); 'none' starts from scratch"),
    llvm::cl::init(""), llvm::cl::cat(tuningCategory));
static llvm::cl::opt<std::string> onlineLearning(
    "online-learning",
    llvm::cl::desc("How a pretrained learned cost model learns from this "
                   "run's measurements: finetune (train the network a few "
                   "steps an update) or correct (keep the network; a "
                   "Gaussian process over its embeddings corrects its "
                   "scores, refitted on every update)"),
    llvm::cl::init("finetune"), llvm::cl::cat(tuningCategory));
static tcl::SearchFlags searchFlags(tuningCategory, "Seed of the search",
                                    "Candidates measured per search round",
                                    /*defaultBatchSize=*/16);
static tcl::MeasureFlags measureFlags(tuningCategory, [] {
  tcl::MeasureOptions defaults;
  defaults.repeats = 10;
  defaults.timeoutSeconds = 30;
  return defaults;
}());
static llvm::cl::opt<std::string> tuningCurve(
    "tuning-curve",
    llvm::cl::desc("Write the tuning curves (best latency vs trials) as SVG"),
    llvm::cl::cat(tuningCategory));

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  tcl::showOnlyInHelp({&toolCategory, &tuningCategory});
  llvm::cl::ParseCommandLineOptions(argc, argv, "tcl compiler driver\n");
  auto fail = [](llvm::Error error) {
    llvm::errs() << "tcl-compile: " << llvm::toString(std::move(error)) << "\n";
    return 1;
  };

  tcl::CompileOptions options;
  options.input = inputFilename;
  options.output = outputFilename;
  options.emit = dumpTasks ? tcl::EmitKind::Tasks : emitKind.getValue();
  // An unknown target fails before the (possibly long) import.
  llvm::Expected<const tcl::TargetArch *> target = platformFlags.getTarget();
  if (!target)
    return fail(target.takeError());
  options.target = *target;
  options.threads = platformFlags.getThreads();
  for (const std::string &shape : inputShapes)
    if (llvm::Error error = tcl::parseInputShape(shape, options.import))
      return fail(std::move(error));
  for (const std::string &binding : boundInputs)
    if (llvm::Error error = tcl::parseBoundInput(binding, options.import))
      return fail(std::move(error));
  options.optimizeGraph = optimizeGraph;
  options.graph.winograd = winograd;
  options.graph.blockFilters = blockFilters;
  options.compileThreads = compileThreads;
  options.timing = timing;
  options.profile = profile;
  options.entry = apiEntry;
  options.tuningDatabase = tuningDb;
  options.tune = tune;
  options.tuning.trials = trials;
  options.tuning.resume = resume;
  options.tuning.startFromDefaults = fromDefaults;
  options.tuning.costModel = costModel;
  // A learned model starts from its shipped pretrained checkpoint unless
  // told otherwise ('none': from scratch).
  if (costModelFile != "none")
    options.tuning.costModelFile = costModelFile;
  if (tune && costModelFile.empty()) {
    options.tuning.costModelFile = tcl::findPretrainedCostModel(costModel);
    if (!options.tuning.costModelFile.empty())
      llvm::errs() << "tcl-compile: " << costModel << " cost model: pretrained "
                   << options.tuning.costModelFile << "\n";
  }
  options.tuning.onlineLearning = onlineLearning;
  options.tuning.seed = searchFlags.getSeed();
  options.tuning.batchSize = searchFlags.getBatchSize();
  // Unless told, the sampler that measured best with the cost model.
  if (searchFlags.hasSampler())
    options.tuning.sampler = searchFlags.getSampler();
  options.tuning.committeeMembers = searchFlags.getCommitteeMembers();
  options.measure = measureFlags.get();
  options.tuningCurve = tuningCurve;

  llvm::Expected<tcl::CompileReport> report =
      tcl::compileModel(options, &llvm::errs());
  if (!report)
    return fail(report.takeError());
  if (report->tuning)
    tcl::printTuningTable(*report->tuning, llvm::errs());
  if (!tuningDb.empty())
    llvm::errs() << "tcl-compile: " << report->tunedTasks
                 << " task(s) use tuned schedules from " << tuningDb << "\n";
  return 0;
}
