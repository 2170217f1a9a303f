//===- Training.cpp - Training the learned cost models --------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Training (and fine-tuning) a model with Adam on batches of pieces of
// tasks, under LambdaRank or MSE, and the learning rate schedule.
//
//===----------------------------------------------------------------------===//

#include "Training.h"
#include "Losses.h"
#include "WeightAverage.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <random>

using namespace mlir::tcl::learned;

double mlir::tcl::learned::learningRateAt(const TrainOptions &options,
                                          size_t step, size_t totalSteps) {
  if (!options.cosineDecay || totalSteps < 2)
    return options.learningRate;
  double progress = std::min(1.0, double(step) / double(totalSteps - 1));
  double low = options.minLearningRateFraction;
  return options.learningRate *
         (low + (1 - low) * 0.5 * (1 + std::cos(M_PI * progress)));
}

BatchMaker::BatchMaker(const ModelImpl &shape, const ProgramSet &data,
                       const TrainOptions &options)
    : shape(shape), data(data),
      perGroup(std::max(1u, options.programsPerGroup)),
      groupsPerBatch(std::max(1u, options.groupsPerBatch)) {
  const size_t perProgram = size_t(shape.config.rows) * shape.config.width;
  lengths.resize(data.size());
  for (size_t i = 0; i < data.size(); ++i)
    lengths[i] = shape.getLength(data.inputs.data() + i * perProgram);
  // The programs of each task, tasks in order of id so that the batches
  // depend only on the data and the seed.
  for (size_t i = 0; i < data.size(); ++i)
    byGroup[data.groups[i]].push_back(uint32_t(i));
  if (options.loss == LossKind::LambdaRank) {
    // A task with one program has no pair to learn from (with the MSE term
    // it still has a label).
    for (auto it = byGroup.begin(); it != byGroup.end();)
      it = it->second.size() < 2 ? byGroup.erase(it) : std::next(it);
  }
  // Every epoch has the same number of batches: one a groupsPerBatch
  // pieces.
  size_t piecesPerEpoch = 0;
  for (auto &[group, members] : byGroup)
    piecesPerEpoch += (members.size() + perGroup - 1) / perGroup;
  batchesPerEpoch = (piecesPerEpoch + groupsPerBatch - 1) / groupsPerBatch;
}

llvm::Error BatchMaker::forEachBatch(
    std::mt19937_64 &rng,
    const std::function<llvm::Error(const TrainingBatch &)> &body) {
  const size_t perProgram = size_t(shape.config.rows) * shape.config.width;
  // Pieces of at most perGroup programs of one task, sizes balanced.
  std::vector<std::vector<uint32_t>> pieces;
  for (auto &[group, members] : byGroup) {
    std::vector<uint32_t> shuffled = members;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    size_t numPieces = (shuffled.size() + perGroup - 1) / perGroup;
    for (size_t p = 0; p < numPieces; ++p)
      pieces.emplace_back(shuffled.begin() + p * shuffled.size() / numPieces,
                          shuffled.begin() +
                              (p + 1) * shuffled.size() / numPieces);
  }
  std::shuffle(pieces.begin(), pieces.end(), rng);

  for (size_t first = 0; first < pieces.size(); first += groupsPerBatch) {
    size_t last = std::min(pieces.size(), first + groupsPerBatch);
    inputs.clear();
    labels.clear();
    TrainingBatch batch;
    // The batch is cropped to its longest program: padding rows after it
    // change no score (ModelImpl::readsSequences).
    for (size_t p = first; p < last; ++p)
      for (uint32_t i : pieces[p])
        batch.length = std::max(batch.length, lengths[i]);
    for (size_t p = first; p < last; ++p) {
      for (uint32_t i : pieces[p]) {
        const float *input = data.inputs.data() + i * perProgram;
        inputs.insert(inputs.end(), input,
                      input + size_t(batch.length) * shape.config.width);
        labels.push_back(data.labels[i]);
      }
      batch.pieceSizes.push_back(int64_t(pieces[p].size()));
    }
    batch.count = int64_t(labels.size());
    batch.inputs = inputs.data();
    batch.labels = torch::from_blob(labels.data(), {batch.count});
    if (llvm::Error error = body(batch))
      return error;
  }
  return llvm::Error::success();
}

torch::Tensor mlir::tcl::learned::rankingLoss(const torch::Tensor &scores,
                                              const TrainingBatch &batch,
                                              const TrainOptions &options) {
  if (options.loss == LossKind::MSE)
    return torch::mse_loss(scores, batch.labels);
  // Mean over the pieces of the batch; each piece ranks on its own.
  std::vector<torch::Tensor> losses;
  int64_t offset = 0;
  for (int64_t size : batch.pieceSizes) {
    losses.push_back(lambdaRankLossTensor(
        scores.narrow(0, offset, size), batch.labels.narrow(0, offset, size),
        options.sigma, options.gainSharpness));
    offset += size;
  }
  torch::Tensor loss = torch::stack(losses).mean();
  if (options.loss == LossKind::LambdaRankMSE)
    loss = loss + options.mseWeight * torch::mse_loss(scores, batch.labels);
  return loss;
}

llvm::Error mlir::tcl::learned::runTraining(
    const ModelImpl &shape, const ProgramSet &data, const TrainOptions &options,
    std::vector<torch::Tensor> parameters,
    const std::function<torch::Tensor(const TrainingBatch &)> &batchLoss,
    llvm::StringRef what) {
  BatchMaker batches(shape, data, options);
  std::mt19937_64 rng(options.seed);
  torch::optim::Adam optimizer(parameters,
                               torch::optim::AdamOptions(options.learningRate)
                                   .weight_decay(options.weightDecay));
  const size_t batchesPerEpoch = batches.getBatchesPerEpoch();
  const unsigned epochs =
      batchesPerEpoch == 0
          ? options.epochs
          : std::max<unsigned>(options.epochs,
                               (options.minSteps + batchesPerEpoch - 1) /
                                   batchesPerEpoch);
  const size_t totalBatches = epochs * batchesPerEpoch;
  size_t step = 0;
  auto setLearningRate = [&] {
    double rate = learningRateAt(options, step, totalBatches);
    for (torch::optim::OptimizerParamGroup &group : optimizer.param_groups())
      static_cast<torch::optim::AdamOptions &>(group.options()).lr(rate);
  };

  // The mean of the weights after each step of the last
  // averagedFraction of the run's steps (WeightAverage.h).
  const size_t averageFrom =
      options.averagedFraction > 0
          ? size_t(double(totalBatches) * (1 - options.averagedFraction))
          : totalBatches;
  WeightAverage average(parameters);

  for (unsigned epoch = 0; epoch < epochs; ++epoch) {
    auto start = std::chrono::steady_clock::now();
    double lossSum = 0;
    size_t numBatches = 0;
    llvm::Error error = batches.forEachBatch(
        rng, [&](const TrainingBatch &batch) -> llvm::Error {
          torch::Tensor loss = batchLoss(batch);
          optimizer.zero_grad();
          loss.backward();
          setLearningRate();
          optimizer.step();
          ++step;
          if (step > averageFrom)
            average.add();
          double value = loss.item<double>();
          if (!std::isfinite(value))
            return makeError("training diverged: the " + what +
                             " loss in epoch " + llvm::Twine(epoch) + " is " +
                             std::to_string(value) +
                             "; try a smaller learning rate");
          lossSum += value;
          ++numBatches;
          return llvm::Error::success();
        });
    if (error)
      return error;
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (options.onEpoch)
      options.onEpoch(epoch, numBatches ? lossSum / numBatches : 0.0, seconds);
  }
  average.apply();
  return llvm::Error::success();
}

llvm::Error ModelImpl::train(const ProgramSet &data,
                             const TrainOptions &options) {
  useThreads(options.threads);
  if (!normalized)
    computeNormalization(data);
  net->train();
  llvm::Error error = runTraining(
      *this, data, options, net->parameters(),
      [&](const TrainingBatch &batch) {
        auto [x, mask] = prepare(batch.inputs, batch.count, batch.length);
        return rankingLoss(net->score(x, mask), batch, options);
      },
      getLossKindName(options.loss));
  net->eval();
  return error;
}
