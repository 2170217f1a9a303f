//===- Evaluation.h - Cost models on held-out tasks -------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Trains a cost model on the records of some tasks in a tuning database and
// measures how well it ranks the schedules of the others (Metrics.h).
// Tasks are split by workload, alternately in database order: every other
// workload is held out.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_SEARCH_EVALUATION_H
#define TCL_TUNING_SEARCH_EVALUATION_H

#include "tcl/Tuning/Search/CostModel.h"
#include "tcl/Tuning/Search/Database.h"

#include "mlir/IR/MLIRContext.h"

namespace mlir::tcl {

struct CostModelEvaluation {
  size_t trainTasks = 0, testTasks = 0, trainRecords = 0, testRecords = 0;
  double top1 = 0, top5 = 0;
  /// Means over the held-out tasks.
  double spearman = 0, ndcg5 = 0, pairwiseAccuracy = 0;
  double trainSeconds = 0;
};

llvm::Expected<CostModelEvaluation> evaluateCostModel(TuningDatabase &database,
                                                      llvm::StringRef platform,
                                                      CostModel &model,
                                                      MLIRContext *context);

} // namespace mlir::tcl

#endif // TCL_TUNING_SEARCH_EVALUATION_H
