//===- Platform.cpp - Named target platforms ------------------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Target/Platform.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <cstdlib>

using namespace mlir::tcl;

// The x86 platforms share one host and differ only in the ISA that code
// generation may use, so they are separate devices for the tuner and the cost
// model; a host runs those its CPU has the features of (hostSupports). CPU
// names are generic ones of that ISA level, not the host's, so generated code
// does not depend on the build machine. Constant-initialized: tools read it
// for their options' defaults during static initialization.
static constexpr Platform kPlatforms[] = {
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

llvm::ArrayRef<llvm::StringRef>
mlir::tcl::getRequiredCpuFeatures(IsaLevel isa) {
  // The x86-64-v2/v3/v4 levels the platforms' CPU names stand for, reduced to
  // the features float kernels use (each level includes the one below).
  static constexpr llvm::StringRef kSse42[] = {"sse4.2", "popcnt"};
  static constexpr llvm::StringRef kAvx2[] = {"sse4.2", "popcnt", "avx", "avx2",
                                              "fma",    "bmi",    "bmi2"};
  static constexpr llvm::StringRef kAvx512[] = {
      "sse4.2", "popcnt",  "avx",      "avx2",     "fma",      "bmi",
      "bmi2",   "avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd"};
  switch (isa) {
  case IsaLevel::SSE42:
    return kSse42;
  case IsaLevel::AVX2:
    return kAvx2;
  case IsaLevel::AVX512:
    return kAvx512;
  case IsaLevel::NVPTX:
    return {};
  }
  return {};
}

namespace {
/// Why the host cannot run `platform`: empty if it can.
std::string whyHostCannotRun(const Platform &platform) {
  if (platform.kind != PlatformKind::CPU)
    return "it is a GPU platform and this host runs CPU code only";
  if (const char *limit = std::getenv("TCL_HOST_ISA"); limit && *limit) {
    const Platform *cap = lookupPlatform(limit);
    if (!cap || cap->kind != PlatformKind::CPU)
      return "TCL_HOST_ISA='" + std::string(limit) + "' is not a CPU platform";
    if (platform.isa > cap->isa)
      return "TCL_HOST_ISA=" + std::string(limit) +
             " limits this host to that platform's ISA";
  }
  static const llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
  llvm::SmallVector<llvm::StringRef> missing;
  for (llvm::StringRef feature : getRequiredCpuFeatures(platform.isa))
    if (!host.lookup(feature))
      missing.push_back(feature);
  if (missing.empty())
    return "";
  return "this host's CPU lacks " + llvm::join(missing, ", ");
}
} // namespace

bool mlir::tcl::hostSupports(const Platform &platform) {
  return whyHostCannotRun(platform).empty();
}

llvm::Error mlir::tcl::checkHostSupports(const Platform &platform) {
  std::string why = whyHostCannotRun(platform);
  if (why.empty())
    return llvm::Error::success();
  llvm::SmallVector<llvm::StringRef> runnable;
  for (const Platform &other : kPlatforms)
    if (hostSupports(other))
      runnable.push_back(other.name);
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "code for platform '" + platform.name +
          "' cannot run on this host: " + why + " (it runs " +
          (runnable.empty() ? std::string("none of tcl's platforms")
                            : llvm::join(runnable, ", ")) +
          ")");
}

const Platform &mlir::tcl::getHostPlatform() {
  // The table lists the CPU platforms from the most capable down.
  for (const Platform &platform : kPlatforms)
    if (platform.kind == PlatformKind::CPU && hostSupports(platform))
      return platform;
  return *lookupPlatform("x86-sse42");
}

HardwareFeatures HardwareFeatures::fromPlatform(const Platform &platform,
                                                unsigned threads) {
  HardwareFeatures features;
  features.threads = threads;
  features.vectorBits = platform.vectorBits;
  // AVX-512 doubles the register file (zmm0-31); SSE and AVX2 have 16.
  switch (platform.isa) {
  case IsaLevel::AVX512:
    features.vectorRegisters = 32;
    break;
  case IsaLevel::SSE42:
  case IsaLevel::AVX2:
    features.vectorRegisters = 16;
    break;
  case IsaLevel::NVPTX:
    features.vectorRegisters = 255;
    break;
  }
  return features;
}

std::string HardwareFeatures::toJson() const {
  llvm::json::Object object{{"threads", threads},
                            {"cores", cores},
                            {"vector_bits", vectorBits},
                            {"vector_registers", vectorRegisters},
                            {"l1_kib", l1KiB},
                            {"l2_kib", l2KiB},
                            {"l3_kib", l3KiB},
                            {"peak_gflops", peakGflops},
                            {"bandwidth_gbs", bandwidthGBs}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(object));
  return text;
}

std::optional<HardwareFeatures>
HardwareFeatures::fromJson(llvm::StringRef text) {
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(text);
  if (!value) {
    llvm::consumeError(value.takeError());
    return std::nullopt;
  }
  const llvm::json::Object *object = value->getAsObject();
  if (!object)
    return std::nullopt;
  auto number = [&](llvm::StringRef key) {
    return object->getNumber(key).value_or(0.0);
  };
  HardwareFeatures features;
  features.threads = static_cast<unsigned>(number("threads"));
  features.cores = static_cast<unsigned>(number("cores"));
  features.vectorBits = static_cast<unsigned>(number("vector_bits"));
  features.vectorRegisters = static_cast<unsigned>(number("vector_registers"));
  features.l1KiB = number("l1_kib");
  features.l2KiB = number("l2_kib");
  features.l3KiB = number("l3_kib");
  features.peakGflops = number("peak_gflops");
  features.bandwidthGBs = number("bandwidth_gbs");
  return features;
}
