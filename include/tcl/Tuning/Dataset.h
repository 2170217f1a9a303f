//===- Dataset.h - Cost-model datasets: files and splits --------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// A dataset is what a collection left in a tuning database, in a form small
// enough to commit and quick to train from:
//
//   DIR/MANIFEST.json       how it was made (command, seed, date, machine)
//                           and what it holds (records per platform)
//   DIR/platforms.json      the platforms with their hardware features
//   DIR/workloads.jsonl.xz  one workload per line: key, anchor, FLOPs,
//                           module, sources (models it occurs in, "random")
//   DIR/records.jsonl.xz    one measured program per line: workload and
//                           platform by index, schedule, status, min /
//                           median / max seconds, repeats, proposer, genome
//
// (xz: liblzma). Importing a dataset into a database (an in-memory one for
// training) gives back the same workloads, platforms, sources and records.
//
// Groups and splits: a group is one workload on one platform, the unit the
// ranking losses and metrics work in. A split holds groups out by task
// (a stable hash of the workload key), by model (every workload that occurs
// in the model, from training too) or by platform.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_DATASET_H
#define TCL_TUNING_DATASET_H

#include "tcl/Tuning/Database.h"

#include <map>
#include <string>
#include <vector>

namespace mlir::tcl {

struct DatasetManifest {
  std::string command, seed, date, machine, notes;
};

/// Writes the records of `platforms` (all if empty) in `database` to `dir`
/// (created if needed). Failed records keep their status, not their
/// message.
llvm::Error exportDataset(TuningDatabase &database, llvm::StringRef dir,
                          const DatasetManifest &manifest,
                          llvm::ArrayRef<std::string> platforms = {});

/// Adds the dataset in `dir` to `database`; returns the records added.
llvm::Expected<size_t> importDataset(TuningDatabase &database,
                                     llvm::StringRef dir);

/// xz (LZMA2) compression of a file's contents, for the dataset files.
llvm::Expected<std::string> compressXz(llvm::StringRef data);
llvm::Expected<std::string> decompressXz(llvm::StringRef data);

/// One workload's records on one platform.
struct DatasetGroup {
  std::string workloadKey, platform;
  std::vector<std::string> sources;
  std::vector<TuningRecord> records;
};

/// Writes exactly the records of `groups` (workloads, platforms and sources
/// as in `database`) to `dir`: a subset of a dataset, e.g. the programs that
/// active sampling chose.
llvm::Error exportDatasetGroups(TuningDatabase &database,
                                llvm::ArrayRef<DatasetGroup> groups,
                                llvm::StringRef dir,
                                const DatasetManifest &manifest);

/// Keeps, of one task's records on one platform, those of the latest code
/// generation (TuningRecord::codegen) among them: latencies of two versions
/// time different code and do not rank together.
void keepLatestCodegen(std::vector<TuningRecord> &records);

/// Groups of `database` with at least `minRecords` records, on `platforms`
/// (all if empty), each of one code generation (keepLatestCodegen), in a
/// stable order (platform, then workload key). With
/// `maxSpread` > 0, successful records whose timings spread more than that
/// ((max - min) / median) are left out as noisy.
std::vector<DatasetGroup>
loadDatasetGroups(TuningDatabase &database,
                  llvm::ArrayRef<std::string> platforms = {},
                  size_t minRecords = 2, double maxSpread = 0);

struct DatasetSplit {
  std::vector<size_t> train, test;
};

/// Splits group indices by `spec`:
///   "task"            every fifth workload (by a stable hash of its key)
///                     is held out, on every platform;
///   "model:NAME"      workloads that occur in model NAME are held out;
///   "platform:NAME"   the groups of platform NAME are held out.
/// Fails on an unknown spec, or when either side would be empty.
llvm::Expected<DatasetSplit> splitDataset(llvm::ArrayRef<DatasetGroup> groups,
                                          llvm::StringRef spec);

} // namespace mlir::tcl

#endif // TCL_TUNING_DATASET_H
