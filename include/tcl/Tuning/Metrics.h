//===- Metrics.h - How well a cost model ranks schedules --------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Ranking metrics of cost models, per task (a group of measured schedules of
// one workload) and over tasks:
//
//   top-k score (after Tenset): the weighted mean over tasks of
//     best_t / best_t(top-k), where best_t is the task's fastest measured
//     latency and best_t(top-k) the fastest among the k schedules the model
//     ranks first (0 if they all failed): 1 when the model's top k always
//     contain the best schedule. (Tenset divides weighted sums instead,
//     which one failed pick would zero for all tasks.)
//   Spearman rho between predicted scores and true throughputs (ties get
//     their average rank).
//   NDCG@k with the throughput relative to the task's best as relevance.
//   pairwise accuracy: the share of pairs with different throughputs that
//     the scores order the same way.
//
// Scores are "higher is faster"; latencies are seconds (infinity for a
// failed schedule, throughput 0).
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_METRICS_H
#define TCL_TUNING_METRICS_H

#include "llvm/ADT/ArrayRef.h"

#include <vector>

namespace mlir::tcl {

/// One task's measured schedules: predicted scores and true latencies.
struct RankedGroup {
  std::vector<double> scores;
  std::vector<double> latencies;
  double weight = 1;
};

double topKScore(llvm::ArrayRef<RankedGroup> groups, unsigned k);
double spearman(llvm::ArrayRef<double> predicted, llvm::ArrayRef<double> truth);
double ndcgAtK(const RankedGroup &group, unsigned k);
double pairwiseAccuracy(const RankedGroup &group);

} // namespace mlir::tcl

#endif // TCL_TUNING_METRICS_H
