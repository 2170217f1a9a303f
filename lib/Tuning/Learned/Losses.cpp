//===- Losses.cpp - Ranking losses ----------------------------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// LambdaRank (Burges et al.) weighs the pairwise logistic loss of each pair
// of programs of a task by |ΔNDCG|, how much NDCG would change if the two
// swapped places in the current ranking. Pairs that decide the top of the
// ranking weigh most, which is what a search that measures only its top
// candidates needs. Labels are throughput relative to the task's best, in
// [0, 1]. The gain of a program is its label (linear in speed), or with a
// sharpness k > 0 (2^(k label) - 1) / (2^k - 1): still 0 and 1 at the ends,
// but the fastest programs stand out (k = 8: 1.0 -> 1, 0.9 -> 0.57,
// 0.5 -> 0.06), so the loss spends itself on the top of the order. The
// textbook 2^label - 1 would barely separate 0.9 from 1.0.
//
//===----------------------------------------------------------------------===//

#include "Losses.h"

#include "tcl/Tuning/Learned/LambdaRank.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <numeric>

using namespace mlir::tcl::learned;

double mlir::tcl::learned::rankingGain(double label, double sharpness) {
  if (!(sharpness > 0))
    return label;
  return std::expm1(sharpness * label * M_LN2) / std::expm1(sharpness * M_LN2);
}

namespace {

std::vector<double> gainsOf(llvm::ArrayRef<double> labels, double sharpness) {
  std::vector<double> gains;
  for (double label : labels)
    gains.push_back(rankingGain(label, sharpness));
  return gains;
}

/// 1 / log2(1 + rank) of each program, rank = 1-based position by
/// descending score, ties by index. NaN scores rank last.
std::vector<double> discountsByScore(llvm::ArrayRef<double> scores) {
  const size_t n = scores.size();
  auto key = [&](size_t i) {
    return std::isnan(scores[i]) ? -std::numeric_limits<double>::infinity()
                                 : scores[i];
  };
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  // Ties by index (what a stable sort would give).
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return key(a) > key(b) || (key(a) == key(b) && a < b);
  });
  std::vector<double> discount(n);
  for (size_t rank = 0; rank < n; ++rank)
    discount[order[rank]] = 1.0 / std::log2(2.0 + rank);
  return discount;
}

double idealDcg(llvm::ArrayRef<double> labels) {
  std::vector<double> sorted(labels.begin(), labels.end());
  std::sort(sorted.begin(), sorted.end(), std::greater<double>());
  double dcg = 0;
  for (size_t rank = 0; rank < sorted.size(); ++rank)
    dcg += sorted[rank] / std::log2(2.0 + rank);
  return dcg;
}

/// log(1 + exp(z)) without overflow.
double softplus(double z) {
  return std::max(z, 0.0) + std::log1p(std::exp(-std::abs(z)));
}

/// Calls pair(i, j, weight) for every pair with labels[i] > labels[j].
template <typename Fn>
void forEachWeightedPair(llvm::ArrayRef<double> scores,
                         llvm::ArrayRef<double> labels, double sharpness,
                         Fn pair) {
  assert(scores.size() == labels.size() && "one label per score");
  std::vector<double> gains = gainsOf(labels, sharpness);
  double ideal = idealDcg(gains);
  if (!(ideal > 0))
    return;
  std::vector<double> discount = discountsByScore(scores);
  for (size_t i = 0; i < labels.size(); ++i)
    for (size_t j = 0; j < labels.size(); ++j)
      if (labels[i] > labels[j])
        pair(i, j,
             std::abs((gains[i] - gains[j]) * (discount[i] - discount[j])) /
                 ideal);
}

} // namespace

double mlir::tcl::learned::lambdaRankLoss(llvm::ArrayRef<double> scores,
                                          llvm::ArrayRef<double> labels,
                                          double sigma, double sharpness) {
  double loss = 0;
  forEachWeightedPair(
      scores, labels, sharpness, [&](size_t i, size_t j, double weight) {
        loss += weight * softplus(-sigma * (scores[i] - scores[j]));
      });
  return loss;
}

std::vector<double>
mlir::tcl::learned::lambdaRankGradients(llvm::ArrayRef<double> scores,
                                        llvm::ArrayRef<double> labels,
                                        double sigma, double sharpness) {
  std::vector<double> gradients(scores.size(), 0.0);
  forEachWeightedPair(
      scores, labels, sharpness, [&](size_t i, size_t j, double weight) {
        // d/ds_i log(1 + exp(-sigma (s_i - s_j))) = -sigma / (1 + exp(sigma
        // (s_i - s_j))); s_j gets the opposite.
        double lambda =
            weight * sigma / (1.0 + std::exp(sigma * (scores[i] - scores[j])));
        gradients[i] -= lambda;
        gradients[j] += lambda;
      });
  return gradients;
}

torch::Tensor
mlir::tcl::learned::lambdaRankLossTensor(const torch::Tensor &scores,
                                         const torch::Tensor &labels,
                                         double sigma, double sharpness) {
  TORCH_CHECK(scores.dim() == 1 && labels.sizes() == scores.sizes(),
              "LambdaRank: one label per score expected");
  const int64_t n = scores.size(0);
  torch::Tensor weights;
  {
    torch::NoGradGuard noGrad;
    torch::Tensor y = labels.to(scores.scalar_type());
    torch::TensorOptions options = y.options();
    // Gains: the labels, or sharpened (rankingGain).
    torch::Tensor g = sharpness > 0 ? torch::expm1(y * (sharpness * M_LN2)) /
                                          std::expm1(sharpness * M_LN2)
                                    : y;
    torch::Tensor logRanks = torch::log2(torch::arange(n, options) + 2);
    double ideal =
        (std::get<0>(torch::sort(g, /*dim=*/0, /*descending=*/true)) / logRanks)
            .sum()
            .item<double>();
    if (n < 2 || !(ideal > 0))
      return scores.sum() * 0;
    torch::Tensor order = std::get<1>(torch::sort(
        scores.detach(), /*stable=*/true, /*dim=*/0, /*descending=*/true));
    // discount[order[r]] = 1 / log2(2 + r).
    torch::Tensor discount =
        torch::empty({n}, options).scatter_(0, order, 1.0 / logRanks);
    torch::Tensor li = y.unsqueeze(1), lj = y.unsqueeze(0);
    weights = ((g.unsqueeze(1) - g.unsqueeze(0)) *
               (discount.unsqueeze(1) - discount.unsqueeze(0)))
                  .abs()
                  .div_(ideal)
                  .mul_((li > lj).to(y.scalar_type()));
  }
  torch::Tensor diff = scores.unsqueeze(1) - scores.unsqueeze(0);
  return (weights * torch::softplus(diff * -sigma)).sum();
}
