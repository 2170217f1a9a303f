//===- MachineTest.cpp - Hardware probing and load monitoring -------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Runtime/Machine.h"
#include "tcl/Runtime/Cuda/Driver.h"

#include "../Support/ForeignLoad.h"

#include <chrono>
#include <cstdlib>
#include <gtest/gtest.h>
#include <vector>

using namespace mlir::tcl;

namespace {

TEST(MachineTest, ProbesEveryPlatformThisHostRuns) {
  unsigned probed = 0;
  for (const TargetArch &platform : getTargetArchs()) {
    if (platform.kind == TargetKind::GPU)
      continue; // MachineTest.ProbesTheGpuOrSaysWhyNot
    if (!hostSupports(platform)) {
      llvm::Expected<HardwareFeatures> none =
          probeHardware(Platform(platform, 1));
      EXPECT_FALSE(bool(none)) << platform.name.str();
      llvm::consumeError(none.takeError());
      continue;
    }
    llvm::Expected<HardwareFeatures> features =
        probeHardware(Platform(platform, 1));
    ASSERT_TRUE(bool(features)) << llvm::toString(features.takeError());
    ++probed;
    EXPECT_EQ(features->threads, 1u);
    EXPECT_EQ(features->vectorBits, platform.vectorBits);
    EXPECT_GE(features->vectorRegisters, 16u);
    EXPECT_GE(features->cores, 1u);
    EXPECT_TRUE(features->isProbed());
    // Sanity bounds only (any x86-64 of the last decade is within them):
    // performance itself is measured in benchmarks, not asserted.
    EXPECT_GT(features->peakGflops, 0.5);
    EXPECT_LT(features->peakGflops, 1e4);
    EXPECT_GT(features->bandwidthGBs, 0.1);
    EXPECT_LT(features->bandwidthGBs, 1e4);
    // Every x86-64 has a data cache and a second level, whether sysfs shows
    // them or only CPUID does (some sandboxes hide sysfs's cache folders):
    // the tokens' fits-in-L1/L2 columns need them.
    EXPECT_GE(features->l1KiB, 8.0);
    EXPECT_GE(features->l2KiB, features->l1KiB);
  }
  // Every x86-64 host runs SSE4.2 code at least; GPUs are never probed.
  EXPECT_GE(probed, 1u);
  EXPECT_FALSE(hostSupports(*lookupTargetArch("nvptx-sm90")));
  // A platform has at least one thread.
  llvm::Expected<Platform> zero = Platform::get("x86-sse42", 0);
  ASSERT_FALSE(bool(zero));
  EXPECT_EQ(llvm::toString(zero.takeError()),
            "a platform needs at least one thread");
}

/// A GPU platform is probed through the CUDA driver: the device's
/// multiprocessors, shared memory, L2, peak and bandwidth; without a driver
/// or a device the probe says so (the driver layer never crashes).
TEST(MachineTest, ProbesTheGpuOrSaysWhyNot) {
  Platform gpu(*lookupTargetArch("nvptx-sm90"));
  llvm::Expected<HardwareFeatures> features = probeHardware(gpu);
  cuda::Driver *driver = cuda::Driver::get();
  if (!driver) {
    ASSERT_FALSE(bool(features));
    std::string why = llvm::toString(features.takeError());
    EXPECT_EQ(why, cuda::Driver::getLoadError());
    EXPECT_TRUE(why.find("no CUDA driver") == 0 ||
                why.find("no CUDA device") == 0 ||
                why.find("the CUDA driver") == 0)
        << why;
    GTEST_SKIP() << "no CUDA device: " << why;
  }
  const cuda::DeviceProperties &device = driver->getProperties();
  if (device.computeMajor != 9) {
    ASSERT_FALSE(bool(features));
    llvm::consumeError(features.takeError());
    GTEST_SKIP() << "the CUDA device is " << device.name << ", not sm_90";
  }
  ASSERT_TRUE(bool(features)) << llvm::toString(features.takeError());
  EXPECT_EQ(features->cores, unsigned(device.multiprocessors));
  EXPECT_GT(features->cores, 0u);
  EXPECT_GT(features->l1KiB, 0);
  EXPECT_GT(features->l2KiB, features->l1KiB);
  EXPECT_TRUE(features->isProbed());
  EXPECT_EQ(features->machine, "sm_90");
  EXPECT_EQ(features->cpuModel, device.name);
}

namespace {
// A compiled model's weights are constants like this one (.rodata).
const float kReadOnlyWeights[64] = {1.0f, 2.0f, 3.0f};
float mutableGlobal[64];
} // namespace

/// The CUDA runtime keeps a device copy of host bytes that can never change:
/// those in a read-only segment of a loaded image, such as a compiled
/// model's weights; never of writable globals, the heap or the stack, nor of
/// a range that runs past the segment.
TEST(MachineTest, TellsReadOnlyImageDataFromWritableMemory) {
  EXPECT_TRUE(
      cuda::isReadOnlyImageData(kReadOnlyWeights, sizeof(kReadOnlyWeights)));
  EXPECT_TRUE(cuda::isReadOnlyImageData(&kReadOnlyWeights[8], 16));
  EXPECT_FALSE(cuda::isReadOnlyImageData(mutableGlobal, sizeof(mutableGlobal)));
  std::vector<float> heap(64);
  EXPECT_FALSE(cuda::isReadOnlyImageData(heap.data(), 64 * sizeof(float)));
  float stack[4] = {};
  EXPECT_FALSE(cuda::isReadOnlyImageData(stack, sizeof(stack)));
  EXPECT_FALSE(cuda::isReadOnlyImageData(kReadOnlyWeights, 0));
  EXPECT_FALSE(cuda::isReadOnlyImageData(kReadOnlyWeights, size_t(1) << 40));
}

/// The tools' default platform is the most capable one this host runs; one
/// above it is refused with the missing features. TCL_HOST_ISA lowers the
/// host's ISA, and a value that names no CPU platform is reported.
TEST(MachineTest, HostPlatformIsTheMostCapableOneItRuns) {
  const TargetArch &host = getHostTargetArch();
  EXPECT_EQ(host.kind, TargetKind::CPU);
  EXPECT_TRUE(hostSupports(host));
  EXPECT_FALSE(bool(checkHostSupports(host)));
  for (const TargetArch &platform : getTargetArchs()) {
    if (platform.kind != TargetKind::CPU || platform.isa <= host.isa)
      continue;
    EXPECT_FALSE(hostSupports(platform)) << platform.name.str();
    std::string message = llvm::toString(checkHostSupports(platform));
    EXPECT_NE(message.find("this host's CPU lacks avx"), std::string::npos)
        << message;
  }
  EXPECT_EQ(getRequiredCpuFeatures(IsaLevel::SSE42).size(), 2u);
  EXPECT_TRUE(getRequiredCpuFeatures(IsaLevel::NVPTX).empty());

  ASSERT_EQ(setenv("TCL_HOST_ISA", "x86-sse42", 1), 0);
  EXPECT_EQ(getHostTargetArch().name, "x86-sse42");
  std::string limited =
      llvm::toString(checkHostSupports(*lookupTargetArch("x86-avx512")));
  ASSERT_EQ(setenv("TCL_HOST_ISA", "x86-avx1024", 1), 0);
  std::string unknown =
      llvm::toString(checkHostSupports(*lookupTargetArch("x86-sse42")));
  unsetenv("TCL_HOST_ISA");
  EXPECT_EQ(limited, "code for platform 'x86-avx512' cannot run on this host: "
                     "TCL_HOST_ISA=x86-sse42 limits this host to that "
                     "platform's ISA (it runs x86-sse42)");
  EXPECT_NE(unknown.find("TCL_HOST_ISA='x86-avx1024' is not a CPU platform"),
            std::string::npos)
      << unknown;
  EXPECT_EQ(getHostTargetArch().name, host.name);
}

/// A process in another process group spinning for half a second is
/// foreign load; the monitor sees about one core of it.
TEST(MachineTest, LoadMonitorSeesOtherProcessGroups) {
  LoadMonitor monitor;
  pid_t child = test::spinInOtherProcessGroup(std::chrono::milliseconds(600));
  ASSERT_GE(child, 0);
  double foreign = monitor.foreignCores();
  test::reap(child);
  EXPECT_GT(foreign, 0.3);
}

} // namespace
