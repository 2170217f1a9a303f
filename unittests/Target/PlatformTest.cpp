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
  for (llvm::StringRef bad : {"x86-avx2", "x86-avx2/0t", "x86-avx2/2",
                              "x86-avx1024/1t", "/1t", ""}) {
    llvm::Expected<Platform> refused = Platform::parse(bad);
    ASSERT_FALSE(bool(refused)) << bad.str();
    EXPECT_NE(llvm::toString(refused.takeError())
                  .find("is not <target>/<threads>t with a known target"),
              std::string::npos);
  }
}

/// Platform::get names the known targets when the one asked for is not.
TEST(PlatformTest, UnknownTargetsAreNamed) {
  llvm::Expected<Platform> unknown = Platform::get("x86-avx1024", 1);
  ASSERT_FALSE(bool(unknown));
  EXPECT_EQ(llvm::toString(unknown.takeError()),
            "unknown target 'x86-avx1024' (known: x86-avx512, x86-avx2, "
            "x86-sse42, nvptx-sm90)");
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
