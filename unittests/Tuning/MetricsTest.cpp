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
} // namespace
