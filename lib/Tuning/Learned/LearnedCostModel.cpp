//===- LearnedCostModel.cpp - Learned ranking models as cost models -------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The search's CostModel interface over learned::RankingModel. The search
// hands over feature vectors of the kind the model asks for: the token
// matrix ([maxLength, kWidth], the default Tokenizer) for the sequence
// models, the summary vector for the MLP. Part of libTclLearned.so, which
// the search opens only when it is asked for a learned model
// (createLearnedCostModel): libtorch and the hundreds of libraries Debian's
// build of it needs take more than half a second to load.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/Learned/LearnedCostModel.h"
#include "tcl/Tuning/Learned/ContinualModel.h"
#include "tcl/Tuning/Learned/RankingModel.h"
#include "tcl/Tuning/Learned/ScoreCorrection.h"

#include "llvm/ADT/StringSwitch.h"

#include <map>

using namespace mlir;
using namespace mlir::tcl;

llvm::Expected<learned::ProgramSet>
mlir::tcl::makeProgramSet(llvm::ArrayRef<CostSample> samples,
                          FeatureKind kind) {
  unsigned width = samples.empty() ? 1 : samples.front().features.size();
  unsigned rows = 1;
  if (kind == FeatureKind::Sequence) {
    rows = width / Tokenizer::kWidth;
    width = Tokenizer::kWidth;
  }
  learned::ProgramSet set(rows, width);
  for (const CostSample &sample : samples) {
    if (sample.features.size() != size_t(rows) * width || rows == 0)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "samples differ in width");
    set.append(sample.features.data(), sample.label, sample.group);
  }
  return set;
}

llvm::Expected<learned::TrainOptions>
mlir::tcl::makeTrainOptions(const LearnedModelOptions &options) {
  std::optional<learned::LossKind> loss = learned::parseLossKind(options.loss);
  if (!loss)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "unknown loss '" + options.loss + "'");
  learned::TrainOptions train;
  train.loss = *loss;
  train.gainSharpness = options.gainSharpness;
  train.mseWeight = options.mseWeight;
  train.averagedFraction = options.averagedFraction;
  train.epochs = options.epochs;
  train.learningRate = options.learningRate;
  train.cosineDecay = options.cosineDecay;
  train.threads = options.threads;
  train.onEpoch = options.onEpoch;
  return train;
}

namespace {

class LearnedCostModel : public CostModel {
public:
  LearnedCostModel(learned::ModelKind kind, uint64_t seed,
                   LearnedModelOptions options)
      : kind(kind), seed(seed), options(std::move(options)) {}

  llvm::StringRef getName() const override {
    return learned::getModelKindName(kind);
  }
  FeatureKind getFeatureKind() const override {
    return kind == learned::ModelKind::MLP ? FeatureKind::Summary
                                           : FeatureKind::Sequence;
  }

  llvm::Error update(llvm::ArrayRef<CostSample> samples) override {
    // Ranking needs two programs of one task; until then nothing to learn.
    if (samples.size() < 2)
      return llvm::Error::success();
    auto programs = makeProgramSet(samples, getFeatureKind());
    if (!programs)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     getName() + ": " +
                                         llvm::toString(programs.takeError()));
    const learned::ProgramSet &set = *programs;
    const unsigned rows = set.rows, width = set.width;
    if (!model) {
      learned::ModelConfig config(kind, rows, width, seed);
      config.inputs = getFeatureLayout(getFeatureKind());
      auto created = learned::RankingModel::create(config);
      if (!created)
        return created.takeError();
      adopt(std::move(*created));
    }
    // A checkpoint's network stays as trained; the run's measurements
    // correct its scores.
    if (options.online == LearnedModelOptions::OnlineLearning::Correct &&
        !loadedFrom.empty() && !continual)
      return fitCorrection(samples);
    auto made = makeTrainOptions(options);
    if (!made)
      return made.takeError();
    learned::TrainOptions train = *made;
    train.epochs = trained ? options.fineTuneEpochs : options.epochs;
    train.minSteps = trained ? options.fineTuneMinSteps : options.minSteps;
    if (trained && !continual) {
      std::optional<learned::LossKind> fineTuneLoss =
          learned::parseLossKind(options.fineTuneLoss);
      if (!fineTuneLoss)
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "unknown fine-tuning loss '" +
                                           options.fineTuneLoss + "'");
      train.loss = *fineTuneLoss;
      train.learningRate = options.fineTuneLearningRate;
    }
    train.seed = seed + updates++;
    // The active column starts as a copy of the trained knowledge base:
    // it fine-tunes.
    if (continual)
      return continual->learnOnline(set, train);
    if (llvm::Error error = model->train(set, train))
      return error;
    trained = true;
    return llvm::Error::success();
  }

  std::vector<double>
  predict(llvm::ArrayRef<std::vector<float>> features) override {
    if (correction.isFitted())
      return predictCorrected(features);
    std::vector<double> scores(features.size(), 0.0);
    llvm::Expected<std::vector<float>> predicted =
        continual ? runColumn(features, /*embedding=*/false)
                  : scoreWithModel(features);
    if (!predicted) {
      // A scoring failure must not stop a search: it ranks at random then.
      llvm::consumeError(predicted.takeError());
      return scores;
    }
    for (auto [score, value] : llvm::zip(scores, *predicted))
      score = value;
    return scores;
  }

  llvm::Expected<ProgramEmbeddings>
  embed(llvm::ArrayRef<std::vector<float>> features) override {
    if (continual) {
      auto values = runColumn(features, /*embedding=*/true);
      if (!values)
        return values.takeError();
      return ProgramEmbeddings{continual->getEmbeddingWidth(),
                               std::move(*values)};
    }
    if (!model)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     getName() +
                                         ": no embedding before training");
    auto programs = programsOf(features);
    if (!programs)
      return programs.takeError();
    const learned::ModelConfig &config = model->getConfig();
    ProgramEmbeddings result;
    result.width = model->getEmbeddingWidth();
    auto values = model->embed(*programs, config.rows, config.width);
    if (!values)
      return values.takeError();
    result.values = std::move(*values);
    return result;
  }

  llvm::Error save(llvm::StringRef path) const override {
    if (!model)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     getName() + ": nothing trained to save");
    return model->save(path);
  }

  llvm::Error load(llvm::StringRef path) override {
    auto loaded = learned::RankingModel::load(path);
    if (!loaded)
      return loaded.takeError();
    if ((*loaded)->getConfig().kind != kind)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "'" + path + "' holds a " +
              learned::getModelKindName((*loaded)->getConfig().kind) +
              " model, not " + getName());
    // Weights trained on columns that meant something else would score
    // nonsense without any error: refuse them.
    const std::string &inputs = (*loaded)->getConfig().inputs;
    std::string expected = getFeatureLayout(getFeatureKind());
    if (inputs != expected)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "'" + path + "' was trained on features " +
              (inputs.empty() ? std::string("of an unversioned layout")
                              : "'" + inputs + "'") +
              ", but this tcl makes '" + expected +
              "': retrain it (tcl-cost-model train)");
    adopt(std::move(*loaded));
    trained = true;
    loadedFrom = path.str();
    continual.reset();
    correction = learned::ScoreCorrection();
    taskKeys.clear();
    return llvm::Error::success();
  }

  size_t getNumParameters() const override {
    return model ? model->numParameters() : 0;
  }

  std::vector<std::string> getLearnedPlatforms() const override {
    return model ? model->getConfig().platforms : std::vector<std::string>();
  }
  void setLearnedPlatforms(std::vector<std::string> platforms) override {
    if (model)
      model->setPlatforms(std::move(platforms));
  }

  llvm::Error startActiveColumn() override {
    if (loadedFrom.empty())
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          getName() + ": an active column needs a model loaded from a file "
                      "(its knowledge base)");
    auto made = learned::ContinualModel::fromKnowledgeBase(loadedFrom, {});
    if (!made)
      return made.takeError();
    continual = std::move(*made);
    continual->setThreads(options.threads);
    return llvm::Error::success();
  }

private:
  /// Programs of `features` as the model's rows (checked against its
  /// width).
  llvm::Expected<std::vector<const float *>>
  programsOf(llvm::ArrayRef<std::vector<float>> features) const {
    return programsOf(
        features,
        [](const std::vector<float> &program) -> auto & { return program; });
  }
  /// The same for items whose features `featuresOf` gives (no copies).
  template <typename Item, typename FeaturesOf>
  llvm::Expected<std::vector<const float *>>
  programsOf(llvm::ArrayRef<Item> items, FeaturesOf featuresOf) const {
    const learned::ModelConfig &config = model->getConfig();
    std::vector<const float *> programs;
    programs.reserve(items.size());
    for (const Item &item : items) {
      const std::vector<float> &program = featuresOf(item);
      if (program.size() != size_t(config.rows) * config.width)
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            getName() + ": a program of " + llvm::Twine(program.size()) +
                " features, the model reads " +
                llvm::Twine(size_t(config.rows) * config.width));
      programs.push_back(program.data());
    }
    return programs;
  }

  /// The task a program belongs to, as the correction knows it: programs of
  /// one task share their task columns (and a search's candidates carry no
  /// task id). Tasks that agree in every task column share their
  /// measurements.
  unsigned taskOf(const std::vector<float> &program) {
    FeatureColumns columns =
        getFeatureColumns(getFeatureKind(), FeaturePart::Task);
    // (A program too short has no task columns; scoring refuses it.)
    std::vector<float> key;
    if (program.size() >= columns.end)
      key.assign(program.begin() + columns.begin,
                 program.begin() + columns.end);
    return taskKeys.try_emplace(std::move(key), taskKeys.size()).first->second;
  }

  /// The model's score and embedding of each program, as the correction
  /// reads them (views into `values`).
  llvm::Expected<std::vector<learned::ScoredProgram>>
  view(llvm::Expected<std::vector<const float *>> programs,
       std::vector<float> &values) {
    if (!programs)
      return programs.takeError();
    const learned::ModelConfig &config = model->getConfig();
    auto computed = model->scoreAndEmbed(*programs, config.rows, config.width);
    if (!computed)
      return computed.takeError();
    values = std::move(*computed);
    const size_t stride = 1 + model->getEmbeddingWidth();
    std::vector<learned::ScoredProgram> viewed;
    for (size_t i = 0; i < programs->size(); ++i)
      viewed.push_back({values[i * stride], llvm::ArrayRef<float>(values).slice(
                                                i * stride + 1, stride - 1)});
    return viewed;
  }

  llvm::Error fitCorrection(llvm::ArrayRef<CostSample> samples) {
    std::vector<float> labels, values;
    std::vector<unsigned> tasks;
    for (const CostSample &sample : samples) {
      labels.push_back(sample.label);
      tasks.push_back(taskOf(sample.features));
    }
    auto viewed = view(programsOf(
                           samples, [](const CostSample &sample) -> auto & {
                             return sample.features;
                           }),
                       values);
    if (!viewed)
      return viewed.takeError();
    correction.fit(*viewed, labels, tasks);
    return llvm::Error::success();
  }

  std::vector<double>
  predictCorrected(llvm::ArrayRef<std::vector<float>> features) {
    std::vector<double> scores(features.size(), 0.0);
    std::vector<float> values;
    auto viewed = view(programsOf(features), values);
    if (!viewed) {
      // A scoring failure must not stop a search: it ranks at random then.
      llvm::consumeError(viewed.takeError());
      return scores;
    }
    // The search scores one task's candidates at a time; group anyway.
    std::map<unsigned, std::vector<size_t>> byTask;
    for (size_t i = 0; i < features.size(); ++i)
      byTask[taskOf(features[i])].push_back(i);
    for (const auto &[task, indices] : byTask) {
      std::vector<learned::ScoredProgram> programs;
      for (size_t i : indices)
        programs.push_back((*viewed)[i]);
      std::vector<double> corrected = correction.correct(task, programs);
      for (auto [i, score] : llvm::zip(indices, corrected))
        scores[i] = score;
    }
    return scores;
  }

  /// The model's scores of `features` (none before the model exists).
  llvm::Expected<std::vector<float>>
  scoreWithModel(llvm::ArrayRef<std::vector<float>> features) {
    if (!model || features.empty())
      return std::vector<float>();
    auto programs = programsOf(features);
    if (!programs)
      return programs.takeError();
    const learned::ModelConfig &config = model->getConfig();
    return model->predict(*programs, config.rows, config.width);
  }

  /// The active column's scores (or embeddings) of `features`.
  llvm::Expected<std::vector<float>>
  runColumn(llvm::ArrayRef<std::vector<float>> features, bool embedding) {
    const learned::ModelConfig &config = continual->getConfig();
    learned::ProgramSet set(config.rows, config.width);
    for (const std::vector<float> &program : features) {
      if (program.size() != size_t(config.rows) * config.width)
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       getName() +
                                           ": a program of another width");
      set.append(program.data(), 0.0f, 0);
    }
    using Column = learned::ContinualModel::Column;
    return embedding ? continual->embed(set, Column::Active)
                     : continual->predict(set, Column::Active);
  }

  /// Takes `made` as the model, with this cost model's scoring settings.
  void adopt(std::unique_ptr<learned::RankingModel> made) {
    model = std::move(made);
    model->setThreads(options.threads);
    model->setChunkSize(options.scoreChunk);
    model->setCropPadding(options.cropPadding);
  }

  learned::ModelKind kind;
  uint64_t seed;
  LearnedModelOptions options;
  std::unique_ptr<learned::RankingModel> model;
  /// Set by startActiveColumn: the loaded model as the knowledge base, and
  /// the active column that learns and scores instead of it.
  std::unique_ptr<learned::ContinualModel> continual;
  std::string loadedFrom;
  /// With OnlineLearning::Correct: the run's correction of a loaded model,
  /// and the tasks it has seen, by their task columns.
  learned::ScoreCorrection correction;
  std::map<std::vector<float>, unsigned> taskKeys;
  bool trained = false;
  unsigned updates = 0;
};

} // namespace

extern "C" __attribute__((visibility("default"))) CostModel *
tclCreateLearnedCostModel(const char *name, uint64_t seed,
                          const LearnedModelOptions *options) {
  std::optional<learned::ModelKind> kind = learned::parseModelKind(name);
  if (!kind)
    return nullptr;
  return new LearnedCostModel(*kind, seed, *options);
}
