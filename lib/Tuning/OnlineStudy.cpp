//===- OnlineStudy.cpp - How cost models learn a run's measurements -------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/OnlineStudy.h"

#include <algorithm>
#include <chrono>
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

} // namespace

llvm::Expected<std::vector<OnlineStudyRow>>
mlir::tcl::runOnlineStudy(llvm::ArrayRef<OnlineContender> contenders,
                          const OnlineStudyOptions &options) {
  if (contenders.empty())
    return std::vector<OnlineStudyRow>();
  llvm::ArrayRef<FeaturizedGroup> reference = contenders.front().test;
  for (const OnlineContender &contender : contenders) {
    bool same = contender.test.size() == reference.size() &&
                contender.training.size() == contenders.front().training.size();
    for (size_t i = 0; same && i < reference.size(); ++i)
      same = contender.test[i].latencies == reference[i].latencies;
    if (!same)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          contender.name + ": its groups differ from " +
              contenders.front().name + "'s");
  }
  std::vector<std::vector<size_t>> orders =
      measuringOrders(reference, options.seed);
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
      if (!samples.empty()) {
        auto start = std::chrono::steady_clock::now();
        if (llvm::Error error = (*model)->update(samples))
          return contenderError(contender, std::move(error));
        row.updateSeconds = std::chrono::duration<double>(
                                std::chrono::steady_clock::now() - start)
                                .count();
      }
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
