//===- OnlineStudy.cpp - How cost models learn a run's measurements -------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/OnlineStudy.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <numeric>
#include <random>

using namespace mlir;
using namespace mlir::tcl;

namespace {

/// Each group's programs in a seeded order: the order a run measures them.
std::vector<std::vector<size_t>>
measuringOrders(llvm::ArrayRef<FeaturizedGroup> groups, uint64_t seed) {
  std::vector<std::vector<size_t>> orders;
  for (auto [index, group] : llvm::enumerate(groups)) {
    std::vector<size_t> order(group.features.size());
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 rng(seed * 1000003 + index);
    std::shuffle(order.begin(), order.end(), rng);
    orders.push_back(std::move(order));
  }
  return orders;
}

/// The run's samples after `measured` programs of each group (in `orders`),
/// labelled relative to the best of them, as tasks after `firstGroup`
/// ones; and the groups' programs left to rank (groups with two or more).
std::pair<std::vector<CostSample>, std::vector<FeaturizedGroup>>
splitRun(llvm::ArrayRef<FeaturizedGroup> test,
         llvm::ArrayRef<std::vector<size_t>> orders, unsigned measured,
         size_t firstGroup) {
  std::vector<FeaturizedGroup> runGroups, left;
  for (auto [group, order] : llvm::zip(test, orders)) {
    size_t count = std::min<size_t>(measured, order.size());
    llvm::ArrayRef<size_t> all(order);
    if (count)
      runGroups.push_back(pickPrograms(group, all.take_front(count)));
    if (order.size() - count >= 2)
      left.push_back(pickPrograms(group, all.drop_front(count)));
  }
  std::vector<CostSample> samples = makeSamples(runGroups);
  for (CostSample &sample : samples)
    sample.group += firstGroup;
  return {std::move(samples), std::move(left)};
}

llvm::Error contenderError(const OnlineContender &contender,
                           llvm::Error error) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 contender.name + ": " +
                                     llvm::toString(std::move(error)));
}

/// `contender`'s model learns `samples`; `seconds` is how long it took.
llvm::Error timedUpdate(const OnlineContender &contender, CostModel &model,
                        llvm::ArrayRef<CostSample> samples, double &seconds) {
  auto start = std::chrono::steady_clock::now();
  if (llvm::Error error = model.update(samples))
    return contenderError(contender, std::move(error));
  seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return llvm::Error::success();
}

/// An error unless every contender has the first one's groups (the same
/// held-out programs and latencies, as many training groups).
llvm::Error checkSameGroups(llvm::ArrayRef<OnlineContender> contenders) {
  const OnlineContender &first = contenders.front();
  for (const OnlineContender &contender : contenders) {
    bool same = contender.test.size() == first.test.size() &&
                contender.training.size() == first.training.size();
    for (size_t i = 0; same && i < first.test.size(); ++i)
      same = contender.test[i].latencies == first.test[i].latencies;
    if (!same)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          contender.name + ": its groups differ from " + first.name + "'s");
  }
  return llvm::Error::success();
}

/// The fastest of `latencies` at `programs` (infinity: none ran).
double fastestOf(llvm::ArrayRef<double> latencies,
                 llvm::ArrayRef<size_t> programs) {
  double best = std::numeric_limits<double>::infinity();
  for (size_t program : programs)
    best = std::min(best, latencies[program]);
  return best;
}

/// The `batch` programs of `group` that `model` scores best among those
/// not in `measured`, ties broken by `order` (the group's seeded order).
/// (A few dozen measured of a few hundred: a scan is enough.)
std::vector<size_t> pickBest(CostModel &model, const FeaturizedGroup &group,
                             llvm::ArrayRef<size_t> order,
                             llvm::ArrayRef<size_t> measured, unsigned batch) {
  std::vector<size_t> candidates;
  std::vector<std::vector<float>> features;
  for (size_t program : order)
    if (!llvm::is_contained(measured, program)) {
      candidates.push_back(program);
      features.push_back(group.features[program]);
    }
  if (candidates.empty())
    return {};
  std::vector<double> scores = model.predict(features);
  std::vector<size_t> ranks(candidates.size());
  std::iota(ranks.begin(), ranks.end(), 0);
  std::sort(ranks.begin(), ranks.end(), [&](size_t a, size_t b) {
    return scores[a] != scores[b] ? scores[a] > scores[b] : a < b;
  });
  ranks.resize(std::min<size_t>(batch, ranks.size()));
  std::vector<size_t> picked;
  for (size_t rank : ranks)
    picked.push_back(candidates[rank]);
  return picked;
}

} // namespace

llvm::Expected<std::vector<OnlineStudyRow>>
mlir::tcl::runOnlineStudy(llvm::ArrayRef<OnlineContender> contenders,
                          const OnlineStudyOptions &options) {
  if (contenders.empty())
    return std::vector<OnlineStudyRow>();
  if (llvm::Error error = checkSameGroups(contenders))
    return std::move(error);
  std::vector<std::vector<size_t>> orders =
      measuringOrders(contenders.front().test, options.seed);
  // The training samples of the contenders that read them, made once.
  std::vector<std::vector<CostSample>> trainingSamples;
  for (const OnlineContender &contender : contenders)
    trainingSamples.push_back(contender.withTrainingSamples
                                  ? makeSamples(contender.training)
                                  : std::vector<CostSample>());

  std::vector<OnlineStudyRow> rows;
  for (unsigned measured : options.measured) {
    for (auto [contender, training] : llvm::zip(contenders, trainingSamples)) {
      auto [runSamples, left] = splitRun(contender.test, orders, measured,
                                         contender.training.size());
      auto model = contender.make();
      if (!model)
        return contenderError(contender, model.takeError());
      std::vector<CostSample> samples = training;
      if (contender.learns)
        llvm::append_range(samples, runSamples);
      OnlineStudyRow row;
      row.contender = contender.name;
      row.measured = measured;
      if (!samples.empty())
        if (llvm::Error error =
                timedUpdate(contender, **model, samples, row.updateSeconds))
          return std::move(error);
      CostModelEvaluation ranked = rankHeldOut(**model, left);
      row.tasks = left.size();
      row.programs = ranked.testRecords;
      row.top1 = ranked.top1;
      row.top5 = ranked.top5;
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

llvm::Expected<std::vector<ClosedLoopRow>>
mlir::tcl::runClosedLoopStudy(llvm::ArrayRef<OnlineContender> contenders,
                              const ClosedLoopOptions &options) {
  if (contenders.empty())
    return std::vector<ClosedLoopRow>();
  if (options.batch == 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "a round measures at least one program a "
                                   "task (batch 0)");
  if (llvm::Error error = checkSameGroups(contenders))
    return std::move(error);
  // The contenders' groups differ only in their features.
  llvm::ArrayRef<FeaturizedGroup> test = contenders.front().test;
  std::vector<std::vector<size_t>> orders = measuringOrders(test, options.seed);
  // Rows by round, then contender.
  std::vector<ClosedLoopRow> rows(size_t(options.rounds) * contenders.size());
  for (auto [index, contender] : llvm::enumerate(contenders)) {
    auto model = contender.make();
    if (!model)
      return contenderError(contender, model.takeError());
    std::vector<CostSample> training;
    if (contender.withTrainingSamples)
      training = makeSamples(contender.training);
    // Each task's measured programs, in the order they were measured.
    std::vector<std::vector<size_t>> measured(test.size());
    for (unsigned round = 0; round < options.rounds; ++round) {
      for (auto [group, order] : llvm::enumerate(orders))
        llvm::append_range(measured[group],
                           pickBest(**model, contender.test[group], order,
                                    measured[group], options.batch));
      ClosedLoopRow &row = rows[round * contenders.size() + index];
      row.contender = contender.name;
      if (contender.learns) {
        std::vector<FeaturizedGroup> run;
        for (auto [group, programs] : llvm::zip(contender.test, measured))
          if (!programs.empty())
            run.push_back(pickPrograms(group, programs));
        std::vector<CostSample> samples = training;
        for (CostSample &sample : makeSamples(run)) {
          sample.group += contender.training.size();
          samples.push_back(std::move(sample));
        }
        if (llvm::Error error =
                timedUpdate(contender, **model, samples, row.updateSeconds))
          return std::move(error);
      }
      size_t tasks = 0;
      for (auto [group, programs] : llvm::zip(test, measured)) {
        if (group.latencies.empty())
          continue;
        double best = *llvm::min_element(group.latencies);
        if (!std::isfinite(best))
          continue; // nothing of it ran: nothing to find
        ++tasks;
        row.measured = std::max<unsigned>(row.measured, programs.size());
        double found = fastestOf(group.latencies, programs);
        row.found += std::isfinite(found) ? best / found : 0.0;
        row.foundBest += found == best;
      }
      if (tasks) {
        row.found /= tasks;
        row.foundBest /= tasks;
      }
    }
  }
  return rows;
}
