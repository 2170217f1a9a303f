//===- Passes.td - tcl transformation passes ---------------*- tablegen -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TRANSFORMS_PASSES_TD
#define TCL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def ApplySchedule : Pass<"tcl-apply-schedule", "ModuleOp"> {
  let summary = "Applies the module's tcl.sched schedules to their tasks";
  let description = [{
    For every `tcl.sched.schedule` in the module, finds the payload
    operations tagged `tcl.task = "<task>"`, checks that each has the
    declared anchor operation and iteration domain, lowers the schedule onto
    the upstream transform dialect and runs the transform interpreter on it.
    The schedules are erased afterwards. With `emit-transform`, nothing is
    applied: each schedule is replaced by the transform sequence it lowers to
    (one per payload instance), for inspection.
  }];
  let options = [
    Option<"emitTransform", "emit-transform", "bool", /*default=*/"false",
           "Replace schedules by their transform sequences instead of "
           "applying them">,
  ];
  let dependentDialects = [
    "::mlir::transform::TransformDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::affine::AffineDialect",
    "::mlir::bufferization::BufferizationDialect",
  ];
}

#endif // TCL_TRANSFORMS_PASSES_TD
