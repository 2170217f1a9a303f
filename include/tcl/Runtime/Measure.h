//===- Measure.h - Isolated measurement of candidate kernels ----*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The tuner measures candidates through a Measurer. Each candidate (a module
// with its schedules, plus the workload it must compute) is compiled, run
// and checked in a worker process, `tcl-measure-worker`, so a candidate that
// crashes, hangs or fails to compile cannot take the tuner down: it is
// recorded with its error kind, its worker is replaced and the batch goes
// on. A candidate whose output differs from the workload's reference output
// (computed with plain loops, kept for the recently measured workloads) is
// an error, never a timing.
//
// Several workers can build (compile the candidate, compute the reference)
// at once, while timed runs go one at a time with every other worker idle:
// a timing never shares the machine with a build, and on a 2-core machine
// building in parallel nearly halves the time per candidate.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_RUNTIME_MEASURE_H
#define TCL_RUNTIME_MEASURE_H

#include "tcl/Runtime/Kernel.h"
#include "tcl/Target/Platform.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <sys/types.h>
#include <vector>

namespace mlir::tcl {

struct MeasureOptions {
  unsigned warmup = 2;
  unsigned repeats = 10;
  /// Overwrite 64 MB before each timed run, so every run starts with its
  /// data out of the L1 and L2 caches (and out of an L3 of up to 64 MB;
  /// Intel's server parts share a larger one).
  bool flushCache = false;
  /// Wall-clock limit of one candidate (compile, reference, run).
  double timeoutSeconds = 60;
  /// Allowed |candidate - reference| <= tolerance * (1 + |reference|).
  float tolerance = kOutputTolerance;
  /// Worker processes that build candidates at the same time (at least 1).
  unsigned parallelBuilds = 1;
};

/// The number of builds worth running at once on this host: one a core.
unsigned getDefaultParallelBuilds();

struct MeasureInput {
  /// The workload: a module whose function `entry` defines the result (its
  /// schedules, if any, are ignored for the reference).
  std::string workload;
  /// The candidate: the same function with the schedules to measure.
  std::string candidate;
  std::string entry;
  /// The platform to compile for and run on; by default the host's.
  Platform platform = Platform::host();
};

enum class MeasureStatus {
  Ok,
  CompileError,
  WrongResult,
  RuntimeCrash,
  Timeout,
  WorkerError,
};
llvm::StringRef toString(MeasureStatus status);

/// A span of the steady clock, in seconds (0, 0: did not happen).
struct ClockInterval {
  double start = 0, end = 0;
  bool overlaps(const ClockInterval &other) const {
    return start < other.end && other.start < end;
  }
};

struct MeasureResult {
  MeasureStatus status = MeasureStatus::WorkerError;
  std::string message;
  double minSeconds = 0, medianSeconds = 0, maxSeconds = 0;
  unsigned repeats = 0;
  double maxError = 0;
  /// When the worker built the candidate and when it ran it (check and
  /// timed runs), as the worker saw them.
  ClockInterval build, run;
};

/// Timing statistics of repeated runs.
struct TimingStats {
  double minSeconds = 0, medianSeconds = 0, maxSeconds = 0;
  unsigned repeats = 0;
};

/// How long code on several threads runs untimed before it is timed. A
/// worker thread that slept wakes on the core of the thread that woke it,
/// and the scheduler moves it away only some milliseconds later: timed at
/// once, both threads of a kernel shared one core in 15-40% of the timings
/// (half the speed: the "bimodal second vCPU" of earlier 2-thread figures,
/// 2-vCPU AMD EPYC VM, libomp); after 10 or 20 ms of
/// warm-up, in none of 140.
constexpr double kParallelWarmupSeconds = 0.02;

/// How long any candidate runs untimed before it is timed. A kernel's first
/// runs after its compile (or after anything else that filled the caches)
/// run slower for 5-40 ms, by 10-20% (Zen 5: a 0.3 ms batch matmul took
/// 0.50, 0.41, 0.37 ... ms and settled at 0.30 after 15-40 runs), and by
/// how much depends on the schedule. With 2 warm-up runs and 10 timed ones
/// the search measured that default at 0.36 ms and ranked candidates by
/// their transients: tuned ResNet-18 ran 9% slower than untuned (tasks
/// whose "tuned" schedule measured 1.1-2x faster ran as fast or slower in
/// the model). With 100 ms of warm-up the worker's medians were within the
/// noise of 300-run medians; 50 ms covered the transients traced.
constexpr double kSteadyWarmupSeconds = 0.05;

/// The warm-up for code on `threads` threads, in seconds.
inline double getWarmupSeconds(unsigned threads) {
  return threads > 1 ? std::max(kParallelWarmupSeconds, kSteadyWarmupSeconds)
                     : kSteadyWarmupSeconds;
}

/// Runs `run` untimed `warmup` times and for at least `warmupSeconds`, then
/// `repeats` times timed; with `flushCache`, evicts the caches before each
/// timed run (untimed). `clock` (seconds; a steady clock if empty) times
/// both.
TimingStats timeRuns(const std::function<void()> &run, unsigned warmup,
                     unsigned repeats, bool flushCache,
                     double warmupSeconds = 0,
                     const std::function<double()> &clock = {});

class Measurer {
public:
  /// `workerPath` defaults to tcl-measure-worker next to the running
  /// executable, or $TCL_MEASURE_WORKER.
  explicit Measurer(MeasureOptions options = {}, std::string workerPath = "");
  ~Measurer();
  Measurer(const Measurer &) = delete;
  Measurer &operator=(const Measurer &) = delete;

  std::vector<MeasureResult> measure(llvm::ArrayRef<MeasureInput> batch);

  /// Number of worker processes started so far (a crash or timeout costs
  /// one).
  unsigned getNumWorkersStarted() const { return workersStarted; }
  /// The most workers seen building at the same time.
  unsigned getMaxConcurrentBuilds() const { return maxConcurrentBuilds; }

private:
  struct WorkerProcess;
  struct Job;
  /// Starts `job` on `worker` (starting the process if needed); false, with
  /// the job's result set, if the request could not be sent.
  bool startJob(WorkerProcess &worker, Job &job);
  /// Reads what `worker` sent and advances its job (to Done once it has a
  /// result).
  void receive(WorkerProcess &worker, Job &job);
  bool ensureWorker(WorkerProcess &worker, std::string &error);
  /// Kills the worker (if any) and reaps it; returns how it ended.
  std::string stopWorker(WorkerProcess &worker, bool kill);

  MeasureOptions options;
  std::string workerPath;
  std::vector<std::unique_ptr<WorkerProcess>> workers;
  unsigned workersStarted = 0;
  unsigned maxConcurrentBuilds = 0;
};

/// The worker's main loop: serves requests on `fd` until it is closed.
int runMeasureWorker(int fd);

} // namespace mlir::tcl

#endif // TCL_RUNTIME_MEASURE_H
