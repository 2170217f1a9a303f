//===- OnlineStudyTest.cpp - The search's loop without its noise ----------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/OnlineStudy.h"
#include "FeatureModel.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tcl;
using namespace mlir::tcl::test;

namespace {

/// Two tasks of six programs; program i of a task runs at throughput
/// i + 1 (its latency 1 / (i + 1)). A program's first feature is its
/// throughput times `sign`, so the FeatureModel scores it fastest first
/// (sign 1) or slowest first (sign -1).
std::vector<FeaturizedGroup> makeTasks(float sign) {
  std::vector<FeaturizedGroup> groups(2);
  for (auto [index, group] : llvm::enumerate(groups)) {
    group.workloadKey = "task" + std::to_string(index);
    group.platform = "p";
    for (int program = 0; program < 6; ++program) {
      group.features.push_back({sign * float(program + 1), 0.0f});
      group.latencies.push_back(1.0 / (program + 1));
    }
  }
  return groups;
}

/// A FeatureModel that keeps what its last update was given.
class RecordingModel : public FeatureModel {
public:
  explicit RecordingModel(std::vector<CostSample> *last) : last(last) {}
  llvm::Error update(llvm::ArrayRef<CostSample> samples) override {
    last->assign(samples.begin(), samples.end());
    return llvm::Error::success();
  }

private:
  std::vector<CostSample> *last;
};

std::function<llvm::Expected<std::unique_ptr<CostModel>>()>
makes(std::function<std::unique_ptr<CostModel>()> make) {
  return
      [make]() -> llvm::Expected<std::unique_ptr<CostModel>> { return make(); };
}

TEST(ClosedLoop, EachModelMeasuresWhatItScoresBest) {
  std::vector<FeaturizedGroup> fastestFirst = makeTasks(1),
                               slowestFirst = makeTasks(-1), training;
  std::vector<CostSample> lastUpdate;
  std::vector<OnlineContender> contenders = {
      {"knows", makes([] { return std::make_unique<FeatureModel>(); }),
       training, fastestFirst, /*learns=*/false},
      {"backwards", makes([] { return std::make_unique<FeatureModel>(); }),
       training, slowestFirst, /*learns=*/false},
      {"records",
       makes([&] { return std::make_unique<RecordingModel>(&lastUpdate); }),
       training, slowestFirst}};
  ClosedLoopOptions options;
  options.batch = 2;
  options.rounds = 4;
  auto rows = runClosedLoopStudy(contenders, options);
  ASSERT_TRUE(bool(rows)) << llvm::toString(rows.takeError());
  ASSERT_EQ(rows->size(), 12u);

  // Rows by round, then contender; two programs a task a round, until the
  // six are measured.
  for (auto [index, row] : llvm::enumerate(*rows)) {
    EXPECT_EQ(row.contender, contenders[index % 3].name);
    EXPECT_EQ(row.measured, std::min<unsigned>(2 * (index / 3 + 1), 6));
  }
  const ClosedLoopRow &knows = (*rows)[0];
  EXPECT_EQ(knows.found, 1.0);
  EXPECT_EQ(knows.foundBest, 1.0);
  // Slowest first: throughputs 1 and 2 of 6, then 3 and 4, then all.
  for (unsigned round : {0, 1, 2}) {
    const ClosedLoopRow &backwards = (*rows)[3 * round + 1];
    EXPECT_DOUBLE_EQ(backwards.found, (2.0 * round + 2) / 6) << round;
    EXPECT_EQ(backwards.foundBest, round == 2 ? 1.0 : 0.0) << round;
  }
  EXPECT_EQ((*rows)[0].updateSeconds, 0.0);

  // The learner was given what was measured of each task, labelled
  // relative to the best measured so far (the fourth round measured
  // nothing new: each task's throughputs 1..6, the best labelled 1).
  ASSERT_EQ(lastUpdate.size(), 12u);
  for (unsigned task : {0u, 1u}) {
    std::vector<float> labels;
    for (const CostSample &sample : lastUpdate)
      if (sample.group == task)
        labels.push_back(sample.label);
    ASSERT_EQ(labels.size(), 6u);
    EXPECT_EQ(*llvm::max_element(labels), 1.0f);
    EXPECT_FLOAT_EQ(*llvm::min_element(labels), 1.0f / 6);
  }
}

TEST(ClosedLoop, BadInputsAreErrors) {
  std::vector<FeaturizedGroup> groups = makeTasks(1), training;
  std::vector<FeaturizedGroup> other = makeTasks(1);
  other[1].latencies[0] = 2.0;
  auto make = makes([] { return std::make_unique<FeatureModel>(); });
  std::vector<OnlineContender> contenders = {{"first", make, training, groups},
                                             {"second", make, training, other}};
  auto differ = runClosedLoopStudy(contenders, ClosedLoopOptions());
  ASSERT_FALSE(bool(differ));
  EXPECT_EQ(llvm::toString(differ.takeError()),
            "second: its groups differ from first's");

  contenders.pop_back();
  ClosedLoopOptions noBatch;
  noBatch.batch = 0;
  auto empty = runClosedLoopStudy(contenders, noBatch);
  ASSERT_FALSE(bool(empty));
  EXPECT_NE(llvm::toString(empty.takeError()).find("batch 0"),
            std::string::npos);
}

} // namespace
