//===- TransformOps.td - tcl's transform dialect extension -*- tablegen -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Transform ops that schedules lower onto where upstream has none.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TRANSFORMS_TRANSFORMOPS_TD
#define TCL_TRANSFORMS_TRANSFORMOPS_TD

include "mlir/Dialect/Transform/IR/TransformDialect.td"
include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpBase.td"

def DecomposeGroupedConvOp : Op<Transform_Dialect, "tcl.decompose_grouped_conv",
    [FunctionalStyleTransformOpTrait, MemoryEffectsOpInterface,
     TransformOpInterface, TransformEachOpTrait,
     ReportTrackingListenerFailuresOpTrait]> {
  let summary = "Rewrites a one-group tile of a grouped convolution as a 1-D "
                "convolution";
  let description = [{
    The target must be tcl's grouped 2-D convolution (a linalg.generic, see
    tcl/Support/GroupedConv.h) whose group loop and one (output, kernel)
    window pair, H or else W, have extent 1. It becomes a
    `linalg.conv_1d_nwc_wcf` on rank-reduced slices of its operands, which
    MLIR vectorizes, as `transform.structured.decompose` does for the named
    2-D convolutions. Returns the new op.
  }];
  let cppNamespace = "::mlir::tcl";
  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs TransformHandleTypeInterface:$transformed);
  let assemblyFormat =
      "$target attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::linalg::LinalgOp target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

#endif // TCL_TRANSFORMS_TRANSFORMOPS_TD
