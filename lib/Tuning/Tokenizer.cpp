//===- Tokenizer.cpp - Schedules as token matrices ------------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/Tokenizer.h"
#include "tcl/Target/Platform.h"
#include "tcl/Transforms/TaskExtraction.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tcl;

namespace {
// Column offsets; see the layout in Tokenizer.h.
constexpr unsigned kKindCol = 0;
constexpr unsigned kParamCol = kKindCol + kNumPrimitiveKinds;
constexpr unsigned kTouchedCol = kParamCol + Tokenizer::kMaxDims;
constexpr unsigned kExtentCol = kTouchedCol + Tokenizer::kMaxDims;
constexpr unsigned kScalarCol = kExtentCol + Tokenizer::kMaxDims;
enum Scalar : unsigned {
  kLevel = 0,
  kLogFactor,
  kPaddedOperands,
  kHoistedLoops,
  kNumDims,
  kParallel,
  kNumScalars
};
constexpr unsigned kPartialCol = kScalarCol + kNumScalars;
constexpr unsigned kDerivedCol = kPartialCol + Tokenizer::kMaxDims;
enum Derived : unsigned {
  kTileIterations = 0,
  kTileCount,
  kFootprint,
  kFitsL1,
  kFitsL2,
  kThreadBalance,
  kAccumulatorVectors,
  kRegisterPressure,
  kPartialVector,
  kNumDerived
};
static_assert(kDerivedCol + kNumDerived == Tokenizer::kTokenWidth,
              "token layout and kTokenWidth disagree");

constexpr unsigned kTaskCol = Tokenizer::kTokenWidth;
constexpr unsigned kHardwareCol = kTaskCol + Tokenizer::kTaskWidth;
static_assert(kHardwareCol + Tokenizer::kHardwareWidth == Tokenizer::kWidth,
              "row layout and kWidth disagree");
static_assert(kNumAnchorClasses + 4 + Tokenizer::kMaxDims + 1 ==
                  Tokenizer::kTaskWidth,
              "task layout and kTaskWidth disagree");
static_assert(kNumIsaLevels + 10 == Tokenizer::kHardwareWidth,
              "hardware layout and kHardwareWidth disagree");
} // namespace

static float log2p1(double value) {
  return value > 0 ? static_cast<float>(std::log2(1.0 + value)) : 0.0f;
}

static float logExtent(int64_t extent) {
  return ShapedType::isDynamic(extent) ? 0.0f : log2p1(extent);
}

/// The parallel-level column: 0 for a sequential level, 1 for one run on
/// the CPU's threads or a GPU's blocks, 2 for one run on a GPU block's
/// threads. (CPU programs read as before GPU mappings existed.)
static float getParallelColumn(const TileLevel &level) {
  if (!level.parallel)
    return 0;
  return level.mapping == ParallelMapping::GpuThreads ? 2 : 1;
}

/// The derived columns of a tile token: what one tile of `sizes` over the
/// domain `before` costs in iterations, tiles, cache and threads.
static void describeTile(float *token, const ScheduleState &before,
                         ArrayRef<int64_t> sizes, bool parallel,
                         const TaskFeatures &task,
                         const HardwareFeatures &hardware) {
  SmallVector<int64_t> tileExtents;
  double iterations = 1, tiles = 1;
  bool known = true;
  for (auto [dim, loop] : llvm::enumerate(before.dims)) {
    int64_t size = dim < sizes.size() ? sizes[dim] : 0;
    if (ShapedType::isDynamic(loop.extent)) {
      known = false;
      if (size != 0 && dim < Tokenizer::kMaxDims)
        token[kPartialCol + dim] = 1;
      tileExtents.push_back(size == 0 ? ShapedType::kDynamic : size);
      continue;
    }
    int64_t extent = size == 0 ? loop.extent : std::min(size, loop.extent);
    if (loop.extent % extent != 0 && dim < Tokenizer::kMaxDims)
      token[kPartialCol + dim] = 1;
    tileExtents.push_back(extent);
    iterations *= extent;
    tiles *= llvm::divideCeil(loop.extent, extent);
  }
  if (!known)
    return;
  token[kDerivedCol + kTileIterations] = log2p1(iterations);
  token[kDerivedCol + kTileCount] = log2p1(tiles);
  // Before decompose and split_reduction the domain is the anchor's.
  if (!before.decomposed && !before.splitReduction &&
      before.getNumDims() == task.extents.size()) {
    double footprint = task.getFootprintBytes(tileExtents);
    token[kDerivedCol + kFootprint] = log2p1(footprint);
    token[kDerivedCol + kFitsL1] =
        footprint > 0 && footprint <= hardware.l1KiB * 1024 ? 1 : 0;
    token[kDerivedCol + kFitsL2] =
        footprint > 0 && footprint <= hardware.l2KiB * 1024 ? 1 : 0;
  }
  if (parallel)
    token[kDerivedCol + kThreadBalance] =
        static_cast<float>(getParallelBalance(tiles, hardware.threads));
}

/// The derived columns of a vectorize token: the accumulators of the
/// innermost tile `before`, vectorized along its last parallel dimension
/// (the output channel of a convolution, the columns of a matmul).
static void describeVectors(float *token, const ScheduleState &before,
                            unsigned lanes, unsigned registers) {
  std::optional<int64_t> vectorExtent;
  double otherElements = 1;
  for (const LoopDim &loop : llvm::reverse(before.dims)) {
    if (loop.kind != LoopKind::Parallel)
      continue;
    if (ShapedType::isDynamic(loop.extent) || lanes == 0)
      return;
    if (!vectorExtent)
      vectorExtent = loop.extent;
    else
      otherElements *= loop.extent;
  }
  if (!vectorExtent)
    return;
  double accumulators =
      otherElements * llvm::divideCeil(*vectorExtent, int64_t(lanes));
  token[kDerivedCol + kAccumulatorVectors] = log2p1(accumulators);
  if (registers > 0)
    token[kDerivedCol + kRegisterPressure] =
        static_cast<float>(accumulators / registers);
  token[kDerivedCol + kPartialVector] = *vectorExtent % lanes != 0 ? 1 : 0;
}

PrimitiveKind mlir::tcl::getPrimitiveKind(Operation *op) {
  return llvm::TypeSwitch<Operation *, PrimitiveKind>(op)
      .Case([](TileOp) { return PrimitiveKind::Tile; })
      .Case([](InterchangeOp) { return PrimitiveKind::Interchange; })
      .Case([](ParallelizeOp) { return PrimitiveKind::Parallelize; })
      .Case([](FuseEpilogueOp) { return PrimitiveKind::FuseEpilogue; })
      .Case([](DecomposeOp) { return PrimitiveKind::Decompose; })
      .Case([](SplitReductionOp) { return PrimitiveKind::SplitReduction; })
      .Case([](PadOp) { return PrimitiveKind::Pad; })
      .Case([](VectorizeOp) { return PrimitiveKind::Vectorize; })
      .Case([](UnrollOp) { return PrimitiveKind::Unroll; })
      .Case(
          [](HoistAccumulatorsOp) { return PrimitiveKind::HoistAccumulators; });
}

/// Adds the terms of `expr`, a sum of loop dimensions times constants, to
/// `terms`. Other expressions (mod, floordiv) count each of their dimensions
/// once, which overestimates what a tile touches but never misses a
/// dimension.
static void
collectAccessTerms(AffineExpr expr, int64_t scale,
                   SmallVectorImpl<std::pair<unsigned, int64_t>> &terms) {
  if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
    terms.emplace_back(dim.getPosition(), scale);
    return;
  }
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary)
    return; // A constant or symbol: no extent.
  if (binary.getKind() == AffineExprKind::Add) {
    collectAccessTerms(binary.getLHS(), scale, terms);
    collectAccessTerms(binary.getRHS(), scale, terms);
    return;
  }
  if (binary.getKind() == AffineExprKind::Mul) {
    if (auto factor = dyn_cast<AffineConstantExpr>(binary.getRHS())) {
      collectAccessTerms(binary.getLHS(), scale * factor.getValue(), terms);
      return;
    }
  }
  expr.walk([&](AffineExpr inner) {
    if (auto dim = dyn_cast<AffineDimExpr>(inner))
      terms.emplace_back(dim.getPosition(), 1);
  });
}

double TaskFeatures::getFootprintBytes(ArrayRef<int64_t> tileExtents) const {
  double total = 0;
  for (const OperandAccess &operand : operands) {
    double elements = 1;
    for (const auto &terms : operand.results) {
      // A sum of dimensions spans (coefficient * (extent - 1)) per term.
      double span = 1;
      for (auto [dim, coefficient] : terms) {
        if (dim >= tileExtents.size() ||
            ShapedType::isDynamic(tileExtents[dim]))
          return 0;
        span += std::abs(coefficient) * (tileExtents[dim] - 1);
      }
      elements *= span;
    }
    total += elements * operand.elementBytes;
  }
  return total;
}

FailureOr<TaskFeatures> TaskFeatures::fromAnchor(linalg::LinalgOp anchor) {
  const AnchorInfo *info = lookupAnchor(anchor);
  if (!info || !anchor.hasPureTensorSemantics())
    return failure();
  TaskFeatures features;
  features.anchorClass = info->anchorClass;
  features.extents = anchor.getStaticLoopRanges();
  features.numReductionLoops = anchor.getNumReductionLoops();
  if (llvm::any_of(features.extents, ShapedType::isDynamic))
    return failure();
  features.flops = countFlops(anchor);
  for (OpOperand &operand : anchor->getOpOperands()) {
    auto type = dyn_cast<ShapedType>(operand.get().getType());
    if (!type)
      continue; // A scalar operand (a fill value) occupies no cache lines.
    OperandAccess access;
    access.elementBytes = llvm::divideCeil(type.getElementTypeBitWidth(), 8);
    if (type.hasStaticShape())
      features.bytes +=
          static_cast<double>(type.getNumElements()) * access.elementBytes;
    for (AffineExpr result :
         anchor.getMatchingIndexingMap(&operand).getResults())
      collectAccessTerms(result, 1, access.results.emplace_back());
    features.operands.push_back(std::move(access));
  }
  return features;
}

FailureOr<std::vector<float>>
Tokenizer::tokenize(ScheduleOp schedule, const TaskFeatures &task,
                    const HardwareFeatures *hardware) const {
  const TargetArch *platform = lookupTargetArch(schedule.getTarget());
  FailureOr<ScheduleState> finalState = schedule.replay();
  FailureOr<ScheduleState> state = schedule.getInitialState();
  if (!platform || failed(finalState) || failed(state))
    return failure();

  std::vector<float> matrix(static_cast<size_t>(maxLength) * kWidth, 0.0f);

  // The task and hardware parts, shared by every non-padding row.
  std::vector<float> context(kTaskWidth + kHardwareWidth, 0.0f);
  context[static_cast<unsigned>(task.anchorClass)] = 1;
  unsigned col = kNumAnchorClasses;
  context[col++] = log2p1(task.flops);
  context[col++] = log2p1(task.bytes);
  context[col++] = task.extents.size();
  context[col++] = task.numReductionLoops;
  bool dynamic = false;
  for (auto [dim, extent] : llvm::enumerate(task.extents)) {
    dynamic |= ShapedType::isDynamic(extent);
    if (dim < kMaxDims)
      context[col + dim] = logExtent(extent);
  }
  col += kMaxDims;
  context[col++] = dynamic ? 1 : 0;
  HardwareFeatures known =
      hardware ? *hardware : HardwareFeatures::fromTarget(*platform, 1);
  context[kTaskWidth + static_cast<unsigned>(platform->isa)] = 1;
  col = kTaskWidth + kNumIsaLevels;
  context[col++] = log2p1(platform->vectorBits);
  context[col++] = platform->kind == TargetKind::GPU ? 1 : 0;
  context[col++] = log2p1(known.threads);
  context[col++] = log2p1(known.cores);
  context[col++] = known.vectorRegisters / 8.0f;
  context[col++] = log2p1(known.l1KiB);
  context[col++] = log2p1(known.l2KiB);
  context[col++] = log2p1(known.l3KiB);
  context[col++] = log2p1(known.peakGflops);
  context[col++] = log2p1(known.bandwidthGBs);

  unsigned row = 0, levelIndex = 0;
  for (Operation &op : schedule.getBody().front()) {
    if (row == maxLength)
      break;
    ScheduleState before = *state;
    if (failed(cast<SchedulePrimitiveOpInterface>(op).applyToState(*state)))
      return failure();
    float *token = &matrix[static_cast<size_t>(row) * kWidth];
    auto setDim = [&](unsigned base, int64_t dim, float value) {
      if (dim >= 0 && dim < kMaxDims)
        token[base + dim] = value;
    };
    token[kKindCol + static_cast<unsigned>(getPrimitiveKind(&op))] = 1;
    for (auto [dim, loop] : llvm::enumerate(before.dims))
      setDim(kExtentCol, dim, logExtent(loop.extent));
    token[kScalarCol + kNumDims] = before.getNumDims();

    // The tile level configured by attached primitives (the latest one).
    unsigned currentLevel = levelIndex == 0 ? 0 : levelIndex - 1;
    llvm::TypeSwitch<Operation *>(&op)
        .Case([&](TileOp tile) {
          for (auto [dim, size] : llvm::enumerate(tile.getSizes())) {
            setDim(kParamCol, dim, log2p1(size));
            setDim(kTouchedCol, dim, size != 0);
          }
          const TileLevel &level = finalState->levels[levelIndex];
          token[kScalarCol + kLevel] = levelIndex;
          token[kScalarCol + kParallel] = getParallelColumn(level);
          describeTile(token, before, tile.getSizes(), level.parallel, task,
                       known);
          ++levelIndex;
        })
        .Case([&](InterchangeOp interchange) {
          for (auto [position, dim] :
               llvm::enumerate(interchange.getPermutation())) {
            setDim(kParamCol, dim, position);
            setDim(kTouchedCol, dim, (int64_t)position != dim);
          }
          token[kScalarCol + kLevel] = currentLevel;
        })
        .Case<ParallelizeOp, FuseEpilogueOp>([&](Operation *) {
          const TileLevel &level = finalState->levels[currentLevel];
          for (int64_t dim : level.loopDims())
            setDim(kTouchedCol, dim, 1);
          token[kScalarCol + kLevel] = currentLevel;
          token[kScalarCol + kParallel] = getParallelColumn(level);
        })
        .Case([&](DecomposeOp) {
          // The dimensions that disappeared.
          for (auto [dim, loop] : llvm::enumerate(before.dims))
            setDim(kTouchedCol, dim, loop.extent == 1 ? 1 : 0);
        })
        .Case([&](SplitReductionOp split) {
          for (auto [dim, loop] : llvm::enumerate(before.dims))
            setDim(kTouchedCol, dim, loop.kind == LoopKind::Reduction);
          token[kScalarCol + kLogFactor] = std::log2(split.getFactor());
        })
        .Case([&](PadOp pad) {
          token[kScalarCol + kPaddedOperands] = pad.getOperands().size();
          token[kScalarCol + kHoistedLoops] = pad.getHoist().value_or(0);
        })
        .Case([&](VectorizeOp) {
          for (auto [dim, loop] : llvm::enumerate(before.dims)) {
            setDim(kParamCol, dim, logExtent(loop.extent));
            setDim(kTouchedCol, dim, 1);
          }
          describeVectors(token, before, platform->vectorBits / 32,
                          known.vectorRegisters);
        })
        .Case([&](UnrollOp unroll) {
          setDim(kParamCol, unroll.getDim(), std::log2(unroll.getFactor()));
          setDim(kTouchedCol, unroll.getDim(), 1);
          token[kScalarCol + kLevel] = unroll.getLevel();
          token[kScalarCol + kLogFactor] = std::log2(unroll.getFactor());
        })
        .Case([&](HoistAccumulatorsOp) {
          const TileLevel &last = finalState->levels.back();
          setDim(kTouchedCol, last.loopDims().back(), 1);
          token[kScalarCol + kLevel] = finalState->levels.size() - 1;
        });
    std::copy(context.begin(), context.end(), token + kTaskCol);
    ++row;
  }
  return matrix;
}
