//===- RankingModel.h - Learned ranking cost models -------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Neural cost models that rank the candidate programs of a task (METHOD.md
// §2): a Mamba sequence model (the method's model), a TLP-style Transformer
// and Tenset's MLP (the baselines). Each reads one program as a row-major
// [rows, width] float matrix (the tokenizer's token matrix; rows = 1 for a
// per-program feature vector) and gives one score, higher meaning faster.
// They are trained with LambdaRank on the programs of each task (or with MSE
// for comparison).
//
// The implementation is libtorch, kept entirely behind this header: only
// plain types cross it, every error (bad file, wrong shapes, a C++ exception
// from torch) comes back as an llvm::Error, and no exception escapes, so the
// rest of the compiler stays free of torch headers and exceptions.
//
// Input rows that are all zero are padding (the tokenizer pads short programs
// with zero rows): the sequence models ignore them when they pool over a
// program, and the input normalization leaves them out of its statistics.
//
// Threads: torch's intra-op thread count is process-wide (per calling
// thread under OpenMP). Every train and predict call sets it to the model's
// thread count (TrainOptions::threads for train, setThreads for predict;
// 0 = the hardware's concurrency). Give the models only cores nothing else
// is busy on: torch's OpenMP barriers spin, and with one of two cores taken
// by other work (a measurement, a compile) 2 threads ran up to 15x slower
// than 1. Calls on one model must not overlap (serialize them).
// Creating or loading the first model also raises glibc malloc's mmap and
// trim thresholds (to 32 MiB and 1 GiB) once for the process: otherwise
// every large torch temporary is mmapped and unmapped again, which costs
// 5-20% of a training step (RECIPES.md).
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_LEARNED_RANKINGMODEL_H
#define TCL_TUNING_LEARNED_RANKINGMODEL_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
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
/// Losses: LambdaRank (the method's) or MSE on the labels (for comparison).
enum class LossKind { LambdaRank, MSE };

/// "mamba", "tlp", "mlp".
llvm::StringRef getModelKindName(ModelKind kind);
std::optional<ModelKind> parseModelKind(llvm::StringRef name);
/// "lambdarank", "mse".
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
  LossKind loss = LossKind::LambdaRank;
  unsigned epochs = 10;
  /// Adam's step size and (L2) weight decay.
  double learningRate = 1e-3;
  double weightDecay = 1e-5;
  /// With cosine decay the step size falls from learningRate to
  /// minLearningRateFraction of it along a half cosine over the run's
  /// batches; without, it stays constant.
  bool cosineDecay = false;
  double minLearningRateFraction = 0.05;
  /// A batch holds up to programsPerGroup programs of each of
  /// groupsPerBatch tasks. Each epoch shuffles every task's programs, cuts
  /// them into pieces of at most programsPerGroup, shuffles the pieces and
  /// takes groupsPerBatch at a time, so an epoch sees every program once.
  unsigned groupsPerBatch = 8, programsPerGroup = 64;
  /// LambdaRank's sensitivity σ.
  double sigma = 1.0;
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

class RankingModel {
public:
  ~RankingModel();
  RankingModel(const RankingModel &) = delete;
  RankingModel &operator=(const RankingModel &) = delete;

  /// A freshly initialized model (weights seeded by config.seed). Fails on
  /// a config that does not describe a model (zero sizes, heads that do not
  /// divide dModel, ...).
  static llvm::Expected<std::unique_ptr<RankingModel>>
  create(const ModelConfig &config);
  /// Reads a model that save wrote.
  static llvm::Expected<std::unique_ptr<RankingModel>>
  load(llvm::StringRef path);
  /// Writes the config, the input normalization and the weights to one file
  /// (a small text header, then the raw little-endian floats, with a
  /// checksum over them, so truncated or corrupted files are rejected).
  llvm::Error save(llvm::StringRef path) const;

  /// Trains from the current weights, so calling it on a loaded model
  /// fine-tunes it. The first call on a model computes the input
  /// normalization (per-column mean and standard deviation over the
  /// non-padding rows of `data`; columns without spread are only centered)
  /// and later calls keep it. Each call starts a fresh Adam state.
  llvm::Error train(const ProgramSet &data, const TrainOptions &options);

  /// One score per program (higher = predicted faster). `inputs` holds
  /// count * rows * width floats; rows and width must be the model's.
  /// Scores chunk by chunk (setChunkSize) to keep temporaries in cache.
  llvm::Expected<std::vector<float>>
  predict(llvm::ArrayRef<float> inputs, unsigned rows, unsigned width) const;
  /// Scores the programs of `programs` (labels and groups are ignored).
  llvm::Expected<std::vector<float>> predict(const ProgramSet &programs) const;

  size_t numParameters() const;
  const ModelConfig &getConfig() const;
  /// Whether the input normalization has been computed (by train or load).
  bool isNormalized() const;

  /// Programs per forward pass in predict (default 64; 0 means 64).
  void setChunkSize(unsigned chunkSize);
  /// Intra-op threads for predict (default 0: the hardware's concurrency).
  void setThreads(unsigned threads);

private:
  struct Impl;
  explicit RankingModel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

/// The LambdaRank loss of the programs of ONE group, given their scores and
/// labels: the sum over pairs (i, j) with label_i > label_j of
///   |ΔNDCG_ij| * log(1 + exp(-sigma * (s_i - s_j))),
/// where the gain of a program is its label (labels are relative throughput
/// in [0, 1] already), DCG = Σ gain_i / log2(1 + rank_i) with rank_i the
/// 1-based position of program i when sorted by descending score (ties by
/// index), ΔNDCG_ij is the change of DCG / idealDCG if i and j swapped
/// ranks, and idealDCG is the DCG of the labels sorted in descending order.
/// |ΔNDCG| is a weight, not differentiated. A group whose labels are all
/// zero has no loss.
double lambdaRankLoss(llvm::ArrayRef<double> scores,
                      llvm::ArrayRef<double> labels, double sigma);
/// The gradient of lambdaRankLoss with respect to the scores (the
/// "lambdas"), computed directly, one per program.
std::vector<double> lambdaRankGradients(llvm::ArrayRef<double> scores,
                                        llvm::ArrayRef<double> labels,
                                        double sigma);

} // namespace mlir::tcl::learned

#endif // TCL_TUNING_LEARNED_RANKINGMODEL_H
