//===- ActiveSampling.h - Choosing which programs to measure ----*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Measuring a program is the expensive label of a cost model. Active
// sampling chooses, batch by batch, which programs of an unlabeled pool to
// measure next (METHOD.md §3), from how the current model sees them:
//
//   representativeness  the density of a program among the pool's programs
//                       in the model's embedding space (a Gaussian kernel
//                       density), with the batch shared out among operator
//                       types in proportion to how often each occurs;
//   diversity           the distance to the nearest program already chosen
//                       (measured, or taken earlier in the batch);
//   uncertainty         the spread of an ensemble's scores for the program.
//
// RDU combines them as METHOD.md does: score = u + f * d + r, each criterion
// scaled to [0, 1] over the candidates, f the predicted rank of the program
// within its task (so diversity leans toward fast programs), taking the best
// candidate whose operator type still has budget, one at a time so that the
// diversity of the rest accounts for each one taken.
//
// selectCandidates is the choice on plain numbers (embeddings, scores);
// selectTrainingPrograms runs the whole offline loop over a dataset: a
// random first batch, then per round train an ensemble on what is chosen,
// embed and score the pool, choose the next batch.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_ACTIVESAMPLING_H
#define TCL_TUNING_ACTIVESAMPLING_H

#include "tcl/Tuning/Evaluation.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tcl {

enum class SamplingStrategy {
  Random,
  Uncertainty,
  Diversity,
  Representative,
  RDU
};

/// "random", "uncertainty", "diversity", "representative", "rdu".
llvm::StringRef getSamplingStrategyName(SamplingStrategy strategy);
std::optional<SamplingStrategy> parseSamplingStrategy(llvm::StringRef name);
/// The names parseSamplingStrategy takes, comma separated.
std::string getSamplingStrategyNames();

/// Every program of a pool, labeled or not, as the current model sees it.
struct CandidatePool {
  /// size() * embeddingWidth floats: the model's embedding of each program.
  unsigned embeddingWidth = 0;
  std::vector<float> embeddings;
  /// The predicted score of each program (higher: faster); comparable
  /// within a group only. Empty: no tilt toward fast programs.
  std::vector<float> predictions;
  /// The spread of the ensemble's scores for each program (>= 0). Empty:
  /// no uncertainty (a strategy that needs it fails).
  std::vector<float> uncertainty;
  /// The task of each program, and its operator type (AnchorClass).
  std::vector<unsigned> groups, operatorTypes;

  size_t size() const { return groups.size(); }
};

/// The weights of RDU's score w_u * u + w_d * f * d + w_r * r. The density
/// weighs less: Mamba on held-out tasks of x86-avx512/1t from 10 % of the
/// programs (seed 1; bench/active_sampling.py) reached top-1 0.688 with
/// weights (1, 1, 1), 0.827 with (1, 1, 0.3), 0.834 with (1, 1, 0) and 0.795
/// with (2, 1, 0); representativeness alone 0.587, random 0.658. The
/// operator-type quotas stay whatever the weights.
///
/// `performance` weighs the predicted rank within the task alone (w_p * f):
/// exploitation, which choosing training data does without (0) and a
/// search that wants fast programs uses (the online sampler, Sampler.h).
struct RduWeights {
  double uncertainty = 1, diversity = 1, representativeness = 0.3,
         performance = 0;
};

/// Chooses `count` programs of `pool` that are not `labeled` (one flag a
/// program), by `strategy`; returns their indices in the order taken.
/// `seed` draws the random strategy and the density's reference programs.
/// Fails when the pool is malformed or lacks what the strategy reads.
llvm::Expected<std::vector<size_t>>
selectCandidates(const CandidatePool &pool, const std::vector<bool> &labeled,
                 size_t count, SamplingStrategy strategy,
                 const RduWeights &weights = {}, uint64_t seed = 1);

/// What an ensemble says of each program: the mean of its members' scores
/// and their spread (standard deviation), each member's scores first
/// standardized within each group (`groups`, one a program): learned
/// models' scores only rank the programs of one task, so members agree or
/// not on that scale.
struct EnsembleView {
  std::vector<float> predictions, uncertainty;
};
EnsembleView summarizeEnsemble(llvm::ArrayRef<std::vector<double>> memberScores,
                               llvm::ArrayRef<unsigned> groups);

/// Programs as vectors to measure distances in, for a model without an
/// embedding of its own (xgboost, random): each feature column centered and
/// divided by its standard deviation over `features` (constant columns
/// become 0).
ProgramEmbeddings
standardizeFeatures(llvm::ArrayRef<std::vector<float>> features);

/// The uncertainty of a search's cost model, online: a committee of models
/// of the same kind, each refitted on a bootstrap resample of the samples
/// (drawn task by task, so every task keeps its size) whenever the search
/// refits its model (bagging; METHOD.md §3 names ensembles). The spread of
/// their scores and the search model's own is the uncertainty of a
/// candidate. Members made by `makeMember` start as the search model does
/// (e.g. from the same pretrained checkpoint).
class ModelCommittee {
public:
  using MakeModel =
      std::function<llvm::Expected<std::unique_ptr<CostModel>>(uint64_t seed)>;
  ModelCommittee(MakeModel makeMember, unsigned members, uint64_t seed)
      : makeMember(std::move(makeMember)), size(members), seed(seed) {}

  /// Refits every member on its own resample of `samples`; makes the
  /// members on the first call.
  llvm::Error update(llvm::ArrayRef<CostSample> samples);
  /// The spread of each program's standardized score over the members and
  /// `modelScores` (the search model's scores of `features`); zeros before
  /// the first update.
  std::vector<float> spread(llvm::ArrayRef<std::vector<float>> features,
                            llvm::ArrayRef<double> modelScores);

private:
  MakeModel makeMember;
  unsigned size;
  uint64_t seed;
  unsigned updates = 0;
  std::vector<std::unique_ptr<CostModel>> members;
};

/// The offline loop of selectTrainingPrograms.
struct ProgramSelectionOptions {
  SamplingStrategy strategy = SamplingStrategy::RDU;
  /// The share of the pool's programs to choose, in (0, 1].
  double fraction = 0.1;
  /// Batches: the first is random, each later one is chosen by a model
  /// trained on the programs chosen before it.
  unsigned rounds = 5;
  /// Models in the ensemble whose spread is the uncertainty (strategies
  /// that do not read it train one).
  unsigned ensemble = 3;
  uint64_t seed = 1;
  RduWeights weights;
  /// Makes a fresh model of the ensemble (a learned model: it must embed).
  std::function<std::unique_ptr<CostModel>(uint64_t seed)> makeModel;
  /// Called after each round: round, programs chosen so far, seconds.
  std::function<void(unsigned, size_t, double)> onRound;
};

/// The programs of `pool` chosen by `options`: the same groups, each with
/// only its chosen programs (groups with none are left out), labels to be
/// made relative to the best chosen one (makeSamples), as they would be
/// had only those been measured. Each chosen program keeps its record index.
llvm::Expected<std::vector<FeaturizedGroup>>
selectTrainingPrograms(llvm::ArrayRef<FeaturizedGroup> pool,
                       const ProgramSelectionOptions &options);

} // namespace mlir::tcl

#endif // TCL_TUNING_ACTIVESAMPLING_H
