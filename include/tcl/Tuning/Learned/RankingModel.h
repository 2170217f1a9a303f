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
// for comparison). The plain types that describe a model, its programs and
// its training are in ModelConfig.h, the LambdaRank loss on plain types in
// LambdaRank.h; this header includes both.
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
// than 1. Calls on one model must not overlap (serialize them). Creating
// the first model raises glibc malloc's mmap and trim thresholds once for
// the process (see ModelImpl.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_LEARNED_RANKINGMODEL_H
#define TCL_TUNING_LEARNED_RANKINGMODEL_H

#include "tcl/Tuning/Learned/LambdaRank.h"
#include "tcl/Tuning/Learned/ModelConfig.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <memory>
#include <vector>

namespace mlir::tcl::learned {

/// The torch side of a model (lib/Tuning/Learned/ModelImpl.h).
struct ModelImpl;

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
  /// The same for programs anywhere in memory, rows * width floats each
  /// (no copy of the whole set).
  llvm::Expected<std::vector<float>>
  predict(llvm::ArrayRef<const float *> programs, unsigned rows,
          unsigned width) const;
  /// Scores the programs of `programs` (labels and groups are ignored).
  llvm::Expected<std::vector<float>> predict(const ProgramSet &programs) const;

  /// What the network makes of each program before it scores it: the pooled
  /// hidden state its decoder reads, getEmbeddingWidth() floats a program
  /// (program after program). Programs the model ranks alike lie close;
  /// active sampling measures distances and densities there.
  llvm::Expected<std::vector<float>>
  embed(llvm::ArrayRef<const float *> programs, unsigned rows,
        unsigned width) const;
  /// Both in one forward pass: 1 + getEmbeddingWidth() floats a program,
  /// its score and then its embedding.
  llvm::Expected<std::vector<float>>
  scoreAndEmbed(llvm::ArrayRef<const float *> programs, unsigned rows,
                unsigned width) const;
  unsigned getEmbeddingWidth() const;

  size_t numParameters() const;
  const ModelConfig &getConfig() const;
  /// Records the platforms whose data trained the model (saved with it).
  void setPlatforms(std::vector<std::string> platforms);
  /// Whether the input normalization has been computed (by train or load).
  bool isNormalized() const;

  /// Programs per forward pass in predict, counted in programs of the
  /// model's rows (a pass holds chunkSize * rows tokens of cropped
  /// programs; default 64, 0 means 64).
  void setChunkSize(unsigned chunkSize);
  /// Intra-op threads for predict (default 0: the hardware's concurrency).
  void setThreads(unsigned threads);
  /// The sequence models (Mamba, TLP) score and train on programs cropped
  /// to their last non-padding row, scoring programs in order of length;
  /// padding after a program's tokens changes no score, so this only saves
  /// work (most programs are a fifth of the tokenizer's rows). Off computes
  /// on every row, to compare.
  void setCropPadding(bool crop);

private:
  explicit RankingModel(std::unique_ptr<ModelImpl> impl);
  std::unique_ptr<ModelImpl> impl;
};

} // namespace mlir::tcl::learned

#endif // TCL_TUNING_LEARNED_RANKINGMODEL_H
