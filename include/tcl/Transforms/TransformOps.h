//===- TransformOps.h - tcl's transform dialect extension -------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Transform ops that tcl's schedules lower onto where upstream has none
// (see TransformOps.td).
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TRANSFORMS_TRANSFORMOPS_H
#define TCL_TRANSFORMS_TRANSFORMOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/IR/OpDefinition.h"

#define GET_OP_CLASSES
#include "tcl/Transforms/TransformOps.h.inc"

namespace mlir {
class DialectRegistry;
namespace tcl {
/// Set by SkipZeroBorderTapsOp on a kernel-window loop whose every tap, as
/// narrowed, reads one row of the unpadded input along these input dims
/// (an i64 array); FoldPaddingIntoTilesOp then knows such slices lie
/// inside along them. A temporary mark of the schedule's sequence (its name
/// starts like the task-instance tags): removed when the sequence is done.
inline constexpr llvm::StringLiteral kTapsInsideAttrName =
    "__tcl_sched_taps_inside";

/// Registers tcl's transform ops with the transform dialect.
void registerTransformDialectExtension(DialectRegistry &registry);
} // namespace tcl
} // namespace mlir

#endif // TCL_TRANSFORMS_TRANSFORMOPS_H
