//===- tcl-fuzz-onnx.cpp - libFuzzer target: the ONNX importer ------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Feeds each input, as the bytes of an ONNX model file, through the path
// `tcl-compile model.onnx` takes: protobuf parsing, tcl's validation, ONNX
// shape inference and the import into `@tcl_forward`, which verifies the
// module it builds. Bad input must come back as an llvm::Error; anything
// else (a crash, a sanitizer report, a module that does not verify, an
// allocation beyond libFuzzer's -malloc_limit_mb) is a finding. See the
// README's "Fuzzing" section.
//
//===----------------------------------------------------------------------===//

#include "tcl/Frontend/OnnxImporter.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // A fresh context per input: one shared across inputs would keep every
  // constant any input ever held (attributes are uniqued for the context's
  // lifetime) and run out of memory in a long campaign.
  MLIRContext context(MLIRContext::Threading::DISABLED);
  context.printOpOnDiagnostic(false);
  // The importer reports bad input through llvm::Error and emits no
  // diagnostics; only the verifier does, when the importer built invalid IR.
  // (Not told by the error's message: the input controls most of it, and
  // the fuzzer learns to copy what the harness compares it with.)
  std::string diagnostics;
  context.getDiagEngine().registerHandler(
      [&](Diagnostic &diagnostic) { diagnostics += diagnostic.str() + "\n"; });
  auto module = tcl::importOnnxModel(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), "input",
      &context);
  std::string message = module ? "" : llvm::toString(module.takeError());
  if (!diagnostics.empty()) {
    llvm::errs() << diagnostics << "tcl-fuzz-onnx: the importer emitted "
                 << "diagnostics (invalid IR?): " << message << "\n";
    abort();
  }
  return 0;
}
