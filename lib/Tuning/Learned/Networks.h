//===- Networks.h - The cost models' networks -------------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The three networks behind RankingModel, as torch modules: each maps a
// batch of normalized programs x [B, rows, width] and their token mask
// [B, rows] (1 for a real token, 0 for padding) to an embedding [B, E] (the
// pooled hidden state its decoder reads) and that to scores [B].
//
//===----------------------------------------------------------------------===//

#ifndef TCL_LIB_TUNING_LEARNED_NETWORKS_H
#define TCL_LIB_TUNING_LEARNED_NETWORKS_H

#include "tcl/Tuning/Learned/ModelConfig.h"

#include "llvm/Support/Error.h"

#include <torch/torch.h>

#include <memory>

namespace mlir::tcl::learned {

class ScoreNet : public torch::nn::Module {
public:
  /// The program's representation before the score: [B, getEmbeddingWidth()].
  virtual torch::Tensor embed(const torch::Tensor &x,
                              const torch::Tensor &mask) = 0;
  /// Scores [B] of embeddings [B, getEmbeddingWidth()].
  virtual torch::Tensor head(const torch::Tensor &embedding) = 0;
  virtual int64_t getEmbeddingWidth() const = 0;

  torch::Tensor score(const torch::Tensor &x, const torch::Tensor &mask) {
    return head(embed(x, mask));
  }
};

/// Checks that `config` describes a network; a message if not.
llvm::Error verifyConfig(const ModelConfig &config);

/// Builds the network of `config` (verified) with weights drawn from torch's
/// global generator (the caller seeds it).
std::shared_ptr<ScoreNet> createNetwork(const ModelConfig &config);

} // namespace mlir::tcl::learned

#endif // TCL_LIB_TUNING_LEARNED_NETWORKS_H
