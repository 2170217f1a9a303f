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

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_WRITEINTOCONSUMERS
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;

/// Where a value was computed: the tensor.empty it was computed into, and
/// the groups of the expand_shape on the way, if any (a 1x1 convolution
/// computed as a matmul, whose rows are the collapsed pixels).
struct EmptyDestination {
  tensor::EmptyOp empty;
  SmallVector<ReassociationIndices> expanded;
};

/// The tensor.empty that `value` was computed into, through the tied init
/// of destination-style ops, the init of loops and at most one
/// expand_shape, where each value on the way has no other use (no other
/// reader would see the slice change).
static std::optional<EmptyDestination> findEmptyDestination(Value value) {
  EmptyDestination found;
  while (value.hasOneUse()) {
    if (auto empty = value.getDefiningOp<tensor::EmptyOp>()) {
      found.empty = empty;
      return found;
    }
    auto result = dyn_cast<OpResult>(value);
    if (!result)
      return std::nullopt;
    Operation *op = result.getOwner();
    if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
      if (!found.expanded.empty())
        return std::nullopt;
      found.expanded = expand.getReassociationIndices();
      value = expand.getSrc();
    } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
      value = loop.getInitArgs()[result.getResultNumber()];
    } else if (auto forall = dyn_cast<scf::ForallOp>(op)) {
      value = forall.getOutputs()[result.getResultNumber()];
    } else if (auto dps = dyn_cast<DestinationStyleOpInterface>(op)) {
      value = dps.getTiedOpOperand(result)->get();
    } else {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

/// Has what `destination` holds computed into the slice [offsets, sizes]
/// of `base`: its empty tensor becomes that slice (collapsed like the
/// expand_shape on the way). False where `base` is not visible there or the
/// slice does not collapse so (a group whose inner dims it does not span:
/// the middle of a padded image is not a matrix of pixels).
static bool computeIntoSlice(const EmptyDestination &destination, Value base,
                             ArrayRef<OpFoldResult> offsets,
                             ArrayRef<OpFoldResult> sizes,
                             DominanceInfo &dominance) {
  tensor::EmptyOp empty = destination.empty;
  auto baseType = cast<RankedTensorType>(base.getType());
  if (!dominance.properlyDominates(base, empty))
    return false;
  for (const ReassociationIndices &group : destination.expanded)
    for (int64_t d : llvm::drop_begin(group))
      if (getConstantIntValue(offsets[d]) != 0 ||
          getConstantIntValue(sizes[d]) != baseType.getDimSize(d))
        return false;
  OpBuilder builder(empty);
  Location loc = empty.getLoc();
  SmallVector<OpFoldResult> strides(offsets.size(), builder.getIndexAttr(1));
  auto slice = builder.create<tensor::ExtractSliceOp>(loc, base, offsets, sizes,
                                                      strides);
  Value middle = slice.getResult();
  if (!destination.expanded.empty())
    middle = builder.create<tensor::CollapseShapeOp>(loc, middle,
                                                     destination.expanded);
  if (middle.getType() != empty.getType()) {
    if (middle != slice.getResult())
      middle.getDefiningOp()->erase();
    slice.erase();
    return false;
  }
  empty.replaceAllUsesWith(middle);
  empty.erase();
  return true;
}

/// Has `part`, inserted into `base` at [offsets, sizes, strides], computed
/// in its place where it was computed into an empty tensor that nothing
/// else reads (computeIntoSlice). False where it stays a copy.
static bool computePartInPlace(Value part, Value base,
                               ArrayRef<OpFoldResult> offsets,
                               ArrayRef<OpFoldResult> sizes,
                               ArrayRef<OpFoldResult> strides,
                               DominanceInfo &dominance) {
  if (!llvm::all_of(strides, [](OpFoldResult stride) {
        return isConstantIntValue(stride, 1);
      }))
    return false;
  std::optional<EmptyDestination> destination = findEmptyDestination(part);
  return destination &&
         computeIntoSlice(*destination, base, offsets, sizes, dominance);
}

/// The insert_slices of a concatenation that ends in `value`, first to
/// last: a chain of insert_slices, each result used only by the next as its
/// destination, into a tensor.empty. Empty where `value` is none.
static SmallVector<tensor::InsertSliceOp> getConcatenation(Value value) {
  SmallVector<tensor::InsertSliceOp> chain;
  while (auto insert = value.getDefiningOp<tensor::InsertSliceOp>()) {
    if (!insert->hasOneUse())
      return {};
    chain.push_back(insert);
    value = insert.getDest();
  }
  if (!value.getDefiningOp<tensor::EmptyOp>())
    return {};
  std::reverse(chain.begin(), chain.end());
  return chain;
}

/// Adds `low` to each of `offsets`.
static SmallVector<OpFoldResult> shift(OpBuilder &builder, Location loc,
                                       ArrayRef<OpFoldResult> offsets,
                                       ArrayRef<OpFoldResult> low) {
  SmallVector<OpFoldResult> shifted;
  for (auto [offset, add] : llvm::zip(offsets, low)) {
    AffineExpr s0, s1;
    bindSymbols(builder.getContext(), s0, s1);
    shifted.push_back(affine::makeComposedFoldedAffineApply(
        builder, loc, s0 + s1, {offset, add}));
  }
  return shifted;
}

/// pad(x) of a value computed into an empty tensor used for nothing else,
/// or of a concatenation of such values: the padded tensor is filled first
/// (as early as its operands allow), each value is computed into its place
/// of it (its empty tensor becomes that slice), and the pad becomes
/// insert_slices into the same places, which bufferize to nothing.
static void computeIntoPadding(tensor::PadOp pad, DominanceInfo &dominance) {
  Value padding = pad.getConstantPaddingValue();
  RankedTensorType type = pad.getResultType();
  Block *block = pad->getBlock();
  if (!padding || !type.hasStaticShape() || pad.getNofold() ||
      !isa<FunctionOpInterface>(pad->getParentOp()))
    return;
  // The parts, each with its offsets in the unpadded tensor.
  SmallVector<tensor::InsertSliceOp> concatenation =
      getConcatenation(pad.getSource());
  if (!concatenation.empty() &&
      concatenation.back().getResult() != pad.getSource())
    return;
  OpBuilder builder(pad);
  Operation *def = padding.getDefiningOp();
  if (def && def->getBlock() == block)
    builder.setInsertionPointAfter(def);
  else
    builder.setInsertionPointToStart(block);
  Location loc = pad.getLoc();
  auto filled = builder.create<linalg::FillOp>(
      loc, padding,
      builder
          .create<tensor::EmptyOp>(loc, type.getShape(), type.getElementType())
          .getResult());
  Value base = filled.getResult(0);

  builder.setInsertionPoint(pad);
  SmallVector<OpFoldResult> low = pad.getMixedLowPad();
  struct Part {
    Value value;
    SmallVector<OpFoldResult> offsets, sizes, strides;
  };
  SmallVector<Part> parts;
  if (concatenation.empty()) {
    Value source = pad.getSource();
    parts.push_back(
        {source, low, tensor::getMixedSizes(builder, loc, source),
         SmallVector<OpFoldResult>(type.getRank(), builder.getIndexAttr(1))});
  } else {
    for (tensor::InsertSliceOp insert : concatenation)
      parts.push_back({insert.getSource(),
                       shift(builder, loc, insert.getMixedOffsets(), low),
                       insert.getMixedSizes(), insert.getMixedStrides()});
  }
  bool inPlace = false;
  for (const Part &part : parts)
    inPlace |= computePartInPlace(part.value, base, part.offsets, part.sizes,
                                  part.strides, dominance);
  if (!inPlace && concatenation.empty()) {
    // Nothing to gain: bufferization fills and copies as well.
    Operation *empty = filled.getOutputs()[0].getDefiningOp();
    filled.erase();
    empty->erase();
    return;
  }
  Value result = base;
  for (const Part &part : parts)
    result = builder.create<tensor::InsertSliceOp>(
        loc, part.value, result, part.offsets, part.sizes, part.strides);
  pad.replaceAllUsesWith(result);
  pad.erase();
  for (tensor::InsertSliceOp insert : llvm::reverse(concatenation))
    insert.erase();
}

/// A concatenation's parts computed into their places of it: its empty
/// tensor moves to the start of the block (it has no operands), each
/// part's empty tensor becomes its slice.
static void computeIntoConcatenation(tensor::InsertSliceOp last,
                                     DominanceInfo &dominance) {
  SmallVector<tensor::InsertSliceOp> chain = getConcatenation(last.getResult());
  if (chain.empty() || !isa<FunctionOpInterface>(last->getParentOp()))
    return;
  auto root = chain.front().getDest().getDefiningOp<tensor::EmptyOp>();
  if (!root.getType().hasStaticShape() || root->getBlock() != last->getBlock())
    return;
  root->moveBefore(&root->getBlock()->front());
  for (tensor::InsertSliceOp insert : chain)
    computePartInPlace(insert.getSource(), root, insert.getMixedOffsets(),
                       insert.getMixedSizes(), insert.getMixedStrides(),
                       dominance);
}

namespace {
struct WriteIntoConsumersPass
    : public tcl::impl::WriteIntoConsumersBase<WriteIntoConsumersPass> {
  void runOnOperation() override {
    SmallVector<tensor::PadOp> pads;
    getOperation().walk([&](tensor::PadOp pad) { pads.push_back(pad); });
    // The rewrites add and move ops within blocks, never blocks: one
    // dominance analysis serves them all.
    DominanceInfo dominance(getOperation());
    for (tensor::PadOp pad : pads)
      computeIntoPadding(pad, dominance);
    // The last insert_slice of each concatenation that is not padded.
    SmallVector<tensor::InsertSliceOp> concatenations;
    getOperation().walk([&](tensor::InsertSliceOp insert) {
      if (!insert->hasOneUse() ||
          !isa<tensor::InsertSliceOp>(*insert->getUsers().begin()))
        concatenations.push_back(insert);
    });
    for (tensor::InsertSliceOp last : concatenations)
      computeIntoConcatenation(last, dominance);
  }
};
} // namespace
