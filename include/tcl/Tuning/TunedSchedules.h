//===- TunedSchedules.h - Schedules from the tuning database ----*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// What the rest of tcl does with the tuning database besides tuning: bind
// a platform to the hardware features measured on it, read a stored
// schedule back, and give a model the best schedules found for its tasks.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_TUNEDSCHEDULES_H
#define TCL_TUNING_TUNEDSCHEDULES_H

#include "tcl/Dialect/Tcl/IR/TclOps.h"
#include "tcl/Target/Platform.h"
#include "tcl/Tuning/Database.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace mlir::tcl {

/// Adds `platform` to the database and returns it with its hardware
/// features: those stored, or (with `probe`, when the stored ones are not
/// probed) freshly probed ones, which are then stored. `probe` means the
/// caller measures on this machine: it fails, before anything is stored, if
/// this host cannot execute the platform's code.
llvm::Expected<Platform> registerPlatform(TuningDatabase &database,
                                          const Platform &platform, bool probe);

/// Parses a schedule stored as text (a database record) in `context`.
/// `holder` keeps the parsed module alive; null if it does not parse.
ScheduleOp parseStoredSchedule(llvm::StringRef text, MLIRContext *context,
                               OwningOpRef<ModuleOp> &holder);

/// Adds to `module` (tasks extracted) the best schedule the database holds
/// for each task on the platform; returns how many tasks got one.
llvm::Expected<unsigned> applyTunedSchedules(ModuleOp module,
                                             TuningDatabase &database,
                                             const Platform &platform);

} // namespace mlir::tcl

#endif // TCL_TUNING_TUNEDSCHEDULES_H
