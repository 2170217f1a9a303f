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
static_assert(kScalarCol + kNumScalars == Tokenizer::kTokenWidth,
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
  for (Value operand : anchor->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type || !type.hasStaticShape())
      continue;
    features.bytes += static_cast<double>(type.getNumElements()) *
                      llvm::divideCeil(type.getElementTypeBitWidth(), 8);
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
          token[kScalarCol + kParallel] = level.parallel ? 1 : 0;
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
          token[kScalarCol + kParallel] = level.parallel ? 1 : 0;
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
