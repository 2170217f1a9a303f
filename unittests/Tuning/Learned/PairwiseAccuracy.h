//===- PairwiseAccuracy.h - How well scores order a program set -*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_UNITTESTS_TUNING_LEARNED_PAIRWISEACCURACY_H
#define TCL_UNITTESTS_TUNING_LEARNED_PAIRWISEACCURACY_H

#include "tcl/Tuning/Learned/ModelConfig.h"

#include <vector>

namespace mlir::tcl::learned::test {

/// Fraction of same-task pairs with different labels that the scores order
/// correctly.
inline double pairwiseAccuracy(const ProgramSet &set,
                               const std::vector<float> &scores) {
  size_t right = 0, total = 0;
  for (size_t i = 0; i < set.size(); ++i)
    for (size_t j = 0; j < set.size(); ++j)
      if (set.groups[i] == set.groups[j] && set.labels[i] > set.labels[j]) {
        ++total;
        right += scores[i] > scores[j];
      }
  return total ? double(right) / double(total) : 0.0;
}

} // namespace mlir::tcl::learned::test

#endif // TCL_UNITTESTS_TUNING_LEARNED_PAIRWISEACCURACY_H
