//===- DefaultScheduleTest.cpp - Every op class, every platform -----------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Each op class gets a non-empty default schedule on every CPU platform, and
// the code it produces computes what plain loops compute; on every GPU
// platform it gets one that maps blocks and threads and compiles to PTX.
//
//===----------------------------------------------------------------------===//

#include "tcl/Transforms/DefaultSchedule.h"
#include "../Support/PlainLoops.h"
#include "tcl/Registration/Registration.h"
#include "tcl/Runtime/Cuda/Driver.h"
#include "tcl/Runtime/Kernel.h"
#include "tcl/Target/Codegen.h"
#include "tcl/Target/GpuCodegen.h"
#include "tcl/Transforms/Pipelines.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

using namespace mlir;
using namespace mlir::tcl;

namespace {

struct OpCase {
  const char *name;
  const char *source; // func.func @f
};

const OpCase kCases[] = {
    {"matmul", R"mlir(
func.func @f(%a: tensor<96x72xf32>, %b: tensor<72x80xf32>, %c: tensor<96x80xf32>) -> tensor<96x80xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<96x72xf32>, tensor<72x80xf32>) outs(%c : tensor<96x80xf32>) -> tensor<96x80xf32>
  return %0 : tensor<96x80xf32>
})mlir"},
    // B is 2.5 MiB and M has 256 rows: with one thread the default packs B.
    {"matmul_packed", R"mlir(
func.func @f(%a: tensor<256x640xf32>, %b: tensor<640x1024xf32>, %c: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<256x640xf32>, tensor<640x1024xf32>) outs(%c : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  return %0 : tensor<256x1024xf32>
})mlir"},
    {"batch_matmul", R"mlir(
func.func @f(%a: tensor<3x32x24xf32>, %b: tensor<3x24x48xf32>, %c: tensor<3x32x48xf32>) -> tensor<3x32x48xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<3x32x24xf32>, tensor<3x24x48xf32>) outs(%c : tensor<3x32x48xf32>) -> tensor<3x32x48xf32>
  return %0 : tensor<3x32x48xf32>
})mlir"},
    {"conv_nhwc", R"mlir(
func.func @f(%in: tensor<1x18x18x8xf32>, %w: tensor<3x3x8x32xf32>, %out: tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x18x18x8xf32>, tensor<3x3x8x32xf32>) outs(%out : tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  return %0 : tensor<1x16x16x32xf32>
})mlir"},
    {"conv_nhwc_stride2", R"mlir(
func.func @f(%in: tensor<1x17x17x8xf32>, %w: tensor<3x3x8x16xf32>, %out: tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%in, %w : tensor<1x17x17x8xf32>, tensor<3x3x8x16xf32>) outs(%out : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  return %0 : tensor<1x8x8x16xf32>
})mlir"},
    {"conv_nchw", R"mlir(
func.func @f(%in: tensor<1x8x10x10xf32>, %w: tensor<16x8x3x3xf32>, %out: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x8x10x10xf32>, tensor<16x8x3x3xf32>) outs(%out : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  return %0 : tensor<1x16x8x8xf32>
})mlir"},
    {"depthwise_nhwc", R"mlir(
func.func @f(%in: tensor<1x17x17x32xf32>, %w: tensor<3x3x32xf32>, %out: tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32> {
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%in, %w : tensor<1x17x17x32xf32>, tensor<3x3x32xf32>) outs(%out : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  return %0 : tensor<1x8x8x32xf32>
})mlir"},
    // tcl's grouped convolution (tcl/Support/GroupedConv.h): 4 groups of 8
    // channels, stride 2.
    {"grouped_conv", R"mlir(
func.func @f(%in: tensor<1x17x17x4x8xf32>, %w: tensor<4x3x3x8x8xf32>, %out: tensor<1x8x8x4x8xf32>) -> tensor<1x8x8x4x8xf32> {
  %0 = linalg.generic {indexing_maps = [
      affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh * 2 + kh, ow * 2 + kw, g, c)>,
      affine_map<(n, oh, ow, g, f, kh, kw, c) -> (g, kh, kw, c, f)>,
      affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh, ow, g, f)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
    ins(%in, %w : tensor<1x17x17x4x8xf32>, tensor<4x3x3x8x8xf32>) outs(%out : tensor<1x8x8x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x8x8x4x8xf32>
  return %0 : tensor<1x8x8x4x8xf32>
})mlir"},
    // ... with one input channel per group: a depthwise convolution with
    // channel multiplier 3.
    {"grouped_multiplier", R"mlir(
func.func @f(%in: tensor<1x10x10x16x1xf32>, %w: tensor<16x3x3x1x3xf32>, %out: tensor<1x8x8x16x3xf32>) -> tensor<1x8x8x16x3xf32> {
  %0 = linalg.generic {indexing_maps = [
      affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh + kh, ow + kw, g, c)>,
      affine_map<(n, oh, ow, g, f, kh, kw, c) -> (g, kh, kw, c, f)>,
      affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh, ow, g, f)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
    ins(%in, %w : tensor<1x10x10x16x1xf32>, tensor<16x3x3x1x3xf32>) outs(%out : tensor<1x8x8x16x3xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x8x8x16x3xf32>
  return %0 : tensor<1x8x8x16x3xf32>
})mlir"},
    {"maxpool_nhwc", R"mlir(
func.func @f(%in: tensor<1x16x16x32xf32>, %win: tensor<2x2xf32>, %out: tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32> {
  %0 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%in, %win : tensor<1x16x16x32xf32>, tensor<2x2xf32>) outs(%out : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  return %0 : tensor<1x8x8x32xf32>
})mlir"},
    {"sumpool_nchw", R"mlir(
func.func @f(%in: tensor<1x8x16x16xf32>, %win: tensor<3x3xf32>, %out: tensor<1x8x14x14xf32>) -> tensor<1x8x14x14xf32> {
  %0 = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %win : tensor<1x8x16x16xf32>, tensor<3x3xf32>) outs(%out : tensor<1x8x14x14xf32>) -> tensor<1x8x14x14xf32>
  return %0 : tensor<1x8x14x14xf32>
})mlir"},
    {"elementwise", R"mlir(
func.func @f(%x: tensor<20x100xf32>, %y: tensor<100xf32>, %o: tensor<20x100xf32>) -> tensor<20x100xf32> {
  %zero = arith.constant 0.0 : f32
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
    ins(%x, %y : tensor<20x100xf32>, tensor<100xf32>) outs(%o : tensor<20x100xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<20x100xf32>
  return %0 : tensor<20x100xf32>
})mlir"},
    {"softmax_denominator", R"mlir(
func.func @f(%x: tensor<12x200xf32>, %o: tensor<12xf32>) -> tensor<12xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
    ins(%x : tensor<12x200xf32>) outs(%o : tensor<12xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %e = math.exp %a : f32
    %s = arith.addf %e, %acc : f32
    linalg.yield %s : f32
  } -> tensor<12xf32>
  return %0 : tensor<12xf32>
})mlir"},
};

/// tcl's dialects and the translations code generation needs.
DialectRegistry makeRegistry() {
  DialectRegistry registry;
  registerTclDialects(registry);
  registerLLVMTranslations(registry);
  return registry;
}

/// Parses `opCase` in `context`; `anchor` is its op.
OwningOpRef<ModuleOp> parseCase(MLIRContext &context, const OpCase &opCase,
                                linalg::LinalgOp &anchor) {
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(opCase.source, &context);
  if (module)
    module->walk([&](linalg::LinalgOp op) { anchor = op; });
  return module;
}

using Param = std::tuple<OpCase, const char *, unsigned>;

class DefaultScheduleTest : public ::testing::TestWithParam<Param> {};

TEST_P(DefaultScheduleTest, NonEmptyAndMatchesPlainLoops) {
  auto [opCase, target, threads] = GetParam();

  // The default schedule is a real one.
  MLIRContext context(makeRegistry());
  context.loadAllAvailableDialects();
  linalg::LinalgOp anchor;
  OwningOpRef<ModuleOp> module = parseCase(context, opCase, anchor);
  ASSERT_TRUE(module);
  OpBuilder builder = OpBuilder::atBlockEnd(module->getBody());
  Platform platform(*lookupTargetArch(target), threads);
  ScheduleOp schedule =
      buildDefaultSchedule(builder, anchor, "t", platform, false);
  EXPECT_FALSE(schedule.getBody().front().empty()) << opCase.name;
  EXPECT_TRUE(succeeded(schedule.replay()));

  // And it computes what plain loops compute, where this host can run it;
  // elsewhere the JIT refuses with the reason instead of crashing.
  if (!hostSupports(*lookupTargetArch(target))) {
    auto refused = Kernel::jit(opCase.source, "f", LoweringOptions(platform));
    ASSERT_FALSE(bool(refused));
    EXPECT_NE(
        llvm::toString(refused.takeError()).find("cannot run on this host"),
        std::string::npos);
    GTEST_SKIP() << "this host cannot execute " << target << " code";
  }
  auto scheduled = Kernel::jit(opCase.source, "f", LoweringOptions(platform));
  ASSERT_TRUE(bool(scheduled)) << llvm::toString(scheduled.takeError());
  auto naive =
      Kernel::jit(opCase.source, "f",
                  LoweringOptions(Platform(platform.getTarget(), 1), false));
  ASSERT_TRUE(bool(naive)) << llvm::toString(naive.takeError());
  std::vector<Buffer> inputs =
      scheduled->getSignature().makeRandomInputs(/*seed=*/42);
  std::vector<Buffer> fast = scheduled->getSignature().makeOutputs();
  std::vector<Buffer> slow = naive->getSignature().makeOutputs();
  ASSERT_FALSE(bool(scheduled->run(inputs, fast)));
  ASSERT_FALSE(bool(naive->run(inputs, slow)));
  double maxError = maxRelativeError(fast, slow);
  EXPECT_LT(maxError, 1e-3f) << opCase.name << " on " << target;
}

INSTANTIATE_TEST_SUITE_P(
    AllClasses, DefaultScheduleTest,
    ::testing::Combine(::testing::ValuesIn(kCases),
                       ::testing::Values("x86-avx512", "x86-avx2", "x86-sse42"),
                       ::testing::Values(1u, 2u)),
    [](const ::testing::TestParamInfo<Param> &info) {
      std::string name = std::string(std::get<0>(info.param).name) + "_" +
                         std::get<1>(info.param) + "_" +
                         std::to_string(std::get<2>(info.param)) + "t";
      for (char &c : name)
        if (!isalnum(static_cast<unsigned char>(c)))
          c = '_';
      return name;
    });

using GpuParam = std::tuple<OpCase, const char *>;

class GpuDefaultScheduleTest : public ::testing::TestWithParam<GpuParam> {};

TEST_P(GpuDefaultScheduleTest, MapsBlocksAndThreadsAndCompilesToPTX) {
  auto [opCase, target] = GetParam();
  MLIRContext context(makeRegistry());
  context.loadAllAvailableDialects();
  linalg::LinalgOp anchor;
  OwningOpRef<ModuleOp> module = parseCase(context, opCase, anchor);
  ASSERT_TRUE(module);
  Platform platform(*lookupTargetArch(target));
  {
    OpBuilder builder = OpBuilder::atBlockEnd(module->getBody());
    ScheduleOp schedule =
        buildDefaultSchedule(builder, anchor, "t", platform, false);
    FailureOr<ScheduleState> state = schedule.replay();
    ASSERT_TRUE(succeeded(state)) << opCase.name;
    EXPECT_TRUE(state->findParallelLevel(ParallelMapping::GpuBlocks))
        << opCase.name;
    EXPECT_TRUE(state->findParallelLevel(ParallelMapping::GpuThreads))
        << opCase.name;
    schedule.erase();
  }
  PassManager pm(&context);
  buildLowerToNVVMPipeline(pm, LoweringOptions(platform), findCudaToolkit());
  ASSERT_TRUE(succeeded(pm.run(*module))) << opCase.name;
  llvm::Expected<std::string> ptx = extractPTX(*module);
  ASSERT_TRUE(bool(ptx)) << llvm::toString(ptx.takeError());
  EXPECT_NE(ptx->find(".target " + platform.getTarget().cpu.str()),
            std::string::npos);
  EXPECT_NE(ptx->find(".entry f_kernel("), std::string::npos) << *ptx;
}

// The default GPU schedule computes what plain loops on the CPU compute,
// where there is a CUDA device of the platform's architecture; elsewhere the
// JIT refuses with the reason instead of crashing.
TEST_P(GpuDefaultScheduleTest, ComputesWhatPlainLoopsComputeOnTheGpu) {
  auto [opCase, target] = GetParam();
  Platform platform(*lookupTargetArch(target));
  auto scheduled = Kernel::jit(opCase.source, "f", LoweringOptions(platform));
  cuda::Driver *driver = cuda::Driver::get();
  if (!driver) {
    ASSERT_FALSE(bool(scheduled));
    std::string why = llvm::toString(scheduled.takeError());
    EXPECT_NE(why.find(cuda::Driver::getLoadError()), std::string::npos) << why;
    GTEST_SKIP() << "no CUDA device: " << cuda::Driver::getLoadError();
  }
  const cuda::DeviceProperties &device = driver->getProperties();
  if (device.getArchName() != platform.getTarget().cpu) {
    if (scheduled)
      GTEST_SKIP() << "the CUDA device is " << device.name;
    GTEST_SKIP() << llvm::toString(scheduled.takeError());
  }
  ASSERT_TRUE(bool(scheduled)) << llvm::toString(scheduled.takeError());
  test::expectMatchesPlainLoops(*scheduled, opCase.source, "f", /*seed=*/42,
                                std::string(opCase.name) + " on " +
                                    device.name);
}

// The same, emulated on this host's CPU (tcl-emulate-gpu-loops): each
// block and thread in turn. It runs everywhere, GPU or not.
TEST_P(GpuDefaultScheduleTest, ComputesWhatPlainLoopsComputeEmulated) {
  auto [opCase, target] = GetParam();
  LoweringOptions emulated{Platform(*lookupTargetArch(target))};
  emulated.emulateGpu = true;
  auto scheduled = Kernel::jit(opCase.source, "f", emulated);
  ASSERT_TRUE(bool(scheduled)) << llvm::toString(scheduled.takeError());
  test::expectMatchesPlainLoops(*scheduled, opCase.source, "f", /*seed=*/42,
                                opCase.name);
}

INSTANTIATE_TEST_SUITE_P(AllClasses, GpuDefaultScheduleTest,
                         ::testing::Combine(::testing::ValuesIn(kCases),
                                            ::testing::Values("nvptx-sm90",
                                                              "nvptx-sm80")),
                         [](const ::testing::TestParamInfo<GpuParam> &info) {
                           std::string name =
                               std::string(std::get<0>(info.param).name) + "_" +
                               std::get<1>(info.param);
                           for (char &c : name)
                             if (!isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return name;
                         });

} // namespace
