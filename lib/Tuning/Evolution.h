//===- Evolution.h - Evolutionary search over a task's space ----*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The search that proposes the candidates of a task to measure next (the
// tuner's step 3, Tuner.h). Private to the tuner: it works on the tuner's
// state of a task (TuningState.h).
//
//===----------------------------------------------------------------------===//

#ifndef TCL_LIB_TUNING_EVOLUTION_H
#define TCL_LIB_TUNING_EVOLUTION_H

#include "TuningState.h"

#include "tcl/Target/Platform.h"
#include "tcl/Tuning/CostModel.h"
#include "tcl/Tuning/Sampler.h"

#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace mlir::tcl {

struct EvolutionOptions {
  /// Candidates kept from one generation to the next.
  unsigned population = 96;
  unsigned generations = 3;
  /// The share of each batch drawn uniformly from the search space instead
  /// of proposed by the evolution.
  double randomFraction = 0;
};

/// A population of the task's best measured genomes (up to a quarter of
/// it) and random samples evolves for a few generations: children by
/// tournament selection, crossover and mutation, survivors by the cost
/// model's score. Children that are ill-formed or whose schedule does not
/// verify are discarded, and so are genomes giving a schedule already in
/// the population. The sampler picks the batch among the candidates never
/// measured (an RDU sampler also sees their embeddings next to the task's
/// measured programs and the committee's uncertainty).
///
/// Everything random comes from `rng`, the tuner's one generator.
class EvolutionarySearch {
public:
  EvolutionarySearch(EvolutionOptions options, MLIRContext *context,
                     CostModel &model, const HardwareFeatures &hardware,
                     std::unique_ptr<Sampler> sampler,
                     ModelCommittee *committee, std::mt19937_64 &rng);

  /// Up to `count` candidates of `task` never measured; who proposed each
  /// ("<model>/top-k", "<model>/epsilon", "<model>/rdu" or
  /// "random/sample") is appended to `proposers`. Fails only when the
  /// sampler does.
  llvm::Expected<std::vector<Candidate>>
  propose(const TaskState &task, size_t count,
          std::vector<std::string> &proposers);

private:
  /// The population after the last generation, with its scores; empty if
  /// no seed is valid.
  std::vector<Candidate> evolve(const TaskState &task,
                                std::vector<double> &scores);
  /// What a sampler that reads them sees of `candidates`: the model's
  /// embedding of each, then of each measured program of `task`, and the
  /// committee's uncertainty of each candidate's score (zeros without one).
  void viewPrograms(const TaskState &task, llvm::ArrayRef<Candidate> candidates,
                    llvm::ArrayRef<double> scores,
                    ProgramEmbeddings &embeddings,
                    std::vector<float> &uncertainty);
  /// Builds, verifies and featurizes the schedule of `genome`.
  std::optional<Candidate> realize(const TaskState &task, const Genome &genome);

  EvolutionOptions options;
  MLIRContext *context;
  CostModel &model;
  const HardwareFeatures &hardware;
  std::unique_ptr<Sampler> sampler;
  /// Null when the sampler reads no uncertainty.
  ModelCommittee *committee;
  std::mt19937_64 &rng;
};

} // namespace mlir::tcl

#endif // TCL_LIB_TUNING_EVOLUTION_H
