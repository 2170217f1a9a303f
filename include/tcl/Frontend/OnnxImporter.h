//===- OnnxImporter.h - ONNX models to linalg on tensors --------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Reads an ONNX model (Debian's libonnx protobuf), runs ONNX shape
// inference, and builds one function `@tcl_forward` of linalg/tensor/arith/math
// ops on statically shaped tensors, initializers becoming constants. Bad input
// is an llvm::Error that says what and where: an unreadable or malformed file,
// an unsupported operator (its type and node), an unsupported attribute
// value, a dynamic dimension (with the --input-shape to pass).
//
//===----------------------------------------------------------------------===//

#ifndef TCL_FRONTEND_ONNXIMPORTER_H
#define TCL_FRONTEND_ONNXIMPORTER_H

#include "tcl/Support/Buffer.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace mlir::tcl {

/// The function an imported model becomes. Not `main`: compiled into a
/// library, the function's symbol must not collide with a program's main.
constexpr const char *kOnnxEntryName = "tcl_forward";

struct OnnxImportOptions {
  /// Static shapes for graph inputs with dynamic dimensions, by input name.
  std::map<std::string, std::vector<int64_t>> inputShapes;
  /// Graph inputs fixed to the value in an ONNX TensorProto file, by input
  /// name: specializes the model, e.g. on integer inputs that determine
  /// shapes (Reshape targets, Slice bounds), which tcl needs at compile time.
  std::map<std::string, std::string> boundInputs;
  /// Name of the generated function.
  std::string functionName = kOnnxEntryName;
};

/// Imports the ONNX model at `path` into a new module in `context`.
llvm::Expected<OwningOpRef<ModuleOp>>
importOnnxFile(llvm::StringRef path, MLIRContext *context,
               const OnnxImportOptions &options = {});

/// Imports the serialized ONNX model `bytes` (the contents of a file; `name`
/// says where they came from in messages). importOnnxFile reads the file and
/// calls this, so both check the model the same way.
llvm::Expected<OwningOpRef<ModuleOp>>
importOnnxModel(llvm::StringRef bytes, llvm::StringRef name,
                MLIRContext *context, const OnnxImportOptions &options = {});

/// Parses "name=1x3x224x224" into `options.inputShapes`.
llvm::Error parseInputShape(llvm::StringRef text, OnnxImportOptions &options);

/// Parses "name=value.pb" into `options.boundInputs`.
llvm::Error parseBoundInput(llvm::StringRef text, OnnxImportOptions &options);

/// The ONNX operator types the importer converts.
std::vector<std::string> getSupportedOnnxOps();

/// Reads `<dir>/<prefix>0.pb` ... `<prefix>(count-1).pb` of an ONNX test
/// data set (prefix "input_" or "output_").
llvm::Expected<std::vector<Buffer>>
readOnnxTestData(llvm::StringRef dir, llvm::StringRef prefix, size_t count);

/// Reads a serialized ONNX TensorProto (e.g. an ONNX test data file
/// input_0.pb) of an element type a compiled model takes or returns (float,
/// int64, int32, int8, uint8, bool).
llvm::Expected<Buffer> readOnnxTensorFile(llvm::StringRef path);

} // namespace mlir::tcl

#endif // TCL_FRONTEND_ONNXIMPORTER_H
