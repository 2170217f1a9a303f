//===- OnlineStudy.h - How cost models learn a run --------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// A tuning run without the host's timing noise: for held-out tasks of a
// dataset, each contender is given the first k programs of every task (a
// seeded order) as a run's measurements would be given to it, labelled
// relative to the best of them, and then ranks each task's other programs.
// Repeated for several k, this is the curve that shows whether a model
// keeps learning from what a run measures (issue "The learned cost model
// pays off", point 3) or stalls, without the task scheduler and the
// measurement noise that decide most of a real run's curve.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_ONLINESTUDY_H
#define TCL_TUNING_ONLINESTUDY_H

#include "tcl/Tuning/Evaluation.h"

#include <functional>

namespace mlir::tcl {

struct OnlineContender {
  std::string name;
  /// A model in its state before the run (trained, loaded or fresh).
  std::function<llvm::Expected<std::unique_ptr<CostModel>>()> make;
  /// The training and held-out groups as features of the kind the model
  /// reads (the same groups and programs for every contender).
  llvm::ArrayRef<FeaturizedGroup> training, test;
  /// Whether the model is given the run's measurements at all (a frozen
  /// model is not), and whether each update also gets the training
  /// groups' samples (XGBoost refitted on the dataset and the run).
  bool learns = true;
  bool withTrainingSamples = false;
};

struct OnlineStudyOptions {
  /// Programs of each held-out task measured before ranking the rest.
  std::vector<unsigned> measured = {0, 4, 8, 16, 32};
  uint64_t seed = 1;
};

struct OnlineStudyRow {
  std::string contender;
  unsigned measured = 0;
  /// Held-out tasks with two or more programs left to rank, and those
  /// programs.
  size_t tasks = 0, programs = 0;
  double top1 = 0, top5 = 0;
  /// Seconds the update took (0 without one).
  double updateSeconds = 0;
};

/// Runs every contender at every count of options.measured. Rows by
/// count, then contender. An error if the contenders' groups differ, or if
/// a model fails to be made or to update (naming the contender).
llvm::Expected<std::vector<OnlineStudyRow>>
runOnlineStudy(llvm::ArrayRef<OnlineContender> contenders,
               const OnlineStudyOptions &options);

/// The search's loop without its noise: round after round, each contender
/// scores every held-out task's programs not yet measured, "measures" the
/// `batch` it scores best (their recorded latencies), and learns from all
/// measured so far, labelled relative to the best measured of their task,
/// as the tuner's model does. Where a run's programs are the pool (the
/// databases of tuning runs of a held-out model), this is a search whose
/// candidates are the ones searches proposed, picked by the model itself:
/// unlike runOnlineStudy's seeded order, a model that keeps picking slow
/// programs keeps learning from them.
struct ClosedLoopOptions {
  unsigned batch = 4, rounds = 8;
  /// Breaks ties among equal scores (an untrained model's: its first
  /// picks are then a seeded random sample).
  uint64_t seed = 1;
};

struct ClosedLoopRow {
  std::string contender;
  /// Programs measured of each task (at most batch x round).
  unsigned measured = 0;
  /// Over the held-out tasks: the mean of the task's fastest program's
  /// latency divided by the fastest measured one's (1: found it), and the
  /// share of tasks whose fastest program was measured.
  double found = 0, foundBest = 0;
  /// Seconds of this round's update (0 for a contender that does not
  /// learn).
  double updateSeconds = 0;
};

/// Runs every contender for options.rounds rounds. Rows by round, then
/// contender. An error if the contenders' groups differ, or if a model
/// fails to be made or to update (naming the contender).
llvm::Expected<std::vector<ClosedLoopRow>>
runClosedLoopStudy(llvm::ArrayRef<OnlineContender> contenders,
                   const ClosedLoopOptions &options);

} // namespace mlir::tcl

#endif // TCL_TUNING_ONLINESTUDY_H
