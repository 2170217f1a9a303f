//===- Collect.h - Building cost-model datasets -----------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Dataset collection (tcl-tuning-db collect): the tasks of model graphs and
// random tasks (operators of the shapes CNNs and Transformers use: matmul
// with or without a bias/ReLU epilogue, batch matmul, NHWC convolution
// (a share of them with the deep layers' many channels on small maps),
// depthwise convolution, max and sum pooling, sampled with a seed), each
// measured to a quota of programs by the tuner's collection mode
// (TuningOptions::trialsPerTask) behind a load guard (LoadGuard.h).
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_COLLECT_H
#define TCL_TUNING_COLLECT_H

#include "tcl/Tuning/Database.h"
#include "tcl/Tuning/LoadGuard.h"
#include "tcl/Tuning/Tuner.h"

#include <string>
#include <vector>

namespace mlir::tcl {

/// MLIR text of a module with `count` random tasks (function @task<i>
/// each), reproducible from `seed`. FLOPs per task are kept between 1e5
/// and 3e8 so a candidate runs in milliseconds.
std::string generateRandomTasks(unsigned count, uint64_t seed);

/// A 256x256x256 matmul on `platform`: the reference
/// kernel of collection (workload and candidate, default schedule).
MeasureInput makeReferenceInput(const Platform &platform);

struct CollectOptions {
  /// The platform measured (this host must run it).
  Platform platform = Platform::host();
  /// Model graphs (tcl-compile --emit=graph), each a source named by its
  /// file's stem.
  std::vector<std::string> graphs;
  /// Random tasks to add (source "random").
  unsigned randomTasks = 0;
  /// Measured programs per task, counting what the database has.
  unsigned programsPerTask = 100;
  /// Seed of the random tasks and of the sampling.
  uint64_t seed = 1;
  /// Programs per task and turn (one transaction).
  unsigned batchSize = 10;
  /// Share of each batch sampled uniformly; the rest comes from the
  /// evolutionary search.
  double randomFraction = 0.5;
  /// The search's cost model, and which of its candidates to measure
  /// (TuningOptions::sampler; "rdu" needs a model other than random).
  std::string costModel = "random";
  std::string sampler = "topk";
  unsigned committeeMembers = 2;
  MeasureOptions measure;
  /// Re-measure a batch when other processes kept more than this many
  /// cores busy meanwhile; negative: no load guard.
  double maxForeignLoad = 0.25;
};

struct CollectReport {
  /// Distinct tasks of all sources, and the sources.
  size_t tasks = 0, sources = 0;
  TuningReport tuning;
  LoadGuardStats guard;
};

/// Measures programs of the tasks of `options.graphs` and of random tasks
/// into `database` until every task has its quota on the platform; a run
/// stopped at any point resumes where it stopped. Records each task's
/// sources (for held-out-model splits). Progress goes to `log`, if any.
llvm::Expected<CollectReport> collectDataset(TuningDatabase &database,
                                             const CollectOptions &options,
                                             MLIRContext *context,
                                             llvm::raw_ostream *log);

} // namespace mlir::tcl

#endif // TCL_TUNING_COLLECT_H
