//===- ProfileTest.cpp - Counters of where a run's time goes --------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Runtime/Profile.h"
#include "tcl/Transforms/Pipelines.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::tcl;

namespace {

// A pad (a leftover op: fill and copy) before a scheduled convolution.
constexpr const char *kPadConv = R"mlir(
func.func @pad_conv(%x: tensor<1x8x8x8xf32>, %w: tensor<3x3x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x8xf32> to tensor<1x10x10x8xf32>
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c = linalg.conv_2d_nhwc_hwcf {tcl.task = "conv", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%padded, %w : tensor<1x10x10x8xf32>, tensor<3x3x8x8xf32>) outs(%o : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %c : tensor<1x8x8x8xf32>
}
)mlir";

TEST(ProfileTest, CountsEveryCallOfEveryNestAndEveryRun) {
  LoweringOptions options(Platform::host(1));
  options.profile = true;
  auto kernel = Kernel::jit(kPadConv, "pad_conv", options);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  std::vector<Buffer> inputs = kernel->getSignature().makeRandomInputs(1);
  std::vector<Buffer> outputs = kernel->getSignature().makeOutputs();
  for (int run = 0; run < 3; ++run)
    ASSERT_FALSE(bool(kernel->run(inputs, outputs)));

  auto sites = readProfile(*kernel);
  ASSERT_TRUE(bool(sites)) << llvm::toString(sites.takeError());
  ASSERT_GE(sites->size(), 3u);
  // The whole run first, then the calls in program order.
  EXPECT_EQ((*sites)[0].function, "pad_conv");
  EXPECT_EQ((*sites)[0].callee, "");
  EXPECT_EQ((*sites)[0].calls, 3u);
  EXPECT_GT((*sites)[0].ticks, 0u);
  bool sawTask = false, sawCopy = false;
  uint64_t nestTicks = 0;
  for (const ProfileSite &site : llvm::ArrayRef(*sites).drop_front()) {
    EXPECT_EQ(site.function, "pad_conv");
    EXPECT_EQ(site.calls, 3u) << site.callee;
    nestTicks += site.ticks;
    sawTask |= site.task == "conv";
    sawCopy |= site.task.empty() &&
               llvm::StringRef(site.ops).contains("copy");
  }
  EXPECT_TRUE(sawTask);
  EXPECT_TRUE(sawCopy);
  // The nests run inside the whole run.
  EXPECT_LE(nestTicks, (*sites)[0].ticks);

  auto summary = summarizeProfile(*sites, "pad_conv");
  ASSERT_TRUE(bool(summary)) << llvm::toString(summary.takeError());
  EXPECT_EQ(summary->runs, 3u);
  EXPECT_NEAR(summary->taskShare + summary->leftoverShare +
                  summary->outsideShare,
              1.0, 1e-9);

  // Reset: nothing has run since.
  ASSERT_FALSE(bool(resetProfile(*kernel)));
  auto reset = readProfile(*kernel);
  ASSERT_TRUE(bool(reset));
  for (const ProfileSite &site : *reset)
    EXPECT_EQ(site.calls + site.ticks, 0u) << site.callee;
  auto empty = summarizeProfile(*reset, "pad_conv");
  ASSERT_FALSE(bool(empty));
  EXPECT_EQ(llvm::toString(empty.takeError()),
            "@pad_conv has not run since its profile counters were reset");
}

TEST(ProfileTest, CodeCompiledWithoutCountersSaysHowToGetThem) {
  auto kernel =
      Kernel::jit(kPadConv, "pad_conv", LoweringOptions(Platform::host(1)));
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  auto sites = readProfile(*kernel);
  ASSERT_FALSE(bool(sites));
  EXPECT_NE(llvm::toString(sites.takeError()).find("tcl-compile --profile"),
            std::string::npos);
}

TEST(ProfileTest, SummarySumsANestsCallSitesAndSortsByTime) {
  std::vector<ProfileSite> sites = {
      {"f", "", "", "", 1000, 10},
      {"f", "f.a", "a", "scf.for", 300, 10},
      {"f", "f.pad", "", "fill,copy", 100, 10},
      {"f", "f.a", "a", "scf.for", 400, 10},
      {"g", "", "", "", 50, 1},
  };
  auto summary = summarizeProfile(sites, "f");
  ASSERT_TRUE(bool(summary)) << llvm::toString(summary.takeError());
  EXPECT_EQ(summary->runs, 10u);
  EXPECT_EQ(summary->ticks, 1000u);
  EXPECT_DOUBLE_EQ(summary->taskShare, 0.7);
  EXPECT_DOUBLE_EQ(summary->leftoverShare, 0.1);
  EXPECT_NEAR(summary->outsideShare, 0.2, 1e-12);
  ASSERT_EQ(summary->nests.size(), 2u);
  EXPECT_EQ(summary->nests[0].callee, "f.a");
  EXPECT_EQ(summary->nests[0].ticks, 700u);
  EXPECT_EQ(summary->nests[0].calls, 20u);
  EXPECT_EQ(summary->nests[1].callee, "f.pad");

  auto missing = summarizeProfile(sites, "h");
  ASSERT_FALSE(bool(missing));
  EXPECT_EQ(llvm::toString(missing.takeError()),
            "the profile has no counters of @h");
}

} // namespace
