//===- LossTest.cpp - LambdaRank loss and gradients -----------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "Losses.h"

#include "tcl/Tuning/Learned/RankingModel.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>

using namespace mlir::tcl::learned;

namespace {

// Three programs, labels (1, 0.5, 0), scores (0, 1, 2): the model ranks
// them exactly backwards. sigma = 1.
//
// Ranks by score: program 2 first, 1 second, 0 third, so the discounts
// 1 / log2(1 + rank) are d0 = 1/2, d1 = 1/log2(3) = 0.630930, d2 = 1.
// Ideal DCG (labels sorted): 1/1 + 0.5/log2(3) + 0 = 1.315465.
// Pairs with label_i > label_j and their weights |Δl (d_i - d_j)| / IDCG:
//   (0,1): 0.5 * 0.130930 / 1.315465 = 0.049766
//   (0,2): 1.0 * 0.5      / 1.315465 = 0.380094
//   (1,2): 0.5 * 0.369070 / 1.315465 = 0.140281
// lambda_ij = w sigma / (1 + exp(s_i - s_j)) with s_i - s_j = -1, -2, -1:
//   (0,1): 0.049766 * 0.731059 = 0.036382
//   (0,2): 0.380094 * 0.880797 = 0.334785
//   (1,2): 0.140281 * 0.731059 = 0.102554
// Gradient: the higher-labelled program of a pair gets -lambda, the other
// +lambda:
//   g0 = -0.036382 - 0.334785 = -0.371167
//   g1 = +0.036382 - 0.102554 = -0.066172
//   g2 = +0.334785 + 0.102554 = +0.437339
// Loss: Σ w log(1 + exp(-(s_i - s_j))), log(1 + e) = 1.313262,
//   log(1 + e^2) = 2.126928: 0.065355 + 0.808434 + 0.184225 = 1.058013.
TEST(LambdaRank, HandComputedThreePrograms) {
  std::vector<double> scores = {0, 1, 2}, labels = {1, 0.5, 0};
  std::vector<double> g = lambdaRankGradients(scores, labels, 1.0);
  ASSERT_EQ(g.size(), 3u);
  EXPECT_NEAR(g[0], -0.371167, 2e-6);
  EXPECT_NEAR(g[1], -0.066172, 2e-6);
  EXPECT_NEAR(g[2], 0.437339, 2e-6);
  EXPECT_NEAR(lambdaRankLoss(scores, labels, 1.0), 1.058013, 2e-6);
}

TEST(LambdaRank, NothingToLearnFromEqualOrZeroLabels) {
  std::vector<double> scores = {0.3, -1, 2};
  for (std::vector<double> labels :
       {std::vector<double>{0, 0, 0}, std::vector<double>{0.5, 0.5, 0.5}}) {
    EXPECT_EQ(lambdaRankLoss(scores, labels, 1.0), 0.0);
    for (double g : lambdaRankGradients(scores, labels, 1.0))
      EXPECT_EQ(g, 0.0);
    torch::Tensor s = torch::tensor(scores, torch::kDouble).requires_grad_();
    torch::Tensor loss =
        lambdaRankLossTensor(s, torch::tensor(labels, torch::kDouble), 1.0);
    EXPECT_EQ(loss.item<double>(), 0.0);
  }
}

// The torch loss (what training differentiates) and the plain loss and
// gradients agree, on random groups with ties and failed (0) programs.
TEST(LambdaRank, AgreesWithAutogradOfTheTorchLoss) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> uniform(0, 1);
  std::normal_distribution<double> normal(0, 2);
  for (int trial = 0; trial < 20; ++trial) {
    size_t n = 2 + trial % 9;
    double sigma = trial % 2 ? 1.0 : 2.5;
    // Linear gains, and gains sharpened toward the fastest programs.
    double sharpness = trial % 3 == 0 ? 0.0 : trial % 3 == 1 ? 6.0 : 1.5;
    std::vector<double> scores(n), labels(n);
    for (size_t i = 0; i < n; ++i) {
      scores[i] = normal(rng);
      double u = uniform(rng);
      // Some failures, some ties, otherwise relative throughput.
      labels[i] = u < 0.2 ? 0.0 : u < 0.35 ? 0.5 : uniform(rng);
    }
    torch::Tensor s = torch::tensor(scores, torch::kDouble).requires_grad_();
    torch::Tensor loss = lambdaRankLossTensor(
        s, torch::tensor(labels, torch::kDouble), sigma, sharpness);
    loss.backward();
    EXPECT_NEAR(loss.item<double>(),
                lambdaRankLoss(scores, labels, sigma, sharpness), 1e-12);
    std::vector<double> expected =
        lambdaRankGradients(scores, labels, sigma, sharpness);
    torch::Tensor grad = s.grad();
    for (size_t i = 0; i < n; ++i)
      EXPECT_NEAR(grad[i].item<double>(), expected[i], 1e-12)
          << "trial " << trial << " program " << i;
  }
}

// Within a fixed ranking the weights are constants, so the plain gradient
// is the derivative of the plain loss: check it by finite differences.
TEST(LambdaRank, GradientsMatchFiniteDifferences) {
  std::vector<double> scores = {0.4, -1.3, 2.2, 0.9, -0.2};
  std::vector<double> labels = {0.8, 1.0, 0.0, 0.3, 0.55};
  std::vector<double> g = lambdaRankGradients(scores, labels, 1.5);
  const double eps = 1e-6;
  for (size_t i = 0; i < scores.size(); ++i) {
    std::vector<double> up = scores, down = scores;
    up[i] += eps;
    down[i] -= eps;
    double numeric =
        (lambdaRankLoss(up, labels, 1.5) - lambdaRankLoss(down, labels, 1.5)) /
        (2 * eps);
    EXPECT_NEAR(g[i], numeric, 1e-7);
  }
}

// Sharpened gains keep the ends (0 and 1) and the order, and make the
// fastest programs stand out: the pair at the top outweighs a pair with the
// same label gap lower down, which linear gains weigh alike.
TEST(LambdaRank, SharpenedGainsFavorTheTop) {
  EXPECT_EQ(rankingGain(0.7, 0), 0.7);
  for (double k : {1.0, 6.0, 12.0}) {
    EXPECT_NEAR(rankingGain(0, k), 0, 1e-15);
    EXPECT_NEAR(rankingGain(1, k), 1, 1e-15);
    EXPECT_LT(rankingGain(0.5, k), rankingGain(0.6, k));
    EXPECT_GT(rankingGain(1.0, k) - rankingGain(0.9, k),
              rankingGain(0.6, k) - rankingGain(0.5, k));
  }
  EXPECT_NEAR(rankingGain(0.9, 8), (std::exp2(7.2) - 1) / 255, 1e-12);
  // One group; the scores swap either its top pair (1.0 and 0.9) or its
  // bottom pair (0.6 and 0.5), far apart so that only the swapped pair
  // costs. Linear gains weigh the two gaps alike (the ratio is the
  // discounts'); sharpened ones weigh the top swap several times more.
  std::vector<double> labels = {1.0, 0.9, 0.6, 0.5};
  auto ratio = [&](double k) {
    return lambdaRankLoss({30, 40, 20, 10}, labels, 1.0, k) /
           lambdaRankLoss({40, 30, 10, 20}, labels, 1.0, k);
  };
  auto d = [](int rank) { return 1 / std::log2(1.0 + rank); };
  EXPECT_NEAR(ratio(0), (d(1) - d(2)) / (d(3) - d(4)), 1e-3);
  EXPECT_GT(ratio(6), 3 * ratio(0));
}

TEST(LambdaRank, NamesRoundTrip) {
  for (ModelKind kind :
       {ModelKind::Mamba, ModelKind::Transformer, ModelKind::MLP})
    EXPECT_EQ(parseModelKind(getModelKindName(kind)), kind);
  EXPECT_EQ(getModelKindName(ModelKind::Transformer), "tlp");
  EXPECT_FALSE(parseModelKind("lstm"));
  EXPECT_EQ(parseLossKind("lambdarank"), LossKind::LambdaRank);
  EXPECT_EQ(parseLossKind("mse"), LossKind::MSE);
  for (LossKind kind :
       {LossKind::LambdaRank, LossKind::MSE, LossKind::LambdaRankMSE})
    EXPECT_EQ(parseLossKind(getLossKindName(kind)), kind);
  EXPECT_EQ(getLossKindName(LossKind::LambdaRankMSE), "lambdarank+mse");
  EXPECT_FALSE(parseLossKind("rank"));
}

} // namespace
