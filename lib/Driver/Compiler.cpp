//===- Compiler.cpp - ONNX or MLIR in, tuned native code out --------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Driver/Compiler.h"
#include "tcl/Dialect/Tcl/IR/TclOps.h"
#include "tcl/Registration/Registration.h"
#include "tcl/Target/Codegen.h"
#include "tcl/Target/GpuCodegen.h"
#include "tcl/Target/ModelInterface.h"
#include "tcl/Transforms/ApplySchedule.h"
#include "tcl/Transforms/Passes.h"
#include "tcl/Transforms/Pipelines.h"
#include "tcl/Transforms/TaskExtraction.h"
#include "tcl/Tuning/CostModel.h"
#include "tcl/Tuning/Database.h"
#include "tcl/Tuning/Report.h"
#include "tcl/Tuning/TunedSchedules.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace mlir::tcl;

static llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Opens `path` for writing (kept only once `keep()` is called).
static llvm::Expected<std::unique_ptr<llvm::ToolOutputFile>>
openOutput(llvm::StringRef path) {
  std::string message;
  std::unique_ptr<llvm::ToolOutputFile> output = openOutputFile(path, &message);
  if (!output)
    return error(message);
  return std::move(output);
}

/// Checks that every schedule in `module` targets `target`: a schedule
/// tuned for another target would silently give slow code.
static LogicalResult checkScheduleTargets(ModuleOp module,
                                          const TargetArch &target) {
  WalkResult result = module.walk([&](ScheduleOp schedule) {
    if (schedule.getTarget() == target.name)
      return WalkResult::advance();
    schedule.emitError("schedule for task '")
        << schedule.getTask() << "' targets " << schedule.getTarget()
        << " but tcl-compile was asked for --target=" << target.name;
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

static llvm::Error writeModule(ModuleOp module, llvm::StringRef path) {
  auto output = openOutput(path);
  if (!output)
    return output.takeError();
  module->print((*output)->os());
  (*output)->os() << "\n";
  (*output)->keep();
  return llvm::Error::success();
}

static llvm::Error writeTaskTable(ModuleOp module, llvm::StringRef path) {
  auto output = openOutput(path);
  if (!output)
    return output.takeError();
  llvm::raw_ostream &os = (*output)->os();
  std::vector<TaskSummary> tasks = extractTasks(module);
  double total = 0;
  os << "| task | anchor | weight | epilogue ops | MFLOP | "
        "workload key |\n| --- | --- | ---: | ---: | ---: | --- |\n";
  for (const TaskSummary &task : tasks) {
    os << "| " << task.name << " | " << task.anchorName << " | " << task.weight
       << " | " << task.epilogueOps << " | "
       << llvm::format("%.3f", task.flops * 1e-6) << " | " << task.key
       << " |\n";
    total += task.flops * task.weight;
  }
  os << tasks.size() << " tasks, " << llvm::format("%.3f", total * 1e-9)
     << " GFLOP in all\n";
  (*output)->keep();
  return llvm::Error::success();
}

/// The input as a module: ONNX imported (and optimized), or MLIR parsed.
static llvm::Expected<OwningOpRef<ModuleOp>>
readInput(const CompileOptions &options, MLIRContext &context,
          llvm::SourceMgr &sourceMgr, TimingScope &timing) {
  if (llvm::StringRef(options.input).ends_with(".onnx")) {
    TimingScope importing = timing.nest("import ONNX");
    auto imported = importOnnxFile(options.input, &context, options.import);
    if (!imported)
      return imported.takeError();
    importing.stop();
    if (options.optimizeGraph) {
      TimingScope optimizing = timing.nest("optimize the graph");
      if (failed(tcl::optimizeGraph(**imported, &optimizing, options.graph)))
        return error("the graph optimizations failed");
    }
    return std::move(*imported);
  }
  std::string message;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(options.input, &message);
  if (!input)
    return error(message);
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return error("'" + options.input + "' does not parse");
  return std::move(module);
}

/// Tunes (with `options.tune`) into the database, then gives each task the
/// best schedule the database holds for `platform`.
static llvm::Error useTuningDatabase(ModuleOp module, const Platform &platform,
                                     const CompileOptions &options,
                                     CompileReport &report,
                                     llvm::raw_ostream *progress) {
  auto database = TuningDatabase::open(options.tuningDatabase);
  if (!database)
    return database.takeError();
  extractTasks(module);
  if (options.tune) {
    TuningOptions tuning = options.tuning;
    tuning.platform = platform;
    Measurer measurer(options.measure);
    Tuner tuner(**database, tuning, [&](llvm::ArrayRef<MeasureInput> batch) {
      return measurer.measure(batch);
    });
    auto tuned = tuner.tune(module, progress);
    if (!tuned)
      return tuned.takeError();
    if (!options.tuningCurve.empty()) {
      std::error_code ec;
      llvm::raw_fd_ostream svg(options.tuningCurve, ec);
      if (ec)
        return error("cannot write '" + options.tuningCurve +
                     "': " + ec.message());
      writeTuningCurveSvg(*tuned, svg);
    }
    report.tuning = std::move(*tuned);
  }
  auto applied = applyTunedSchedules(module, **database, platform);
  if (!applied)
    return applied.takeError();
  report.tunedTasks = *applied;
  return llvm::Error::success();
}

/// Lowers `module` to LLVM and writes what `options.emit` asks for.
static llvm::Error emitNativeCode(ModuleOp module, const Platform &platform,
                                  const CompileOptions &options,
                                  TimingScope &timing) {
  // The C API of the entry function, read before lowering changes it.
  std::optional<ModelInterface> api;
  if (options.emit == EmitKind::SharedLibrary &&
      module.lookupSymbol<func::FuncOp>(options.entry)) {
    auto iface = ModelInterface::fromFunction(module, options.entry, platform);
    if (!iface)
      return iface.takeError();
    api = std::move(*iface);
  }
  // The functions' signatures, which the library carries for its loaders.
  std::vector<FunctionSignature> signatures = getFunctionSignatures(module);
  PassManager pm(module.getContext());
  if (platform.getTarget().kind == TargetKind::GPU)
    buildLowerToNVVMPipeline(pm, LoweringOptions(platform), findCudaToolkit());
  else {
    LoweringOptions lowering(platform);
    lowering.profile = options.profile;
    buildLowerToLLVMPipeline(pm, lowering);
  }
  TimingScope lowering = timing.nest("schedule and lower to the LLVM dialect");
  pm.enableTiming(lowering);
  if (failed(pm.run(module)))
    return error("lowering failed (see the diagnostics above)");
  lowering.stop();

  const TargetArch &target = platform.getTarget();
  CodegenOptions codegen;
  codegen.threads = options.compileThreads;
  codegen.timing = &timing;
  if (options.emit == EmitKind::SharedLibrary) {
    if (llvm::Error failure = emitSharedLibrary(
            module, target, platform.getThreads() > 1, options.output,
            signatures, api ? api->getSource() : "", codegen))
      return failure;
    if (!api)
      return llvm::Error::success();
    llvm::SmallString<128> header(options.output);
    llvm::sys::path::replace_extension(header, "h");
    auto output = openOutput(header);
    if (!output)
      return output.takeError();
    (*output)->os() << api->getHeader();
    (*output)->keep();
    return llvm::Error::success();
  }
  if (options.emit == EmitKind::Object)
    return emitObjectFile(module, target, options.output, codegen);
  auto output = openOutput(options.output);
  if (!output)
    return output.takeError();
  if (llvm::Error failure = emitLLVMIR(module, target, (*output)->os()))
    return failure;
  (*output)->keep();
  return llvm::Error::success();
}

/// Lowers `module` for a GPU platform and writes its kernels' PTX.
static llvm::Error emitPTX(ModuleOp module, const Platform &platform,
                           const CompileOptions &options, TimingScope &timing) {
  PassManager pm(module.getContext());
  buildLowerToNVVMPipeline(pm, LoweringOptions(platform), findCudaToolkit());
  TimingScope lowering = timing.nest("schedule and lower to PTX");
  pm.enableTiming(lowering);
  if (failed(pm.run(module)))
    return error("lowering failed (see the diagnostics above)");
  lowering.stop();
  llvm::Expected<std::string> ptx = extractPTX(module);
  if (!ptx)
    return ptx.takeError();
  auto output = openOutput(options.output);
  if (!output)
    return output.takeError();
  (*output)->os() << *ptx;
  (*output)->keep();
  return llvm::Error::success();
}

llvm::Expected<CompileReport>
mlir::tcl::compileModel(const CompileOptions &options,
                        llvm::raw_ostream *progress) {
  bool nativeCode = options.emit == EmitKind::LLVM ||
                    options.emit == EmitKind::Object ||
                    options.emit == EmitKind::SharedLibrary;
  if (options.tune && options.tuningDatabase.empty())
    return error("--tune needs --tuning-db=<file> to keep its measurements");
  if (options.tune &&
      !llvm::is_contained(getCostModelNames(), options.tuning.costModel))
    return error("unknown cost model '" + options.tuning.costModel + "' (" +
                 llvm::join(getCostModelNames(), ", ") + ")");
  if (options.tune && !parseOnlineLearning(options.tuning.onlineLearning))
    return error("unknown online learning '" + options.tuning.onlineLearning +
                 "' (finetune, correct)");
  DialectRegistry registry;
  registerTclDialects(registry);
  registerLLVMTranslations(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  // Reports to standard error when it goes out of scope.
  DefaultTimingManager timingManager;
  timingManager.setEnabled(options.timing);
  TimingScope timing = timingManager.getRootScope();

  auto module = readInput(options, context, sourceMgr, timing);
  if (!module)
    return module.takeError();
  if (nativeCode && options.emit != EmitKind::LLVM && options.output == "-")
    return error("--emit=obj|so needs an output file (-o)");
  const TargetArch &target =
      options.target ? *options.target
                     : *lookupTargetArch(getDefaultTarget(**module));
  CompileReport report;
  report.platform.emplace(target, std::max(options.threads, 1u));
  const Platform &platform = *report.platform;
  if (options.emit == EmitKind::PTX && target.kind != TargetKind::GPU)
    return error("--emit=ptx needs a GPU target; " + target.name + " is a CPU");
  if (options.profile && target.kind == TargetKind::GPU)
    return error("--profile counts time on CPU targets only; " + target.name +
                 " is a GPU");
  if (failed(checkScheduleTargets(**module, target)))
    return error("the input's schedules are for another target");
  // Checked before the database is opened (and so created): tuning
  // measures on this host.
  if (options.tune)
    if (llvm::Error failure = checkHostSupports(target))
      return error("cannot tune here: " + llvm::toString(std::move(failure)));

  if (!options.tuningDatabase.empty()) {
    TimingScope tuning =
        timing.nest(options.tune ? "tune" : "read the tuning database");
    if (llvm::Error failure =
            useTuningDatabase(**module, platform, options, report, progress))
      return std::move(failure);
  }

  switch (options.emit) {
  case EmitKind::Graph:
    extractTasks(**module);
    if (llvm::Error failure = writeModule(**module, options.output))
      return std::move(failure);
    return report;
  case EmitKind::Tasks:
    if (llvm::Error failure = writeTaskTable(**module, options.output))
      return std::move(failure);
    return report;
  case EmitKind::MLIR: {
    PassManager pm(&context);
    pm.addPass(createApplySchedule());
    if (failed(pm.run(**module)))
      return error("the schedules do not apply (see the diagnostics above)");
    if (llvm::Error failure = writeModule(**module, options.output))
      return std::move(failure);
    return report;
  }
  case EmitKind::PTX:
    if (llvm::Error failure = emitPTX(**module, platform, options, timing))
      return std::move(failure);
    return report;
  case EmitKind::LLVM:
  case EmitKind::Object:
  case EmitKind::SharedLibrary:
    if (llvm::Error failure =
            emitNativeCode(**module, platform, options, timing))
      return std::move(failure);
    return report;
  }
  llvm_unreachable("unknown emit kind");
}
