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
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

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

/// What the cost model knows of the machine a platform runs on (METHOD.md §1,
/// hardware-aware features). The static part comes from the platform table;
/// the rest is probed on the machine (Runtime's probeHardware) and stored
/// with the platform in the tuning database, so records measured elsewhere
/// keep the features of the machine that measured them. Zero means unknown.
struct HardwareFeatures {
  /// Threads the platform's kernels run with, and cores of the machine.
  unsigned threads = 1;
  unsigned cores = 0;
  unsigned vectorBits = 0;
  /// Architectural vector registers the ISA gives code generation.
  unsigned vectorRegisters = 0;
  /// Data cache sizes: L1 and L2 per core, L3 in all.
  double l1KiB = 0, l2KiB = 0, l3KiB = 0;
  /// Measured multiply-add throughput with the ISA's widest vectors on
  /// `threads` threads, and measured memory bandwidth (stream triad).
  double peakGflops = 0;
  double bandwidthGBs = 0;

  /// The static part: the platform's vector width and registers.
  static HardwareFeatures fromPlatform(const Platform &platform,
                                       unsigned threads);
  /// JSON object text (the database's platforms.features column).
  std::string toJson() const;
  /// Parses toJson's text; missing fields stay zero. nullopt if it is not a
  /// JSON object.
  static std::optional<HardwareFeatures> fromJson(llvm::StringRef text);
  /// Whether the measured fields are filled in.
  bool isProbed() const { return peakGflops > 0 && bandwidthGBs > 0; }
};

/// Returns the platform called `name`, or nullptr.
const Platform *lookupPlatform(llvm::StringRef name);
llvm::ArrayRef<Platform> getPlatforms();

/// The CPU features code generated for `isa` needs, by the names LLVM's host
/// detection and the compilers' __builtin_cpu_supports both use (empty for
/// GPUs).
llvm::ArrayRef<llvm::StringRef> getRequiredCpuFeatures(IsaLevel isa);

/// Whether this host can execute code generated for `platform`. The
/// environment variable TCL_HOST_ISA=<CPU platform> makes the host run as if
/// its ISA stopped at that platform's (to try generic code, or a host
/// without AVX-512, on any machine).
bool hostSupports(const Platform &platform);

/// Succeeds if this host can execute code generated for `platform`; else
/// says why not (the missing CPU features) and which platforms it runs.
llvm::Error checkHostSupports(const Platform &platform);

/// The most capable CPU platform this host can execute: the default target
/// of the tools that compile code to run here.
const Platform &getHostPlatform();

} // namespace mlir::tcl

#endif // TCL_TARGET_PLATFORM_H
