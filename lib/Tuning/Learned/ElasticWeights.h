//===- ElasticWeights.h - The EWC penalty -----------------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Elastic weight consolidation (Kirkpatrick et al.): the penalty
// Σ_k F_k (θ_k − θ*_k)² that keeps weights important to earlier tasks near
// the values they had, F the diagonal Fisher information (the mean squared
// gradient of the loss) accumulated over the tasks learned so far, θ* the
// weights after the last of them.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_LIB_TUNING_LEARNED_ELASTICWEIGHTS_H
#define TCL_LIB_TUNING_LEARNED_ELASTICWEIGHTS_H

#include <torch/torch.h>

#include <cstddef>
#include <vector>

namespace mlir::tcl::learned {

class ElasticWeights {
public:
  explicit ElasticWeights(std::vector<torch::Tensor> parameters)
      : parameters(std::move(parameters)) {}

  /// Adds the squared gradients of `loss` (one batch of the task just
  /// learned) to the task's Fisher estimate.
  void addBatch(const torch::Tensor &loss) {
    std::vector<torch::Tensor> gradients = torch::autograd::grad(
        {loss}, parameters, /*grad_outputs=*/{}, /*retain_graph=*/false,
        /*create_graph=*/false, /*allow_unused=*/true);
    torch::NoGradGuard noGrad;
    if (pending.empty())
      for (const torch::Tensor &p : parameters)
        pending.push_back(torch::zeros_like(p));
    for (size_t i = 0; i < parameters.size(); ++i)
      if (gradients[i].defined())
        pending[i].add_(gradients[i].square());
    ++pendingBatches;
  }

  /// Ends the task: its mean squared gradients, scaled to a mean of 1 over
  /// all weights, join the Fisher information, and the anchor θ* moves to
  /// the weights' current values.
  void consolidate() {
    torch::NoGradGuard noGrad;
    if (pendingBatches > 0) {
      double sum = 0, count = 0;
      for (const torch::Tensor &f : pending) {
        sum += f.sum().item<double>();
        count += double(f.numel());
      }
      double scale = sum > 0 ? count / sum : 0.0;
      if (fisher.empty())
        for (const torch::Tensor &p : parameters)
          fisher.push_back(torch::zeros_like(p));
      for (size_t i = 0; i < parameters.size(); ++i)
        fisher[i].add_(pending[i] * scale);
    }
    pending.clear();
    pendingBatches = 0;
    anchor.clear();
    for (const torch::Tensor &p : parameters)
      anchor.push_back(p.detach().clone());
  }

  /// Σ F (θ − θ*)², differentiable in the weights; zero before the first
  /// consolidation.
  torch::Tensor penalty() const {
    torch::Tensor total = torch::zeros({});
    if (fisher.empty() || anchor.empty())
      return total;
    for (size_t i = 0; i < parameters.size(); ++i)
      total = total + (fisher[i] * (parameters[i] - anchor[i]).square()).sum();
    return total;
  }

private:
  std::vector<torch::Tensor> parameters, fisher, anchor, pending;
  size_t pendingBatches = 0;
};

} // namespace mlir::tcl::learned

#endif // TCL_LIB_TUNING_LEARNED_ELASTICWEIGHTS_H
