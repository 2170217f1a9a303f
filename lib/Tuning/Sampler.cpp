//===- Sampler.cpp - Which candidates of a search to measure --------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/Sampler.h"

#include <algorithm>
#include <numeric>

using namespace mlir::tcl;

Sampler::~Sampler() = default;

namespace {
class TopKEpsilonSampler : public Sampler {
public:
  explicit TopKEpsilonSampler(double epsilon) : epsilon(epsilon) {}
  llvm::StringRef getName() const override { return "top-k+epsilon"; }
  std::vector<SamplerPick> select(llvm::ArrayRef<double> scores, size_t count,
                                  std::mt19937_64 &rng) override {
    std::vector<size_t> order(scores.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return scores[a] > scores[b]; });
    std::vector<bool> taken(scores.size(), false);
    std::vector<SamplerPick> picks;
    std::bernoulli_distribution explore(epsilon);
    size_t nextBest = 0;
    while (picks.size() < std::min(count, scores.size())) {
      if (explore(rng)) {
        std::vector<size_t> rest;
        for (size_t i = 0; i < scores.size(); ++i)
          if (!taken[i])
            rest.push_back(i);
        size_t index = rest[std::uniform_int_distribution<size_t>(
            0, rest.size() - 1)(rng)];
        taken[index] = true;
        picks.push_back({index, true});
        continue;
      }
      while (taken[order[nextBest]])
        ++nextBest;
      taken[order[nextBest]] = true;
      picks.push_back({order[nextBest], false});
    }
    return picks;
  }

private:
  double epsilon;
};
} // namespace

std::unique_ptr<Sampler> mlir::tcl::createTopKEpsilonSampler(double epsilon) {
  return std::make_unique<TopKEpsilonSampler>(epsilon);
}
