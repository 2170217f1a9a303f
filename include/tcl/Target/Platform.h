//===- Platform.h - Named target platforms ----------------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// A platform is what a schedule and a measurement are bound to: an ISA level
// (or GPU architecture) with an explicit vector width, so code generation is
// deterministic. This is the one table of them; the lowering, the tokenizer's
// hardware features and the tuning database all read it.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TARGET_PLATFORM_H
#define TCL_TARGET_PLATFORM_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::tcl {

enum class PlatformKind : unsigned { CPU = 0, GPU = 1 };

/// ISA levels in increasing capability. Part of the tokenizer's hardware
/// features: keep the order stable.
enum class IsaLevel : unsigned { SSE42 = 0, AVX2, AVX512, NVPTX };
constexpr unsigned kNumIsaLevels = 4;

struct Platform {
  llvm::StringRef name;
  PlatformKind kind;
  IsaLevel isa;
  /// LLVM target triple and CPU/feature strings used for code generation.
  llvm::StringRef triple;
  llvm::StringRef cpu;
  llvm::StringRef features;
  /// Widest vector register in bits (for GPUs: the warp's 32 lanes x 32 bit).
  unsigned vectorBits;
};

/// Returns the platform called `name`, or nullptr.
const Platform *lookupPlatform(llvm::StringRef name);
llvm::ArrayRef<Platform> getPlatforms();

} // namespace mlir::tcl

#endif // TCL_TARGET_PLATFORM_H
