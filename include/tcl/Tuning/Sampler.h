//===- Sampler.h - Which candidates of a search to measure ------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// A sampler picks the batch to measure among the candidates a search
// proposes for one task. Two kinds:
//
//   top-k + epsilon  the best by the cost model's score, a few at random so
//                    that the model sees programs it does not rate
//                    (exploration; AutoTVM/Ansor's choice);
//   rdu              METHOD.md §3 inside the search: the candidates' scores,
//                    their uncertainty (a committee's spread) and where they
//                    lie in the model's embedding space next to what the task
//                    has measured (diversity, density), combined by
//                    selectCandidates (ActiveSampling.h).
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_SAMPLER_H
#define TCL_TUNING_SAMPLER_H

#include "tcl/Tuning/ActiveSampling.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <random>
#include <string>
#include <vector>

namespace mlir::tcl {

struct SamplerPick {
  size_t index;
  /// Why it was picked: "top-k", "epsilon" (exploration) or "rdu"; the
  /// record's proposer is "<cost model>/<reason>".
  llvm::StringRef reason;
};

/// What a sampler knows of the candidates of one task.
struct SamplerInput {
  /// The cost model's score of each candidate (higher: predicted faster).
  llvm::ArrayRef<double> scores;
  /// Only for a sampler that reads them (Sampler::readsProgramViews): the
  /// model's embedding of each candidate, then of each program the task has
  /// measured (embeddingWidth floats a program), and the uncertainty of each
  /// candidate's score.
  unsigned embeddingWidth = 0;
  llvm::ArrayRef<float> embeddings;
  llvm::ArrayRef<float> uncertainty;
};

class Sampler {
public:
  virtual ~Sampler();
  virtual llvm::StringRef getName() const = 0;
  /// Whether select reads embeddings and uncertainty (the search computes
  /// them only then).
  virtual bool readsProgramViews() const { return false; }
  /// Picks up to `count` distinct candidates; an error when the input
  /// lacks what the sampler reads.
  virtual llvm::Expected<std::vector<SamplerPick>>
  select(const SamplerInput &input, size_t count, std::mt19937_64 &rng) = 0;
};

/// The best `count` by score, except that each slot is, with probability
/// `epsilon`, a uniformly random candidate instead.
std::unique_ptr<Sampler> createTopKEpsilonSampler(double epsilon);

/// RDU over the candidates of a task, the task's measured programs counting
/// as labeled: w_u * uncertainty + w_d * f * diversity + w_r * density +
/// w_p * f, f the candidate's predicted rank among the candidates.
std::unique_ptr<Sampler> createRduSampler(RduWeights weights);
/// The weights the search's RDU sampler uses by default: the offline ones
/// with the predicted rank weighing as much as the other terms
/// (exploitation: a search looks for fast programs).
RduWeights getDefaultOnlineRduWeights();

/// The sampler a search with `costModel` uses unless told: "rdu" for the
/// learned models (mamba, tlp, mlp), "topk" for xgboost and random. Measured
/// (bench/cost_models.py, 400 trials, 3 seeds, README): with Mamba, RDU
/// found faster code on every held-out model tried; with XGBoost it won on
/// MobileNetV2, tied on ResNet-18 and lost on RegNet-Y-400MF.
llvm::StringRef getDefaultSampler(llvm::StringRef costModel);

/// "topk" (top-k + epsilon) or "rdu"; an error naming the known ones
/// otherwise.
llvm::Expected<std::unique_ptr<Sampler>>
createSampler(llvm::StringRef name, double epsilon,
              const RduWeights &weights = getDefaultOnlineRduWeights());
/// The names createSampler takes, comma separated.
std::string getSamplerNames();

} // namespace mlir::tcl

#endif // TCL_TUNING_SAMPLER_H
