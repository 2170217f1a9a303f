//===- tcl-run.cpp - Run and check a compiled kernel ----------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Compiles a function of a .mlir file or an ONNX model (its schedules
// applied, defaults for the rest) and runs it: on seeded random inputs
// checked against the same function lowered to plain loops, or with
// --test-data on the inputs and expected outputs of an ONNX test data set
// (input_N.pb, output_N.pb). Then times it. With --library, runs the shared
// library tcl-compile produced from that file instead of JIT-compiling it.
//
//===----------------------------------------------------------------------===//

#include "tcl/Driver/ToolOptions.h"
#include "tcl/Frontend/OnnxImporter.h"
#include "tcl/Registration/Registration.h"
#include "tcl/Runtime/Kernel.h"
#include "tcl/Runtime/Measure.h"
#include "tcl/Runtime/Profile.h"
#include "tcl/Support/CommandLine.h"
#include "tcl/Target/Codegen.h"
#include "tcl/Transforms/ApplySchedule.h"
#include "tcl/Transforms/TaskExtraction.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"

#include <chrono>
#include <cmath>
#include <optional>
#include <tuple>

using namespace mlir;
using namespace mlir::tcl;

// The tool's own options, the only ones --help lists (showOnlyInHelp).
static llvm::cl::OptionCategory toolCategory("Options");
static llvm::cl::opt<std::string> inputFilename(llvm::cl::Positional,
                                                llvm::cl::desc("<input.mlir>"),
                                                llvm::cl::Required,
                                                llvm::cl::cat(toolCategory));
static llvm::cl::opt<std::string>
    entry("entry", llvm::cl::desc("Function to run (ONNX models: tcl_forward)"),
          llvm::cl::init(kOnnxEntryName), llvm::cl::cat(toolCategory));
static llvm::cl::opt<std::string> testData(
    "test-data",
    llvm::cl::desc("An ONNX test data set directory: run on its input_N.pb "
                   "and compare with its output_N.pb"),
    llvm::cl::init(""), llvm::cl::cat(toolCategory));
static llvm::cl::list<std::string> inputShapes(
    "input-shape",
    llvm::cl::desc("Static shape of an ONNX graph input: name=1x3x224x224"),
    llvm::cl::cat(toolCategory));
static PlatformFlags platformFlags(toolCategory,
                                   "that of the input's schedules, else this "
                                   "host's, " +
                                       getHostTargetArch().name.str());
static llvm::cl::opt<std::string>
    library("library",
            llvm::cl::desc("Run this shared library (from tcl-compile "
                           "--emit=so of the same file) instead of the JIT"),
            llvm::cl::init(""), llvm::cl::cat(toolCategory));
static llvm::cl::opt<unsigned> repeats("repeats", llvm::cl::desc("Timed runs"),
                                       llvm::cl::init(20),
                                       llvm::cl::cat(toolCategory));

static llvm::cl::opt<bool> profile(
    "profile",
    llvm::cl::desc("Print where the timed runs' time went: each loop nest "
                   "(the tasks' and the leftover ops'), and the rest (with "
                   "--library, one compiled by tcl-compile --profile)"),
    llvm::cl::cat(toolCategory));

static llvm::cl::opt<bool> emulateGpu(
    "emulate-gpu",
    llvm::cl::desc("With a GPU target: run its schedules on this host's CPU, "
                   "each block and thread one after another (checks what they "
                   "compute without a GPU; its times say nothing of a GPU's)"),
    llvm::cl::cat(toolCategory));

/// Plain loops whose checking run took longer than this are not run again
/// to be timed: that run's time is the figure (a 2048^3 matmul's plain loops
/// take about a minute a run, and timing them took four more).
constexpr double kMaxReferenceRerunSeconds = 1.0;

static int fail(llvm::Error error) {
  llvm::errs() << "tcl-run: " << llvm::toString(std::move(error)) << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  showOnlyInHelp({&toolCategory});
  llvm::cl::ParseCommandLineOptions(argc, argv, "tcl kernel runner\n");

  std::string source;
  if (llvm::StringRef(inputFilename).ends_with(".onnx")) {
    // Import once; the rest works on the module's text like for .mlir.
    OnnxImportOptions options;
    for (const std::string &shape : inputShapes)
      if (llvm::Error error = parseInputShape(shape, options))
        return fail(std::move(error));
    DialectRegistry registry;
    registerTclDialects(registry);
    MLIRContext context(registry);
    auto module = importOnnxFile(inputFilename, &context, options);
    if (!module)
      return fail(module.takeError());
    if (failed(optimizeGraph(**module)))
      return 1;
    // With locations: they name the ONNX nodes of leftover nests (--profile).
    llvm::raw_string_ostream os(source);
    (*module)->print(os, OpPrintingFlags().enableDebugInfo());
  } else {
    auto file = llvm::MemoryBuffer::getFile(inputFilename);
    if (!file) {
      llvm::errs() << "tcl-run: cannot open " << inputFilename << ": "
                   << file.getError().message() << "\n";
      return 1;
    }
    source = (*file)->getBuffer().str();
  }

  // The signature, from the function's tensor types, and its FLOPs.
  KernelSignature signature;
  std::string defaultTarget;
  double flops = 0;
  {
    DialectRegistry registry;
    registerTclDialects(registry);
    MLIRContext context(registry);
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &context);
    if (!module)
      return 1;
    auto parsed = KernelSignature::fromFunction(*module, entry);
    if (!parsed)
      return fail(parsed.takeError());
    signature = std::move(*parsed);
    if (auto function = module->lookupSymbol<func::FuncOp>(entry))
      flops = countAnchorFlops(function);
    defaultTarget = getDefaultTarget(*module).str();
  }

  llvm::Expected<Platform> platform =
      platformFlags.getPlatform(*lookupTargetArch(defaultTarget));
  if (!platform)
    return fail(platform.takeError());

  bool gpuTarget = platform->getTarget().kind == TargetKind::GPU;
  if (emulateGpu && !gpuTarget)
    return fail(llvm::createStringError(
        "--emulate-gpu runs a GPU target's schedules on this host; " +
        platform->getTargetName().str() + " is not a GPU target"));
  if (emulateGpu && !library.empty())
    return fail(llvm::createStringError(
        "--emulate-gpu compiles the input with the JIT; a --library's code "
        "is compiled already"));
  if (profile && gpuTarget && !emulateGpu)
    return fail(
        llvm::createStringError("--profile counts time on CPU targets only; " +
                                platform->getTargetName().str() + " is a GPU"));
  std::optional<Kernel> kernel;
  if (library.empty()) {
    LoweringOptions scheduled;
    scheduled.platform = *platform;
    scheduled.profile = profile;
    scheduled.emulateGpu = emulateGpu;
    auto jitted = Kernel::jit(source, entry, scheduled);
    if (!jitted)
      return fail(jitted.takeError());
    kernel.emplace(std::move(*jitted));
  } else {
    auto loaded = Kernel::load(library, entry, signature);
    if (!loaded)
      return fail(loaded.takeError());
    kernel.emplace(std::move(*loaded));
  }

  // The reference, unless test data gives the expected outputs: the same
  // function as plain loops, no schedules.
  std::optional<Kernel> reference;
  if (testData.empty()) {
    auto naiveSource = stripSchedules(source);
    if (!naiveSource)
      return fail(naiveSource.takeError());
    // (For a GPU target, on this host's CPU.)
    LoweringOptions plainLoops;
    plainLoops.platform =
        gpuTarget ? Platform::host() : Platform(platform->getTarget(), 1);
    plainLoops.defaultSchedules = false;
    auto naive = Kernel::jit(*naiveSource, entry, plainLoops);
    if (!naive)
      return fail(naive.takeError());
    reference.emplace(std::move(*naive));
  }

  std::vector<Buffer> inputs, expected;
  double referenceSeconds = 0;
  if (reference) {
    inputs = signature.makeRandomInputs(/*seed=*/0);
    expected = signature.makeOutputs();
    auto start = std::chrono::steady_clock::now();
    if (llvm::Error error = reference->run(inputs, expected))
      return fail(std::move(error));
    referenceSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
  } else {
    for (auto [prefix, count, buffers] :
         {std::tuple("input_", signature.inputs.size(), &inputs),
          std::tuple("output_", signature.outputs.size(), &expected)}) {
      auto tensors = readOnnxTestData(testData, prefix, count);
      if (!tensors)
        return fail(tensors.takeError());
      *buffers = std::move(*tensors);
    }
  }
  std::vector<Buffer> outputs = kernel->getSignature().makeOutputs();
  if (llvm::Error error = kernel->run(inputs, outputs))
    return fail(std::move(error));
  double maxError = maxRelativeError(outputs, expected);
  bool ok = maxError <= kOutputTolerance;
  llvm::outs() << "kernel @" << entry << " ("
               << (library.empty() ? "JIT" : "shared library " + library)
               << "), " << platform->getTargetName()
               << (emulateGpu ? " emulated on this host" : "") << ", "
               << platform->getThreads() << " thread(s)\n";
  llvm::outs() << llvm::format(
      "check: max relative error %.2e against %s: "
      "%s\n",
      maxError, testData.empty() ? "plain loops" : "the expected outputs",
      ok ? "ok" : "WRONG");
  if (!ok)
    return 3;

  // A profiled library must have its counters before anything is timed.
  if (profile)
    if (llvm::Error error = resetProfile(*kernel))
      return fail(std::move(error));
  std::optional<OpenMPThreadPinning> pinning;
  if (platform->getThreads() > 1)
    pinning.emplace();
  TimingStats stats =
      timeRuns([&] { llvm::consumeError(kernel->run(inputs, outputs)); }, 3,
               repeats, false, getWarmupSeconds(platform->getThreads()));
  pinning.reset();
  llvm::outs() << llvm::format("time: median %.3f ms, min %.3f ms over %u "
                               "runs",
                               stats.medianSeconds * 1e3,
                               stats.minSeconds * 1e3, stats.repeats);
  if (reference) {
    if (referenceSeconds <= kMaxReferenceRerunSeconds)
      referenceSeconds =
          timeRuns(
              [&] { llvm::consumeError(reference->run(inputs, expected)); }, 1,
              3, false)
              .medianSeconds;
    llvm::outs() << llvm::format(" (plain loops: %.3f ms, %.1fx slower)",
                                 referenceSeconds * 1e3,
                                 referenceSeconds / stats.medianSeconds);
  }
  llvm::outs() << "\n";
  if (flops > 0)
    llvm::outs() << llvm::format("speed: %.1f GFLOP/s\n",
                                 flops / stats.medianSeconds * 1e-9);
  if (profile) {
    auto sites = readProfile(*kernel);
    if (!sites)
      return fail(sites.takeError());
    auto summary = summarizeProfile(*sites, entry);
    if (!summary)
      return fail(summary.takeError());
    printProfile(llvm::outs(), *summary, entry, stats.medianSeconds);
  }
  return 0;
}
