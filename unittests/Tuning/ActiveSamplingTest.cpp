//===- ActiveSamplingTest.cpp - Active sampling on known pools ------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Each criterion of active sampling on small synthetic pools where the
// right choice is known (clusters in a 2-D embedding), and the offline loop
// with a stand-in model whose embedding is the features themselves.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/ActiveSampling.h"
#include "FeatureModel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace mlir;
using namespace mlir::tcl;

namespace {

/// Three clusters far apart (centers (0, 0), (20, 0), (0, 20)), each a
/// center and `ring` points at distance 1 around it; cluster c is group c
/// and operator type c. Program 0 of each cluster (index c * (ring + 1)) is
/// its center.
CandidatePool threeClusters(unsigned ring = 8) {
  CandidatePool pool;
  pool.embeddingWidth = 2;
  const float centers[3][2] = {{0, 0}, {20, 0}, {0, 20}};
  for (unsigned c = 0; c < 3; ++c)
    for (unsigned k = 0; k <= ring; ++k) {
      float x = centers[c][0], y = centers[c][1];
      if (k > 0) {
        double angle = 2 * 3.14159265358979 * (k - 1) / ring;
        x += float(std::cos(angle));
        y += float(std::sin(angle));
      }
      pool.embeddings.push_back(x);
      pool.embeddings.push_back(y);
      pool.groups.push_back(c);
      pool.operatorTypes.push_back(c);
    }
  pool.predictions.assign(pool.size(), 0.0f);
  pool.uncertainty.assign(pool.size(), 0.0f);
  return pool;
}

unsigned clusterOf(size_t index, unsigned ring = 8) {
  return unsigned(index / (ring + 1));
}

TEST(ActiveSamplingTest, StrategyNamesRoundTrip) {
  for (SamplingStrategy strategy :
       {SamplingStrategy::Random, SamplingStrategy::Uncertainty,
        SamplingStrategy::Diversity, SamplingStrategy::Representative,
        SamplingStrategy::RDU})
    EXPECT_EQ(parseSamplingStrategy(getSamplingStrategyName(strategy)),
              strategy);
  EXPECT_FALSE(parseSamplingStrategy("topk"));
  EXPECT_EQ(getSamplingStrategyNames(),
            "random, uncertainty, diversity, representative, rdu");
}

TEST(ActiveSamplingTest, RepresentativePicksTheCenters) {
  CandidatePool pool = threeClusters();
  std::vector<bool> labeled(pool.size(), false);
  auto picked =
      selectCandidates(pool, labeled, 3, SamplingStrategy::Representative);
  ASSERT_TRUE(bool(picked)) << llvm::toString(picked.takeError());
  std::set<size_t> chosen(picked->begin(), picked->end());
  EXPECT_EQ(chosen, (std::set<size_t>{0, 9, 18}));
}

TEST(ActiveSamplingTest, RepresentativeSharesTheBatchAmongOperatorTypes) {
  // Cluster 0 holds three times as many programs as cluster 1 (and no
  // cluster 2): a batch of 4 takes 3 of type 0 and 1 of type 1, although
  // type 0's programs are all denser.
  CandidatePool pool;
  pool.embeddingWidth = 1;
  for (unsigned k = 0; k < 12; ++k) {
    pool.embeddings.push_back(float(k % 3) * 0.01f);
    pool.groups.push_back(0);
    pool.operatorTypes.push_back(0);
  }
  for (unsigned k = 0; k < 4; ++k) {
    pool.embeddings.push_back(50.0f + float(k) * 10);
    pool.groups.push_back(1);
    pool.operatorTypes.push_back(1);
  }
  std::vector<bool> labeled(pool.size(), false);
  auto picked =
      selectCandidates(pool, labeled, 4, SamplingStrategy::Representative);
  ASSERT_TRUE(bool(picked)) << llvm::toString(picked.takeError());
  ASSERT_EQ(picked->size(), 4u);
  unsigned ofType1 = 0;
  for (size_t index : *picked)
    ofType1 += pool.operatorTypes[index] == 1;
  EXPECT_EQ(ofType1, 1u);
}

TEST(ActiveSamplingTest, DiversityPicksSpread) {
  // With the center of cluster 0 measured, two picks go to the two other
  // clusters, one each, before any more of cluster 0.
  CandidatePool pool = threeClusters();
  std::vector<bool> labeled(pool.size(), false);
  labeled[0] = true;
  auto picked = selectCandidates(pool, labeled, 3, SamplingStrategy::Diversity);
  ASSERT_TRUE(bool(picked)) << llvm::toString(picked.takeError());
  ASSERT_EQ(picked->size(), 3u);
  EXPECT_NE(clusterOf((*picked)[0]), 0u);
  EXPECT_NE(clusterOf((*picked)[1]), 0u);
  EXPECT_NE(clusterOf((*picked)[0]), clusterOf((*picked)[1]));
  // The third is the farthest from all chosen: a ring point of cluster 1
  // or 2 is at most 2 away from the chosen one there, cluster 0's at 1.
  EXPECT_NE(clusterOf((*picked)[2]), 0u);
  EXPECT_FALSE(llvm::is_contained(*picked, 0u));
}

TEST(ActiveSamplingTest, UncertaintyPicksWhereTheEnsembleDisagrees) {
  CandidatePool pool = threeClusters();
  pool.uncertainty[5] = 0.9f;
  pool.uncertainty[13] = 0.7f;
  pool.uncertainty[20] = 0.8f;
  pool.uncertainty[2] = 0.95f;
  std::vector<bool> labeled(pool.size(), false);
  labeled[2] = true; // measured already: not picked again
  auto picked =
      selectCandidates(pool, labeled, 3, SamplingStrategy::Uncertainty);
  ASSERT_TRUE(bool(picked)) << llvm::toString(picked.takeError());
  EXPECT_EQ(*picked, (std::vector<size_t>{5, 20, 13}));
}

TEST(ActiveSamplingTest, RduLeansTowardFastProgramsAmongEquallyDiverseOnes) {
  // Measured: the origin. Two candidates of one task equally far on either
  // side, equally dense and certain; the one predicted faster goes first.
  CandidatePool pool;
  pool.embeddingWidth = 1;
  pool.embeddings = {0, 10, -10};
  pool.groups = {0, 0, 0};
  pool.operatorTypes = {0, 0, 0};
  pool.predictions = {0.5f, 0.1f, 0.9f};
  pool.uncertainty = {0, 0.2f, 0.2f};
  std::vector<bool> labeled = {true, false, false};
  auto picked = selectCandidates(pool, labeled, 1, SamplingStrategy::RDU);
  ASSERT_TRUE(bool(picked)) << llvm::toString(picked.takeError());
  EXPECT_EQ(*picked, (std::vector<size_t>{2}));
  // With the predictions swapped, the other one.
  pool.predictions = {0.5f, 0.9f, 0.1f};
  picked = selectCandidates(pool, labeled, 1, SamplingStrategy::RDU);
  ASSERT_TRUE(bool(picked));
  EXPECT_EQ(*picked, (std::vector<size_t>{1}));
}

TEST(ActiveSamplingTest, RduAccountsForEachProgramItTakes) {
  // Uncertainty equal everywhere: RDU's first picks are one per cluster
  // (density and quotas alone would take them, and once a cluster's program
  // is taken its neighbours lose their diversity).
  CandidatePool pool = threeClusters();
  pool.uncertainty.assign(pool.size(), 0.5f);
  std::vector<bool> labeled(pool.size(), false);
  auto picked = selectCandidates(pool, labeled, 3, SamplingStrategy::RDU);
  ASSERT_TRUE(bool(picked)) << llvm::toString(picked.takeError());
  std::set<unsigned> clusters;
  for (size_t index : *picked)
    clusters.insert(clusterOf(index));
  EXPECT_EQ(clusters.size(), 3u);
}

TEST(ActiveSamplingTest, RandomIsSeededAndSkipsLabeled) {
  CandidatePool pool = threeClusters();
  std::vector<bool> labeled(pool.size(), false);
  for (size_t i = 0; i < pool.size(); i += 2)
    labeled[i] = true;
  auto first = selectCandidates(pool, labeled, 5, SamplingStrategy::Random, {},
                                /*seed=*/7);
  auto again = selectCandidates(pool, labeled, 5, SamplingStrategy::Random, {},
                                /*seed=*/7);
  ASSERT_TRUE(first && again);
  EXPECT_EQ(*first, *again);
  EXPECT_EQ(std::set<size_t>(first->begin(), first->end()).size(), 5u);
  for (size_t index : *first)
    EXPECT_FALSE(labeled[index]);
  // More than there are candidates: all of them.
  auto all = selectCandidates(pool, labeled, 100, SamplingStrategy::Random);
  ASSERT_TRUE(bool(all));
  EXPECT_EQ(all->size(), 13u);
}

TEST(ActiveSamplingTest, MissingInputsAreNamed) {
  CandidatePool pool = threeClusters();
  std::vector<bool> labeled(pool.size(), false);
  pool.uncertainty.clear();
  auto picked = selectCandidates(pool, labeled, 2, SamplingStrategy::RDU);
  ASSERT_FALSE(bool(picked));
  EXPECT_NE(llvm::toString(picked.takeError())
                .find("rdu strategy needs the "
                      "uncertainty"),
            std::string::npos);
  pool = threeClusters();
  pool.embeddings.pop_back();
  picked = selectCandidates(pool, labeled, 2, SamplingStrategy::Diversity);
  ASSERT_FALSE(bool(picked));
  EXPECT_NE(llvm::toString(picked.takeError()).find("needs an embedding"),
            std::string::npos);
}

/// Four groups of 10 programs on a line each, record indices 100 + k.
std::vector<FeaturizedGroup> linePool() {
  std::vector<FeaturizedGroup> pool(4);
  for (unsigned g = 0; g < 4; ++g) {
    pool[g].workloadKey = "w" + std::to_string(g);
    pool[g].platform = "p";
    pool[g].anchorClass = g % 2;
    for (unsigned k = 0; k < 10; ++k) {
      pool[g].features.push_back({float(k), float(g * 100)});
      pool[g].latencies.push_back(1.0 + k);
      pool[g].recordIndices.push_back(100 + k);
    }
  }
  return pool;
}

TEST(ActiveSamplingTest, OfflineLoopChoosesTheFractionBatchByBatch) {
  std::vector<FeaturizedGroup> pool = linePool();
  unsigned updates = 0;
  std::vector<size_t> chosenAfterRound;
  ProgramSelectionOptions options;
  options.strategy = SamplingStrategy::RDU;
  options.fraction = 0.5;
  options.rounds = 4;
  options.ensemble = 2;
  options.makeModel = [&](uint64_t) {
    return std::make_unique<test::FeatureModel>(&updates);
  };
  options.onRound = [&](unsigned, size_t chosen, double) {
    chosenAfterRound.push_back(chosen);
  };
  auto selected = selectTrainingPrograms(pool, options);
  ASSERT_TRUE(bool(selected)) << llvm::toString(selected.takeError());
  EXPECT_EQ(chosenAfterRound, (std::vector<size_t>{5, 10, 15, 20}));
  // The first batch is random; each later one trains the ensemble once.
  EXPECT_EQ(updates, 3u * 2u);
  size_t total = 0;
  for (const FeaturizedGroup &group : *selected) {
    const FeaturizedGroup &from = pool[std::stoi(group.workloadKey.substr(1))];
    EXPECT_EQ(group.anchorClass, from.anchorClass);
    ASSERT_EQ(group.features.size(), group.recordIndices.size());
    ASSERT_EQ(group.features.size(), group.latencies.size());
    std::set<size_t> records(group.recordIndices.begin(),
                             group.recordIndices.end());
    EXPECT_EQ(records.size(), group.recordIndices.size());
    for (auto [features, record] :
         llvm::zip(group.features, group.recordIndices))
      EXPECT_EQ(features, from.features[record - 100]);
    total += group.features.size();
  }
  EXPECT_EQ(total, 20u);
}

TEST(ActiveSamplingTest, OfflineLoopRefusesBadOptions) {
  std::vector<FeaturizedGroup> pool = linePool();
  ProgramSelectionOptions options;
  options.fraction = 0;
  auto selected = selectTrainingPrograms(pool, options);
  ASSERT_FALSE(bool(selected));
  EXPECT_NE(llvm::toString(selected.takeError()).find("(0, 1], not 0"),
            std::string::npos);
  options.fraction = 0.5;
  selected = selectTrainingPrograms(pool, options);
  ASSERT_FALSE(bool(selected));
  EXPECT_NE(llvm::toString(selected.takeError())
                .find("the rdu strategy needs a model"),
            std::string::npos);
  // Random needs no model.
  options.strategy = SamplingStrategy::Random;
  selected = selectTrainingPrograms(pool, options);
  ASSERT_TRUE(bool(selected)) << llvm::toString(selected.takeError());
}

/// A model that keeps what it was last trained on; scores the first
/// feature times the number of samples it saw with a positive first one.
class RecordingModel : public CostModel {
public:
  llvm::StringRef getName() const override { return "recording"; }
  llvm::Error update(llvm::ArrayRef<CostSample> samples) override {
    seen = samples.vec();
    return llvm::Error::success();
  }
  std::vector<double>
  predict(llvm::ArrayRef<std::vector<float>> features) override {
    double weight = 0;
    for (const CostSample &sample : seen)
      weight += sample.features[0] > 0;
    std::vector<double> scores;
    for (const std::vector<float> &program : features)
      scores.push_back(program[0] * program[0] * weight);
    return scores;
  }
  llvm::Error save(llvm::StringRef) const override {
    return llvm::Error::success();
  }
  llvm::Error load(llvm::StringRef) override { return llvm::Error::success(); }
  std::vector<CostSample> seen;
};

/// The committee's members each train on a bootstrap resample drawn task by
/// task; their spread is zero before any training and where they agree.
TEST(ActiveSamplingTest, CommitteeResamplesEachTaskAndSpreads) {
  std::vector<RecordingModel *> made;
  ModelCommittee committee(
      [&](uint64_t) -> llvm::Expected<std::unique_ptr<CostModel>> {
        auto model = std::make_unique<RecordingModel>();
        made.push_back(model.get());
        return std::move(model);
      },
      /*members=*/3, /*seed=*/1);
  std::vector<std::vector<float>> programs = {{0}, {1}, {2}, {3}};
  std::vector<double> modelScores = {0, 1, 4, 9};
  EXPECT_EQ(committee.spread(programs, modelScores),
            std::vector<float>(4, 0.0f));

  // Task 0: 6 samples with first feature -1..-6; task 1: 4 with 1..4.
  std::vector<CostSample> samples;
  for (int i = 1; i <= 6; ++i)
    samples.push_back({{float(-i)}, 0.5f, 0});
  for (int i = 1; i <= 4; ++i)
    samples.push_back({{float(i)}, 0.5f, 1});
  ASSERT_FALSE(bool(committee.update(samples)));
  ASSERT_EQ(made.size(), 3u);
  std::set<std::vector<float>> resamples;
  for (RecordingModel *member : made) {
    ASSERT_EQ(member->seen.size(), samples.size());
    unsigned inTask0 = 0;
    std::vector<float> firsts;
    for (const CostSample &sample : member->seen) {
      // Drawn from its own task.
      EXPECT_EQ(sample.group == 0, sample.features[0] < 0);
      inTask0 += sample.group == 0;
      firsts.push_back(sample.features[0]);
    }
    EXPECT_EQ(inTask0, 6u);
    resamples.insert(firsts);
  }
  // Members see different resamples (with replacement).
  EXPECT_GT(resamples.size(), 1u);
  // Standardized, every member ranks the programs alike: no spread.
  std::vector<float> spread = committee.spread(programs, modelScores);
  ASSERT_EQ(spread.size(), 4u);
  for (float value : spread)
    EXPECT_NEAR(value, 0.0f, 1e-5);
  // Scores that disagree with the members' order spread.
  std::vector<double> reversed = {9, 4, 1, 0};
  spread = committee.spread(programs, reversed);
  EXPECT_GT(*std::max_element(spread.begin(), spread.end()), 0.5f);

  // The same seed draws the same resamples.
  std::vector<RecordingModel *> again;
  ModelCommittee twin(
      [&](uint64_t) -> llvm::Expected<std::unique_ptr<CostModel>> {
        auto model = std::make_unique<RecordingModel>();
        again.push_back(model.get());
        return std::move(model);
      },
      3, 1);
  ASSERT_FALSE(bool(twin.update(samples)));
  for (size_t member = 0; member < 3; ++member)
    for (size_t i = 0; i < samples.size(); ++i)
      EXPECT_EQ(again[member]->seen[i].features,
                made[member]->seen[i].features);

  // A member that cannot be made stops the update with its error.
  ModelCommittee broken(
      [](uint64_t) -> llvm::Expected<std::unique_ptr<CostModel>> {
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "no checkpoint");
      },
      2, 1);
  EXPECT_EQ(llvm::toString(broken.update(samples)), "no checkpoint");
}

TEST(ActiveSamplingTest, StandardizedFeaturesStandInForAnEmbedding) {
  ProgramEmbeddings embedded =
      standardizeFeatures({{1, 5, 0}, {3, 5, 2}, {5, 5, 4}});
  ASSERT_EQ(embedded.width, 3u);
  ASSERT_EQ(embedded.values.size(), 9u);
  // Column 0: mean 3, deviation sqrt(8/3); the constant column is 0.
  const float unit = float(2 / std::sqrt(8.0 / 3.0));
  EXPECT_NEAR(embedded.values[0], -unit, 1e-5);
  EXPECT_NEAR(embedded.values[3], 0, 1e-6);
  EXPECT_NEAR(embedded.values[6], unit, 1e-5);
  for (size_t program = 0; program < 3; ++program)
    EXPECT_EQ(embedded.values[program * 3 + 1], 0.0f);
  EXPECT_NEAR(embedded.values[8], unit, 1e-5);
  EXPECT_EQ(standardizeFeatures({}).width, 0u);
}

/// The ensemble summary: each member standardized within its group, then
/// the mean and spread per program.
TEST(ActiveSamplingTest, EnsembleSummaryStandardizesWithinGroups) {
  // Two members agree on group 0's order at different scales, and
  // disagree on group 1's.
  EnsembleView view = summarizeEnsemble(
      {{1, 2, 3, 10, 20}, {10, 20, 30, 20, 10}}, {0, 0, 0, 1, 1});
  ASSERT_EQ(view.uncertainty.size(), 5u);
  for (size_t i = 0; i < 3; ++i)
    EXPECT_NEAR(view.uncertainty[i], 0.0f, 1e-5);
  EXPECT_NEAR(view.predictions[2], std::sqrt(1.5f), 1e-5);
  EXPECT_NEAR(view.uncertainty[3], 1.0f, 1e-5);
  EXPECT_NEAR(view.predictions[3], 0.0f, 1e-5);
}

} // namespace
