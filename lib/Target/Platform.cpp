//===- Platform.cpp - Named target platforms ------------------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Target/Platform.h"

using namespace mlir::tcl;

// The x86 platforms share one host (an x86-64 with AVX-512) and differ only in
// the ISA that code generation may use, so they are separate devices for the
// tuner and the cost model. CPU names are generic ones of that ISA level, not
// the host's, so generated code does not depend on the build machine.
static const Platform kPlatforms[] = {
    {"x86-avx512", PlatformKind::CPU, IsaLevel::AVX512,
     "x86_64-unknown-linux-gnu", "x86-64-v4", "", 512},
    {"x86-avx2", PlatformKind::CPU, IsaLevel::AVX2, "x86_64-unknown-linux-gnu",
     "x86-64-v3", "", 256},
    {"x86-sse42", PlatformKind::CPU, IsaLevel::SSE42,
     "x86_64-unknown-linux-gnu", "x86-64-v2", "", 128},
    {"nvptx-sm90", PlatformKind::GPU, IsaLevel::NVPTX, "nvptx64-nvidia-cuda",
     "sm_90", "+ptx80", 1024},
};

const Platform *mlir::tcl::lookupPlatform(llvm::StringRef name) {
  for (const Platform &platform : kPlatforms)
    if (platform.name == name)
      return &platform;
  return nullptr;
}

llvm::ArrayRef<Platform> mlir::tcl::getPlatforms() { return kPlatforms; }
