//===- SearchSpace.cpp - Sketches and random schedules of a task ----------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/SearchSpace.h"
#include "tcl/Support/GroupedConv.h"
#include "tcl/Transforms/DefaultSchedule.h"
#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/StringExtras.h"

#include <functional>

using namespace mlir;
using namespace mlir::tcl;

namespace {
/// Knob values of the sketches.
enum MatmulKnob { kParallel = 0, kOrder, kPackB, kUnroll };
/// Cache-level loop orders of a matmul (interchange of m, n, k).
const int64_t kMatmulOrders[][3] = {{0, 1, 2}, {1, 0, 2}, {1, 2, 0}};
/// (`slice` is a full convolution's, `blocks` a filter-blocked one's.)
enum WindowKnob { kWindowParallel = 0, kWindowSlice, kWindowBlocks = 1 };
/// Slices of a full convolution's input channels (knob `slice`): a cache
/// tile of the register tile's output channels and this many input
/// channels, whose weights stay in cache while every output position of the
/// outer tile uses them (the default schedules' slice,
/// kConvWeightSliceBytes); 0 takes all input channels at once.
const int64_t kInputChannelSlices[] = {16, 32, 64, 128, 256};
enum GenericKnob { kGenericParallel = 0, kVectorize };

std::vector<int64_t> divisorsOf(int64_t n) {
  std::vector<int64_t> result;
  for (int64_t d = 1; d <= n; ++d)
    if (n % d == 0)
      result.push_back(d);
  return result;
}

/// Largest innermost tile (elements): the innermost level is unrolled into
/// vector code, and a bigger tile takes minutes to compile for no gain.
constexpr int64_t kMaxInnermostTile = 4096;

template <typename T>
const T &choose(const std::vector<T> &values, std::mt19937_64 &rng) {
  return values[std::uniform_int_distribution<size_t>(0,
                                                      values.size() - 1)(rng)];
}
} // namespace

//===----------------------------------------------------------------------===//
// Genome
//===----------------------------------------------------------------------===//

std::string Genome::str() const {
  std::string text;
  for (auto [level, sizes] : llvm::enumerate(tiles)) {
    if (level)
      text += "|";
    text += llvm::join(
        llvm::map_range(sizes, [](int64_t v) { return std::to_string(v); }),
        ",");
  }
  text += ";";
  text += llvm::join(
      llvm::map_range(knobs, [](int64_t v) { return std::to_string(v); }), ",");
  return text;
}

std::optional<Genome> Genome::parse(llvm::StringRef text) {
  auto [tilesText, knobsText] = text.split(';');
  auto numbers = [](llvm::StringRef list, std::vector<int64_t> &out) -> bool {
    if (list.empty())
      return true;
    llvm::SmallVector<llvm::StringRef> parts;
    list.split(parts, ',');
    for (llvm::StringRef part : parts) {
      int64_t value;
      if (part.getAsInteger(10, value))
        return false;
      out.push_back(value);
    }
    return true;
  };
  Genome genome;
  llvm::SmallVector<llvm::StringRef> levels;
  tilesText.split(levels, '|');
  for (llvm::StringRef level : levels) {
    genome.tiles.emplace_back();
    if (!numbers(level, genome.tiles.back()))
      return std::nullopt;
  }
  if (!numbers(knobsText, genome.knobs))
    return std::nullopt;
  return genome;
}

//===----------------------------------------------------------------------===//
// SearchSpace
//===----------------------------------------------------------------------===//

std::unique_ptr<SearchSpace> SearchSpace::create(linalg::LinalgOp anchor,
                                                 const Platform &platform,
                                                 bool hasEpilogue) {
  StringRef opName = getAnchorName(anchor);
  const AnchorInfo *info = lookupAnchor(opName);
  if (!info)
    return nullptr;
  SmallVector<int64_t> ranges = anchor.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return nullptr;
  std::unique_ptr<SearchSpace> space(new SearchSpace());
  space->anchorClass = info->anchorClass;
  space->anchorName = opName.str();
  space->target = platform.getTargetName().str();
  space->extents.assign(ranges.begin(), ranges.end());
  space->hasEpilogue = hasEpilogue;
  for (utils::IteratorType kind : anchor.getIteratorTypesArray())
    space->loopKinds.push_back(kind == utils::IteratorType::reduction ? 'r'
                                                                      : 'p');
  unsigned numDims = ranges.size();
  using R = Rule;
  if (platform.getTarget().kind == TargetKind::GPU) {
    if (!space->setUpGpuSketch(info->anchorClass))
      return nullptr; // Nothing to spread over blocks.
    return space;
  }
  std::vector<int64_t> parallelChoices = platform.getThreads() > 1
                                             ? std::vector<int64_t>{0, 1}
                                             : std::vector<int64_t>{0};
  switch (info->anchorClass) {
  case AnchorClass::Matmul:
  case AnchorClass::BatchMatmul: {
    unsigned b = info->anchorClass == AnchorClass::BatchMatmul ? 1 : 0;
    space->batchDims = b;
    std::vector<R> outer(numDims, R::Free), cache(numDims, R::Free),
        reg(numDims, R::Free);
    outer[b + 2] = R::Parent; // k is never split across threads
    if (b)
      cache[0] = reg[0] = R::One;
    reg[b + 2] = R::One; // the k loop carries the accumulators
    space->rules = {outer, cache, reg};
    space->knobNames = {"parallel", "order", "pack_b", "unroll"};
    space->knobChoices = {
        parallelChoices,
        b ? std::vector<int64_t>{0} : std::vector<int64_t>{0, 1, 2},
        b ? std::vector<int64_t>{0} : std::vector<int64_t>{0, 1},
        {1, 2, 4, 8}};
    break;
  }
  case AnchorClass::Conv2D:
  case AnchorClass::DepthwiseConv2D:
  case AnchorClass::Pool2D: {
    unsigned row = info->heightDims->output;
    unsigned column = info->widthDims->output;
    unsigned channel = *info->channelDim;
    std::vector<R> outer(numDims, R::Parent), inner(numDims, R::Parent);
    outer[row] = outer[channel] = R::Free;
    inner[0] = inner[row] = inner[info->heightDims->window] = R::One;
    inner[column] = inner[channel] = R::Free;
    if (info->inputChannelDim) {
      inner[*info->inputChannelDim] = R::One;
      inner[info->widthDims->window] = R::One;
    }
    // Threads may split groups; decompose needs one group per inner tile.
    if (info->groupDim) {
      outer[*info->groupDim] = R::Free;
      inner[*info->groupDim] = R::One;
    }
    space->rules = {outer, inner};
    space->knobNames = {"parallel"};
    space->knobChoices = {parallelChoices};
    space->columnDim = column;
    space->channelDim = channel;
    space->kernelColumnDim = info->widthDims->window;
    space->lanes = std::max<int64_t>(1, platform.getTarget().vectorBits / 32);
    space->vectorRegisters = HardwareFeatures::fromTarget(platform.getTarget(),
                                                          platform.getThreads())
                                 .vectorRegisters;
    if (info->inputChannelDim && !info->groupDim) {
      space->inputChannelDim = *info->inputChannelDim;
      int64_t inputChannels = ranges[*info->inputChannelDim];
      std::vector<int64_t> slices = {0};
      for (int64_t slice : kInputChannelSlices)
        if (slice < inputChannels && inputChannels % slice == 0)
          slices.push_back(slice);
      space->knobNames.push_back("slice");
      space->knobChoices.push_back(slices);
    }
    if (opName == kFilterBlockedConvAnchorName) {
      space->blockDim = *info->groupDim;
      space->knobNames.push_back("blocks");
      space->knobChoices.push_back({0, 1});
    }
    break;
  }
  case AnchorClass::Generic: {
    std::vector<R> outer(numDims, R::Parent), inner(numDims, R::One);
    for (unsigned d = 0; d < numDims; ++d)
      if (space->loopKinds[d] == 'p')
        outer[d] = R::Free;
    inner[numDims - 1] = R::Free;
    space->rules = {outer, inner};
    space->knobNames = {"parallel", "vectorize"};
    space->knobChoices = {parallelChoices, isVectorizableGeneric(anchor)
                                               ? std::vector<int64_t>{0, 1}
                                               : std::vector<int64_t>{0}};
    break;
  }
  case AnchorClass::Conv1D:
    return nullptr;
  }
  return space;
}

bool SearchSpace::isPeeledLevel(const Genome &genome, unsigned level) const {
  // A GPU's block and thread levels are foralls; so are their tiles full.
  if (gpu)
    return level >= 2;
  // Only the outer level can be parallel, by the first knob.
  return !(level == 0 && !knobNames.empty() &&
           knobNames.front() == "parallel" && !genome.knobs.empty() &&
           genome.knobs.front() != 0);
}

std::vector<int64_t> SearchSpace::getTileChoices(int64_t parent,
                                                 bool peeled) const {
  std::vector<int64_t> choices = divisorsOf(parent);
  if (!peeled)
    return choices;
  for (int64_t size = 1; size < parent; size *= 2)
    if (parent % size != 0)
      choices.push_back(size);
  llvm::sort(choices);
  return choices;
}

int64_t SearchSpace::pick(Rule rule, int64_t parent, bool peeled,
                          std::mt19937_64 &rng) const {
  switch (rule) {
  case Rule::Parent:
    return parent;
  case Rule::One:
    return 1;
  case Rule::Free:
    return choose(getTileChoices(parent, peeled), rng);
  }
  llvm_unreachable("unknown rule");
}

Genome SearchSpace::sample(std::mt19937_64 &rng) const {
  // Draw until the innermost tile is small enough (almost always at once).
  Genome genome = sampleOnce(rng);
  for (int attempt = 0; attempt < 64 && !isWellFormed(genome); ++attempt)
    genome = sampleOnce(rng);
  return genome;
}

Genome SearchSpace::sampleOnce(std::mt19937_64 &rng) const {
  Genome genome;
  // Knobs first: whether the outer level is parallel decides its sizes.
  for (const std::vector<int64_t> &choices : knobChoices)
    genome.knobs.push_back(choose(choices, rng));
  std::vector<int64_t> parent = extents;
  for (auto [index, level] : llvm::enumerate(rules)) {
    bool peeled = isPeeledLevel(genome, index);
    std::vector<int64_t> sizes;
    for (auto [dim, rule] : llvm::enumerate(level))
      sizes.push_back(pick(rule, parent[dim], peeled, rng));
    genome.tiles.push_back(sizes);
    parent = sizes;
  }
  return genome;
}

void SearchSpace::refit(Genome &genome, unsigned fromLevel, unsigned dim,
                        std::mt19937_64 &rng) const {
  for (unsigned level = fromLevel; level < rules.size(); ++level) {
    int64_t parent = level ? genome.tiles[level - 1][dim] : extents[dim];
    int64_t &size = genome.tiles[level][dim];
    bool peeled = isPeeledLevel(genome, level);
    std::vector<int64_t> choices = getTileChoices(parent, peeled);
    if (rules[level][dim] == Rule::Free && llvm::is_contained(choices, size))
      continue;
    // Keep the closest allowed size at or below the old one.
    if (rules[level][dim] == Rule::Free) {
      int64_t best = 1;
      for (int64_t choice : choices)
        if (choice <= size)
          best = choice;
      size = best;
    } else {
      size = pick(rules[level][dim], parent, peeled, rng);
    }
  }
}

Genome SearchSpace::mutate(const Genome &genome, std::mt19937_64 &rng) const {
  // Retry the rare change that makes the innermost tile too large.
  for (int attempt = 0; attempt < 16; ++attempt) {
    Genome child = mutateOnce(genome, rng);
    if (isWellFormed(child))
      return child;
  }
  return genome;
}

Genome SearchSpace::mutateOnce(const Genome &genome,
                               std::mt19937_64 &rng) const {
  Genome child = genome;
  std::vector<std::pair<unsigned, unsigned>> freeEntries;
  for (auto [level, dims] : llvm::enumerate(rules))
    for (auto [dim, rule] : llvm::enumerate(dims))
      if (rule == Rule::Free) {
        int64_t parent = level ? genome.tiles[level - 1][dim] : extents[dim];
        if (getTileChoices(parent, isPeeledLevel(genome, level)).size() > 1)
          freeEntries.push_back({level, dim});
      }
  std::vector<unsigned> knobs;
  for (auto [index, choices] : llvm::enumerate(knobChoices))
    if (choices.size() > 1)
      knobs.push_back(index);
  size_t options = freeEntries.size() + knobs.size();
  if (options == 0)
    return child;
  size_t which = std::uniform_int_distribution<size_t>(0, options - 1)(rng);
  if (which < freeEntries.size()) {
    auto [level, dim] = freeEntries[which];
    int64_t parent = level ? child.tiles[level - 1][dim] : extents[dim];
    std::vector<int64_t> others;
    for (int64_t size : getTileChoices(parent, isPeeledLevel(child, level)))
      if (size != child.tiles[level][dim])
        others.push_back(size);
    child.tiles[level][dim] = choose(others, rng);
    refit(child, level + 1, dim, rng);
  } else {
    unsigned knob = knobs[which - freeEntries.size()];
    std::vector<int64_t> others;
    for (int64_t v : knobChoices[knob])
      if (v != child.knobs[knob])
        others.push_back(v);
    child.knobs[knob] = choose(others, rng);
    // A level made parallel takes sizes that divide.
    for (unsigned dim = 0; dim < extents.size(); ++dim)
      refit(child, 0, dim, rng);
  }
  return child;
}

Genome SearchSpace::crossover(const Genome &a, const Genome &b,
                              std::mt19937_64 &rng) const {
  for (int attempt = 0; attempt < 16; ++attempt) {
    Genome child = crossoverOnce(a, b, rng);
    if (isWellFormed(child))
      return child;
  }
  return a;
}

Genome SearchSpace::crossoverOnce(const Genome &a, const Genome &b,
                                  std::mt19937_64 &rng) const {
  Genome child = a;
  std::bernoulli_distribution coin(0.5);
  for (size_t dim = 0; dim < extents.size(); ++dim)
    if (coin(rng))
      for (size_t level = 0; level < rules.size(); ++level)
        child.tiles[level][dim] = b.tiles[level][dim];
  for (size_t knob = 0; knob < knobChoices.size(); ++knob)
    if (coin(rng))
      child.knobs[knob] = b.knobs[knob];
  return child;
}

bool SearchSpace::isWellFormed(const Genome &genome) const {
  if (genome.tiles.size() != rules.size() ||
      genome.knobs.size() != knobChoices.size())
    return false;
  for (size_t level = 0; level < rules.size(); ++level) {
    if (genome.tiles[level].size() != extents.size())
      return false;
    bool peeled = isPeeledLevel(genome, level);
    for (size_t dim = 0; dim < extents.size(); ++dim) {
      int64_t parent = level ? genome.tiles[level - 1][dim] : extents[dim];
      int64_t size = genome.tiles[level][dim];
      if (size <= 0 || size > parent || (!peeled && parent % size != 0))
        return false;
    }
  }
  for (size_t knob = 0; knob < knobChoices.size(); ++knob)
    if (!llvm::is_contained(knobChoices[knob], genome.knobs[knob]))
      return false;
  int64_t innermost = 1;
  for (int64_t size : genome.tiles.back())
    innermost *= size;
  if (gpu && getGpuThreadsPerBlock(genome) > kMaxGpuThreadsPerBlock)
    return false;
  return innermost <= kMaxInnermostTile;
}

/// The primitives of `schedule`'s body, printed, one after the other.
static std::string printBody(ScheduleOp schedule) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (Operation &op : schedule.getBody().front()) {
    op.print(os);
    os << '\n';
  }
  return text;
}

std::optional<Genome> SearchSpace::findGenome(ScheduleOp schedule) const {
  if (gpu)
    return std::nullopt;
  // Each tile level's sizes, whole (0 keeps the level above).
  std::vector<std::vector<int64_t>> levels = {extents};
  for (Operation &op : schedule.getBody().front()) {
    auto tile = dyn_cast<TileOp>(op);
    if (!tile)
      continue;
    std::vector<int64_t> sizes = levels.back();
    for (auto [dim, size] : llvm::enumerate(tile.getSizes()))
      if (dim < sizes.size() && size != 0)
        sizes[dim] = size;
    levels.push_back(sizes);
  }
  unsigned numLevels = rules.size();
  if (levels.size() < 2 || numLevels == 0)
    return std::nullopt;
  std::string wanted = printBody(schedule);
  OwningOpRef<ModuleOp> scratch =
      ModuleOp::create(UnknownLoc::get(schedule.getContext()));
  OpBuilder builder = OpBuilder::atBlockEnd(scratch->getBody());
  // The genome's innermost level is the schedule's; the others are any
  // ordered choice of the levels above it (the whole extents included).
  Genome genome;
  genome.tiles.assign(numLevels, levels.back());
  genome.knobs.assign(knobChoices.size(), 0);
  std::function<bool(unsigned)> chooseKnobs;
  std::function<bool(unsigned, size_t)> chooseLevels;
  chooseKnobs = [&](unsigned knob) -> bool {
    if (knob == knobChoices.size()) {
      if (!isWellFormed(genome))
        return false;
      ScheduleOp built = build(builder, schedule.getLoc(), "t", genome);
      bool same = printBody(built) == wanted;
      built.erase();
      return same;
    }
    for (int64_t choice : knobChoices[knob]) {
      genome.knobs[knob] = choice;
      if (chooseKnobs(knob + 1))
        return true;
    }
    return false;
  };
  chooseLevels = [&](unsigned level, size_t from) -> bool {
    if (level + 1 == numLevels)
      return chooseKnobs(0);
    for (size_t source = from; source + 1 < levels.size(); ++source) {
      genome.tiles[level] = levels[source];
      if (chooseLevels(level + 1, source))
        return true;
    }
    return false;
  };
  if (chooseLevels(0, 0))
    return genome;
  return std::nullopt;
}

ScheduleOp SearchSpace::build(OpBuilder &builder, Location loc,
                              llvm::StringRef task,
                              const Genome &genome) const {
  auto schedule = builder.create<ScheduleOp>(loc, task, anchorName, target,
                                             extents, loopKinds);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(&schedule.getBody().front());
  OpBuilder &b = builder;
  if (gpu) {
    buildGpu(b, loc, genome);
    return schedule;
  }
  unsigned emittedLevels = 0;
  // Emits a level of tiles `whole` under tiles `parent`; sizes equal to
  // the parent's become 0 (untiled). Returns whether it tiles anything.
  auto tileUnder = [&](ArrayRef<int64_t> whole, ArrayRef<int64_t> parent) {
    SmallVector<int64_t> sizes;
    bool any = false;
    for (auto [size, parentSize] : llvm::zip(whole, parent)) {
      sizes.push_back(size == parentSize ? 0 : size);
      any |= size != parentSize;
    }
    if (any) {
      b.create<TileOp>(loc, b.getDenseI64ArrayAttr(sizes));
      ++emittedLevels;
    }
    return any;
  };
  // Emits genome level `level` under the level above it.
  auto tile = [&](unsigned level) {
    return tileUnder(genome.tiles[level],
                     level ? genome.tiles[level - 1] : extents);
  };
  auto outerLevel = [&](bool parallel) {
    if (!tile(0))
      return;
    if (parallel)
      b.create<ParallelizeOp>(loc);
    if (hasEpilogue)
      b.create<FuseEpilogueOp>(loc);
  };
  switch (anchorClass) {
  case AnchorClass::Matmul:
  case AnchorClass::BatchMatmul: {
    unsigned k = batchDims + 2;
    outerLevel(genome.knobs[kParallel]);
    if (tile(1)) {
      if (int64_t order = genome.knobs[kOrder])
        b.create<InterchangeOp>(loc,
                                b.getDenseI64ArrayAttr(kMatmulOrders[order]));
      // B packed into a contiguous panel, copied once per cache tile. Only
      // an input: the verifier refuses to hoist the output's padding, and
      // out of a level that loops over k alone.
      bool tilesParallel = false;
      for (size_t dim = 0; dim < extents.size(); ++dim)
        tilesParallel |= loopKinds[dim] == 'p' &&
                         genome.tiles[1][dim] != genome.tiles[0][dim];
      if (genome.knobs[kPackB] && tilesParallel)
        b.create<tcl::PadOp>(loc, b.getDenseI64ArrayAttr({1}),
                             b.getI64IntegerAttr(1));
    }
    int64_t kTrips = genome.tiles[1][k];
    tile(2);
    b.create<VectorizeOp>(loc);
    if (kTrips > 1) {
      b.create<HoistAccumulatorsOp>(loc);
      int64_t factor = std::min<int64_t>(genome.knobs[kUnroll], kTrips);
      if (factor > 1 && emittedLevels > 0)
        b.create<UnrollOp>(loc, b.getI64IntegerAttr(emittedLevels - 1),
                           b.getI64IntegerAttr(k), b.getI64IntegerAttr(factor));
    }
    break;
  }
  case AnchorClass::Conv2D:
  case AnchorClass::DepthwiseConv2D:
  case AnchorClass::Pool2D: {
    outerLevel(genome.knobs[kWindowParallel]);
    // A slice of the input channels, for the register tile's output
    // channels: a cache level between the outer and the register level,
    // which then leaves the output channels as they are.
    std::vector<int64_t> parent = genome.tiles[0];
    // One block of output channels at a time (its weights stay in cache).
    if (blockDim && genome.knobs[kWindowBlocks] && parent[*blockDim] > 1) {
      std::vector<int64_t> blocks = parent;
      blocks[*blockDim] = 1;
      tileUnder(blocks, parent);
      parent = blocks;
    }
    if (inputChannelDim && genome.knobs[kWindowSlice] > 0) {
      std::vector<int64_t> cache = parent;
      cache[channelDim] = genome.tiles[1][channelDim];
      cache[*inputChannelDim] = genome.knobs[kWindowSlice];
      tileUnder(cache, parent);
      parent = cache;
    }
    // Reductions come last: the register level tiles one if any.
    bool reduces =
        llvm::any_of(llvm::seq<size_t>(0, extents.size()), [&](size_t dim) {
          return loopKinds[dim] == 'r' && genome.tiles[1][dim] != parent[dim];
        });
    tileUnder(genome.tiles[1], parent);
    b.create<DecomposeOp>(loc);
    b.create<VectorizeOp>(loc);
    // Accumulators stay in registers across the reduction loops; a
    // depthwise tile's, across the kernel rows, where they fit.
    int64_t columns = genome.tiles[1][columnDim];
    int64_t vectors = llvm::divideCeil(genome.tiles[1][channelDim], lanes);
    if (reduces &&
        (anchorClass == AnchorClass::Conv2D ||
         (anchorClass == AnchorClass::DepthwiseConv2D &&
          fitsDepthwiseAccumulators(columns, vectors, extents[kernelColumnDim],
                                    vectorRegisters))))
      b.create<HoistAccumulatorsOp>(loc);
    break;
  }
  case AnchorClass::Generic:
    outerLevel(genome.knobs[kGenericParallel]);
    tile(1);
    if (genome.knobs[kVectorize])
      b.create<VectorizeOp>(loc);
    break;
  case AnchorClass::Conv1D:
    break;
  }
  return schedule;
}
