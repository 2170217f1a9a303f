//===- UnshareFills.cpp - A fill of its own for every user ----------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// CSE merges identical fills of identical empty tensors: the zeroed
// accumulators of a model's same-shaped matmuls become one fill with
// several users, and one-shot bufferization then fills one buffer and
// copies it for every user that writes into it. A fill of its own for each
// user writes each buffer once (see the pass description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_UNSHAREFILLS
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;

/// Whether `value` holds no data: a tensor.empty, or a reshape of one (a
/// 1x1 convolution computed as a matmul zeroes a collapsed empty tensor).
static bool isFreshTensor(Value value) {
  while (Operation *op = value.getDefiningOp()) {
    if (isa<tensor::EmptyOp>(op))
      return true;
    if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op))
      return false;
    value = op->getOperand(0);
  }
  return false;
}

void mlir::tcl::unshareFills(Operation *root) {
  SmallVector<linalg::FillOp> shared;
  root->walk([&](linalg::FillOp fill) {
    if (fill.hasPureTensorSemantics() && !fill->hasOneUse() &&
        !fill->use_empty() && isFreshTensor(fill.getOutputs()[0]))
      shared.push_back(fill);
  });
  for (linalg::FillOp fill : shared) {
    // Every use but the first in program order gets a copy of the fill, of
    // an empty tensor of its own, just before its user.
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : fill->getUses())
      uses.push_back(&use);
    llvm::stable_sort(uses, [](OpOperand *a, OpOperand *b) {
      Operation *first = a->getOwner(), *second = b->getOwner();
      return first->getBlock() == second->getBlock() &&
             first->isBeforeInBlock(second);
    });
    for (OpOperand *use : llvm::drop_begin(uses)) {
      OpBuilder builder(use->getOwner());
      Value output = fill.getOutputs()[0];
      Location loc = fill.getLoc();
      Value empty = builder.create<tensor::EmptyOp>(
          loc, tensor::getMixedSizes(builder, loc, output),
          getElementTypeOrSelf(output.getType()));
      IRMapping mapping;
      mapping.map(output, empty);
      use->set(builder.clone(*fill, mapping)->getResult(0));
    }
  }
}

namespace {
struct UnshareFillsPass : public tcl::impl::UnshareFillsBase<UnshareFillsPass> {
  void runOnOperation() override { tcl::unshareFills(getOperation()); }
};
} // namespace
