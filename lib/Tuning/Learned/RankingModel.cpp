//===- RankingModel.cpp - Learned ranking cost models ---------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The library boundary: everything torch does happens inside `guarded`,
// which turns any exception into an llvm::Error, so callers built without
// exceptions never see one. What a model does lives with ModelImpl
// (ModelImpl.h): scoring in ModelImpl.cpp, training in Training.cpp, its
// file in Checkpoint.cpp.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/Learned/RankingModel.h"

#include "ModelImpl.h"

#include "llvm/Support/FormatVariadic.h"

#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <exception>

using namespace mlir::tcl::learned;

namespace {

/// A number as %g writes it (1.5, 64, 1e-05).
std::string shortNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

} // namespace

//===----------------------------------------------------------------------===//
// RankingModel
//===----------------------------------------------------------------------===//

RankingModel::RankingModel(std::unique_ptr<ModelImpl> impl)
    : impl(std::move(impl)) {}

RankingModel::~RankingModel() = default;

llvm::Expected<std::unique_ptr<RankingModel>>
RankingModel::create(const ModelConfig &config) {
  return guarded("creating a cost model",
                 [&]() -> llvm::Expected<std::unique_ptr<RankingModel>> {
                   auto impl = ModelImpl::make(config);
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
void RankingModel::setPlatforms(std::vector<std::string> platforms) {
  impl->config.platforms = std::move(platforms);
}
void RankingModel::setThreads(unsigned threads) { impl->threads = threads; }
void RankingModel::setCropPadding(bool crop) { impl->cropPadding = crop; }

//===----------------------------------------------------------------------===//
// Prediction, training, saving and loading
//===----------------------------------------------------------------------===//

llvm::Expected<std::vector<float>>
RankingModel::predict(llvm::ArrayRef<float> inputs, unsigned rows,
                      unsigned width) const {
  if (llvm::Error error = impl->checkShape(rows, width, "predict"))
    return std::move(error);
  if (inputs.size() % (size_t(rows) * width) != 0)
    return makeError("predict: " + llvm::Twine(inputs.size()) +
                     " floats are not a whole number of [" + llvm::Twine(rows) +
                     ", " + llvm::Twine(width) + "] programs");
  const size_t perProgram = size_t(rows) * width;
  std::vector<const float *> programs(inputs.size() / perProgram);
  for (size_t i = 0; i < programs.size(); ++i)
    programs[i] = inputs.data() + i * perProgram;
  return guarded("scoring programs", [&] { return impl->predict(programs); });
}

llvm::Expected<std::vector<float>>
RankingModel::predict(llvm::ArrayRef<const float *> programs, unsigned rows,
                      unsigned width) const {
  if (llvm::Error error = impl->checkShape(rows, width, "predict"))
    return std::move(error);
  return guarded("scoring programs", [&] { return impl->predict(programs); });
}

llvm::Expected<std::vector<float>>
RankingModel::embed(llvm::ArrayRef<const float *> programs, unsigned rows,
                    unsigned width) const {
  if (llvm::Error error = impl->checkShape(rows, width, "embed"))
    return std::move(error);
  return guarded("embedding programs", [&] { return impl->embed(programs); });
}

llvm::Expected<std::vector<float>>
RankingModel::scoreAndEmbed(llvm::ArrayRef<const float *> programs,
                            unsigned rows, unsigned width) const {
  if (llvm::Error error = impl->checkShape(rows, width, "score and embed"))
    return std::move(error);
  return guarded("scoring and embedding programs",
                 [&] { return impl->scoreAndEmbed(programs); });
}

unsigned RankingModel::getEmbeddingWidth() const {
  return unsigned(impl->net->getEmbeddingWidth());
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

llvm::Error RankingModel::train(const ProgramSet &data,
                                const TrainOptions &options) {
  if (llvm::Error error = impl->checkShape(data.rows, data.width, "train"))
    return error;
  if (llvm::Error error = data.verify())
    return error;
  if (data.size() == 0)
    return makeError("train: no programs to learn from");
  // Each option checked on its own, so that the message names the one that
  // is wrong (NaN fails every comparison).
  struct Range {
    const char *name;
    double value, low, high;
    bool lowOpen;
  };
  const Range ranges[] = {
      {"learning rate", options.learningRate, 0, HUGE_VAL, true},
      {"sigma", options.sigma, 0, HUGE_VAL, true},
      {"weight decay", options.weightDecay, 0, HUGE_VAL, false},
      {"gain sharpness", options.gainSharpness, 0, 64, false},
      {"MSE weight", options.mseWeight, 0, HUGE_VAL, false},
      {"averaged fraction", options.averagedFraction, 0, 1, false},
      {"least learning rate fraction", options.minLearningRateFraction, 0, 1,
       false},
  };
  for (const Range &range : ranges) {
    bool aboveLow =
        range.lowOpen ? range.value > range.low : range.value >= range.low;
    if (!aboveLow || !(range.value <= range.high))
      return makeError(llvm::formatv(
          "train: the {0} must be in {1}{2}, {3}, not {4}", range.name,
          range.lowOpen ? "(" : "[", shortNumber(range.low),
          range.high == HUGE_VAL ? std::string("inf)")
                                 : shortNumber(range.high) + "]",
          shortNumber(range.value)));
  }
  return guarded("training the " + getModelKindName(impl->config.kind).str() +
                     " cost model",
                 [&] { return impl->train(data, options); });
}

llvm::Error RankingModel::save(llvm::StringRef path) const {
  return guarded("saving the cost model to '" + path.str() + "'",
                 [&] { return impl->save(path); });
}

llvm::Expected<std::unique_ptr<RankingModel>>
RankingModel::load(llvm::StringRef path) {
  return guarded("loading a cost model",
                 [&]() -> llvm::Expected<std::unique_ptr<RankingModel>> {
                   auto impl = ModelImpl::load(path);
                   if (!impl)
                     return impl.takeError();
                   return std::unique_ptr<RankingModel>(
                       new RankingModel(std::move(*impl)));
                 });
}
