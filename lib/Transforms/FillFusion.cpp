//===- FillFusion.cpp - fills moved into the tiles that they initialize ---===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// A reduction's output is filled (zeroed) before it is accumulated into.
// Filled whole, the output is written out of the cache and read back; the
// ops here move the fill into the tile loops, down to the register tile
// when no tiled reduction lies between, so that each tile starts from
// zero accumulators and its output is written once:
// tcl.fuse_fill_into_tile_loops (each tile level), tcl.fill_split_pieces
// (a convolution split at its padded sides) and tcl.forward_filled_reads
// (after vectorization: the accumulators' first reads become zeros, and
// the fill that nothing reads goes).
//
//===----------------------------------------------------------------------===//

#include "tcl/Transforms/TransformOps.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tcl;

//===----------------------------------------------------------------------===//
// FuseFillIntoTileLoopsOp
//===----------------------------------------------------------------------===//

/// The values that `op`'s operands are computed from: the operands and
/// every operand of the ops that compute them.
static llvm::SmallPtrSet<Value, 16> getOperandSources(Operation *op) {
  llvm::SmallPtrSet<Value, 16> sources;
  SetVector<Operation *> slice;
  BackwardSliceOptions options;
  options.omitBlockArguments = true;
  getBackwardSlice(op, &slice, options);
  slice.insert(op);
  for (Operation *computing : slice)
    sources.insert(computing->operand_begin(), computing->operand_end());
  return sources;
}

/// `value` as it can be computed right before `loop`: itself where it is
/// defined outside the loop, else a clone of the pure ops inside that
/// compute it from values defined outside (nothing where it needs one of
/// the loop's own values).
static Value cloneBefore(RewriterBase &rewriter, Value value, Operation *loop,
                         IRMapping &mapping) {
  if (Value mapped = mapping.lookupOrNull(value))
    return mapped;
  Operation *owner = isa<BlockArgument>(value)
                         ? cast<BlockArgument>(value).getOwner()->getParentOp()
                         : value.getDefiningOp();
  if (!loop->isAncestor(owner))
    return value;
  Operation *def = value.getDefiningOp();
  if (!def || def->getNumRegions() != 0 || !isPure(def))
    return Value();
  for (Value operand : def->getOperands())
    if (!cloneBefore(rewriter, operand, loop, mapping))
      return Value();
  Operation *clone = rewriter.clone(*def, mapping);
  return clone->getResult(cast<OpResult>(value).getResultNumber());
}

/// Moves the fill that initializes `target`'s output into the scf.for nest
/// around `target` (see the op's description), where the IR has that form.
/// Returns the fill made, if any.
static linalg::FillOp fuseFillIntoTileLoops(RewriterBase &rewriter,
                                            linalg::LinalgOp target) {
  if (!target.hasPureTensorSemantics() || target.getNumDpsInits() != 1)
    return nullptr;
  auto slice = target.getDpsInits()[0].getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice)
    return nullptr;
  // Up the iteration arguments to the value the outermost loop starts from.
  OpOperand *init = nullptr;
  SmallVector<scf::ForOp> loops;
  Value value = slice.getSource();
  while (auto argument = dyn_cast<BlockArgument>(value)) {
    auto loop = dyn_cast<scf::ForOp>(argument.getOwner()->getParentOp());
    if (!loop || argument.getArgNumber() == 0)
      return nullptr;
    loops.push_back(loop);
    init = loop.getTiedLoopInit(argument);
    value = init->get();
  }
  if (!init)
    return nullptr;
  auto fill = value.getDefiningOp<linalg::FillOp>();
  if (!fill || !fill->hasOneUse())
    return nullptr;
  // The loops that the output slice does not move with step through a
  // reduction: the fill must come before them, so they must all lie inside
  // the ones it moves with (then each output element is filled once).
  llvm::SmallPtrSet<Value, 16> sliceSources = getOperandSources(slice);
  auto movesSlice = [&](scf::ForOp loop) {
    return sliceSources.contains(loop.getInductionVar());
  };
  unsigned numReductionLoops = 0;
  while (numReductionLoops < loops.size() &&
         !movesSlice(loops[numReductionLoops]))
    ++numReductionLoops;
  if (llvm::any_of(ArrayRef(loops).drop_front(numReductionLoops),
                   [&](scf::ForOp loop) { return !movesSlice(loop); }))
    return nullptr;
  if (numReductionLoops == loops.size() && numReductionLoops != 0)
    return nullptr;
  linalg::FillOp tileFill;
  if (numReductionLoops == 0) {
    rewriter.setInsertionPointAfter(slice);
    tileFill = rewriter.create<linalg::FillOp>(
        fill.getLoc(), fill.getInputs()[0], slice.getResult());
    rewriter.modifyOpInPlace(target, [&] {
      target.getDpsInitsMutable()[0].set(tileFill.getResult(0));
    });
  } else {
    // Before the outermost reduction loop: fill the target's slice of the
    // tensor that loop starts from and start it from the filled tensor.
    scf::ForOp reduction = loops[numReductionLoops - 1];
    // The reduction loops carry the output as their only iteration
    // argument (tiling makes them so); anything else is left alone.
    if (llvm::any_of(
            ArrayRef(loops).take_front(numReductionLoops),
            [](scf::ForOp loop) { return loop.getNumRegionIterArgs() != 1; }))
      return nullptr;
    rewriter.setInsertionPoint(reduction);
    // The target's slice, of the tensor the reduction starts from, with
    // its offsets computed before it.
    OpOperand &reductionInit = reduction.getInitArgsMutable()[0];
    Value whole = reductionInit.get();
    IRMapping mapping;
    mapping.map(slice.getSource(), whole);
    for (Value operand : slice->getOperands().drop_front())
      if (!cloneBefore(rewriter, operand, reduction, mapping))
        return nullptr;
    auto beforeSlice =
        cast<tensor::ExtractSliceOp>(rewriter.clone(*slice, mapping));
    tileFill = rewriter.create<linalg::FillOp>(
        fill.getLoc(), fill.getInputs()[0], beforeSlice.getResult());
    auto filled = rewriter.create<tensor::InsertSliceOp>(
        slice.getLoc(), tileFill.getResult(0), whole,
        beforeSlice.getMixedOffsets(), beforeSlice.getMixedSizes(),
        beforeSlice.getMixedStrides());
    rewriter.modifyOpInPlace(reduction,
                             [&] { reductionInit.set(filled.getResult()); });
  }
  rewriter.modifyOpInPlace(init->getOwner(),
                           [&] { init->set(fill.getOutputs()[0]); });
  rewriter.eraseOp(fill);
  return tileFill;
}

DiagnosedSilenceableFailure
FuseFillIntoTileLoopsOp::apply(transform::TransformRewriter &rewriter,
                               transform::TransformResults &results,
                               transform::TransformState &state) {
  SmallVector<Operation *> fills;
  for (Operation *op : state.getPayloadOps(getTarget()))
    if (auto target = dyn_cast<linalg::LinalgOp>(op))
      if (linalg::FillOp fill = fuseFillIntoTileLoops(rewriter, target))
        fills.push_back(fill);
  results.set(cast<OpResult>(getFills()), fills);
  return DiagnosedSilenceableFailure::success();
}

void FuseFillIntoTileLoopsOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getTargetMutable(), effects);
  transform::producesHandle(getOperation()->getOpResults(), effects);
  transform::modifiesPayload(effects);
}

//===----------------------------------------------------------------------===//
// FillSplitPiecesOp
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure
FillSplitPiecesOp::apply(transform::TransformRewriter &rewriter,
                         transform::TransformResults &,
                         transform::TransformState &state) {
  // Each piece's output slice, and the fill at the root of their chain.
  SmallVector<std::pair<linalg::LinalgOp, tensor::ExtractSliceOp>> pieces;
  linalg::FillOp fill;
  SmallPtrSet<Operation *, 8> chain;
  for (Operation *op : state.getPayloadOps(getTarget())) {
    auto piece = dyn_cast<linalg::LinalgOp>(op);
    if (!piece || !piece.hasPureTensorSemantics() ||
        piece.getNumDpsInits() != 1)
      return DiagnosedSilenceableFailure::success();
    auto slice = piece.getDpsInits()[0].getDefiningOp<tensor::ExtractSliceOp>();
    if (!slice || !slice->hasOneUse())
      return DiagnosedSilenceableFailure::success();
    chain.insert(slice);
    Value output = slice.getSource();
    // A split of a piece of an earlier split starts from a slice of it.
    while (true) {
      if (auto insert = output.getDefiningOp<tensor::InsertSliceOp>()) {
        chain.insert(insert);
        output = insert.getDest();
      } else if (auto extract =
                     output.getDefiningOp<tensor::ExtractSliceOp>()) {
        chain.insert(extract);
        output = extract.getSource();
      } else {
        break;
      }
    }
    auto root = output.getDefiningOp<linalg::FillOp>();
    if (!root || (fill && root != fill))
      return DiagnosedSilenceableFailure::success();
    fill = root;
    pieces.push_back({piece, slice});
  }
  if (!fill || !llvm::all_of(fill->getUsers(), [&](Operation *user) {
        return chain.contains(user);
      }))
    return DiagnosedSilenceableFailure::success();
  for (auto [piece, slice] : pieces) {
    rewriter.setInsertionPointAfter(slice);
    auto pieceFill = rewriter.create<linalg::FillOp>(
        fill.getLoc(), fill.getInputs()[0], slice.getResult());
    OpOperand &output = piece.getDpsInitsMutable()[0];
    rewriter.modifyOpInPlace(piece,
                             [&] { output.set(pieceFill.getResult(0)); });
  }
  rewriter.replaceAllUsesWith(fill.getResult(0), fill.getOutputs()[0]);
  rewriter.eraseOp(fill);
  return DiagnosedSilenceableFailure::success();
}

void FillSplitPiecesOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getTargetMutable(), effects);
  transform::modifiesPayload(effects);
}

//===----------------------------------------------------------------------===//
// ForwardFilledReadsOp
//===----------------------------------------------------------------------===//

/// Whether a transfer reads or writes only inside its shaped operand.
static bool isInBounds(VectorTransferOpInterface transfer) {
  return llvm::all_of(transfer.getInBoundsValues(),
                      [](bool inBounds) { return inBounds; });
}

/// Whether a transfer covers all of its shaped operand from index 0,
/// without a mask, in bounds and with its dimensions in order.
static bool coversWhole(VectorTransferOpInterface transfer) {
  auto shaped = dyn_cast<RankedTensorType>(transfer.getShapedType());
  if (!shaped || transfer.getMask() ||
      !transfer.getPermutationMap().isIdentity() ||
      transfer.getVectorType().getShape() != shaped.getShape() ||
      !isInBounds(transfer))
    return false;
  return llvm::all_of(transfer.getIndices(),
                      [](Value index) { return isConstantIntValue(index, 0); });
}

/// The op that fills all of `value` with one value (a linalg.fill or a
/// transfer_write of a splat that covers its destination) and that value,
/// looking through slices of it (and slices that read back exactly what an
/// insertion put in).
static std::pair<Operation *, OpFoldResult> findFill(Value value) {
  while (true) {
    if (auto fill = value.getDefiningOp<linalg::FillOp>())
      return {fill, fill.getInputs()[0]};
    if (auto write = value.getDefiningOp<vector::TransferWriteOp>()) {
      if (!coversWhole(write))
        return {};
      Value vector = write.getVector();
      if (auto broadcast = vector.getDefiningOp<vector::BroadcastOp>())
        if (!isa<VectorType>(broadcast.getSourceType()))
          return {write, broadcast.getSource()};
      DenseElementsAttr splat;
      if (matchPattern(vector, m_Constant(&splat)) && splat.isSplat())
        return {write, splat.getSplatValue<Attribute>()};
      return {};
    }
    auto extract = value.getDefiningOp<tensor::ExtractSliceOp>();
    if (!extract)
      return {};
    value = extract.getSource();
    if (auto insert = value.getDefiningOp<tensor::InsertSliceOp>()) {
      if (!isEqualConstantIntOrValueArray(extract.getMixedOffsets(),
                                          insert.getMixedOffsets()) ||
          !isEqualConstantIntOrValueArray(extract.getMixedSizes(),
                                          insert.getMixedSizes()) ||
          !isEqualConstantIntOrValueArray(extract.getMixedStrides(),
                                          insert.getMixedStrides()))
        return {};
      value = insert.getSource();
    }
  }
}

/// Whether a slice op (extract_slice or insert_slice) spans all of the
/// tensor of type `whole` (some of its unit dimensions may be dropped).
static bool spansWhole(OffsetSizeAndStrideOpInterface slice,
                       RankedTensorType whole) {
  return whole.hasStaticShape() &&
         llvm::all_of(slice.getMixedOffsets(),
                      [](OpFoldResult offset) {
                        return isConstantIntValue(offset, 0);
                      }) &&
         llvm::all_of(slice.getMixedStrides(),
                      [](OpFoldResult stride) {
                        return isConstantIntValue(stride, 1);
                      }) &&
         slice.getStaticSizes() == whole.getShape();
}

/// Whether every use of `value` overwrites all of it: a transfer_write or
/// an insert_slice into it that covers it, or a slice of all of it whose
/// uses all do.
static bool isOverwrittenWhole(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && llvm::all_of(value.getUses(), [&](OpOperand &use) {
           Operation *user = use.getOwner();
           if (auto write = dyn_cast<vector::TransferWriteOp>(user))
             return use.get() == write.getSource() && coversWhole(write);
           if (auto insert = dyn_cast<tensor::InsertSliceOp>(user))
             return use.get() == insert.getDest() && spansWhole(insert, type);
           auto extract = dyn_cast<tensor::ExtractSliceOp>(user);
           return extract && spansWhole(extract, type) &&
                  isOverwrittenWhole(extract.getResult());
         });
}

DiagnosedSilenceableFailure
ForwardFilledReadsOp::apply(transform::TransformRewriter &rewriter,
                            transform::TransformResults &,
                            transform::TransformState &state) {
  for (Operation *scope : state.getPayloadOps(getTarget())) {
    SmallVector<vector::TransferReadOp> reads;
    scope->walk([&](vector::TransferReadOp read) { reads.push_back(read); });
    SetVector<Operation *> fills;
    for (vector::TransferReadOp read : reads) {
      if (!isa<RankedTensorType>(read.getShapedType()) || read.getMask() ||
          !isInBounds(read))
        continue;
      auto [fill, filled] = findFill(read.getSource());
      if (!fill)
        continue;
      VectorType type = read.getVectorType();
      rewriter.setInsertionPoint(read);
      Value replacement;
      if (auto scalar = dyn_cast<Value>(filled)) {
        if (scalar.getType() != type.getElementType())
          continue;
        replacement =
            rewriter.create<vector::BroadcastOp>(read.getLoc(), type, scalar);
      } else {
        auto attr = dyn_cast<TypedAttr>(cast<Attribute>(filled));
        if (!attr || attr.getType() != type.getElementType())
          continue;
        replacement = rewriter.create<arith::ConstantOp>(
            read.getLoc(), DenseElementsAttr::get(type, attr));
      }
      rewriter.replaceOp(read, replacement);
      fills.insert(fill);
    }
    // A fill that nothing reads any more is overwritten whole: its writes
    // go to the tensor it filled.
    for (Operation *fill : fills) {
      Value result = fill->getResult(0);
      if (!isOverwrittenWhole(result))
        continue;
      Value destination = isa<linalg::FillOp>(fill)
                              ? cast<linalg::FillOp>(fill).getOutputs()[0]
                              : cast<vector::TransferWriteOp>(fill).getSource();
      rewriter.replaceAllUsesWith(result, destination);
      rewriter.eraseOp(fill);
    }
  }
  return DiagnosedSilenceableFailure::success();
}

void ForwardFilledReadsOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getTargetMutable(), effects);
  transform::modifiesPayload(effects);
}
