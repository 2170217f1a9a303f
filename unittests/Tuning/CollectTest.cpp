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

#include "../Support/ForeignLoad.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <chrono>
#include <gtest/gtest.h>
#include <set>
#include <thread>

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
      EXPECT_TRUE(SearchSpace::create(anchor, *lookupPlatform(target), 1,
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

TEST_F(CollectTest, ReferenceInputIsAMatmul) {
  MeasureInput input = makeReferenceInput("x86-avx2", 2);
  EXPECT_EQ(input.target, "x86-avx2");
  EXPECT_EQ(input.numThreads, 2u);
  EXPECT_EQ(input.workload, input.candidate);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(input.workload, &context);
  ASSERT_TRUE(module);
  EXPECT_EQ(extractTasks(*module).size(), 1u);
}

/// A batch during which another process group kept a core busy is measured
/// again.
TEST_F(CollectTest, LoadGuardRemeasuresDisturbedBatches) {
  unsigned calls = 0;
  MeasureFn disturbed = [&](llvm::ArrayRef<MeasureInput> batch) {
    if (calls++ == 0) {
      pid_t child =
          test::spinInOtherProcessGroup(std::chrono::milliseconds(600));
      // Reaped after the guard's monitor has read it (below, next call).
      std::thread([child] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        test::reap(child);
      }).detach();
    }
    return std::vector<MeasureResult>(batch.size());
  };
  LoadGuardOptions options = fastGuardOptions();
  LoadGuardStats stats;
  MeasureFn guarded =
      guardAgainstLoad(disturbed, MeasureInput(), options, stats, nullptr);
  MeasureInput input;
  std::vector<MeasureResult> results = guarded({input, input});
  EXPECT_EQ(results.size(), 2u);
  EXPECT_GE(calls, 2u);
  EXPECT_GE(stats.remeasured, 1u);
  EXPECT_EQ(stats.batches, 1u);
  // A quiet window before the first batch and after each disturbed one.
  EXPECT_EQ(stats.quietWindows, 1u + stats.remeasured);
}

/// After a quiet batch the next starts without waiting for a quiet window.
TEST_F(CollectTest, LoadGuardWaitsOnlyAfterDisturbance) {
  MeasureFn quiet = [](llvm::ArrayRef<MeasureInput> batch) {
    return std::vector<MeasureResult>(batch.size());
  };
  LoadGuardOptions options = fastGuardOptions();
  // Whatever else runs on the test machine is tolerated.
  options.maxForeignCores = 1e9;
  LoadGuardStats stats;
  MeasureFn guarded =
      guardAgainstLoad(quiet, MeasureInput(), options, stats, nullptr);
  MeasureInput input;
  for (int batch = 0; batch < 3; ++batch)
    EXPECT_EQ(guarded({input}).size(), 1u);
  EXPECT_EQ(stats.batches, 3u);
  EXPECT_EQ(stats.quietWindows, 1u);
}

} // namespace
