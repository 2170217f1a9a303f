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

#include "llvm/ADT/bit.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <malloc.h>
#include <mutex>
#include <numeric>
#include <thread>
#include <tuple>

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

/// Whether a token row is padding: all its values zero (-0 too). OR-ing the
/// values' bits, sign cleared, has no early exit and vectorizes (any_of, a
/// value at a time, took 14 % of scoring 4096 programs: most programs fill
/// 4-9 of 32 rows, and every padding row is read).
static bool isPaddingRow(const float *row, unsigned width) {
  uint32_t bits = 0;
  for (unsigned c = 0; c < width; ++c)
    bits |= llvm::bit_cast<uint32_t>(row[c]) & 0x7fffffffu;
  return bits == 0;
}

void ModelImpl::computeNormalization(const ProgramSet &data) {
  const unsigned width = config.width;
  const size_t rows = data.size() * config.rows;
  auto isPadding = [&](const float *row) { return isPaddingRow(row, width); };
  // Two passes, the mean then the squared deviations from it: the one-pass
  // E[x^2] - E[x]^2 leaves a rounding residue on a constant column (a
  // platform's hardware features over one platform's data) that looked like
  // a spread of 1e-5, and dividing by it made another platform's values
  // 1e5 times too large.
  std::vector<double> sum(width, 0.0), squares(width, 0.0);
  size_t count = 0;
  for (size_t r = 0; r < rows; ++r) {
    const float *row = data.inputs.data() + r * width;
    if (isPadding(row))
      continue;
    ++count;
    for (unsigned c = 0; c < width; ++c)
      sum[c] += row[c];
  }
  std::vector<float> newMean(width, 0.0f), newStd(width, 1.0f);
  if (count == 0) {
    setNormalization(std::move(newMean), std::move(newStd));
    return;
  }
  std::vector<double> mean(width);
  for (unsigned c = 0; c < width; ++c)
    mean[c] = sum[c] / double(count);
  for (size_t r = 0; r < rows; ++r) {
    const float *row = data.inputs.data() + r * width;
    if (isPadding(row))
      continue;
    for (unsigned c = 0; c < width; ++c) {
      double deviation = double(row[c]) - mean[c];
      squares[c] += deviation * deviation;
    }
  }
  for (unsigned c = 0; c < width; ++c) {
    double sd = std::sqrt(squares[c] / double(count));
    newMean[c] = float(mean[c]);
    newStd[c] = sd > 1e-6 * std::max(1.0, std::abs(mean[c])) ? float(sd) : 1.0f;
  }
  setNormalization(std::move(newMean), std::move(newStd));
}

unsigned ModelImpl::getLength(const float *program) const {
  if (!readsSequences() || !cropPadding)
    return config.rows;
  // The last row that is not padding, from the end.
  const unsigned width = config.width;
  for (unsigned length = config.rows; length > 1; --length)
    if (!isPaddingRow(program + size_t(length - 1) * width, width))
      return length;
  return 1;
}

std::pair<torch::Tensor, torch::Tensor>
ModelImpl::prepare(const float *data, int64_t count, int64_t length) {
  torch::Tensor x =
      torch::from_blob(const_cast<float *>(data),
                       {count, length, int64_t(config.width)}, torch::kFloat);
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
ModelImpl::predict(llvm::ArrayRef<const float *> programs) {
  return forward(programs, 1,
                 [&](const float *batch, int64_t count, unsigned length) {
                   auto [x, mask] = prepare(batch, count, length);
                   return net->score(x, mask);
                 });
}

llvm::Expected<std::vector<float>>
ModelImpl::embed(llvm::ArrayRef<const float *> programs) {
  return forward(programs, net->getEmbeddingWidth(),
                 [&](const float *batch, int64_t count, unsigned length) {
                   auto [x, mask] = prepare(batch, count, length);
                   return net->embed(x, mask);
                 });
}

llvm::Expected<std::vector<float>>
ModelImpl::scoreAndEmbed(llvm::ArrayRef<const float *> programs) {
  return forward(programs, 1 + net->getEmbeddingWidth(),
                 [&](const float *batch, int64_t count, unsigned length) {
                   auto [x, mask] = prepare(batch, count, length);
                   torch::Tensor embedding = net->embed(x, mask);
                   return torch::cat(
                       {net->head(embedding).view({count, 1}), embedding}, 1);
                 });
}

llvm::Expected<std::vector<float>>
ModelImpl::forward(llvm::ArrayRef<const float *> programs, int64_t outWidth,
                   const ForwardPass &pass) {
  const size_t count = programs.size();
  std::vector<float> outputs(count * outWidth);
  useThreads(threads);
  // Scoring needs no autograd state at all.
  c10::InferenceMode inference;
  net->eval();

  // Programs in order of length, so that a forward pass holds programs of
  // (nearly) one length and computes on their tokens, not on padding: most
  // schedules have 4-9 primitives of the tokenizer's 32 rows.
  // (Finding the lengths reads every padding row: the threads share it.)
  std::vector<unsigned> lengths(count);
  at::parallel_for(0, int64_t(count), 256, [&](int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i)
      lengths[i] = getLength(programs[i]);
  });
  std::vector<uint32_t> order(count);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return std::tie(lengths[a], a) < std::tie(lengths[b], b);
  });

  // Forward passes of at most tokensPerPass tokens. Sorted ascending: the
  // last program of a pass is its longest.
  const size_t tokensPerPass = size_t(chunkSize) * config.rows;
  std::vector<std::pair<size_t, size_t>> passes;
  for (size_t start = 0; start < count;) {
    size_t end = start + 1;
    while (end < count &&
           (end + 1 - start) * lengths[order[end]] <= tokensPerPass)
      ++end;
    passes.emplace_back(start, end);
    start = end;
  }
  // The passes are independent: with several threads each takes whole
  // passes (ATen runs the ops inside a parallel region on one thread),
  // which scales far better than splitting each small pass's ops.
  std::atomic<bool> wrongCount{false};
  at::parallel_for(
      0, int64_t(passes.size()), 1, [&](int64_t first, int64_t last) {
        c10::InferenceMode workerInference;
        std::vector<float> batch;
        for (int64_t p = first; p < last; ++p) {
          auto [start, end] = passes[p];
          const unsigned length = lengths[order[end - 1]];
          const int64_t n = int64_t(end - start);
          batch.assign(size_t(n) * length * config.width, 0.0f);
          for (int64_t k = 0; k < n; ++k)
            std::copy_n(programs[order[start + k]],
                        size_t(lengths[order[start + k]]) * config.width,
                        batch.begin() + size_t(k) * length * config.width);
          torch::Tensor s = pass(batch.data(), n, length).contiguous();
          if (s.numel() != n * outWidth) {
            wrongCount = true;
            continue;
          }
          const float *values = s.data_ptr<float>();
          for (int64_t k = 0; k < n; ++k)
            std::copy_n(values + k * outWidth, outWidth,
                        outputs.begin() + order[start + k] * outWidth);
        }
      });
  if (wrongCount)
    return makeError("the network returned a wrong number of outputs");
  return outputs;
}
