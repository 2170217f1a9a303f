//===- TransformEmitter.cpp - tcl.sched -> transform dialect --------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Each schedule primitive becomes one or a few upstream transform ops. The
// emitter replays the schedule over its ScheduleState (the same replay the
// verifier does), so it always knows the loop nest the primitive acts on.
// Every transform op carries the location of the primitive it came from:
// a failure inside the interpreter points at that primitive.
//
//===----------------------------------------------------------------------===//

#include "PaddedSlices.h"
#include "TaskInstanceTags.h"
#include "VectorPieces.h"
#include "tcl/Target/Platform.h"
#include "tcl/Transforms/ApplySchedule.h"
#include "tcl/Transforms/Passes.h"
#include "tcl/Transforms/TransformOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/TransformOps/LinalgTransformOps.h"
#include "mlir/Dialect/SCF/TransformOps/SCFTransformOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/TransformOps/TensorTransformOps.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/LoopExtension/LoopExtensionOps.h"
#include "mlir/Dialect/Vector/TransformOps/VectorTransformOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tcl;

/// The scf.forall mapping of a parallel tile level:
/// none on a CPU; on a GPU the innermost loop onto x, the next onto y, the
/// outermost onto z, so that neighbouring threads touch neighbouring
/// elements of the innermost (contiguous) dimension.
static ArrayAttr getForallMapping(MLIRContext *ctx, const TileLevel &level) {
  if (level.mapping == ParallelMapping::CpuThreads)
    return ArrayAttr();
  unsigned numLoops = level.loopDims().size();
  SmallVector<Attribute> mapping;
  for (unsigned loop = 0; loop < numLoops; ++loop) {
    auto id = static_cast<gpu::MappingId>(numLoops - 1 - loop);
    if (level.mapping == ParallelMapping::GpuBlocks)
      mapping.push_back(gpu::GPUBlockMappingAttr::get(ctx, id));
    else
      mapping.push_back(gpu::GPUThreadMappingAttr::get(ctx, id));
  }
  return ArrayAttr::get(ctx, mapping);
}

//===----------------------------------------------------------------------===//
// Transform sequence emission
//===----------------------------------------------------------------------===//

namespace {
class TransformEmitter {
public:
  TransformEmitter(OpBuilder &builder, ScheduleOp schedule,
                   const TaskInstance &instance, ScheduleState finalState)
      : b(builder), schedule(schedule), instance(instance),
        finalState(std::move(finalState)),
        anyOp(transform::AnyOpType::get(builder.getContext())) {
    const TargetArch *target = lookupTargetArch(schedule.getTarget());
    cpu = target && target->kind == TargetKind::CPU;
  }

  /// Emits the body of the sequence whose payload root is `root`.
  LogicalResult emit(Value root);

private:
  /// The payload ops under the root that carry `tag`.
  Value matchTagged(Location loc, NamedAttribute tag);
  Value match(Location loc, int64_t key);
  /// Tags the outermost loop of the first tile level (kNestAttrName).
  void tagNest(Location loc);
  /// What clean-ups (canonicalization, CSE, vector patterns) work on: the
  /// instance's outermost loop once it is tagged, matched afresh (the ops
  /// in between may have replaced the handle), else the whole payload.
  /// Cleaning only the instance keeps applying a model's schedules linear in
  /// its size (the whole function for each of hundreds of tasks was not).
  Value cleanupScope(Location loc);
  LogicalResult emitTile(TileOp op, unsigned levelIndex,
                         const ScheduleState &after);
  /// Peels the loops of the tile level just emitted whose tiles do not
  /// divide their range, and finds the anchor, the loops and the fused ops
  /// (now with copies in the remainder loops) again.
  void peelLevel(Location loc, unsigned levelIndex);
  /// Runs what `transform` emits, which copies or replaces the loops, the
  /// anchor or the fused ops, and finds them (copies included) again by
  /// attributes set before.
  void withOpsCopied(Location loc, llvm::function_ref<void()> transform);
  LogicalResult emitFusedTile(TileOp op, const TileLevel &level);
  /// The GPU thread level of a schedule whose block level fused ops into
  /// its loop: tiles the outermost of them and fuses the others.
  LogicalResult emitFusedThreadTile(TileOp op, const TileLevel &level);
  transform::PadOp padAnchor(Location loc, ArrayRef<int64_t> packedOperands,
                             unsigned numDims);
  LogicalResult emitPad(tcl::PadOp op, const ScheduleState &before);
  LogicalResult emitVectorize(tcl::VectorizeOp op, const ScheduleState &before);
  /// After the last tile level of a convolution: its kernel-window loops
  /// skip the taps that read only the zero padding of its input (what a
  /// one-tap window tile makes possible, SkipZeroBorderTapsOp). Not where
  /// the schedule unrolls a window loop: its trip count would no longer be
  /// static.
  void emitSkipZeroBorderTaps(Location loc);
  /// Before the last tile level of an op whose padding is worth folding
  /// (isPaddingWorthFolding), padded along W, whose tiles are several
  /// columns wide or span the map: splits the anchor into the output columns
  /// that read the padding (one at each side, for a border of 1) and those
  /// between, so that the tiles of the middle lie inside the unpadded input and
  /// only the side columns pad themselves (FoldPaddingIntoTilesOp). False where
  /// it does not split.
  bool splitPaddedSides(Location loc, const ScheduleState &before);
  Value getLoop(unsigned level, int64_t dim);

  OpBuilder &b;
  ScheduleOp schedule;
  const TaskInstance &instance;
  /// The state after the whole schedule: complete tile level descriptions.
  ScheduleState finalState;
  Type anyOp;
  /// The schedule targets a CPU.
  bool cpu;

  Value root;
  /// Handle to the (tiled, transformed) anchor op.
  Value anchor;
  /// Loops of each tile level, outermost first (one scf.forall if parallel).
  SmallVector<SmallVector<Value>> levelLoops;
  /// An epilogue op or the fill fused into the first tile level.
  struct FusedOp {
    Value handle;
    unsigned numLoops;
  };
  SmallVector<FusedOp> fusedOps;
  /// The anchor's fill once a parallel level (without the epilogue) fused
  /// it.
  Value fill;
  /// The fills that the last tile level made of the anchor's output tile
  /// (FuseFillIntoTileLoopsOp), vectorized with the anchor.
  Value tileFills;
  bool nestTagged = false;
  /// The anchor was split at its padded sides: its pieces' last tile level
  /// peels its loops whatever the schedule's extents say.
  bool splitSides = false;
};
} // namespace

Value TransformEmitter::matchTagged(Location loc, NamedAttribute tag) {
  return b
      .create<transform::MatchOp>(loc, anyOp, root, /*ops=*/ArrayAttr(),
                                  /*interface=*/nullptr,
                                  b.getDictionaryAttr(tag),
                                  /*filter_result_type=*/TypeAttr(),
                                  /*filter_operand_types=*/ArrayAttr())
      .getResult();
}

Value TransformEmitter::match(Location loc, int64_t key) {
  return matchTagged(loc,
                     b.getNamedAttr(kMatchAttrName, b.getI64IntegerAttr(key)));
}

void TransformEmitter::tagNest(Location loc) {
  if (nestTagged || levelLoops.empty() || levelLoops.front().empty())
    return;
  b.create<transform::AnnotateOp>(loc, levelLoops.front().front(),
                                  kNestAttrName, /*param=*/Value());
  nestTagged = true;
}

Value TransformEmitter::cleanupScope(Location loc) {
  if (!nestTagged)
    return root;
  return matchTagged(loc, b.getNamedAttr(kNestAttrName, b.getUnitAttr()));
}

LogicalResult TransformEmitter::emitTile(TileOp op, unsigned levelIndex,
                                         const ScheduleState &after) {
  const TileLevel &level = finalState.levels[levelIndex];
  Location loc = op.getLoc();
  // A sequential level's loops whose tiles do not divide the extent (here
  // or in the remainder tile of an outer level) are peeled: every tile is
  // then static, so vectorized without padding (ScheduleState's
  // LoopDim::peeled).
  bool peels = !level.parallel &&
               (splitSides ||
                llvm::any_of(llvm::enumerate(level.sizes), [&](auto dimSize) {
                  auto [dim, size] = dimSize;
                  return size != 0 && after.dims[dim].peeled;
                }));
  if (level.fusesEpilogue) {
    if (failed(emitFusedTile(op, level)))
      return failure();
    if (peels)
      peelLevel(loc, levelIndex);
    return success();
  }
  // On a GPU, what the block level fused (the epilogue, the fill) must be
  // fused into the thread level too: ops left between the two levels would
  // run in every thread of the block.
  if (level.mapping == ParallelMapping::GpuThreads && !fusedOps.empty())
    return emitFusedThreadTile(op, level);
  if (level.parallel) {
    auto tiled = b.create<transform::TileUsingForallOp>(
        loc, anchor, level.sizes, transform::TileSizesSpec(),
        getForallMapping(b.getContext(), level));
    anchor = tiled.getTiledOp();
    Value forall = tiled.getForallOp();
    // The fill of the anchor's output goes into the threads' loop too: each
    // thread zeroes its own tile (in its cache) instead of one thread
    // zeroing the whole output first (with a fused epilogue, it is fused
    // with it; after split_reduction it initializes the combining op). On a
    // GPU the thread level takes it from the block level (the handle, not a
    // match: the fill fused before stays in the payload until the clean-up).
    bool fusesFill = levelIndex == 0 ||
                     (level.mapping == ParallelMapping::GpuThreads && fill);
    if (fusesFill && !after.splitReduction && getAnchorFill(instance.anchor)) {
      auto fused = b.create<transform::FuseIntoContainingOp>(
          loc, fill ? fill : match(loc, kAnchorFillKey), forall);
      forall = fused.getNewContainingOp();
      fill = fused.getFusedOp();
    }
    levelLoops.push_back({forall});
    return success();
  }
  auto tiled = b.create<transform::TileUsingForOp>(loc, anchor, level.sizes,
                                                   level.interchange);
  anchor = tiled.getTiledLinalgOp();
  levelLoops.push_back(SmallVector<Value>(tiled.getLoops()));
  // A sequential first level of parallel loops fuses the fill as a parallel
  // one does (FuseFillIntoTileLoopsOp says why); on a CPU each further
  // level takes it in too while it stays outside the reductions, down to
  // the register tile, which then starts from zero accumulators.
  if ((cpu ||
       (levelIndex == 0 && !level.findTiledReduction() && !splitSides)) &&
      !after.splitReduction && getAnchorFill(instance.anchor)) {
    Value fills =
        b.create<FuseFillIntoTileLoopsOp>(loc, anyOp, anchor).getFills();
    // Only the register tile's fill is vectorized (an outer level's is
    // the size of its tile and stays a fill, moved inward by the next).
    tileFills = levelIndex + 1 == finalState.levels.size() ? fills : Value();
  }
  if (peels)
    peelLevel(loc, levelIndex);
  return success();
}

void TransformEmitter::withOpsCopied(Location loc,
                                     llvm::function_ref<void()> transform) {
  auto annotate = [&](Value handle, StringRef name) {
    b.create<transform::AnnotateOp>(loc, handle, name, /*param=*/Value());
  };
  for (auto [levelIndex, loops] : llvm::enumerate(levelLoops))
    for (auto [position, loop] : llvm::enumerate(loops))
      annotate(loop, getLoopAttrName(levelIndex, position));
  annotate(anchor, kAnchorCopyAttrName);
  for (auto [index, fused] : llvm::enumerate(fusedOps))
    annotate(fused.handle, getFusedAttrName(index));
  if (tileFills)
    annotate(tileFills, kTileFillCopyAttrName);
  tagNest(loc);
  transform();
  auto find = [&](StringRef name) {
    return matchTagged(loc, b.getNamedAttr(name, b.getUnitAttr()));
  };
  for (auto [levelIndex, loops] : llvm::enumerate(levelLoops))
    for (auto [position, loop] : llvm::enumerate(loops))
      loop = find(getLoopAttrName(levelIndex, position));
  anchor = find(kAnchorCopyAttrName);
  for (auto [index, fused] : llvm::enumerate(fusedOps))
    fused.handle = find(getFusedAttrName(index));
  if (tileFills)
    tileFills = find(kTileFillCopyAttrName);
}

void TransformEmitter::peelLevel(Location loc, unsigned levelIndex) {
  withOpsCopied(loc, [&] {
    SmallVector<Value> &loops = levelLoops[levelIndex];
    Value allLoops = loops.front();
    if (loops.size() > 1)
      allLoops = b.create<transform::MergeHandlesOp>(loc, loops,
                                                     /*deduplicate=*/false);
    b.create<PeelPartialLoopsOp>(loc, allLoops);
  });
}

LogicalResult TransformEmitter::emitFusedTile(TileOp op,
                                              const TileLevel &level) {
  Location loc = op.getLoc();
  if (instance.epilogue.empty())
    return op.emitOpError("fuses the epilogue of task '")
           << schedule.getTask() << "', which has none (tag its ops "
           << kEpilogueAttrName << " = \"" << schedule.getTask() << "\")";

  // The epilogue's loops are the anchor's parallel loops, in order.
  SmallVector<int64_t> parallelIndex(level.sizes.size(), -1);
  SmallVector<int64_t> sizes;
  for (auto [dim, kind] : llvm::enumerate(level.kinds))
    if (kind == LoopKind::Parallel) {
      parallelIndex[dim] = sizes.size();
      sizes.push_back(level.sizes[dim]);
    }
  SmallVector<int64_t> interchange;
  for (int64_t dim : level.interchange)
    if (parallelIndex[dim] >= 0)
      interchange.push_back(parallelIndex[dim]);

  Operation *rootOp = instance.epilogue.back();
  auto rootLinalg = dyn_cast<linalg::LinalgOp>(rootOp);
  if (!rootLinalg)
    return op.emitOpError("the epilogue's last op ")
           << rootOp->getName() << " is not a linalg op";
  if (rootLinalg.getNumLoops() != sizes.size() ||
      rootLinalg.getNumReductionLoops() != 0)
    return op.emitOpError("cannot tile the epilogue's last op ")
           << rootOp->getName() << " like the anchor: it has "
           << rootLinalg.getNumLoops() << " loops, expected " << sizes.size()
           << " parallel ones";

  Value epilogueRoot =
      match(loc, kEpilogueKeyBase + instance.epilogue.size() - 1);
  SmallVector<Value> loops;
  Value tiledRoot;
  if (level.parallel) {
    auto tiled = b.create<transform::TileUsingForallOp>(
        loc, epilogueRoot, sizes, transform::TileSizesSpec(),
        getForallMapping(b.getContext(), level));
    tiledRoot = tiled.getTiledOp();
    loops.push_back(tiled.getForallOp());
  } else {
    auto tiled = b.create<transform::TileUsingForOp>(loc, epilogueRoot, sizes,
                                                     interchange);
    tiledRoot = tiled.getTiledLinalgOp();
    llvm::append_range(loops, tiled.getLoops());
  }
  fusedOps.push_back({tiledRoot, rootLinalg.getNumLoops()});

  // Fuse producers, consumers first, into the innermost loop.
  auto fuse = [&](Value producer) {
    auto fused =
        b.create<transform::FuseIntoContainingOp>(loc, producer, loops.back());
    loops.back() = fused.getNewContainingOp();
    return fused.getFusedOp();
  };
  for (int64_t index = instance.epilogue.size() - 2; index >= 0; --index)
    fusedOps.push_back(
        {fuse(match(loc, kEpilogueKeyBase + index)),
         cast<linalg::LinalgOp>(instance.epilogue[index]).getNumLoops()});
  anchor = fuse(anchor);
  if (linalg::FillOp fill = getAnchorFill(instance.anchor))
    fusedOps.push_back({fuse(match(loc, kAnchorFillKey)), fill.getNumLoops()});
  levelLoops.push_back(std::move(loops));
  return success();
}

LogicalResult TransformEmitter::emitFusedThreadTile(TileOp op,
                                                    const TileLevel &level) {
  Location loc = op.getLoc();
  // fusedOps holds what the block level fused (emitFusedTile): the
  // epilogue's last op, the rest of the epilogue consumers first, then the
  // anchor's fill if it has one. The thread level tiles the last op with
  // the level's sizes of the parallel dimensions and fuses the others and
  // the anchor into it, consumers first.
  SmallVector<int64_t> sizes;
  for (auto [dim, kind] : llvm::enumerate(level.kinds))
    if (kind == LoopKind::Parallel)
      sizes.push_back(level.sizes[dim]);
  auto tiled = b.create<transform::TileUsingForallOp>(
      loc, fusedOps.front().handle, sizes, transform::TileSizesSpec(),
      getForallMapping(b.getContext(), level));
  Value forall = tiled.getForallOp();
  auto fuse = [&](Value producer) {
    auto fused =
        b.create<transform::FuseIntoContainingOp>(loc, producer, forall);
    forall = fused.getNewContainingOp();
    return fused.getFusedOp();
  };
  bool hasFill = getAnchorFill(instance.anchor) != nullptr;
  size_t numEpilogue = fusedOps.size() - (hasFill ? 1 : 0);
  SmallVector<FusedOp> fused = {{tiled.getTiledOp(), fusedOps[0].numLoops}};
  for (size_t index = 1; index < numEpilogue; ++index)
    fused.push_back({fuse(fusedOps[index].handle), fusedOps[index].numLoops});
  anchor = fuse(anchor);
  if (hasFill)
    fused.push_back({fuse(fusedOps.back().handle), fusedOps.back().numLoops});
  fusedOps = std::move(fused);
  levelLoops.push_back({forall});
  return success();
}

transform::PadOp TransformEmitter::padAnchor(Location loc,
                                             ArrayRef<int64_t> packedOperands,
                                             unsigned numDims) {
  auto linalgOp = cast<linalg::LinalgOp>(instance.anchor);
  SmallVector<Attribute> paddingValues;
  SmallVector<int64_t> packPaddings(linalgOp->getNumOperands(), 0);
  for (OpOperand &operand : linalgOp->getOpOperands())
    paddingValues.push_back(
        b.getZeroAttr(getElementTypeOrSelf(operand.get().getType())));
  for (int64_t operand : packedOperands)
    packPaddings[operand] = 1;
  auto dims = llvm::to_vector(llvm::seq<int64_t>(0, numDims));
  // The copy back into the init's slice is a linalg.copy, which bufferizes
  // in place where it can (then folds away) and out of place where it must:
  // materialize_in_destination must be in place, which fails when the tile
  // loops carry a fused epilogue's output and the init is an argument.
  auto padded = b.create<transform::PadOp>(
      loc, TypeRange{anyOp, anyOp, anyOp}, anchor,
      b.getArrayAttr(paddingValues), b.getI64ArrayAttr(dims),
      /*pad_to_multiple_of=*/ValueRange(),
      /*static_pad_to_multiple_of=*/ArrayRef<int64_t>(),
      b.getI64ArrayAttr(packPaddings), /*transpose_paddings=*/ArrayAttr(),
      /*copy_back_op=*/b.getStringAttr("linalg.copy"));
  anchor = padded.getPadded();
  return padded;
}

LogicalResult TransformEmitter::emitPad(tcl::PadOp op,
                                        const ScheduleState &before) {
  // On a GPU: the steps' loop, for tcl-promote-gpu-operands.
  if (before.isGpuMapped()) {
    b.create<transform::AnnotateOp>(op.getLoc(), levelLoops.back().back(),
                                    kSharedInputsAttrName, /*param=*/Value());
    return success();
  }
  int64_t numOperands = instance.anchor->getNumOperands();
  for (int64_t operand : op.getOperands())
    if (operand >= numOperands)
      return op.emitOpError("operand ")
             << operand << " is out of range: " << instance.anchor->getName()
             << " has " << numOperands << " operands";
  // MLIR's hoist_pad crashes (or fails) on the copy of an output tile, which
  // the loops update. The verifier (PadOp::applyToState) refuses this for
  // named anchors; it does not know the operands of a linalg.generic.
  int64_t numInputs =
      cast<DestinationStyleOpInterface>(instance.anchor).getNumDpsInputs();
  if (op.getHoist().value_or(0) > 0)
    for (int64_t operand : op.getOperands())
      if (operand >= numInputs)
        return op.emitOpError("hoisting the padding of output operand ")
               << operand
               << " is not supported (the loops update the output tile, so "
                  "its copy cannot move out of them); pad it without hoist, "
                  "or hoist only input operands";
  Location loc = op.getLoc();
  transform::PadOp padded =
      padAnchor(loc, op.getOperands(), before.getNumDims());
  // Hoist the copies of the listed operands only: the other operands' pads
  // (to full tiles, without a copy) stay where they are.
  if (std::optional<uint64_t> hoist = op.getHoist(); hoist && *hoist > 0) {
    for (int64_t operand : op.getOperands()) {
      Value pad = b.create<transform::GetProducerOfOperand>(
          loc, anyOp, padded.getPadded(), operand);
      b.create<transform::HoistPadOp>(loc, anyOp, pad, *hoist);
    }
  }
  return success();
}

LogicalResult TransformEmitter::emitVectorize(tcl::VectorizeOp op,
                                              const ScheduleState &before) {
  Location loc = op.getLoc();
  // Partial tiles are padded (in registers, no copy) to the full static tile
  // first. MLIR 19's masked vectorization builds invalid masks for the
  // broadcasting reads of contractions, so masks are not used.
  bool partial = llvm::any_of(
      before.dims, [](const LoopDim &loop) { return !loop.evenlyTiled; });
  if (partial)
    padAnchor(loc, /*packedOperands=*/{}, before.getNumDims());
  // A CPU tile of 24 or 48 lanes becomes power-of-two pieces first.
  if (cpu)
    anchor = b.create<SplitVectorRemaindersOp>(loc, anyOp, anchor);
  UnitAttr vectorizeExtract =
      before.anchorName == "linalg.generic" ? b.getUnitAttr() : UnitAttr();
  b.create<transform::VectorizeOp>(loc, anchor, ValueRange(),
                                   ArrayRef<int64_t>(), vectorizeExtract,
                                   ArrayRef<bool>());
  // The register tile's own fill: a store of zero vectors that the
  // accumulators' first read forwards (tcl.forward_filled_reads). A tile
  // padded to its full size above keeps its fill as it is.
  if (tileFills && !partial)
    b.create<transform::VectorizeOp>(loc, tileFills, ValueRange(),
                                     ArrayRef<int64_t>(), UnitAttr(),
                                     ArrayRef<bool>());
  // Fused epilogue tiles have the static shape of the first (a GPU's thread)
  // tile level's parallel dimensions when it divides the domain, vectorized
  // a slab at a time (getVectorSlab): vectorized whole, a large tile unrolls
  // into thousands of vector ops (and minutes of LLVM compile time); as
  // scalar loops, LLVM unrolled the innermost and gathered the next one.
  bool vectorizeFused = !fusedOps.empty();
  SmallVector<int64_t> fusedShape;
  auto *gpuLevel = finalState.findParallelLevel(ParallelMapping::GpuThreads);
  const TileLevel &fusedLevel = gpuLevel ? *gpuLevel : finalState.levels[0];
  if (vectorizeFused)
    for (auto [dim, size] : llvm::enumerate(fusedLevel.sizes)) {
      int64_t extent = schedule.getExtents()[dim];
      if (fusedLevel.kinds[dim] != LoopKind::Parallel)
        continue;
      vectorizeFused &=
          !ShapedType::isDynamic(extent) && (size == 0 || extent % size == 0);
      fusedShape.push_back(size == 0 ? extent : size);
    }
  if (vectorizeFused) {
    SmallVector<int64_t> slab = getVectorSlab(fusedShape);
    bool whole = slab == fusedShape;
    // Tile size 0 leaves a dimension whole.
    SmallVector<int64_t> slabTiles;
    for (auto [size, extent] : llvm::zip(slab, fusedShape))
      slabTiles.push_back(size == extent ? 0 : size);
    for (const FusedOp &fused : fusedOps) {
      Value target = fused.handle;
      if (!whole) {
        // An epilogue op of another rank (none is built so today) keeps
        // its loops rather than being tiled by the wrong sizes.
        if (fused.numLoops != fusedShape.size())
          continue;
        target =
            b.create<transform::TileUsingForOp>(loc, fused.handle, slabTiles)
                .getTiledLinalgOp();
      }
      b.create<transform::VectorizeOp>(loc, target, ValueRange(),
                                       ArrayRef<int64_t>(), UnitAttr(),
                                       ArrayRef<bool>());
    }
  }
  // The vectorizer emits multiply + multi_reduction; fold them back into
  // vector.contract (which lowers to FMAs) and turn permuted transfers into
  // plain ones before canonicalization scalarizes the unit dimensions.
  b.create<transform::ApplyPatternsOp>(
      loc, cleanupScope(loc), [](OpBuilder &b, Location loc) {
        b.create<transform::ApplyVectorReductionToContractPatternsOp>(loc);
        b.create<transform::ApplyTransferPermutationPatternsOp>(loc);
      });
  return success();
}

void TransformEmitter::emitSkipZeroBorderTaps(Location loc) {
  const AnchorInfo *info = finalState.anchor;
  if (finalState.levels.back().parallel || !info || !info->heightDims ||
      !info->widthDims)
    return;
  bool unrollsWindow =
      llvm::any_of(schedule.getBody().front(), [&](Operation &primitive) {
        auto unroll = dyn_cast<UnrollOp>(&primitive);
        return unroll && (unroll.getDim() == info->heightDims->window ||
                          unroll.getDim() == info->widthDims->window);
      });
  // The op skips pooling windows (their padding is not a zero that adds
  // nothing) and whatever else it cannot see through.
  if (!unrollsWindow)
    b.create<SkipZeroBorderTapsOp>(loc, anchor);
  // Then the tiles read the unpadded input where they lie inside it, and
  // the others pad themselves: no padded copy of the input is made.
  if (isPaddingWorthFolding(instance.anchor))
    withOpsCopied(loc, [&] { b.create<FoldPaddingIntoTilesOp>(loc, anchor); });
}

bool TransformEmitter::splitPaddedSides(Location loc,
                                        const ScheduleState &before) {
  const AnchorInfo *info = finalState.anchor;
  const TileLevel &last = finalState.levels.back();
  Operation *op = instance.anchor;
  // Not where the last level fuses the epilogue (one nest must then hold
  // the anchor).
  if (last.parallel || last.fusesEpilogue || !info || !info->widthDims ||
      !isPaddingWorthFolding(op))
    return false;
  unsigned columnDim = info->widthDims->output;
  int64_t columns = before.dims[columnDim].extent;
  int64_t kernelColumns = before.dims[info->widthDims->window].extent;
  // A tile of 0 columns (untiled) spans the map: its middle piece is then
  // one tile of its own width (a 14x14 map: 1 + 12 + 1 columns).
  int64_t tile = last.sizes[columnDim];
  bool spansMap = tile == 0 || tile >= columns;
  // The earlier levels must leave the anchor all the columns.
  FailureOr<ScheduleState> initial = schedule.getInitialState();
  if (failed(initial) || ShapedType::isDynamic(columns) ||
      ShapedType::isDynamic(kernelColumns) ||
      columns != initial->dims[columnDim].extent || tile == 1)
    return false;
  std::optional<PaddedSideColumns> sides =
      getPaddedSideColumns(cast<linalg::LinalgOp>(op), columnDim,
                           info->widthDims->window, columns, kernelColumns);
  if (!sides || sides->middle < (spansMap ? 1 : tile) ||
      (sides->left == 0 && sides->right <= 0))
    return false;
  auto [left, middle, right] = *sides;
  SmallVector<Value> pieces;
  Value rest = anchor;
  if (left > 0) {
    auto split =
        b.create<transform::SplitOp>(loc, anyOp, anyOp, rest, columnDim,
                                     /*dynamic_chunk_sizes=*/Value(), left);
    pieces.push_back(split.getFirst());
    rest = split.getSecond();
  }
  if (right > 0) {
    auto split =
        b.create<transform::SplitOp>(loc, anyOp, anyOp, rest, columnDim,
                                     /*dynamic_chunk_sizes=*/Value(), middle);
    pieces.push_back(split.getFirst());
    rest = split.getSecond();
  }
  pieces.push_back(rest);
  anchor = b.create<transform::MergeHandlesOp>(loc, pieces,
                                               /*deduplicate=*/false);
  // Each piece fills its own output, so that its register tiles can take
  // the fill in (emitTile).
  if (cpu)
    b.create<FillSplitPiecesOp>(loc, anchor);
  return true;
}

Value TransformEmitter::getLoop(unsigned level, int64_t dim) {
  SmallVector<int64_t> order = finalState.levels[level].loopDims();
  return levelLoops[level][llvm::find(order, dim) - order.begin()];
}

LogicalResult TransformEmitter::emit(Value rootHandle) {
  root = rootHandle;
  anchor = match(schedule.getLoc(), kAnchorKey);
  FailureOr<ScheduleState> state = schedule.getInitialState();
  if (failed(state))
    return failure();
  unsigned levelIndex = 0;
  for (Operation &op : schedule.getBody().front()) {
    ScheduleState before = *state;
    if (failed(cast<SchedulePrimitiveOpInterface>(op).applyToState(*state)))
      return failure();
    Location loc = op.getLoc();
    LogicalResult result =
        llvm::TypeSwitch<Operation *, LogicalResult>(&op)
            .Case([&](TileOp tile) {
              if (levelIndex + 1 == finalState.levels.size())
                splitSides = splitPaddedSides(loc, before);
              if (failed(emitTile(tile, levelIndex++, *state)))
                return failure();
              tagNest(loc);
              if (levelIndex == finalState.levels.size())
                emitSkipZeroBorderTaps(loc);
              return success();
            })
            .Case([&](DecomposeOp) {
              // Upstream decomposes the named 2-D ops; tcl's own op does a
              // grouped convolution (a linalg.generic) within one group.
              if (before.anchor->groupDim)
                anchor = b.create<DecomposeGroupedConvOp>(loc, anyOp, anchor)
                             .getTransformed();
              else
                anchor = b.create<transform::DecomposeOp>(loc, anyOp, anchor)
                             .getTransformed();
              return success();
            })
            .Case([&](SplitReductionOp split) {
              // The new parallel dimension goes last in the partial-result
              // tensor, i.e. just before the reduction loop.
              int64_t outputRank = llvm::count_if(before.dims, [](auto loop) {
                return loop.kind == LoopKind::Parallel;
              });
              anchor = b.create<transform::SplitReductionOp>(
                            loc, anchor, split.getFactor(), outputRank)
                           .getSplitLinalgOp();
              return success();
            })
            .Case([&](tcl::PadOp pad) { return emitPad(pad, before); })
            .Case([&](tcl::VectorizeOp vectorize) {
              return emitVectorize(vectorize, before);
            })
            .Case([&](UnrollOp unroll) {
              b.create<transform::LoopUnrollOp>(
                  loc, getLoop(unroll.getLevel(), unroll.getDim()),
                  unroll.getFactor());
              return success();
            })
            .Case([&](HoistAccumulatorsOp) {
              // A subset pair is hoisted only if its operands are defined
              // outside the loop and its offsets are the same SSA values:
              // move the constants vectorization created inside the loops
              // out (LICM) and unify them (CSE) first. Per loop, the first
              // hoist takes the output tile's extract/insert_slice pair out
              // of the loop, the second the transfer_read/write pair that
              // then operates on the new loop-carried tile. Out of every
              // reduction loop that encloses the innermost one directly,
              // innermost first (a convolution's kernel rows and columns
              // around its input channels: the stem's 3 input channels
              // reloaded the accumulators every 3 steps).
              SmallVector<Value> loops;
              for (auto [level, dim] : finalState.getAccumulatorLoops())
                loops.push_back(getLoop(level, dim));
              for (Value loop : loops)
                b.create<transform::ApplyLoopInvariantCodeMotionOp>(loc, loop);
              b.create<transform::ApplyCommonSubexpressionEliminationOp>(loc,
                                                                         root);
              for (Value loop : loops) {
                b.create<transform::HoistLoopInvariantSubsetsOp>(loc, loop);
                b.create<transform::HoistLoopInvariantSubsetsOp>(loc, loop);
              }
              return success();
            })
            // Attached to their tile level, emitted with it.
            .Case<InterchangeOp, ParallelizeOp, FuseEpilogueOp>(
                [](Operation *) { return success(); })
            .Default([](Operation *other) {
              return other->emitOpError("has no lowering to the transform "
                                        "dialect");
            });
    if (failed(result))
      return failure();
  }

  // Clean up what tiling and vectorization leave behind, after the last
  // use of the loops' handles (the op may unroll and remove loops).
  Location loc = schedule.getLoc();
  Value scope = cleanupScope(loc);
  // Fold the slices hoisting left around the register tiles, so that the
  // accumulators' first reads see the tile's fill.
  b.create<transform::ApplyPatternsOp>(
      loc, scope, [](OpBuilder &b, Location loc) {
        b.create<transform::ApplyCanonicalizationPatternsOp>(loc);
      });
  b.create<ForwardFilledReadsOp>(loc, scope);
  b.create<SkipZeroBorderProductsOp>(loc, scope);
  b.create<transform::ApplyPatternsOp>(
      loc, scope, [](OpBuilder &b, Location loc) {
        b.create<transform::ApplyCanonicalizationPatternsOp>(loc);
        b.create<transform::ApplyTilingCanonicalizationPatternsOp>(loc);
      });
  b.create<transform::ApplyCommonSubexpressionEliminationOp>(loc, scope);
  return success();
}

/// A GPU kernel's loops must run on the grid: a schedule for a GPU target
/// maps a level onto blocks; one for a CPU maps nothing onto a GPU.
static LogicalResult checkTargetMapping(ScheduleOp schedule,
                                        const ScheduleState &state) {
  const TargetArch *target = lookupTargetArch(schedule.getTarget());
  bool gpuTarget = target && target->kind == TargetKind::GPU;
  // An empty schedule keeps the op whole (the default for an op without a
  // parallel loop): tcl-map-to-gpu gives it a kernel of its own.
  bool empty = schedule.getBody().front().empty();
  if (gpuTarget && !empty &&
      !state.findParallelLevel(ParallelMapping::GpuBlocks))
    return schedule.emitOpError("targets GPU '")
           << schedule.getTarget()
           << "' but maps no tile level onto blocks (tcl.sched.parallelize "
              "blocks): the kernel would not run on the GPU";
  if (!gpuTarget && state.isGpuMapped())
    return schedule.emitOpError("maps loops onto GPU blocks or threads but "
                                "targets CPU '")
           << schedule.getTarget() << "'";
  return success();
}

FailureOr<Operation *>
mlir::tcl::buildTransformSequence(OpBuilder &builder, ScheduleOp schedule,
                                  const TaskInstance &instance,
                                  StringRef name) {
  FailureOr<ScheduleState> finalState = schedule.replay();
  if (failed(finalState))
    return failure();
  if (failed(checkTargetMapping(schedule, *finalState)))
    return failure();
  MLIRContext *ctx = builder.getContext();
  Type anyOp = transform::AnyOpType::get(ctx);
  LogicalResult result = success();
  auto sequence = builder.create<transform::NamedSequenceOp>(
      schedule.getLoc(), name, anyOp, TypeRange(),
      [&](OpBuilder &b, Location loc, BlockArgument root) {
        TransformEmitter emitter(b, schedule, instance, *finalState);
        result = emitter.emit(root);
        b.create<transform::YieldOp>(loc);
      });
  if (failed(result)) {
    sequence->erase();
    return failure();
  }
  sequence.setArgAttr(0, transform::TransformDialect::kArgReadOnlyAttrName,
                      builder.getUnitAttr());
  return sequence.getOperation();
}
