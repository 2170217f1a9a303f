//===- PlatformPrograms.cpp - A platform's programs, task by task ---------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "PlatformPrograms.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>

namespace mlir::tcl::learned {

std::map<unsigned, std::vector<size_t>> programsByTask(const ProgramSet &set) {
  std::map<unsigned, std::vector<size_t>> byTask;
  for (size_t i = 0; i < set.size(); ++i)
    byTask[set.groups[i]].push_back(i);
  return byTask;
}

double topOne(const ProgramSet &set, llvm::ArrayRef<float> scores) {
  struct Task {
    float topScore = -std::numeric_limits<float>::infinity();
    float picked = 0, best = 0;
  };
  std::map<unsigned, Task> tasks;
  for (size_t i = 0; i < set.size(); ++i) {
    Task &task = tasks[set.groups[i]];
    task.best = std::max(task.best, set.labels[i]);
    if (scores[i] > task.topScore) {
      task.topScore = scores[i];
      task.picked = set.labels[i];
    }
  }
  double sum = 0;
  size_t counted = 0;
  for (const auto &[group, task] : tasks)
    if (task.best > 0) {
      sum += task.picked / task.best;
      ++counted;
    }
  return counted ? sum / double(counted) : 0;
}

double orderAgreement(const ProgramSet &set, llvm::ArrayRef<float> reference,
                      llvm::ArrayRef<float> scores) {
  double sum = 0;
  size_t counted = 0;
  for (const auto &[group, programs] : programsByTask(set)) {
    size_t same = 0, ordered = 0;
    for (size_t i : programs)
      for (size_t j : programs)
        if (reference[i] > reference[j]) {
          ++ordered;
          same += scores[i] > scores[j];
        }
    if (ordered) {
      sum += double(same) / double(ordered);
      ++counted;
    }
  }
  return counted ? sum / double(counted) : 0;
}

std::pair<ProgramSet, ProgramSet> holdBackTasks(const ProgramSet &data,
                                                double share, uint64_t seed) {
  std::map<unsigned, std::vector<size_t>> byTask = programsByTask(data);
  std::vector<unsigned> judging;
  for (const auto &[group, programs] : byTask) {
    auto [low, high] = std::minmax_element(
        programs.begin(), programs.end(),
        [&](size_t a, size_t b) { return data.labels[a] < data.labels[b]; });
    if (data.labels[*high] > data.labels[*low])
      judging.push_back(group);
  }
  std::mt19937_64 rng(seed);
  std::shuffle(judging.begin(), judging.end(), rng);
  const size_t count = size_t(std::llround(share * double(judging.size())));
  ProgramSet learn(data.rows, data.width), check(data.rows, data.width);
  if (count < 2 || byTask.size() - count < 2)
    return {data, check};
  std::set<unsigned> heldBack(judging.begin(), judging.begin() + count);
  const size_t perProgram = size_t(data.rows) * data.width;
  for (size_t i = 0; i < data.size(); ++i)
    (heldBack.count(data.groups[i]) ? check : learn)
        .append(data.inputs.data() + i * perProgram, data.labels[i],
                data.groups[i]);
  return {std::move(learn), std::move(check)};
}

std::vector<float> hardwareOf(const ProgramSet &set, unsigned begin,
                              unsigned end) {
  const size_t rows = set.inputs.size() / set.width;
  for (size_t row = 0; row < rows; ++row) {
    const float *columns = set.inputs.data() + row * set.width;
    if (std::any_of(columns + begin, columns + end,
                    [](float value) { return value != 0; }))
      return std::vector<float>(columns + begin, columns + end);
  }
  return {};
}

std::vector<float> withHardware(const float *inputs, size_t rows,
                                unsigned width, unsigned begin,
                                llvm::ArrayRef<float> hardware) {
  std::vector<float> moved(inputs, inputs + rows * width);
  for (size_t row = 0; row < rows; ++row) {
    float *columns = moved.data() + row * width + begin;
    if (std::any_of(columns, columns + hardware.size(),
                    [](float value) { return value != 0; }))
      std::copy(hardware.begin(), hardware.end(), columns);
  }
  return moved;
}

} // namespace mlir::tcl::learned
