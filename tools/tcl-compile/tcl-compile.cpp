//===- tcl-compile.cpp - tcl's compiler driver ----------------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Compiles a .mlir file of linalg ops and their tcl.sched schedules for a
// target platform. --emit selects how far: `mlir` (schedules applied), `llvm`
// (LLVM IR), `obj` (object file) or `so` (shared library).
//
//===----------------------------------------------------------------------===//

#include "tcl/Dialect/Tcl/IR/TclOps.h"
#include "tcl/Registration/Registration.h"
#include "tcl/Target/Platform.h"
#include "tcl/Transforms/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

namespace {
enum class EmitKind { MLIR, LLVM, Object, SharedLibrary };
} // namespace

static llvm::cl::opt<std::string> inputFilename(llvm::cl::Positional,
                                                llvm::cl::desc("<input.mlir>"),
                                                llvm::cl::Required);
static llvm::cl::opt<std::string>
    outputFilename("o", llvm::cl::desc("Output file"),
                   llvm::cl::value_desc("filename"), llvm::cl::init("-"));
static llvm::cl::opt<std::string>
    targetName("target", llvm::cl::desc("Target platform (x86-avx512, "
                                         "x86-avx2, x86-sse42, nvptx-sm90)"),
               llvm::cl::init("x86-avx512"));
static llvm::cl::opt<EmitKind> emitKind(
    "emit", llvm::cl::desc("What to produce"),
    llvm::cl::values(
        clEnumValN(EmitKind::MLIR, "mlir", "MLIR with the schedules applied"),
        clEnumValN(EmitKind::LLVM, "llvm", "LLVM IR"),
        clEnumValN(EmitKind::Object, "obj", "an object file"),
        clEnumValN(EmitKind::SharedLibrary, "so", "a shared library")),
    llvm::cl::init(EmitKind::SharedLibrary));

/// Checks that every schedule in `module` targets `platform`: a schedule
/// tuned for another platform would silently give slow code.
static LogicalResult checkScheduleTargets(ModuleOp module,
                                          const tcl::Platform &platform) {
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

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  llvm::cl::ParseCommandLineOptions(argc, argv, "tcl compiler driver\n");

  const tcl::Platform *platform = tcl::lookupPlatform(targetName);
  if (!platform) {
    llvm::errs() << "tcl-compile: unknown target '" << targetName
                 << "'; known targets:";
    for (const tcl::Platform &known : tcl::getPlatforms())
      llvm::errs() << " " << known.name;
    llvm::errs() << "\n";
    return 1;
  }

  DialectRegistry registry;
  tcl::registerTclDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << "tcl-compile: " << errorMessage << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;
  if (failed(checkScheduleTargets(*module, *platform)))
    return 1;

  PassManager pm(&context);
  pm.addPass(tcl::createApplySchedule());
  if (failed(pm.run(*module)))
    return 1;

  if (emitKind != EmitKind::MLIR) {
    // Lowering scheduled linalg to LLVM IR, objects and shared libraries is
    // the x86 code generation work, which has not landed yet.
    llvm::errs() << "tcl-compile: --emit=llvm|obj|so needs the x86 code "
                    "generation pipeline, which tcl does not have yet; use "
                    "--emit=mlir\n";
    return 2;
  }

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
