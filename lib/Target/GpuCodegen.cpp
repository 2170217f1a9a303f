//===- GpuCodegen.cpp - PTX for NVIDIA GPUs -------------------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Target/GpuCodegen.h"
#include "tcl/Support/InstallPaths.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace mlir;

std::string mlir::tcl::findCudaToolkit() {
  for (const char *variable : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *path = std::getenv(variable); path && *path)
      return path;
  if (llvm::sys::fs::is_directory("/usr/local/cuda"))
    return "/usr/local/cuda";
  return "";
}

llvm::Expected<std::string> mlir::tcl::findCudaRuntimeDir() {
  llvm::SmallString<256> dir(getInstallPath("lib"));
  llvm::SmallString<256> library(dir);
  llvm::sys::path::append(library, "libtcl_cuda_runtime.so");
  if (!llvm::sys::fs::exists(library))
    return llvm::createStringError("tcl's CUDA runtime is not at " + library +
                                   " (where it is built beside bin/)");
  return std::string(dir);
}

llvm::Expected<std::string> mlir::tcl::extractPTX(ModuleOp module) {
  auto binaries = llvm::to_vector(module.getOps<gpu::BinaryOp>());
  if (binaries.size() != 1)
    return llvm::createStringError(
        "expected one gpu.binary with the kernels' PTX, found " +
        std::to_string(binaries.size()));
  std::string ptx;
  for (Attribute attr : binaries.front().getObjects()) {
    auto object = cast<gpu::ObjectAttr>(attr);
    if (object.getFormat() != gpu::CompilationTarget::Assembly)
      return llvm::createStringError(
          "the gpu.binary holds " +
          gpu::stringifyCompilationTarget(object.getFormat()).str() +
          ", not PTX (format isa)");
    ptx += object.getObject().getValue().rtrim('\0');
  }
  return ptx;
}
