//===- MetricsTest.cpp - Ranking metrics on hand-computed cases -----------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/Metrics.h"
#include "FeatureModel.h"
#include "tcl/Tuning/Evaluation.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>

using namespace mlir::tcl;

namespace {
const double kFailed = std::numeric_limits<double>::infinity();

/// Throughputs 1, 1/2, 1/4, 0; the model ranks them 2nd, 4th, 3rd, 1st.
RankedGroup groupA() { return {{0.1, 0.9, 0.5, 0.7}, {1, 2, 4, kFailed}, 1}; }

TEST(MetricsTest, TopKScore) {
  RankedGroup a = groupA();
  EXPECT_DOUBLE_EQ(topKScore({a}, 1), 0.5); // picks latency 2; best is 1
  EXPECT_DOUBLE_EQ(topKScore({a}, 3), 0.5); // 2, failed, 4
  EXPECT_DOUBLE_EQ(topKScore({a}, 4), 1.0);
  // Weighted mean over tasks: (1 * 1/2 + 2 * 1) / 3.
  RankedGroup b{{0.2, 0.8}, {3, 1}, 2};
  EXPECT_DOUBLE_EQ(topKScore({a, b}, 1), 2.5 / 3);
  // A task whose top pick failed scores 0.
  RankedGroup c{{0.9, 0.1}, {kFailed, 1}, 1};
  EXPECT_DOUBLE_EQ(topKScore({c}, 1), 0.0);
  EXPECT_DOUBLE_EQ(topKScore({a, c}, 1), 0.25);
}

TEST(MetricsTest, PairwiseAccuracy) {
  // Of the 6 pairs, (1,2) and (1,3) are ordered right.
  EXPECT_DOUBLE_EQ(pairwiseAccuracy(groupA()), 2.0 / 6.0);
  RankedGroup perfect{{4, 3, 2, 1}, {1, 2, 4, kFailed}, 1};
  EXPECT_DOUBLE_EQ(pairwiseAccuracy(perfect), 1.0);
}

TEST(MetricsTest, Spearman) {
  EXPECT_DOUBLE_EQ(spearman({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(spearman({1, 2, 3, 4}, {40, 30, 20, 10}), -1.0);
  // Ties share their average rank: ranks (1,2,3) vs (1.5,1.5,3).
  EXPECT_NEAR(spearman({1, 2, 3}, {5, 5, 7}), 1.5 / std::sqrt(3.0), 1e-12);
}

TEST(MetricsTest, NdcgAtK) {
  // Relevance 1, 1/2, 1/4, 0. Ideal top 2: 1 + 0.5/log2(3); the model's:
  // 0.5 + 0.
  double ideal = 1 + 0.5 / std::log2(3.0);
  EXPECT_NEAR(ndcgAtK(groupA(), 2), 0.5 / ideal, 1e-12);
  RankedGroup perfect{{4, 3, 2, 1}, {1, 2, 4, kFailed}, 1};
  EXPECT_DOUBLE_EQ(ndcgAtK(perfect, 3), 1.0);
}

TEST(MetricsTest, RankHeldOutScoresEachGroup) {
  // The first group's pick is its best program; the second's, latency 4
  // where 1 was best; the third's failed.
  FeaturizedGroup right{"a", "p", 0, {{2}, {1}}, {1, 2}, {}};
  FeaturizedGroup wrong{"b", "p", 0, {{1}, {2}}, {1, 4}, {}};
  FeaturizedGroup failed{"c", "p", 0, {{1}, {2}}, {1, kFailed}, {}};
  test::FeatureModel model;
  CostModelEvaluation result = rankHeldOut(model, {right, wrong, failed});
  ASSERT_EQ(result.groupTop1.size(), 3u);
  EXPECT_DOUBLE_EQ(result.groupTop1[0], 1.0);
  EXPECT_DOUBLE_EQ(result.groupTop1[1], 0.25);
  EXPECT_DOUBLE_EQ(result.groupTop1[2], 0.0);
  EXPECT_DOUBLE_EQ(result.top1, 1.25 / 3);
}

TEST(MetricsTest, TrainingProgramsLabelsAndNoise) {
  // Three programs featurized from records 2, 0 and 1 (median timings 2, 1
  // and 4; the last failed); record 0's runs spread 50 %.
  std::vector<TuningRecord> records(3);
  records[0].minSeconds = 0.75;
  records[0].medianSeconds = 1;
  records[0].maxSeconds = 1.25;
  records[1].status = "compile-error";
  records[2].minSeconds = 1.9;
  records[2].medianSeconds = 2;
  records[2].maxSeconds = 2.1;
  FeaturizedGroup group{"a",      "p", 0, {{1}, {2}, {3}}, {2, 1, kFailed},
                        {2, 0, 1}};

  FeaturizedGroup same = trainingPrograms(group, records, {});
  EXPECT_EQ(same.latencies, group.latencies);
  EXPECT_EQ(same.recordIndices, group.recordIndices);

  TrainingLabelOptions fastest;
  fastest.fastestRun = true;
  FeaturizedGroup fast = trainingPrograms(group, records, fastest);
  EXPECT_EQ(fast.latencies, (std::vector<double>{1.9, 0.75, kFailed}));
  // A record without a fastest run keeps its median.
  records[2].minSeconds = 0;
  EXPECT_EQ(trainingPrograms(group, records, fastest).latencies,
            (std::vector<double>{2, 0.75, kFailed}));
  records[2].minSeconds = 1.9;

  TrainingLabelOptions quiet;
  quiet.maxSpread = 0.2;
  FeaturizedGroup kept = trainingPrograms(group, records, quiet);
  EXPECT_EQ(kept.recordIndices, (std::vector<size_t>{2, 1}));
  EXPECT_EQ(kept.latencies, (std::vector<double>{2, kFailed}));
  EXPECT_EQ(kept.features, (std::vector<std::vector<float>>{{1}, {3}}));
}
} // namespace
