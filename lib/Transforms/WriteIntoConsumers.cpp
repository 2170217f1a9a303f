//===- WriteIntoConsumers.cpp - Producers write where their result goes ---===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// A leftover tensor.pad (the padded input of a convolution whose tiles do
// not fold it) and a concatenation (insert_slices) copy their operands into
// a new buffer. Computing each operand in its place of that buffer instead
// removes the copy (see the pass description in Passes.td). Likewise a
// function's result that is a reshape of what an op computed: the op
// computes into the result's buffer, the caller's.
//
//===----------------------------------------------------------------------===//

#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <utility>

namespace mlir::tcl {
#define GEN_PASS_DEF_WRITEINTOCONSUMERS
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;

/// Where a value was computed: the operand that holds the tensor.empty it
/// was computed into (other ops may use the same empty tensor: it holds no
/// data), and the groups of the reshape on the way, if any: an expand_shape
/// (a 1x1 convolution computed as a matmul, whose rows are the collapsed
/// pixels) or a collapse_shape (Winograd's output transform writes blocks
/// of rows and columns).
struct EmptyDestination {
  OpOperand *empty = nullptr;
  SmallVector<ReassociationIndices> expanded, collapsed;
  /// The value and, if it is a reshape, the reshape's source: others may
  /// read them where the caller allowed it (the same data, viewed so).
  SmallVector<Value, 2> shared;
};

/// The tensor.empty that `value` was computed into, through the tied init
/// of destination-style ops, the init of loops and at most one reshape,
/// where each value on the way has no other use (no other reader would see
/// the slice change). `value` itself, and the source of a reshape that
/// computes it, may have others where `othersMayRead` (its caller makes
/// them read the slice).
static std::optional<EmptyDestination>
findEmptyDestination(Value value, bool othersMayRead = false) {
  EmptyDestination found;
  while (value.hasOneUse() || othersMayRead) {
    auto result = dyn_cast<OpResult>(value);
    if (!result)
      return std::nullopt;
    Operation *op = result.getOwner();
    if (othersMayRead)
      found.shared.push_back(value);
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op))
      othersMayRead = false;
    bool reshaped = !found.expanded.empty() || !found.collapsed.empty();
    OpOperand *next;
    if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
      if (reshaped)
        return std::nullopt;
      found.expanded = expand.getReassociationIndices();
      next = &expand.getSrcMutable();
    } else if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
      if (reshaped || !collapse.getSrcType().hasStaticShape())
        return std::nullopt;
      found.collapsed = collapse.getReassociationIndices();
      next = &collapse.getSrcMutable();
    } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
      next = &loop.getInitArgsMutable()[result.getResultNumber()];
    } else if (auto forall = dyn_cast<scf::ForallOp>(op)) {
      next = &forall.getOutputsMutable()[result.getResultNumber()];
    } else if (auto dps = dyn_cast<DestinationStyleOpInterface>(op)) {
      next = dps.getTiedOpOperand(result);
    } else {
      return std::nullopt;
    }
    value = next->get();
    if (value.getDefiningOp<tensor::EmptyOp>()) {
      found.empty = next;
      return found;
    }
  }
  return std::nullopt;
}

bool mlir::tcl::isComputedIntoEmptyTensor(Value value) {
  return findEmptyDestination(value).has_value();
}

/// Has what `destination` holds computed into the slice [offsets, sizes]
/// of `base`: its empty tensor becomes that slice (collapsed like the
/// expand_shape on the way, or expanded like the collapse_shape, which any
/// slice can be). False where `base` is not visible there or the slice
/// does not collapse so (a group whose inner dims it does not span: the
/// middle of a padded image is not a matrix of pixels).
static bool computeIntoSlice(const EmptyDestination &destination, Value base,
                             ArrayRef<OpFoldResult> offsets,
                             ArrayRef<OpFoldResult> sizes,
                             DominanceInfo &dominance) {
  OpOperand &use = *destination.empty;
  auto empty = use.get().getDefiningOp<tensor::EmptyOp>();
  auto baseType = cast<RankedTensorType>(base.getType());
  if (!dominance.properlyDominates(base, use.getOwner()))
    return false;
  for (const ReassociationIndices &group : destination.expanded)
    for (int64_t d : llvm::drop_begin(group))
      if (getConstantIntValue(offsets[d]) != 0 ||
          getConstantIntValue(sizes[d]) != baseType.getDimSize(d))
        return false;
  OpBuilder builder(use.getOwner());
  Location loc = empty.getLoc();
  // The whole of `base` is `base` (a subview of all of a buffer would have
  // a strided type, which reshapes then carry along).
  bool whole =
      llvm::all_of(offsets, isZeroIndex) &&
      getConstantIntValues(sizes) == SmallVector<int64_t>(baseType.getShape());
  SmallVector<OpFoldResult> strides(offsets.size(), builder.getIndexAttr(1));
  Value slice = whole ? base
                      : builder.create<tensor::ExtractSliceOp>(
                            loc, base, offsets, sizes, strides);
  Value middle = slice;
  if (!destination.expanded.empty())
    middle = builder.create<tensor::CollapseShapeOp>(loc, middle,
                                                     destination.expanded);
  if (!destination.collapsed.empty())
    middle = builder.create<tensor::ExpandShapeOp>(loc, empty.getType(), middle,
                                                   destination.collapsed);
  if (middle.getType() != empty.getType()) {
    if (middle != slice)
      middle.getDefiningOp()->erase();
    if (!whole)
      slice.getDefiningOp()->erase();
    return false;
  }
  use.set(middle);
  if (empty->use_empty())
    empty.erase();
  return true;
}

static bool hasUnitStrides(ArrayRef<OpFoldResult> strides) {
  return llvm::all_of(strides, [](OpFoldResult stride) {
    return isConstantIntValue(stride, 1);
  });
}

/// Has `part`, inserted into `base` at [offsets, sizes, strides], computed
/// in its place where it was computed into an empty tensor that nothing
/// else reads (computeIntoSlice), and says where. None where it stays a
/// copy.
static std::optional<EmptyDestination>
computePartInPlace(Value part, Value base, ArrayRef<OpFoldResult> offsets,
                   ArrayRef<OpFoldResult> sizes, ArrayRef<OpFoldResult> strides,
                   DominanceInfo &dominance) {
  if (!hasUnitStrides(strides))
    return std::nullopt;
  std::optional<EmptyDestination> destination = findEmptyDestination(part);
  if (destination &&
      computeIntoSlice(*destination, base, offsets, sizes, dominance))
    return destination;
  return std::nullopt;
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

/// The padded tensor's border (where the padding goes) filled with
/// `padding`, slab by slab into `empty`: along each padded dim d, the
/// slabs below and above the source, spanning the source along the dims
/// before d and the whole tensor along those after (the slabs tile the
/// border without overlap). Each fill writes a slice of `empty` and is
/// inserted back where it came from, which bufferizes in place. Why not one
/// fill of the whole tensor: the source overwrites the middle, which is
/// most of it (a 112x112 image padded by 1: 96 %).
static Value fillBorder(OpBuilder &builder, Location loc, Value empty,
                        Value padding, ArrayRef<int64_t> low,
                        ArrayRef<int64_t> high, ArrayRef<int64_t> shape) {
  Value base = empty;
  unsigned rank = shape.size();
  SmallVector<OpFoldResult> unitStrides(rank, builder.getIndexAttr(1));
  for (unsigned d = 0; d < rank; ++d) {
    int64_t sourceSize = shape[d] - low[d] - high[d];
    for (auto [offset, width] :
         {std::make_pair(int64_t(0), low[d]),
          std::make_pair(low[d] + sourceSize, high[d])}) {
      if (width == 0)
        continue;
      SmallVector<int64_t> offsets, sizes;
      for (unsigned i = 0; i < rank; ++i) {
        if (i < d) {
          offsets.push_back(low[i]);
          sizes.push_back(shape[i] - low[i] - high[i]);
        } else if (i == d) {
          offsets.push_back(offset);
          sizes.push_back(width);
        } else {
          offsets.push_back(0);
          sizes.push_back(shape[i]);
        }
      }
      SmallVector<OpFoldResult> mixedOffsets =
          getAsIndexOpFoldResult(builder.getContext(), offsets);
      SmallVector<OpFoldResult> mixedSizes =
          getAsIndexOpFoldResult(builder.getContext(), sizes);
      Value slab = builder.create<tensor::ExtractSliceOp>(
          loc, base, mixedOffsets, mixedSizes, unitStrides);
      Value filled =
          builder.create<linalg::FillOp>(loc, padding, slab).getResult(0);
      base = builder.create<tensor::InsertSliceOp>(
          loc, filled, base, mixedOffsets, mixedSizes, unitStrides);
    }
  }
  return base;
}

/// After a part that others read too was computed into its slice
/// [offsets, sizes] of `base` (computeIntoSlice): right after the part,
/// its slice is inserted into `base`, and the others (but `keep`: the pad
/// or the concatenation that goes away) read that slice instead, viewed as
/// they read it (through the reshape that computes the part, if they read
/// its operand). Returns the padded tensor with the part in it.
static Value insertAfterPart(const EmptyDestination &destination,
                             ArrayRef<OpFoldResult> offsets,
                             ArrayRef<OpFoldResult> sizes, Value base,
                             Operation *keep) {
  Value part = destination.shared.front();
  Operation *def = part.getDefiningOp();
  OpBuilder builder(def);
  Location loc = def->getLoc();
  // A reshape's operand is defined before it: the reshape moves next to
  // it, so that what reads either comes after the slice.
  if (destination.shared.size() > 1)
    def->moveAfter(destination.shared.back().getDefiningOp());
  builder.setInsertionPointAfter(def);
  SmallVector<OpFoldResult> strides(offsets.size(), builder.getIndexAttr(1));
  auto insert = builder.create<tensor::InsertSliceOp>(loc, part, base, offsets,
                                                      sizes, strides);
  Value slice = builder.create<tensor::ExtractSliceOp>(loc, insert.getResult(),
                                                       offsets, sizes, strides);
  part.replaceUsesWithIf(slice, [&](OpOperand &use) {
    return use.getOwner() != keep && use.getOwner() != insert;
  });
  if (destination.shared.size() > 1) {
    Value operand = destination.shared.back();
    Value view;
    if (auto expand = dyn_cast<tensor::ExpandShapeOp>(def))
      view = builder.create<tensor::CollapseShapeOp>(
          loc, slice, expand.getReassociationIndices());
    else
      view = builder.create<tensor::ExpandShapeOp>(
          loc, operand.getType(), slice,
          cast<tensor::CollapseShapeOp>(def).getReassociationIndices());
    operand.replaceUsesWithIf(
        view, [&](OpOperand &use) { return use.getOwner() != def; });
  }
  return insert.getResult();
}

/// pad(x) with a constant padding value (not `nofold`: copyIntoPacked
/// takes those): a tensor of the padded shape whose
/// border is filled (fillBorder) and x inserted into its middle. Where x,
/// or a part of the concatenation x is, was computed into an empty tensor
/// that nothing else reads (or, for one part, that others read through
/// insertAfterPart), it is computed into its place instead (its empty
/// tensor becomes that slice, its insert_slice bufferizes to nothing); the
/// padded tensor and its border then come first (as early as the padding
/// value allows), else where the pad was.
static void computeIntoPadding(tensor::PadOp pad, DominanceInfo &dominance) {
  Value padding = pad.getConstantPaddingValue();
  RankedTensorType type = pad.getResultType();
  Block *block = pad->getBlock();
  if (!padding || !type.hasStaticShape() ||
      ShapedType::isDynamicShape(pad.getStaticLow()) ||
      ShapedType::isDynamicShape(pad.getStaticHigh()) ||
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
  auto empty = builder.create<tensor::EmptyOp>(loc, type.getShape(),
                                               type.getElementType());
  // The ops from `empty` to `base`'s are those that build the border.
  Value base = fillBorder(builder, loc, empty, padding, pad.getStaticLow(),
                          pad.getStaticHigh(), type.getShape());

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
  // A part that others read too (a residual connection, a skip
  // connection), directly or through the reshape that computes it, is
  // computed into the padded tensor all the same where it is the only such
  // part: its slice is inserted right after it and the others read that
  // slice; the other parts are computed into the padded tensor after it
  // (those computed before stay copies).
  std::optional<unsigned> sharedPart;
  std::optional<EmptyDestination> sharedDestination;
  for (auto [i, part] : llvm::enumerate(parts)) {
    auto result = dyn_cast<OpResult>(part.value);
    if (!result || result.getOwner()->getBlock() != block ||
        !hasUnitStrides(part.strides))
      continue;
    std::optional<EmptyDestination> destination =
        findEmptyDestination(part.value, /*othersMayRead=*/true);
    if (!destination || llvm::all_of(destination->shared, [](Value value) {
          return value.hasOneUse();
        }))
      continue;
    if (sharedPart) {
      sharedPart.reset();
      break;
    }
    sharedPart = i;
    sharedDestination = std::move(destination);
  }
  Value current = base;
  bool inPlace = false;
  if (sharedPart &&
      computeIntoSlice(*sharedDestination, base, parts[*sharedPart].offsets,
                       parts[*sharedPart].sizes, dominance)) {
    const Part &part = parts[*sharedPart];
    // The part's reader that goes away with the pad, not to redirect.
    Operation *reader = concatenation.empty()
                            ? pad.getOperation()
                            : concatenation[*sharedPart].getOperation();
    current = insertAfterPart(*sharedDestination, part.offsets, part.sizes,
                              base, reader);
    inPlace = true;
  } else {
    sharedPart.reset();
  }
  for (auto [i, part] : llvm::enumerate(parts))
    if (i != sharedPart)
      inPlace |= computePartInPlace(part.value, current, part.offsets,
                                    part.sizes, part.strides, dominance)
                     .has_value();
  if (!inPlace) {
    // Nothing computes into the padded tensor: it need not live longer
    // than the pad did.
    SmallVector<Operation *> border;
    for (Operation *op = empty; op != base.getDefiningOp()->getNextNode();
         op = op->getNextNode())
      border.push_back(op);
    for (Operation *op : border)
      op->moveBefore(pad);
  }
  Value result = current;
  for (auto [i, part] : llvm::enumerate(parts))
    if (i != sharedPart)
      result = builder.create<tensor::InsertSliceOp>(
          loc, part.value, result, part.offsets, part.sizes, part.strides);
  pad.replaceAllUsesWith(result);
  pad.erase();
  for (tensor::InsertSliceOp insert : llvm::reverse(concatenation))
    insert.erase();
}

/// A packing copy (a `nofold` pad: a tile of an operand copied into a
/// buffer of its own, inside a loop nest) with a constant padding value and
/// static padding: an empty tensor whose border alone is filled
/// (fillBorder) and the tile copied into its middle. Why: bufferization
/// makes a `nofold` pad an allocation filled whole with the padding value,
/// then overwritten by the copy of the tile; most packed tiles are whole
/// (no border at all), so that fill is a dead pass over the buffer (the
/// packed B panels of a 128x768x3072 matmul: 1.2 % of its time, Zen 4).
static void copyIntoPacked(tensor::PadOp pad) {
  Value padding = pad.getConstantPaddingValue();
  RankedTensorType type = pad.getResultType();
  if (!pad.getNofold() || !padding || !type.hasStaticShape() ||
      ShapedType::isDynamicShape(pad.getStaticLow()) ||
      ShapedType::isDynamicShape(pad.getStaticHigh()))
    return;
  OpBuilder builder(pad);
  Location loc = pad.getLoc();
  Value empty = builder.create<tensor::EmptyOp>(loc, type.getShape(),
                                                type.getElementType());
  Value base = fillBorder(builder, loc, empty, padding, pad.getStaticLow(),
                          pad.getStaticHigh(), type.getShape());
  Value packed;
  if (base == empty) {
    // A copy, not an insert_slice of the whole tensor: that one folds to
    // its source, and the packing would be gone.
    packed = builder.create<linalg::CopyOp>(loc, pad.getSource(), empty)
                 .getResult(0);
  } else {
    Value source = pad.getSource();
    packed = builder.create<tensor::InsertSliceOp>(
        loc, source, base, pad.getMixedLowPad(),
        tensor::getMixedSizes(builder, loc, source),
        SmallVector<OpFoldResult>(type.getRank(), builder.getIndexAttr(1)));
  }
  pad.replaceAllUsesWith(packed);
  pad.erase();
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

/// A result of the function that is a reshape of what an op computed into
/// an empty tensor (GPT's logits, [S, V] -> [1, S, V]) is computed into an
/// empty tensor of the result's shape, reshaped back. Bufferization then
/// returns that tensor's buffer, which becomes the caller's output buffer,
/// where it returned a view of another and copied it into the caller's.
static void computeReturnedInPlace(func::ReturnOp ret,
                                   DominanceInfo &dominance) {
  auto function = dyn_cast<func::FuncOp>(ret->getParentOp());
  if (!function)
    return;
  for (Value value : ret.getOperands()) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !type.hasStaticShape() ||
        !isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
            value.getDefiningOp()))
      continue;
    // The whole result is the one part of its own tensor.
    OpBuilder builder = OpBuilder::atBlockBegin(&function.getBody().front());
    Value base = builder.create<tensor::EmptyOp>(ret.getLoc(), type.getShape(),
                                                 type.getElementType());
    SmallVector<OpFoldResult> offsets(type.getRank(), builder.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(type.getRank(), builder.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes =
        getAsIndexOpFoldResult(builder.getContext(), type.getShape());
    if (!computePartInPlace(value, base, offsets, sizes, strides, dominance))
      base.getDefiningOp()->erase();
  }
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
    for (tensor::PadOp pad : pads) {
      if (pad.getNofold())
        copyIntoPacked(pad);
      else
        computeIntoPadding(pad, dominance);
    }
    // The last insert_slice of each concatenation that is not padded.
    SmallVector<tensor::InsertSliceOp> concatenations;
    getOperation().walk([&](tensor::InsertSliceOp insert) {
      if (!insert->hasOneUse() ||
          !isa<tensor::InsertSliceOp>(*insert->getUsers().begin()))
        concatenations.push_back(insert);
    });
    for (tensor::InsertSliceOp last : concatenations)
      computeIntoConcatenation(last, dominance);
    SmallVector<func::ReturnOp> returns;
    getOperation().walk([&](func::ReturnOp ret) { returns.push_back(ret); });
    for (func::ReturnOp ret : returns)
      computeReturnedInPlace(ret, dominance);
  }
};
} // namespace
