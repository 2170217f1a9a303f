//===- ModelTest.cpp - RankingModel creation, save/load, errors -----------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/Learned/RankingModel.h"

#include "ModelImpl.h"
#include "TempFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>

using namespace mlir::tcl::learned;
using mlir::tcl::learned::test::TempFile;

namespace {

constexpr unsigned kRows = 6, kWidth = 10;

/// Random programs with 2..kRows real tokens and zero padding rows after.
ProgramSet randomPrograms(size_t count, unsigned seed, unsigned rows = kRows,
                          unsigned width = kWidth) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0, 1);
  std::uniform_int_distribution<unsigned> length(std::min(2u, rows), rows);
  ProgramSet set(rows, width);
  std::vector<float> program(rows * width);
  for (size_t p = 0; p < count; ++p) {
    std::fill(program.begin(), program.end(), 0.0f);
    unsigned real = length(rng);
    for (unsigned r = 0; r < real; ++r)
      for (unsigned c = 0; c < width; ++c)
        program[r * width + c] = normal(rng) * (1 + c) + c;
    set.append(program.data(), std::uniform_real_distribution<float>(0, 1)(rng),
               unsigned(p % 4));
  }
  return set;
}

std::string errorText(llvm::Error error) {
  return llvm::toString(std::move(error));
}

void writeFile(const std::string &path, llvm::StringRef contents) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  ASSERT_FALSE(ec) << ec.message();
  os << contents;
}

std::string readFile(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  EXPECT_TRUE(bool(buffer));
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}

class ModelKinds : public ::testing::TestWithParam<ModelKind> {};

TEST_P(ModelKinds, SaveLoadRoundTripGivesIdenticalScores) {
  ModelConfig config(GetParam(), kRows, kWidth, /*seed=*/3);
  auto model = RankingModel::create(config);
  ASSERT_TRUE(bool(model)) << errorText(model.takeError());
  EXPECT_GT((*model)->numParameters(), 1000u);
  EXPECT_FALSE((*model)->isNormalized());

  // A little training sets the normalization, which must be saved too.
  ProgramSet train = randomPrograms(48, 1);
  TrainOptions options;
  options.epochs = 1;
  options.threads = 1;
  ASSERT_FALSE(bool((*model)->train(train, options)));
  EXPECT_TRUE((*model)->isNormalized());

  ProgramSet test = randomPrograms(37, 2);
  auto before = (*model)->predict(test);
  ASSERT_TRUE(bool(before)) << errorText(before.takeError());
  ASSERT_EQ(before->size(), 37u);

  TempFile file;
  ASSERT_FALSE(bool((*model)->save(file.path)));
  auto loaded = RankingModel::load(file.path);
  ASSERT_TRUE(bool(loaded)) << errorText(loaded.takeError());
  EXPECT_EQ((*loaded)->getConfig().kind, config.kind);
  EXPECT_EQ((*loaded)->getConfig().seed, 3u);
  EXPECT_EQ((*loaded)->numParameters(), (*model)->numParameters());
  EXPECT_TRUE((*loaded)->isNormalized());
  auto after = (*loaded)->predict(test);
  ASSERT_TRUE(bool(after)) << errorText(after.takeError());
  EXPECT_EQ(*before, *after);

  // A loaded model fine-tunes from its weights.
  EXPECT_FALSE(bool((*loaded)->train(train, options)));
  auto tuned = (*loaded)->predict(test);
  ASSERT_TRUE(bool(tuned));
  EXPECT_NE(*before, *tuned);
}

TEST_P(ModelKinds, SameSeedSameModelAndChunkingDoesNotMatter) {
  ModelConfig config(GetParam(), kRows, kWidth, /*seed=*/11);
  auto a = RankingModel::create(config);
  auto b = RankingModel::create(config);
  ASSERT_TRUE(a && b);
  ProgramSet test = randomPrograms(50, 4);
  (*a)->setThreads(1);
  (*b)->setThreads(1);
  (*b)->setChunkSize(7);
  auto scoresA = (*a)->predict(test);
  auto scoresB = (*b)->predict(test);
  ASSERT_TRUE(scoresA && scoresB);
  for (size_t i = 0; i < scoresA->size(); ++i)
    EXPECT_NEAR((*scoresA)[i], (*scoresB)[i], 1e-4);

  // Training is deterministic for a seed and one thread.
  ProgramSet train = randomPrograms(64, 5);
  TrainOptions options;
  options.epochs = 2;
  options.threads = 1;
  options.groupsPerBatch = 2;
  options.programsPerGroup = 8;
  ASSERT_FALSE(bool((*a)->train(train, options)));
  ASSERT_FALSE(bool((*b)->train(train, options)));
  (*b)->setChunkSize(64);
  scoresA = (*a)->predict(test);
  scoresB = (*b)->predict(test);
  ASSERT_TRUE(scoresA && scoresB);
  EXPECT_EQ(*scoresA, *scoresB);
}

// The sequence models score and train on programs cropped to their last
// real row, scoring in order of length; that must give the scores of the
// whole padded matrices (to rounding: the matrix shapes differ), for
// programs of every length, a zero row between real ones included.
TEST_P(ModelKinds, CroppedScoringAndTrainingEqualPadded) {
  constexpr unsigned kLongRows = 16;
  ModelConfig config(GetParam(), kLongRows, kWidth, /*seed=*/5);
  auto cropped = RankingModel::create(config);
  auto padded = RankingModel::create(config);
  ASSERT_TRUE(cropped && padded);
  (*padded)->setCropPadding(false);
  ProgramSet programs = randomPrograms(90, 8, kLongRows);
  // Program 0: a zero row between real tokens, which is not padding.
  std::fill_n(programs.inputs.begin() + kWidth, kWidth, 0.0f);
  ASSERT_NE(programs.inputs[2 * kWidth], 0.0f);
  for (auto *model : {&*cropped, &*padded}) {
    (*model)->setThreads(1);
    (*model)->setChunkSize(3);
  }
  auto expectSameScores = [&](double tolerance) {
    auto a = (*cropped)->predict(programs);
    auto b = (*padded)->predict(programs);
    ASSERT_TRUE(a && b);
    ASSERT_EQ(a->size(), programs.size());
    for (size_t i = 0; i < a->size(); ++i)
      EXPECT_NEAR((*a)[i], (*b)[i], tolerance) << "program " << i;
  };
  expectSameScores(1e-4);
  TrainOptions options;
  options.epochs = 2;
  options.threads = 1;
  options.groupsPerBatch = 2;
  options.programsPerGroup = 8;
  ASSERT_FALSE(bool((*cropped)->train(programs, options)));
  ASSERT_FALSE(bool((*padded)->train(programs, options)));
  expectSameScores(1e-3);
}

TEST_P(ModelKinds, EmbeddingsAreWhatTheScoresAreMadeOf) {
  // One embedding of the network's width a program, the same whether the
  // programs are embedded alone or together, cropped or padded; programs
  // that score apart embed apart.
  constexpr unsigned kLongRows = 16;
  ModelConfig config(GetParam(), kLongRows, kWidth, /*seed=*/4);
  auto model = RankingModel::create(config);
  auto padded = RankingModel::create(config);
  ASSERT_TRUE(model && padded);
  (*padded)->setCropPadding(false);
  const unsigned expectedWidth =
      GetParam() == ModelKind::MLP ? config.mlpHidden : config.dModel;
  EXPECT_EQ((*model)->getEmbeddingWidth(), expectedWidth);
  ProgramSet programs = randomPrograms(20, 3, kLongRows);
  std::vector<const float *> all;
  for (size_t i = 0; i < programs.size(); ++i)
    all.push_back(&programs.inputs[i * kLongRows * kWidth]);
  auto together = (*model)->embed(all, kLongRows, kWidth);
  auto full = (*padded)->embed(all, kLongRows, kWidth);
  ASSERT_TRUE(together && full);
  ASSERT_EQ(together->size(), programs.size() * expectedWidth);
  for (size_t i = 0; i < together->size(); ++i)
    EXPECT_NEAR((*together)[i], (*full)[i], 1e-4) << "value " << i;
  auto alone = (*model)->embed({all[7]}, kLongRows, kWidth);
  ASSERT_TRUE(bool(alone));
  for (unsigned k = 0; k < expectedWidth; ++k)
    EXPECT_NEAR((*alone)[k], (*together)[7 * expectedWidth + k], 1e-5);
  auto scores = (*model)->predict(programs);
  ASSERT_TRUE(bool(scores));
  ASSERT_NE((*scores)[0], (*scores)[1]);
  EXPECT_FALSE(std::equal(together->begin(), together->begin() + expectedWidth,
                          together->begin() + expectedWidth));
  auto wrong = (*model)->embed(all, kLongRows - 1, kWidth);
  ASSERT_FALSE(bool(wrong));
  EXPECT_NE(errorText(wrong.takeError()).find("embed: programs are"),
            std::string::npos);
}

TEST_P(ModelKinds, WrongShapesAreErrors) {
  auto model = RankingModel::create(ModelConfig(GetParam(), kRows, kWidth));
  ASSERT_TRUE(bool(model));
  ProgramSet wide = randomPrograms(8, 1, kRows, kWidth + 1);
  auto scores = (*model)->predict(wide);
  ASSERT_FALSE(bool(scores));
  EXPECT_NE(errorText(scores.takeError()).find("reads [6, 10]"),
            std::string::npos);
  llvm::Error error = (*model)->train(wide, TrainOptions());
  ASSERT_TRUE(bool(error));
  EXPECT_NE(errorText(std::move(error)).find("programs are [6, 11]"),
            std::string::npos);

  std::vector<float> ragged(kRows * kWidth * 2 + 3, 1.0f);
  scores = (*model)->predict(ragged, kRows, kWidth);
  ASSERT_FALSE(bool(scores));
  llvm::consumeError(scores.takeError());

  ProgramSet broken = randomPrograms(8, 1);
  broken.groups.pop_back();
  error = (*model)->train(broken, TrainOptions());
  EXPECT_TRUE(bool(error));
  llvm::consumeError(std::move(error));
  ProgramSet empty(kRows, kWidth);
  error = (*model)->train(empty, TrainOptions());
  EXPECT_TRUE(bool(error));
  llvm::consumeError(std::move(error));

  // No programs: no scores, no error.
  scores = (*model)->predict(std::vector<float>(), kRows, kWidth);
  ASSERT_TRUE(bool(scores));
  EXPECT_TRUE(scores->empty());
}

INSTANTIATE_TEST_SUITE_P(
    , ModelKinds,
    ::testing::Values(ModelKind::Mamba, ModelKind::Transformer, ModelKind::MLP),
    [](const auto &info) { return getModelKindName(info.param).str(); });

TEST(RankingModel, ConstantColumnsAreOnlyCentered) {
  // A platform's hardware features are constant over its own programs. The
  // normalization must see no spread there (the one-pass variance left a
  // rounding residue of ~1e-5 over 150k rows, and another platform's value
  // then came out 1e5 times too large).
  constexpr unsigned kColumns = 3, kProgramRows = 4;
  ProgramSet set(kProgramRows, kColumns);
  std::mt19937 rng(1);
  std::normal_distribution<float> normal(0, 1);
  std::vector<float> program(kProgramRows * kColumns);
  for (unsigned p = 0; p < 40000; ++p) {
    for (unsigned r = 0; r < kProgramRows; ++r) {
      // log2(1 + 128 vector bits), log2(1 + 32768 KiB of L3), as the
      // tokenizer writes them.
      program[r * kColumns + 0] = float(std::log2(129.0));
      program[r * kColumns + 1] = float(std::log2(32769.0));
      program[r * kColumns + 2] = normal(rng);
    }
    set.append(program.data(), 1.0f, p % 8);
  }
  auto impl =
      ModelImpl::make(ModelConfig(ModelKind::MLP, kProgramRows, kColumns));
  ASSERT_TRUE(bool(impl));
  (*impl)->computeNormalization(set);
  EXPECT_EQ((*impl)->stddev[0], 1.0f);
  EXPECT_EQ((*impl)->stddev[1], 1.0f);
  EXPECT_NEAR((*impl)->mean[0], 7.0112f, 1e-4);
  EXPECT_NEAR((*impl)->stddev[2], 1.0f, 0.02);
}

TEST(RankingModel, BadConfigsAreErrors) {
  ModelConfig config(ModelKind::Transformer, 4, 8);
  config.heads = 3;
  auto model = RankingModel::create(config);
  ASSERT_FALSE(bool(model));
  EXPECT_NE(errorText(model.takeError()).find("must divide d_model"),
            std::string::npos);
  model = RankingModel::create(ModelConfig(ModelKind::Mamba, 0, 8));
  ASSERT_FALSE(bool(model));
  llvm::consumeError(model.takeError());
}

TEST(RankingModel, BadFilesAreErrors) {
  auto expectLoadError = [](const std::string &path, llvm::StringRef what) {
    auto model = RankingModel::load(path);
    ASSERT_FALSE(bool(model));
    std::string text = errorText(model.takeError());
    EXPECT_NE(text.find(what.str()), std::string::npos) << text;
  };
  expectLoadError("/nonexistent/dir/model.bin", "cannot load cost model");

  TempFile file;
  writeFile(file.path, "hello\n");
  expectLoadError(file.path, "bad header");
  writeFile(file.path, "");
  expectLoadError(file.path, "bad header");

  auto model = RankingModel::create(ModelConfig(ModelKind::Mamba, 4, 8));
  ASSERT_TRUE(bool(model));
  ASSERT_FALSE(bool((*model)->save(file.path)));
  std::string good = readFile(file.path);

  // Truncated weights.
  writeFile(file.path, llvm::StringRef(good).drop_back(5));
  expectLoadError(file.path, "truncated or corrupt");
  // One flipped bit in the weights.
  std::string flipped = good;
  flipped[flipped.size() - 3] ^= 0x10;
  writeFile(file.path, flipped);
  expectLoadError(file.path, "checksum");
  // A header that disagrees with its weights: another width.
  std::string wider = good;
  size_t at = wider.find("\nwidth 8\n");
  ASSERT_NE(at, std::string::npos);
  wider.replace(at, 9, "\nwidth 9\n");
  writeFile(file.path, wider);
  expectLoadError(file.path, "config mismatch");
  // An unknown kind and an unknown field.
  std::string kind = good;
  kind.replace(kind.find("kind mamba"), 10, "kind lstm!");
  writeFile(file.path, kind);
  expectLoadError(file.path, "unknown model kind");
  // The untouched file still loads.
  writeFile(file.path, good);
  auto loaded = RankingModel::load(file.path);
  EXPECT_TRUE(bool(loaded));
  if (!loaded)
    llvm::consumeError(loaded.takeError());
}

TEST(RankingModel, SaveToAnUnwritablePathIsAnError) {
  auto model = RankingModel::create(ModelConfig(ModelKind::MLP, 1, 8));
  ASSERT_TRUE(bool(model));
  llvm::Error error = (*model)->save("/nonexistent/dir/model.bin");
  EXPECT_TRUE(bool(error));
  llvm::consumeError(std::move(error));
}

} // namespace
