//===- LoadGuard.h - Measuring only on a quiet machine ----------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// A load guard around measurement, for dataset collection on a shared
// machine: a batch measured while something else kept the machine busy is
// thrown away and measured again once the machine is quiet, and a reference
// kernel timed now and then must stay within a tolerance of its first
// timing, or collection waits. What it reads and how it waits come from a
// LoadEnvironment (the machine, or a script in tests).
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_LOADGUARD_H
#define TCL_TUNING_LOADGUARD_H

#include "tcl/Runtime/Machine.h"
#include "tcl/Runtime/Measure.h"
#include "tcl/Tuning/Tuner.h"

#include "llvm/Support/raw_ostream.h"

namespace mlir::tcl {

struct LoadGuardOptions {
  /// A batch is re-measured when processes outside this process group
  /// kept more than this many cores busy on average while it ran.
  double maxForeignCores = 0.25;
  /// Before the first batch, and after a disturbed one, wait until a
  /// window of this length is that quiet. After a quiet batch the next one
  /// starts at once: its own load reading catches anything new, and a
  /// window before every batch would cost more time than measuring.
  double quietWindowSeconds = 2;
  /// Time the reference every this many batches (0: never) ...
  unsigned referenceEvery = 25;
  /// ... and wait while its median is more than this factor above the
  /// best of its first timings.
  double referenceTolerance = 1.15;
  /// Give up (an error) after waiting this long for a quiet machine.
  double maxWaitSeconds = 6 * 3600;
};

/// Counters of what the guard did.
struct LoadGuardStats {
  unsigned batches = 0, remeasured = 0, referenceTimings = 0,
           referenceWaits = 0, quietWindows = 0;
  double waitedSeconds = 0;
  double referenceSeconds = 0;
};

/// Blocks until a window of LoadGuardOptions::quietWindowSeconds passes
/// with at most maxForeignCores of foreign load; an error after
/// maxWaitSeconds. Load, clock and waits come from `environment`.
llvm::Error waitForQuietMachine(
    const LoadGuardOptions &options, LoadGuardStats &stats,
    llvm::raw_ostream *log,
    LoadEnvironment &environment = LoadEnvironment::machine());

/// Wraps `measure`: each batch runs when the machine is quiet and is
/// measured again if it was not quiet throughout (see quietWindowSeconds).
/// `reference` is a candidate timed every LoadGuardOptions::referenceEvery
/// batches (empty workload: no reference). Messages go to `log`, if any;
/// `stats` is updated as it goes. Load, clock and waits come from
/// `environment`, which must outlive the returned function.
MeasureFn
guardAgainstLoad(MeasureFn measure, MeasureInput reference,
                 LoadGuardOptions options, LoadGuardStats &stats,
                 llvm::raw_ostream *log,
                 LoadEnvironment &environment = LoadEnvironment::machine());

} // namespace mlir::tcl

#endif // TCL_TUNING_LOADGUARD_H
