//===- tcl-opt.cpp - tcl's mlir-opt ---------------------------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// MlirOptMain with tcl's dialect and passes and the upstream dialects and
// passes tcl uses: the tool for lit tests and for experimenting with
// pipelines.
//
//===----------------------------------------------------------------------===//

#include "tcl/Registration/Registration.h"
#include "tcl/Target/Codegen.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::tcl::registerTclDialects(registry);
  // For the pipelines that end in code (gpu-module-to-binary).
  mlir::tcl::registerLLVMTranslations(registry);
  mlir::tcl::registerAllTclPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tcl optimizer driver\n", registry));
}
