//===- Database.h - The tuning database (SQLite) ----------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Every measurement the tuner makes, bound to its workload and platform, in
// one SQLite file:
//
//   workloads(id, key UNIQUE, anchor, flops, module)  -- what to compute
//   platforms(id, name UNIQUE, target, threads, features)
//   workload_sources(key, source)  -- which models a workload key is from
//   records(id, workload, platform, schedule, genome, status, message,
//           min_s, median_s, max_s, repeats, max_error, proposer, round,
//           time)
//
// A batch of records is written in one transaction, so killing the tuner
// (even with kill -9) loses at most the batch in flight; the file is in WAL
// mode. Records export to and import from JSON lines (one record per line,
// with its workload and platform inline).
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_DATABASE_H
#define TCL_TUNING_DATABASE_H

#include "tcl/Target/Platform.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace mlir::tcl {

struct WorkloadEntry {
  /// The workload key (tcl-extract-tasks): anchor, operand types, epilogue.
  std::string key;
  std::string anchor;
  double flops = 0;
  /// The workload as a module (one function computing the task).
  std::string module;
};

struct TuningRecord {
  std::string workloadKey;
  std::string platform;
  /// The schedule (a tcl.sched.schedule op, task "task") as text.
  std::string schedule;
  /// The search-space genome that produced it (its text form), if any.
  std::string genome;
  /// "ok" or the error kind (compile_error, wrong_result, crash, ...).
  std::string status = "ok";
  std::string message;
  double minSeconds = 0, medianSeconds = 0, maxSeconds = 0;
  unsigned repeats = 0;
  double maxError = 0;
  /// Who proposed it, e.g. "xgboost/top-k", "random/epsilon", "default".
  std::string proposer;
  unsigned round = 0;
  /// When it was measured (ISO 8601, UTC).
  std::string time;
  /// The code generation that measured it (kCodegenVersion of
  /// Transforms/Pipelines.h); 0: unknown, measured before versions were kept.
  /// Latencies of different versions describe different code.
  unsigned codegen = 0;

  bool isOk() const { return status == "ok"; }
  /// How far the timed runs spread: (max - min) / median; 0 when the record
  /// has no timings (a failure). On a shared host, other load widens it.
  double timingSpread() const {
    return isOk() && medianSeconds > 0
               ? (maxSeconds - minSeconds) / medianSeconds
               : 0;
  }
};

class TuningDatabase {
public:
  /// Opens (creating if needed) the database at `path`. Refuses a corrupt
  /// file and one of another schema version than this tcl's.
  static llvm::Expected<std::unique_ptr<TuningDatabase>>
  open(llvm::StringRef path);
  ~TuningDatabase();

  llvm::Error addWorkload(const WorkloadEntry &workload);
  /// Adds `platform` (by name, with its features) unless the database has
  /// it already.
  llvm::Error addPlatform(const Platform &platform);
  std::optional<WorkloadEntry> getWorkload(llvm::StringRef key);
  /// Every workload, in the order they were added.
  std::vector<WorkloadEntry> getWorkloads();
  /// Notes that workload `key` occurs in `source`: a model
  /// name or "random" (held-out-model splits of a dataset use it).
  llvm::Error addWorkloadSource(llvm::StringRef key, llvm::StringRef source);
  /// Sources of each workload that has any.
  std::map<std::string, std::vector<std::string>> getWorkloadSources();
  /// The platform called `name` with its stored features; nullopt if the
  /// database does not have it.
  std::optional<Platform> getPlatform(llvm::StringRef name);
  /// The platforms of the database, in the order they were added (those
  /// whose target this build does not know are left out).
  std::vector<Platform> getPlatforms();
  /// Replaces the stored hardware features of `platform` by its own (e.g.
  /// once it is probed).
  llvm::Error setPlatformFeatures(const Platform &platform);

  /// Adds `records` in one transaction: all or none. Their workloads and
  /// platforms must have been added.
  llvm::Error addRecords(llvm::ArrayRef<TuningRecord> records);
  /// Replaces the measurement (status, message, times, repeats, error,
  /// time) of records already there, each found by its workload, platform,
  /// schedule and code generation, with theirs: a schedule measured again
  /// keeps one record, of its latest measurement. In one transaction.
  llvm::Error updateMeasurements(llvm::ArrayRef<TuningRecord> records);

  /// All records of a workload on a platform, in insertion order.
  std::vector<TuningRecord> getRecords(llvm::StringRef workloadKey,
                                       llvm::StringRef platform);
  /// All records measured on a platform, in insertion order.
  std::vector<TuningRecord> getPlatformRecords(llvm::StringRef platform);
  /// The fastest successful record (by median time) measured by code
  /// generation `codegen`, else the fastest of any other, if any.
  std::optional<TuningRecord> getBest(llvm::StringRef workloadKey,
                                      llvm::StringRef platform,
                                      unsigned codegen);
  size_t countRecords();

  struct Summary {
    std::string workloadKey, anchor, platform;
    size_t records = 0, failures = 0;
    /// Median seconds of the best successful record (0 if none).
    double bestSeconds = 0;
    double flops = 0;
    /// The code generations of its records, oldest and latest.
    unsigned oldestCodegen = 0, latestCodegen = 0;
  };
  /// One row per workload and platform.
  std::vector<Summary> summarize();

  /// Writes every record as one JSON object per line.
  llvm::Error exportJsonLines(llvm::raw_ostream &os);
  /// Adds the records of a JSON lines export (with their workloads and
  /// platforms); returns how many were added.
  llvm::Expected<size_t> importJsonLines(llvm::StringRef text);

private:
  explicit TuningDatabase(sqlite3 *db) : db(db) {}
  /// Refuses a damaged file (PRAGMA quick_check) and one whose schema is not
  /// this tcl's (PRAGMA user_version, then the tables) with what is wrong;
  /// an empty file passes (open creates the schema).
  llvm::Error checkFile(llvm::StringRef path);
  llvm::Error exec(llvm::StringRef sql);
  /// Runs `body` in one immediate transaction: committed if it succeeds,
  /// rolled back if it fails.
  llvm::Error inTransaction(llvm::function_ref<llvm::Error()> body);
  std::vector<TuningRecord> queryRecords(llvm::StringRef where,
                                         llvm::ArrayRef<std::string> args);
  sqlite3 *db;
};

/// The current time as ISO 8601 UTC ("2026-11-29T11:30:00Z").
std::string currentTimeIso();

} // namespace mlir::tcl

#endif // TCL_TUNING_DATABASE_H
