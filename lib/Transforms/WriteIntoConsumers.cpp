//===- WriteIntoConsumers.cpp - Producers write where their result goes ---===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// A leftover tensor.pad (the padded input of a convolution whose tiles do
// not fold it) and a concatenation (insert_slices) copy their operands into
// a new buffer. Computing each operand in its place of that buffer instead
// removes the copy (see the pass description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_WRITEINTOCONSUMERS
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;

/// The tensor.empty that `value` was computed into, through the tied init
/// of destination-style ops and the init of loops, where each value on the
/// way has no other use (no other reader would see the slice change).
static tensor::EmptyOp findEmptyDestination(Value value) {
  while (value.hasOneUse()) {
    if (auto empty = value.getDefiningOp<tensor::EmptyOp>())
      return empty;
    auto result = dyn_cast<OpResult>(value);
    if (!result)
      return nullptr;
    Operation *op = result.getOwner();
    if (auto loop = dyn_cast<scf::ForOp>(op))
      value = loop.getInitArgs()[result.getResultNumber()];
    else if (auto forall = dyn_cast<scf::ForallOp>(op))
      value = forall.getOutputs()[result.getResultNumber()];
    else if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
      value = dps.getTiedOpOperand(result)->get();
    else
      return nullptr;
  }
  return nullptr;
}

/// pad(x) where x was computed into an empty tensor E used for nothing
/// else: the padded tensor is filled first (as early as its operands
/// allow), x is computed into its middle (E becomes that slice), and the
/// pad an insert_slice of x into the same place, which bufferizes to
/// nothing.
static void computeIntoPadding(tensor::PadOp pad, DominanceInfo &dominance) {
  Value padding = pad.getConstantPaddingValue();
  RankedTensorType type = pad.getResultType();
  if (!padding || !type.hasStaticShape() || pad.getNofold())
    return;
  tensor::EmptyOp empty = findEmptyDestination(pad.getSource());
  if (!empty || empty.getType() != pad.getSourceType())
    return;
  // The fill goes where both the padding value and the empty tensor's
  // replacement can see it: before the empty tensor, in the pad's block.
  Block *block = pad->getBlock();
  if (empty->getBlock() != block)
    return;
  OpBuilder builder(pad);
  Operation *def = padding.getDefiningOp();
  if (def && def->getBlock() == block) {
    if (!def->isBeforeInBlock(empty))
      return;
    builder.setInsertionPointAfter(def);
  } else {
    if (!dominance.properlyDominates(padding, empty))
      return;
    builder.setInsertionPointToStart(block);
  }
  Location loc = pad.getLoc();
  Value filled =
      builder
          .create<linalg::FillOp>(
              loc, padding,
              builder
                  .create<tensor::EmptyOp>(loc, type.getShape(),
                                           type.getElementType())
                  .getResult())
          .getResult(0);
  SmallVector<OpFoldResult> sizes =
      tensor::getMixedSizes(builder, loc, pad.getSource());
  SmallVector<OpFoldResult> strides(type.getRank(), builder.getIndexAttr(1));
  builder.setInsertionPoint(empty);
  Value middle = builder.create<tensor::ExtractSliceOp>(
      loc, empty.getType(), filled, pad.getMixedLowPad(), sizes, strides);
  empty.replaceAllUsesWith(middle);
  empty.erase();
  builder.setInsertionPoint(pad);
  Value inserted = builder.create<tensor::InsertSliceOp>(
      loc, pad.getSource(), filled, pad.getMixedLowPad(), sizes, strides);
  pad.replaceAllUsesWith(inserted);
  pad.erase();
}

namespace {
struct WriteIntoConsumersPass
    : public tcl::impl::WriteIntoConsumersBase<WriteIntoConsumersPass> {
  void runOnOperation() override {
    SmallVector<tensor::PadOp> pads;
    getOperation().walk([&](tensor::PadOp pad) { pads.push_back(pad); });
    DominanceInfo dominance(getOperation());
    for (tensor::PadOp pad : pads)
      computeIntoPadding(pad, dominance);
  }
};
} // namespace
