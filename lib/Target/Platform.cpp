//===- Platform.cpp - What generated code runs on -------------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Target/Platform.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <cassert>
#include <cstdlib>

using namespace mlir::tcl;

// The x86 platforms share one host and differ only in the ISA that code
// generation may use, so they are separate devices for the tuner and the cost
// model; a host runs those its CPU has the features of (hostSupports). CPU
// names are generic ones of that ISA level, not the host's, so generated code
// does not depend on the build machine. Constant-initialized: tools read it
// for their options' defaults during static initialization.
static constexpr TargetArch kTargetArchs[] = {
    {"x86-avx512", TargetKind::CPU, IsaLevel::AVX512,
     "x86_64-unknown-linux-gnu", "x86-64-v4", "", 512},
    {"x86-avx2", TargetKind::CPU, IsaLevel::AVX2, "x86_64-unknown-linux-gnu",
     "x86-64-v3", "", 256},
    {"x86-sse42", TargetKind::CPU, IsaLevel::SSE42, "x86_64-unknown-linux-gnu",
     "x86-64-v2", "", 128},
    {"nvptx-sm90", TargetKind::GPU, IsaLevel::NVPTX, "nvptx64-nvidia-cuda",
     "sm_90", "+ptx80", 1024},
    {"nvptx-sm80", TargetKind::GPU, IsaLevel::NVPTX, "nvptx64-nvidia-cuda",
     "sm_80", "+ptx70", 1024},
};

const TargetArch *mlir::tcl::lookupTargetArch(llvm::StringRef name) {
  for (const TargetArch &platform : kTargetArchs)
    if (platform.name == name)
      return &platform;
  return nullptr;
}

llvm::ArrayRef<TargetArch> mlir::tcl::getTargetArchs() { return kTargetArchs; }

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
/// Why this host cannot run (a GPU platform: measure) code for `platform`:
/// empty if it can.
std::string whyHostCannotRun(const TargetArch &platform) {
  if (platform.kind != TargetKind::CPU)
    return "tcl does not measure GPU code yet (tcl-compile compiles it; its "
           "libraries and tcl-run run it on a CUDA device)";
  if (const char *limit = std::getenv("TCL_HOST_ISA"); limit && *limit) {
    const TargetArch *cap = lookupTargetArch(limit);
    if (!cap || cap->kind != TargetKind::CPU)
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

bool mlir::tcl::hostSupports(const TargetArch &platform) {
  return whyHostCannotRun(platform).empty();
}

llvm::Error mlir::tcl::checkHostSupports(const TargetArch &platform) {
  std::string why = whyHostCannotRun(platform);
  if (why.empty())
    return llvm::Error::success();
  if (platform.kind == TargetKind::GPU)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   platform.name +
                                       " is a GPU platform: " + why);
  llvm::SmallVector<llvm::StringRef> runnable;
  for (const TargetArch &other : kTargetArchs)
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

const TargetArch &mlir::tcl::getHostTargetArch() {
  // The table lists the CPU platforms from the most capable down.
  for (const TargetArch &platform : kTargetArchs)
    if (platform.kind == TargetKind::CPU && hostSupports(platform))
      return platform;
  return *lookupTargetArch("x86-sse42");
}

std::string mlir::tcl::getHostMachineName() {
  if (const char *forced = std::getenv("TCL_HOST_MACHINE"))
    if (isValidMachineName(forced))
      return forced;
  std::string name = llvm::sys::getHostCPUName().lower();
  return isValidMachineName(name) ? name : "generic";
}

bool mlir::tcl::isValidMachineName(llvm::StringRef name) {
  return !name.empty() && llvm::all_of(name, [](char c) {
    return llvm::isLower(c) || llvm::isDigit(c) || c == '.' || c == '_' ||
           c == '-';
  });
}

HardwareFeatures HardwareFeatures::fromTarget(const TargetArch &platform,
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
  if (!cpuModel.empty())
    object["cpu_model"] = cpuModel;
  if (!machine.empty())
    object["machine"] = machine;
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
  features.cpuModel = object->getString("cpu_model").value_or("").str();
  features.machine = object->getString("machine").value_or("").str();
  return features;
}

//===----------------------------------------------------------------------===//
// Platform
//===----------------------------------------------------------------------===//

Platform::Platform(const TargetArch &target, unsigned threads)
    : target(&target), threads(threads),
      features(HardwareFeatures::fromTarget(target, threads)) {
  assert(threads > 0 && "a platform needs at least one thread");
}

Platform Platform::host(unsigned threads) {
  return Platform(getHostTargetArch(), threads);
}

llvm::Expected<Platform> Platform::get(llvm::StringRef target,
                                       unsigned threads) {
  if (threads == 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "a platform needs at least one thread");
  if (const TargetArch *arch = lookupTargetArch(target))
    return Platform(*arch, threads);
  llvm::SmallVector<llvm::StringRef> known;
  for (const TargetArch &arch : kTargetArchs)
    known.push_back(arch.name);
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "unknown target '" + target + "' (known: " +
                                     llvm::join(known, ", ") + ")");
}

llvm::Expected<Platform> Platform::parse(llvm::StringRef name) {
  auto [base, machine] = name.split('@');
  auto [target, threadsText] = base.split('/');
  unsigned threads = 0;
  bool hasMachine = base.size() < name.size();
  if (!lookupTargetArch(target) || !threadsText.consume_back("t") ||
      threadsText.getAsInteger(10, threads) || threads == 0 ||
      (hasMachine && !isValidMachineName(machine)))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "platform '" + name +
            "' is not <target>/<threads>t[@<machine>] with a known "
            "target (e.g. x86-avx512/1t, x86-avx2/1t@znver4)");
  return Platform(*lookupTargetArch(target), threads).onMachine(machine);
}

Platform Platform::onMachine(llvm::StringRef name) const {
  assert((name.empty() || isValidMachineName(name)) && "bad machine name");
  Platform result = *this;
  result.machine = name.str();
  return result;
}

std::string Platform::getNameWithoutMachine() const {
  return (target->name + "/" + llvm::Twine(threads) + "t").str();
}

std::string Platform::getName() const {
  return machine.empty() ? getNameWithoutMachine()
                         : getNameWithoutMachine() + "@" + machine;
}

void Platform::setFeatures(const HardwareFeatures &probed) {
  features = probed;
  features.threads = threads;
}
