//===- TrainTest.cpp - The models learn to rank ---------------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// A synthetic ranking problem with the shape of the real one: tasks
// (groups) of candidate programs, each a sequence of tokens padded with
// zero rows, labelled with throughput relative to the task's best. The
// throughput depends on a few token features; every model must learn to
// rank held-out tasks clearly better than chance.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/Learned/RankingModel.h"

#include "PairwiseAccuracy.h"
#include "TempFile.h"
#include "WeightAverage.h"

#include "gtest/gtest.h"

#include <cmath>
#include <map>
#include <random>

using namespace mlir::tcl::learned;
using mlir::tcl::learned::test::pairwiseAccuracy;

namespace {

constexpr unsigned kRows = 8, kWidth = 12;

/// A model saved to a temporary file, to load copies of it.
class TempModel {
public:
  explicit TempModel(const RankingModel &model) {
    EXPECT_FALSE(bool(model.save(file.path)));
  }
  std::unique_ptr<RankingModel> load() const {
    auto loaded = RankingModel::load(file.path);
    EXPECT_TRUE(bool(loaded));
    return loaded ? std::move(*loaded) : nullptr;
  }

private:
  test::TempFile file;
};

/// `groups` tasks of `perGroup` programs. A task has a fixed number of
/// primitives (3..8 real tokens) and a task feature in the last column of
/// every token; throughput is exp(Σ_tokens x0 - 0.5 x1 + 0.25 x2 x3).
ProgramSet makeTasks(unsigned groups, unsigned perGroup, unsigned firstGroup,
                     uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1, 1);
  std::uniform_int_distribution<unsigned> length(3, kRows);
  ProgramSet set(kRows, kWidth);
  std::vector<float> program(kRows * kWidth);
  for (unsigned g = 0; g < groups; ++g) {
    unsigned real = length(rng);
    float taskFeature = uniform(rng) * 3;
    std::vector<std::vector<float>> programs;
    std::vector<double> throughput;
    for (unsigned p = 0; p < perGroup; ++p) {
      std::fill(program.begin(), program.end(), 0.0f);
      double latent = 0;
      for (unsigned r = 0; r < real; ++r) {
        float *token = &program[r * kWidth];
        for (unsigned c = 0; c + 1 < kWidth; ++c)
          token[c] = uniform(rng);
        token[kWidth - 1] = taskFeature;
        latent += token[0] - 0.5 * token[1] + 0.25 * token[2] * token[3];
      }
      programs.push_back(program);
      throughput.push_back(std::exp(latent));
    }
    double best = *std::max_element(throughput.begin(), throughput.end());
    for (unsigned p = 0; p < perGroup; ++p)
      set.append(programs[p].data(), float(throughput[p] / best),
                 firstGroup + g);
  }
  return set;
}

class LearnsToRank : public ::testing::TestWithParam<ModelKind> {};

TEST_P(LearnsToRank, BeatsRandomRankingOnHeldOutTasks) {
  ProgramSet train = makeTasks(20, 32, 0, 1);
  ProgramSet heldOut = makeTasks(8, 32, 100, 2);

  auto model =
      RankingModel::create(ModelConfig(GetParam(), kRows, kWidth, /*seed=*/1));
  ASSERT_TRUE(bool(model)) << llvm::toString(model.takeError());
  (*model)->setThreads(1);

  auto before = (*model)->predict(heldOut);
  ASSERT_TRUE(bool(before));
  double accuracyBefore = pairwiseAccuracy(heldOut, *before);

  TrainOptions options;
  options.loss = LossKind::LambdaRank;
  options.epochs = 25;
  options.learningRate = 2e-3;
  options.groupsPerBatch = 4;
  options.programsPerGroup = 32;
  options.threads = 1;
  std::vector<double> losses;
  options.onEpoch = [&](unsigned epoch, double loss, double seconds) {
    EXPECT_EQ(epoch, losses.size());
    EXPECT_GE(seconds, 0.0);
    losses.push_back(loss);
  };
  llvm::Error error = (*model)->train(train, options);
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
  ASSERT_EQ(losses.size(), options.epochs);
  EXPECT_LT(losses.back(), losses.front());

  auto after = (*model)->predict(heldOut);
  ASSERT_TRUE(bool(after));
  double accuracy = pairwiseAccuracy(heldOut, *after);
  RecordProperty("accuracy_before", std::to_string(accuracyBefore));
  RecordProperty("accuracy", std::to_string(accuracy));
  EXPECT_GT(accuracy, 0.75) << "before training: " << accuracyBefore;
}

INSTANTIATE_TEST_SUITE_P(
    , LearnsToRank,
    ::testing::Values(ModelKind::Mamba, ModelKind::Transformer, ModelKind::MLP),
    [](const auto &info) { return getModelKindName(info.param).str(); });

TEST(Training, CosineDecayRunsFromTheRateToItsFloor) {
  TrainOptions options;
  options.learningRate = 2e-3;
  EXPECT_EQ(learningRateAt(options, 0, 101), 2e-3);
  EXPECT_EQ(learningRateAt(options, 100, 101), 2e-3);
  options.cosineDecay = true;
  options.minLearningRateFraction = 0.1;
  EXPECT_DOUBLE_EQ(learningRateAt(options, 0, 101), 2e-3);
  EXPECT_DOUBLE_EQ(learningRateAt(options, 50, 101), 2e-3 * 0.55);
  EXPECT_DOUBLE_EQ(learningRateAt(options, 100, 101), 2e-3 * 0.1);
  EXPECT_DOUBLE_EQ(learningRateAt(options, 25, 101),
                   2e-3 * (0.1 + 0.9 * 0.5 * (1 + std::sqrt(0.5))));
  // One batch in all: the full rate.
  EXPECT_DOUBLE_EQ(learningRateAt(options, 0, 1), 2e-3);

  // A floor outside [0, 1] is refused.
  ProgramSet train = makeTasks(2, 4, 0, 3);
  auto model = RankingModel::create(ModelConfig(ModelKind::MLP, kRows, kWidth));
  ASSERT_TRUE(bool(model));
  options.minLearningRateFraction = 1.5;
  llvm::Error error = (*model)->train(train, options);
  ASSERT_TRUE(bool(error));
  EXPECT_NE(
      llvm::toString(std::move(error))
          .find("the least learning rate fraction must be in [0, 1], not 1.5"),
      std::string::npos);
}

TEST(Training, WeightAverageIsTheMeanOfTheAddedWeights) {
  torch::Tensor w = torch::tensor({1.0f, -2.0f});
  WeightAverage average({w});
  average.apply(); // nothing added: unchanged
  EXPECT_TRUE(torch::equal(w, torch::tensor({1.0f, -2.0f})));
  for (float step : {1.0f, 2.0f, 6.0f}) {
    w.copy_(torch::tensor({step, -2 * step}));
    average.add();
  }
  EXPECT_EQ(average.size(), 3u);
  average.apply();
  EXPECT_TRUE(torch::allclose(w, torch::tensor({3.0f, -6.0f})));
}

// Averaging changes the result only over more than one step: averaging the
// last step alone gives the plain run's model, and averaging is
// deterministic.
TEST(Training, AveragingTheLastStepsIsDeterministic) {
  ProgramSet train = makeTasks(8, 8, 0, 3);
  ProgramSet test = makeTasks(4, 8, 100, 4);
  auto trained = [&](double fraction) {
    auto model =
        RankingModel::create(ModelConfig(ModelKind::Mamba, kRows, kWidth, 2));
    EXPECT_TRUE(bool(model));
    TrainOptions options;
    options.epochs = 4;
    options.threads = 1;
    options.groupsPerBatch = 2;
    options.averagedFraction = fraction;
    EXPECT_FALSE(bool((*model)->train(train, options)));
    (*model)->setThreads(1);
    auto scores = (*model)->predict(test);
    EXPECT_TRUE(bool(scores));
    return *scores;
  };
  std::vector<float> plain = trained(0);
  // 16 steps: a fraction of 0.05 averages only the last one.
  EXPECT_EQ(trained(0.05), plain);
  std::vector<float> averaged = trained(0.5);
  EXPECT_NE(averaged, plain);
  EXPECT_EQ(trained(0.5), averaged);
}

/// The LambdaRank loss of `model` on `set`, summed over its groups.
double rankingLoss(RankingModel &model, const ProgramSet &set) {
  auto scores = model.predict(set);
  EXPECT_TRUE(bool(scores));
  std::map<unsigned, std::pair<std::vector<double>, std::vector<double>>>
      groups;
  for (size_t i = 0; i < set.size(); ++i) {
    groups[set.groups[i]].first.push_back((*scores)[i]);
    groups[set.groups[i]].second.push_back(set.labels[i]);
  }
  double loss = 0;
  for (auto &[group, scoresAndLabels] : groups)
    loss += lambdaRankLoss(scoresAndLabels.first, scoresAndLabels.second, 1.0);
  return loss;
}

// Online learning: a pretrained model fine-tuned on a search's first few
// measurements (two tasks, one batch an epoch) learns from them. One epoch
// is one step of a fresh Adam and barely moves it; minSteps makes the
// update take enough steps to lower the loss on those records clearly.
TEST(Training, FineTuningOnFewRecordsLowersTheirLoss) {
  auto model =
      RankingModel::create(ModelConfig(ModelKind::Mamba, kRows, kWidth, 4));
  ASSERT_TRUE(bool(model));
  TrainOptions options;
  options.epochs = 3;
  options.threads = 1;
  ASSERT_FALSE(bool((*model)->train(makeTasks(16, 12, 0, 5), options)));

  // The run's records: tasks the model has not seen, whose throughput
  // follows the opposite rule (labels mirrored).
  ProgramSet run = makeTasks(2, 12, 200, 6);
  for (float &label : run.labels)
    label = 1.0f - label;
  double before = rankingLoss(**model, run);
  TempModel saved(**model);
  options.epochs = 1;
  auto oneStep = saved.load();
  ASSERT_FALSE(bool(oneStep->train(run, options)));
  options.minSteps = 24;
  auto enough = saved.load();
  ASSERT_FALSE(bool(enough->train(run, options)));
  double afterOneStep = rankingLoss(*oneStep, run);
  double afterEnough = rankingLoss(*enough, run);
  EXPECT_LT(afterEnough, 0.7 * before);
  EXPECT_LT(afterEnough, afterOneStep);
}

TEST(Training, MseRunsAndSingleProgramTasksAreSkippedByLambdaRank) {
  ProgramSet train = makeTasks(6, 1, 0, 3); // one program per task
  auto model = RankingModel::create(ModelConfig(ModelKind::MLP, kRows, kWidth));
  ASSERT_TRUE(bool(model));
  TrainOptions options;
  options.loss = LossKind::LambdaRank;
  options.epochs = 2;
  options.threads = 1;
  unsigned epochs = 0;
  options.onEpoch = [&](unsigned, double loss, double) {
    EXPECT_EQ(loss, 0.0);
    ++epochs;
  };
  EXPECT_FALSE(bool((*model)->train(train, options)));
  EXPECT_EQ(epochs, 2u);

  // MSE, alone or added to LambdaRank, learns from lone programs too.
  for (LossKind loss : {LossKind::MSE, LossKind::LambdaRankMSE}) {
    options.loss = loss;
    unsigned positive = 0;
    options.onEpoch = [&](unsigned, double value, double) {
      positive += value > 0;
    };
    EXPECT_FALSE(bool((*model)->train(train, options)));
    EXPECT_EQ(positive, 2u) << getLossKindName(loss).str();
  }
}

} // namespace
