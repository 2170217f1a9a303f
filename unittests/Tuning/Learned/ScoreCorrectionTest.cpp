//===- ScoreCorrectionTest.cpp - A tuning run's correction of a model -----===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The Gaussian-process correction on programs whose embedding is one or two
// numbers: where the run measured, the corrected scores follow the
// measurements; where it did not, they keep the model's order; tasks do
// not share measurements; a model whose scores follow the labels keeps its
// scale and needs no kernel.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/Learned/ScoreCorrection.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>

using namespace mlir::tcl::learned;

namespace {

/// Programs on a line: embedding {x}, the model's score x (it believes the
/// largest x is the fastest).
struct Line {
  std::vector<std::vector<float>> embeddings;
  std::vector<ScoredProgram> programs;

  explicit Line(llvm::ArrayRef<float> xs) {
    for (float x : xs)
      embeddings.push_back({x});
    for (auto [x, embedding] : llvm::zip(xs, embeddings))
      programs.push_back({x, embedding});
  }
};

/// The run's truth: the fastest program lies at x = 0.3.
float peakedLabel(float x) {
  return std::exp(-(x - 0.3f) * (x - 0.3f) / 0.02f);
}

size_t best(const std::vector<double> &scores) {
  return std::max_element(scores.begin(), scores.end()) - scores.begin();
}

TEST(ScoreCorrection, FollowsTheMeasurementsWhereTheModelIsWrong) {
  Line measured({0.0f, 0.1f, 0.2f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f, 0.9f, 1.0f});
  std::vector<float> labels;
  for (const ScoredProgram &program : measured.programs)
    labels.push_back(peakedLabel(program.embedding[0]));
  ScoreCorrection correction;
  correction.fit(measured.programs, labels,
                 std::vector<unsigned>(labels.size(), 7));
  ASSERT_TRUE(correction.isFitted());
  // Labels fall as the scores rise past the peak: no positive scale, and
  // the residuals are the kernel's.
  EXPECT_LT(correction.getScoreScale(), 0.5);
  EXPECT_GT(correction.getLengthScale(), 0.0);
  EXPECT_GT(correction.getKernelVariance(), 0.0);

  // The model alone would pick x = 0.95; corrected, the candidate next to
  // the measured peak wins.
  Line candidates({0.05f, 0.28f, 0.55f, 0.95f});
  std::vector<double> scores = correction.correct(7, candidates.programs);
  EXPECT_EQ(best(scores), 1u);
  EXPECT_GT(scores[1], scores[3]);
  // At a measured program the corrected score is near its label (up to
  // the noise term and the task's mean).
  std::vector<double> atMeasured = correction.correct(7, measured.programs);
  for (auto [score, label] : llvm::zip(atMeasured, labels))
    EXPECT_NEAR(score, label, 0.15);
}

TEST(ScoreCorrection, KeepsTheModelsOrderWhereNothingIsMeasured) {
  Line measured({0.0f, 0.1f, 0.2f, 0.4f, 0.5f});
  std::vector<float> labels;
  for (const ScoredProgram &program : measured.programs)
    labels.push_back(peakedLabel(program.embedding[0]));
  ScoreCorrection correction;
  correction.fit(measured.programs, labels,
                 std::vector<unsigned>(labels.size(), 1));
  // Task 2 was not measured: its scores are the model's own.
  Line candidates({0.1f, 0.3f, 0.9f});
  std::vector<double> other = correction.correct(2, candidates.programs);
  EXPECT_EQ(other, std::vector<double>({0.1f, 0.3f, 0.9f}));
  // Far from every measured program of task 1 the model's order still
  // decides (the kernel says nothing there).
  Line far({40.0f, 50.0f, 60.0f});
  std::vector<double> scores = correction.correct(1, far.programs);
  EXPECT_LT(scores[0], scores[1]);
  EXPECT_LT(scores[1], scores[2]);
}

TEST(ScoreCorrection, TasksDoNotShareMeasurements) {
  // Task 1 measured its fast programs near x = 0.3, task 2 near x = 0.9;
  // each task's candidates are ranked by its own measurements.
  std::vector<float> xs, labels;
  std::vector<unsigned> tasks;
  for (unsigned task : {1u, 2u})
    for (int i = 0; i <= 10; ++i) {
      float x = i / 10.0f;
      xs.push_back(x);
      labels.push_back(peakedLabel(task == 1 ? x : x - 0.6f));
      tasks.push_back(task);
    }
  Line measured(xs);
  ScoreCorrection correction;
  correction.fit(measured.programs, labels, tasks);
  EXPECT_GT(correction.getKernelVariance(), 0.0);
  Line candidates({0.32f, 0.88f});
  EXPECT_EQ(best(correction.correct(1, candidates.programs)), 0u);
  EXPECT_EQ(best(correction.correct(2, candidates.programs)), 1u);
}

TEST(ScoreCorrection, ResidualsLikeNoiseLeaveTheScoresAlone) {
  // The labels follow the scores up to a timing noise of 1 %: no kernel,
  // and the candidates keep the model's order.
  std::vector<float> xs, labels;
  for (int i = 0; i <= 10; ++i) {
    xs.push_back(i / 10.0f);
    labels.push_back(0.5f + 0.4f * i / 10.0f + (i % 2 ? 0.01f : -0.01f));
  }
  Line measured(xs);
  ScoreCorrection correction;
  correction.fit(measured.programs, labels,
                 std::vector<unsigned>(labels.size(), 5));
  EXPECT_EQ(correction.getKernelVariance(), 0.0);
  EXPECT_NEAR(correction.getScoreScale(), 0.4, 0.02);
  Line candidates({0.15f, 0.25f, 0.35f});
  std::vector<double> scores = correction.correct(5, candidates.programs);
  EXPECT_LT(scores[0], scores[1]);
  EXPECT_LT(scores[1], scores[2]);
}

TEST(ScoreCorrection, AModelThatFollowsTheLabelsKeepsItsScale) {
  // Labels = 2 x score + a task's offset, exactly: scale 2, no residual.
  std::vector<std::vector<float>> embeddings = {{0}, {1}, {2}, {0}, {1}};
  std::vector<ScoredProgram> programs;
  std::vector<float> scores = {0.1f, 0.2f, 0.3f, 0.2f, 0.4f};
  for (auto [score, embedding] : llvm::zip(scores, embeddings))
    programs.push_back({score, embedding});
  std::vector<float> labels = {0.3f, 0.5f, 0.7f, 0.4f, 0.8f};
  ScoreCorrection correction;
  correction.fit(programs, labels, {3, 3, 3, 4, 4});
  EXPECT_NEAR(correction.getScoreScale(), 2.0, 1e-5);
  std::vector<double> corrected = correction.correct(3, programs);
  for (size_t i = 0; i < 3; ++i)
    EXPECT_NEAR(corrected[i], labels[i], 1e-4);
}

TEST(ScoreCorrection, MismatchedInputsLeaveItUnfitted) {
  Line measured({0.0f, 1.0f});
  ScoreCorrection correction;
  correction.fit(measured.programs, {0.5f}, {1, 1});
  EXPECT_FALSE(correction.isFitted());
  std::vector<double> scores = correction.correct(1, measured.programs);
  EXPECT_EQ(scores, std::vector<double>({0.0, 1.0}));
}

} // namespace
