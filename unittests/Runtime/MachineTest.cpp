//===- MachineTest.cpp - Hardware probing and load monitoring -------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Runtime/Machine.h"

#include <chrono>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace mlir::tcl;

namespace {

TEST(MachineTest, ProbesEveryPlatformThisHostRuns) {
  unsigned probed = 0;
  for (const Platform &platform : getPlatforms()) {
    if (!hostSupports(platform)) {
      llvm::Expected<HardwareFeatures> none = probeHardware(platform, 1);
      EXPECT_FALSE(bool(none)) << platform.name.str();
      llvm::consumeError(none.takeError());
      continue;
    }
    llvm::Expected<HardwareFeatures> features = probeHardware(platform, 1);
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
  }
  // Every x86-64 host runs SSE4.2 code at least; GPUs are never probed.
  EXPECT_GE(probed, 1u);
  EXPECT_FALSE(hostSupports(*lookupPlatform("nvptx-sm90")));
  llvm::Expected<HardwareFeatures> zero =
      probeHardware(*lookupPlatform("x86-sse42"), 0);
  EXPECT_FALSE(bool(zero));
  llvm::consumeError(zero.takeError());
}

/// A process in another process group spinning for half a second is
/// foreign load; the monitor sees about one core of it.
TEST(MachineTest, LoadMonitorSeesOtherProcessGroups) {
  LoadMonitor monitor;
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setpgid(0, 0);
    auto start = std::chrono::steady_clock::now();
    volatile double sink = 0;
    while (std::chrono::steady_clock::now() - start <
           std::chrono::milliseconds(600))
      sink = sink + 1;
    _exit(0);
  }
  // Wait for the exit without reaping: once reaped, the child's time would
  // count as this process's own (its children's totals).
  siginfo_t info;
  ASSERT_EQ(waitid(P_PID, child, &info, WEXITED | WNOWAIT), 0);
  double foreign = monitor.foreignCores();
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_GT(foreign, 0.3);
}

} // namespace
