//===- tcl-cost-model.cpp - Train and evaluate cost models ----------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Cost models on a dataset (tcl-tuning-db export-dataset, or a tuning
// database), split into training and held-out groups (Dataset.h):
//
//   tcl-cost-model train    --data DIR --model mamba -o model.bin
//                           [--from model.bin] (fine-tunes a checkpoint)
//   tcl-cost-model evaluate --data DIR --model mamba --model-file model.bin
//   tcl-cost-model compare  --data DIR [--models mamba,tlp,mlp,xgboost]
//                           one table: parameters, training time per epoch,
//                           time to score 4096 programs, and the ranking
//                           metrics on the held-out groups of each platform
//   tcl-cost-model time-scoring --data DIR [--models ...] [--repeats 7]
//                           each model trained briefly (--epochs), then the
//                           time to score 4096 held-out programs in one
//                           call, models interleaved, median and range; the
//                           sequence models also without cropping padding
//   tcl-cost-model continual --data DIR --platforms P1,P2,P3 [--fraction 0.1]
//                           a continual model (knowledge base + active
//                           column, distillation under EWC) learns the
//                           platforms in order, the later ones from the
//                           share --strategy chooses, against fine-tuning,
//                           models from scratch and joint training
//                           (ContinualStudy.h); top-1 on every platform
//                           seen after each stage, then the forgetting;
//                           --held-back 0.2: the share of a later
//                           platform's tasks that choose its column's
//                           epochs and whether to distill it
//   tcl-cost-model online   --data DIR --split model:NAME [--measured 0,8,32]
//                           a tuning run without timing noise
//                           (OnlineStudy.h): after k programs of each
//                           held-out task are measured, the pretrained
//                           model (--model-file, or trained here) frozen,
//                           fine-tuned and corrected, and XGBoost on the
//                           run alone and on the dataset and the run, rank
//                           each task's other programs
//   tcl-cost-model select   --data DIR --strategy rdu --fraction 0.1 [-o DIR]
//                           chooses that share of the training groups'
//                           programs by active sampling (ActiveSampling.h),
//                           prints what it chose per operator, and writes
//                           them as a dataset
//
// Common options: --platforms P,Q (default: all), --split task |
// model:NAME | platform:NAME | none (none: train and evaluate on all),
// --epochs (--min-steps: at least that many optimizer steps), --loss
// lambdarank|mse, --seed, --num-threads. With --fraction below 1, train,
// compare and time-scoring train on the programs that --strategy chooses
// (once, shared by every model compared). --per-task adds a table of each
// held-out task's top-1, a column per model: where a model loses.
//
//===----------------------------------------------------------------------===//

#include "tcl/Registration/Registration.h"
#include "tcl/Runtime/Machine.h"
#include "tcl/Support/CommandLine.h"
#include "tcl/Tuning/ActiveSampling.h"
#include "tcl/Tuning/ContinualStudy.h"
#include "tcl/Tuning/Dataset.h"
#include "tcl/Tuning/Evaluation.h"
#include "tcl/Tuning/OnlineStudy.h"

#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <set>

using namespace mlir;
using namespace mlir::tcl;

// The tool's own options, the only ones --help lists (showOnlyInHelp).
static llvm::cl::OptionCategory toolCategory("Options");
static llvm::cl::opt<std::string>
    command(llvm::cl::Positional,
            llvm::cl::desc("<train | evaluate | compare | time-scoring | "
                           "select | continual | online>"),
            llvm::cl::Required, llvm::cl::cat(toolCategory));
static llvm::cl::list<std::string>
    dataDirs("data",
             llvm::cl::desc("Dataset directories (export-dataset), read "
                            "together: e.g. datasets/cpu,datasets/cpu-znver5"),
             llvm::cl::CommaSeparated, llvm::cl::cat(toolCategory));
static llvm::cl::opt<std::string>
    databasePath("db", llvm::cl::desc("Tuning database instead of --data"),
                 llvm::cl::init(""), llvm::cl::cat(toolCategory));
static llvm::cl::list<std::string>
    platforms("platforms", llvm::cl::desc("Platforms to use (default: all)"),
              llvm::cl::CommaSeparated, llvm::cl::cat(toolCategory));
static llvm::cl::opt<std::string>
    splitSpec("split",
              llvm::cl::desc("Held-out groups: task, model:NAME, "
                             "platform:NAME, or none"),
              llvm::cl::init("task"), llvm::cl::cat(toolCategory));
static llvm::cl::opt<std::string>
    modelName("model", llvm::cl::desc("mamba, tlp, mlp, xgboost or random"),
              llvm::cl::init("mamba"), llvm::cl::cat(toolCategory));
static llvm::cl::list<std::string>
    modelNames("models", llvm::cl::desc("compare: the models to compare"),
               llvm::cl::CommaSeparated, llvm::cl::cat(toolCategory));
static llvm::cl::opt<std::string>
    outputPath("o",
               llvm::cl::desc("train: where to save the model; select: the "
                              "dataset directory; continual: where to save "
                              "the knowledge base"),
               llvm::cl::init(""), llvm::cl::cat(toolCategory));
static llvm::cl::opt<std::string>
    fromPath("from", llvm::cl::desc("train: fine-tune this checkpoint"),
             llvm::cl::init(""), llvm::cl::cat(toolCategory));
static llvm::cl::opt<std::string>
    modelFile("model-file",
              llvm::cl::desc("evaluate: the model to load; online: the "
                             "pretrained model (default: trained here on "
                             "the split's training groups)"),
              llvm::cl::init(""), llvm::cl::cat(toolCategory));
static llvm::cl::list<unsigned> measuredCounts(
    "measured",
    llvm::cl::desc("online: programs of each held-out task measured before "
                   "ranking the rest (default 0,4,8,16,32)"),
    llvm::cl::CommaSeparated, llvm::cl::cat(toolCategory));
static llvm::cl::opt<bool> closedLoop(
    "closed-loop",
    llvm::cl::desc("online: each model picks the programs it measures, "
                   "--batch a task a round for --rounds rounds, and the "
                   "table says how close to each task's fastest program "
                   "they got"),
    llvm::cl::init(false), llvm::cl::cat(toolCategory));
static llvm::cl::opt<unsigned>
    loopBatch("batch",
              llvm::cl::desc("online --closed-loop: programs of each task "
                             "measured a round"),
              llvm::cl::init(4), llvm::cl::cat(toolCategory));
static llvm::cl::opt<unsigned> epochs("epochs",
                                      llvm::cl::desc("Training epochs"),
                                      llvm::cl::init(20),
                                      llvm::cl::cat(toolCategory));
static llvm::cl::opt<unsigned> minSteps(
    "min-steps",
    llvm::cl::desc("Train for at least this many optimizer steps (more "
                   "epochs than --epochs on a small dataset; 0: --epochs)"),
    llvm::cl::init(0), llvm::cl::cat(toolCategory));
static llvm::cl::opt<bool>
    perTask("per-task",
            llvm::cl::desc("train, evaluate, compare: also print each held-out "
                           "task's top-1, a column per model"),
            llvm::cl::init(false), llvm::cl::cat(toolCategory));
static llvm::cl::opt<std::string> loss("loss",
                                       llvm::cl::desc("lambdarank, mse or "
                                                      "lambdarank+mse"),
                                       llvm::cl::init("lambdarank+mse"),
                                       llvm::cl::cat(toolCategory));
static llvm::cl::opt<double> gainSharpness(
    "gain-sharpness",
    llvm::cl::desc("LambdaRank's gain: 0 = the label, k > 0 = (2^(k label) - "
                   "1) / (2^k - 1), favoring the fastest programs"),
    llvm::cl::init(6), llvm::cl::cat(toolCategory));
static llvm::cl::opt<double>
    mseWeight("mse-weight",
              llvm::cl::desc("lambdarank+mse: the weight of the MSE term"),
              llvm::cl::init(1), llvm::cl::cat(toolCategory));
static llvm::cl::opt<double> averagedFraction(
    "average-weights",
    llvm::cl::desc("End with the mean weights of the last fraction of the "
                   "training steps (0: the last step's)"),
    llvm::cl::init(0), llvm::cl::cat(toolCategory));
static llvm::cl::opt<double> learningRate("learning-rate",
                                          llvm::cl::desc("Adam's step size"),
                                          llvm::cl::init(1e-3),
                                          llvm::cl::cat(toolCategory));
static llvm::cl::opt<bool>
    cosineDecay("cosine-decay",
                llvm::cl::desc("Decay the learning rate along a half cosine"),
                llvm::cl::init(false), llvm::cl::cat(toolCategory));
static llvm::cl::opt<uint64_t> seed("seed", llvm::cl::desc("Seed"),
                                    llvm::cl::init(1),
                                    llvm::cl::cat(toolCategory));
static llvm::cl::opt<unsigned>
    threads("num-threads",
            llvm::cl::desc("Threads for training and scoring, 0 for all "
                           "(default 1: where cores are shared, OpenMP's "
                           "spinning barriers make two many times slower)"),
            llvm::cl::init(1), llvm::cl::cat(toolCategory));
static llvm::cl::opt<unsigned> scoreChunk(
    "score-chunk",
    llvm::cl::desc("Programs per forward pass when a learned model scores "
                   "(counted at the tokenizer's full length)"),
    llvm::cl::init(64), llvm::cl::cat(toolCategory));
static llvm::cl::list<std::string> dropFeatures(
    "drop-features",
    llvm::cl::desc("Ablation: clear these parts of every program's features "
                   "(task, hardware)"),
    llvm::cl::CommaSeparated, llvm::cl::cat(toolCategory));
static llvm::cl::opt<unsigned>
    repeats("repeats",
            llvm::cl::desc("time-scoring: timed calls per model (interleaved)"),
            llvm::cl::init(7), llvm::cl::cat(toolCategory));
static llvm::cl::opt<double> maxSpread(
    "max-spread",
    llvm::cl::desc("Leave out records whose timings spread more than this "
                   "((max - min) / median); 0 keeps all"),
    llvm::cl::init(0), llvm::cl::cat(toolCategory));
static llvm::cl::opt<double> trainMaxSpread(
    "train-max-spread",
    llvm::cl::desc("Leave out of training (only) the records whose timings "
                   "spread more than this ((max - min) / median); 0 keeps "
                   "all"),
    llvm::cl::init(0), llvm::cl::cat(toolCategory));
static llvm::cl::opt<std::string> trainTiming(
    "train-timing",
    llvm::cl::desc("The timing of a training record its label is made from: "
                   "median (what the search compares), min (the run least "
                   "disturbed by other load); held-out groups are always "
                   "ranked by the median"),
    llvm::cl::init("median"), llvm::cl::cat(toolCategory));
static llvm::cl::opt<std::string> strategyName(
    "strategy",
    llvm::cl::desc("How to choose the training programs when --fraction is "
                   "below 1: rdu, random, uncertainty, diversity, "
                   "representative"),
    llvm::cl::init("rdu"), llvm::cl::cat(toolCategory));
static llvm::cl::opt<double> fraction(
    "fraction",
    llvm::cl::desc("The share of the training groups' programs to train on, "
                   "chosen by --strategy (1: all)"),
    llvm::cl::init(1), llvm::cl::cat(toolCategory));
static llvm::cl::opt<unsigned>
    selectRounds("rounds",
                 llvm::cl::desc("Active sampling: batches (the first "
                                "random); online --closed-loop: rounds "
                                "of measuring"),
                 llvm::cl::init(5), llvm::cl::cat(toolCategory));
static llvm::cl::opt<unsigned> ensembleSize(
    "ensemble",
    llvm::cl::desc("Active sampling: models whose spread is the uncertainty"),
    llvm::cl::init(3), llvm::cl::cat(toolCategory));
static llvm::cl::opt<std::string> selectModelName(
    "select-model",
    llvm::cl::desc("Active sampling: the model that chooses (mamba, tlp, "
                   "mlp)"),
    llvm::cl::init("mamba"), llvm::cl::cat(toolCategory));
static llvm::cl::opt<unsigned> selectEpochs(
    "select-epochs",
    llvm::cl::desc("Active sampling: epochs of each model that chooses"),
    llvm::cl::init(10), llvm::cl::cat(toolCategory));
static llvm::cl::list<double> rduWeights(
    "rdu-weights",
    llvm::cl::desc("RDU's weights of uncertainty, (predicted rank x) "
                   "diversity and representativeness"),
    llvm::cl::CommaSeparated, llvm::cl::cat(toolCategory));
static llvm::cl::opt<double> ewcWeight(
    "ewc-weight",
    llvm::cl::desc("continual: the weight of the EWC penalty (the Fisher "
                   "information has mean 1)"),
    llvm::cl::init(learned::ContinualOptions().ewcWeight),
    llvm::cl::cat(toolCategory));
static llvm::cl::opt<double> rehearsalWeight(
    "rehearsal-weight",
    llvm::cl::desc("continual: the weight of rehearsing the earlier "
                   "platforms in each distillation (the new programs with "
                   "their hardware, scored as the knowledge base did before; "
                   "0: none)"),
    llvm::cl::init(learned::ContinualOptions().rehearsalWeight),
    llvm::cl::cat(toolCategory));
static llvm::cl::opt<bool> distillOnPool(
    "distill-on-pool",
    llvm::cl::desc("continual: distill on the new platform's whole pool "
                   "(scored by the column), not only on its chosen programs"),
    llvm::cl::init(learned::ContinualOptions().distillOnUnmeasured),
    llvm::cl::cat(toolCategory));
static llvm::cl::opt<unsigned> distillEpochs(
    "distill-epochs",
    llvm::cl::desc("continual: epochs of each distillation into the "
                   "knowledge base"),
    llvm::cl::init(learned::ContinualOptions().distillEpochs),
    llvm::cl::cat(toolCategory));
static llvm::cl::opt<float>
    gateInit("gate-init",
             llvm::cl::desc("continual: the lateral gates' value before "
                            "training"),
             llvm::cl::init(learned::ContinualOptions().gateInit),
             llvm::cl::cat(toolCategory));
static llvm::cl::opt<double> heldBack(
    "held-back",
    llvm::cl::desc("continual: the share of a later platform's tasks held "
                   "back to choose the active column's epochs and whether to "
                   "distill it (0: none)"),
    llvm::cl::init(learned::ContinualOptions().heldBackShare),
    llvm::cl::cat(toolCategory));
static llvm::cl::opt<std::string> columnStart(
    "column-start",
    llvm::cl::desc("continual: how each active column starts: copy (of the "
                   "knowledge base), fresh, or choose (whichever ranks the "
                   "held-back tasks better)"),
    llvm::cl::init(
        learned::getColumnStartName(learned::ContinualOptions().columnStart)
            .str()),
    llvm::cl::cat(toolCategory));
static llvm::cl::opt<bool>
    skipBaselines("skip-baselines",
                  llvm::cl::desc("continual: train the continual model only"),
                  llvm::cl::init(false), llvm::cl::cat(toolCategory));
static llvm::cl::opt<bool> verbose("v",
                                   llvm::cl::desc("Print every epoch's loss"),
                                   llvm::cl::init(false),
                                   llvm::cl::cat(toolCategory));

static int fail(llvm::Error error) {
  llvm::errs() << "tcl-cost-model: " << llvm::toString(std::move(error))
               << "\n";
  return 1;
}

/// A number as printf's %g writes it (0.1, not 0.10).
static std::string formatNumber(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%g", value);
  return text;
}

static llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

namespace {

/// How training reads the records' timings, as the flags say.
TrainingLabelOptions trainingLabels() {
  TrainingLabelOptions labels;
  labels.fastestRun = trainTiming == "min";
  labels.maxSpread = trainMaxSpread;
  return labels;
}

/// The dataset, its groups and split, and features per kind (computed
/// once each).
struct Data {
  std::unique_ptr<TuningDatabase> database;
  std::vector<DatasetGroup> groups;
  DatasetSplit split;
  std::map<FeatureKind, std::vector<FeaturizedGroup>> features;
  /// With --fraction below 1: the records chosen of each training group
  /// (by index in `groups`, then in its records).
  std::optional<std::map<size_t, std::set<size_t>>> chosen;

  llvm::Error open(MLIRContext *context) {
    if (dataDirs.empty() == databasePath.empty())
      return error("give exactly one of --data DIR[,DIR...] and --db FILE");
    auto opened =
        TuningDatabase::open(databasePath.empty() ? std::string(":memory:")
                                                  : std::string(databasePath));
    if (!opened)
      return opened.takeError();
    database = std::move(*opened);
    for (const std::string &dataDir : dataDirs) {
      auto added = importDataset(*database, dataDir);
      if (!added)
        return added.takeError();
    }
    groups =
        loadDatasetGroups(*database, platforms, /*minRecords=*/2, maxSpread);
    if (groups.empty())
      return error("no task has two or more records on the platforms asked");
    if (splitSpec == "none") {
      for (size_t index = 0; index < groups.size(); ++index) {
        split.train.push_back(index);
        split.test.push_back(index);
      }
      return llvm::Error::success();
    }
    auto made = splitDataset(groups, splitSpec);
    if (!made)
      return made.takeError();
    split = std::move(*made);
    return llvm::Error::success();
  }

  llvm::Expected<const std::vector<FeaturizedGroup> *>
  featuresFor(FeatureKind kind, MLIRContext *context) {
    auto found = features.find(kind);
    if (found == features.end()) {
      auto made = featurizeGroups(*database, groups, kind, context);
      if (!made)
        return made.takeError();
      for (const std::string &part : dropFeatures) {
        if (part != "task" && part != "hardware")
          return error("unknown feature part '" + part + "' (task, hardware)");
        for (FeaturizedGroup &group : *made)
          for (std::vector<float> &program : group.features)
            clearFeaturePart(program, kind,
                             part == "task" ? FeaturePart::Task
                                            : FeaturePart::Hardware);
      }
      found = features.emplace(kind, std::move(*made)).first;
    }
    return &found->second;
  }

  std::vector<FeaturizedGroup> pick(const std::vector<FeaturizedGroup> &all,
                                    llvm::ArrayRef<size_t> indices,
                                    llvm::StringRef platform = "") {
    std::vector<FeaturizedGroup> picked;
    for (size_t index : indices)
      if (platform.empty() || all[index].platform == platform)
        picked.push_back(all[index]);
    return picked;
  }

  /// The split's training groups of `all`: only their chosen programs if
  /// programs were chosen, labelled as --train-timing and
  /// --train-max-spread say.
  std::vector<FeaturizedGroup>
  trainingGroups(const std::vector<FeaturizedGroup> &all) {
    TrainingLabelOptions labels = trainingLabels();
    std::vector<FeaturizedGroup> picked;
    for (size_t index : split.train) {
      const FeaturizedGroup &from = all[index];
      FeaturizedGroup group;
      if (chosen) {
        auto records = chosen->find(index);
        if (records == chosen->end())
          continue;
        std::vector<size_t> programs;
        for (size_t k = 0; k < from.features.size(); ++k)
          if (records->second.count(from.recordIndices[k]))
            programs.push_back(k);
        group = pickPrograms(from, programs);
      } else {
        group = from;
      }
      // (Another copy of the features only when the labels change.)
      if (labels.fastestRun || labels.maxSpread > 0)
        group = trainingPrograms(group, groups[index].records, labels);
      if (!group.features.empty())
        picked.push_back(std::move(group));
    }
    return picked;
  }

  std::vector<std::string> testPlatforms() {
    std::vector<std::string> names;
    for (size_t index : split.test)
      if (!llvm::is_contained(names, groups[index].platform))
        names.push_back(groups[index].platform);
    return names;
  }
};

struct EpochTimes {
  unsigned epochs = 0;
  double seconds = 0;
  double lastLoss = 0;
};

/// How the learned models train, as the flags say (epochs: --epochs).
LearnedModelOptions learnedModelOptions() {
  LearnedModelOptions options;
  // train --from fine-tunes with the loss asked, too.
  options.loss = options.fineTuneLoss = loss;
  options.gainSharpness = gainSharpness;
  options.mseWeight = mseWeight;
  options.averagedFraction = averagedFraction;
  options.epochs = options.fineTuneEpochs = epochs;
  options.minSteps = minSteps;
  // train --from fine-tunes at the step size asked, too.
  options.learningRate = options.fineTuneLearningRate = learningRate;
  options.cosineDecay = cosineDecay;
  options.threads = threads;
  options.scoreChunk = scoreChunk;
  return options;
}

std::unique_ptr<CostModel> makeModel(llvm::StringRef name, EpochTimes &times,
                                     bool cropPadding = true,
                                     std::optional<uint64_t> modelSeed = {},
                                     std::optional<unsigned> modelEpochs = {}) {
  LearnedModelOptions options = learnedModelOptions();
  options.cropPadding = cropPadding;
  options.epochs = options.fineTuneEpochs = modelEpochs.value_or(epochs);
  if (modelEpochs) // A chooser of active sampling trains as it is told.
    options.minSteps = 0;
  options.onEpoch = [&times, name = name.str()](unsigned epoch, double mean,
                                                double seconds) {
    ++times.epochs;
    times.seconds += seconds;
    times.lastLoss = mean;
    if (verbose)
      llvm::errs() << llvm::formatv("{0} epoch {1}: loss {2:F5} ({3:F2} s)\n",
                                    name, epoch, mean, seconds);
  };
  if (auto learned =
          createLearnedCostModel(name, modelSeed.value_or(seed), options))
    return learned;
  return createCostModel(name, modelSeed.value_or(seed));
}

/// Active sampling as the options say, choosing with `chooser`, whose
/// models' epoch callback writes to `times` (which must outlive them).
ProgramSelectionOptions makeSelectionOptions(llvm::StringRef chooser,
                                             EpochTimes &times) {
  ProgramSelectionOptions options;
  options.strategy = *parseSamplingStrategy(strategyName);
  options.fraction = fraction;
  options.rounds = selectRounds;
  options.ensemble = ensembleSize;
  options.seed = seed;
  if (!rduWeights.empty())
    options.weights = {rduWeights[0], rduWeights[1], rduWeights[2]};
  options.makeModel = [&times, chooser = chooser.str()](uint64_t modelSeed) {
    return makeModel(chooser, times, true, modelSeed, unsigned(selectEpochs));
  };
  options.onRound = [](unsigned round, size_t chosen, double seconds) {
    llvm::errs() << llvm::formatv("tcl-cost-model: {0} round {1}: {2} "
                                  "programs chosen ({3:F1} s)\n",
                                  strategyName, round + 1, chosen, seconds);
  };
  return options;
}

/// With --fraction below 1 (or for select): chooses the training programs
/// by --strategy with --select-model, once.
llvm::Error choosePrograms(Data &data, MLIRContext *context) {
  if (data.chosen || (fraction >= 1 && command != "select"))
    return llvm::Error::success();
  EpochTimes selectTimes;
  ProgramSelectionOptions options =
      makeSelectionOptions(selectModelName, selectTimes);
  EpochTimes times;
  std::unique_ptr<CostModel> probe = makeModel(selectModelName, times);
  auto all = data.featuresFor(probe->getFeatureKind(), context);
  if (!all)
    return all.takeError();
  std::vector<FeaturizedGroup> pool = data.pick(**all, data.split.train);
  size_t poolPrograms = 0;
  for (const FeaturizedGroup &group : pool)
    poolPrograms += group.features.size();
  auto selected = selectTrainingPrograms(pool, options);
  if (!selected)
    return selected.takeError();
  std::map<std::pair<std::string, std::string>, size_t> groupIndex;
  for (size_t index : data.split.train)
    groupIndex[{data.groups[index].workloadKey, data.groups[index].platform}] =
        index;
  data.chosen.emplace();
  size_t chosenPrograms = 0;
  for (const FeaturizedGroup &group : *selected) {
    std::set<size_t> &records =
        (*data.chosen)[groupIndex.at({group.workloadKey, group.platform})];
    records.insert(group.recordIndices.begin(), group.recordIndices.end());
    chosenPrograms += group.recordIndices.size();
  }
  llvm::errs() << llvm::formatv(
      "tcl-cost-model: {0} of {1} training programs ({2} of {3} groups) "
      "chosen by {4}\n",
      chosenPrograms, poolPrograms, selected->size(), pool.size(),
      strategyName);
  return llvm::Error::success();
}

/// select: prints the chosen programs per operator and, with -o, writes
/// them as a dataset.
llvm::Error selectCommand(Data &data, MLIRContext *context) {
  if (llvm::Error error = choosePrograms(data, context))
    return error;
  std::map<std::string, std::pair<size_t, size_t>> perAnchor;
  std::map<std::string, std::pair<size_t, size_t>> groupsPerAnchor;
  std::vector<DatasetGroup> subset;
  for (size_t index : data.split.train) {
    const DatasetGroup &group = data.groups[index];
    std::optional<WorkloadEntry> workload =
        data.database->getWorkload(group.workloadKey);
    std::string anchor = workload ? workload->anchor : std::string("?");
    auto records = data.chosen->find(index);
    size_t taken = records == data.chosen->end() ? 0 : records->second.size();
    perAnchor[anchor].first += group.records.size();
    perAnchor[anchor].second += taken;
    ++groupsPerAnchor[anchor].first;
    groupsPerAnchor[anchor].second += taken ? 1 : 0;
    if (!taken)
      continue;
    DatasetGroup chosenGroup = group;
    chosenGroup.records.clear();
    for (size_t record : records->second)
      chosenGroup.records.push_back(group.records[record]);
    subset.push_back(std::move(chosenGroup));
  }
  llvm::outs() << "| operator | groups | with a program chosen | programs | "
                  "chosen | share |\n| --- | ---: | ---: | ---: | ---: | ---: "
                  "|\n";
  for (auto &[anchor, counts] : perAnchor)
    llvm::outs() << llvm::formatv(
        "| {0} | {1} | {2} | {3} | {4} | {5:P} |\n", anchor,
        groupsPerAnchor[anchor].first, groupsPerAnchor[anchor].second,
        counts.first, counts.second,
        counts.first ? double(counts.second) / counts.first : 0.0);
  if (outputPath.empty())
    return llvm::Error::success();
  DatasetManifest manifest;
  manifest.command = "tcl-cost-model select --strategy=" + strategyName +
                     " --fraction=" + formatNumber(fraction) +
                     " --seed=" + std::to_string(seed) +
                     " --split=" + splitSpec +
                     " --select-model=" + selectModelName;
  manifest.date = currentTimeIso();
  manifest.seed = std::to_string(seed);
  manifest.machine = describeHost();
  manifest.notes = "programs chosen by active sampling from " +
                   (dataDirs.empty() ? std::string(databasePath)
                                     : llvm::join(dataDirs, ", "));
  if (llvm::Error error =
          exportDatasetGroups(*data.database, subset, outputPath, manifest))
    return error;
  llvm::outs() << "wrote " << outputPath << "\n";
  return llvm::Error::success();
}

/// --per-task: each held-out task's top-1, a row per task and platform and
/// a column per model, printed after the summary rows.
class PerTaskTable {
public:
  void add(llvm::StringRef model, llvm::ArrayRef<FeaturizedGroup> groups,
           const CostModelEvaluation &result) {
    size_t column = llvm::find(models, model) - models.begin();
    if (column == models.size())
      models.push_back(model.str());
    for (auto [group, top1] : llvm::zip(groups, result.groupTop1)) {
      auto [row, added] =
          rowOf.try_emplace({group.platform, group.workloadKey}, rows.size());
      if (added)
        rows.push_back(
            {group.platform, group.workloadKey, group.latencies.size(), {}});
      rows[row->second].top1[column] = top1;
    }
  }

  void print() const {
    if (rows.empty())
      return;
    llvm::outs() << "\n| platform | task | programs |";
    for (const std::string &model : models)
      llvm::outs() << " " << model << " |";
    llvm::outs() << "\n| --- | --- | ---: |";
    for (size_t i = 0; i < models.size(); ++i)
      llvm::outs() << " ---: |";
    llvm::outs() << "\n";
    for (const Row &row : rows) {
      llvm::outs() << "| " << row.platform << " | " << row.task << " | "
                   << row.programs << " |";
      for (size_t column = 0; column < models.size(); ++column) {
        auto found = row.top1.find(column);
        llvm::outs() << (found == row.top1.end()
                             ? std::string(" - |")
                             : llvm::formatv(" {0:F3} |", found->second).str());
      }
      llvm::outs() << "\n";
    }
  }

private:
  struct Row {
    std::string platform, task;
    size_t programs;
    std::map<size_t, double> top1;
  };
  std::vector<std::string> models;
  std::vector<Row> rows;
  std::map<std::pair<std::string, std::string>, size_t> rowOf;
};

PerTaskTable perTaskTable;

void printRowHeader() {
  llvm::outs() << "| model | parameters | train (s) | s/epoch | score 4096 "
                  "(ms) | held out | groups / programs | top-1 | top-5 | "
                  "Spearman | NDCG@5 | pairwise acc. |\n"
                  "| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | "
                  "---: | ---: | ---: | ---: |\n";
}

void printRow(llvm::StringRef name, const CostModel &model,
              const EpochTimes &times, double trainSeconds,
              llvm::StringRef heldOut, const CostModelEvaluation &result) {
  llvm::outs() << llvm::formatv(
      "| {0} | {1} | {2:F1} | {3} | {4:F1} | {5} | {6} / {7} | {8:F3} | "
      "{9:F3} | {10:F3} | {11:F3} | {12:F3} |\n",
      name,
      model.getNumParameters() ? std::to_string(model.getNumParameters())
                               : std::string("-"),
      trainSeconds,
      times.epochs ? llvm::formatv("{0:F2}", times.seconds / times.epochs).str()
                   : std::string("-"),
      result.scoreSecondsPer4096 * 1e3, heldOut, result.testTasks,
      result.testRecords, result.top1, result.top5, result.spearman,
      result.ndcg5, result.pairwiseAccuracy);
}

/// Ranks the held-out groups of each platform with `model` (trained) and
/// prints a row per platform (and, with --per-task, keeps each task's
/// top-1 for the table printed at the end).
void reportHeldOut(Data &data, const std::vector<FeaturizedGroup> &all,
                   llvm::StringRef name, CostModel &model,
                   const EpochTimes &times, double trainSeconds) {
  double score4096 = timeScoring4096(model, data.pick(all, data.split.test));
  for (const std::string &platform : data.testPlatforms()) {
    std::vector<FeaturizedGroup> test =
        data.pick(all, data.split.test, platform);
    CostModelEvaluation result = rankHeldOut(model, test);
    result.scoreSecondsPer4096 = score4096;
    printRow(name, model, times, trainSeconds, platform, result);
    if (perTask)
      perTaskTable.add(name, test, result);
  }
}

/// Trains `name` on the split's training groups, then evaluates it per
/// held-out platform; with `save`, writes the model there.
llvm::Error trainAndReport(Data &data, llvm::StringRef name,
                           MLIRContext *context, llvm::StringRef save,
                           llvm::StringRef from) {
  EpochTimes times;
  std::unique_ptr<CostModel> model = makeModel(name, times);
  if (!model)
    return error("unknown model '" + name + "'");
  if (!from.empty())
    if (llvm::Error loadError = model->load(from))
      return loadError;
  auto all = data.featuresFor(model->getFeatureKind(), context);
  if (!all)
    return all.takeError();
  std::vector<FeaturizedGroup> training = data.trainingGroups(**all);
  std::vector<CostSample> samples = makeSamples(training);
  auto start = std::chrono::steady_clock::now();
  if (llvm::Error updateError = model->update(samples))
    return updateError;
  double trainSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  // The file names the platforms it learned (with those of the model it
  // started from): a search elsewhere learns its platform in an active
  // column.
  std::set<std::string> learned;
  for (const std::string &platform : model->getLearnedPlatforms())
    learned.insert(platform);
  for (const FeaturizedGroup &group : training)
    learned.insert(group.platform);
  model->setLearnedPlatforms({learned.begin(), learned.end()});
  if (!save.empty())
    if (llvm::Error saveError = model->save(save))
      return saveError;
  reportHeldOut(data, **all, name, *model, times, trainSeconds);
  return llvm::Error::success();
}

/// One contender of time-scoring: a trained model and its timings.
struct ScoringContender {
  std::string label;
  std::unique_ptr<CostModel> model;
  std::vector<double> seconds;
};

/// time-scoring: trains each model on the split's training groups, then
/// times scoring one batch of 4096 held-out programs, the models taking
/// turns so that the host's load changes hit them alike.
llvm::Error timeScoringCommand(Data &data, llvm::ArrayRef<std::string> names,
                               MLIRContext *context) {
  std::vector<ScoringContender> contenders;
  std::map<FeatureKind, std::vector<std::vector<float>>> batches;
  for (const std::string &name : names) {
    EpochTimes times;
    std::unique_ptr<CostModel> model = makeModel(name, times);
    auto all = data.featuresFor(model->getFeatureKind(), context);
    if (!all)
      return all.takeError();
    if (!batches.count(model->getFeatureKind()))
      batches[model->getFeatureKind()] =
          makeScoringBatch(data.pick(**all, data.split.test));
    if (llvm::Error updateError =
            model->update(makeSamples(data.trainingGroups(**all))))
      return updateError;
    if (model->getFeatureKind() == FeatureKind::Sequence) {
      // The same weights, scoring every row of the padded programs.
      llvm::SmallString<128> path;
      if (std::error_code code =
              llvm::sys::fs::createTemporaryFile("tcl-cost-model", "bin", path))
        return error("cannot create a temporary file: " + code.message());
      llvm::FileRemover remover(path);
      std::unique_ptr<CostModel> padded = makeModel(name, times, false);
      if (llvm::Error saveError = model->save(path))
        return saveError;
      if (llvm::Error loadError = padded->load(path))
        return loadError;
      contenders.push_back({name + " (padded)", std::move(padded), {}});
    }
    contenders.push_back({name, std::move(model), {}});
  }
  for (unsigned run = 0; run < std::max(1u, unsigned(repeats)); ++run)
    for (ScoringContender &contender : contenders)
      contender.seconds.push_back(timeScoring(
          *contender.model, batches[contender.model->getFeatureKind()]));

  auto median = [](std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
  };
  double reference = 0;
  for (ScoringContender &contender : contenders)
    if (contender.label == "xgboost")
      reference = median(contender.seconds);
  llvm::outs() << "| model | threads | programs | median (ms) | min (ms) | "
                  "max (ms) | programs/s | / xgboost |\n"
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
  for (ScoringContender &contender : contenders) {
    double mid = median(contender.seconds);
    auto [low, high] =
        std::minmax_element(contender.seconds.begin(), contender.seconds.end());
    size_t programs = batches[contender.model->getFeatureKind()].size();
    llvm::outs() << llvm::formatv(
        "| {0} | {1} | {2} | {3:F1} | {4:F1} | {5:F1} | {6:F0} | {7} |\n",
        contender.label, unsigned(threads), programs, mid * 1e3, *low * 1e3,
        *high * 1e3, mid > 0 ? programs / mid : 0.0,
        reference > 0 ? llvm::formatv("{0:F1}x", mid / reference).str()
                      : std::string("-"));
  }
  return llvm::Error::success();
}

/// continual: the platforms in --platforms order, learned one after
/// another by a continual model and the baselines (ContinualStudy.h); a
/// row per learner and platform after each stage, then the forgetting and
/// each later platform against a model of all its programs.
llvm::Error continualCommand(Data &data, MLIRContext *context) {
  if (platforms.size() < 2)
    return error("continual needs --platforms with two or more platforms, "
                 "in the order to learn them");
  std::unique_ptr<CostModel> probe =
      createLearnedCostModel(modelName, seed, {});
  if (!probe)
    return error("continual needs a learned --model (mamba, tlp, mlp), not '" +
                 modelName + "'");
  auto all = data.featuresFor(probe->getFeatureKind(), context);
  if (!all)
    return all.takeError();
  ContinualStudyOptions options;
  options.platforms.assign(platforms.begin(), platforms.end());
  options.model = modelName;
  options.training = learnedModelOptions();
  options.continual.ewcWeight = ewcWeight;
  options.continual.distillEpochs = distillEpochs;
  options.continual.distillOnUnmeasured = distillOnPool;
  options.continual.rehearsalWeight = rehearsalWeight;
  options.continual.gateInit = gateInit;
  options.continual.heldBackShare = heldBack;
  options.continual.columnStart = *learned::parseColumnStart(columnStart);
  options.fraction = fraction;
  options.baselines = !skipBaselines;
  options.knowledgeBasePath = outputPath;
  options.seed = seed;
  // The later platforms' programs are chosen with the model that learns.
  EpochTimes selectTimes;
  ProgramSelectionOptions selection =
      makeSelectionOptions(modelName, selectTimes);
  if (fraction < 1)
    options.choose = [&selection](llvm::ArrayRef<FeaturizedGroup> pool) {
      return selectTrainingPrograms(pool, selection);
    };
  llvm::outs() << "| stage | learner | platform | training programs | top-1 "
                  "| top-5 | note |\n| ---: | --- | --- | ---: | ---: | ---: "
                  "| --- |\n";
  auto rows = runContinualStudy(
      data.pick(**all, data.split.train), data.pick(**all, data.split.test),
      options, [](const ContinualStudyRow &row) {
        llvm::outs() << llvm::formatv("| {0} | {1} | {2} | {3} | {4:F3} | "
                                      "{5:F3} | {6} |\n",
                                      row.stage, row.learner, row.platform,
                                      row.trainPrograms, row.top1, row.top5,
                                      row.note);
        llvm::outs().flush();
      });
  if (!rows)
    return rows.takeError();

  // Forgetting: how far each learner's top-1 on a platform fell from the
  // stage that learned it to the last stage.
  const unsigned last = unsigned(options.platforms.size());
  auto top1At = [&](llvm::StringRef learner, llvm::StringRef platform,
                    unsigned stage) -> std::optional<double> {
    for (const ContinualStudyRow &row : *rows)
      if (row.learner == learner && row.platform == platform &&
          row.stage == stage)
        return row.top1;
    return std::nullopt;
  };
  llvm::outs() << "\n| learner | platform | top-1 when learned | top-1 at "
                  "the end | drop |\n| --- | --- | ---: | ---: | ---: |\n";
  for (llvm::StringRef learner : {"continual (knowledge base)", "fine-tuned"})
    for (unsigned stage = 1; stage < last; ++stage) {
      const std::string &platform = options.platforms[stage - 1];
      auto then = top1At(learner, platform, stage);
      auto now = top1At(learner, platform, last);
      if (then && now)
        llvm::outs() << llvm::formatv("| {0} | {1} | {2:F3} | {3:F3} | "
                                      "{4:F3} |\n",
                                      learner, platform, *then, *now,
                                      *then - *now);
    }
  return llvm::Error::success();
}

/// online: see OnlineStudy.h.
llvm::Error onlineCommand(Data &data, MLIRContext *context) {
  std::unique_ptr<CostModel> pretrained =
      createLearnedCostModel(modelName, seed, learnedModelOptions());
  if (!pretrained)
    return error("online compares how a learned --model (mamba, tlp, mlp) "
                 "learns a run, not '" +
                 modelName + "'");
  // With --split none the training groups are the held-out ones: a model
  // trained on them here, or XGBoost refitted on them, would rank what it
  // has seen.
  bool heldOutTrained = splitSpec == "none";
  if (heldOutTrained && modelFile.empty())
    return error("online --split none needs --model-file (a checkpoint "
                 "trained elsewhere): a model trained here would have seen "
                 "the programs it ranks");
  auto learnedGroups = data.featuresFor(pretrained->getFeatureKind(), context);
  if (!learnedGroups)
    return learnedGroups.takeError();
  auto summaryGroups = data.featuresFor(FeatureKind::Summary, context);
  if (!summaryGroups)
    return summaryGroups.takeError();
  std::vector<FeaturizedGroup> learnedTraining =
      data.pick(**learnedGroups, data.split.train);
  std::vector<FeaturizedGroup> learnedTest =
      data.pick(**learnedGroups, data.split.test);
  std::vector<FeaturizedGroup> summaryTraining =
      data.pick(**summaryGroups, data.split.train);
  std::vector<FeaturizedGroup> summaryTest =
      data.pick(**summaryGroups, data.split.test);

  // Every learned contender starts from the same file.
  std::string checkpoint = modelFile;
  llvm::SmallString<128> temporary;
  std::optional<llvm::FileRemover> remover;
  if (checkpoint.empty()) {
    if (std::error_code code =
            llvm::sys::fs::createTemporaryFile("tcl-online", "bin", temporary))
      return error("cannot make a temporary file: " + code.message());
    remover.emplace(temporary);
    if (llvm::Error trainError =
            pretrained->update(makeSamples(learnedTraining)))
      return trainError;
    if (llvm::Error saveError = pretrained->save(temporary))
      return saveError;
    checkpoint = std::string(temporary);
  }
  // The learned contenders learn the run as the search's model does (its
  // default options: a few epochs a fine-tuning update), not as --epochs
  // trains the checkpoint; --learning-rate and --loss, if given, set their
  // step and loss.
  auto loaded = [&](LearnedModelOptions::OnlineLearning online) {
    return [&, online]() -> llvm::Expected<std::unique_ptr<CostModel>> {
      LearnedModelOptions options;
      options.threads = threads;
      if (learningRate.getNumOccurrences())
        options.fineTuneLearningRate = learningRate;
      if (loss.getNumOccurrences())
        options.fineTuneLoss = loss;
      options.online = online;
      std::unique_ptr<CostModel> model =
          createLearnedCostModel(modelName, seed, options);
      if (llvm::Error loadError = model->load(checkpoint))
        return std::move(loadError);
      return std::move(model);
    };
  };
  auto xgboost = []() -> llvm::Expected<std::unique_ptr<CostModel>> {
    return createCostModel("xgboost", seed);
  };
  using OnlineLearning = LearnedModelOptions::OnlineLearning;
  std::vector<OnlineContender> contenders = {
      {modelName.getValue() + " (frozen)", loaded(OnlineLearning::FineTune),
       learnedTraining, learnedTest, /*learns=*/false},
      {modelName.getValue() + " (fine-tuned)", loaded(OnlineLearning::FineTune),
       learnedTraining, learnedTest},
      {modelName.getValue() + " (corrected)", loaded(OnlineLearning::Correct),
       learnedTraining, learnedTest},
      {"xgboost (the run)", xgboost, summaryTraining, summaryTest}};
  if (!heldOutTrained)
    contenders.push_back({"xgboost (dataset + the run)", xgboost,
                          summaryTraining, summaryTest,
                          /*learns=*/true, /*withTrainingSamples=*/true});
  if (closedLoop) {
    contenders.push_back({"random",
                          []() -> llvm::Expected<std::unique_ptr<CostModel>> {
                            return createCostModel("random", seed);
                          },
                          summaryTraining, summaryTest});
    ClosedLoopOptions options;
    options.batch = loopBatch;
    options.rounds = selectRounds;
    options.seed = seed;
    auto rows = runClosedLoopStudy(contenders, options);
    if (!rows)
      return rows.takeError();
    llvm::outs() << "| measured a task | model | fastest / found (mean) | "
                    "tasks at their fastest | update (s) |\n"
                    "| ---: | --- | ---: | ---: | ---: |\n";
    for (const ClosedLoopRow &row : *rows)
      llvm::outs() << llvm::formatv(
          "| {0} | {1} | {2:F3} | {3:F3} | {4:F2} |\n", row.measured,
          row.contender, row.found, row.foundBest, row.updateSeconds);
    return llvm::Error::success();
  }
  OnlineStudyOptions options;
  if (!measuredCounts.empty())
    options.measured.assign(measuredCounts.begin(), measuredCounts.end());
  options.seed = seed;
  auto rows = runOnlineStudy(contenders, options);
  if (!rows)
    return rows.takeError();
  llvm::outs() << "| measured a task | model | tasks / programs ranked | "
                  "top-1 | top-5 | update (s) |\n"
                  "| ---: | --- | ---: | ---: | ---: | ---: |\n";
  for (const OnlineStudyRow &row : *rows)
    llvm::outs() << llvm::formatv(
        "| {0} | {1} | {2} / {3} | {4:F3} | {5:F3} | {6:F2} |\n", row.measured,
        row.contender, row.tasks, row.programs, row.top1, row.top5,
        row.updateSeconds);
  return llvm::Error::success();
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  showOnlyInHelp({&toolCategory});
  llvm::cl::ParseCommandLineOptions(argc, argv,
                                    "tcl cost model training and evaluation\n");
  // Checked before loading the data (seconds): a typo fails at once.
  if (command != "train" && command != "evaluate" && command != "compare" &&
      command != "time-scoring" && command != "select" &&
      command != "continual" && command != "online")
    return fail(error("unknown command '" + command +
                      "' (train, evaluate, compare, time-scoring, select, "
                      "continual, online)"));
  if (!parseSamplingStrategy(strategyName))
    return fail(error("unknown sampling strategy '" + strategyName + "' (" +
                      getSamplingStrategyNames() + ")"));
  if (trainTiming != "median" && trainTiming != "min")
    return fail(
        error("unknown --train-timing '" + trainTiming + "' (median, min)"));
  if (!(fraction > 0 && fraction <= 1))
    return fail(
        error("--fraction must be in (0, 1], not " + formatNumber(fraction)));
  if (!(heldBack >= 0 && heldBack < 1))
    return fail(
        error("--held-back must be in [0, 1), not " + formatNumber(heldBack)));
  if (!learned::parseColumnStart(columnStart))
    return fail(error("unknown --column-start '" + columnStart +
                      "' (copy, fresh, choose)"));
  if (!rduWeights.empty() &&
      (rduWeights.size() != 3 ||
       llvm::any_of(rduWeights, [](double w) { return !(w >= 0); })))
    return fail(error("--rdu-weights takes three weights >= 0 (uncertainty, "
                      "diversity, representativeness)"));
  if (command == "select" && fraction >= 1)
    return fail(error("select needs --fraction below 1"));
  if (fraction < 1 || command == "select") {
    if (!createLearnedCostModel(selectModelName, seed, {}))
      return fail(error("--select-model must be mamba, tlp or mlp, not '" +
                        selectModelName + "'"));
    if (command == "evaluate")
      return fail(error("--fraction chooses training programs; evaluate "
                        "trains nothing"));
  }
  std::vector<std::string> names(modelNames.begin(), modelNames.end());
  if (command != "compare" && command != "time-scoring")
    names = {modelName};
  else if (names.empty() && command == "time-scoring")
    names = {"mamba", "tlp", "mlp", "xgboost"};
  else if (names.empty())
    names = {"mamba", "tlp", "mlp", "xgboost", "random"};
  std::vector<std::string> known = getCostModelNames();
  for (const std::string &name : names)
    if (!llvm::is_contained(known, name))
      return fail(error("unknown model '" + name + "' (" +
                        llvm::join(known, ", ") + ")"));

  DialectRegistry registry;
  registerTclDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  Data data;
  if (llvm::Error openError = data.open(&context))
    return fail(std::move(openError));
  llvm::errs() << "tcl-cost-model: " << data.groups.size() << " groups, "
               << data.split.train.size() << " for training, "
               << data.split.test.size() << " held out (" << splitSpec << ")\n";
  if (trainMaxSpread > 0) {
    TrainingLabelOptions labels = trainingLabels();
    size_t records = 0, noisy = 0;
    for (size_t index : data.split.train)
      for (const TuningRecord &record : data.groups[index].records) {
        ++records;
        noisy += labels.leavesOut(record);
      }
    llvm::errs() << "tcl-cost-model: --train-max-spread leaves " << noisy
                 << " of " << records << " training records out\n";
  }

  if (command == "select") {
    if (llvm::Error selectError = selectCommand(data, &context))
      return fail(std::move(selectError));
    return 0;
  }
  if (command == "continual") {
    if (llvm::Error continualError = continualCommand(data, &context))
      return fail(std::move(continualError));
    return 0;
  }
  if (command == "online") {
    if (llvm::Error onlineError = onlineCommand(data, &context))
      return fail(std::move(onlineError));
    return 0;
  }
  if (command != "evaluate")
    if (llvm::Error chooseError = choosePrograms(data, &context))
      return fail(std::move(chooseError));
  if (command == "train") {
    printRowHeader();
    if (llvm::Error trainError =
            trainAndReport(data, modelName, &context, outputPath, fromPath))
      return fail(std::move(trainError));
    if (perTask)
      perTaskTable.print();
    return 0;
  }
  if (command == "evaluate") {
    if (modelFile.empty())
      return fail(error("evaluate needs --model-file"));
    EpochTimes times;
    std::unique_ptr<CostModel> model = makeModel(modelName, times);
    if (!model)
      return fail(error("unknown model '" + modelName + "'"));
    if (llvm::Error loadError = model->load(modelFile))
      return fail(std::move(loadError));
    auto all = data.featuresFor(model->getFeatureKind(), &context);
    if (!all)
      return fail(all.takeError());
    printRowHeader();
    reportHeldOut(data, **all, modelName, *model, times, 0);
    if (perTask)
      perTaskTable.print();
    return 0;
  }
  if (command == "time-scoring") {
    if (llvm::Error timeError = timeScoringCommand(data, names, &context))
      return fail(std::move(timeError));
    return 0;
  }
  // compare
  printRowHeader();
  for (const std::string &name : names)
    if (llvm::Error compareError = trainAndReport(data, name, &context, "", ""))
      return fail(std::move(compareError));
  if (perTask)
    perTaskTable.print();
  return 0;
}
