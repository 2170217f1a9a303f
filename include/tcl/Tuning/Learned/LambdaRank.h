//===- LambdaRank.h - LambdaRank on plain types -----------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The LambdaRank loss the learned cost models train with, and its gradient,
// on plain types: the reference that the library's differentiable torch
// version (lib/Tuning/Learned/Losses.h) is tested against.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_LEARNED_LAMBDARANK_H
#define TCL_TUNING_LEARNED_LAMBDARANK_H

#include "llvm/ADT/ArrayRef.h"

#include <vector>

namespace mlir::tcl::learned {

/// The gain of a program with `label` (relative throughput in [0, 1]): the
/// label itself for sharpness 0, else (2^(sharpness label) - 1) /
/// (2^sharpness - 1), which keeps 0 and 1 and makes the fastest programs
/// stand out.
double rankingGain(double label, double sharpness);

/// The LambdaRank loss of the programs of ONE group, given their scores and
/// labels: the sum over pairs (i, j) with label_i > label_j of
///   |ΔNDCG_ij| * log(1 + exp(-sigma * (s_i - s_j))),
/// where the gain of a program is rankingGain(label, sharpness), DCG = Σ gain_i
/// / log2(1 + rank_i) with rank_i the 1-based position of program i when sorted
/// by descending score (ties by index), ΔNDCG_ij is the change of DCG /
/// idealDCG if i and j swapped ranks, and idealDCG is the DCG of the labels
/// sorted in descending order. |ΔNDCG| is a weight, not differentiated. A group
/// whose labels are all zero has no loss.
double lambdaRankLoss(llvm::ArrayRef<double> scores,
                      llvm::ArrayRef<double> labels, double sigma,
                      double sharpness = 0);
/// The gradient of lambdaRankLoss with respect to the scores (the
/// "lambdas"), computed directly, one per program.
std::vector<double> lambdaRankGradients(llvm::ArrayRef<double> scores,
                                        llvm::ArrayRef<double> labels,
                                        double sigma, double sharpness = 0);

} // namespace mlir::tcl::learned

#endif // TCL_TUNING_LEARNED_LAMBDARANK_H
