//===- Platform.h - What generated code runs on -----------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// A Platform is what code is compiled for, measured on and tuned for: a
// target architecture (an ISA level or GPU architecture with an explicit
// vector width, so code generation is deterministic), the threads its
// kernels use, and what is known of the machine (HardwareFeatures). Passes,
// tools, tuning, the database and the datasets all take this one value; its
// name, e.g. "x86-avx2/2t", is what records and datasets key on.
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

enum class TargetKind : unsigned { CPU = 0, GPU = 1 };

/// ISA levels in increasing capability. Part of the tokenizer's hardware
/// features: keep the order stable.
enum class IsaLevel : unsigned { SSE42 = 0, AVX2, AVX512, NVPTX };
constexpr unsigned kNumIsaLevels = 4;

/// An ISA level or GPU architecture: what code is generated for. A
/// schedule's `target` and the tools' `--target` name one. One table of
/// them (getTargetArchs); the lowering and the tokenizer read it.
struct TargetArch {
  llvm::StringRef name;
  TargetKind kind;
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
  /// The machine measured: its CPU's model name (/proc/cpuinfo, e.g. "AMD
  /// EPYC 9654"; virtual machines may show less) and microarchitecture as
  /// LLVM names it (getHostMachineName). Empty when unknown.
  std::string cpuModel, machine;

  /// The static part: the platform's vector width and registers.
  static HardwareFeatures fromTarget(const TargetArch &platform,
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
const TargetArch *lookupTargetArch(llvm::StringRef name);
llvm::ArrayRef<TargetArch> getTargetArchs();

/// The CPU features code generated for `isa` needs, by the names LLVM's host
/// detection and the compilers' __builtin_cpu_supports both use (empty for
/// GPUs).
llvm::ArrayRef<llvm::StringRef> getRequiredCpuFeatures(IsaLevel isa);

/// Whether this host can execute and measure code generated for `platform`
/// (never a GPU platform's yet: tcl does not measure GPU code). The
/// environment variable TCL_HOST_ISA=<CPU platform> makes the host run as if
/// its ISA stopped at that platform's (to try generic code, or a host
/// without AVX-512, on any machine).
bool hostSupports(const TargetArch &platform);

/// Succeeds if this host can execute and measure code generated for
/// `platform`; else says why not (the missing CPU features, and which
/// platforms it runs; for a GPU platform, that tcl does not measure GPU
/// code yet).
llvm::Error checkHostSupports(const TargetArch &platform);

/// The most capable CPU architecture this host can execute: the default
/// target of the tools that compile code to run here.
const TargetArch &getHostTargetArch();

/// This host's microarchitecture as LLVM names it ("znver4", "icelake-server",
/// "sapphirerapids"; "generic" when LLVM does not know it): what tells one
/// machine's measurements from another's for the same target. The
/// environment variable TCL_HOST_MACHINE=<name> overrides it (to keep the
/// data of two hosts apart by hand, and in tests).
std::string getHostMachineName();

/// Whether `name` can name a machine: lower-case letters, digits, '.', '_'
/// and '-', not empty.
bool isValidMachineName(llvm::StringRef name);

/// What code runs on: a target architecture, the threads its kernels use
/// (parallel loops run on an OpenMP team of that size; 1 keeps code
/// sequential), optionally the machine it runs on (its microarchitecture:
/// measurements of one target on two machines are two platforms), and the
/// hardware features of the machine (the table's static part until probed
/// ones are set). Compiling needs no machine; measuring ties a platform to
/// the host's (registerPlatform).
class Platform {
public:
  /// `threads` must be at least 1 (Platform::get checks).
  explicit Platform(const TargetArch &target, unsigned threads = 1);
  /// The host's most capable architecture (getHostTargetArch): the default
  /// platform of every option struct, pass and tool.
  static Platform host(unsigned threads = 1);
  /// The target called `target`; an error naming the known ones otherwise,
  /// or for 0 threads.
  static llvm::Expected<Platform> get(llvm::StringRef target,
                                      unsigned threads = 1);
  /// Parses getName()'s form "<target>/<threads>t[@<machine>]" (e.g.
  /// "x86-avx512/2t", "x86-avx2/1t@znver4").
  static llvm::Expected<Platform> parse(llvm::StringRef name);

  const TargetArch &getTarget() const { return *target; }
  llvm::StringRef getTargetName() const { return target->name; }
  unsigned getThreads() const { return threads; }
  /// The machine measured on; empty for a platform not tied to one.
  llvm::StringRef getMachine() const { return machine; }
  /// This platform on `machine` (a valid machine name, or empty: on none).
  Platform onMachine(llvm::StringRef machine) const;
  /// "<target>/<threads>t", then "@<machine>" if tied to one.
  std::string getName() const;
  /// "<target>/<threads>t" whatever the machine.
  std::string getNameWithoutMachine() const;
  const HardwareFeatures &getFeatures() const { return features; }
  /// Replaces the features (e.g. probed or stored ones); their thread count
  /// is the platform's.
  void setFeatures(const HardwareFeatures &probed);

  /// Same target, threads and machine (features are what is known, not
  /// identity).
  bool operator==(const Platform &other) const {
    return target == other.target && threads == other.threads &&
           machine == other.machine;
  }
  bool operator!=(const Platform &other) const { return !(*this == other); }

private:
  const TargetArch *target;
  unsigned threads;
  std::string machine;
  HardwareFeatures features;
};

} // namespace mlir::tcl

#endif // TCL_TARGET_PLATFORM_H
