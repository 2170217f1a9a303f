//===- tcl-compile.cpp - tcl's compiler driver ----------------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Compiles a .mlir file of linalg ops and their tcl.sched schedules, or an
// ONNX model (imported to linalg, function @tcl_forward), for a target
// platform. --emit selects how far: `mlir` (schedules applied), `llvm`
// (LLVM IR after -O3), `obj` (object file) or `so` (shared library). Public
// functions get C interface wrappers `_mlir_ciface_<name>` whose results are
// out-parameters.
//
//===----------------------------------------------------------------------===//

#include "tcl/Dialect/Tcl/IR/TclOps.h"
#include "tcl/Frontend/OnnxImporter.h"
#include "tcl/Registration/Registration.h"
#include "tcl/Support/CommandLine.h"
#include "tcl/Target/Codegen.h"
#include "tcl/Target/ModelInterface.h"
#include "tcl/Target/Platform.h"
#include "tcl/Transforms/ApplySchedule.h"
#include "tcl/Transforms/Passes.h"
#include "tcl/Transforms/Pipelines.h"
#include "tcl/Transforms/TaskExtraction.h"
#include "tcl/Tuning/CostModel.h"
#include "tcl/Tuning/Report.h"
#include "tcl/Tuning/TunedSchedules.h"
#include "tcl/Tuning/Tuner.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

namespace {
enum class EmitKind { Graph, MLIR, LLVM, Object, SharedLibrary };
} // namespace

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
                   "folding, elementwise fusion)"),
    llvm::cl::init(true), llvm::cl::cat(toolCategory));
static llvm::cl::opt<std::string>
    outputFilename("o", llvm::cl::desc("Output file"),
                   llvm::cl::value_desc("filename"), llvm::cl::init("-"),
                   llvm::cl::cat(toolCategory));
static const std::string targetHelp =
    "Target platform (x86-avx512, x86-avx2, x86-sse42, nvptx-sm90; default: "
    "that of the input's schedules, else this host's, " +
    tcl::getHostTargetArch().name.str() + ")";
static llvm::cl::opt<std::string> targetName("target",
                                             llvm::cl::desc(targetHelp),
                                             llvm::cl::cat(toolCategory));
static llvm::cl::opt<EmitKind> emitKind(
    "emit", llvm::cl::desc("What to produce"),
    llvm::cl::values(
        clEnumValN(EmitKind::Graph, "graph",
                   "MLIR of the optimized graph with its tasks tagged, "
                   "before scheduling (what the tuner and the dataset "
                   "collector read)"),
        clEnumValN(EmitKind::MLIR, "mlir", "MLIR with the schedules applied"),
        clEnumValN(EmitKind::LLVM, "llvm", "LLVM IR"),
        clEnumValN(EmitKind::Object, "obj", "an object file"),
        clEnumValN(EmitKind::SharedLibrary, "so", "a shared library")),
    llvm::cl::init(EmitKind::SharedLibrary), llvm::cl::cat(toolCategory));
static llvm::cl::opt<std::string>
    apiEntry("entry",
             llvm::cl::desc("Function that gets the C API (tcl_model_*) in .so "
                            "output and whose header is written next to it"),
             llvm::cl::init(tcl::kOnnxEntryName), llvm::cl::cat(toolCategory));
static llvm::cl::opt<bool> dumpTasks(
    "dump-tasks",
    llvm::cl::desc("List the tasks (anchor + epilogue, deduplicated by "
                   "workload key) with weights and FLOPs, and stop"),
    llvm::cl::cat(toolCategory));
static llvm::cl::opt<unsigned>
    numThreads("num-threads",
               llvm::cl::desc("Threads that run parallel loops (OpenMP)"),
               llvm::cl::init(1), llvm::cl::cat(toolCategory));

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
                          "schedules included"),
           llvm::cl::init(64), llvm::cl::cat(tuningCategory));
static llvm::cl::opt<bool>
    resume("resume",
           llvm::cl::desc("Count the trials already in the database toward "
                          "--trials (continue a killed run)"),
           llvm::cl::cat(tuningCategory));
static llvm::cl::opt<std::string>
    costModel("cost-model",
              llvm::cl::desc("Cost model guiding the search: xgboost, "
                             "mamba, tlp, mlp, random"),
              llvm::cl::init("xgboost"), llvm::cl::cat(tuningCategory));
static llvm::cl::opt<std::string> costModelFile(
    "cost-model-file",
    llvm::cl::desc("A trained model to start from (tcl-cost-model train); "
                   "it is fine-tuned online on this run's measurements"),
    llvm::cl::init(""), llvm::cl::cat(tuningCategory));
static llvm::cl::opt<uint64_t> seed("seed",
                                    llvm::cl::desc("Seed of the search"),
                                    llvm::cl::init(1),
                                    llvm::cl::cat(tuningCategory));
static llvm::cl::opt<unsigned>
    batchSize("batch-size",
              llvm::cl::desc("Candidates measured per search round"),
              llvm::cl::init(16), llvm::cl::cat(tuningCategory));
static llvm::cl::opt<unsigned>
    measureRepeats("measure-repeats",
                   llvm::cl::desc("Timed runs per candidate"),
                   llvm::cl::init(10), llvm::cl::cat(tuningCategory));
static llvm::cl::opt<unsigned> parallelBuilds(
    "parallel-builds",
    llvm::cl::desc("Candidates compiled at the same time (default: one a "
                   "core); timed runs still go one at a time, with no "
                   "build running"),
    llvm::cl::init(0), llvm::cl::cat(tuningCategory));
static llvm::cl::opt<double> measureTimeout(
    "measure-timeout",
    llvm::cl::desc("Seconds a candidate may take (compile, check, runs) "
                   "before it is recorded as a timeout"),
    llvm::cl::init(30), llvm::cl::cat(tuningCategory));
static llvm::cl::opt<std::string> tuningCurve(
    "tuning-curve",
    llvm::cl::desc("Write the tuning curves (best latency vs trials) as SVG"),
    llvm::cl::cat(tuningCategory));

/// Checks that every schedule in `module` targets `platform`: a schedule
/// tuned for another platform would silently give slow code.
static LogicalResult checkScheduleTargets(ModuleOp module,
                                          const tcl::TargetArch &platform) {
  WalkResult result = module.walk([&](tcl::ScheduleOp schedule) {
    if (schedule.getTarget() == platform.name)
      return WalkResult::advance();
    schedule.emitError("schedule for task '")
        << schedule.getTask() << "' targets " << schedule.getTarget()
        << " but tcl-compile was asked for --target=" << platform.name;
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

/// Prints `module` to the -o file; the tool's exit code.
static int writeModule(ModuleOp module) {
  std::string errorMessage;
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << "tcl-compile: " << errorMessage << "\n";
    return 1;
  }
  module->print(output->os());
  output->os() << "\n";
  output->keep();
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  tcl::showOnlyInHelp({&toolCategory, &tuningCategory});
  llvm::cl::ParseCommandLineOptions(argc, argv, "tcl compiler driver\n");

  // An unknown target fails before the (possibly long) import.
  if (!targetName.empty() && !tcl::lookupTargetArch(targetName)) {
    llvm::errs() << "tcl-compile: unknown target '" << targetName
                 << "'; known targets:";
    for (const tcl::TargetArch &known : tcl::getTargetArchs())
      llvm::errs() << " " << known.name;
    llvm::errs() << "\n";
    return 1;
  }

  DialectRegistry registry;
  tcl::registerTclDialects(registry);
  tcl::registerLLVMTranslations(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);

  std::string errorMessage;
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module;
  if (llvm::StringRef(inputFilename).ends_with(".onnx")) {
    tcl::OnnxImportOptions importOptions;
    for (const std::string &shape : inputShapes)
      if (llvm::Error error = tcl::parseInputShape(shape, importOptions)) {
        llvm::errs() << "tcl-compile: " << llvm::toString(std::move(error))
                     << "\n";
        return 1;
      }
    for (const std::string &binding : boundInputs)
      if (llvm::Error error = tcl::parseBoundInput(binding, importOptions)) {
        llvm::errs() << "tcl-compile: " << llvm::toString(std::move(error))
                     << "\n";
        return 1;
      }
    auto imported = tcl::importOnnxFile(inputFilename, &context, importOptions);
    if (!imported) {
      llvm::errs() << "tcl-compile: " << llvm::toString(imported.takeError())
                   << "\n";
      return 1;
    }
    module = std::move(*imported);
    if (optimizeGraph && failed(tcl::optimizeGraph(*module)))
      return 1;
  } else {
    std::unique_ptr<llvm::MemoryBuffer> input =
        openInputFile(inputFilename, &errorMessage);
    if (!input) {
      llvm::errs() << "tcl-compile: " << errorMessage << "\n";
      return 1;
    }
    sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
    if (!module)
      return 1;
  }
  if (targetName.empty())
    targetName = tcl::getDefaultTarget(*module).str();
  const tcl::Platform platform(*tcl::lookupTargetArch(targetName), numThreads);
  if (emitKind != EmitKind::MLIR &&
      platform.getTarget().kind != tcl::TargetKind::CPU) {
    llvm::errs() << "tcl-compile: --emit=llvm|obj|so supports CPU targets "
                    "only; "
                 << targetName << " is not one\n";
    return 1;
  }
  if (failed(checkScheduleTargets(*module, platform.getTarget())))
    return 1;

  if (tune && tuningDb.empty()) {
    llvm::errs() << "tcl-compile: --tune needs --tuning-db=<file> to keep "
                    "its measurements\n";
    return 1;
  }
  // Checked before the database is opened (and so created): tuning measures
  // on this host.
  if (tune)
    if (llvm::Error error = tcl::checkHostSupports(platform.getTarget())) {
      llvm::errs() << "tcl-compile: cannot tune here: "
                   << llvm::toString(std::move(error)) << "\n";
      return 1;
    }
  if (tune && !llvm::is_contained(tcl::getCostModelNames(), costModel)) {
    llvm::errs() << "tcl-compile: unknown cost model '" << costModel << "' ("
                 << llvm::join(tcl::getCostModelNames(), ", ") << ")\n";
    return 1;
  }
  if (!tuningDb.empty()) {
    auto database = tcl::TuningDatabase::open(tuningDb);
    if (!database) {
      llvm::errs() << "tcl-compile: " << llvm::toString(database.takeError())
                   << "\n";
      return 1;
    }
    tcl::extractTasks(*module);
    if (tune) {
      tcl::TuningOptions options;
      options.platform = platform;
      options.trials = trials;
      options.resume = resume;
      options.costModel = costModel;
      options.costModelFile = costModelFile;
      options.seed = seed;
      options.batchSize = batchSize;
      tcl::MeasureOptions measureOptions;
      measureOptions.repeats = measureRepeats;
      measureOptions.timeoutSeconds = measureTimeout;
      measureOptions.parallelBuilds =
          parallelBuilds ? parallelBuilds : tcl::getDefaultParallelBuilds();
      tcl::Measurer measurer(measureOptions);
      tcl::Tuner tuner(**database, options,
                       [&](llvm::ArrayRef<tcl::MeasureInput> batch) {
                         return measurer.measure(batch);
                       });
      auto report = tuner.tune(*module, &llvm::errs());
      if (!report) {
        llvm::errs() << "tcl-compile: " << llvm::toString(report.takeError())
                     << "\n";
        return 1;
      }
      tcl::printTuningTable(*report, llvm::errs());
      if (!tuningCurve.empty()) {
        std::error_code ec;
        llvm::raw_fd_ostream svg(tuningCurve, ec);
        if (ec) {
          llvm::errs() << "tcl-compile: cannot write '" << tuningCurve
                       << "': " << ec.message() << "\n";
          return 1;
        }
        tcl::writeTuningCurveSvg(*report, svg);
      }
    }
    auto applied =
        tcl::applyTunedSchedules(*module, **database, platform);
    if (!applied) {
      llvm::errs() << "tcl-compile: " << llvm::toString(applied.takeError())
                   << "\n";
      return 1;
    }
    llvm::errs() << "tcl-compile: " << *applied
                 << " task(s) use tuned schedules from " << tuningDb << "\n";
  }

  if (emitKind == EmitKind::Graph) {
    tcl::extractTasks(*module);
    return writeModule(*module);
  }

  if (dumpTasks) {
    std::vector<tcl::TaskSummary> tasks = tcl::extractTasks(*module);
    double total = 0;
    llvm::outs()
        << "| task | anchor | weight | epilogue ops | MFLOP | "
           "workload key |\n| --- | --- | ---: | ---: | ---: | --- |\n";
    for (const tcl::TaskSummary &task : tasks) {
      llvm::outs() << "| " << task.name << " | " << task.anchorName << " | "
                   << task.weight << " | " << task.epilogueOps << " | "
                   << llvm::format("%.3f", task.flops * 1e-6) << " | "
                   << task.key << " |\n";
      total += task.flops * task.weight;
    }
    llvm::outs() << tasks.size() << " tasks, "
                 << llvm::format("%.3f", total * 1e-9) << " GFLOP in all\n";
    return 0;
  }

  // The C API of the entry function, read before lowering changes it.
  std::optional<tcl::ModelInterface> api;
  if (emitKind == EmitKind::SharedLibrary &&
      module->lookupSymbol<func::FuncOp>(apiEntry)) {
    auto iface = tcl::ModelInterface::fromFunction(*module, apiEntry, platform);
    if (!iface) {
      llvm::errs() << "tcl-compile: " << llvm::toString(iface.takeError())
                   << "\n";
      return 1;
    }
    api = std::move(*iface);
  }

  PassManager pm(&context);
  if (emitKind == EmitKind::MLIR) {
    pm.addPass(tcl::createApplySchedule());
  } else {
    tcl::LoweringOptions lowering;
    lowering.platform = platform;
    tcl::buildLowerToLLVMPipeline(pm, lowering);
  }
  if (failed(pm.run(*module)))
    return 1;

  if (emitKind == EmitKind::MLIR) {
    return writeModule(*module);
  }

  auto fail = [](llvm::Error error) {
    llvm::errs() << "tcl-compile: " << llvm::toString(std::move(error)) << "\n";
    return 1;
  };
  if (emitKind != EmitKind::LLVM && outputFilename == "-") {
    llvm::errs() << "tcl-compile: --emit=obj|so needs an output file (-o)\n";
    return 1;
  }
  if (emitKind == EmitKind::SharedLibrary) {
    if (llvm::Error error =
            tcl::emitSharedLibrary(*module, platform.getTarget(),
                                   platform.getThreads() > 1,
                                   outputFilename, api ? api->getSource() : ""))
      return fail(std::move(error));
    if (api) {
      llvm::SmallString<128> header(outputFilename.getValue());
      llvm::sys::path::replace_extension(header, "h");
      std::unique_ptr<llvm::ToolOutputFile> out =
          openOutputFile(header, &errorMessage);
      if (!out) {
        llvm::errs() << "tcl-compile: " << errorMessage << "\n";
        return 1;
      }
      out->os() << api->getHeader();
      out->keep();
    }
    return 0;
  }
  auto machine = tcl::createTargetMachine(platform.getTarget());
  if (!machine)
    return fail(machine.takeError());
  llvm::LLVMContext llvmContext;
  auto llvmModule = tcl::translateAndOptimize(*module, llvmContext, **machine);
  if (!llvmModule)
    return fail(llvmModule.takeError());
  if (emitKind == EmitKind::Object) {
    if (llvm::Error error =
            tcl::writeObjectFile(**llvmModule, **machine, outputFilename))
      return fail(std::move(error));
    return 0;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << "tcl-compile: " << errorMessage << "\n";
    return 1;
  }
  (*llvmModule)->print(output->os(), nullptr);
  output->keep();
  return 0;
}
