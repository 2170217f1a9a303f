//===- LoadGuard.cpp - Measuring only on a quiet machine ------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/LoadGuard.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <memory>

using namespace mlir::tcl;

static void say(llvm::raw_ostream *log, const llvm::Twine &message) {
  if (log) {
    *log << "collect: " << message << "\n";
    log->flush();
  }
}

llvm::Error mlir::tcl::waitForQuietMachine(const LoadGuardOptions &options,
                                           LoadGuardStats &stats,
                                           llvm::raw_ostream *log,
                                           LoadEnvironment &environment) {
  double start = environment.nowSeconds();
  bool announced = false;
  for (;;) {
    ++stats.quietWindows;
    std::function<double()> window = environment.startWindow();
    environment.sleep(options.quietWindowSeconds);
    double load = window();
    double waited = environment.nowSeconds() - start;
    if (load <= options.maxForeignCores) {
      if (announced)
        say(log, "machine quiet again after " +
                     llvm::formatv("{0:F0}", waited).str() + " s");
      stats.waitedSeconds += waited;
      return llvm::Error::success();
    }
    if (!announced)
      say(log, "machine busy (" + llvm::formatv("{0:F2}", load).str() +
                   " foreign cores): waiting");
    announced = true;
    if (waited > options.maxWaitSeconds)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "the machine stayed busy for " +
                                         llvm::formatv("{0:F0}", waited).str() +
                                         " s");
  }
}

MeasureFn mlir::tcl::guardAgainstLoad(MeasureFn measure, MeasureInput reference,
                                      LoadGuardOptions options,
                                      LoadGuardStats &stats,
                                      llvm::raw_ostream *log,
                                      LoadEnvironment &environment) {
  auto referenceTimings = std::make_shared<std::vector<double>>();
  // Whether the last batch measured ran on a quiet machine.
  auto lastBatchQuiet = std::make_shared<bool>(false);
  auto waitUntilQuiet = [=, &stats, &environment] {
    return waitForQuietMachine(options, stats, log, environment);
  };
  // Times the reference once, when the machine is quiet.
  auto timeReference = [=, &stats, &environment]() -> llvm::Expected<double> {
    for (;;) {
      if (llvm::Error error = waitUntilQuiet())
        return std::move(error);
      std::function<double()> window = environment.startWindow();
      std::vector<MeasureResult> results = measure({reference});
      if (window() > options.maxForeignCores)
        continue;
      if (results.empty() || results[0].status != MeasureStatus::Ok)
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "the reference kernel failed: " +
                                           (results.empty()
                                                ? std::string("no result")
                                                : results[0].message));
      ++stats.referenceTimings;
      stats.referenceSeconds = results[0].medianSeconds;
      return results[0].medianSeconds;
    }
  };
  return [=, &stats, &environment](
             llvm::ArrayRef<MeasureInput> batch) -> std::vector<MeasureResult> {
    bool checkReference = !reference.workload.empty() &&
                          options.referenceEvery > 0 &&
                          stats.batches % options.referenceEvery == 0;
    if (checkReference) {
      for (unsigned attempt = 0;; ++attempt) {
        llvm::Expected<double> seconds = timeReference();
        if (!seconds) {
          say(log, llvm::toString(seconds.takeError()));
          break;
        }
        // The first three timings set the baseline (their best).
        if (referenceTimings->size() < 3) {
          referenceTimings->push_back(*seconds);
          if (referenceTimings->size() < 3)
            continue;
          break;
        }
        double baseline = *std::min_element(referenceTimings->begin(),
                                            referenceTimings->end());
        if (*seconds <= options.referenceTolerance * baseline)
          break;
        ++stats.referenceWaits;
        say(log, "reference kernel at " +
                     llvm::formatv("{0:F3}", *seconds / baseline).str() +
                     "x its baseline: waiting 30 s");
        if (attempt * 30.0 > options.maxWaitSeconds)
          break;
        environment.sleep(30);
      }
    }
    for (;;) {
      bool gaveUp = false;
      if (!*lastBatchQuiet) {
        if (llvm::Error error = waitUntilQuiet()) {
          say(log, llvm::toString(std::move(error)) + "; measuring anyway");
          gaveUp = true;
        }
      }
      std::function<double()> window = environment.startWindow();
      std::vector<MeasureResult> results = measure(batch);
      double load = window();
      *lastBatchQuiet = load <= options.maxForeignCores;
      if (*lastBatchQuiet || gaveUp) {
        ++stats.batches;
        return results;
      }
      ++stats.remeasured;
      say(log, "foreign load " + llvm::formatv("{0:F2}", load).str() +
                   " cores during a batch: measuring it again");
    }
  };
}
