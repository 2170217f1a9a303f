//===- Platform.cpp - Named target platforms ------------------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Target/Platform.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

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
