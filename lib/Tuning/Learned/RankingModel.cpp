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

#include <torch/torch.h>

#include <exception>

using namespace mlir::tcl::learned;

namespace {

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
  if (!(options.learningRate > 0) || !(options.weightDecay >= 0) ||
      !(options.sigma > 0) || !(options.gainSharpness >= 0) ||
      !(options.gainSharpness <= 64) || !(options.averagedFraction >= 0) ||
      !(options.averagedFraction <= 1) ||
      !(options.minLearningRateFraction >= 0) ||
      !(options.minLearningRateFraction <= 1))
    return makeError("train: learning rate and sigma must be positive, "
                     "weight decay not negative, the gain sharpness in "
                     "[0, 64], the averaged fraction and the least learning "
                     "rate fraction in [0, 1]");
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
