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
  // The importer reports through llvm::Error; diagnostics only come from
  // the verifier, whose failure is a finding (below) that they explain.
  std::string diagnostics;
  context.getDiagEngine().registerHandler(
      [&](Diagnostic &diagnostic) { diagnostics += diagnostic.str() + "\n"; });
  auto module = tcl::importOnnxModel(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), "input",
      &context);
  if (module)
    return 0;
  // A refusal is the expected outcome of most inputs, except the one that
  // means the importer built invalid IR.
  std::string message = llvm::toString(module.takeError());
  if (llvm::StringRef(message).contains("tcl importer bug")) {
    llvm::errs() << diagnostics << "tcl-fuzz-onnx: " << message << "\n";
    abort();
  }
  return 0;
}
