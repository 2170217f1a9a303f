//===- Passes.td - tcl tuning passes -----------------------*- tablegen -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TUNING_PASSES_TD
#define TCL_TUNING_PASSES_TD

include "mlir/Pass/PassBase.td"

def DefaultSchedules : Pass<"tcl-default-schedules", "ModuleOp"> {
  let summary = "Gives every schedulable op without a schedule the default one";
  let description = [{
    Linalg ops tcl can schedule (see lookupAnchor) that are not yet part of
    a task become tasks `default_<n>`; every task without a schedule gets
    the default schedule of its op class for the target (see
    DefaultSchedule.h). Tasks that already have a schedule are left alone.
  }];
  let dependentDialects = ["::mlir::tcl::TclDialect"];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"x86-avx512\"",
           "Named platform">,
    Option<"numThreads", "num-threads", "unsigned", /*default=*/"1",
           "Threads of parallel loops">,
  ];
}

#endif // TCL_TUNING_PASSES_TD
