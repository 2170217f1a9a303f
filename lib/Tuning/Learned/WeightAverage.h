//===- WeightAverage.h - The running mean of weights ------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Weight averaging (Izmailov et al.'s SWA with a constant step size): the
// mean of the weights after each of the last steps of a run. The top of a
// ranking flips with small weight changes; the mean of the last steps'
// weights picks the best program more steadily than the last step's.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_LIB_TUNING_LEARNED_WEIGHTAVERAGE_H
#define TCL_LIB_TUNING_LEARNED_WEIGHTAVERAGE_H

#include <torch/torch.h>

#include <cstddef>
#include <vector>

namespace mlir::tcl::learned {

class WeightAverage {
public:
  explicit WeightAverage(std::vector<torch::Tensor> parameters)
      : parameters(std::move(parameters)) {}

  /// Adds the parameters' current values to the mean.
  void add() {
    torch::NoGradGuard noGrad;
    if (means.empty())
      for (const torch::Tensor &p : parameters)
        means.push_back(torch::zeros_like(p));
    ++count;
    for (size_t i = 0; i < parameters.size(); ++i)
      means[i].add_(parameters[i].detach() - means[i], 1.0 / double(count));
  }

  size_t size() const { return count; }

  /// Sets the parameters to the mean (nothing if none was added).
  void apply() {
    torch::NoGradGuard noGrad;
    for (size_t i = 0; i < means.size(); ++i)
      parameters[i].copy_(means[i]);
  }

private:
  std::vector<torch::Tensor> parameters, means;
  size_t count = 0;
};

} // namespace mlir::tcl::learned

#endif // TCL_LIB_TUNING_LEARNED_WEIGHTAVERAGE_H
