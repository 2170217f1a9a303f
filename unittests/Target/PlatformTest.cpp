//===- PlatformTest.cpp - The platform value type -------------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Target/Platform.h"

#include <cstdlib>
#include <gtest/gtest.h>

using namespace mlir::tcl;

namespace {

/// A platform is a target and a thread count, named "<target>/<threads>t";
/// the name parses back to the same platform.
TEST(PlatformTest, NamesParseBack) {
  Platform platform(*lookupTargetArch("x86-avx2"), 2);
  EXPECT_EQ(platform.getName(), "x86-avx2/2t");
  EXPECT_EQ(platform.getTargetName(), "x86-avx2");
  EXPECT_EQ(platform.getThreads(), 2u);
  llvm::Expected<Platform> parsed = Platform::parse("x86-avx2/2t");
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(*parsed, platform);
  EXPECT_NE(*parsed, Platform(*lookupTargetArch("x86-avx2"), 1));
  EXPECT_NE(*parsed, Platform(*lookupTargetArch("x86-sse42"), 2));
  for (llvm::StringRef bad :
       {"x86-avx2", "x86-avx2/0t", "x86-avx2/2", "x86-avx1024/1t", "/1t", "",
        "x86-avx2/2t@", "x86-avx2/2t@Zen4", "x86-avx2/2t@zen 4",
        "x86-avx2/2t@a@b"}) {
    llvm::Expected<Platform> refused = Platform::parse(bad);
    ASSERT_FALSE(bool(refused)) << bad.str();
    EXPECT_NE(llvm::toString(refused.takeError())
                  .find("is not <target>/<threads>t[@<machine>] with a known "
                        "target"),
              std::string::npos);
  }
}

/// A platform measured on a machine is named "<target>/<threads>t@<machine>":
/// another platform than the same target on another machine or on none.
TEST(PlatformTest, MachinesArePartOfTheIdentity) {
  Platform plain(*lookupTargetArch("x86-avx512"), 1);
  Platform zen = plain.onMachine("znver4");
  EXPECT_EQ(zen.getName(), "x86-avx512/1t@znver4");
  EXPECT_EQ(zen.getNameWithoutMachine(), "x86-avx512/1t");
  EXPECT_EQ(zen.getMachine(), "znver4");
  EXPECT_NE(zen, plain);
  EXPECT_NE(zen, plain.onMachine("sapphirerapids"));
  EXPECT_EQ(zen.onMachine(""), plain);
  llvm::Expected<Platform> parsed = Platform::parse("x86-avx512/1t@znver4");
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(*parsed, zen);
  EXPECT_TRUE(isValidMachineName("icelake-server"));
  EXPECT_TRUE(isValidMachineName("x86-64-v4"));
  EXPECT_FALSE(isValidMachineName(""));
  EXPECT_FALSE(isValidMachineName("Zen4"));

  // The host's machine: LLVM's name for its CPU, unless overridden.
  EXPECT_TRUE(isValidMachineName(getHostMachineName()));
  ASSERT_EQ(setenv("TCL_HOST_MACHINE", "test-machine", 1), 0);
  std::string forced = getHostMachineName();
  unsetenv("TCL_HOST_MACHINE");
  EXPECT_EQ(forced, "test-machine");
}

/// The machine's CPU model and microarchitecture travel with the features;
/// features stored before them read back as unknown.
TEST(PlatformTest, FeaturesRoundTripTheMachine) {
  HardwareFeatures features;
  features.threads = 1;
  features.peakGflops = 117;
  features.cpuModel = "AMD EPYC 9654 96-Core Processor";
  features.machine = "znver4";
  std::optional<HardwareFeatures> back =
      HardwareFeatures::fromJson(features.toJson());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->cpuModel, features.cpuModel);
  EXPECT_EQ(back->machine, "znver4");
  EXPECT_EQ(back->peakGflops, 117);
  std::optional<HardwareFeatures> old =
      HardwareFeatures::fromJson("{\"threads\":1,\"peak_gflops\":50}");
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ(old->cpuModel, "");
  EXPECT_EQ(old->machine, "");
  EXPECT_EQ(HardwareFeatures().toJson().find("machine"), std::string::npos);
}

/// Platform::get names the known targets when the one asked for is not.
TEST(PlatformTest, UnknownTargetsAreNamed) {
  llvm::Expected<Platform> unknown = Platform::get("x86-avx1024", 1);
  ASSERT_FALSE(bool(unknown));
  EXPECT_EQ(llvm::toString(unknown.takeError()),
            "unknown target 'x86-avx1024' (known: x86-avx512, x86-avx2, "
            "x86-sse42, nvptx-sm90, nvptx-sm80)");
  llvm::Expected<Platform> known = Platform::get("nvptx-sm90", 1);
  ASSERT_TRUE(bool(known));
  EXPECT_EQ(known->getTarget().kind, TargetKind::GPU);
}

/// The features start as the target's static part, with the platform's
/// threads; probed or stored ones replace them but keep the threads.
TEST(PlatformTest, FeaturesKeepThePlatformsThreads) {
  Platform platform(*lookupTargetArch("x86-avx512"), 2);
  EXPECT_EQ(platform.getFeatures().threads, 2u);
  EXPECT_EQ(platform.getFeatures().vectorBits, 512u);
  EXPECT_EQ(platform.getFeatures().vectorRegisters, 32u);
  EXPECT_FALSE(platform.getFeatures().isProbed());
  HardwareFeatures probed;
  probed.threads = 7;
  probed.peakGflops = 100;
  probed.bandwidthGBs = 10;
  platform.setFeatures(probed);
  EXPECT_EQ(platform.getFeatures().threads, 2u);
  EXPECT_TRUE(platform.getFeatures().isProbed());
}

/// The default platform is the host's, with one thread; TCL_HOST_ISA
/// lowers it.
TEST(PlatformTest, DefaultIsTheHost) {
  EXPECT_EQ(Platform::host(), Platform(getHostTargetArch(), 1));
  EXPECT_EQ(Platform::host(2).getThreads(), 2u);
  ASSERT_EQ(setenv("TCL_HOST_ISA", "x86-sse42", 1), 0);
  Platform limited = Platform::host();
  unsetenv("TCL_HOST_ISA");
  EXPECT_EQ(limited.getName(), "x86-sse42/1t");
}

} // namespace
