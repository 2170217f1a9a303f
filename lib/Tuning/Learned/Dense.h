//===- Dense.h - Dense (linear) layers for the cost models ------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Every model here is mostly dense layers on small, skinny matrices (e.g.
// [16384, 128] x [128, 512] for a batch of 512 programs of 32 tokens).
// torch::linear sends them to whatever libblas.so.3 the system selected:
// OpenBLAS here, but Debian's reference netlib BLAS (~5x slower, RECIPES.md)
// wherever OpenBLAS is missing. The layers call oneDNN's matmul primitive
// (libdnnl, which libtorch links anyway) directly instead, forward and
// backward, through a custom autograd function: its JIT kernels do not
// depend on the BLAS choice, and on this machine they were 5-10% faster
// than OpenBLAS per training step (RECIPES.md measured up to 2x on
// another). The torch path stays for comparison and as the tests'
// reference.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_LIB_TUNING_LEARNED_DENSE_H
#define TCL_LIB_TUNING_LEARNED_DENSE_H

#include <torch/torch.h>

namespace mlir::tcl::learned {

enum class DenseBackend { Torch, OneDNN };
/// Process-wide; OneDNN unless changed (benchmarks and tests switch it).
void setDenseBackend(DenseBackend backend);
DenseBackend getDenseBackend();

/// y = x W^T + b over the last dimension of x, W [out, in], b [out] or an
/// empty tensor for no bias. Differentiable in x, W and b.
torch::Tensor dense(const torch::Tensor &x, const torch::Tensor &weight,
                    const torch::Tensor &bias);

class DenseImpl : public torch::nn::Module {
public:
  /// Initialized like torch's Linear: weight and bias uniform in
  /// ±1/sqrt(in).
  DenseImpl(int64_t in, int64_t out, bool withBias = true);
  torch::Tensor forward(const torch::Tensor &x);

  torch::Tensor weight;
  /// Empty when the layer has no bias (not registered as a parameter).
  torch::Tensor bias;
};
TORCH_MODULE(Dense);

} // namespace mlir::tcl::learned

#endif // TCL_LIB_TUNING_LEARNED_DENSE_H
