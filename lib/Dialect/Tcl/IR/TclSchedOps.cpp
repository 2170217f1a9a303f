//===- TclSchedOps.cpp - Schedule primitives (tcl.sched.*) ----------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Parsing, printing and verification of schedules. Each primitive's
// `applyToState` is both its verifier (against the loop nest the schedule
// has built so far) and its effect on that loop nest.
//
//===----------------------------------------------------------------------===//

#include "tcl/Dialect/Tcl/IR/TclOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tcl;

/// Largest iteration space of one vectorized tile. Vectorizing more than this
/// unrolls into huge vectors whose compilation takes minutes; the search
/// should discard such candidates early.
static constexpr int64_t kMaxVectorVolume = 1 << 16;

//===----------------------------------------------------------------------===//
// Custom assembly directives
//===----------------------------------------------------------------------===//

/// `[1, 2, 3]`
static ParseResult parseIntList(OpAsmParser &parser, DenseI64ArrayAttr &attr) {
  SmallVector<int64_t> values;
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square,
                                     [&]() -> ParseResult {
                                       int64_t value;
                                       if (parser.parseInteger(value))
                                         return failure();
                                       values.push_back(value);
                                       return success();
                                     }))
    return failure();
  attr = parser.getBuilder().getDenseI64ArrayAttr(values);
  return success();
}

static void printIntList(OpAsmPrinter &printer, Operation *,
                         DenseI64ArrayAttr attr) {
  printer << '[';
  llvm::interleaveComma(attr.asArrayRef(), printer);
  printer << ']';
}

/// `` (CPU threads), `blocks` or `threads`
static ParseResult parseParallelMapping(OpAsmParser &parser,
                                        StringAttr &mapping) {
  for (ParallelMapping candidate :
       {ParallelMapping::GpuBlocks, ParallelMapping::GpuThreads}) {
    StringRef keyword = getParallelMappingKeyword(candidate);
    if (succeeded(parser.parseOptionalKeyword(keyword))) {
      mapping = parser.getBuilder().getStringAttr(keyword);
      return success();
    }
  }
  return success();
}

static void printParallelMapping(OpAsmPrinter &printer, Operation *,
                                 StringAttr mapping) {
  if (mapping)
    printer << mapping.getValue();
}

static StringRef loopKindKeyword(char kind) {
  return kind == 'r' ? "reduction" : "parallel";
}

/// `[256 parallel, ? reduction]`
static ParseResult parseLoopDomain(OpAsmParser &parser,
                                   DenseI64ArrayAttr &extents,
                                   StringAttr &kinds) {
  SmallVector<int64_t> sizes;
  std::string kindChars;
  if (parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
            int64_t extent = ShapedType::kDynamic;
            if (failed(parser.parseOptionalQuestion()) &&
                parser.parseInteger(extent))
              return failure();
            StringRef keyword;
            SMLoc loc = parser.getCurrentLocation();
            if (parser.parseKeyword(&keyword))
              return failure();
            if (keyword != "parallel" && keyword != "reduction")
              return parser.emitError(loc, "expected 'parallel' or "
                                           "'reduction', got '")
                     << keyword << "'";
            sizes.push_back(extent);
            kindChars.push_back(keyword == "parallel" ? 'p' : 'r');
            return success();
          }))
    return failure();
  extents = parser.getBuilder().getDenseI64ArrayAttr(sizes);
  kinds = parser.getBuilder().getStringAttr(kindChars);
  return success();
}

static void printLoopDomain(OpAsmPrinter &printer, Operation *,
                            DenseI64ArrayAttr extents, StringAttr kinds) {
  printer << '[';
  for (auto [index, extent] : llvm::enumerate(extents.asArrayRef())) {
    if (index != 0)
      printer << ", ";
    if (ShapedType::isDynamic(extent))
      printer << '?';
    else
      printer << extent;
    char kind = index < kinds.size() ? kinds.getValue()[index] : '?';
    printer << ' ' << loopKindKeyword(kind);
  }
  printer << ']';
}

//===----------------------------------------------------------------------===//
// ScheduleOp
//===----------------------------------------------------------------------===//

void ScheduleOp::build(OpBuilder &builder, OperationState &state,
                       StringRef task, StringRef anchor, StringRef target,
                       ArrayRef<int64_t> extents, StringRef loopKinds) {
  state.addAttribute(getTaskAttrName(state.name), builder.getStringAttr(task));
  state.addAttribute(getAnchorAttrName(state.name),
                     builder.getStringAttr(anchor));
  state.addAttribute(getTargetAttrName(state.name),
                     builder.getStringAttr(target));
  state.addAttribute(getExtentsAttrName(state.name),
                     builder.getDenseI64ArrayAttr(extents));
  state.addAttribute(getLoopKindsAttrName(state.name),
                     builder.getStringAttr(loopKinds));
  Region *body = state.addRegion();
  body->push_back(new Block());
}

LogicalResult ScheduleOp::verify() {
  if (getTask().empty())
    return emitOpError("needs a non-empty task name");
  auto *dialect = cast<TclDialect>((*this)->getDialect());
  if (!dialect->isKnownTarget(getTarget())) {
    auto diag = emitOpError("targets unknown platform '")
                << getTarget() << "'; known platforms:";
    for (llvm::StringRef name : dialect->getKnownTargets())
      diag << " " << name;
    if (dialect->getKnownTargets().empty())
      diag << " none (registerTclDialects registers them)";
    return diag;
  }
  const AnchorInfo *anchor = lookupAnchor(getAnchor());
  if (!anchor) {
    auto diag = emitOpError("anchor '")
                << getAnchor() << "' is not an operation tcl can schedule;"
                << " supported:";
    for (const AnchorInfo &info : getSupportedAnchors())
      diag << " " << info.opName;
    return diag;
  }
  ArrayRef<int64_t> extents = getExtents();
  StringRef kinds = getLoopKinds();
  if (extents.empty())
    return emitOpError("declares no loops");
  if (kinds.size() != extents.size())
    return emitOpError("declares ") << extents.size() << " loop extents but "
                                    << kinds.size() << " loop kinds";
  for (auto [dim, extent] : llvm::enumerate(extents))
    if (!ShapedType::isDynamic(extent) && extent <= 0)
      return emitOpError("loop d")
             << dim << " has non-positive extent " << extent;
  if (llvm::any_of(kinds, [](char c) { return c != 'p' && c != 'r'; }))
    return emitOpError("loop kinds must be 'p' (parallel) or 'r' "
                       "(reduction), got '")
           << kinds << "'";
  if (!anchor->loopKinds.empty() && anchor->loopKinds != kinds)
    return emitOpError("declares loop kinds '")
           << kinds << "' but " << anchor->opName << " has '"
           << anchor->loopKinds << "'";
  return success();
}

FailureOr<ScheduleState> ScheduleOp::getInitialState() {
  ScheduleState state;
  state.anchor = lookupAnchor(getAnchor());
  if (!state.anchor)
    return failure();
  state.anchorName = getAnchor().str();
  for (auto [extent, kind] : llvm::zip_equal(getExtents(), getLoopKinds()))
    state.dims.push_back(
        {extent, kind == 'r' ? LoopKind::Reduction : LoopKind::Parallel,
         /*evenlyTiled=*/!ShapedType::isDynamic(extent)});
  return state;
}

FailureOr<ScheduleState> ScheduleOp::replay() {
  FailureOr<ScheduleState> state = getInitialState();
  if (failed(state))
    return failure();
  for (Operation &op : getBody().front()) {
    auto primitive = dyn_cast<SchedulePrimitiveOpInterface>(op);
    if (!primitive)
      return op.emitOpError("is not a schedule primitive");
    if (failed(primitive.applyToState(*state)))
      return failure();
  }
  return state;
}

LogicalResult ScheduleOp::verifyRegions() { return replay(); }

//===----------------------------------------------------------------------===//
// Shared preconditions
//===----------------------------------------------------------------------===//

/// Primitives that reshape the loop nest must come before `vectorize`.
static LogicalResult requireBeforeVectorize(Operation *op,
                                            const ScheduleState &state) {
  if (state.vectorized)
    return op->emitOpError(
        "must precede tcl.sched.vectorize: the loop nest is already "
        "vectorized");
  return success();
}

/// Primitives that work on vectorized loops must come after `vectorize`.
static LogicalResult requireAfterVectorize(Operation *op,
                                           const ScheduleState &state) {
  if (!state.vectorized)
    return op->emitOpError("must follow tcl.sched.vectorize");
  return success();
}

/// Primitives that configure how a tile level is emitted (interchange,
/// parallelize, fuse_epilogue) must directly follow its `tile`, possibly
/// after other such primitives.
static FailureOr<TileLevel *> getOpenTileLevel(Operation *op,
                                               ScheduleState &state) {
  Operation *prev = op->getPrevNode();
  while (prev && isa<InterchangeOp, ParallelizeOp, FuseEpilogueOp>(prev))
    prev = prev->getPrevNode();
  if (!prev || !isa<TileOp>(prev) || state.levels.empty())
    return op->emitOpError("must follow a tcl.sched.tile whose loops it "
                           "configures");
  return &state.levels.back();
}

//===----------------------------------------------------------------------===//
// Primitives
//===----------------------------------------------------------------------===//

LogicalResult TileOp::applyToState(ScheduleState &state) {
  if (failed(requireBeforeVectorize(*this, state)))
    return failure();
  ArrayRef<int64_t> sizes = getSizes();
  if (sizes.size() != state.getNumDims())
    return emitOpError("expects ")
           << state.getNumDims()
           << " tile sizes (one per loop of the current domain), got "
           << sizes.size();
  if (llvm::all_of(sizes, [](int64_t size) { return size == 0; }))
    return emitOpError("tiles no loop: all sizes are 0");
  TileLevel level;
  for (auto [dim, size] : llvm::enumerate(sizes)) {
    LoopDim &loop = state.dims[dim];
    if (size < 0)
      return emitOpError("tile size ")
             << size << " for loop d" << dim << " is negative";
    if (size != 0 && !ShapedType::isDynamic(loop.extent) && size > loop.extent)
      return emitOpError("tile size ") << size << " for loop d" << dim
                                       << " exceeds its extent " << loop.extent;
    level.kinds.push_back(loop.kind);
    if (size == 0) {
      level.tripCounts.push_back(1);
      continue;
    }
    if (ShapedType::isDynamic(loop.extent)) {
      level.tripCounts.push_back(ShapedType::kDynamic);
      loop.evenlyTiled = false;
    } else {
      level.tripCounts.push_back(llvm::divideCeil(loop.extent, size));
      // A sequential level's loops are peeled (see LoopDim::peeled); a
      // parallel one makes the tiles partial (ParallelizeOp).
      loop.peeled |= loop.extent % size != 0;
    }
    loop.extent = size;
  }
  level.sizes.assign(sizes.begin(), sizes.end());
  level.interchange =
      llvm::to_vector(llvm::seq<int64_t>(0, state.getNumDims()));
  state.levels.push_back(std::move(level));
  return success();
}

LogicalResult InterchangeOp::applyToState(ScheduleState &state) {
  FailureOr<TileLevel *> level = getOpenTileLevel(*this, state);
  if (failed(level))
    return failure();
  ArrayRef<int64_t> permutation = getPermutation();
  size_t numDims = (*level)->sizes.size();
  llvm::SmallSet<int64_t, 8> seen;
  for (int64_t dim : permutation)
    if (dim >= 0 && dim < static_cast<int64_t>(numDims))
      seen.insert(dim);
  if (permutation.size() != numDims || seen.size() != numDims)
    return emitOpError("expects a permutation of the ")
           << numDims << " loop dimensions, got " << formatSizes(permutation);
  if ((*level)->parallel)
    return emitOpError("cannot order the loops of a parallelized tile level: "
                       "they form one scf.forall");
  if (!llvm::equal((*level)->interchange,
                   llvm::seq<int64_t>(0, (int64_t)numDims)))
    return emitOpError("tile level ")
           << state.levels.size() - 1 << " is already interchanged";
  (*level)->interchange.assign(permutation.begin(), permutation.end());
  return success();
}

void ParallelizeOp::build(OpBuilder &builder, OperationState &state,
                          ParallelMapping mapping) {
  StringRef keyword = getParallelMappingKeyword(mapping);
  build(builder, state,
        keyword.empty() ? StringAttr() : builder.getStringAttr(keyword));
}

ParallelMapping ParallelizeOp::getParallelMapping() {
  std::optional<StringRef> mapping = getMapping();
  if (mapping == getParallelMappingKeyword(ParallelMapping::GpuBlocks))
    return ParallelMapping::GpuBlocks;
  if (mapping == getParallelMappingKeyword(ParallelMapping::GpuThreads))
    return ParallelMapping::GpuThreads;
  return ParallelMapping::CpuThreads;
}

/// Checks where a parallel level mapped to `mapping` may go, given the
/// parallel levels before it.
static LogicalResult verifyParallelMapping(ParallelizeOp op,
                                           const ScheduleState &state,
                                           const TileLevel &level,
                                           ParallelMapping mapping) {
  const TileLevel *blocks = state.findParallelLevel(ParallelMapping::GpuBlocks);
  bool anyParallel = llvm::any_of(
      state.levels, [](const TileLevel &other) { return other.parallel; });
  switch (mapping) {
  case ParallelMapping::CpuThreads:
    if (state.isGpuMapped())
      return op.emitOpError("needs a GPU mapping ('blocks' or 'threads'): the "
                            "schedule maps loops onto a GPU already");
    if (anyParallel)
      return op.emitOpError("a schedule parallelizes at most one tile level");
    return success();
  case ParallelMapping::GpuBlocks:
    if (anyParallel)
      return op.emitOpError("maps a level onto GPU blocks after another "
                            "parallel level; 'blocks' comes first, once");
    break;
  case ParallelMapping::GpuThreads:
    if (!blocks)
      return op.emitOpError("maps a level onto GPU threads without one mapped "
                            "onto blocks before it");
    if (state.findParallelLevel(ParallelMapping::GpuThreads))
      return op.emitOpError("a schedule maps one tile level onto GPU threads");
    break;
  }
  StringRef keyword = getParallelMappingKeyword(mapping);
  SmallVector<int64_t> loops = level.loopDims();
  if (loops.size() > kMaxGpuMappedLoops)
    return op.emitOpError("maps ")
           << loops.size() << " loops onto GPU " << keyword << "; a grid and a "
           << "block have " << kMaxGpuMappedLoops << " dimensions";
  if (mapping == ParallelMapping::GpuThreads) {
    for (int64_t dim : loops)
      if (!state.dims[dim].evenlyTiled)
        return op.emitOpError("maps loop d")
               << dim << " onto GPU threads, but tiles of it above do not "
               << "divide its extent: a partial tile's thread count would be "
               << "known only at run time";
    int64_t threads = 1;
    for (int64_t dim : loops)
      threads = ShapedType::isDynamic(level.tripCounts[dim])
                    ? ShapedType::kDynamic
                    : threads * level.tripCounts[dim];
    if (ShapedType::isDynamic(threads))
      return op.emitOpError("maps loops of unknown trip count onto GPU "
                            "threads; a block's size must be static");
    if (threads > kMaxGpuThreadsPerBlock)
      return op.emitOpError("maps ")
             << threads << " threads onto one GPU block; at most "
             << kMaxGpuThreadsPerBlock;
  }
  return success();
}

LogicalResult ParallelizeOp::applyToState(ScheduleState &state) {
  FailureOr<TileLevel *> level = getOpenTileLevel(*this, state);
  if (failed(level))
    return failure();
  unsigned index = state.levels.size() - 1;
  if (std::optional<int64_t> dim = (*level)->findTiledReduction())
    return emitOpError("tile level ")
           << index << " tiles reduction loop d" << *dim
           << "; parallel iterations would race on the output";
  if (getMapping() && getParallelMapping() == ParallelMapping::CpuThreads)
    return emitOpError("unknown mapping '")
           << *getMapping() << "' (expected 'blocks' or 'threads')";
  ParallelMapping mapping = getParallelMapping();
  if (failed(verifyParallelMapping(*this, state, **level, mapping)))
    return failure();
  if (!llvm::equal((*level)->interchange,
                   llvm::seq<int64_t>(0, (int64_t)(*level)->sizes.size())))
    return emitOpError("cannot parallelize an interchanged tile level: a "
                       "scf.forall has no loop order");
  // An scf.forall is not peeled: where its tiles do not divide the extent
  // (of the main tile or of a remainder an outer level peeled), the tiles
  // inside are partial with sizes known only at run time.
  for (auto [dim, size] : llvm::enumerate((*level)->sizes))
    if (size != 0 && state.dims[dim].peeled)
      state.dims[dim].evenlyTiled = false;
  (*level)->parallel = true;
  (*level)->mapping = mapping;
  return success();
}

LogicalResult FuseEpilogueOp::applyToState(ScheduleState &state) {
  FailureOr<TileLevel *> level = getOpenTileLevel(*this, state);
  if (failed(level))
    return failure();
  if (state.levels.size() != 1)
    return emitOpError("must attach to the first tile level, whose loops "
                       "enclose the whole task");
  if (state.splitReduction)
    return emitOpError("cannot fuse the epilogue after split_reduction: the "
                       "epilogue then consumes the combining op");
  if (std::optional<int64_t> dim = (*level)->findTiledReduction())
    return emitOpError("tile level 0 tiles reduction loop d")
           << *dim << "; the epilogue has only the parallel loops";
  if ((*level)->fusesEpilogue)
    return emitOpError("tile level 0 already fuses the epilogue");
  (*level)->fusesEpilogue = true;
  return success();
}

LogicalResult DecomposeOp::applyToState(ScheduleState &state) {
  if (failed(requireBeforeVectorize(*this, state)))
    return failure();
  const AnchorInfo &anchor = *state.anchor;
  if (!anchor.heightDims || state.splitReduction)
    return emitOpError("applies to 2-D convolutions and poolings, not ")
           << state.anchorName;
  if (state.decomposed)
    return emitOpError(state.anchorName) << " is already decomposed";
  auto isUnit = [&](WindowDims pair) {
    return state.dims[pair.output].extent == 1 &&
           state.dims[pair.window].extent == 1;
  };
  std::optional<WindowDims> dropped;
  if (isUnit(*anchor.heightDims))
    dropped = anchor.heightDims;
  else if (isUnit(*anchor.widthDims))
    dropped = anchor.widthDims;
  if (!dropped)
    return emitOpError("needs loops d")
           << anchor.heightDims->output << " and d" << anchor.heightDims->window
           << " (or d" << anchor.widthDims->output << " and d"
           << anchor.widthDims->window
           << ") tiled to 1; the current extents are "
           << formatSizes(llvm::map_to_vector(
                  state.dims, [](const LoopDim &dim) { return dim.extent; }));
  // A grouped convolution becomes a plain one only within one group.
  if (anchor.groupDim && state.dims[*anchor.groupDim].extent != 1)
    return emitOpError("needs the group loop d")
           << *anchor.groupDim << " tiled to 1; the current extents are "
           << formatSizes(llvm::map_to_vector(
                  state.dims, [](const LoopDim &dim) { return dim.extent; }));
  // Erase the higher indices first so the lower ones stay valid.
  SmallVector<unsigned, 3> erased = {dropped->output, dropped->window};
  if (anchor.groupDim)
    erased.push_back(*anchor.groupDim);
  llvm::sort(erased, std::greater<unsigned>());
  for (unsigned dim : erased)
    state.dims.erase(state.dims.begin() + dim);
  state.anchorName = anchor.decomposedName.str();
  state.decomposed = true;
  return success();
}

LogicalResult SplitReductionOp::applyToState(ScheduleState &state) {
  if (failed(requireBeforeVectorize(*this, state)))
    return failure();
  int64_t factor = getFactor();
  if (factor < 2)
    return emitOpError("factor ") << factor << " splits nothing";
  SmallVector<int64_t> reductions;
  for (auto [dim, loop] : llvm::enumerate(state.dims))
    if (loop.kind == LoopKind::Reduction)
      reductions.push_back(dim);
  if (reductions.size() != 1)
    return emitOpError("needs exactly one reduction loop; ")
           << state.anchorName << " has " << reductions.size();
  int64_t dim = reductions.front();
  if (dim + 1 != static_cast<int64_t>(state.getNumDims()))
    return emitOpError("needs the reduction loop innermost; it is d")
           << dim << " of " << state.getNumDims();
  if (state.padded)
    return emitOpError("cannot split a padded operation");
  LoopDim &reduction = state.dims[dim];
  if (reduction.peeled || !reduction.evenlyTiled)
    return emitOpError("cannot split a reduction loop with partial tiles: ")
           << "the factor would not divide the remainder tiles; tile the "
              "reduction loop by a divisor of its extent";
  if (ShapedType::isDynamic(reduction.extent) ||
      reduction.extent % factor != 0 || reduction.extent == factor)
    return emitOpError("factor ")
           << factor << " must divide the reduction extent "
           << formatSizes(reduction.extent) << " and leave more than 1";
  reduction.extent /= factor;
  state.dims.insert(state.dims.begin() + dim,
                    LoopDim{factor, LoopKind::Parallel, true});
  state.anchorName = "linalg.generic";
  state.splitReduction = true;
  return success();
}

/// Why the copy of output operand `operand` cannot be hoisted. MLIR's
/// hoist_pad cannot hoist the copy of a tile that the loops update: it
/// crashes (or fails) on it. The lowering (emitPad) says the same for
/// linalg.generic anchors, whose operands the verifier does not know.
static std::string getOutputHoistMessage(int64_t operand) {
  return "hoisting the padding of output operand " + std::to_string(operand) +
         " is not supported (the loops update the output tile, so its copy "
         "cannot move out of them); pad it without hoist, or hoist only "
         "input operands";
}

/// On a GPU, `pad` puts the block's tiles of a matmul's inputs in shared
/// memory, one step of the reduction loop at a time: it follows a
/// sequential level inside the thread level that tiles reductions only
/// (the steps), lists both inputs, and needs full tiles (tcl's
/// tcl-promote-gpu-operands copies them with the block's threads).
static LogicalResult applyGpuPad(PadOp op, ScheduleState &state) {
  if (state.anchor->anchorClass != AnchorClass::Matmul &&
      state.anchor->anchorClass != AnchorClass::BatchMatmul)
    return op.emitOpError("on a GPU, pads (into shared memory) the inputs of "
                          "a matmul or batch matmul only, not of ")
           << state.anchorName;
  if (op.getOperands() != ArrayRef<int64_t>{0, 1})
    return op.emitOpError("on a GPU, pads both inputs of the matmul into "
                          "shared memory: list [0, 1], got ")
           << formatSizes(op.getOperands());
  if (op.getHoist())
    return op.emitOpError("on a GPU, copies into shared memory at each step "
                          "of its level; there is no hoist");
  const TileLevel &level = state.levels.back();
  bool afterThreads = llvm::any_of(state.levels, [](const TileLevel &tile) {
    return tile.mapping == ParallelMapping::GpuThreads;
  });
  bool stepsReductions = !level.parallel && level.findTiledReduction() &&
                         llvm::all_of(level.loopDims(), [&](int64_t dim) {
                           return level.kinds[dim] == LoopKind::Reduction ||
                                  level.tripCounts[dim] == 1;
                         });
  if (!afterThreads || !stepsReductions)
    return op.emitOpError("on a GPU, follows a sequential tile level inside "
                          "the thread level that tiles the reduction only: "
                          "its steps are the tiles that go to shared memory");
  for (auto [dim, loop] : llvm::enumerate(state.dims))
    if (!loop.evenlyTiled)
      return op.emitOpError("on a GPU, copies full tiles only: loop d")
             << dim << " has partial tiles";
  state.padded = true;
  return success();
}

LogicalResult PadOp::applyToState(ScheduleState &state) {
  if (failed(requireBeforeVectorize(*this, state)))
    return failure();
  if (state.levels.empty())
    return emitOpError("pads the current tile's operands; tile first");
  if (state.padded)
    return emitOpError("operands are already padded");
  ArrayRef<int64_t> operands = getOperands();
  if (operands.empty())
    return emitOpError("lists no operand to pad");
  llvm::SmallSet<int64_t, 4> seen;
  for (int64_t operand : operands)
    if (operand < 0 || !seen.insert(operand).second)
      return emitOpError("operand indices must be distinct and "
                         "non-negative, got ")
             << formatSizes(operands);
  for (auto [dim, loop] : llvm::enumerate(state.dims))
    if (ShapedType::isDynamic(loop.extent))
      return emitOpError("loop d")
             << dim << " has a dynamic extent; tile it to a static size first";
  if (state.isGpuMapped())
    return applyGpuPad(*this, state);
  // Every named anchor has two inputs and one output; a linalg.generic's
  // operands are known only to the lowering, which checks the same.
  if (state.anchor->anchorClass != AnchorClass::Generic &&
      !state.splitReduction) {
    constexpr int64_t numInputs = 2, numOperands = 3;
    for (int64_t operand : operands) {
      if (operand >= numOperands)
        return emitOpError("operand ")
               << operand << " is out of range: " << state.anchorName << " has "
               << numOperands << " operands";
      if (getHoist().value_or(0) > 0 && operand >= numInputs)
        return emitOpError(getOutputHoistMessage(operand));
    }
  }
  // MLIR's hoist_pad moves a copy out of the scf.for loops of the tile
  // level it sits in, not out of an scf.forall nor into an enclosing level,
  // where that level's slices of the tile are taken (it fails there).
  if (std::optional<uint64_t> hoist = getHoist(); hoist && *hoist > 0) {
    const TileLevel &innermost = state.levels.back();
    if (innermost.parallel)
      return emitOpError("hoist ")
             << *hoist
             << ": the innermost tile level is a parallel scf.forall, out of "
                "which a copy cannot be hoisted; tile sequentially inside it "
                "first, or pad without hoist";
    SmallVector<int64_t> loopDims = innermost.loopDims();
    size_t numLoops = loopDims.size();
    if (*hoist > numLoops)
      return emitOpError("hoist ")
             << *hoist << " exceeds the " << numLoops
             << " loops of the innermost tile level (a copy cannot be "
                "hoisted out of an enclosing tile level)";
    // A copy hoisted out of a level that loops over reductions only (a
    // matmul tiled along k alone) leaves a loop nest that one-shot
    // bufferization refuses ("cannot avoid RaW conflict").
    bool loopsParallel = false, loopsReduction = false;
    for (int64_t dim : loopDims) {
      if (innermost.tripCounts[dim] == 1)
        continue;
      (innermost.kinds[dim] == LoopKind::Reduction ? loopsReduction
                                                   : loopsParallel) = true;
    }
    if (loopsReduction && !loopsParallel)
      return emitOpError("hoist ")
             << *hoist
             << ": the innermost tile level loops over reductions only, and "
                "a copy hoisted out of such loops cannot be bufferized; tile "
                "a parallel dimension at this level too, or pad without "
                "hoist";
  }
  for (LoopDim &loop : state.dims)
    loop.evenlyTiled = true;
  state.padded = true;
  return success();
}

LogicalResult VectorizeOp::applyToState(ScheduleState &state) {
  if (failed(requireBeforeVectorize(*this, state)))
    return failure();
  for (auto [dim, loop] : llvm::enumerate(state.dims))
    if (ShapedType::isDynamic(loop.extent))
      return emitOpError("loop d")
             << dim << " ("
             << (loop.kind == LoopKind::Reduction ? "reduction" : "parallel")
             << ") is untiled with a dynamic extent; tile it to a static "
                "size first";
  if (!state.anchor->vectorizable && !state.decomposed)
    return emitOpError(state.anchorName)
           << " has a 2-D window that MLIR does not vectorize; tile the "
              "output and kernel height (or width) to 1 and decompose first";
  bool partial = llvm::any_of(
      state.dims, [](const LoopDim &loop) { return !loop.evenlyTiled; });
  if (partial && state.decomposed)
    return emitOpError("partial tiles of ")
           << state.anchorName
           << " cannot be vectorized: a parallel tile level (or a dynamic "
              "extent) leaves tiles whose size is known only at run time, and "
              "padding a convolution's window is not supported; choose "
              "parallel tile sizes that divide the extents";
  int64_t volume = state.innermostTileVolume();
  if (volume > kMaxVectorVolume)
    return emitOpError("the innermost tile has ")
           << volume << " elements "
           << formatSizes(llvm::map_to_vector(
                  state.dims, [](const LoopDim &dim) { return dim.extent; }))
           << "; tile to at most " << kMaxVectorVolume << " first";
  state.vectorized = true;
  return success();
}

LogicalResult UnrollOp::applyToState(ScheduleState &state) {
  // A GPU kernel's loops stay scalar: there, unrolling ends the schedule
  // instead (a later primitive would act on one copy of the loop body).
  if (state.isGpuMapped()) {
    for (Operation *next = getOperation()->getNextNode(); next;
         next = next->getNextNode())
      if (!isa<UnrollOp>(next))
        return emitOpError("must be followed by nothing but unrolls in a "
                           "GPU schedule; ")
               << next->getName() << " follows";
  } else if (failed(requireAfterVectorize(*this, state))) {
    return failure();
  }
  uint64_t levelIndex = getLevel(), dim = getDim();
  if (levelIndex >= state.levels.size())
    return emitOpError("level ")
           << levelIndex << " does not exist; the "
           << "schedule has " << state.levels.size() << " tile levels";
  TileLevel &level = state.levels[levelIndex];
  if (dim >= level.sizes.size())
    return emitOpError("loop d")
           << dim << " is out of range: tile level " << levelIndex << " has "
           << level.sizes.size() << " loop dimensions";
  if (level.sizes[dim] == 0)
    return emitOpError("loop d") << dim << " is not tiled at tile level "
                                 << levelIndex << ", so it has no loop";
  if (level.parallel)
    return emitOpError("tile level ")
           << levelIndex << " is a parallel scf.forall; unroll a sequential "
           << "loop";
  int64_t tripCount = level.tripCounts[dim];
  if (!ShapedType::isDynamic(tripCount) && getFactor() > (uint64_t)tripCount)
    return emitOpError("factor ")
           << getFactor() << " exceeds the trip count " << tripCount
           << " of loop d" << dim << " at tile level " << levelIndex;
  // An unrolled loop's copies of inner loops are new operations; unrolling
  // must therefore go from the innermost loop outwards.
  SmallVector<int64_t> order = level.loopDims();
  int64_t position = llvm::find(order, (int64_t)dim) - order.begin();
  for (Operation *prev = getOperation()->getPrevNode(); prev;
       prev = prev->getPrevNode()) {
    auto other = dyn_cast<UnrollOp>(prev);
    if (!other)
      continue;
    if (other.getLevel() == levelIndex && other.getDim() == dim)
      return emitOpError("loop d") << dim << " of tile level " << levelIndex
                                   << " is already unrolled";
    SmallVector<int64_t> otherOrder = state.levels[other.getLevel()].loopDims();
    int64_t otherPosition =
        llvm::find(otherOrder, (int64_t)other.getDim()) - otherOrder.begin();
    if (std::make_pair(levelIndex, position) <
        std::make_pair(other.getLevel(), otherPosition))
      return emitOpError("must unroll inner loops first: loop d")
             << dim << " of tile level " << levelIndex
             << " encloses the already unrolled loop d" << other.getDim()
             << " of tile level " << other.getLevel();
  }
  return success();
}

LogicalResult HoistAccumulatorsOp::applyToState(ScheduleState &state) {
  if (failed(requireAfterVectorize(*this, state)))
    return failure();
  if (state.hoisted)
    return emitOpError("accumulators are already hoisted");
  for (Operation *prev = getOperation()->getPrevNode(); prev;
       prev = prev->getPrevNode())
    if (isa<UnrollOp>(prev))
      return emitOpError("must precede tcl.sched.unroll, which may remove the "
                         "loop it hoists out of");
  if (state.levels.empty())
    return emitOpError("needs a tile level whose innermost loop is a "
                       "reduction; the schedule has none");
  const TileLevel &level = state.levels.back();
  unsigned index = state.levels.size() - 1;
  if (level.parallel)
    return emitOpError("tile level ")
           << index << " is a parallel scf.forall; accumulators are hoisted "
           << "out of a sequential reduction loop";
  int64_t innermost = level.loopDims().back();
  if (level.kinds[innermost] != LoopKind::Reduction)
    return emitOpError("the innermost loop of tile level ")
           << index << " runs over d" << innermost
           << " (parallel); accumulators are loop-invariant only across a "
              "reduction loop";
  state.hoisted = true;
  return success();
}

#define GET_OP_CLASSES
#include "tcl/Dialect/Tcl/IR/TclSchedOps.cpp.inc"

#include "tcl/Dialect/Tcl/IR/TclInterfaces.cpp.inc"
