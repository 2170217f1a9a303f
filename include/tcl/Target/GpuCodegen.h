//===- GpuCodegen.h - PTX for NVIDIA GPUs -----------------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// What the NVPTX path needs from outside MLIR's passes: where the CUDA
// toolkit is (libdevice for math functions, ptxas), and the PTX text of a
// module that tcl-lower-to-nvvm compiled (its gpu.binary, format isa).
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TARGET_GPUCODEGEN_H
#define TCL_TARGET_GPUCODEGEN_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::tcl {

/// The CUDA toolkit's root: $CUDA_HOME, else $CUDA_PATH, else /usr/local/cuda
/// when it exists; empty when none is found.
std::string findCudaToolkit();

/// The folder of libtcl_cuda_runtime.so, which the host code of GPU
/// kernels calls: the `lib` folder beside the running tool's `bin`. Fails,
/// saying so, where it is not there.
llvm::Expected<std::string> findCudaRuntimeDir();

/// The PTX of the kernels of `module`, a module lowered by tcl-lower-to-nvvm:
/// the assembly of its gpu.binary (one, tcl-merge-gpu-modules), without the
/// terminating NUL MLIR leaves in it. Fails if the module has no such binary
/// or it holds another format.
llvm::Expected<std::string> extractPTX(ModuleOp module);

} // namespace mlir::tcl

#endif // TCL_TARGET_GPUCODEGEN_H
