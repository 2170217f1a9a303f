//===- Losses.h - Ranking losses in torch -----------------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The LambdaRank loss as a differentiable torch expression (training uses
// it); tcl/Tuning/Learned/LambdaRank.h declares the same loss and its
// gradient on plain types, which the tests check this one against.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_LIB_TUNING_LEARNED_LOSSES_H
#define TCL_LIB_TUNING_LEARNED_LOSSES_H

#include <torch/torch.h>

namespace mlir::tcl::learned {

/// LambdaRank loss of one group: scores and labels [n] of one floating
/// type. The |ΔNDCG| weights are computed without gradient. A zero scalar
/// (still attached to scores) when the group has no ordered pair or all
/// labels are zero. Gains as in LambdaRank.h (rankingGain).
torch::Tensor lambdaRankLossTensor(const torch::Tensor &scores,
                                   const torch::Tensor &labels, double sigma,
                                   double sharpness = 0);

} // namespace mlir::tcl::learned

#endif // TCL_LIB_TUNING_LEARNED_LOSSES_H
