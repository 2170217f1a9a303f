//===- Compiler.h - ONNX or MLIR in, tuned native code out ------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The compiler as a library call, what tcl-compile runs: import (ONNX, with
// the graph optimizations) or parse (.mlir with tcl.sched schedules), tune
// the tasks into a tuning database if asked, take the best schedules the
// database holds, and lower to what `emit` asks for.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_DRIVER_COMPILER_H
#define TCL_DRIVER_COMPILER_H

#include "tcl/Frontend/OnnxImporter.h"
#include "tcl/Runtime/Measure.h"
#include "tcl/Transforms/Pipelines.h"
#include "tcl/Tuning/Tuner.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace mlir::tcl {

enum class EmitKind {
  /// MLIR of the optimized graph with its tasks tagged, before scheduling.
  Graph,
  /// The task table (anchor, weight, epilogue ops, FLOPs, workload key).
  Tasks,
  /// MLIR with the schedules applied.
  MLIR,
  LLVM,
  Object,
  /// A shared library with the C API of the entry function and its header.
  SharedLibrary,
  /// PTX of the kernels, for a GPU target.
  PTX,
};

struct CompileOptions {
  /// A .mlir file (linalg ops and tcl.sched schedules) or an ONNX model.
  std::string input;
  /// Where the output goes ("-": standard output, for text kinds).
  std::string output = "-";
  EmitKind emit = EmitKind::SharedLibrary;
  /// The target; without one, that of the input's schedules, else the
  /// host's (getDefaultTarget).
  const TargetArch *target = nullptr;
  /// Threads of parallel loops.
  unsigned threads = 1;
  /// Threads that compile a shared library's functions (CodegenOptions).
  unsigned compileThreads = 0;
  /// Print how long each phase took (and each pass) to standard error.
  bool timing = false;
  /// Count the time of every loop nest's calls in the compiled code
  /// (LoweringOptions::profile), for tcl-run --profile. CPU targets only.
  bool profile = false;

  /// ONNX input only.
  OnnxImportOptions import;
  bool optimizeGraph = true;
  /// What the graph optimizations do (with optimizeGraph).
  GraphOptions graph;
  /// The function that gets the C API in a shared library.
  std::string entry = kOnnxEntryName;

  /// A tuning database: the best schedule it holds for each task on the
  /// platform is used; with `tune`, the tuning run's measurements go there.
  std::string tuningDatabase;
  bool tune = false;
  /// The search's settings (its platform is the compiled one).
  TuningOptions tuning;
  MeasureOptions measure;
  /// With `tune`: the tuning curves as SVG, if not empty.
  std::string tuningCurve;
};

struct CompileReport {
  /// The platform compiled for.
  std::optional<Platform> platform;
  /// Tasks that use a schedule from the tuning database.
  unsigned tunedTasks = 0;
  /// With `tune`: what the search did.
  std::optional<TuningReport> tuning;
};

/// Compiles `options.input` as `options` say. MLIR diagnostics (a schedule
/// that does not apply, IR that does not parse) go to standard error as
/// they happen; tuning progress goes to `progress`, if any. Fails with a
/// message, before the database is created, on options that cannot work
/// (an unknown cost model, tuning for a platform this host cannot run).
llvm::Expected<CompileReport> compileModel(const CompileOptions &options,
                                           llvm::raw_ostream *progress);

} // namespace mlir::tcl

#endif // TCL_DRIVER_COMPILER_H
