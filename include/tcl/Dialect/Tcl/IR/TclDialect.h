//===- TclDialect.h - The tcl dialect ---------------------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_DIALECT_TCL_IR_TCLDIALECT_H
#define TCL_DIALECT_TCL_IR_TCLDIALECT_H

#include "mlir/IR/Dialect.h"

#include "tcl/Dialect/Tcl/IR/TclDialect.h.inc"

#endif // TCL_DIALECT_TCL_IR_TCLDIALECT_H
