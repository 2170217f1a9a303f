//===- CollectTest.cpp - Random tasks and the load guard ------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/Collect.h"
#include "tcl/Registration/Registration.h"
#include "tcl/Transforms/TaskExtraction.h"
#include "tcl/Tuning/SearchSpace.h"

#include "../Support/TclTest.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>
#include <set>

using namespace mlir;
using namespace mlir::tcl;

namespace {

/// Guard options for tests: short windows, no reference kernel.
LoadGuardOptions fastGuardOptions() {
  LoadGuardOptions options;
  options.quietWindowSeconds = 0.05;
  options.maxWaitSeconds = 5;
  options.referenceEvery = 0;
  return options;
}

class CollectTest : public test::TclTest {
protected:
};

TEST_F(CollectTest, RandomTasksAreReproducibleAndSearchable) {
  std::string text = generateRandomTasks(60, /*seed=*/7);
  EXPECT_EQ(text, generateRandomTasks(60, 7));
  EXPECT_NE(text, generateRandomTasks(60, 8));
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(module);
  std::vector<TaskSummary> tasks = extractTasks(*module);
  // Shapes may repeat; most do not.
  EXPECT_GT(tasks.size(), 50u);
  std::set<std::string> anchors;
  unsigned withEpilogue = 0;
  for (const TaskSummary &task : tasks) {
    anchors.insert(task.anchorName);
    withEpilogue += task.epilogueOps > 0;
    EXPECT_GE(task.flops, 1e5) << task.key;
    EXPECT_LE(task.flops, 3e8) << task.key;
    // Every task has a search space on every CPU platform.
    auto workload = extractTaskWorkload(*module, task.name, "task", "task");
    ASSERT_TRUE(succeeded(workload));
    auto anchor = cast<linalg::LinalgOp>(findTaskAnchor(**workload));
    for (llvm::StringRef target : {"x86-avx512", "x86-sse42"})
      EXPECT_TRUE(SearchSpace::create(anchor,
                                      Platform(*lookupTargetArch(target)),
                                      task.epilogueOps > 0))
          << task.key;
  }
  for (llvm::StringRef anchor :
       {"linalg.matmul", "linalg.batch_matmul", "linalg.conv_2d_nhwc_hwcf",
        "linalg.depthwise_conv_2d_nhwc_hwc"})
    EXPECT_TRUE(anchors.count(anchor.str())) << anchor.str();
  EXPECT_TRUE(anchors.count("linalg.pooling_nhwc_max") ||
              anchors.count("linalg.pooling_nhwc_sum"));
  EXPECT_GT(withEpilogue, 0u);
}

// The cost models' data must cover the deep layers' convolutions, whose
// weights do not fit the L2 (4 MB and more): drawn only uniformly over
// channels and maps under the FLOP cap, as before, these 200 tasks held
// none.
// A workload takes its anchor's init along when the model computes it from
// nothing: a fill of tensor.empty, or of a reshaped one (a 1x1 convolution
// done as a matmul). As an argument, the workload would accumulate onto it
// and time code without the fill the model runs. A real tensor stays an
// argument.
TEST_F(CollectTest, WorkloadsTakeTheirInitFillAlong) {
  const char *text = R"mlir(
    func.func @graph(%a: tensor<1x7x7x8xf32>, %w: tensor<8x16xf32>, %v: tensor<8x32xf32>, %c: tensor<49x32xf32>) -> (tensor<49x16xf32>, tensor<49x32xf32>) {
      %zero = arith.constant 0.0 : f32
      %x = tensor.collapse_shape %a [[0, 1, 2], [3]] : tensor<1x7x7x8xf32> into tensor<49x8xf32>
      %e = tensor.empty() : tensor<1x7x7x16xf32>
      %ce = tensor.collapse_shape %e [[0, 1, 2], [3]] : tensor<1x7x7x16xf32> into tensor<49x16xf32>
      %init = linalg.fill ins(%zero : f32) outs(%ce : tensor<49x16xf32>) -> tensor<49x16xf32>
      %0 = linalg.matmul ins(%x, %w : tensor<49x8xf32>, tensor<8x16xf32>) outs(%init : tensor<49x16xf32>) -> tensor<49x16xf32>
      %1 = linalg.matmul ins(%x, %v : tensor<49x8xf32>, tensor<8x32xf32>) outs(%c : tensor<49x32xf32>) -> tensor<49x32xf32>
      return %0, %1 : tensor<49x16xf32>, tensor<49x32xf32>
    })mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(module);
  std::vector<TaskSummary> tasks = extractTasks(*module);
  ASSERT_EQ(tasks.size(), 2u);
  const bool initIsArgumentOf[] = {false, true};
  for (auto [task, initIsArgument] : llvm::zip_equal(tasks, initIsArgumentOf)) {
    auto workload = extractTaskWorkload(*module, task.name, "task", "task");
    ASSERT_TRUE(succeeded(workload));
    auto anchor = cast<linalg::LinalgOp>(findTaskAnchor(**workload));
    Value init = anchor.getDpsInitOperand(0)->get();
    EXPECT_EQ(isa<BlockArgument>(init), initIsArgument) << task.name;
    EXPECT_EQ(init.getDefiningOp<linalg::FillOp>() != nullptr, !initIsArgument)
        << task.name;
    // The matmul's input and weights are arguments either way.
    auto func = anchor->getParentOfType<FunctionOpInterface>();
    EXPECT_EQ(func.getNumArguments(), initIsArgument ? 3u : 2u) << task.name;
  }
}

TEST_F(CollectTest, RandomTasksCoverDeepConvolutions) {
  std::string text = generateRandomTasks(200, /*seed=*/1);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(module);
  unsigned large = 0;
  module->walk([&](linalg::Conv2DNhwcHwcfOp conv) {
    auto filter = cast<RankedTensorType>(conv.getInputs()[1].getType());
    large += filter.getNumElements() * 4 > (4 << 20);
  });
  EXPECT_GE(large, 3u);
}

TEST_F(CollectTest, ReferenceInputIsAMatmul) {
  MeasureInput input =
      makeReferenceInput(Platform(*lookupTargetArch("x86-avx2"), 2));
  EXPECT_EQ(input.platform.getName(), "x86-avx2/2t");
  EXPECT_EQ(input.workload, input.candidate);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(input.workload, &context);
  ASSERT_TRUE(module);
  EXPECT_EQ(extractTasks(*module).size(), 1u);
}

/// A load environment that reads a script instead of the machine: each
/// window started reads the next load of `loads` (then 0), and sleeping
/// only advances its clock. Tests of the guard then assert the same on an
/// idle and on a busy machine.
class ScriptedLoad : public LoadEnvironment {
public:
  explicit ScriptedLoad(std::vector<double> loads) : loads(std::move(loads)) {}
  std::function<double()> startWindow() override {
    double load = windows < loads.size() ? loads[windows] : 0;
    ++windows;
    return [load] { return load; };
  }
  double nowSeconds() override { return clock; }
  void sleep(double seconds) override { clock += seconds; }

  std::vector<double> loads;
  size_t windows = 0;
  double clock = 0;
};

MeasureFn countingMeasure(unsigned &calls) {
  return [&calls](llvm::ArrayRef<MeasureInput> batch) {
    ++calls;
    return std::vector<MeasureResult>(batch.size());
  };
}

/// A batch during which other processes kept a core busy is measured
/// again, after a quiet window.
TEST_F(CollectTest, LoadGuardRemeasuresDisturbedBatches) {
  // Windows: quiet wait, the batch (disturbed), quiet wait, the batch again.
  ScriptedLoad load({0, 1.0, 0, 0});
  unsigned calls = 0;
  LoadGuardStats stats;
  MeasureFn guarded = guardAgainstLoad(countingMeasure(calls), MeasureInput(),
                                       fastGuardOptions(), stats, nullptr, load);
  MeasureInput input;
  std::vector<MeasureResult> results = guarded({input, input});
  EXPECT_EQ(results.size(), 2u);
  EXPECT_EQ(calls, 2u);
  EXPECT_EQ(stats.remeasured, 1u);
  EXPECT_EQ(stats.batches, 1u);
  // A quiet window before the first batch and after the disturbed one.
  EXPECT_EQ(stats.quietWindows, 2u);
  EXPECT_EQ(load.windows, 4u);
}

/// After a quiet batch the next starts without waiting for a quiet window.
TEST_F(CollectTest, LoadGuardWaitsOnlyAfterDisturbance) {
  ScriptedLoad load({});
  unsigned calls = 0;
  LoadGuardStats stats;
  MeasureFn guarded = guardAgainstLoad(countingMeasure(calls), MeasureInput(),
                                       fastGuardOptions(), stats, nullptr, load);
  MeasureInput input;
  for (int batch = 0; batch < 3; ++batch)
    EXPECT_EQ(guarded({input}).size(), 1u);
  EXPECT_EQ(stats.batches, 3u);
  EXPECT_EQ(stats.quietWindows, 1u);
  EXPECT_EQ(calls, 3u);
}

/// The guard waits window after window while the machine is busy, and
/// gives up with an error after maxWaitSeconds (of the injected clock: the
/// test takes no time).
TEST_F(CollectTest, WaitForQuietMachineWaitsThenGivesUp) {
  LoadGuardOptions options = fastGuardOptions();
  options.quietWindowSeconds = 2;
  options.maxWaitSeconds = 60;
  ScriptedLoad busyThenQuiet({1.0, 0.5, 0.1});
  LoadGuardStats stats;
  std::string log;
  llvm::raw_string_ostream logStream(log);
  EXPECT_FALSE(
      bool(waitForQuietMachine(options, stats, &logStream, busyThenQuiet)));
  EXPECT_EQ(stats.quietWindows, 3u);
  EXPECT_DOUBLE_EQ(stats.waitedSeconds, 6);
  EXPECT_NE(log.find("machine busy (1.00 foreign cores): waiting"),
            std::string::npos);
  EXPECT_NE(log.find("machine quiet again after 6 s"), std::string::npos);

  ScriptedLoad alwaysBusy(std::vector<double>(1000, 2.0));
  LoadGuardStats busyStats;
  llvm::Error error =
      waitForQuietMachine(options, busyStats, nullptr, alwaysBusy);
  ASSERT_TRUE(bool(error));
  EXPECT_EQ(llvm::toString(std::move(error)),
            "the machine stayed busy for 62 s");
  EXPECT_EQ(busyStats.quietWindows, 31u);
}

/// The reference kernel is timed when the machine is quiet; a timing more
/// than the tolerance above its baseline makes collection wait (30 s of
/// the injected clock) and time it again.
TEST_F(CollectTest, LoadGuardWaitsWhileTheReferenceIsSlow) {
  LoadGuardOptions options = fastGuardOptions();
  options.referenceEvery = 2;
  ScriptedLoad load({});
  // Reference timings: three for the baseline (best 1.0), then a slow one
  // (1.5 > 1.15 x 1.0) and one within the tolerance.
  std::vector<double> referenceSeconds = {1.0, 1.1, 1.05, 1.5, 1.1};
  size_t referenceRuns = 0;
  unsigned batches = 0;
  MeasureInput reference =
      makeReferenceInput(Platform(*lookupTargetArch("x86-sse42")));
  MeasureFn measure = [&](llvm::ArrayRef<MeasureInput> batch) {
    std::vector<MeasureResult> results(batch.size());
    if (batch.size() == 1 && batch[0].workload == reference.workload) {
      results[0].status = MeasureStatus::Ok;
      results[0].medianSeconds = referenceSeconds.at(referenceRuns++);
    } else {
      ++batches;
    }
    return results;
  };
  LoadGuardStats stats;
  MeasureFn guarded =
      guardAgainstLoad(measure, reference, options, stats, nullptr, load);
  MeasureInput input;
  for (int batch = 0; batch < 3; ++batch)
    guarded({input});
  EXPECT_EQ(batches, 3u);
  EXPECT_EQ(referenceRuns, 5u);
  EXPECT_EQ(stats.referenceTimings, 5u);
  EXPECT_EQ(stats.referenceWaits, 1u);
  EXPECT_DOUBLE_EQ(stats.referenceSeconds, 1.1);
  EXPECT_GE(load.clock, 30);
}

} // namespace
