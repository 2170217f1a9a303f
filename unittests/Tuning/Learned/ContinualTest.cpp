//===- ContinualTest.cpp - Continual learning across platforms ------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The EWC penalty, the lateral gates, and a continual run over two
// synthetic platforms whose rules conflict: plain fine-tuning forgets the
// first, the continual model's knowledge base keeps much more of it.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/Learned/ContinualModel.h"
#include "tcl/Tuning/Learned/RankingModel.h"

#include "ElasticWeights.h"
#include "PairwiseAccuracy.h"

#include "gtest/gtest.h"

#include <cmath>
#include <optional>
#include <random>

using namespace mlir::tcl::learned;
using mlir::tcl::learned::test::pairwiseAccuracy;

namespace {

constexpr unsigned kRows = 4, kWidth = 6;

/// `groups` tasks of `perGroup` programs on platform `platform` (0 or 1,
/// the last column of every token, as the hardware part of a real token).
/// Throughput on platform 0 grows with Σ x0, on platform 1 it falls with it
/// and grows with Σ x1: what one platform learned misleads on the other.
ProgramSet makePlatform(unsigned platform, unsigned groups, unsigned perGroup,
                        uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1, 1);
  ProgramSet set(kRows, kWidth);
  std::vector<float> program(kRows * kWidth);
  for (unsigned g = 0; g < groups; ++g) {
    std::vector<std::vector<float>> programs;
    std::vector<double> throughput;
    for (unsigned p = 0; p < perGroup; ++p) {
      double latent = 0;
      for (unsigned r = 0; r < kRows; ++r) {
        float *token = &program[r * kWidth];
        for (unsigned c = 0; c + 1 < kWidth; ++c)
          token[c] = uniform(rng);
        token[kWidth - 1] = float(platform) + 1;
        latent += platform == 0 ? token[0] : token[1] - token[0];
      }
      programs.push_back(program);
      throughput.push_back(std::exp(latent));
    }
    double best = *std::max_element(throughput.begin(), throughput.end());
    for (unsigned p = 0; p < perGroup; ++p)
      set.append(programs[p].data(), float(throughput[p] / best), g);
  }
  return set;
}

TrainOptions quickTraining() {
  TrainOptions options;
  options.epochs = 30;
  options.threads = 1;
  options.groupsPerBatch = 4;
  options.programsPerGroup = 16;
  return options;
}

/// A continual model of `config` and `options` that has learned its first
/// platform from `first` (null, with a failed expectation, if it could not).
std::unique_ptr<ContinualModel> learnedFirst(const ModelConfig &config,
                                             const ContinualOptions &options,
                                             const ProgramSet &first) {
  auto model = ContinualModel::create(config, options);
  if (!model) {
    ADD_FAILURE() << llvm::toString(model.takeError());
    return nullptr;
  }
  if (llvm::Error error = (*model)->learnPlatform(first, quickTraining())) {
    ADD_FAILURE() << llvm::toString(std::move(error));
    return nullptr;
  }
  return std::move(*model);
}

/// learnedFirst, then `second` learned with `train` (and `pool` as its
/// unmeasured programs, if given); null, with a failed expectation, if it
/// could not.
std::unique_ptr<ContinualModel>
learnedTwo(const ModelConfig &config, const ContinualOptions &options,
           const ProgramSet &first, const ProgramSet &second,
           const TrainOptions &train, const ProgramSet *pool = nullptr) {
  auto model = learnedFirst(config, options, first);
  if (!model)
    return nullptr;
  if (llvm::Error error = model->learnPlatform(second, train, pool)) {
    ADD_FAILURE() << llvm::toString(std::move(error));
    return nullptr;
  }
  return model;
}

/// `model`'s scores of `set` by `column` (empty, with a failed expectation,
/// if it could not score).
std::vector<float> scoresOf(const ContinualModel &model, const ProgramSet &set,
                            ContinualModel::Column column) {
  auto scores = model.predict(set, column);
  if (!scores) {
    ADD_FAILURE() << llvm::toString(scores.takeError());
    return {};
  }
  return *scores;
}

TEST(ElasticWeights, PenaltyIsZeroAtTheAnchorAndGrowsAwayFromIt) {
  torch::Tensor weights = torch::tensor({1.0f, -2.0f, 0.5f}).requires_grad_();
  ElasticWeights elastic({weights});
  EXPECT_EQ(elastic.penalty().item<double>(), 0.0); // nothing learned yet
  // Loss (3 w0 + w1)²: w2 does not matter, w0 three times as much as w1.
  torch::Tensor input = torch::tensor({3.0f, 1.0f, 0.0f});
  elastic.addBatch((weights * input).sum().square());
  elastic.consolidate();
  EXPECT_EQ(elastic.penalty().item<double>(), 0.0);
  {
    torch::NoGradGuard noGrad;
    weights.add_(torch::tensor({0.1f, 0.1f, 0.1f}));
  }
  double near = elastic.penalty().item<double>();
  {
    torch::NoGradGuard noGrad;
    weights.add_(torch::tensor({0.1f, 0.1f, 0.1f}));
  }
  double far = elastic.penalty().item<double>();
  EXPECT_GT(near, 0.0);
  EXPECT_NEAR(far, 4 * near, 1e-5 * far); // quadratic in the distance
  // Moving only the weight the loss ignores costs nothing.
  ElasticWeights fresh({weights});
  fresh.addBatch((weights * input).sum().square());
  fresh.consolidate();
  {
    torch::NoGradGuard noGrad;
    weights.add_(torch::tensor({0.0f, 0.0f, 5.0f}));
  }
  EXPECT_EQ(fresh.penalty().item<double>(), 0.0);
  // It is differentiable in the weights, pulling them back.
  {
    torch::NoGradGuard noGrad;
    weights.add_(torch::tensor({0.2f, 0.0f, 0.0f}));
  }
  torch::Tensor gradient =
      torch::autograd::grad({fresh.penalty()}, {weights})[0];
  EXPECT_GT(gradient[0].item<float>(), 0.0f);
}

TEST(ContinualModel, GatesStartAtTheirValueAndLearn) {
  ContinualOptions options;
  options.gateInit = 0.25f;
  options.distillEpochs = 1;
  ModelConfig config(ModelKind::MLP, kRows, kWidth, /*seed=*/3);
  ProgramSet first = makePlatform(0, 6, 12, 1);
  ProgramSet second = makePlatform(1, 6, 12, 2);
  TrainOptions train = quickTraining();
  train.epochs = 2;

  auto untrained = ContinualModel::create(config, options);
  ASSERT_TRUE(bool(untrained)) << llvm::toString(untrained.takeError());
  EXPECT_TRUE((*untrained)->getGates().empty());
  ASSERT_FALSE(bool((*untrained)->learnPlatform(first, train)));
  TrainOptions none = train;
  none.epochs = 0; // the active column is made but not trained
  ASSERT_FALSE(bool((*untrained)->learnPlatform(second, none)));
  std::vector<float> gates = (*untrained)->getGates();
  ASSERT_EQ(gates.size(), config.mlpHidden);
  for (float gate : gates)
    EXPECT_EQ(gate, 0.25f);

  auto trained = ContinualModel::create(config, options);
  ASSERT_TRUE(bool(trained));
  ASSERT_FALSE(bool((*trained)->learnPlatform(first, train)));
  ASSERT_FALSE(bool((*trained)->learnPlatform(second, train)));
  EXPECT_EQ((*trained)->getNumPlatformsLearned(), 2u);
  gates = (*trained)->getGates();
  size_t moved = 0;
  for (float gate : gates)
    moved += gate != 0.25f;
  EXPECT_GT(moved, gates.size() / 2);
}

TEST(ContinualModel, ForgetsLessThanFineTuning) {
  ProgramSet trainA = makePlatform(0, 24, 16, 11);
  ProgramSet trainB = makePlatform(1, 24, 16, 12);
  ProgramSet testA = makePlatform(0, 12, 16, 13);
  ProgramSet testB = makePlatform(1, 12, 16, 14);
  ModelConfig config(ModelKind::MLP, kRows, kWidth, /*seed=*/5);
  TrainOptions train = quickTraining();

  // Plain fine-tuning: A, then B from there.
  auto sequential = RankingModel::create(config);
  ASSERT_TRUE(bool(sequential));
  (*sequential)->setThreads(1);
  ASSERT_FALSE(bool((*sequential)->train(trainA, train)));
  auto learnedA = (*sequential)->predict(testA);
  ASSERT_TRUE(bool(learnedA));
  double accuracyBefore = pairwiseAccuracy(testA, *learnedA);
  ASSERT_FALSE(bool((*sequential)->train(trainB, train)));
  auto forgotA = (*sequential)->predict(testA);
  ASSERT_TRUE(bool(forgotA));
  double sequentialA = pairwiseAccuracy(testA, *forgotA);

  EXPECT_GT(accuracyBefore, 0.8); // A was learned
  EXPECT_LT(sequentialA, 0.6);    // and fine-tuning on B forgot it

  // The continual model keeps more of A, by the EWC penalty (with the
  // distillation of 10 epochs it was measured with) or by the default's
  // rehearsal of A's hardware column.
  ContinualOptions byPenalty;
  byPenalty.ewcWeight = 100;
  byPenalty.rehearsalWeight = 0;
  byPenalty.distillEpochs = 10;
  ContinualOptions byRehearsal;
  byRehearsal.hardwareBegin = kWidth - 1;
  byRehearsal.hardwareEnd = kWidth;
  for (const ContinualOptions &options : {byPenalty, byRehearsal}) {
    SCOPED_TRACE(options.ewcWeight > 0 ? "EWC" : "rehearsal");
    auto continual = ContinualModel::create(config, options);
    ASSERT_TRUE(bool(continual));
    ASSERT_FALSE(bool((*continual)->learnPlatform(trainA, train)));
    EXPECT_EQ((*continual)->getEwcPenalty(), 0.0); // at the anchor
    ASSERT_FALSE(bool((*continual)->learnPlatform(trainB, train)));
    std::vector<float> keptA =
        scoresOf(**continual, testA, ContinualModel::Column::KnowledgeBase);
    std::vector<float> activeB =
        scoresOf(**continual, testB, ContinualModel::Column::Active);
    ASSERT_FALSE(keptA.empty() || activeB.empty());
    double continualA = pairwiseAccuracy(testA, keptA);
    EXPECT_GT(continualA, sequentialA + 0.15);
    EXPECT_GT(pairwiseAccuracy(testB, activeB), 0.8); // B is learned too

    // Five of B's 24 tasks were held back to judge the column, epoch by
    // epoch: A's rules mislead on B, so it beat the KB there and was
    // distilled, after at most the epochs asked for.
    ContinualModel::ColumnChoice choice = (*continual)->getLastColumnChoice();
    EXPECT_TRUE(choice.distilled);
    EXPECT_GE(choice.epochs, 1u);
    EXPECT_LE(choice.epochs, train.epochs);
    EXPECT_GT(choice.columnTop1, choice.knowledgeTop1);
  }
}

/// Rehearsal (ContinualOptions::rehearsalWeight): B's programs shown with
/// A's hardware column keep the KB ranking A as it did, without A's data
/// and without the EWC penalty, while it still learns B.
TEST(ContinualModel, RehearsalKeepsAnEarlierPlatformWithoutItsData) {
  ProgramSet trainA = makePlatform(0, 24, 16, 71);
  ProgramSet trainB = makePlatform(1, 24, 16, 72);
  ProgramSet testA = makePlatform(0, 12, 16, 73);
  ProgramSet testB = makePlatform(1, 12, 16, 74);
  ModelConfig config(ModelKind::MLP, kRows, kWidth, /*seed=*/19);
  TrainOptions train = quickTraining();
  using Column = ContinualModel::Column;
  struct Accuracies {
    double a, b;
  };
  auto knowledgeAfterB = [&](double rehearsal) -> std::optional<Accuracies> {
    ContinualOptions options;
    options.ewcWeight = 0;
    options.heldBackShare = 0; // always distilled
    options.distillEpochs = 30;
    options.distillLearningRate = 3e-3;
    options.rehearsalWeight = rehearsal;
    options.hardwareBegin = kWidth - 1; // the platform's column
    options.hardwareEnd = kWidth;
    auto continual = learnedTwo(config, options, trainA, trainB, train);
    if (!continual)
      return std::nullopt;
    std::vector<float> onA = scoresOf(*continual, testA, Column::KnowledgeBase),
                       onB = scoresOf(*continual, testB, Column::KnowledgeBase);
    if (onA.empty() || onB.empty())
      return std::nullopt;
    return Accuracies{pairwiseAccuracy(testA, onA),
                      pairwiseAccuracy(testB, onB)};
  };
  std::optional<Accuracies> plain = knowledgeAfterB(0),
                            rehearsed = knowledgeAfterB(10);
  ASSERT_TRUE(plain && rehearsed);
  // (Measured: A 0.29 -> 0.87 of pairs, B 0.84 -> 0.82.)
  EXPECT_LT(plain->a, 0.5);                // plain distillation forgot A
  EXPECT_GT(rehearsed->a, plain->a + 0.3); // rehearsal kept it
  EXPECT_GT(rehearsed->b, 0.75);           // and B was learned all the same
}

/// A column that never ranks the held-back tasks better than the KB is not
/// distilled: the KB keeps its weights. (Here it cannot: it trains for no
/// epoch at all. Always distilled, the KB would learn the scores of a column
/// that is the KB plus a random lateral term.)
TEST(ContinualModel, AColumnNoBetterThanTheKnowledgeBaseIsNotDistilled) {
  ProgramSet trainA = makePlatform(0, 24, 16, 31);
  ProgramSet trainB = makePlatform(1, 24, 16, 32);
  ProgramSet testB = makePlatform(1, 12, 16, 33);
  ModelConfig config(ModelKind::MLP, kRows, kWidth, /*seed=*/9);
  auto continual = learnedFirst(config, ContinualOptions(), trainA);
  ASSERT_TRUE(continual);
  using Column = ContinualModel::Column;
  auto before = continual->predict(testB, Column::KnowledgeBase);
  ASSERT_TRUE(bool(before));
  TrainOptions none = quickTraining();
  none.epochs = 0;
  ASSERT_FALSE(bool(continual->learnPlatform(trainB, none)));
  ContinualModel::ColumnChoice choice = continual->getLastColumnChoice();
  EXPECT_FALSE(choice.distilled);
  EXPECT_EQ(choice.epochs, 0u);
  EXPECT_GT(choice.knowledgeTop1, 0.0);
  auto after = continual->predict(testB, Column::KnowledgeBase);
  ASSERT_TRUE(bool(after));
  EXPECT_EQ(*after, *before);
  EXPECT_EQ(continual->getNumPlatformsLearned(), 2u);

  // Held back nothing, the column is distilled whatever it learned.
  ContinualOptions always;
  always.heldBackShare = 0;
  auto distilled = learnedFirst(config, always, trainA);
  ASSERT_TRUE(distilled);
  ASSERT_FALSE(bool(distilled->learnPlatform(trainB, none)));
  choice = distilled->getLastColumnChoice();
  EXPECT_TRUE(choice.distilled);
  EXPECT_EQ(choice.knowledgeTop1, 0.0);
  auto moved = distilled->predict(testB, Column::KnowledgeBase);
  ASSERT_TRUE(bool(moved));
  EXPECT_NE(*moved, *before);
}

/// With programs of the new platform to check it on, the KD phase is kept
/// only if it brings the KB's order of them nearer its teacher's.
TEST(ContinualModel, ADistillationThatDoesNotFollowItsTeacherIsUndone) {
  ProgramSet trainA = makePlatform(0, 24, 16, 41);
  ProgramSet conflicting = makePlatform(1, 24, 16, 42);
  ProgramSet poolB = makePlatform(1, 12, 16, 43);
  ModelConfig config(ModelKind::MLP, kRows, kWidth, /*seed=*/11);
  TrainOptions train = quickTraining();
  using Column = ContinualModel::Column;

  // A column that learned rules the KB did not know teaches them: kept.
  ContinualOptions options;
  options.heldBackShare = 0; // always distilled
  auto taught = learnedFirst(config, options, trainA);
  ASSERT_TRUE(taught);
  auto before = taught->predict(poolB, Column::KnowledgeBase);
  ASSERT_TRUE(bool(before));
  ASSERT_FALSE(bool(taught->learnPlatform(conflicting, train, &poolB)));
  ContinualModel::ColumnChoice choice = taught->getLastColumnChoice();
  EXPECT_TRUE(choice.distilled);
  EXPECT_TRUE(choice.kept);
  EXPECT_GT(choice.agreementAfter, choice.agreementBefore);
  auto after = taught->predict(poolB, Column::KnowledgeBase);
  ASSERT_TRUE(bool(after));
  EXPECT_NE(*after, *before);

  // A step size far too large scrambles the KB: undone, its weights back.
  options.distillLearningRate = 1.0;
  auto scrambled = learnedFirst(config, options, trainA);
  ASSERT_TRUE(scrambled);
  ProgramSet sameRules = makePlatform(0, 24, 16, 44);
  ProgramSet poolA = makePlatform(0, 12, 16, 45);
  before = scrambled->predict(poolA, Column::KnowledgeBase);
  ASSERT_TRUE(bool(before));
  llvm::Error error = scrambled->learnPlatform(sameRules, train, &poolA);
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
  choice = scrambled->getLastColumnChoice();
  EXPECT_TRUE(choice.distilled);
  EXPECT_FALSE(choice.kept);
  EXPECT_LT(choice.agreementAfter, choice.agreementBefore);
  after = scrambled->predict(poolA, Column::KnowledgeBase);
  ASSERT_TRUE(bool(after));
  EXPECT_EQ(*after, *before);
  EXPECT_EQ(scrambled->getNumPlatformsLearned(), 2u);
}

/// ContinualOptions::distillOnUnmeasured: the KD phase teaches the KB on
/// the platform's unmeasured pool, whose labels it never reads, instead of
/// on the measured programs.
TEST(ContinualModel, DistillsOnThePoolWithoutReadingItsLabels) {
  ProgramSet trainA = makePlatform(0, 24, 16, 61);
  ProgramSet trainB = makePlatform(1, 24, 16, 62);
  ProgramSet poolB = makePlatform(1, 12, 16, 63);
  ProgramSet testB = makePlatform(1, 12, 16, 64);
  // The same pool with every label wrong: the reverse of its order.
  ProgramSet unlabelledB = poolB;
  for (float &label : unlabelledB.labels)
    label = 1.0f - label;
  ModelConfig config(ModelKind::MLP, kRows, kWidth, /*seed=*/17);
  auto knowledgeAfter = [&](bool onPool, const ProgramSet &pool) {
    ContinualOptions options;
    options.heldBackShare = 0; // always distilled
    options.distillOnUnmeasured = onPool;
    auto continual =
        learnedTwo(config, options, trainA, trainB, quickTraining(), &pool);
    if (!continual)
      return std::vector<float>();
    EXPECT_TRUE(continual->getLastColumnChoice().distilled);
    return scoresOf(*continual, testB, ContinualModel::Column::KnowledgeBase);
  };
  std::vector<float> onMeasured = knowledgeAfter(false, poolB),
                     onPool = knowledgeAfter(true, poolB),
                     onUnlabelled = knowledgeAfter(true, unlabelledB);
  ASSERT_FALSE(onMeasured.empty() || onPool.empty() || onUnlabelled.empty());
  EXPECT_NE(onPool, onMeasured);
  EXPECT_EQ(onPool, onUnlabelled);
}

/// The active column starts as a copy of the KB or fresh, whichever ranks
/// the held-back tasks better at its best epoch (ColumnStart::Choose): the
/// same column, epochs and scores as the winning start alone.
TEST(ContinualModel, TheColumnStartsAsTheHeldBackTasksChoose) {
  ProgramSet trainA = makePlatform(0, 24, 16, 51);
  ProgramSet trainB = makePlatform(1, 24, 16, 52);
  ProgramSet testB = makePlatform(1, 12, 16, 53);
  ModelConfig config(ModelKind::MLP, kRows, kWidth, /*seed=*/13);
  TrainOptions train = quickTraining();
  train.epochs = 3;
  using Column = ContinualModel::Column;
  using Start = ContinualOptions::ColumnStart;
  struct Learned {
    ContinualModel::ColumnChoice choice;
    std::vector<float> scores;
  };
  auto learnB = [&](Start start) -> std::optional<Learned> {
    ContinualOptions options;
    options.columnStart = start;
    auto continual = learnedTwo(config, options, trainA, trainB, train);
    if (!continual)
      return std::nullopt;
    return Learned{continual->getLastColumnChoice(),
                   scoresOf(*continual, testB, Column::Active)};
  };
  std::optional<Learned> copy = learnB(Start::Copy),
                         fresh = learnB(Start::Fresh),
                         chosen = learnB(Start::Choose);
  ASSERT_TRUE(copy && fresh && chosen);
  EXPECT_FALSE(copy->choice.fresh);
  EXPECT_TRUE(fresh->choice.fresh);
  EXPECT_NE(copy->scores, fresh->scores);
  // A's rules mislead on B: here the fresh column ranks the held-back
  // tasks better (0.92 against 0.84), so Choose leaves the old start.
  bool freshWins = fresh->choice.columnTop1 > copy->choice.columnTop1;
  EXPECT_TRUE(freshWins);
  const Learned &winner = freshWins ? *fresh : *copy;
  EXPECT_EQ(chosen->choice.fresh, freshWins);
  EXPECT_EQ(chosen->choice.columnTop1, winner.choice.columnTop1);
  EXPECT_EQ(chosen->choice.epochs, winner.choice.epochs);
  EXPECT_EQ(chosen->scores, winner.scores);
}

TEST(ContinualModel, BadInputsAreErrors) {
  ContinualOptions options;
  options.distillEpochs = 0;
  auto refused = ContinualModel::create(
      ModelConfig(ModelKind::MLP, kRows, kWidth), options);
  ASSERT_FALSE(bool(refused));
  EXPECT_NE(llvm::toString(refused.takeError()).find("distillation"),
            std::string::npos);
  options = ContinualOptions();
  options.heldBackShare = 1;
  refused = ContinualModel::create(ModelConfig(ModelKind::MLP, kRows, kWidth),
                                   options);
  ASSERT_FALSE(bool(refused));
  EXPECT_NE(llvm::toString(refused.takeError()).find("held-back share"),
            std::string::npos);
  options = ContinualOptions();
  options.rehearsalWeight = 1;
  options.hardwareBegin = kWidth - 1;
  options.hardwareEnd = kWidth + 1;
  refused = ContinualModel::create(ModelConfig(ModelKind::MLP, kRows, kWidth),
                                   options);
  ASSERT_FALSE(bool(refused));
  EXPECT_NE(llvm::toString(refused.takeError()).find("hardware columns [5, 7)"),
            std::string::npos);
  auto model = ContinualModel::create(
      ModelConfig(ModelKind::MLP, kRows, kWidth), ContinualOptions());
  ASSERT_TRUE(bool(model));
  ProgramSet wrong(kRows + 1, kWidth);
  std::vector<float> program((kRows + 1) * kWidth, 1.0f);
  wrong.append(program.data(), 1.0f, 0);
  llvm::Error error = (*model)->learnPlatform(wrong, quickTraining());
  ASSERT_TRUE(bool(error));
  EXPECT_NE(llvm::toString(std::move(error)).find("learnPlatform: programs"),
            std::string::npos);
  error = (*model)->learnPlatform(makePlatform(0, 2, 4, 1), quickTraining(),
                                  &wrong);
  ASSERT_TRUE(bool(error));
  EXPECT_NE(llvm::toString(std::move(error)).find("unmeasured programs"),
            std::string::npos);
  EXPECT_EQ((*model)->getNumPlatformsLearned(), 0u);
}

/// A search on a platform its checkpoint has not learned: the checkpoint
/// is the knowledge base, frozen; an active column learns the platform from
/// what the search measured, call after call, and scores it.
TEST(ContinualModel, LearnsOnlineBesideASavedKnowledgeBase) {
  ProgramSet trainA = makePlatform(0, 24, 16, 21);
  ProgramSet seenB = makePlatform(1, 24, 16, 22);
  ProgramSet testA = makePlatform(0, 12, 16, 23);
  ProgramSet testB = makePlatform(1, 12, 16, 24);
  ModelConfig config(ModelKind::MLP, kRows, kWidth, /*seed=*/7);
  TrainOptions train = quickTraining();
  auto knowledge = RankingModel::create(config);
  ASSERT_TRUE(bool(knowledge));
  ASSERT_FALSE(bool((*knowledge)->train(trainA, train)));
  (*knowledge)->setPlatforms({"x86-avx512/1t@machine-a"});
  std::string path = ::testing::TempDir() + "/continual-online-kb.bin";
  ASSERT_FALSE(bool((*knowledge)->save(path)));
  auto reloaded = RankingModel::load(path);
  ASSERT_TRUE(bool(reloaded));
  EXPECT_EQ((*reloaded)->getConfig().platforms,
            std::vector<std::string>{"x86-avx512/1t@machine-a"});

  auto online = ContinualModel::fromKnowledgeBase(path, ContinualOptions());
  ASSERT_TRUE(bool(online)) << llvm::toString(online.takeError());
  EXPECT_FALSE((*online)->hasActiveColumn());
  using Column = ContinualModel::Column;
  auto beforeA = (*online)->predict(testA, Column::KnowledgeBase);
  auto beforeB = (*online)->predict(testB, Column::Active);
  ASSERT_TRUE(beforeA && beforeB);
  // Without a column, the active scores are the KB's.
  auto kbB = (*online)->predict(testB, Column::KnowledgeBase);
  ASSERT_TRUE(bool(kbB));
  EXPECT_EQ(*beforeB, *kbB);
  double startB = pairwiseAccuracy(testB, *beforeB);

  // Two updates, as a search makes them: the second continues the column.
  TrainOptions fineTune = train;
  fineTune.epochs = 15;
  ASSERT_FALSE(bool((*online)->learnOnline(seenB, fineTune)));
  EXPECT_TRUE((*online)->hasActiveColumn());
  ASSERT_FALSE(bool((*online)->learnOnline(seenB, fineTune)));
  auto afterB = (*online)->predict(testB, Column::Active);
  auto afterA = (*online)->predict(testA, Column::KnowledgeBase);
  ASSERT_TRUE(afterB && afterA);
  EXPECT_LT(startB, 0.6);                           // A misleads on B
  EXPECT_GT(pairwiseAccuracy(testB, *afterB), 0.8); // the column learned B
  EXPECT_EQ(*afterA, *beforeA);                     // the KB is untouched
  auto embedded = (*online)->embed(testB, Column::Active);
  ASSERT_TRUE(bool(embedded));
  EXPECT_EQ(embedded->size(), testB.size() * (*online)->getEmbeddingWidth());

  // A KB that learned nothing cannot teach a column.
  auto empty = ContinualModel::create(config, ContinualOptions());
  ASSERT_TRUE(bool(empty));
  llvm::Error error = (*empty)->learnOnline(seenB, fineTune);
  ASSERT_TRUE(bool(error));
  EXPECT_NE(llvm::toString(std::move(error)).find("has learned nothing"),
            std::string::npos);
  auto missing = ContinualModel::fromKnowledgeBase(path + ".missing", {});
  ASSERT_FALSE(bool(missing));
  llvm::consumeError(missing.takeError());
}

} // namespace
