//===- SelectiveScan.h - Mamba's selective scan, fused ----------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The selective scan of a Mamba block, for inputs u, step sizes delta (both
// [B, L, D]), the state matrix A [D, N] and the input-dependent B and C
// ([B, L, N]):
//
//   h[b,t,d,n] = exp(delta[b,t,d] A[d,n]) h[b,t-1,d,n]
//                + delta[b,t,d] B[b,t,n] u[b,t,d]          (h[b,-1] = 0)
//   y[b,t,d]   = Σ_n C[b,t,n] h[b,t,d,n]
//
// Written out with torch ops per time step, this builds and keeps the
// [B, L, D, N] states for backward and runs ~10 small ops per step; the
// fused version walks the recurrence in C++ loops instead, keeps only the
// states of one batch element and a block of channels at a time, and
// recomputes them in backward (RECIPES.md measured it 2x+ faster).
//
//===----------------------------------------------------------------------===//

#ifndef TCL_LIB_TUNING_LEARNED_SELECTIVESCAN_H
#define TCL_LIB_TUNING_LEARNED_SELECTIVESCAN_H

#include <torch/torch.h>

namespace mlir::tcl::learned {

/// The fused scan, differentiable in all five inputs (a custom autograd
/// function). float or double; all inputs of one type. Returns y [B, L, D].
torch::Tensor selectiveScan(const torch::Tensor &u, const torch::Tensor &delta,
                            const torch::Tensor &A, const torch::Tensor &B,
                            const torch::Tensor &C);

/// The same scan in plain torch ops, one step at a time (the reference the
/// tests check the fused one against).
torch::Tensor selectiveScanReference(const torch::Tensor &u,
                                     const torch::Tensor &delta,
                                     const torch::Tensor &A,
                                     const torch::Tensor &B,
                                     const torch::Tensor &C);

} // namespace mlir::tcl::learned

#endif // TCL_LIB_TUNING_LEARNED_SELECTIVESCAN_H
