//===- TclInterfaces.td - Interfaces of schedule primitives -*- tablegen -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_DIALECT_TCL_IR_TCLINTERFACES_TD
#define TCL_DIALECT_TCL_IR_TCLINTERFACES_TD

include "mlir/IR/OpBase.td"

def Tcl_SchedulePrimitiveOpInterface
    : OpInterface<"SchedulePrimitiveOpInterface"> {
  let cppNamespace = "::mlir::tcl";
  let description = [{
    A schedule primitive. Primitives are replayed in order over a
    `ScheduleState` (the anchor's loop nest as far as the schedule has shaped
    it); each checks its preconditions there and updates it.
  }];
  let methods = [
    InterfaceMethod<[{
        Checks this primitive against `state`, emitting an error on this op
        that names the reason if it does not apply, and updates `state`.
      }],
      "::mlir::LogicalResult", "applyToState",
      (ins "::mlir::tcl::ScheduleState &":$state)>,
  ];
}

#endif // TCL_DIALECT_TCL_IR_TCLINTERFACES_TD
