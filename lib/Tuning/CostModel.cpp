//===- CostModel.cpp - Cost models that guide the search ------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/CostModel.h"

#include "tcl/Support/InstallPaths.h"
#include "tcl/Tuning/Learned/ModelConfig.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <dlfcn.h>
#include <xgboost/c_api.h>

using namespace mlir;
using namespace mlir::tcl;

namespace {

llvm::Error modelError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Scores at random: the baseline every learned model must beat.
class RandomCostModel : public CostModel {
public:
  explicit RandomCostModel(uint64_t seed) : rng(seed) {}
  llvm::StringRef getName() const override { return "random"; }
  llvm::Error update(llvm::ArrayRef<CostSample>) override {
    return llvm::Error::success();
  }
  std::vector<double>
  predict(llvm::ArrayRef<std::vector<float>> features) override {
    std::uniform_real_distribution<double> uniform(0, 1);
    std::vector<double> scores;
    for (size_t i = 0; i < features.size(); ++i)
      scores.push_back(uniform(rng));
    return scores;
  }
  llvm::Error save(llvm::StringRef path) const override {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec)
      return modelError("cannot write '" + path + "': " + ec.message());
    os << "random\n";
    return llvm::Error::success();
  }
  llvm::Error load(llvm::StringRef path) override {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    if (!buffer || !(*buffer)->getBuffer().starts_with("random"))
      return modelError("'" + path + "' is not a random cost model");
    return llvm::Error::success();
  }

private:
  std::mt19937_64 rng;
};

/// Gradient-boosted trees (XGBoost's C API), refitted from scratch on every
/// update with Ansor's settings.
class XGBoostCostModel : public CostModel {
public:
  explicit XGBoostCostModel(uint64_t seed) : seed(seed) {}
  ~XGBoostCostModel() override {
    if (booster)
      XGBoosterFree(booster);
  }
  llvm::StringRef getName() const override { return "xgboost"; }

  llvm::Error update(llvm::ArrayRef<CostSample> samples) override {
    if (samples.empty())
      return llvm::Error::success();
    size_t width = samples.front().features.size();
    std::vector<float> data, labels;
    for (const CostSample &sample : samples) {
      if (sample.features.size() != width)
        return modelError("xgboost: samples differ in feature width");
      data.insert(data.end(), sample.features.begin(), sample.features.end());
      labels.push_back(sample.label);
    }
    DMatrixHandle matrix;
    if (XGDMatrixCreateFromMat(data.data(), samples.size(), width, NAN,
                               &matrix) != 0)
      return modelError(llvm::Twine("xgboost: ") + XGBGetLastError());
    XGDMatrixSetFloatInfo(matrix, "label", labels.data(), labels.size());
    if (booster)
      XGBoosterFree(booster);
    booster = nullptr;
    if (XGBoosterCreate(&matrix, 1, &booster) != 0) {
      XGDMatrixFree(matrix);
      return modelError(llvm::Twine("xgboost: ") + XGBGetLastError());
    }
    std::string seedText = std::to_string(seed);
    for (auto [key, value] :
         {std::pair<const char *, const char *>{"max_depth", "10"},
          {"eta", "0.2"},
          {"min_child_weight", "0"},
          {"gamma", "0.0001"},
          {"objective", "reg:squarederror"},
          {"tree_method", "hist"},
          {"nthread", "1"},
          {"verbosity", "0"},
          {"seed", seedText.c_str()}})
      XGBoosterSetParam(booster, key, value);
    for (int round = 0; round < kRounds; ++round)
      if (XGBoosterUpdateOneIter(booster, round, matrix) != 0) {
        XGDMatrixFree(matrix);
        return modelError(llvm::Twine("xgboost: ") + XGBGetLastError());
      }
    XGDMatrixFree(matrix);
    return llvm::Error::success();
  }

  std::vector<double>
  predict(llvm::ArrayRef<std::vector<float>> features) override {
    std::vector<double> scores(features.size(), 0.0);
    if (!booster || features.empty())
      return scores;
    size_t width = features.front().size();
    std::vector<float> data;
    for (const std::vector<float> &row : features)
      data.insert(data.end(), row.begin(), row.end());
    DMatrixHandle matrix;
    if (XGDMatrixCreateFromMat(data.data(), features.size(), width, NAN,
                               &matrix) != 0)
      return scores;
    bst_ulong length = 0;
    const float *result = nullptr;
    if (XGBoosterPredict(booster, matrix, 0, 0, 0, &length, &result) == 0)
      for (bst_ulong i = 0; i < length && i < scores.size(); ++i)
        scores[i] = result[i];
    XGDMatrixFree(matrix);
    return scores;
  }

  llvm::Error save(llvm::StringRef path) const override {
    if (!booster)
      return modelError("xgboost: nothing to save before the first update");
    if (XGBoosterSaveModel(booster, path.str().c_str()) != 0)
      return modelError(llvm::Twine("xgboost: ") + XGBGetLastError());
    return llvm::Error::success();
  }
  llvm::Error load(llvm::StringRef path) override {
    if (!llvm::sys::fs::exists(path))
      return modelError("xgboost: no model at '" + path + "'");
    BoosterHandle loaded;
    if (XGBoosterCreate(nullptr, 0, &loaded) != 0 ||
        XGBoosterLoadModel(loaded, path.str().c_str()) != 0)
      return modelError(llvm::Twine("xgboost: ") + XGBGetLastError());
    if (booster)
      XGBoosterFree(booster);
    booster = loaded;
    return llvm::Error::success();
  }

private:
  static constexpr int kRounds = 60;
  uint64_t seed;
  BoosterHandle booster = nullptr;
};

} // namespace

std::unique_ptr<CostModel>
mlir::tcl::createCostModel(llvm::StringRef name, uint64_t seed,
                           const LearnedModelOptions &learned) {
  if (name == "random")
    return std::make_unique<RandomCostModel>(seed);
  if (name == "xgboost")
    return std::make_unique<XGBoostCostModel>(seed);
  return createLearnedCostModel(name, seed, learned);
}

namespace {

/// libTclLearned.so's factory (tclCreateLearnedCostModel in
/// LearnedCostModel.cpp), or why the library could not be opened.
struct LearnedLibrary {
  using Create = decltype(&tclCreateLearnedCostModel);
  Create create = nullptr;
  std::string error;
};

const LearnedLibrary &getLearnedLibrary() {
  static const LearnedLibrary library = [] {
    LearnedLibrary opened;
    // The build (and an installation) puts the library in lib/ beside bin/,
    // where the tools and the tests are.
    std::string path = getInstallPath("lib/libTclLearned.so");
    if (path.empty()) {
      opened.error = "the learned cost models (mamba, tlp, mlp) are in "
                     "lib/libTclLearned.so beside the program's bin/, and "
                     "the program's own path is unknown";
      return opened;
    }
    // Never closed: the models it makes live as long as their owners.
    void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    const char *symbol = "tclCreateLearnedCostModel";
    if (handle)
      opened.create =
          reinterpret_cast<LearnedLibrary::Create>(dlsym(handle, symbol));
    if (!opened.create)
      opened.error = "the learned cost models (mamba, tlp, mlp) are in '" +
                     path + "', which cannot be " +
                     (handle ? "used (it has no " + std::string(symbol) + ")"
                             : "loaded: " + std::string(dlerror()));
    return opened;
  }();
  return library;
}

} // namespace

llvm::Error mlir::tcl::openLearnedCostModels() {
  const LearnedLibrary &library = getLearnedLibrary();
  if (library.create)
    return llvm::Error::success();
  return llvm::createStringError(llvm::inconvertibleErrorCode(), library.error);
}

bool mlir::tcl::isLearnedCostModel(llvm::StringRef name) {
  return learned::parseModelKind(name).has_value();
}

std::unique_ptr<CostModel>
mlir::tcl::createLearnedCostModel(llvm::StringRef name, uint64_t seed,
                                  LearnedModelOptions options) {
  if (!isLearnedCostModel(name) || !getLearnedLibrary().create)
    return nullptr;
  return std::unique_ptr<CostModel>(
      getLearnedLibrary().create(name.str().c_str(), seed, &options));
}

std::optional<LearnedModelOptions::OnlineLearning>
mlir::tcl::parseOnlineLearning(llvm::StringRef name) {
  using OnlineLearning = LearnedModelOptions::OnlineLearning;
  if (name == "finetune")
    return OnlineLearning::FineTune;
  if (name == "correct")
    return OnlineLearning::Correct;
  return std::nullopt;
}

std::vector<std::string> mlir::tcl::getCostModelNames() {
  return {"random", "xgboost", "mamba", "tlp", "mlp"};
}

FailureOr<std::vector<float>>
mlir::tcl::scheduleFeatures(ScheduleOp schedule, const TaskFeatures &task,
                            const HardwareFeatures *hardware) {
  Tokenizer tokenizer;
  FailureOr<std::vector<float>> matrix =
      tokenizer.tokenize(schedule, task, hardware);
  if (failed(matrix))
    return failure();
  constexpr unsigned width = Tokenizer::kWidth;
  constexpr unsigned tokenWidth = Tokenizer::kTokenWidth;
  std::vector<float> sum(tokenWidth, 0), max(tokenWidth, 0);
  float length = 0;
  for (unsigned row = 0; row < tokenizer.getMaxLength(); ++row) {
    const float *values = matrix->data() + row * width;
    bool any = false;
    for (unsigned col = 0; col < tokenWidth; ++col) {
      sum[col] += values[col];
      max[col] = std::max(max[col], values[col]);
      any |= values[col] != 0;
    }
    length += any;
  }
  std::vector<float> features = sum;
  features.insert(features.end(), max.begin(), max.end());
  features.push_back(length);
  features.insert(features.end(), matrix->begin() + tokenWidth,
                  matrix->begin() + width);
  return features;
}

FailureOr<std::vector<float>>
mlir::tcl::featurize(ScheduleOp schedule, const TaskFeatures &task,
                     const HardwareFeatures *hardware, FeatureKind kind) {
  if (kind == FeatureKind::Sequence)
    return Tokenizer().tokenize(schedule, task, hardware);
  return scheduleFeatures(schedule, task, hardware);
}
