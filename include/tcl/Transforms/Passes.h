//===- Passes.h - tcl transformation passes ---------------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TRANSFORMS_PASSES_H
#define TCL_TRANSFORMS_PASSES_H

#include "tcl/Dialect/Tcl/IR/TclDialect.h"
#include "tcl/Target/Platform.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tcl {

#define GEN_PASS_DECL
#include "tcl/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tcl/Transforms/Passes.h.inc"

/// Whether the buffer `alloc` allocates belongs to one GPU thread: it is
/// allocated in a loop mapped onto GPU threads, or onto blocks that have no
/// thread loops (one thread each). Such buffers become stack allocations
/// before tcl-map-to-gpu (promote-buffers-to-stack).
bool isGpuThreadPrivate(Value alloc);

/// Marks the generic that tcl-winograd-convolutions builds last, the output
/// transform of shape [N, H/m, m, W/m, m, F] that is collapsed to the
/// convolution's result: tcl-fuse-elementwise computes an epilogue that
/// reads the collapse in the generic's shape, so that it joins its task.
inline constexpr llvm::StringLiteral kWinogradOutputAttrName =
    "tcl.winograd_output";

/// Marks the loop whose steps a GPU schedule's `pad` puts in shared memory
/// (the block's tiles of the matmul's inputs at each step), for
/// tcl-promote-gpu-operands.
inline constexpr llvm::StringLiteral kSharedInputsAttrName =
    "tcl.shared_inputs";
/// Elements tcl-promote-gpu-operands pads each row of a shared buffer by: a
/// transposed tile's writes (one row per thread of a warp) then fall into
/// different banks, and rows stay 16-byte aligned for 128-bit reads.
inline constexpr int64_t kSharedRowPadding = 4;

/// The task whose schedule made the loops under `nest`: the first
/// `tcl.task_nest` (on the loops a schedule made) or `tcl.task` (on an
/// anchor left unscheduled) found inside; null for leftover ops. Outlined
/// functions and profiles are named by it.
StringAttr findNestTask(Operation *nest);

/// Gives every user of a shared linalg.fill of an empty tensor (or of a
/// reshape of one) a fill of its own: tcl-unshare-fills, also run by
/// tcl-apply-schedule after each task instance (its clean-up CSE merges the
/// fills of the instances still to come).
void unshareFills(Operation *root);

/// Whether the padding of `op`'s input is folded into its tiles by its
/// schedule (tcl.fold_padding_into_tiles) rather than built as a padded
/// copy: a depthwise convolution or a pooling whose input is a tensor.pad,
/// or a grouped convolution whose padded input would be a copy (its source
/// not computed into an empty tensor, see isComputedIntoEmptyTensor).
bool isPaddingWorthFolding(Operation *op);

/// Whether `value` was computed into a tensor.empty (through destination-
/// style ops, loops and at most one reshape, each value on the way used
/// once): then tcl-write-into-consumers can compute it into its place of a
/// consumer's buffer, such as the middle of a padded tensor.
bool isComputedIntoEmptyTensor(Value value);

/// The globals tcl-profile-nests adds (see its description): the counters,
/// i64 [sites x 2] (ticks, calls), and the sites' text, one line a site.
inline constexpr llvm::StringLiteral kProfileCountersSymbol =
    "tcl_profile_counters";
inline constexpr llvm::StringLiteral kProfileSitesSymbol = "tcl_profile_sites";

} // namespace mlir::tcl

#endif // TCL_TRANSFORMS_PASSES_H
