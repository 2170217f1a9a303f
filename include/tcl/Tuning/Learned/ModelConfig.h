//===- ModelConfig.h - Plain types of the learned cost models ---*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// What a learned cost model (RankingModel.h) is made of, what it reads and
// how it is trained, in plain types only: the model and loss kinds, the
// architecture (ModelConfig), a set of programs with their labels and tasks
// (ProgramSet) and the training options. The library's torch side
// (networks, losses, training, checkpoints) builds on these without seeing
// RankingModel itself.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_LEARNED_MODELCONFIG_H
#define TCL_TUNING_LEARNED_MODELCONFIG_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tcl::learned {

/// N programs, each a [rows, width] row-major float matrix, with a label and
/// a group (the task it belongs to) each.
struct ProgramSet {
  unsigned rows = 0, width = 0;
  /// size() * rows * width floats, program after program.
  std::vector<float> inputs;
  /// Throughput relative to the best of its task, in [0, 1]: 1 is the
  /// fastest program of its task, 0 one that failed.
  std::vector<float> labels;
  /// The task id of each program. Only programs of the same task are
  /// compared by the ranking loss.
  std::vector<unsigned> groups;

  ProgramSet() = default;
  ProgramSet(unsigned rows, unsigned width) : rows(rows), width(width) {}

  size_t size() const { return labels.size(); }
  /// Appends one program: `input` points to rows * width floats.
  void append(const float *input, float label, unsigned group);
  /// Checks that the vectors agree with each other and with rows/width.
  llvm::Error verify() const;
};

enum class ModelKind { Mamba, Transformer, MLP };
/// Losses: LambdaRank (the method's), MSE on the labels, or both summed
/// (TrainOptions::mseWeight weighs the MSE term).
enum class LossKind { LambdaRank, MSE, LambdaRankMSE };

/// "mamba", "tlp", "mlp".
llvm::StringRef getModelKindName(ModelKind kind);
std::optional<ModelKind> parseModelKind(llvm::StringRef name);
/// "lambdarank", "mse", "lambdarank+mse".
llvm::StringRef getLossKindName(LossKind kind);
std::optional<LossKind> parseLossKind(llvm::StringRef name);

/// The architecture. The defaults are METHOD.md §2's model and the sizes of
/// the TLP and Tenset-MLP baselines; the fields a kind does not use are
/// ignored (and still saved, so a loaded model reports what it was made of).
struct ModelConfig {
  ModelKind kind = ModelKind::Mamba;
  /// The input: [rows, width] per program. The MLP reads the flattened
  /// rows * width values (rows = 1 is Tenset's per-program feature vector).
  unsigned rows = 1, width = 1;
  /// Seeds the weight initialization.
  uint64_t seed = 1;
  /// What the columns of a program mean, as the caller names it (e.g. the
  /// tokenizer's layout and version); saved with the model, so that a
  /// caller can refuse a model trained on inputs it no longer makes. One
  /// line of printable text without spaces, or empty (unknown).
  std::string inputs;
  /// The platforms whose measurements trained the model, as the data names
  /// them (no spaces or commas); saved with it. Empty: not recorded.
  std::vector<std::string> platforms;

  /// Width of the sequence models' hidden tokens (Mamba and Transformer).
  unsigned dModel = 128;
  /// Mamba block: state size, causal depthwise convolution width, inner
  /// width expand * dModel, rank of the input-dependent step size Δ.
  unsigned dState = 16, dConv = 4, expand = 2, dtRank = 8;
  /// Transformer: encoder layers, attention heads, feed-forward width.
  unsigned layers = 2, heads = 8, ffn = 256;
  /// MLP: hidden width and residual blocks.
  unsigned mlpHidden = 256, mlpBlocks = 2;

  ModelConfig() = default;
  ModelConfig(ModelKind kind, unsigned rows, unsigned width, uint64_t seed = 1)
      : kind(kind), rows(rows), width(width), seed(seed) {}
};

struct TrainOptions {
  /// LambdaRank + MSE: Mamba on held-out tasks of x86-avx512/1t, 20 epochs,
  /// seeds 1-3: top-1 median 0.820 [0.789, 0.838], LambdaRank alone 0.778
  /// [0.766, 0.817], MSE alone 0.817 [0.781, 0.826] (bench/cost_models.py).
  LossKind loss = LossKind::LambdaRankMSE;
  unsigned epochs = 10;
  /// At least this many optimizer steps: more epochs than `epochs` when the
  /// data is small (a search's first measurements make one batch an epoch,
  /// and a few steps of a fresh Adam barely move a pretrained model).
  unsigned minSteps = 0;
  /// Adam's step size and (L2) weight decay.
  double learningRate = 1e-3;
  double weightDecay = 1e-5;
  /// With cosine decay the step size falls from learningRate to
  /// minLearningRateFraction of it along a half cosine over the run's
  /// batches; without, it stays constant.
  bool cosineDecay = false;
  double minLearningRateFraction = 0.05;
  /// The model ends with the mean of its weights after each step of the
  /// last averagedFraction of the run's steps (0: the last step's weights).
  double averagedFraction = 0;
  /// A batch holds up to programsPerGroup programs of each of
  /// groupsPerBatch tasks. Each epoch shuffles every task's programs, cuts
  /// them into pieces of at most programsPerGroup, shuffles the pieces and
  /// takes groupsPerBatch at a time, so an epoch sees every program once.
  unsigned groupsPerBatch = 8, programsPerGroup = 64;
  /// LambdaRank's sensitivity σ and gain sharpness (rankingGain; 0: the
  /// gain is the label). Sharpness 6 over linear gains, Mamba on held-out
  /// tasks of x86-avx512/1t, 20 epochs, seeds 1-3: top-1 0.833, 0.766,
  /// 0.778 against 0.753, 0.763, 0.748; top-5 0.97-0.98 against 0.94-0.96.
  double sigma = 1.0;
  double gainSharpness = 6;
  /// The weight of the MSE term of LambdaRankMSE.
  double mseWeight = 1.0;
  /// Intra-op threads for training; 0 = the hardware's concurrency.
  unsigned threads = 0;
  /// Seeds the batch order. Training is deterministic given the seed, the
  /// data and the thread count.
  uint64_t seed = 1;
  /// Called after every epoch with its mean batch loss and the seconds the
  /// epoch took.
  std::function<void(unsigned epoch, double meanLoss, double seconds)> onEpoch;
};

/// The step size of batch `step` (0-based) of a run of `totalSteps`.
double learningRateAt(const TrainOptions &options, size_t step,
                      size_t totalSteps);

} // namespace mlir::tcl::learned

#endif // TCL_TUNING_LEARNED_MODELCONFIG_H
