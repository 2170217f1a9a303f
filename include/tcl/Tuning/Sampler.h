//===- Sampler.h - Which candidates of a search to measure ------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// A sampler picks the batch to measure among the candidates a search
// proposes, given the cost model's scores: mostly the best, a few at random
// so that the model sees programs it does not rate (exploration).
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_SAMPLER_H
#define TCL_TUNING_SAMPLER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <random>
#include <vector>

namespace mlir::tcl {

struct SamplerPick {
  size_t index;
  /// Picked for exploration rather than for its score.
  bool exploratory;
};

class Sampler {
public:
  virtual ~Sampler();
  virtual llvm::StringRef getName() const = 0;
  /// Picks up to `count` distinct candidates given their scores.
  virtual std::vector<SamplerPick>
  select(llvm::ArrayRef<double> scores, size_t count, std::mt19937_64 &rng) = 0;
};

/// The best `count` by score, except that each slot is, with probability
/// `epsilon`, a uniformly random candidate instead.
std::unique_ptr<Sampler> createTopKEpsilonSampler(double epsilon);

} // namespace mlir::tcl

#endif // TCL_TUNING_SAMPLER_H
