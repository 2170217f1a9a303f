//===- ContinualStudy.cpp - Learning platform after platform --------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/ContinualStudy.h"
#include "tcl/Tuning/Learned/LearnedCostModel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <optional>

using namespace mlir;
using namespace mlir::tcl;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

namespace {

/// One column of a continual model as a CostModel, to rank with the same
/// evaluation as every other learner. It only scores.
class ContinualScorer : public CostModel {
public:
  ContinualScorer(learned::ContinualModel &model,
                  learned::ContinualModel::Column column, FeatureKind kind)
      : model(model), column(column), kind(kind) {}

  llvm::StringRef getName() const override { return "continual"; }
  FeatureKind getFeatureKind() const override { return kind; }
  llvm::Error update(llvm::ArrayRef<CostSample>) override {
    return makeError("a continual model learns through learnPlatform");
  }
  std::vector<double>
  predict(llvm::ArrayRef<std::vector<float>> features) override {
    std::vector<CostSample> samples;
    for (const std::vector<float> &program : features)
      samples.push_back({program, 0.0f, 0});
    std::vector<double> scores(features.size(), 0.0);
    auto programs = makeProgramSet(samples, kind);
    if (!programs) {
      llvm::consumeError(programs.takeError());
      return scores;
    }
    auto predicted = model.predict(*programs, column);
    if (!predicted) {
      llvm::consumeError(predicted.takeError());
      return scores;
    }
    llvm::copy(*predicted, scores.begin());
    return scores;
  }
  llvm::Error save(llvm::StringRef) const override {
    return makeError("continual models are not saved yet");
  }
  llvm::Error load(llvm::StringRef) override {
    return makeError("continual models are not loaded yet");
  }

private:
  learned::ContinualModel &model;
  learned::ContinualModel::Column column;
  FeatureKind kind;
};

std::vector<FeaturizedGroup> ofPlatform(llvm::ArrayRef<FeaturizedGroup> groups,
                                        llvm::StringRef platform) {
  std::vector<FeaturizedGroup> picked;
  for (const FeaturizedGroup &group : groups)
    if (group.platform == platform)
      picked.push_back(group);
  return picked;
}

/// What a platform's phases chose on its held-back tasks, in words.
std::string describe(const learned::ContinualModel::ColumnChoice &choice) {
  std::string text =
      choice.knowledgeTop1 == 0 && choice.columnTop1 == 0
          ? llvm::formatv("column epochs {0}, nothing held back", choice.epochs)
                .str()
          : llvm::formatv("{3} column, epochs {0}; held-back top-1 {1:F3} "
                          "(knowledge base {2:F3})",
                          choice.epochs, choice.columnTop1,
                          choice.knowledgeTop1,
                          choice.fresh ? "fresh" : "copied")
                .str();
  if (!choice.distilled)
    return text + ": not distilled";
  text += ": distilled";
  if (choice.rehearsed)
    text += llvm::formatv(" rehearsing {0} earlier platform{1}",
                          choice.rehearsed, choice.rehearsed == 1 ? "" : "s")
                .str();
  if (choice.agreementBefore == 0 && choice.agreementAfter == 0)
    return text;
  return text + llvm::formatv(", agreement with the column on the pool "
                              "{0:F3} -> {1:F3}: {2}",
                              choice.agreementBefore, choice.agreementAfter,
                              choice.kept ? "kept" : "undone")
                    .str();
}

} // namespace

llvm::Expected<std::vector<ContinualStudyRow>> mlir::tcl::runContinualStudy(
    llvm::ArrayRef<FeaturizedGroup> train, llvm::ArrayRef<FeaturizedGroup> test,
    const ContinualStudyOptions &options,
    const std::function<void(const ContinualStudyRow &)> &onRow) {
  if (options.platforms.empty())
    return makeError("the continual study needs at least one platform");
  std::unique_ptr<CostModel> probe =
      createLearnedCostModel(options.model, options.seed, options.training);
  if (!probe)
    return makeError("the continual study needs a learned model (mamba, tlp, "
                     "mlp), not '" +
                     options.model + "'");
  const FeatureKind kind = probe->getFeatureKind();
  std::vector<ContinualStudyRow> rows;
  auto record = [&](unsigned stage, llvm::StringRef learner,
                    llvm::StringRef platform, size_t programs, CostModel &model,
                    std::string note = {}) {
    CostModelEvaluation result = rankHeldOut(model, ofPlatform(test, platform));
    ContinualStudyRow row{stage,       learner.str(), platform.str(), programs,
                          result.top1, result.top5,   std::move(note)};
    rows.push_back(row);
    if (onRow)
      onRow(row);
  };
  auto makeLearner = [&](uint64_t seed) {
    return createLearnedCostModel(options.model, seed, options.training);
  };

  std::unique_ptr<learned::ContinualModel> continual;
  std::unique_ptr<CostModel> fineTuned = makeLearner(options.seed);
  std::vector<FeaturizedGroup> everything;
  for (auto [index, platform] : llvm::enumerate(options.platforms)) {
    const unsigned stage = unsigned(index) + 1;
    std::vector<FeaturizedGroup> all = ofPlatform(train, platform);
    if (all.empty())
      return makeError("no training groups on platform '" + platform + "'");
    llvm::append_range(everything, all);
    const bool subset = index > 0 && options.fraction < 1 && options.choose;
    std::vector<FeaturizedGroup> chosen = all;
    if (subset) {
      auto made = options.choose(all);
      if (!made)
        return made.takeError();
      chosen = std::move(*made);
    }
    std::vector<CostSample> samples = makeSamples(chosen);
    auto programs = makeProgramSet(samples, kind);
    if (!programs)
      return programs.takeError();
    if (!continual) {
      learned::ModelConfig config(*learned::parseModelKind(options.model),
                                  programs->rows, programs->width,
                                  options.seed);
      config.inputs = getFeatureLayout(kind);
      // Rehearsal swaps the platform's hardware columns, wherever this
      // layout keeps them.
      learned::ContinualOptions continualOptions = options.continual;
      FeatureColumns hardware = getFeatureColumns(kind, FeaturePart::Hardware);
      continualOptions.hardwareBegin = hardware.begin;
      continualOptions.hardwareEnd = hardware.end;
      auto created = learned::ContinualModel::create(config, continualOptions);
      if (!created)
        return created.takeError();
      continual = std::move(*created);
    }
    // What the knowledge base knows of a new platform before it sees any of
    // its programs: the transfer from the earlier platforms, the baseline
    // of what learning the platform adds.
    if (index > 0) {
      ContinualScorer before(
          *continual, learned::ContinualModel::Column::KnowledgeBase, kind);
      record(stage, "knowledge base, before learning it", platform, 0, before);
    }
    auto train = makeTrainOptions(options.training);
    if (!train)
      return train.takeError();
    train->seed = options.seed + stage;
    // The platform's whole pool, the programs not chosen with the chosen
    // ones, checks the KD phase (learnPlatform).
    std::vector<CostSample> allSamples;
    std::optional<learned::ProgramSet> pool;
    if (subset) {
      allSamples = makeSamples(all);
      auto made = makeProgramSet(allSamples, kind);
      if (!made)
        return made.takeError();
      pool = std::move(*made);
    }
    if (llvm::Error error = continual->learnPlatform(*programs, *train,
                                                     pool ? &*pool : nullptr))
      return std::move(error);

    ContinualScorer knowledge(
        *continual, learned::ContinualModel::Column::KnowledgeBase, kind);
    ContinualScorer active(*continual, learned::ContinualModel::Column::Active,
                           kind);
    for (size_t seen = 0; seen <= index; ++seen)
      record(stage, "continual (knowledge base)", options.platforms[seen],
             samples.size(), knowledge);
    if (index > 0)
      record(stage, "continual (active column)", platform, samples.size(),
             active, describe(continual->getLastColumnChoice()));
    if (!options.baselines)
      continue;
    if (llvm::Error error = fineTuned->update(samples))
      return std::move(error);
    for (size_t seen = 0; seen <= index; ++seen)
      record(stage, "fine-tuned", options.platforms[seen], samples.size(),
             *fineTuned);
    // On the first platform the fine-tuned model is one from scratch.
    if (index == 0)
      continue;
    std::unique_ptr<CostModel> scratch = makeLearner(options.seed + stage);
    if (llvm::Error error = scratch->update(samples))
      return std::move(error);
    record(stage, "scratch (same programs)", platform, samples.size(),
           *scratch);
    if (subset) {
      std::unique_ptr<CostModel> full = makeLearner(options.seed + stage);
      if (llvm::Error error = full->update(allSamples))
        return std::move(error);
      record(stage, "scratch (all programs)", platform, allSamples.size(),
             *full);
    }
  }
  if (!options.knowledgeBasePath.empty())
    if (llvm::Error error = continual->saveKnowledgeBase(
            options.knowledgeBasePath, options.platforms))
      return std::move(error);
  if (options.baselines) {
    std::vector<CostSample> samples = makeSamples(everything);
    std::unique_ptr<CostModel> joint = makeLearner(options.seed);
    if (llvm::Error error = joint->update(samples))
      return std::move(error);
    for (const std::string &platform : options.platforms)
      record(unsigned(options.platforms.size()), "joint (all platforms)",
             platform, samples.size(), *joint);
  }
  return rows;
}
