//===- PromoteGpuOperands.cpp - A matmul's input tiles in shared memory ---===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// See the pass description in Passes.td. The loop a GPU schedule's `pad`
// marks (kSharedInputsAttrName) steps through the reduction inside a
// thread loop; each thread reads its own tiles of the inputs there, through
// views of the block's tiles (memref.subview chains). Every input read in
// the loop goes through such a chain from a view defined outside the thread
// loop, the block's view of that input: per step, the shared tile is the
// union of all threads' tiles of it, which is the block's whole extent
// along the dimensions the thread level splits and the step's extent
// along the others.
//
//===----------------------------------------------------------------------===//

#include "tcl/Dialect/Tcl/IR/TclOps.h"
#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_PROMOTEGPUOPERANDS
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;
using namespace mlir::tcl;

namespace {
/// An input read in the loop, through its chain of views.
struct InputRead {
  Operation *read; // vector.transfer_read or memref.load
  /// From the view the read takes up to (not including) the block's view.
  SmallVector<memref::SubViewOp> chain;
};

/// The reads of one input: its block's view and what each thread reads.
struct PromotedInput {
  Value blockView;
  SmallVector<InputRead> reads;
};

Value getReadSource(Operation *read) {
  if (auto transfer = dyn_cast<vector::TransferReadOp>(read))
    return transfer.getSource();
  return cast<memref::LoadOp>(read).getMemRef();
}

/// Whether `view` takes a slice of unit strides and its source's rank.
bool isPlainSlice(memref::SubViewOp view) {
  return view.getSourceType().getRank() == view.getType().getRank() &&
         llvm::all_of(view.getStaticStrides(),
                      [](int64_t stride) { return stride == 1; });
}

/// The buffer `view` is a view of (through subviews).
Value getRootBuffer(Value view) {
  while (auto subview = view.getDefiningOp<memref::SubViewOp>())
    view = subview.getSource();
  return view;
}

/// `a + b` on index values, folding zeros.
Value add(OpBuilder &b, Location loc, Value a, Value b2) {
  if (matchPattern(a, m_Zero()))
    return b2;
  if (matchPattern(b2, m_Zero()))
    return a;
  return b.create<arith::AddIOp>(loc, a, b2);
}

struct PromoteGpuOperandsPass
    : public tcl::impl::PromoteGpuOperandsBase<PromoteGpuOperandsPass> {
  using PromoteGpuOperandsBase::PromoteGpuOperandsBase;

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kSharedInputsAttrName))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      if (failed(promote(loop)))
        return signalPassFailure();
      loop->removeAttr(kSharedInputsAttrName);
    }
  }

  InFlightDiagnostic fail(scf::ForOp loop, const Twine &why) {
    std::string task;
    for (Operation *op = loop; op; op = op->getParentOp())
      if (auto name = op->getAttrOfType<StringAttr>(kTaskNestAttrName))
        task = (" of task '" + name.getValue() + "'").str();
    return loop.emitError("cannot put the inputs" + task +
                          " in GPU shared memory: " + why);
  }

  LogicalResult promote(scf::ForOp loop) {
    auto threadLoop = loop->getParentOfType<scf::ForallOp>();
    std::optional<ArrayAttr> mapping =
        threadLoop ? threadLoop.getMapping() : std::nullopt;
    if (!mapping || mapping->empty() ||
        !isa<gpu::GPUThreadMappingAttr>((*mapping)[0]))
      return fail(loop, "its steps are not inside a thread loop");
    std::optional<SmallVector<int64_t>> threadCounts =
        getConstantIntValues(threadLoop.getMixedUpperBound());
    if (!threadCounts ||
        !llvm::all_of(threadLoop.getMixedLowerBound(), isZeroIndex) ||
        !llvm::all_of(threadLoop.getMixedStep(), [](OpFoldResult step) {
          return isConstantIntValue(step, 1);
        }))
      return fail(loop, "the thread loop is not normalized and static");

    // Buffers the loop writes (through any views): its output, read back
    // as the accumulator, is no input.
    llvm::SmallPtrSet<Value, 4> written;
    loop.getBody()->walk([&](MemoryEffectOpInterface op) {
      if (op.hasEffect<MemoryEffects::Write>())
        for (Value operand : op->getOperands())
          if (isa<MemRefType>(operand.getType()))
            written.insert(getRootBuffer(operand));
    });
    // The inputs: reads through views from outside the thread loop of
    // buffers the loop does not write.
    llvm::MapVector<Value, PromotedInput> inputs;
    WalkResult walked = loop.getBody()->walk([&](Operation *op) {
      if (!isa<vector::TransferReadOp, memref::LoadOp>(op))
        return WalkResult::advance();
      InputRead read{op, {}};
      Value view = getReadSource(op);
      if (written.contains(getRootBuffer(view)))
        return WalkResult::advance();
      while (auto subview = view.getDefiningOp<memref::SubViewOp>()) {
        if (!threadLoop->isProperAncestor(subview))
          break;
        read.chain.push_back(subview);
        view = subview.getSource();
      }
      Operation *definer = view.getDefiningOp();
      Operation *scope =
          definer ? definer : view.getParentBlock()->getParentOp();
      if (threadLoop->isAncestor(scope))
        return WalkResult::advance(); // a thread's own buffer
      if (!llvm::all_of(read.chain, isPlainSlice) || read.chain.empty()) {
        fail(loop, "an input is read through a strided or rank-reducing "
                   "view, or without the thread's view of it");
        return WalkResult::interrupt();
      }
      PromotedInput &input = inputs[view];
      input.blockView = view;
      input.reads.push_back(std::move(read));
      return WalkResult::advance();
    });
    if (walked.wasInterrupted())
      return failure();
    if (inputs.empty())
      return fail(loop, "nothing is read in the loop from outside its "
                        "thread loop");

    // The copies go after the step's views of the inputs (whose offsets
    // they use), before any read.
    Operation *insertionPoint = &loop.getBody()->front();
    for (auto &[view, input] : inputs)
      for (InputRead &read : input.reads)
        for (memref::SubViewOp subview : read.chain)
          if (subview->getBlock() == loop.getBody() &&
              insertionPoint->isBeforeInBlock(subview->getNextNode()))
            insertionPoint = subview->getNextNode();
    for (auto &[view, input] : inputs)
      for (InputRead &read : input.reads) {
        Operation *at = loop.getBody()->findAncestorOpInBlock(*read.read);
        if (at != insertionPoint && !insertionPoint->isBeforeInBlock(at))
          return fail(loop, "an input is read before the step's views of the "
                            "inputs are all taken");
      }
    for (auto &[view, input] : inputs)
      if (failed(promoteInput(loop, threadLoop, *threadCounts, insertionPoint,
                              input)))
        return failure();
    if (!emulated) {
      // The copies complete before any thread reads them, and every
      // thread's reads of a step before the next step's copies.
      OpBuilder(insertionPoint).create<gpu::BarrierOp>(loop.getLoc());
      OpBuilder(loop.getBody()->getTerminator())
          .create<gpu::BarrierOp>(loop.getLoc());
    }
    return success();
  }

  LogicalResult promoteInput(scf::ForOp loop, scf::ForallOp threadLoop,
                             ArrayRef<int64_t> threadCounts,
                             Operation *insertionPoint, PromotedInput &input) {
    auto blockType = cast<MemRefType>(input.blockView.getType());
    unsigned rank = blockType.getRank();
    if (!blockType.hasStaticShape())
      return fail(loop, "the block's tile of an input is not static");
    // The thread's views (outside the loop) and the step's (in its body),
    // which every read of the input must share: the views of a read inside
    // the step (its k) only move it within the step's tile.
    auto stepAndThreadViews = [&](const InputRead &read) {
      SmallVector<memref::SubViewOp> views;
      for (memref::SubViewOp view : read.chain)
        if (!loop->isProperAncestor(view) || view->getBlock() == loop.getBody())
          views.push_back(view);
      return views;
    };
    SmallVector<memref::SubViewOp> chain =
        stepAndThreadViews(input.reads.front());
    for (const InputRead &read : input.reads)
      if (stepAndThreadViews(read) != chain)
        return fail(loop, "the reads of an input take different views of "
                          "the thread's or the step's tile");
    SmallVector<bool> threadSplit(rank, false), stepped(rank, false);
    SmallVector<Value> stepOffsets(rank);
    OpBuilder b(insertionPoint);
    Location loc = loop.getLoc();
    Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
    for (unsigned dim = 0; dim < rank; ++dim)
      stepOffsets[dim] = zero;
    for (memref::SubViewOp view : chain) {
      bool inLoop = loop->isProperAncestor(view);
      for (unsigned dim = 0; dim < rank; ++dim) {
        int64_t size = view.getStaticSizes()[dim];
        int64_t sourceSize = view.getSourceType().getDimSize(dim);
        if (ShapedType::isDynamic(size) || size == sourceSize)
          continue;
        (inLoop ? stepped : threadSplit)[dim] = true;
      }
    }
    // The shared tile's extent and where it starts in the block's view.
    SmallVector<int64_t> extents(rank);
    for (unsigned dim = 0; dim < rank; ++dim) {
      if (threadSplit[dim] && stepped[dim])
        return fail(loop, "the steps and the threads split one dimension");
      extents[dim] = blockType.getDimSize(dim);
    }
    for (memref::SubViewOp view : chain) {
      for (unsigned dim = 0; dim < rank; ++dim) {
        if (threadSplit[dim])
          continue;
        extents[dim] = std::min(extents[dim], view.getStaticSizes()[dim]);
        stepOffsets[dim] =
            add(b, loc, stepOffsets[dim],
                getValueOrCreateConstantIndexOp(b, loc,
                                                view.getMixedOffsets()[dim]));
      }
    }
    // Layout: the stepped dimensions first (a transposed A: a thread's rows
    // are then contiguous), the innermost padded.
    SmallVector<unsigned> order;
    for (unsigned dim = 0; dim < rank; ++dim)
      if (stepped[dim])
        order.push_back(dim);
    for (unsigned dim = 0; dim < rank; ++dim)
      if (!stepped[dim])
        order.push_back(dim);
    SmallVector<int64_t> sharedShape;
    for (unsigned dim : order)
      sharedShape.push_back(extents[dim]);
    sharedShape.back() += kSharedRowPadding;
    Attribute space =
        emulated ? Attribute()
                 : gpu::AddressSpaceAttr::get(&getContext(),
                                              gpu::AddressSpace::Workgroup);
    auto sharedType = MemRefType::get(sharedShape, blockType.getElementType(),
                                      MemRefLayoutAttrInterface(), space);
    // On a GPU, one buffer of the block (tcl-map-to-gpu makes it a
    // workgroup attribution); emulated, each thread its own (a thread
    // copies the whole tile: the host runs the threads one after another).
    OpBuilder allocBuilder(emulated ? loop.getOperation()
                                    : threadLoop.getOperation());
    Value shared = allocBuilder.create<memref::AllocOp>(loc, sharedType);

    // The copy, at the start of each step: element e of the tile (operand
    // order, innermost fastest: neighbouring threads read neighbouring
    // elements) from the block's view.
    int64_t numElements = 1;
    for (int64_t extent : extents)
      numElements *= extent;
    Value first = zero, step = b.create<arith::ConstantIndexOp>(loc, 1);
    if (!emulated) {
      // Linear thread id, x fastest (the mapping says which loop is x).
      SmallVector<std::pair<int64_t, unsigned>> byId;
      for (auto [index, attr] : llvm::enumerate(threadLoop.getMappingAttr()))
        byId.push_back(
            {static_cast<int64_t>(
                 cast<gpu::GPUThreadMappingAttr>(attr).getMappingId()),
             index});
      llvm::sort(byId, [](auto l, auto r) { return l.first > r.first; });
      int64_t numThreads = 1;
      for (auto [id, index] : byId) {
        Value thread = threadLoop.getInductionVars()[index];
        first = numThreads == 1
                    ? thread
                    : b.create<arith::AddIOp>(
                          loc,
                          b.create<arith::MulIOp>(
                              loc, first,
                              b.create<arith::ConstantIndexOp>(
                                  loc, threadCounts[index])),
                          thread);
        numThreads *= threadCounts[index];
      }
      step = b.create<arith::ConstantIndexOp>(loc, numThreads);
    }
    Value end = b.create<arith::ConstantIndexOp>(loc, numElements);
    auto copy = b.create<scf::ForOp>(loc, first, end, step);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(copy.getBody());
      Value rest = copy.getInductionVar();
      SmallVector<Value> tileIndex(rank), source(rank);
      for (int dim = rank - 1; dim >= 0; --dim) {
        Value extent = b.create<arith::ConstantIndexOp>(loc, extents[dim]);
        tileIndex[dim] = b.create<arith::RemUIOp>(loc, rest, extent);
        rest = b.create<arith::DivUIOp>(loc, rest, extent);
        source[dim] = add(b, loc, tileIndex[dim], stepOffsets[dim]);
      }
      Value element =
          b.create<memref::LoadOp>(loc, input.blockView, source);
      SmallVector<Value> target;
      for (unsigned dim : order)
        target.push_back(tileIndex[dim]);
      b.create<memref::StoreOp>(loc, element, shared, target);
    }

    // Each read from the shared tile: its index in the block's view (the
    // offsets of its views and its own) less where the step's tile starts.
    for (InputRead &read : input.reads) {
      OpBuilder rb(read.read);
      Location readLoc = read.read->getLoc();
      ValueRange indices =
          isa<vector::TransferReadOp>(read.read)
              ? cast<vector::TransferReadOp>(read.read).getIndices()
              : cast<memref::LoadOp>(read.read).getIndices();
      SmallVector<Value> index(indices.begin(), indices.end());
      for (memref::SubViewOp view : read.chain)
        for (unsigned dim = 0; dim < rank; ++dim)
          index[dim] =
              add(rb, readLoc, index[dim],
                  getValueOrCreateConstantIndexOp(
                      rb, readLoc, view.getMixedOffsets()[dim]));
      SmallVector<Value> target;
      for (unsigned dim : order)
        target.push_back(
            threadSplit[dim]
                ? index[dim]
                : rb.create<arith::SubIOp>(readLoc, index[dim],
                                           stepOffsets[dim])
                      .getResult());
      if (auto load = dyn_cast<memref::LoadOp>(read.read)) {
        load.replaceAllUsesWith(
            rb.create<memref::LoadOp>(readLoc, shared, target).getResult());
        load.erase();
        continue;
      }
      auto transfer = cast<vector::TransferReadOp>(read.read);
      // The permutation map, over the shared buffer's dimensions.
      SmallVector<AffineExpr> newDims(rank);
      for (auto [position, dim] : llvm::enumerate(order))
        newDims[dim] = rb.getAffineDimExpr(position);
      AffineMap map = transfer.getPermutationMap().replaceDimsAndSymbols(
          newDims, {}, rank, 0);
      auto replacement = rb.create<vector::TransferReadOp>(
          readLoc, transfer.getVectorType(), shared, target, map,
          transfer.getPadding(), transfer.getMask(),
          transfer.getInBoundsAttr());
      transfer.replaceAllUsesWith(replacement.getResult());
      transfer.erase();
    }
    return success();
  }
};
} // namespace
