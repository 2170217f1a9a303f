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
                                          Platform platform, bool probe);

/// The platforms of `database` whose records stand for `platform` on this
/// host, best first: `platform` on this host's machine, `platform` as named,
/// then the same target and threads measured on other machines.
std::vector<std::string> getStandInPlatforms(TuningDatabase &database,
                                             const Platform &platform);

/// The name of `database`'s platform that `name` means: `name` itself if the
/// database has it; for a name without a machine, the platform on this
/// host's machine, else the only machine's. An error naming the choices
/// when several machines have it, or none.
llvm::Expected<std::string> resolvePlatformName(TuningDatabase &database,
                                                llvm::StringRef name);

/// Parses a schedule stored as text (a database record) in `context`.
/// `holder` keeps the parsed module alive; null if it does not parse or no
/// longer verifies (a record measured before a check was added), with the
/// diagnostics in `why` if given: they are not printed.
ScheduleOp parseStoredSchedule(llvm::StringRef text, MLIRContext *context,
                               OwningOpRef<ModuleOp> &holder,
                               std::string *why = nullptr);

/// Adds to `module` (tasks extracted) the best schedule the database holds
/// for each task on the platform (on the first of getStandInPlatforms that
/// has the task); returns how many tasks got one.
llvm::Expected<unsigned> applyTunedSchedules(ModuleOp module,
                                             TuningDatabase &database,
                                             const Platform &platform);

} // namespace mlir::tcl

#endif // TCL_TUNING_TUNEDSCHEDULES_H
