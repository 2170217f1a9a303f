//===- TaskScheduler.cpp - Which task gets the next batch -----------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/TaskScheduler.h"

#include <cmath>
#include <limits>

using namespace mlir::tcl;

static constexpr double kInfinity = std::numeric_limits<double>::infinity();

TaskScheduler::TaskScheduler(std::vector<double> weights, double alpha,
                             unsigned window)
    : weights(std::move(weights)), alpha(alpha), window(window),
      history(this->weights.size()), retired(this->weights.size(), false) {}

void TaskScheduler::record(size_t task, unsigned trials, double bestSeconds) {
  history[task].push_back({trials, bestSeconds});
}

void TaskScheduler::retire(size_t task) { retired[task] = true; }

double TaskScheduler::priority(size_t task) const {
  if (retired[task])
    return -kInfinity;
  const auto &points = history[task];
  if (points.empty())
    return kInfinity;
  auto [trials, best] = points.back();
  if (!std::isfinite(best))
    return kInfinity;
  if (trials == 0)
    return kInfinity;
  // Best latency `window` trials ago (or at the first point after it).
  double before = points.front().second;
  unsigned since = trials - points.front().first;
  for (auto [t, b] : points)
    if (t + window >= trials) {
      before = b;
      since = trials - t;
      break;
    }
  double backward = 0;
  if (since > 0 && std::isfinite(before))
    backward = (before - best) / since;
  double optimistic = best / trials;
  return weights[task] * (alpha * backward + (1 - alpha) * optimistic);
}

size_t TaskScheduler::next() const {
  for (size_t task = 0; task < history.size(); ++task)
    if (history[task].empty() && !retired[task])
      return task;
  size_t best = 0;
  for (size_t task = 1; task < history.size(); ++task)
    if (priority(task) > priority(best))
      best = task;
  return best;
}
