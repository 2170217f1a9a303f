//===- MeasureTest.cpp - Faulty candidates are isolated and classified ----===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Runtime/Measure.h"

#include <gtest/gtest.h>

using namespace mlir::tcl;

namespace {

constexpr const char *kWorkload = R"mlir(
func.func @f(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>, %o: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul {tcl.task = "mm"} ins(%x, %y : tensor<64x64xf32>, tensor<64x64xf32>) outs(%o : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
)mlir";

std::string withSchedule(const char *schedule) {
  return std::string(kWorkload) + schedule;
}

constexpr const char *kGoodSchedule = R"mlir(
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [64 parallel, 64 parallel, 64 reduction] {
  tcl.sched.tile [8, 32, 1]
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}
)mlir";

// Computes x*y - o instead of o + x*y.
constexpr const char *kWrong = R"mlir(
func.func @f(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>, %o: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %0 = linalg.matmul ins(%x, %y : tensor<64x64xf32>, tensor<64x64xf32>) outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
  %1 = linalg.sub ins(%0, %o : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %1 : tensor<64x64xf32>
}
)mlir";

// Aborts when run.
constexpr const char *kCrash = R"mlir(
func.func private @abort()
func.func @f(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>, %o: tensor<64x64xf32>) -> tensor<64x64xf32> {
  func.call @abort() : () -> ()
  return %o : tensor<64x64xf32>
}
)mlir";

// Never returns: a loop whose condition is always true and whose result is
// used (an unused side-effect-free loop would be erased as dead code).
constexpr const char *kHang = R"mlir(
func.func @f(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>, %o: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %true = arith.constant true
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %r = scf.while (%v = %zero) : (f32) -> f32 {
    scf.condition(%true) %v : f32
  } do {
  ^bb0(%w: f32):
    %n = arith.addf %w, %one : f32
    scf.yield %n : f32
  }
  %t = tensor.insert %r into %o[%c0, %c0] : tensor<64x64xf32>
  return %t : tensor<64x64xf32>
}
)mlir";

MeasureInput input(std::string candidate) {
  MeasureInput in;
  in.workload = kWorkload;
  in.candidate = std::move(candidate);
  in.entry = "f";
  return in;
}

MeasureOptions fastOptions() {
  MeasureOptions options;
  options.warmup = 1;
  options.repeats = 3;
  options.timeoutSeconds = 20;
  return options;
}

TEST(MeasureTest, GoodCandidateIsTimed) {
  Measurer measurer(fastOptions());
  std::vector<MeasureResult> results =
      measurer.measure({input(withSchedule(kGoodSchedule))});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, MeasureStatus::Ok) << results[0].message;
  EXPECT_EQ(results[0].repeats, 3u);
  EXPECT_GT(results[0].minSeconds, 0);
  EXPECT_LE(results[0].minSeconds, results[0].medianSeconds);
  EXPECT_LE(results[0].medianSeconds, results[0].maxSeconds);
  EXPECT_LT(results[0].maxError, 1e-4);
}

TEST(MeasureTest, ParallelCandidateIsTimedTwice) {
  // Two threads: after its timed runs the worker runs the kernel once more
  // with the OpenMP threads told to sleep at once (runThenSleepThreads); the
  // next request still runs, checks and times normally.
  Measurer measurer(fastOptions());
  MeasureInput parallel = input(withSchedule(kGoodSchedule));
  parallel.platform = Platform::host(2);
  std::vector<MeasureResult> results = measurer.measure({parallel, parallel});
  ASSERT_EQ(results.size(), 2u);
  for (const MeasureResult &result : results) {
    EXPECT_EQ(result.status, MeasureStatus::Ok) << result.message;
    EXPECT_EQ(result.repeats, 3u);
    EXPECT_LT(result.maxError, 1e-4);
  }
}

TEST(TimeRunsTest, WarmsUpForItsRunsAndItsSeconds) {
  // A clock that advances 5 ms a reading and a run that advances it 1 ms
  // more: with 2 warm-up runs and 20 ms of warm-up, the two runs (not
  // timed: 2 ms), then a run after each reading less than 20 ms after the
  // start (7, 13 and 19 ms: 3 runs; the next reads 25 ms), then 3 timed
  // runs of 6 ms each.
  double time = 0;
  unsigned runs = 0;
  auto clock = [&] { return time += 0.005; };
  auto run = [&] {
    ++runs;
    time += 0.001;
  };
  TimingStats stats = timeRuns(run, 2, 3, false, 0.02, clock);
  EXPECT_EQ(runs, 5u + 3u);
  EXPECT_EQ(stats.repeats, 3u);
  EXPECT_NEAR(stats.medianSeconds, 0.006, 1e-12);

  // Without warm-up seconds, the warm-up runs alone.
  runs = 0;
  timeRuns(run, 2, 3, false, 0, clock);
  EXPECT_EQ(runs, 2u + 3u);
  // Every candidate warms up until its runs are steady, several threads at
  // least until they run on cores of their own.
  EXPECT_EQ(getWarmupSeconds(1), kSteadyWarmupSeconds);
  EXPECT_GE(getWarmupSeconds(2), kParallelWarmupSeconds);
  EXPECT_GE(getWarmupSeconds(2), kSteadyWarmupSeconds);
}

class ParallelBuildsTest : public testing::TestWithParam<unsigned> {};

TEST_P(ParallelBuildsTest, FaultyCandidatesAreIsolatedAndClassified) {
  MeasureOptions options = fastOptions();
  options.timeoutSeconds = 4;
  options.parallelBuilds = GetParam();
  Measurer measurer(options);
  std::vector<MeasureInput> batch = {
      input(withSchedule(kGoodSchedule)),
      input(kWrong),
      input(kCrash),
      input(withSchedule(kGoodSchedule)), // after a crash: a new worker
      input(kHang),
      input("func.func @f(%x: tensor<64x64xf32>"), // does not parse
      input(withSchedule(R"mlir(
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [64 parallel, 64 parallel, 64 reduction] {
  tcl.sched.tile [128, 32, 1]
})mlir")),                                         // fails verification
      input(withSchedule(kGoodSchedule)), // after a timeout: a new worker
  };
  std::vector<MeasureResult> results = measurer.measure(batch);
  ASSERT_EQ(results.size(), batch.size());
  auto expectStatus = [&](size_t index, MeasureStatus status,
                          const char *fragment) {
    EXPECT_EQ(results[index].status, status)
        << index << ": " << toString(results[index].status).str() << ": "
        << results[index].message;
    EXPECT_NE(results[index].message.find(fragment), std::string::npos)
        << index << ": " << results[index].message;
  };
  expectStatus(0, MeasureStatus::Ok, "");
  expectStatus(1, MeasureStatus::WrongResult, "differs from the reference");
  expectStatus(2, MeasureStatus::RuntimeCrash, "Aborted");
  expectStatus(3, MeasureStatus::Ok, "");
  expectStatus(4, MeasureStatus::Timeout, "phase: run");
  expectStatus(5, MeasureStatus::CompileError, "cannot parse");
  expectStatus(6, MeasureStatus::CompileError, "exceeds its extent 64");
  expectStatus(7, MeasureStatus::Ok, "");
  // One worker crashed and one hung, and each was replaced: with one
  // worker, three were started; with more, a replacement starts only if
  // work is left for it when the others are busy.
  EXPECT_GE(measurer.getNumWorkersStarted(), 3u);
  EXPECT_LE(measurer.getNumWorkersStarted(), GetParam() + 2);
}

/// Builds overlap, but no timed run ever shares the machine with a build.
TEST_P(ParallelBuildsTest, RunsNeverOverlapBuilds) {
  MeasureOptions options = fastOptions();
  options.parallelBuilds = GetParam();
  Measurer measurer(options);
  std::vector<MeasureInput> batch(5, input(withSchedule(kGoodSchedule)));
  batch.push_back(input(kWrong));
  std::vector<MeasureResult> results = measurer.measure(batch);
  ASSERT_EQ(results.size(), batch.size());
  for (size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(results[i].status, i + 1 < results.size()
                                     ? MeasureStatus::Ok
                                     : MeasureStatus::WrongResult)
        << results[i].message;
    EXPECT_LT(results[i].build.start, results[i].build.end);
    EXPECT_LE(results[i].build.end, results[i].run.start);
    EXPECT_LT(results[i].run.start, results[i].run.end);
    for (size_t j = 0; j < results.size(); ++j) {
      EXPECT_TRUE(i == j || !results[i].run.overlaps(results[j].build))
          << "the run of " << i << " overlaps the build of " << j;
      EXPECT_TRUE(i == j || !results[i].run.overlaps(results[j].run))
          << "the runs of " << i << " and " << j << " overlap";
    }
  }
  EXPECT_EQ(measurer.getMaxConcurrentBuilds(), GetParam());
  EXPECT_EQ(measurer.getNumWorkersStarted(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Builders, ParallelBuildsTest, testing::Values(1u, 2u));

/// Every candidate of a batch larger than the workers fails with the
/// reason (it waited forever for workers that never started when the batch
/// had more candidates than workers).
TEST(MeasureTest, MissingWorkerIsAnError) {
  MeasureOptions options = fastOptions();
  options.parallelBuilds = 2;
  Measurer measurer(options, "/nonexistent/tcl-measure-worker");
  std::vector<MeasureInput> batch(5, input(withSchedule(kGoodSchedule)));
  std::vector<MeasureResult> results = measurer.measure(batch);
  ASSERT_EQ(results.size(), batch.size());
  for (const MeasureResult &result : results) {
    EXPECT_EQ(result.status, MeasureStatus::WorkerError);
    EXPECT_NE(result.message.find("no measurement worker"), std::string::npos);
  }
}

} // namespace
