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

def ExtractTasks : Pass<"tcl-extract-tasks", "ModuleOp"> {
  let summary = "Splits a model into tuning tasks: anchor ops and their epilogues";
  let description = [{
    Every linalg op tcl can schedule (see lookupAnchor) that is not already
    part of a task becomes the anchor of one. Its chain of elementwise
    consumers (all-parallel linalg.generic ops over the anchor's result
    shape, each the only user of the previous result) becomes its epilogue,
    tagged `tcl.epilogue`, so a schedule can fuse them. Anchors with the
    same workload key (the anchor op, operand types, attributes and the
    epilogue's operations) share one task name: tuned once, used everywhere.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def LowerVector : Pass<"tcl-lower-vector", "::mlir::func::FuncOp"> {
  let summary = "Lowers high-level vector ops to what the LLVM conversion takes";
  let description = [{
    Rewrites `vector.contract` into outer products and those into FMAs,
    `vector.multi_reduction` into elementwise ops and reductions, and
    transfers with permutation maps into plain transfers with broadcasts and
    transposes. What remains converts to LLVM directly.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect",
                           "::mlir::arith::ArithDialect"];
}

def PrepareEntryPoints : Pass<"tcl-prepare-entry-points", "ModuleOp"> {
  let summary = "Fixes the ABI of public functions: read-only inputs, C wrappers";
  let description = [{
    Public functions are kernel entry points. Their tensor arguments are
    inputs the caller owns: bufferization must not write into them
    (`bufferization.writable = false`). And they get a C interface wrapper
    (`llvm.emit_c_interface`): `_mlir_ciface_<name>` taking memref
    descriptors by pointer, the entry point of the JIT and of compiled
    libraries. A result that is an input is returned as a copy, so every
    result has its own out-parameter.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def SetTargetAttributes : Pass<"tcl-set-target-attributes", "ModuleOp"> {
  let summary = "Pins the target CPU, features and vector width of every function";
  let description = [{
    Sets `target_cpu`, `target_features` and the preferred/minimum legal
    vector width of every `llvm.func` from a named platform, so that code
    generation does not depend on the machine that compiles.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"x86-avx512\"",
           "Named platform (see tcl/Target/Platform.h)">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // TCL_TRANSFORMS_PASSES_TD
