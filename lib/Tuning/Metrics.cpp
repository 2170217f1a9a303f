//===- Metrics.cpp - How well a cost model ranks schedules ----------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/Metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

using namespace mlir::tcl;

namespace {
/// Indices of `scores`, highest first (ties keep their order).
std::vector<size_t> byScore(llvm::ArrayRef<double> scores) {
  std::vector<size_t> order(scores.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  return order;
}

/// Ranks 1..n, ties averaged.
std::vector<double> ranks(llvm::ArrayRef<double> values) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return values[a] < values[b]; });
  std::vector<double> result(values.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]])
      ++j;
    double rank = (i + j) / 2.0 + 1;
    for (size_t t = i; t <= j; ++t)
      result[order[t]] = rank;
    i = j + 1;
  }
  return result;
}

double throughput(double latency) {
  return std::isfinite(latency) && latency > 0 ? 1 / latency : 0;
}
} // namespace

double mlir::tcl::topKScore(llvm::ArrayRef<RankedGroup> groups, unsigned k) {
  double sum = 0, weights = 0;
  for (const RankedGroup &group : groups) {
    double groupBest = std::numeric_limits<double>::infinity();
    for (double latency : group.latencies)
      groupBest = std::min(groupBest, latency);
    if (!std::isfinite(groupBest))
      continue; // Nothing succeeded: no task to rank.
    double pickedBest = std::numeric_limits<double>::infinity();
    std::vector<size_t> order = byScore(group.scores);
    for (size_t i = 0; i < order.size() && i < k; ++i)
      pickedBest = std::min(pickedBest, group.latencies[order[i]]);
    sum += group.weight * (groupBest / pickedBest); // 0 if all k failed
    weights += group.weight;
  }
  return weights > 0 ? sum / weights : 0;
}

double mlir::tcl::spearman(llvm::ArrayRef<double> predicted,
                           llvm::ArrayRef<double> truth) {
  size_t n = predicted.size();
  if (n < 2 || truth.size() != n)
    return 0;
  std::vector<double> a = ranks(predicted), b = ranks(truth);
  double meanA = std::accumulate(a.begin(), a.end(), 0.0) / n;
  double meanB = std::accumulate(b.begin(), b.end(), 0.0) / n;
  double cov = 0, varA = 0, varB = 0;
  for (size_t i = 0; i < n; ++i) {
    cov += (a[i] - meanA) * (b[i] - meanB);
    varA += (a[i] - meanA) * (a[i] - meanA);
    varB += (b[i] - meanB) * (b[i] - meanB);
  }
  return varA > 0 && varB > 0 ? cov / std::sqrt(varA * varB) : 0;
}

double mlir::tcl::ndcgAtK(const RankedGroup &group, unsigned k) {
  std::vector<double> relevance;
  double best = 0;
  for (double latency : group.latencies)
    best = std::max(best, throughput(latency));
  for (double latency : group.latencies)
    relevance.push_back(best > 0 ? throughput(latency) / best : 0);
  auto dcg = [&](const std::vector<size_t> &order) {
    double sum = 0;
    for (size_t i = 0; i < order.size() && i < k; ++i)
      sum += relevance[order[i]] / std::log2(i + 2.0);
    return sum;
  };
  double ideal = dcg(byScore(relevance));
  return ideal > 0 ? dcg(byScore(group.scores)) / ideal : 0;
}

double mlir::tcl::pairwiseAccuracy(const RankedGroup &group) {
  size_t correct = 0, pairs = 0;
  for (size_t i = 0; i < group.latencies.size(); ++i)
    for (size_t j = i + 1; j < group.latencies.size(); ++j) {
      double ti = throughput(group.latencies[i]),
             tj = throughput(group.latencies[j]);
      if (ti == tj)
        continue;
      ++pairs;
      correct += (ti > tj) == (group.scores[i] > group.scores[j]) &&
                 group.scores[i] != group.scores[j];
    }
  return pairs ? static_cast<double>(correct) / pairs : 0;
}
