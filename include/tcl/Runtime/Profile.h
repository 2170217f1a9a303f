//===- Profile.h - Where a compiled model's time goes -----------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Reads the counters that code compiled with LoweringOptions::profile
// (tcl-profile-nests; `tcl-compile --profile`) keeps: the time of every call
// of a loop nest and of every run of the function, and prints where a run's
// time goes: the tasks' nests (what the search tunes), the other nests
// (pads, copies, transposes: leftover ops) and the rest (allocation, code
// that was not outlined).
//
//===----------------------------------------------------------------------===//

#ifndef TCL_RUNTIME_PROFILE_H
#define TCL_RUNTIME_PROFILE_H

#include "tcl/Runtime/Kernel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::tcl {

/// One place whose time the profiled code counts.
struct ProfileSite {
  /// The function the time is spent in.
  std::string function;
  /// The nest's function it calls there; empty for the function's whole run.
  std::string callee;
  /// The task whose schedule made the nest's loops; empty for leftover ops.
  std::string task;
  /// What the nest computes: its linalg ops (e.g. "fill,copy": a pad).
  std::string ops;
  /// Time stamp counter ticks spent, and calls, since the code was loaded
  /// or the counters were last reset.
  uint64_t ticks = 0;
  uint64_t calls = 0;
};

/// The counters of `kernel`; an error that says how to get them where it
/// was compiled without.
llvm::Expected<std::vector<ProfileSite>> readProfile(const Kernel &kernel);

/// Sets `kernel`'s counters to zero (e.g. after its warm-up runs).
llvm::Error resetProfile(const Kernel &kernel);

/// Where the time of `function`'s runs went. Shares are of the ticks counted
/// over the function's whole runs.
struct ProfileSummary {
  uint64_t runs = 0;
  /// Ticks of the function's whole runs, of which the shares are.
  uint64_t ticks = 0;
  double taskShare = 0;     // the tasks' nests
  double leftoverShare = 0; // the other nests
  double outsideShare = 0;  // the function's own code
  /// Per nest function (its call sites summed), most time first.
  std::vector<ProfileSite> nests;
};
llvm::Expected<ProfileSummary>
summarizeProfile(llvm::ArrayRef<ProfileSite> sites, llvm::StringRef function);

/// Prints `summary` as a table; `secondsPerRun` (a run's measured time)
/// turns shares into milliseconds.
void printProfile(llvm::raw_ostream &os, const ProfileSummary &summary,
                  llvm::StringRef function, double secondsPerRun);

} // namespace mlir::tcl

#endif // TCL_RUNTIME_PROFILE_H
