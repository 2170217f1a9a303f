//===- RankingModel.cpp - Learned ranking cost models ---------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The library boundary: everything torch does happens inside `guarded`,
// which turns any exception into an llvm::Error, so callers built without
// exceptions never see one.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/Learned/RankingModel.h"

#include "Losses.h"
#include "Networks.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <malloc.h>
#include <map>
#include <mutex>
#include <random>
#include <thread>

using namespace mlir::tcl::learned;

//===----------------------------------------------------------------------===//
// Names and ProgramSet
//===----------------------------------------------------------------------===//

llvm::StringRef mlir::tcl::learned::getModelKindName(ModelKind kind) {
  switch (kind) {
  case ModelKind::Mamba:
    return "mamba";
  case ModelKind::Transformer:
    return "tlp";
  case ModelKind::MLP:
    return "mlp";
  }
  return "unknown";
}

std::optional<ModelKind>
mlir::tcl::learned::parseModelKind(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<ModelKind>>(name)
      .Case("mamba", ModelKind::Mamba)
      .Case("tlp", ModelKind::Transformer)
      .Case("mlp", ModelKind::MLP)
      .Default(std::nullopt);
}

llvm::StringRef mlir::tcl::learned::getLossKindName(LossKind kind) {
  return kind == LossKind::LambdaRank ? "lambdarank" : "mse";
}

std::optional<LossKind>
mlir::tcl::learned::parseLossKind(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<LossKind>>(name)
      .Case("lambdarank", LossKind::LambdaRank)
      .Case("mse", LossKind::MSE)
      .Default(std::nullopt);
}

void ProgramSet::append(const float *input, float label, unsigned group) {
  inputs.insert(inputs.end(), input, input + size_t(rows) * width);
  labels.push_back(label);
  groups.push_back(group);
}

llvm::Error ProgramSet::verify() const {
  if (groups.size() != labels.size())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "program set has %zu labels but %zu groups",
                                   labels.size(), groups.size());
  if (inputs.size() != labels.size() * rows * width)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "program set of %zu programs of [%u, %u] should have %zu inputs, "
        "has %zu",
        labels.size(), rows, width, labels.size() * rows * width,
        inputs.size());
  for (size_t i = 0; i < labels.size(); ++i)
    if (!std::isfinite(labels[i]))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "label of program %zu is not finite", i);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Runs `body` (returning llvm::Error or llvm::Expected) and turns whatever
/// it throws into an error that says what was being done.
template <typename Body>
auto guarded(llvm::StringRef what, Body &&body) -> decltype(body()) {
  try {
    return body();
  } catch (const c10::Error &e) {
    return makeError(what + ": " + e.what_without_backtrace());
  } catch (const std::exception &e) {
    return makeError(what + ": " + e.what());
  } catch (...) {
    return makeError(what + ": unknown exception");
  }
}

/// Sets torch's intra-op threads (process-wide) if they differ.
void useThreads(unsigned threads) {
  int wanted =
      threads
          ? static_cast<int>(threads)
          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (at::get_num_threads() != wanted)
    at::set_num_threads(wanted);
}

/// Once per process: keep large torch temporaries in the heap instead of
/// mmapping and unmapping each (RECIPES.md: 5-20% of a training step).
void tuneMalloc() {
  static std::once_flag once;
  std::call_once(once, [] {
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  });
}

/// FNV-1a over the saved weights, to reject corrupted files.
uint64_t checksum(llvm::StringRef bytes) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

constexpr llvm::StringLiteral kMagic = "tcl-learned-ranking-model 1";

/// The config fields in file order, by name.
struct ConfigField {
  const char *name;
  unsigned ModelConfig::*field;
};
constexpr ConfigField kConfigFields[] = {
    {"rows", &ModelConfig::rows},
    {"width", &ModelConfig::width},
    {"d_model", &ModelConfig::dModel},
    {"d_state", &ModelConfig::dState},
    {"d_conv", &ModelConfig::dConv},
    {"expand", &ModelConfig::expand},
    {"dt_rank", &ModelConfig::dtRank},
    {"layers", &ModelConfig::layers},
    {"heads", &ModelConfig::heads},
    {"ffn", &ModelConfig::ffn},
    {"mlp_hidden", &ModelConfig::mlpHidden},
    {"mlp_blocks", &ModelConfig::mlpBlocks},
};

std::string shapeString(llvm::ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

} // namespace

//===----------------------------------------------------------------------===//
// RankingModel
//===----------------------------------------------------------------------===//

struct RankingModel::Impl {
  ModelConfig config;
  std::shared_ptr<ScoreNet> net;
  /// Per-column normalization: (x - mean) * invStd on real rows.
  std::vector<float> mean, stddev;
  torch::Tensor meanTensor, invStdTensor;
  bool normalized = false;
  unsigned chunkSize = 64;
  unsigned threads = 0;

  void setNormalization(std::vector<float> newMean, std::vector<float> newStd) {
    mean = std::move(newMean);
    stddev = std::move(newStd);
    // Created outside any inference-mode guard: training uses them too.
    meanTensor = torch::tensor(mean);
    invStdTensor = 1.0 / torch::tensor(stddev);
    normalized = true;
  }

  /// Column statistics over the non-padding rows of `data`. Columns without
  /// spread are only centered (dividing by ~0 would blow up any later
  /// value that differs).
  void computeNormalization(const ProgramSet &data) {
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

  /// Normalized inputs [count, rows, width] and their mask [count, rows] of
  /// `count` programs at `data` (which must outlive the returned tensors).
  std::pair<torch::Tensor, torch::Tensor> prepare(const float *data,
                                                  int64_t count) {
    torch::Tensor x = torch::from_blob(
        const_cast<float *>(data),
        {count, int64_t(config.rows), int64_t(config.width)}, torch::kFloat);
    torch::Tensor mask = x.ne(0).any(-1).to(torch::kFloat);
    if (normalized)
      x = (x - meanTensor) * invStdTensor * mask.unsqueeze(-1);
    return {x, mask};
  }

  llvm::Error checkShape(unsigned rows, unsigned width,
                         llvm::StringRef what) const {
    if (rows != config.rows || width != config.width)
      return makeError(what + ": programs are [" + llvm::Twine(rows) + ", " +
                       llvm::Twine(width) + "] but the " +
                       getModelKindName(config.kind) + " model reads [" +
                       llvm::Twine(config.rows) + ", " +
                       llvm::Twine(config.width) + "]");
    return llvm::Error::success();
  }

  llvm::Expected<std::vector<float>> predict(llvm::ArrayRef<float> inputs);
  llvm::Error train(const ProgramSet &data, const TrainOptions &options);
  llvm::Error save(llvm::StringRef path) const;
  static llvm::Expected<std::unique_ptr<Impl>> make(const ModelConfig &config);
  static llvm::Expected<std::unique_ptr<Impl>> load(llvm::StringRef path);
};

RankingModel::RankingModel(std::unique_ptr<Impl> impl)
    : impl(std::move(impl)) {}

RankingModel::~RankingModel() = default;

/// Builds the network. torch's weight initialization draws from its global
/// generator; the lock keeps two threads creating models from interleaving
/// their draws.
llvm::Expected<std::unique_ptr<RankingModel::Impl>>
RankingModel::Impl::make(const ModelConfig &config) {
  if (llvm::Error error = verifyConfig(config))
    return std::move(error);
  tuneMalloc();
  static std::mutex seedMutex;
  std::lock_guard<std::mutex> lock(seedMutex);
  torch::manual_seed(config.seed);
  auto impl = std::make_unique<Impl>();
  impl->config = config;
  impl->net = createNetwork(config);
  return std::move(impl);
}

llvm::Expected<std::unique_ptr<RankingModel>>
RankingModel::create(const ModelConfig &config) {
  return guarded("creating a cost model",
                 [&]() -> llvm::Expected<std::unique_ptr<RankingModel>> {
                   auto impl = Impl::make(config);
                   if (!impl)
                     return impl.takeError();
                   return std::unique_ptr<RankingModel>(
                       new RankingModel(std::move(*impl)));
                 });
}

size_t RankingModel::numParameters() const {
  size_t count = 0;
  for (const torch::Tensor &p : impl->net->parameters())
    count += p.numel();
  return count;
}

const ModelConfig &RankingModel::getConfig() const { return impl->config; }
bool RankingModel::isNormalized() const { return impl->normalized; }
void RankingModel::setChunkSize(unsigned chunkSize) {
  impl->chunkSize = chunkSize ? chunkSize : 64;
}
void RankingModel::setThreads(unsigned threads) { impl->threads = threads; }

//===----------------------------------------------------------------------===//
// Prediction
//===----------------------------------------------------------------------===//

llvm::Expected<std::vector<float>>
RankingModel::Impl::predict(llvm::ArrayRef<float> inputs) {
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

llvm::Expected<std::vector<float>>
RankingModel::predict(llvm::ArrayRef<float> inputs, unsigned rows,
                      unsigned width) const {
  if (llvm::Error error = impl->checkShape(rows, width, "predict"))
    return std::move(error);
  if (inputs.size() % (size_t(rows) * width) != 0)
    return makeError("predict: " + llvm::Twine(inputs.size()) +
                     " floats are not a whole number of [" + llvm::Twine(rows) +
                     ", " + llvm::Twine(width) + "] programs");
  return guarded("scoring programs", [&] { return impl->predict(inputs); });
}

llvm::Expected<std::vector<float>>
RankingModel::predict(const ProgramSet &programs) const {
  if (programs.inputs.size() !=
      programs.size() * programs.rows * programs.width)
    return makeError("predict: program set of " + llvm::Twine(programs.size()) +
                     " programs has " + llvm::Twine(programs.inputs.size()) +
                     " input floats");
  return predict(programs.inputs, programs.rows, programs.width);
}

//===----------------------------------------------------------------------===//
// Training
//===----------------------------------------------------------------------===//

double mlir::tcl::learned::learningRateAt(const TrainOptions &options,
                                          size_t step, size_t totalSteps) {
  if (!options.cosineDecay || totalSteps < 2)
    return options.learningRate;
  double progress = std::min(1.0, double(step) / double(totalSteps - 1));
  double low = options.minLearningRateFraction;
  return options.learningRate *
         (low + (1 - low) * 0.5 * (1 + std::cos(M_PI * progress)));
}

llvm::Error RankingModel::Impl::train(const ProgramSet &data,
                                      const TrainOptions &options) {
  const size_t perProgram = size_t(config.rows) * config.width;
  useThreads(options.threads);
  if (!normalized)
    computeNormalization(data);

  // The programs of each task, tasks in order of id so that the batches
  // depend only on the data and the seed.
  std::map<unsigned, std::vector<uint32_t>> byGroup;
  for (size_t i = 0; i < data.size(); ++i)
    byGroup[data.groups[i]].push_back(uint32_t(i));
  if (options.loss == LossKind::LambdaRank) {
    // A task with one program has no pair to learn from.
    for (auto it = byGroup.begin(); it != byGroup.end();)
      it = it->second.size() < 2 ? byGroup.erase(it) : std::next(it);
  }

  const unsigned perGroup = std::max(1u, options.programsPerGroup);
  const unsigned groupsPerBatch = std::max(1u, options.groupsPerBatch);
  std::mt19937_64 rng(options.seed);
  torch::optim::Adam optimizer(net->parameters(),
                               torch::optim::AdamOptions(options.learningRate)
                                   .weight_decay(options.weightDecay));
  net->train();

  // Every epoch has the same number of batches: one a groupsPerBatch
  // pieces.
  size_t piecesPerEpoch = 0;
  for (auto &[group, members] : byGroup)
    piecesPerEpoch += (members.size() + perGroup - 1) / perGroup;
  const size_t totalBatches =
      options.epochs * ((piecesPerEpoch + groupsPerBatch - 1) / groupsPerBatch);
  size_t step = 0;
  auto setLearningRate = [&] {
    double rate = learningRateAt(options, step, totalBatches);
    for (torch::optim::OptimizerParamGroup &group : optimizer.param_groups())
      static_cast<torch::optim::AdamOptions &>(group.options()).lr(rate);
  };

  std::vector<float> batchInputs;
  std::vector<float> batchLabels;
  for (unsigned epoch = 0; epoch < options.epochs; ++epoch) {
    auto start = std::chrono::steady_clock::now();
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

    double lossSum = 0;
    size_t numBatches = 0;
    for (size_t first = 0; first < pieces.size(); first += groupsPerBatch) {
      size_t last = std::min(pieces.size(), first + groupsPerBatch);
      batchInputs.clear();
      batchLabels.clear();
      std::vector<int64_t> pieceSizes;
      for (size_t p = first; p < last; ++p) {
        for (uint32_t i : pieces[p]) {
          const float *input = data.inputs.data() + i * perProgram;
          batchInputs.insert(batchInputs.end(), input, input + perProgram);
          batchLabels.push_back(data.labels[i]);
        }
        pieceSizes.push_back(int64_t(pieces[p].size()));
      }
      const int64_t n = int64_t(batchLabels.size());
      auto [x, mask] = prepare(batchInputs.data(), n);
      torch::Tensor labels = torch::from_blob(batchLabels.data(), {n});
      torch::Tensor scores = net->score(x, mask);

      torch::Tensor loss;
      if (options.loss == LossKind::MSE) {
        loss = torch::mse_loss(scores, labels);
      } else {
        // Mean over the pieces of the batch; each piece ranks on its own.
        std::vector<torch::Tensor> losses;
        int64_t offset = 0;
        for (int64_t size : pieceSizes) {
          losses.push_back(lambdaRankLossTensor(scores.narrow(0, offset, size),
                                                labels.narrow(0, offset, size),
                                                options.sigma));
          offset += size;
        }
        loss = torch::stack(losses).mean();
      }
      optimizer.zero_grad();
      loss.backward();
      setLearningRate();
      optimizer.step();
      ++step;
      double value = loss.item<double>();
      if (!std::isfinite(value))
        return makeError("training diverged: the " +
                         getLossKindName(options.loss) + " loss in epoch " +
                         llvm::Twine(epoch) + " is " + std::to_string(value) +
                         "; try a smaller learning rate");
      lossSum += value;
      ++numBatches;
    }
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (options.onEpoch)
      options.onEpoch(epoch, numBatches ? lossSum / numBatches : 0.0, seconds);
  }
  net->eval();
  return llvm::Error::success();
}

llvm::Error RankingModel::train(const ProgramSet &data,
                                const TrainOptions &options) {
  if (llvm::Error error = impl->checkShape(data.rows, data.width, "train"))
    return error;
  if (llvm::Error error = data.verify())
    return error;
  if (data.size() == 0)
    return makeError("train: no programs to learn from");
  if (!(options.learningRate > 0) || !(options.weightDecay >= 0) ||
      !(options.sigma > 0) || !(options.minLearningRateFraction >= 0) ||
      !(options.minLearningRateFraction <= 1))
    return makeError("train: learning rate and sigma must be positive, "
                     "weight decay not negative, the least learning rate "
                     "fraction in [0, 1]");
  return guarded("training the " + getModelKindName(impl->config.kind).str() +
                     " cost model",
                 [&] { return impl->train(data, options); });
}

//===----------------------------------------------------------------------===//
// Saving and loading
//===----------------------------------------------------------------------===//

// Format: a text header, one "key value..." per line, then the line
// "data <float count> <checksum>" and the floats (little endian): the mean
// and standard deviation of each column, then every parameter in the order
// of the header's "param <name> <dims...>" lines (the network's own order).

llvm::Error RankingModel::Impl::save(llvm::StringRef path) const {
  std::string header;
  llvm::raw_string_ostream os(header);
  os << kMagic << "\n";
  os << "kind " << getModelKindName(config.kind) << "\n";
  os << "seed " << config.seed << "\n";
  for (const ConfigField &f : kConfigFields)
    os << f.name << " " << config.*f.field << "\n";
  os << "normalized " << (normalized ? 1 : 0) << "\n";

  std::string payload;
  auto putFloats = [&](const float *values, size_t count) {
    for (size_t i = 0; i < count; ++i) {
      char bytes[4];
      llvm::support::endian::write32le(bytes,
                                       llvm::bit_cast<uint32_t>(values[i]));
      payload.append(bytes, 4);
    }
  };
  std::vector<float> zeros(config.width, 0.0f), ones(config.width, 1.0f);
  putFloats(normalized ? mean.data() : zeros.data(), config.width);
  putFloats(normalized ? stddev.data() : ones.data(), config.width);
  for (const auto &item : net->named_parameters()) {
    torch::Tensor value = item.value().detach().contiguous();
    os << "param " << item.key();
    for (int64_t dim : value.sizes())
      os << " " << dim;
    os << "\n";
    putFloats(value.data_ptr<float>(), value.numel());
  }
  os << "data " << payload.size() / 4 << " "
     << llvm::utohexstr(checksum(payload)) << "\n";
  os.flush();

  // writeToOutput writes a temporary file and renames it, so a crash never
  // leaves a half-written model under `path`.
  return llvm::writeToOutput(path, [&](llvm::raw_ostream &out) {
    out << header << payload;
    return llvm::Error::success();
  });
}

llvm::Error RankingModel::save(llvm::StringRef path) const {
  return guarded("saving the cost model to '" + path.str() + "'",
                 [&] { return impl->save(path); });
}

llvm::Expected<std::unique_ptr<RankingModel::Impl>>
RankingModel::Impl::load(llvm::StringRef path) {
  auto fail = [&](const llvm::Twine &why) {
    return makeError("cannot load cost model '" + path + "': " + why);
  };
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fail(buffer.getError().message());
  llvm::StringRef rest = (*buffer)->getBuffer();

  auto nextLine = [&]() -> std::optional<llvm::StringRef> {
    size_t end = rest.find('\n');
    if (end == llvm::StringRef::npos)
      return std::nullopt;
    llvm::StringRef line = rest.take_front(end);
    rest = rest.drop_front(end + 1);
    return line;
  };
  std::optional<llvm::StringRef> line = nextLine();
  if (!line || *line != kMagic)
    return fail("not a tcl learned cost model (bad header)");

  ModelConfig config;
  bool haveKind = false, normalized = false;
  std::vector<std::pair<std::string, std::vector<int64_t>>> params;
  size_t numFloats = 0;
  uint64_t expectedSum = 0;
  while (true) {
    line = nextLine();
    if (!line)
      return fail("header ends before the data");
    llvm::SmallVector<llvm::StringRef> words;
    line->split(words, ' ', -1, /*KeepEmpty=*/false);
    if (words.empty())
      return fail("empty header line");
    llvm::StringRef key = words[0];
    auto number = [&](size_t i, uint64_t &value) {
      return i < words.size() && !words[i].getAsInteger(10, value);
    };
    uint64_t value = 0;
    if (key == "kind") {
      std::optional<ModelKind> kind =
          words.size() == 2 ? parseModelKind(words[1]) : std::nullopt;
      if (!kind)
        return fail("unknown model kind in '" + *line + "'");
      config.kind = *kind;
      haveKind = true;
    } else if (key == "seed") {
      if (!number(1, config.seed))
        return fail("bad line '" + *line + "'");
    } else if (key == "normalized") {
      if (!number(1, value) || value > 1)
        return fail("bad line '" + *line + "'");
      normalized = value == 1;
    } else if (key == "param") {
      if (words.size() < 2)
        return fail("bad line '" + *line + "'");
      std::vector<int64_t> shape;
      for (size_t i = 2; i < words.size(); ++i) {
        if (!number(i, value) || value > (1u << 30))
          return fail("bad line '" + *line + "'");
        shape.push_back(int64_t(value));
      }
      params.emplace_back(words[1].str(), std::move(shape));
    } else if (key == "data") {
      uint64_t count = 0;
      if (words.size() != 3 || !number(1, count) ||
          words[2].getAsInteger(16, expectedSum))
        return fail("bad line '" + *line + "'");
      numFloats = count;
      break;
    } else {
      const ConfigField *field = nullptr;
      for (const ConfigField &f : kConfigFields)
        if (key == f.name)
          field = &f;
      if (!field)
        return fail("unknown header line '" + *line + "'");
      if (!number(1, value) || value > (1u << 30))
        return fail("bad line '" + *line + "'");
      config.*field->field = unsigned(value);
    }
  }
  if (!haveKind)
    return fail("the header names no model kind");
  if (rest.size() != numFloats * 4)
    return fail("expected " + llvm::Twine(numFloats * 4) +
                " bytes of weights, found " + llvm::Twine(rest.size()) +
                " (truncated or corrupt)");
  if (checksum(rest) != expectedSum)
    return fail("weights checksum mismatch (corrupt file)");

  auto impl = Impl::make(config);
  if (!impl)
    return fail(llvm::toString(impl.takeError()));

  // The file's parameters must be exactly the network's, in order.
  auto named = (*impl)->net->named_parameters();
  if (named.size() != params.size())
    return fail("the file has " + llvm::Twine(params.size()) +
                " parameter tensors, a " + getModelKindName(config.kind) +
                " model of this config has " + llvm::Twine(named.size()));
  size_t needed = 2 * size_t(config.width);
  for (size_t i = 0; i < params.size(); ++i) {
    const auto &item = named[i];
    std::vector<int64_t> shape(item.value().sizes().begin(),
                               item.value().sizes().end());
    if (item.key() != params[i].first || shape != params[i].second)
      return fail("parameter " + llvm::Twine(i) + " is '" + params[i].first +
                  "' " + shapeString(params[i].second) + " in the file but '" +
                  item.key() + "' " + shapeString(shape) +
                  " in the model (config mismatch)");
    needed += item.value().numel();
  }
  if (needed != numFloats)
    return fail("the header describes " + llvm::Twine(needed) +
                " floats, the data has " + llvm::Twine(numFloats));

  const char *cursor = rest.data();
  auto takeFloats = [&](float *out, size_t count) {
    for (size_t i = 0; i < count; ++i, cursor += 4)
      out[i] = llvm::bit_cast<float>(llvm::support::endian::read32le(cursor));
  };
  std::vector<float> mean(config.width), stddev(config.width);
  takeFloats(mean.data(), config.width);
  takeFloats(stddev.data(), config.width);
  {
    torch::NoGradGuard noGrad;
    for (const auto &item : named) {
      torch::Tensor value = item.value();
      std::vector<float> values(value.numel());
      takeFloats(values.data(), values.size());
      value.copy_(torch::from_blob(values.data(), value.sizes()));
    }
  }
  if (normalized) {
    for (float s : stddev)
      if (!(s > 0) || !std::isfinite(s))
        return fail("non-positive standard deviation in the normalization");
    (*impl)->setNormalization(std::move(mean), std::move(stddev));
  }
  (*impl)->net->eval();
  return std::move(*impl);
}

llvm::Expected<std::unique_ptr<RankingModel>>
RankingModel::load(llvm::StringRef path) {
  return guarded("loading a cost model",
                 [&]() -> llvm::Expected<std::unique_ptr<RankingModel>> {
                   auto impl = Impl::load(path);
                   if (!impl)
                     return impl.takeError();
                   return std::unique_ptr<RankingModel>(
                       new RankingModel(std::move(*impl)));
                 });
}
