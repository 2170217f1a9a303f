//===- TaskScheduler.h - Which task gets the next batch ---------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The task scheduler spreads a tuning budget over a model's tasks, giving
// the next batch to the task whose latency is expected to drop the most
// (Ansor's gradient-based task scheduler).
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_TASKSCHEDULER_H
#define TCL_TUNING_TASKSCHEDULER_H

#include <cstddef>
#include <utility>
#include <vector>

namespace mlir::tcl {

/// Spreads trials over a model's tasks. First every task once, in order
/// (warm-up). Then the task with the largest priority
///   w_i * (alpha * (b_i(t_i - window) - b_i(t_i)) / window
///          + (1 - alpha) * b_i(t_i) / t_i)
/// where w_i is the task's weight (occurrences), b_i(t) its best latency
/// after t trials and t_i its trials so far: the first term is the recent
/// rate of improvement (Ansor's backward gradient), the second an
/// optimistic estimate that a task keeps improving as it did on average.
/// A task without a successful measurement has infinite priority. Ties go
/// to the lower index.
class TaskScheduler {
public:
  explicit TaskScheduler(std::vector<double> weights, double alpha = 0.5,
                         unsigned window = 16);
  size_t next() const;
  /// After a batch: `task` has `trials` trials, its best is `bestSeconds`
  /// (infinity if none succeeded).
  void record(size_t task, unsigned trials, double bestSeconds);
  /// `task` has nothing left to try: it is never picked again.
  void retire(size_t task);
  double priority(size_t task) const;

private:
  std::vector<double> weights;
  double alpha;
  unsigned window;
  /// Per task: (trials, best) after each batch.
  std::vector<std::vector<std::pair<unsigned, double>>> history;
  std::vector<bool> retired;
};

} // namespace mlir::tcl

#endif // TCL_TUNING_TASKSCHEDULER_H
