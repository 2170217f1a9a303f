//===- CostModel.h - Cost models that guide the search ----------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The search scores candidate schedules with a CostModel and does not know
// which one it holds. A model learns from measured samples (the features of
// a schedule on its task and platform, and a label: the throughput relative
// to the best of its task, so 1 is the best and 0 a failure) and predicts a
// score per candidate, higher meaning faster. Baselines here: random, and
// gradient-boosted trees (XGBoost, as in AutoTVM/Ansor) refitted on every
// update. The learned models (learned::RankingModel, libtorch) plug in
// behind the same interface: the Mamba and TLP-style sequence models read
// the token matrix, Tenset's MLP the summary vector; they train with
// LambdaRank on each update, fine-tuning from where they are.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_COSTMODEL_H
#define TCL_TUNING_COSTMODEL_H

#include "tcl/Tuning/Tokenizer.h"

#include "llvm/Support/Error.h"

#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace mlir::tcl {

struct CostSample {
  std::vector<float> features;
  /// Throughput relative to the task's best measured (0: failed).
  float label = 0;
  /// Which task the sample belongs to (for ranking objectives).
  unsigned group = 0;
};

/// The label of a sample that took `seconds` in a task whose best took
/// `bestSeconds` (infinite or unknown: 0, a failure).
inline float relativeThroughput(double seconds, double bestSeconds) {
  return std::isfinite(seconds) && seconds > 0 && bestSeconds > 0
             ? static_cast<float>(bestSeconds / seconds)
             : 0.0f;
}

/// What a model reads of a schedule: the fixed-length summary vector
/// (scheduleFeatures) or the whole token matrix (Tokenizer, [rows, kWidth]).
enum class FeatureKind { Summary, Sequence };

/// Programs as a model represents them: `width` floats a program, program
/// after program.
struct ProgramEmbeddings {
  unsigned width = 0;
  std::vector<float> values;
};

class CostModel {
public:
  virtual ~CostModel();
  virtual llvm::StringRef getName() const = 0;
  virtual FeatureKind getFeatureKind() const { return FeatureKind::Summary; }
  /// Learns from `samples`: everything measured so far (the search passes
  /// its whole history, so a model may refit from scratch).
  virtual llvm::Error update(llvm::ArrayRef<CostSample> samples) = 0;
  /// One score per feature vector; higher means predicted faster.
  virtual std::vector<double>
  predict(llvm::ArrayRef<std::vector<float>> features) = 0;
  /// The model's representation of each program (the learned models'
  /// pooled hidden state), where active sampling (ActiveSampling.h) measures
  /// how alike programs are. An error for a model without one (xgboost,
  /// random) or not trained yet.
  virtual llvm::Expected<ProgramEmbeddings>
  embed(llvm::ArrayRef<std::vector<float>> features);
  virtual llvm::Error save(llvm::StringRef path) const = 0;
  virtual llvm::Error load(llvm::StringRef path) = 0;
  /// The platforms whose measurements trained the model, kept in its file
  /// (empty: not recorded, or a model that keeps none: xgboost, random).
  virtual std::vector<std::string> getLearnedPlatforms() const { return {}; }
  virtual void setLearnedPlatforms(std::vector<std::string> platforms) {}
  /// From now on the loaded model stays frozen as a knowledge base and
  /// update() trains an active column that reads it laterally (METHOD.md
  /// §4, learned::ContinualModel::learnOnline), which scores and embeds:
  /// how a search learns a platform its checkpoint has not. An error for a
  /// model that cannot (not learned, or nothing loaded).
  virtual llvm::Error startActiveColumn();
  /// Learned parameters (weights, or tree nodes), 0 if none.
  virtual size_t getNumParameters() const { return 0; }
};

/// How a learned model (mamba, tlp, mlp) trains on update().
struct LearnedModelOptions {
  /// "lambdarank", "mse" or "lambdarank+mse".
  std::string loss = "lambdarank+mse";
  /// LambdaRank's gain sharpness (learned::rankingGain) and the weight of
  /// the MSE term of "lambdarank+mse".
  double gainSharpness = 6;
  double mseWeight = 1;
  /// Weight averaging over the last fraction of each update's steps
  /// (TrainOptions::averagedFraction).
  double averagedFraction = 0;
  /// Passes over the samples per update. With fineTuneEpochs, a model that
  /// was loaded (or already trained) uses that many instead: the search
  /// calls update after every batch with everything measured so far.
  unsigned epochs = 20, fineTuneEpochs = 3;
  /// Fine-tuning takes at least this many optimizer steps per update, so
  /// that a pretrained model learns from a search's first, small batches
  /// too (TrainOptions::minSteps).
  unsigned fineTuneMinSteps = 24;
  /// The first training takes at least this many optimizer steps (more
  /// epochs than `epochs` on a small dataset; 0: `epochs` decides).
  unsigned minSteps = 0;
  double learningRate = 1e-3;
  /// The step size of fine-tuning a loaded (or trained) model on a
  /// search's measurements: at learningRate, a run's first few measurements
  /// of each task made a pretrained Mamba rank worse (`tcl-cost-model
  /// online`: top-1 0.89 -> 0.78 over three held-out models after 4
  /// programs a task; 0.89 at 1e-4). The active column of a continual
  /// model keeps learningRate.
  double fineTuneLearningRate = 1e-4;
  /// The loss of fine-tuning a loaded (or trained) model on a search's
  /// measurements ("lambdarank", "mse" or "lambdarank+mse"). A run labels
  /// its programs relative to the best measured of their task so far, so
  /// the MSE term reads an order as a scale: in a task whose measured
  /// programs are all slow, the best of them is labelled 1. In the
  /// search's loop without its noise (`tcl-cost-model online
  /// --closed-loop` on the pooled programs of ResNet-18's and
  /// MobileNetV2's tuning runs) LambdaRank alone brought Mamba's picks
  /// 0.5-2.2 points closer to each task's fastest after 8-24 a task; in
  /// real cold tuning of ResNet-18 (3 seeds in turns, 2026-12-07) it took
  /// 532 trials to the target against 292 with the MSE term. The default
  /// stays training's loss until a tuning study says otherwise (README,
  /// "The search's loop without its noise").
  std::string fineTuneLoss = "lambdarank+mse";
  /// Decay the step size along a half cosine over each update's batches.
  bool cosineDecay = false;
  /// Threads for training and scoring; 0 = all. One by default: on a
  /// machine whose cores are shared, OpenMP's spinning barriers make two
  /// threads many times slower than one (RECIPES.md).
  unsigned threads = 1;
  /// Programs per forward pass when scoring (RankingModel::setChunkSize).
  unsigned scoreChunk = 64;
  /// Score and train on programs cropped to their length
  /// (RankingModel::setCropPadding); off only to compare.
  bool cropPadding = true;
  /// How a model loaded from a checkpoint learns from a search's
  /// measurements: by fine-tuning the network (fineTuneEpochs, above), or by
  /// a correction of its scores refitted on every update while the network
  /// stays as trained (learned::ScoreCorrection: a Gaussian process over
  /// its embeddings). A model trained from scratch always trains.
  enum class OnlineLearning { FineTune, Correct };
  OnlineLearning online = OnlineLearning::FineTune;
  /// Called after every epoch (epoch, mean loss, seconds).
  std::function<void(unsigned, double, double)> onEpoch;
};

/// The name of the features of `kind` as this build makes them, layout
/// version and shape: "tokens-v1-32x74", "summary-v1-1x115". Learned models
/// are saved with it, and a model saved with another is refused on load.
std::string getFeatureLayout(FeatureKind kind);

/// The parts of a program's features: its schedule (tokens, or their
/// summary and length), its task, its platform's hardware.
enum class FeaturePart { Schedule, Task, Hardware };

/// Where `part` lies in every row of features of `kind`: columns [begin,
/// end) of rows `rowWidth` wide.
struct FeatureColumns {
  unsigned begin = 0, end = 0, rowWidth = 0;
};
FeatureColumns getFeatureColumns(FeatureKind kind, FeaturePart part);

/// Sets the columns of `part` to zero in features of `kind` (every row of
/// a token matrix): the ablations of the cost-model benchmark (what a model
/// ranks with when it does not see the task or the hardware).
void clearFeaturePart(std::vector<float> &features, FeatureKind kind,
                      FeaturePart part);

/// "random", "xgboost", "mamba", "tlp" or "mlp"; null for an unknown name.
/// `learned` sets how the learned ones train.
std::unique_ptr<CostModel>
createCostModel(llvm::StringRef name, uint64_t seed,
                const LearnedModelOptions &learned = LearnedModelOptions());
/// "finetune" or "correct" (LearnedModelOptions::online); none otherwise.
std::optional<LearnedModelOptions::OnlineLearning>
parseOnlineLearning(llvm::StringRef name);
/// A learned model ("mamba", "tlp", "mlp") with explicit training options;
/// null for another name, or where the learned models' library cannot be
/// opened (openLearnedCostModels says why).
std::unique_ptr<CostModel> createLearnedCostModel(llvm::StringRef name,
                                                  uint64_t seed,
                                                  LearnedModelOptions options);
/// Opens the learned models' library, libTclLearned.so in the lib/
/// directory beside the program's bin/, once per process: they and libtorch
/// are loaded only by a program that asks for one. An error that names the
/// file and the loader's reason where it cannot be opened.
llvm::Error openLearnedCostModels();
/// Whether `name` names a learned model (whether or not its library can be
/// opened).
bool isLearnedCostModel(llvm::StringRef name);
/// The names createCostModel takes.
std::vector<std::string> getCostModelNames();

/// The fixed-length feature vector of a schedule on a task, from the
/// tokenizer's rows: the sum and the maximum of each token column over the
/// program, its length, then the task and hardware columns.
FailureOr<std::vector<float>>
scheduleFeatures(ScheduleOp schedule, const TaskFeatures &task,
                 const HardwareFeatures *hardware = nullptr);

/// The features of `kind` (the token matrix of the default Tokenizer for
/// Sequence).
FailureOr<std::vector<float>> featurize(ScheduleOp schedule,
                                        const TaskFeatures &task,
                                        const HardwareFeatures *hardware,
                                        FeatureKind kind);

} // namespace mlir::tcl

/// What libTclLearned.so exports for the search, which opens it only when
/// asked for a learned model (createLearnedCostModel, CostModel.cpp): a
/// model of the kind `name` names ("mamba", "tlp", "mlp"), null for another
/// name. The caller owns it and deletes it through CostModel's virtual
/// destructor.
extern "C" mlir::tcl::CostModel *
tclCreateLearnedCostModel(const char *name, uint64_t seed,
                          const mlir::tcl::LearnedModelOptions *options);

#endif // TCL_TUNING_COSTMODEL_H
