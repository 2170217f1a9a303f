//===- TokenizerTest.cpp - Pins the token layout --------------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/Tokenizer.h"
#include "tcl/Registration/Registration.h"

#include "../Support/TclTest.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace mlir;
using namespace mlir::tcl;

namespace {

constexpr const char *kMatmulModule = R"mlir(
func.func @mm(%a: tensor<256x128xf32>, %b: tensor<128x64xf32>, %c: tensor<256x64xf32>) -> tensor<256x64xf32> {
  %0 = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<256x128xf32>, tensor<128x64xf32>) outs(%c : tensor<256x64xf32>) -> tensor<256x64xf32>
  return %0 : tensor<256x64xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [256 parallel, 64 parallel, 128 reduction] {
  tcl.sched.tile [64, 32, 0]
  tcl.sched.parallelize
  tcl.sched.tile [8, 32, 1]
  tcl.sched.interchange [1, 0, 2]
  tcl.sched.vectorize
  tcl.sched.unroll level 1 dim 2 by 4
}
)mlir";

class TokenizerTest : public test::TclTest {
protected:
  static ScheduleOp getSchedule(ModuleOp module) {
    ScheduleOp schedule;
    module.walk([&](ScheduleOp op) { schedule = op; });
    return schedule;
  }

  static linalg::LinalgOp getAnchor(ModuleOp module) {
    linalg::LinalgOp anchor;
    module.walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(kTaskAttrName))
        anchor = op;
    });
    return anchor;
  }

  static float at(const std::vector<float> &matrix, unsigned row,
                  unsigned col) {
    return matrix[row * Tokenizer::kWidth + col];
  }
};

// Offsets of the layout documented in Tokenizer.h.
constexpr unsigned kParam = 10, kTouched = 18, kExtent = 26, kScalar = 34;
constexpr unsigned kPartial = 40, kDerived = 48;
constexpr unsigned kTask = 57, kHardware = 77;
// The derived columns, in Tokenizer.cpp's order.
enum : unsigned {
  kIterations = kDerived,
  kTiles,
  kFootprint,
  kFitsL1,
  kFitsL2,
  kBalance,
  kAccumulators,
  kPressure,
  kPartialVector
};

TEST_F(TokenizerTest, WidthIsPinned) {
  EXPECT_EQ(Tokenizer::kTokenWidth, 57u);
  EXPECT_EQ(Tokenizer::kTaskWidth, 20u);
  EXPECT_EQ(Tokenizer::kHardwareWidth, 14u);
  EXPECT_EQ(Tokenizer::kWidth, 91u);
}

TEST_F(TokenizerTest, TaskFeaturesOfMatmul) {
  OwningOpRef<ModuleOp> module = parse(kMatmulModule);
  ASSERT_TRUE(module);
  FailureOr<TaskFeatures> task = TaskFeatures::fromAnchor(getAnchor(*module));
  ASSERT_TRUE(succeeded(task));
  EXPECT_EQ(task->anchorClass, AnchorClass::Matmul);
  EXPECT_EQ(task->extents, (SmallVector<int64_t>{256, 64, 128}));
  EXPECT_EQ(task->numReductionLoops, 1u);
  EXPECT_DOUBLE_EQ(task->flops, 2.0 * 256 * 64 * 128);
  EXPECT_DOUBLE_EQ(task->bytes, 4.0 * (256 * 128 + 128 * 64 + 256 * 64));
}

TEST_F(TokenizerTest, OneRowPerPrimitive) {
  OwningOpRef<ModuleOp> module = parse(kMatmulModule);
  ASSERT_TRUE(module);
  FailureOr<TaskFeatures> task = TaskFeatures::fromAnchor(getAnchor(*module));
  ASSERT_TRUE(succeeded(task));
  Tokenizer tokenizer(/*maxLength=*/8);
  FailureOr<std::vector<float>> matrix =
      tokenizer.tokenize(getSchedule(*module), *task);
  ASSERT_TRUE(succeeded(matrix));
  ASSERT_EQ(matrix->size(), 8u * Tokenizer::kWidth);

  // Row 0: tile [64, 32, 0] on the 256x64x128 domain, a parallel level.
  EXPECT_EQ(at(*matrix, 0, static_cast<unsigned>(PrimitiveKind::Tile)), 1);
  EXPECT_FLOAT_EQ(at(*matrix, 0, kParam + 0), std::log2(65.0f));
  EXPECT_FLOAT_EQ(at(*matrix, 0, kParam + 1), std::log2(33.0f));
  EXPECT_EQ(at(*matrix, 0, kParam + 2), 0);
  EXPECT_EQ(at(*matrix, 0, kTouched + 0), 1);
  EXPECT_EQ(at(*matrix, 0, kTouched + 2), 0);
  EXPECT_FLOAT_EQ(at(*matrix, 0, kExtent + 0), std::log2(257.0f));
  EXPECT_EQ(at(*matrix, 0, kScalar + 0), 0); // level
  EXPECT_EQ(at(*matrix, 0, kScalar + 4), 3); // loop dims
  EXPECT_EQ(at(*matrix, 0, kScalar + 5), 1); // parallel level

  // Row 1: parallelize, touching the two tiled dims of level 0.
  EXPECT_EQ(at(*matrix, 1, static_cast<unsigned>(PrimitiveKind::Parallelize)),
            1);
  EXPECT_EQ(at(*matrix, 1, kTouched + 0), 1);
  EXPECT_EQ(at(*matrix, 1, kTouched + 1), 1);
  EXPECT_EQ(at(*matrix, 1, kTouched + 2), 0);

  // Row 2: the second tile sees the extents left by the first.
  EXPECT_FLOAT_EQ(at(*matrix, 2, kExtent + 0), std::log2(65.0f));
  EXPECT_EQ(at(*matrix, 2, kScalar + 0), 1);

  // Row 3: interchange [1, 0, 2]: dim 1 first, dims 0 and 1 moved.
  EXPECT_EQ(at(*matrix, 3, kParam + 1), 0);
  EXPECT_EQ(at(*matrix, 3, kParam + 0), 1);
  EXPECT_EQ(at(*matrix, 3, kTouched + 2), 0);

  // Row 4: vectorize an 8x32x1 tile.
  EXPECT_EQ(at(*matrix, 4, static_cast<unsigned>(PrimitiveKind::Vectorize)), 1);
  EXPECT_FLOAT_EQ(at(*matrix, 4, kParam + 0), std::log2(9.0f));
  EXPECT_FLOAT_EQ(at(*matrix, 4, kParam + 2), 1.0f);

  // Row 5: unroll level 1 dim 2 by 4.
  EXPECT_FLOAT_EQ(at(*matrix, 5, kParam + 2), 2.0f);
  EXPECT_EQ(at(*matrix, 5, kScalar + 0), 1);

  // Task and hardware parts on every program row, zeros after it.
  for (unsigned row = 0; row < 6; ++row) {
    EXPECT_EQ(at(*matrix, row, kTask + 0), 1) << row; // Matmul
    EXPECT_FLOAT_EQ(at(*matrix, row, kTask + 7),
                    std::log2(1.0 + 2.0 * 256 * 64 * 128));
    EXPECT_EQ(at(*matrix, row, kTask + 9), 3);     // loops
    EXPECT_EQ(at(*matrix, row, kTask + 10), 1);    // reduction loops
    EXPECT_EQ(at(*matrix, row, kHardware + 2), 1); // AVX512
    EXPECT_FLOAT_EQ(at(*matrix, row, kHardware + 4), std::log2(513.0f));
  }
  for (unsigned row = 6; row < 8; ++row)
    for (unsigned col = 0; col < Tokenizer::kWidth; ++col)
      EXPECT_EQ(at(*matrix, row, col), 0) << row << "," << col;
}

// A GPU program reads with the same layout: its block level is a parallel
// level (1) as a CPU's is, its thread level a parallel level 2; the hardware
// part says GPU.
TEST_F(TokenizerTest, GpuProgramsMarkBlockAndThreadLevels) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
func.func @mm(%a: tensor<256x128xf32>, %b: tensor<128x64xf32>, %c: tensor<256x64xf32>) -> tensor<256x64xf32> {
  %0 = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<256x128xf32>, tensor<128x64xf32>) outs(%c : tensor<256x64xf32>) -> tensor<256x64xf32>
  return %0 : tensor<256x64xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "nvptx-sm90"
    loops [256 parallel, 64 parallel, 128 reduction] {
  tcl.sched.tile [64, 64, 0]
  tcl.sched.parallelize blocks
  tcl.sched.tile [4, 4, 0]
  tcl.sched.parallelize threads
  tcl.sched.tile [0, 0, 8]
}
)mlir");
  ASSERT_TRUE(module);
  FailureOr<TaskFeatures> task = TaskFeatures::fromAnchor(getAnchor(*module));
  ASSERT_TRUE(succeeded(task));
  FailureOr<std::vector<float>> matrix =
      Tokenizer(/*maxLength=*/8).tokenize(getSchedule(*module), *task);
  ASSERT_TRUE(succeeded(matrix));
  const unsigned parallelize =
      static_cast<unsigned>(PrimitiveKind::Parallelize);
  EXPECT_EQ(at(*matrix, 0, kScalar + 5), 1); // tile of the block level
  EXPECT_EQ(at(*matrix, 1, parallelize), 1);
  EXPECT_EQ(at(*matrix, 1, kScalar + 5), 1); // blocks
  EXPECT_EQ(at(*matrix, 2, kScalar + 5), 2); // tile of the thread level
  EXPECT_EQ(at(*matrix, 3, parallelize), 1);
  EXPECT_EQ(at(*matrix, 3, kScalar + 5), 2); // threads
  EXPECT_EQ(at(*matrix, 3, kScalar + 0), 1);
  EXPECT_EQ(at(*matrix, 4, kScalar + 5), 0);   // a sequential level
  EXPECT_EQ(at(*matrix, 0, kHardware + 3), 1); // NVPTX
  EXPECT_EQ(at(*matrix, 0, kHardware + 5), 1); // GPU flag
  EXPECT_EQ(at(*matrix, 0, kHardware + 2), 0);
}

TEST_F(TokenizerTest, CropsLongPrograms) {
  OwningOpRef<ModuleOp> module = parse(kMatmulModule);
  ASSERT_TRUE(module);
  FailureOr<TaskFeatures> task = TaskFeatures::fromAnchor(getAnchor(*module));
  Tokenizer tokenizer(/*maxLength=*/2);
  FailureOr<std::vector<float>> matrix =
      tokenizer.tokenize(getSchedule(*module), *task);
  ASSERT_TRUE(succeeded(matrix));
  ASSERT_EQ(matrix->size(), 2u * Tokenizer::kWidth);
  EXPECT_EQ(at(*matrix, 1, static_cast<unsigned>(PrimitiveKind::Parallelize)),
            1);
}

TEST_F(TokenizerTest, DeterministicAndPlatformAware) {
  OwningOpRef<ModuleOp> module = parse(kMatmulModule);
  ASSERT_TRUE(module);
  FailureOr<TaskFeatures> task = TaskFeatures::fromAnchor(getAnchor(*module));
  Tokenizer tokenizer;
  ScheduleOp schedule = getSchedule(*module);
  FailureOr<std::vector<float>> first = tokenizer.tokenize(schedule, *task);
  FailureOr<std::vector<float>> second = tokenizer.tokenize(schedule, *task);
  ASSERT_TRUE(succeeded(first) && succeeded(second));
  EXPECT_EQ(*first, *second);

  schedule.setTarget("x86-avx2");
  FailureOr<std::vector<float>> avx2 = tokenizer.tokenize(schedule, *task);
  ASSERT_TRUE(succeeded(avx2));
  EXPECT_EQ(at(*avx2, 0, kHardware + 1), 1); // AVX2
  EXPECT_EQ(at(*avx2, 0, kHardware + 2), 0);
  EXPECT_FLOAT_EQ(at(*avx2, 0, kHardware + 4), std::log2(257.0f));
}

TEST_F(TokenizerTest, ProbedHardwareFeaturesFillTheHardwarePart) {
  OwningOpRef<ModuleOp> module = parse(kMatmulModule);
  ASSERT_TRUE(module);
  FailureOr<TaskFeatures> task = TaskFeatures::fromAnchor(getAnchor(*module));
  ScheduleOp schedule = getSchedule(*module);
  // Without probed features: the platform's static part, one thread.
  FailureOr<std::vector<float>> plain = Tokenizer(8).tokenize(schedule, *task);
  ASSERT_TRUE(succeeded(plain));
  EXPECT_EQ(at(*plain, 0, kHardware + 6), 1);  // log2(1 + 1 thread)
  EXPECT_EQ(at(*plain, 0, kHardware + 8), 4);  // 32 registers / 8
  EXPECT_EQ(at(*plain, 0, kHardware + 12), 0); // peak unknown

  HardwareFeatures hardware =
      HardwareFeatures::fromTarget(*lookupTargetArch("x86-avx512"), 2);
  hardware.cores = 3;
  hardware.l1KiB = 31;
  hardware.l2KiB = 1023;
  hardware.l3KiB = 32767;
  hardware.peakGflops = 255;
  hardware.bandwidthGBs = 15;
  FailureOr<std::vector<float>> probed =
      Tokenizer(8).tokenize(schedule, *task, &hardware);
  ASSERT_TRUE(succeeded(probed));
  for (unsigned row = 0; row < 6; ++row) {
    EXPECT_FLOAT_EQ(at(*probed, row, kHardware + 6), std::log2(3.0f));
    EXPECT_EQ(at(*probed, row, kHardware + 7), 2);   // 3 cores
    EXPECT_EQ(at(*probed, row, kHardware + 9), 5);   // L1
    EXPECT_EQ(at(*probed, row, kHardware + 10), 10); // L2
    EXPECT_EQ(at(*probed, row, kHardware + 11), 15); // L3
    EXPECT_EQ(at(*probed, row, kHardware + 12), 8);  // peak
    EXPECT_EQ(at(*probed, row, kHardware + 13), 4);  // bandwidth
  }
  // The token and task parts do not depend on the machine, except the
  // columns that relate a tile to its caches and threads.
  for (unsigned row = 0; row < 8; ++row)
    for (unsigned col = 0; col < kHardware; ++col)
      if (col != kFitsL1 && col != kFitsL2 && col != kBalance)
        EXPECT_EQ(at(*plain, row, col), at(*probed, row, col)) << col;
}

TEST_F(TokenizerTest, DerivedColumnsDescribeTilesAndVectors) {
  OwningOpRef<ModuleOp> module = parse(kMatmulModule);
  ASSERT_TRUE(module);
  FailureOr<TaskFeatures> task = TaskFeatures::fromAnchor(getAnchor(*module));
  ASSERT_TRUE(succeeded(task));
  HardwareFeatures hardware =
      HardwareFeatures::fromTarget(*lookupTargetArch("x86-avx512"), 3);
  hardware.l1KiB = 32;
  hardware.l2KiB = 1024;
  FailureOr<std::vector<float>> matrix =
      Tokenizer(8).tokenize(getSchedule(*module), *task, &hardware);
  ASSERT_TRUE(succeeded(matrix));

  // Row 0: tile [64, 32, 0] of 256x64x128 in 4 x 2 x 1 = 8 tiles, each
  // touching A 64x128, B 128x32 and C 64x32 floats (224 KiB: L2, not L1),
  // parallel on 3 threads: 3 rounds of which 8 of 9 slots are busy.
  EXPECT_FLOAT_EQ(at(*matrix, 0, kIterations), std::log2(1.0 + 64 * 32 * 128));
  EXPECT_FLOAT_EQ(at(*matrix, 0, kTiles), std::log2(9.0));
  EXPECT_FLOAT_EQ(at(*matrix, 0, kFootprint),
                  std::log2(1.0 + 4 * (64 * 128 + 128 * 32 + 64 * 32)));
  EXPECT_EQ(at(*matrix, 0, kFitsL1), 0);
  EXPECT_EQ(at(*matrix, 0, kFitsL2), 1);
  EXPECT_FLOAT_EQ(at(*matrix, 0, kBalance), 8.0f / 9.0f);
  for (unsigned dim = 0; dim < 3; ++dim)
    EXPECT_EQ(at(*matrix, 0, kPartial + dim), 0);

  // Row 2: tile [8, 32, 1] inside it: 8 x 1 x 128 tiles of 8x32x1
  // iterations touching 8 + 32 + 256 floats; sequential.
  EXPECT_FLOAT_EQ(at(*matrix, 2, kIterations), std::log2(1.0 + 8 * 32));
  EXPECT_FLOAT_EQ(at(*matrix, 2, kTiles), std::log2(1.0 + 8 * 128));
  EXPECT_FLOAT_EQ(at(*matrix, 2, kFootprint),
                  std::log2(1.0 + 4 * (8 + 32 + 8 * 32)));
  EXPECT_EQ(at(*matrix, 2, kFitsL1), 1);
  EXPECT_EQ(at(*matrix, 2, kBalance), 0);

  // Row 4: vectorize 8x32 outputs with 16 lanes: 16 accumulators, half of
  // AVX-512's 32 registers, no partial vector.
  EXPECT_FLOAT_EQ(at(*matrix, 4, kAccumulators), std::log2(17.0));
  EXPECT_FLOAT_EQ(at(*matrix, 4, kPressure), 0.5f);
  EXPECT_EQ(at(*matrix, 4, kPartialVector), 0);
  // Other tokens leave the derived columns empty.
  for (unsigned col = kDerived; col < kTask; ++col) {
    EXPECT_EQ(at(*matrix, 1, col), 0) << col;
    EXPECT_EQ(at(*matrix, 5, col), 0) << col;
  }
}

TEST_F(TokenizerTest, PartialTilesAndVectorsAreFlagged) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx2"
    loops [100 parallel, 20 parallel, 64 reduction] {
  tcl.sched.tile [8, 12, 0]
  tcl.sched.vectorize
}
)mlir");
  ASSERT_TRUE(module);
  TaskFeatures task;
  task.extents = {100, 20, 64};
  FailureOr<std::vector<float>> matrix =
      Tokenizer(4).tokenize(getSchedule(*module), task);
  ASSERT_TRUE(succeeded(matrix));
  EXPECT_EQ(at(*matrix, 0, kPartial + 0), 1); // 100 = 12 x 8 + 4
  EXPECT_EQ(at(*matrix, 0, kPartial + 1), 1); // 20 = 12 + 8
  EXPECT_EQ(at(*matrix, 0, kPartial + 2), 0); // untiled
  EXPECT_FLOAT_EQ(at(*matrix, 0, kTiles), std::log2(1.0 + 13 * 2));
  // Without operand accesses the footprint is unknown, not zero bytes.
  EXPECT_EQ(at(*matrix, 0, kFootprint), 0);
  EXPECT_EQ(at(*matrix, 0, kFitsL1), 0);
  // 8 rows of 12 columns on 8 lanes: 16 accumulators, 12 % 8 != 0.
  EXPECT_FLOAT_EQ(at(*matrix, 1, kAccumulators), std::log2(17.0));
  EXPECT_FLOAT_EQ(at(*matrix, 1, kPressure), 1.0f);
  EXPECT_EQ(at(*matrix, 1, kPartialVector), 1);
}

TEST_F(TokenizerTest, ConvolutionAccessesSpanTheirWindows) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
func.func @c(%i: tensor<1x17x17x3xf32>, %f: tensor<3x3x3x8xf32>, %o: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>, tcl.task = "c"} ins(%i, %f : tensor<1x17x17x3xf32>, tensor<3x3x3x8xf32>) outs(%o : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
}
)mlir");
  ASSERT_TRUE(module);
  FailureOr<TaskFeatures> task = TaskFeatures::fromAnchor(getAnchor(*module));
  ASSERT_TRUE(succeeded(task));
  ASSERT_EQ(task->operands.size(), 3u);
  // The input's rows: 2 * oh + kh.
  using Terms = SmallVector<std::pair<unsigned, int64_t>, 2>;
  EXPECT_EQ(task->operands[0].results[1], (Terms{{1, 2}, {4, 1}}));
  // A tile of 4x4 outputs of 8 channels, the whole 3x3x3 window: input
  // (2*3 + 2 + 1)^2 x 3, filter 3x3x3x8, output 4x4x8 floats.
  double bytes = task->getFootprintBytes({1, 4, 4, 8, 3, 3, 3});
  EXPECT_DOUBLE_EQ(bytes, 4.0 * (9 * 9 * 3 + 3 * 3 * 3 * 8 + 4 * 4 * 8));
  // Unknown when the ranks disagree (after decompose).
  EXPECT_EQ(task->getFootprintBytes({1, 4, 4}), 0);
}

TEST_F(TokenizerTest, HardwareFeaturesRoundTripThroughJson) {
  HardwareFeatures hardware =
      HardwareFeatures::fromTarget(*lookupTargetArch("x86-avx2"), 1);
  hardware.cores = 2;
  hardware.l3KiB = 32768;
  hardware.peakGflops = 58.5;
  std::optional<HardwareFeatures> back =
      HardwareFeatures::fromJson(hardware.toJson());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->vectorBits, 256u);
  EXPECT_EQ(back->vectorRegisters, 16u);
  EXPECT_EQ(back->cores, 2u);
  EXPECT_EQ(back->l3KiB, 32768);
  EXPECT_EQ(back->peakGflops, 58.5);
  EXPECT_FALSE(back->isProbed());
  EXPECT_FALSE(HardwareFeatures::fromJson("[1, 2]"));
  EXPECT_FALSE(HardwareFeatures::fromJson("not json"));
}

TEST_F(TokenizerTest, RejectsInvalidSchedules) {
  OwningOpRef<ModuleOp> module = parse(kMatmulModule);
  ASSERT_TRUE(module);
  FailureOr<TaskFeatures> task = TaskFeatures::fromAnchor(getAnchor(*module));
  ScheduleOp schedule = getSchedule(*module);
  // Make the first tile illegal: larger than its loop.
  auto tile = cast<TileOp>(schedule.getBody().front().front());
  tile.setSizes({512, 32, 0});
  ScopedDiagnosticHandler silence(&context,
                                  [](Diagnostic &) { return success(); });
  EXPECT_TRUE(failed(Tokenizer().tokenize(schedule, *task)));
}

TEST_F(TokenizerTest, DecomposeTouchesDroppedDims) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
tcl.sched.schedule task "c" anchor "linalg.conv_2d_nhwc_hwcf" target "x86-sse42"
    loops [1 parallel, 56 parallel, 56 parallel, 64 parallel, 3 reduction, 3 reduction, 64 reduction] {
  tcl.sched.tile [1, 1, 8, 32, 1, 3, 64]
  tcl.sched.decompose
}
)mlir");
  ASSERT_TRUE(module);
  TaskFeatures task;
  task.anchorClass = AnchorClass::Conv2D;
  task.extents = {1, 56, 56, 64, 3, 3, 64};
  FailureOr<std::vector<float>> matrix =
      Tokenizer(4).tokenize(getSchedule(*module), task);
  ASSERT_TRUE(succeeded(matrix));
  EXPECT_EQ(at(*matrix, 1, static_cast<unsigned>(PrimitiveKind::Decompose)), 1);
  EXPECT_EQ(at(*matrix, 1, kTouched + 1), 1); // output height, extent 1
  EXPECT_EQ(at(*matrix, 1, kTouched + 4), 1); // kernel height, extent 1
  EXPECT_EQ(at(*matrix, 1, kTouched + 2), 0);
  EXPECT_EQ(at(*matrix, 1, kTask + 2), 1);     // Conv2D
  EXPECT_EQ(at(*matrix, 1, kHardware + 0), 1); // SSE4.2
}

} // namespace

// On a GPU, a matmul's inputs in shared memory are a pad token (two
// operands, no hoist) between the steps' level (sequential) and the
// register tile's: the cost model reads them as it reads CPU packing.
TEST_F(TokenizerTest, GpuSharedMemoryIsAPadToken) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
func.func @mm(%a: tensor<256x128xf32>, %b: tensor<128x64xf32>, %c: tensor<256x64xf32>) -> tensor<256x64xf32> {
  %0 = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<256x128xf32>, tensor<128x64xf32>) outs(%c : tensor<256x64xf32>) -> tensor<256x64xf32>
  return %0 : tensor<256x64xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "nvptx-sm90"
    loops [256 parallel, 64 parallel, 128 reduction] {
  tcl.sched.tile [64, 64, 0]
  tcl.sched.parallelize blocks
  tcl.sched.tile [4, 4, 0]
  tcl.sched.parallelize threads
  tcl.sched.tile [0, 0, 16]
  tcl.sched.pad [0, 1]
  tcl.sched.tile [0, 0, 1]
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}
)mlir");
  ASSERT_TRUE(module);
  FailureOr<TaskFeatures> task = TaskFeatures::fromAnchor(getAnchor(*module));
  ASSERT_TRUE(succeeded(task));
  FailureOr<std::vector<float>> matrix =
      Tokenizer(/*maxLength=*/12).tokenize(getSchedule(*module), *task);
  ASSERT_TRUE(succeeded(matrix));
  const unsigned pad = static_cast<unsigned>(PrimitiveKind::Pad);
  EXPECT_EQ(at(*matrix, 4, kScalar + 5), 0); // the steps: sequential
  EXPECT_EQ(at(*matrix, 5, pad), 1);
  EXPECT_EQ(at(*matrix, 5, kScalar + 2), 2); // padded operands
  EXPECT_EQ(at(*matrix, 5, kScalar + 3), 0); // hoisted loops
  EXPECT_EQ(at(*matrix, 6, static_cast<unsigned>(PrimitiveKind::Tile)), 1);
  EXPECT_EQ(at(*matrix, 0, kHardware + 5), 1); // GPU flag
}
