//===- Sampler.cpp - Which candidates of a search to measure --------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/Sampler.h"
#include "tcl/Tuning/CostModel.h"

#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <numeric>

using namespace mlir::tcl;

Sampler::~Sampler() = default;

namespace {
class TopKEpsilonSampler : public Sampler {
public:
  explicit TopKEpsilonSampler(double epsilon) : epsilon(epsilon) {}
  llvm::StringRef getName() const override { return "topk"; }
  llvm::Expected<std::vector<SamplerPick>>
  select(const SamplerInput &input, size_t count,
         std::mt19937_64 &rng) override {
    llvm::ArrayRef<double> scores = input.scores;
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
        picks.push_back({index, "epsilon"});
        continue;
      }
      while (taken[order[nextBest]])
        ++nextBest;
      taken[order[nextBest]] = true;
      picks.push_back({order[nextBest], "top-k"});
    }
    return picks;
  }

private:
  double epsilon;
};

class RduSampler : public Sampler {
public:
  explicit RduSampler(RduWeights weights) : weights(weights) {}
  llvm::StringRef getName() const override { return "rdu"; }
  bool readsProgramViews() const override { return true; }
  llvm::Expected<std::vector<SamplerPick>>
  select(const SamplerInput &input, size_t count,
         std::mt19937_64 &rng) override {
    const size_t candidates = input.scores.size();
    const unsigned width = input.embeddingWidth;
    if (width == 0 || input.embeddings.size() % width != 0 ||
        input.embeddings.size() / width < candidates ||
        input.uncertainty.size() != candidates)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "rdu sampler: needs an embedding of every candidate and measured "
          "program and the uncertainty of every candidate (" +
              llvm::Twine(candidates) + " candidates, " +
              llvm::Twine(input.embeddings.size()) + " embedding values of " +
              llvm::Twine(width) + ", " +
              llvm::Twine(input.uncertainty.size()) + " uncertainties)");
    // One task: the candidates are group 0 (their predicted rank is among
    // themselves), the measured programs group 1 and labeled; one operator
    // type, so the quota is the whole batch.
    const size_t total = input.embeddings.size() / width;
    CandidatePool pool;
    pool.embeddingWidth = width;
    pool.embeddings = input.embeddings.vec();
    pool.predictions.assign(total, 0.0f);
    pool.uncertainty.assign(total, 0.0f);
    pool.groups.assign(total, 1);
    pool.operatorTypes.assign(total, 0);
    std::vector<bool> labeled(total, true);
    for (size_t i = 0; i < candidates; ++i) {
      pool.predictions[i] = float(input.scores[i]);
      pool.uncertainty[i] = input.uncertainty[i];
      pool.groups[i] = 0;
      labeled[i] = false;
    }
    auto chosen = selectCandidates(pool, labeled, count, SamplingStrategy::RDU,
                                   weights, rng());
    if (!chosen)
      return chosen.takeError();
    std::vector<SamplerPick> picks;
    for (size_t index : *chosen)
      picks.push_back({index, "rdu"});
    return picks;
  }

private:
  RduWeights weights;
};
} // namespace

std::unique_ptr<Sampler> mlir::tcl::createTopKEpsilonSampler(double epsilon) {
  return std::make_unique<TopKEpsilonSampler>(epsilon);
}

std::unique_ptr<Sampler> mlir::tcl::createRduSampler(RduWeights weights) {
  return std::make_unique<RduSampler>(weights);
}

RduWeights mlir::tcl::getDefaultOnlineRduWeights() {
  RduWeights weights;
  weights.performance = 1;
  return weights;
}

llvm::Expected<std::unique_ptr<Sampler>>
mlir::tcl::createSampler(llvm::StringRef name, double epsilon,
                         const RduWeights &weights) {
  if (name == "topk")
    return createTopKEpsilonSampler(epsilon);
  if (name == "rdu")
    return createRduSampler(weights);
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "unknown sampler '" + name +
                                     "' (known: " + getSamplerNames() + ")");
}

std::string mlir::tcl::getSamplerNames() { return "topk, rdu"; }

llvm::StringRef mlir::tcl::getDefaultSampler(llvm::StringRef costModel) {
  return isLearnedCostModel(costModel) ? "rdu" : "topk";
}
