//===- Training.h - The training loop of the learned models -----*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The loop every learned model trains with: batches of pieces of tasks,
// cropped to their longest program, Adam with the learning-rate schedule and
// weight averaging of TrainOptions. What a batch's loss is, and which
// parameters it moves, is the caller's: a RankingModel's own network and
// ranking loss (ModelImpl::train), or the continual model's active column
// with its lateral connections, or its knowledge base distilling under the
// EWC penalty (Continual.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TCL_LIB_TUNING_LEARNED_TRAINING_H
#define TCL_LIB_TUNING_LEARNED_TRAINING_H

#include "ModelImpl.h"

#include <functional>
#include <map>
#include <random>
#include <vector>

namespace mlir::tcl::learned {

/// One batch: `count` programs cropped to `length` rows ([count, length,
/// width] row-major floats), their labels [count], and the sizes of its
/// task pieces (consecutive programs of one task), which rank on their own.
struct TrainingBatch {
  const float *inputs = nullptr;
  int64_t count = 0;
  unsigned length = 1;
  torch::Tensor labels;
  std::vector<int64_t> pieceSizes;
};

/// The batches of one training run over `data` for a model shaped like
/// `shape` (its rows, width and cropping).
class BatchMaker {
public:
  BatchMaker(const ModelImpl &shape, const ProgramSet &data,
             const TrainOptions &options);
  size_t getBatchesPerEpoch() const { return batchesPerEpoch; }
  /// Calls `body` on each batch of one epoch, in an order drawn from `rng`,
  /// until it returns an error.
  llvm::Error
  forEachBatch(std::mt19937_64 &rng,
               const std::function<llvm::Error(const TrainingBatch &)> &body);

private:
  const ModelImpl &shape;
  const ProgramSet &data;
  unsigned perGroup, groupsPerBatch;
  std::vector<unsigned> lengths;
  std::map<unsigned, std::vector<uint32_t>> byGroup;
  size_t batchesPerEpoch = 0;
  std::vector<float> inputs, labels;
};

/// options.loss on the scores [count] of `batch`: LambdaRank per piece
/// (mean over pieces), MSE on the labels, or both.
torch::Tensor rankingLoss(const torch::Tensor &scores,
                          const TrainingBatch &batch,
                          const TrainOptions &options);

/// Trains `parameters` with Adam on `data` for options.epochs (at least
/// options.minSteps steps), minimizing `batchLoss` of each batch. `what`
/// names the loss in the error of a run that diverges.
llvm::Error runTraining(
    const ModelImpl &shape, const ProgramSet &data, const TrainOptions &options,
    std::vector<torch::Tensor> parameters,
    const std::function<torch::Tensor(const TrainingBatch &)> &batchLoss,
    llvm::StringRef what);

} // namespace mlir::tcl::learned

#endif // TCL_LIB_TUNING_LEARNED_TRAINING_H
