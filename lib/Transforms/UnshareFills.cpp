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

namespace {

struct UnshareFillsPass
    : public tcl::impl::UnshareFillsBase<UnshareFillsPass> {
  void runOnOperation() override {
    SmallVector<linalg::FillOp> shared;
    getOperation().walk([&](linalg::FillOp fill) {
      if (fill.hasPureTensorSemantics() && !fill->hasOneUse() &&
          !fill->use_empty() &&
          fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
        shared.push_back(fill);
    });
    for (linalg::FillOp fill : shared) {
      // Every use but the first in program order gets a copy of the fill
      // (and of its empty tensor) just before its user.
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
        IRMapping mapping;
        builder.clone(*fill.getOutputs()[0].getDefiningOp(), mapping);
        use->set(builder.clone(*fill, mapping)->getResult(0));
      }
    }
  }
};

} // namespace
