//===- CausalConv.h - Causal depthwise convolution, fused -------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The causal depthwise convolution in front of a Mamba block's selective
// scan (SelectiveScan.h), fused like the scan: a custom autograd function
// over C++ loops, in the [B, L, D] layout the block uses.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_LIB_TUNING_LEARNED_CAUSALCONV_H
#define TCL_LIB_TUNING_LEARNED_CAUSALCONV_H

#include <torch/torch.h>

namespace mlir::tcl::learned {

/// Causal depthwise convolution along time, x [B, L, D], weight [D, K],
/// bias [D]: y[b,t,d] = bias[d] + Σ_k weight[d,k] x[b, t-K+1+k, d], with
/// x = 0 before the start. Fused for the same reason as the scan: in the
/// [B, L, D] layout the Mamba block uses, torch's conv1d needs two
/// transposed copies around it.
torch::Tensor causalConv(const torch::Tensor &x, const torch::Tensor &weight,
                         const torch::Tensor &bias);

/// The same convolution with torch's conv1d (the tests' reference).
torch::Tensor causalConvReference(const torch::Tensor &x,
                                  const torch::Tensor &weight,
                                  const torch::Tensor &bias);

} // namespace mlir::tcl::learned

#endif // TCL_LIB_TUNING_LEARNED_CAUSALCONV_H
