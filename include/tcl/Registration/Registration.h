//===- Registration.h - Everything tcl registers ----------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The dialects, extensions and passes the tcl tools work with. Registration
// includes the heaviest MLIR headers, so it lives in this one translation unit.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_REGISTRATION_REGISTRATION_H
#define TCL_REGISTRATION_REGISTRATION_H

namespace mlir {
class DialectRegistry;
namespace tcl {

/// Registers tcl's dialect and the upstream dialects, interface models and
/// transform-dialect extensions that tcl's pipelines use.
void registerTclDialects(DialectRegistry &registry);

/// Registers tcl's passes and the upstream passes (for tcl-opt pipelines).
void registerAllTclPasses();

} // namespace tcl
} // namespace mlir

#endif // TCL_REGISTRATION_REGISTRATION_H
