//===- CostModel.h - Cost models that guide the search ----------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The search scores candidate schedules with a CostModel and does not know
// which one it holds. A model learns from measured samples (the features of
// a schedule on its task and platform, and a label: the throughput relative
// to the best of its task, so 1 is the best and 0 a failure) and predicts a
// score per candidate, higher meaning faster. Baselines here: random, and
// gradient-boosted trees (XGBoost, as in AutoTVM/Ansor) refitted on every
// update. The learned sequence models plug in behind the same interface.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_COSTMODEL_H
#define TCL_TUNING_COSTMODEL_H

#include "tcl/Tuning/Tokenizer.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <random>
#include <string>
#include <vector>

namespace mlir::tcl {

struct CostSample {
  std::vector<float> features;
  /// Throughput relative to the task's best measured (0: failed).
  float label = 0;
  /// Which task the sample belongs to (for ranking objectives).
  unsigned group = 0;
};

/// What a model reads of a schedule: the fixed-length summary vector
/// (scheduleFeatures) or the whole token matrix (Tokenizer, [rows, kWidth]).
enum class FeatureKind { Summary, Sequence };

class CostModel {
public:
  virtual ~CostModel();
  virtual llvm::StringRef getName() const = 0;
  virtual FeatureKind getFeatureKind() const { return FeatureKind::Summary; }
  /// Learns from `samples`: everything measured so far (the search passes
  /// its whole history, so a model may refit from scratch).
  virtual llvm::Error update(llvm::ArrayRef<CostSample> samples) = 0;
  /// One score per feature vector; higher means predicted faster.
  virtual std::vector<double>
  predict(llvm::ArrayRef<std::vector<float>> features) = 0;
  virtual llvm::Error save(llvm::StringRef path) const = 0;
  virtual llvm::Error load(llvm::StringRef path) = 0;
};

/// "random" or "xgboost"; null for an unknown name.
std::unique_ptr<CostModel> createCostModel(llvm::StringRef name, uint64_t seed);
/// The names createCostModel takes.
std::vector<std::string> getCostModelNames();

/// The fixed-length feature vector of a schedule on a task, from the
/// tokenizer's rows: the sum and the maximum of each token column over the
/// program, its length, then the task and hardware columns.
FailureOr<std::vector<float>>
scheduleFeatures(ScheduleOp schedule, const TaskFeatures &task,
                 const HardwareFeatures *hardware = nullptr);

/// The features of `kind` (the token matrix of the default Tokenizer for
/// Sequence).
FailureOr<std::vector<float>> featurize(ScheduleOp schedule,
                                        const TaskFeatures &task,
                                        const HardwareFeatures *hardware,
                                        FeatureKind kind);

} // namespace mlir::tcl

#endif // TCL_TUNING_COSTMODEL_H
