//===- TclOps.h - Operations of the tcl dialect -----------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_DIALECT_TCL_IR_TCLOPS_H
#define TCL_DIALECT_TCL_IR_TCLOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "tcl/Dialect/Tcl/IR/ScheduleState.h"
#include "tcl/Dialect/Tcl/IR/TclDialect.h"

#include "tcl/Dialect/Tcl/IR/TclInterfaces.h.inc"

#define GET_OP_CLASSES
#include "tcl/Dialect/Tcl/IR/TclSchedOps.h.inc"

namespace mlir::tcl {
/// Attribute that marks a payload operation as the anchor of a task.
constexpr StringLiteral kTaskAttrName = "tcl.task";
/// Attribute that marks a payload operation as part of a task's epilogue.
constexpr StringLiteral kEpilogueAttrName = "tcl.epilogue";
/// Attribute that marks the outermost loop a task instance's schedule made
/// (its value: the task): outlined functions and profiles name it.
constexpr StringLiteral kTaskNestAttrName = "tcl.task_nest";

/// Whether `op` is code a schedule made: tcl-apply-schedule marks the
/// top-level op of every nest it scheduled (an untiled anchor's too).
inline bool isInsideTaskNest(Operation *op) {
  for (; op; op = op->getParentOp())
    if (op->hasAttr(kTaskNestAttrName))
      return true;
  return false;
}
} // namespace mlir::tcl

#endif // TCL_DIALECT_TCL_IR_TCLOPS_H
