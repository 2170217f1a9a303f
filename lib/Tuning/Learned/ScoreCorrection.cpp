//===- ScoreCorrection.cpp - A tuning run's correction of a model ---------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The Gaussian-process correction of ScoreCorrection.h. The matrices are
// small (a task's measured programs, at most a few hundred, by the
// embedding's 32-64 floats), so everything runs in double precision through
// torch's LAPACK-backed Cholesky solve.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/Learned/ScoreCorrection.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

using namespace mlir::tcl::learned;

namespace {

/// [count, width] doubles of the programs' embeddings.
torch::Tensor embeddingMatrix(llvm::ArrayRef<ScoredProgram> programs,
                              llvm::ArrayRef<size_t> indices, unsigned width) {
  torch::Tensor matrix = torch::empty(
      {static_cast<int64_t>(indices.size()), static_cast<int64_t>(width)},
      torch::kDouble);
  auto rows = matrix.accessor<double, 2>();
  for (auto [row, index] : llvm::enumerate(indices))
    for (unsigned column = 0; column < width; ++column)
      rows[row][column] = programs[index].embedding[column];
  return matrix;
}

/// Squared distances between the rows of `a` and of `b`.
torch::Tensor squaredDistances(const torch::Tensor &a, const torch::Tensor &b) {
  return torch::cdist(a, b).square();
}

/// A small multiple of the programs' own order: where the run's
/// measurements say nothing (far from every measured program, or a scale of
/// zero), the model's order still breaks the tie.
constexpr double kTieBreak = 1e-6;

} // namespace

void ScoreCorrection::fit(llvm::ArrayRef<ScoredProgram> programs,
                          llvm::ArrayRef<float> labels,
                          llvm::ArrayRef<unsigned> tasks) {
  fits.clear();
  fitted = false;
  scale = 1;
  lengthScale = kernelVariance = 0;
  if (programs.empty() || programs.size() != labels.size() ||
      programs.size() != tasks.size())
    return;
  const unsigned width = programs.front().embedding.size();
  for (const ScoredProgram &program : programs)
    if (program.embedding.size() != width)
      return;

  // The programs of each task, the most recent ones last and kept.
  std::map<unsigned, std::vector<size_t>> byTask;
  for (auto [index, task] : llvm::enumerate(tasks))
    byTask[task].push_back(index);
  for (auto &[task, indices] : byTask)
    if (indices.size() > options.maxProgramsPerTask)
      indices.erase(indices.begin(),
                    indices.end() - options.maxProgramsPerTask);

  // Task means, and the scale of the scores (pooled least squares on the
  // centered scores and labels).
  double covariance = 0, variance = 0;
  for (auto &[task, indices] : byTask) {
    TaskFit fit;
    fit.task = task;
    fit.width = width;
    for (size_t index : indices) {
      fit.meanLabel += labels[index];
      fit.meanScore += programs[index].score;
    }
    fit.meanLabel /= indices.size();
    fit.meanScore /= indices.size();
    for (size_t index : indices) {
      double score = programs[index].score - fit.meanScore;
      covariance += score * (labels[index] - fit.meanLabel);
      variance += score * score;
    }
    fits.push_back(std::move(fit));
  }
  scale = variance > 0 ? std::max(0.0, covariance / variance) : 0.0;

  // Residuals, their variance and the median distance between two programs
  // of a task (the unit of length scales); each task's squared distances
  // serve every length scale tried.
  std::vector<std::vector<double>> residuals;
  std::vector<double> distances;
  double sumSquares = 0;
  size_t count = 0;
  std::vector<torch::Tensor> matrices, squared;
  for (auto [fit, entry] : llvm::zip(fits, byTask)) {
    const std::vector<size_t> &indices = entry.second;
    std::vector<double> residual;
    for (size_t index : indices) {
      double value = labels[index] - fit.meanLabel -
                     scale * (programs[index].score - fit.meanScore);
      residual.push_back(value);
      sumSquares += value * value;
      ++count;
    }
    residuals.push_back(std::move(residual));
    torch::Tensor matrix = embeddingMatrix(programs, indices, width);
    torch::Tensor squares = squaredDistances(matrix, matrix);
    auto values = squares.accessor<double, 2>();
    for (int64_t i = 0; i < squares.size(0); ++i)
      for (int64_t j = i + 1; j < squares.size(1); ++j)
        if (values[i][j] > 0)
          distances.push_back(std::sqrt(values[i][j]));
    matrices.push_back(std::move(matrix));
    squared.push_back(std::move(squares));
  }
  const double residualVariance = count ? sumSquares / count : 0;
  double medianDistance = 0;
  if (!distances.empty()) {
    std::nth_element(distances.begin(),
                     distances.begin() + distances.size() / 2, distances.end());
    medianDistance = distances[distances.size() / 2];
  }
  fitted = true;
  if (residualVariance <= 0 || medianDistance <= 0)
    return; // Nothing for a kernel to learn: scaled scores alone.

  // The residuals as a Gaussian process of their variance v: a share rho of
  // it an RBF kernel of length scale l over the embeddings, the rest noise
  // (at least the timing noise's). Per task, the Cholesky factor of the
  // covariance and the residuals' log marginal likelihood under it, summed
  // over tasks; the (rho, l) under which the measurements are likeliest
  // wins, and rho = 0 (no kernel: the residuals are noise) competes too.
  // `kernels`: each task's exp(-d^2 / 2 l^2), or none for rho = 0.
  auto solve = [&](double share, llvm::ArrayRef<torch::Tensor> kernels,
                   std::vector<torch::Tensor> &weights) {
    const double noise =
        std::max((1 - share) * residualVariance, options.minNoiseVariance);
    double logLikelihood = 0;
    weights.clear();
    for (auto [index, residual] : llvm::enumerate(residuals)) {
      const int64_t n = residual.size();
      torch::Tensor covariance = noise * torch::eye(n, torch::kDouble);
      if (share > 0)
        covariance = covariance + share * residualVariance * kernels[index];
      torch::Tensor targets =
          torch::from_blob(residual.data(), {n, 1}, torch::kDouble);
      torch::Tensor factor = torch::linalg_cholesky(covariance);
      torch::Tensor solved = torch::cholesky_solve(targets, factor);
      logLikelihood -= 0.5 * (targets * solved).sum().item<double>() +
                       factor.diagonal().log().sum().item<double>();
      weights.push_back(solved.contiguous());
    }
    return logLikelihood;
  };
  std::vector<torch::Tensor> bestWeights, unused;
  double bestLikelihood = solve(0, {}, unused);
  for (double factor : options.lengthScaleFactors) {
    const double length = factor * medianDistance;
    std::vector<torch::Tensor> kernels;
    for (const torch::Tensor &squares : squared)
      kernels.push_back(torch::exp(-squares / (2 * length * length)));
    for (double share : options.kernelShares) {
      std::vector<torch::Tensor> weights;
      double likelihood;
      try {
        likelihood = solve(share, kernels, weights);
      } catch (const std::exception &) {
        continue; // Not positive definite in floating point.
      }
      if (likelihood > bestLikelihood) {
        bestLikelihood = likelihood;
        bestWeights = std::move(weights);
        lengthScale = length;
        kernelVariance = share * residualVariance;
      }
    }
  }
  if (bestWeights.empty())
    return; // The residuals look like noise: scaled scores alone.
  for (auto [fit, matrix, weights] : llvm::zip(fits, matrices, bestWeights)) {
    const int64_t n = matrix.size(0);
    fit.weights.assign(weights.data_ptr<double>(),
                       weights.data_ptr<double>() + n);
    torch::Tensor asFloat = matrix.to(torch::kFloat).contiguous();
    fit.embeddings.assign(asFloat.data_ptr<float>(),
                          asFloat.data_ptr<float>() + n * width);
  }
}

const ScoreCorrection::TaskFit *ScoreCorrection::find(unsigned task) const {
  for (const TaskFit &fit : fits)
    if (fit.task == task)
      return &fit;
  return nullptr;
}

std::vector<double>
ScoreCorrection::correct(unsigned task,
                         llvm::ArrayRef<ScoredProgram> programs) const {
  std::vector<double> scores;
  scores.reserve(programs.size());
  const TaskFit *fit = fitted ? find(task) : nullptr;
  if (!fit) {
    for (const ScoredProgram &program : programs)
      scores.push_back(program.score);
    return scores;
  }
  for (const ScoredProgram &program : programs)
    scores.push_back(fit->meanLabel +
                     (scale + kTieBreak) * (program.score - fit->meanScore));
  if (fit->weights.empty() || programs.empty())
    return scores;
  for (const ScoredProgram &program : programs)
    if (program.embedding.size() != fit->width)
      return scores; // Another model's view: the kernel cannot read it.

  std::vector<size_t> all(programs.size());
  std::iota(all.begin(), all.end(), 0);
  try {
    torch::Tensor candidates = embeddingMatrix(programs, all, fit->width);
    const int64_t measured = fit->weights.size();
    torch::Tensor known =
        torch::from_blob(const_cast<float *>(fit->embeddings.data()),
                         {measured, static_cast<int64_t>(fit->width)},
                         torch::kFloat)
            .to(torch::kDouble);
    torch::Tensor weights =
        torch::from_blob(const_cast<double *>(fit->weights.data()),
                         {measured, 1}, torch::kDouble);
    torch::Tensor term =
        (kernelVariance * torch::exp(-squaredDistances(candidates, known) /
                                     (2 * lengthScale * lengthScale)))
            .matmul(weights)
            .contiguous();
    const double *values = term.data_ptr<double>();
    for (size_t i = 0; i < scores.size(); ++i)
      scores[i] += values[i];
  } catch (const std::exception &) {
    // The scaled scores alone (torch failed: out of memory, ...).
  }
  return scores;
}
