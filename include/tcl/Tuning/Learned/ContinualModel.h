//===- ContinualModel.h - Continual learning across platforms ---*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Continual knowledge distillation (METHOD.md §4): a cost model that learns
// one platform after another without forgetting the earlier ones and
// without holding their data.
//
// Two networks of one architecture: the knowledge base (KB), what has been
// consolidated over the platforms so far, and an active column (AC) for the
// platform being learned. The first platform trains the KB directly. Each
// later one runs two phases:
//
//   CL  the KB frozen; a fresh AC trained on the platform's data with the
//       ranking loss, reading the KB through a gated lateral connection
//       into its pooled representation: e = e_AC + α ⊙ U σ(V e_KB), α a
//       trainable gate a dimension (ContinualOptions::gateInit at first);
//   KD  the AC frozen as the teacher, the KB as the student: MSE between
//       their scores on the platform's data plus λ · Σ_k F_k (θ_k − θ*_k)²
//       (EWC), F the diagonal Fisher information of the KB's weights on the
//       earlier platforms, θ* the KB's weights after the last platform.
//
// After each platform the KB's Fisher information on its data (the squared
// gradients of the ranking loss, batch by batch) is added to F and θ* moves
// to the KB's weights: the penalty remembers every platform while only the
// current one's data is at hand.
//
// Deviation from the paper's progressive network: one lateral connection,
// into the pooled representation the decoder reads, not one per layer.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_LEARNED_CONTINUALMODEL_H
#define TCL_TUNING_LEARNED_CONTINUALMODEL_H

#include "tcl/Tuning/Learned/ModelConfig.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <vector>

namespace mlir::tcl::learned {

struct ContinualOptions {
  /// λ, the weight of the EWC penalty in the KD phase. The Fisher
  /// information is scaled to a mean of 1 over the KB's weights, so λ is
  /// the penalty of moving every weight by 1 (in units of its importance).
  double ewcWeight = 10;
  /// The KD phase: epochs over the platform's data and Adam's step size.
  unsigned distillEpochs = 10;
  double distillLearningRate = 3e-4;
  /// The lateral gates' value before the CL phase trains them.
  float gateInit = 0.1f;
  /// The active column starts as a copy of the KB (weights and input
  /// normalization) rather than freshly initialized: on 10 % of a new
  /// platform's programs a fresh column ranked worse than the KB itself.
  bool activeFromKnowledge = true;
};

class ContinualModel {
public:
  ~ContinualModel();
  ContinualModel(const ContinualModel &) = delete;
  ContinualModel &operator=(const ContinualModel &) = delete;

  /// A model with an untrained KB of `config` (seeded by config.seed).
  static llvm::Expected<std::unique_ptr<ContinualModel>>
  create(const ModelConfig &config, const ContinualOptions &options);

  /// Learns one more platform from `data` (its programs, labels and tasks):
  /// the first trains the KB; each later one runs CL then KD (above), the
  /// CL phase with `train`, the KD phase with the options' epochs and step
  /// size and `train`'s batching and threads. Then the KB's Fisher
  /// information on `data` joins the penalty.
  llvm::Error learnPlatform(const ProgramSet &data, const TrainOptions &train);

  enum class Column { KnowledgeBase, Active };
  /// Scores by the KB (what every platform so far left), or by the active
  /// column of the last platform with its lateral connection (the KB before
  /// there is one).
  llvm::Expected<std::vector<float>> predict(const ProgramSet &programs,
                                             Column column) const;

  /// Writes the KB as a RankingModel checkpoint (RankingModel::load reads
  /// it; the search takes it as --cost-model-file): what every platform so
  /// far left, for tuning on any of them.
  llvm::Error saveKnowledgeBase(llvm::StringRef path) const;

  unsigned getNumPlatformsLearned() const;
  /// The gates α of the current active column (empty before the second
  /// platform).
  std::vector<float> getGates() const;
  /// Σ F (θ − θ*)² of the KB's current weights (0 before the first
  /// platform is learned).
  double getEwcPenalty() const;

private:
  struct Impl;
  explicit ContinualModel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace mlir::tcl::learned

#endif // TCL_TUNING_LEARNED_CONTINUALMODEL_H
