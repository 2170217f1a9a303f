//===- ModelInterface.h - The C API of a compiled model ---------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// `tcl-compile model.onnx -o model.so` also writes `model.h`, the model's C
// API, and links its implementation into the library:
//
//   tcl_model *tcl_model_create(void);  // NULL: see tcl_model_error()
//   const char *tcl_model_error(void);
//   int tcl_model_run(tcl_model *, const void *const *inputs,
//                     void *const *outputs);   // 0 on success
//   void tcl_model_destroy(tcl_model *);
//   int tcl_model_num_inputs(void), tcl_model_num_outputs(void);
//   const char *tcl_model_input_name(int), *tcl_model_output_name(int);
//   int tcl_model_input_type(int), tcl_model_output_type(int); // TCL_FLOAT..
//   int tcl_model_input_rank(int), tcl_model_output_rank(int);
//   const int64_t *tcl_model_input_shape(int), *tcl_model_output_shape(int);
//   int tcl_model_num_threads(void);
//   const char *tcl_model_target(void);
//
// Buffers are dense row-major arrays of each tensor's element type (f32,
// i64, i32, i8, u8 or bool; see tcl/Support/Buffer.h) owned by the caller;
// weights are embedded in the library. The implementation is plain C over the
// kernel's
// `_mlir_ciface_<entry>` entry point.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TARGET_MODELINTERFACE_H
#define TCL_TARGET_MODELINTERFACE_H

#include "tcl/Support/Buffer.h"
#include "tcl/Target/Platform.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlir::tcl {

struct ModelTensor {
  std::string name;
  std::vector<int64_t> shape;
  ElementType type = ElementType::F32;
};

struct ModelInterface {
  std::string entry;
  std::vector<ModelTensor> inputs, outputs;
  /// The platform the model's kernels are compiled for: tcl_model_create
  /// refuses a CPU without its target's features.
  Platform platform = Platform::host();

  /// Reads the interface of function `entry` (tensors of boundary element
  /// types with static shapes; names from `tcl.name` argument/result
  /// attributes, else input_N/output_N).
  static llvm::Expected<ModelInterface> fromFunction(ModuleOp module,
                                                     llvm::StringRef entry,
                                                     const Platform &platform);

  /// The C header declaring the API.
  std::string getHeader() const;
  /// The C implementation of the API.
  std::string getSource() const;
};

} // namespace mlir::tcl

#endif // TCL_TARGET_MODELINTERFACE_H
