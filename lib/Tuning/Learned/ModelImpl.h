//===- ModelImpl.h - The torch side of RankingModel -------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// What a RankingModel holds behind its public header: the config, the torch
// network and the input normalization, with scoring (ModelImpl.cpp),
// training (Training.cpp) and the checkpoint file (Checkpoint.cpp) as its
// members. It knows only the plain types of ModelConfig.h, not RankingModel,
// which owns one and turns every exception it throws into an llvm::Error.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_LIB_TUNING_LEARNED_MODELIMPL_H
#define TCL_LIB_TUNING_LEARNED_MODELIMPL_H

#include "Networks.h"

#include "tcl/Tuning/Learned/ModelConfig.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <torch/torch.h>

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace mlir::tcl::learned {

/// An llvm::Error with `message` (no error code).
llvm::Error makeError(const llvm::Twine &message);

/// Runs `body` (returning llvm::Error or llvm::Expected) and turns whatever
/// it throws into an error that says what was being done: the library's
/// public calls run their torch work inside it.
template <typename Body>
auto guarded(llvm::StringRef what, Body &&body) -> decltype(body()) {
  try {
    return body();
  } catch (const c10::Error &e) {
    return makeError(what + ": " + e.what_without_backtrace());
  } catch (const std::exception &e) {
    return makeError(what + ": " + e.what());
  } catch (...) {
    return makeError(what + ": unknown exception");
  }
}

/// Sets torch's intra-op threads (process-wide) if they differ; 0 = the
/// hardware's concurrency.
void useThreads(unsigned threads);

struct ModelImpl {
  ModelConfig config;
  std::shared_ptr<ScoreNet> net;
  /// Per-column normalization: (x - mean) * invStd on real rows.
  std::vector<float> mean, stddev;
  torch::Tensor meanTensor, invStdTensor;
  bool normalized = false;
  /// Programs per forward pass in predict, counted as programs of
  /// config.rows rows: a pass holds chunkSize * config.rows tokens.
  unsigned chunkSize = 64;
  /// Crop programs to their length when scoring and training (off only to
  /// compare with the padded computation).
  bool cropPadding = true;
  unsigned threads = 0;

  void setNormalization(std::vector<float> newMean, std::vector<float> newStd);

  /// Column statistics over the non-padding rows of `data`. Columns without
  /// spread are only centered (dividing by ~0 would blow up any later
  /// value that differs).
  void computeNormalization(const ProgramSet &data);

  /// Whether the network reads a program as a sequence (Mamba,
  /// Transformer). Such a network's score does not depend on padding rows
  /// after a program's last token (causal layers, masked attention and
  /// pooling), so it runs on programs cropped to their length; the MLP reads
  /// all rows.
  bool readsSequences() const { return config.kind != ModelKind::MLP; }

  /// The rows of a [rows, width] program up to its last non-padding row (at
  /// least 1); config.rows for a network that does not read sequences.
  unsigned getLength(const float *program) const;

  /// Normalized inputs [count, length, width] and their mask [count, length]
  /// of `count` programs of `length` rows at `data` (which must outlive the
  /// returned tensors).
  std::pair<torch::Tensor, torch::Tensor>
  prepare(const float *data, int64_t count, int64_t length);

  llvm::Error checkShape(unsigned rows, unsigned width,
                         llvm::StringRef what) const;

  /// Scores of programs of [config.rows, config.width] floats each.
  llvm::Expected<std::vector<float>>
  predict(llvm::ArrayRef<const float *> programs);
  /// Their embeddings, net->getEmbeddingWidth() floats a program.
  llvm::Expected<std::vector<float>>
  embed(llvm::ArrayRef<const float *> programs);
  /// Both from one pass: the score, then the embedding, of each program.
  llvm::Expected<std::vector<float>>
  scoreAndEmbed(llvm::ArrayRef<const float *> programs);
  /// What one forward pass computes: `outWidth` floats a program of a
  /// batch of `count` programs cropped to `length` rows (raw, not yet
  /// normalized).
  using ForwardPass = std::function<torch::Tensor(
      const float *batch, int64_t count, unsigned length)>;
  /// Runs `pass` over `programs` in forward passes of programs of similar
  /// length (cropped, at most chunkSize * rows tokens, on `threads`
  /// threads); outWidth floats a program, in the programs' order.
  llvm::Expected<std::vector<float>>
  forward(llvm::ArrayRef<const float *> programs, int64_t outWidth,
          const ForwardPass &pass);
  /// In Training.cpp.
  llvm::Error train(const ProgramSet &data, const TrainOptions &options);
  /// In Checkpoint.cpp.
  llvm::Error save(llvm::StringRef path) const;
  static llvm::Expected<std::unique_ptr<ModelImpl>>
  make(const ModelConfig &config);
  /// In Checkpoint.cpp.
  static llvm::Expected<std::unique_ptr<ModelImpl>> load(llvm::StringRef path);
};

} // namespace mlir::tcl::learned

#endif // TCL_LIB_TUNING_LEARNED_MODELIMPL_H
