//===- ModelImpl.cpp - The torch side of RankingModel ---------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Creating a model's network, its input normalization and scoring.
//
//===----------------------------------------------------------------------===//

#include "ModelImpl.h"

#include <algorithm>
#include <cmath>
#include <malloc.h>
#include <mutex>
#include <thread>

using namespace mlir::tcl::learned;

namespace {

/// Once per process: keep large torch temporaries in the heap instead of
/// mmapping and unmapping each (RECIPES.md: 5-20% of a training step).
void tuneMalloc() {
  static std::once_flag once;
  std::call_once(once, [] {
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  });
}

} // namespace

llvm::Error mlir::tcl::learned::makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

void mlir::tcl::learned::useThreads(unsigned threads) {
  int wanted =
      threads
          ? static_cast<int>(threads)
          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (at::get_num_threads() != wanted)
    at::set_num_threads(wanted);
}

//===----------------------------------------------------------------------===//
// Creation and normalization
//===----------------------------------------------------------------------===//

/// Builds the network. torch's weight initialization draws from its global
/// generator; the lock keeps two threads creating models from interleaving
/// their draws.
llvm::Expected<std::unique_ptr<ModelImpl>>
ModelImpl::make(const ModelConfig &config) {
  if (llvm::Error error = verifyConfig(config))
    return std::move(error);
  tuneMalloc();
  static std::mutex seedMutex;
  std::lock_guard<std::mutex> lock(seedMutex);
  torch::manual_seed(config.seed);
  auto impl = std::make_unique<ModelImpl>();
  impl->config = config;
  impl->net = createNetwork(config);
  return std::move(impl);
}

void ModelImpl::setNormalization(std::vector<float> newMean,
                                 std::vector<float> newStd) {
  mean = std::move(newMean);
  stddev = std::move(newStd);
  // Created outside any inference-mode guard: training uses them too.
  meanTensor = torch::tensor(mean);
  invStdTensor = 1.0 / torch::tensor(stddev);
  normalized = true;
}

void ModelImpl::computeNormalization(const ProgramSet &data) {
  const unsigned width = config.width;
  std::vector<double> sum(width, 0.0), sumSq(width, 0.0);
  size_t count = 0;
  const size_t rows = data.size() * config.rows;
  for (size_t r = 0; r < rows; ++r) {
    const float *row = data.inputs.data() + r * width;
    if (std::all_of(row, row + width, [](float v) { return v == 0; }))
      continue;
    ++count;
    for (unsigned c = 0; c < width; ++c) {
      sum[c] += row[c];
      sumSq[c] += double(row[c]) * row[c];
    }
  }
  std::vector<float> newMean(width, 0.0f), newStd(width, 1.0f);
  if (count) {
    for (unsigned c = 0; c < width; ++c) {
      double m = sum[c] / count;
      double var = std::max(0.0, sumSq[c] / count - m * m);
      double sd = std::sqrt(var);
      newMean[c] = float(m);
      newStd[c] = sd > 1e-6 * std::max(1.0, std::abs(m)) ? float(sd) : 1.0f;
    }
  }
  setNormalization(std::move(newMean), std::move(newStd));
}

std::pair<torch::Tensor, torch::Tensor> ModelImpl::prepare(const float *data,
                                                           int64_t count) {
  torch::Tensor x = torch::from_blob(
      const_cast<float *>(data),
      {count, int64_t(config.rows), int64_t(config.width)}, torch::kFloat);
  torch::Tensor mask = x.ne(0).any(-1).to(torch::kFloat);
  if (normalized)
    x = (x - meanTensor) * invStdTensor * mask.unsqueeze(-1);
  return {x, mask};
}

llvm::Error ModelImpl::checkShape(unsigned rows, unsigned width,
                                  llvm::StringRef what) const {
  if (rows != config.rows || width != config.width)
    return makeError(what + ": programs are [" + llvm::Twine(rows) + ", " +
                     llvm::Twine(width) + "] but the " +
                     getModelKindName(config.kind) + " model reads [" +
                     llvm::Twine(config.rows) + ", " +
                     llvm::Twine(config.width) + "]");
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Prediction
//===----------------------------------------------------------------------===//

llvm::Expected<std::vector<float>>
ModelImpl::predict(llvm::ArrayRef<float> inputs) {
  const size_t perProgram = size_t(config.rows) * config.width;
  const size_t count = inputs.size() / perProgram;
  std::vector<float> scores(count);
  useThreads(threads);
  // Scoring needs no autograd state at all.
  c10::InferenceMode inference;
  net->eval();
  for (size_t start = 0; start < count; start += chunkSize) {
    int64_t n = std::min<size_t>(chunkSize, count - start);
    auto [x, mask] = prepare(inputs.data() + start * perProgram, n);
    torch::Tensor s = net->score(x, mask).contiguous();
    if (s.numel() != n)
      return makeError("the network returned " + llvm::Twine(s.numel()) +
                       " scores for " + llvm::Twine(n) + " programs");
    std::copy_n(s.data_ptr<float>(), n, scores.begin() + start);
  }
  return scores;
}
