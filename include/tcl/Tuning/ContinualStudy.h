//===- ContinualStudy.h - Learning platform after platform ------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The experiment of METHOD.md §4 on a dataset: a continual model
// (learned::ContinualModel) learns the platforms one after another, each
// later platform from a fraction of its training programs (chosen by active
// sampling, or all), and after each stage ranks the held-out tasks of every
// platform seen so far. The baselines learn from the same data in the same
// run: one model fine-tuned platform after platform (which forgets), a
// model per later platform from scratch on the same programs and on all of
// them (on the first platform the fine-tuned model is one from scratch),
// and at the end one model trained on every platform at once (the upper
// bound).
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_CONTINUALSTUDY_H
#define TCL_TUNING_CONTINUALSTUDY_H

#include "tcl/Tuning/Evaluation.h"
#include "tcl/Tuning/Learned/ContinualModel.h"

#include <functional>
#include <string>
#include <vector>

namespace mlir::tcl {

struct ContinualStudyOptions {
  /// The platforms in the order they are learned.
  std::vector<std::string> platforms;
  /// The network of every learner: "mamba", "tlp" or "mlp".
  std::string model = "mamba";
  /// How every learner trains (epochs, loss, threads; fine-tuning the
  /// sequential baseline uses the same epochs).
  LearnedModelOptions training;
  learned::ContinualOptions continual;
  /// The share of each later platform's training programs the continual
  /// model and the same-data baselines learn from (the first platform is
  /// learned from all of its programs).
  double fraction = 1;
  /// Chooses that share of a platform's training groups (the tool passes
  /// active sampling); null takes all.
  std::function<llvm::Expected<std::vector<FeaturizedGroup>>(
      llvm::ArrayRef<FeaturizedGroup>)>
      choose;
  /// Where to save the knowledge base after the last platform (a
  /// RankingModel checkpoint the search loads); empty: not saved.
  std::string knowledgeBasePath;
  /// Train the baselines too (off: the continual model alone).
  bool baselines = true;
  uint64_t seed = 1;
};

/// One measurement: a learner's ranking of one platform's held-out tasks
/// after stage `stage` (1-based; the joint model's stage is the last).
struct ContinualStudyRow {
  unsigned stage = 0;
  /// "continual (knowledge base)", "continual (active column)",
  /// "fine-tuned", "scratch (same programs)", "scratch (all programs)",
  /// "joint (all platforms)".
  std::string learner;
  std::string platform;
  size_t trainPrograms = 0;
  double top1 = 0, top5 = 0;
  /// On the active column's row: what its CL phase chose on held-back tasks
  /// (ContinualModel::ColumnChoice), in words; else empty.
  std::string note;
};

/// Runs the study over `train` and `test` groups (any platforms; those not
/// in options.platforms are ignored), calling `onRow` as each row is
/// measured; returns every row.
llvm::Expected<std::vector<ContinualStudyRow>>
runContinualStudy(llvm::ArrayRef<FeaturizedGroup> train,
                  llvm::ArrayRef<FeaturizedGroup> test,
                  const ContinualStudyOptions &options,
                  const std::function<void(const ContinualStudyRow &)> &onRow);

} // namespace mlir::tcl

#endif // TCL_TUNING_CONTINUALSTUDY_H
