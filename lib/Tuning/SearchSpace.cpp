//===- SearchSpace.cpp - Sketches and random schedules of a task ----------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/SearchSpace.h"
#include "tcl/Transforms/DefaultSchedule.h"
#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::tcl;

namespace {
/// Knob values of the sketches.
enum MatmulKnob { kParallel = 0, kOrder, kPackB, kUnroll };
/// Cache-level loop orders of a matmul (interchange of m, n, k).
const int64_t kMatmulOrders[][3] = {{0, 1, 2}, {1, 0, 2}, {1, 2, 0}};
enum WindowKnob { kWindowParallel = 0 };
enum GenericKnob { kGenericParallel = 0, kVectorize };
enum GpuKnob { kGpuUnroll = 0, kGpuRegisters, kGpuShared };
/// A GPU matmul's register tile (knob `registers`): at most this many
/// accumulators a thread, and this many elements in its vectorized step
/// (accumulators times the k step); a larger tile stays scalar, since its
/// accumulators would spill.
constexpr int64_t kMaxGpuAccumulators = 64, kMaxGpuRegisterStep = 256;
/// Shared memory a block may have without opting in (its inputs' tiles of
/// a step, knob `shared`); a larger step keeps its tiles in global memory.
constexpr int64_t kMaxGpuSharedBytes = 48 * 1024;
/// Loops a GPU sketch maps onto blocks and onto threads: the innermost
/// parallel ones (a grid has 3 dimensions; threads x and y).
constexpr unsigned kGpuBlockLoops = 3, kGpuThreadLoops = 2;

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
    // Every op class: a block level over the innermost parallel loops, a
    // thread level (each thread's tile of the innermost two), a sequential
    // level over the reductions.
    space->gpu = true;
    std::vector<R> blocks(numDims, R::Parent), threads(numDims, R::Parent),
        reductions(numDims, R::Parent);
    unsigned blockLoops = 0, threadLoops = 0;
    for (unsigned d = numDims; d-- > 0;) {
      if (space->loopKinds[d] == 'r') {
        reductions[d] = R::Free;
        continue;
      }
      if (blockLoops++ < kGpuBlockLoops)
        blocks[d] = R::Free;
      if (threadLoops++ < kGpuThreadLoops)
        threads[d] = R::Free;
    }
    if (blockLoops == 0)
      return nullptr; // Nothing to spread over blocks.
    space->rules = {blocks, threads, reductions};
    space->knobNames = {"unroll"};
    space->knobChoices = {{1, 2, 4}};
    // Matmuls may keep each thread's outputs in registers across k.
    if (info->anchorClass == AnchorClass::Matmul ||
        info->anchorClass == AnchorClass::BatchMatmul) {
      space->knobNames.push_back("registers");
      space->knobChoices.push_back({0, 1});
      // And, with a register tile, read the block's tiles of the inputs
      // from shared memory, a step of k at a time.
      space->knobNames.push_back("shared");
      space->knobChoices.push_back({0, 1});
    }
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

int64_t SearchSpace::getGpuSharedBytes(const Genome &genome) const {
  // A matmul's loops: [batch...,] m, n, k. Per step of k, A's tile is
  // batch x m and B's batch x n, each row padded.
  size_t numDims = extents.size();
  if (numDims < 3)
    return 0;
  int64_t batch = 1;
  for (size_t dim = 0; dim + 3 < numDims; ++dim)
    batch *= genome.tiles[0][dim];
  int64_t rows = genome.tiles[0][numDims - 3] + kSharedRowPadding;
  int64_t columns = genome.tiles[0][numDims - 2] + kSharedRowPadding;
  return genome.tiles[2][numDims - 1] * batch * (rows + columns) *
         static_cast<int64_t>(sizeof(float));
}

int64_t SearchSpace::getGpuThreadsPerBlock(const Genome &genome) const {
  int64_t threads = 1;
  for (size_t dim = 0; dim < extents.size(); ++dim)
    threads *= genome.tiles[0][dim] / genome.tiles[1][dim];
  return threads;
}

void SearchSpace::buildGpu(OpBuilder &b, Location loc,
                           const Genome &genome) const {
  // The block and thread levels must exist even where a genome's tiles are
  // whole (one block, one thread): their loops of one trip are kept.
  auto mappedLevel = [&](unsigned level, ParallelMapping mapping) {
    SmallVector<int64_t> sizes;
    for (size_t dim = 0; dim < extents.size(); ++dim)
      sizes.push_back(rules[level][dim] == Rule::Free ? genome.tiles[level][dim]
                                                      : 0);
    b.create<TileOp>(loc, b.getDenseI64ArrayAttr(sizes));
    b.create<ParallelizeOp>(loc, mapping);
  };
  mappedLevel(0, ParallelMapping::GpuBlocks);
  if (hasEpilogue)
    b.create<FuseEpilogueOp>(loc);
  mappedLevel(1, ParallelMapping::GpuThreads);
  SmallVector<int64_t> sizes;
  std::optional<int64_t> innermostReduction;
  for (size_t dim = 0; dim < extents.size(); ++dim) {
    int64_t size = genome.tiles[2][dim];
    bool tiled = rules[2][dim] == Rule::Free && size != genome.tiles[1][dim];
    sizes.push_back(tiled ? size : 0);
    if (tiled)
      innermostReduction = dim;
  }
  // A register tile: the thread's outputs (its tile's parallel part) and a
  // step of the reduction, vectorized, the accumulators hoisted out of the
  // reduction loop where there is one.
  int64_t accumulators = 1, step = 1;
  for (size_t dim = 0; dim < extents.size(); ++dim) {
    step *= genome.tiles[2][dim];
    if (loopKinds[dim] == 'p')
      accumulators *= genome.tiles[2][dim];
  }
  // With the step's tiles of A and B in shared memory (pad on a GPU), the
  // register tile takes one k at a time.
  bool shared = innermostReduction && genome.knobs.size() > kGpuShared &&
                genome.knobs[kGpuShared] &&
                getGpuSharedBytes(genome) <= kMaxGpuSharedBytes;
  if (shared)
    step = accumulators;
  if (genome.knobs.size() > kGpuRegisters && genome.knobs[kGpuRegisters] &&
      accumulators <= kMaxGpuAccumulators && step <= kMaxGpuRegisterStep) {
    if (innermostReduction)
      b.create<TileOp>(loc, b.getDenseI64ArrayAttr(sizes));
    if (shared) {
      b.create<PadOp>(loc, b.getDenseI64ArrayAttr({0, 1}), IntegerAttr());
      SmallVector<int64_t> single(extents.size(), 0);
      single[*innermostReduction] = 1;
      b.create<TileOp>(loc, b.getDenseI64ArrayAttr(single));
    }
    b.create<VectorizeOp>(loc);
    if (innermostReduction)
      b.create<HoistAccumulatorsOp>(loc);
    return;
  }
  if (!innermostReduction)
    return;
  b.create<TileOp>(loc, b.getDenseI64ArrayAttr(sizes));
  int64_t trips = genome.tiles[1][*innermostReduction] /
                  genome.tiles[2][*innermostReduction];
  int64_t factor = std::min(genome.knobs[kGpuUnroll], trips);
  if (factor > 1)
    b.create<UnrollOp>(loc, b.getI64IntegerAttr(2),
                       b.getI64IntegerAttr(*innermostReduction),
                       b.getI64IntegerAttr(factor));
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
  // Emits tile level `level`; sizes equal to the level above become 0
  // (untiled). Returns whether the level tiles anything.
  auto tile = [&](unsigned level) {
    SmallVector<int64_t> sizes;
    bool any = false;
    for (size_t dim = 0; dim < extents.size(); ++dim) {
      int64_t parent = level ? genome.tiles[level - 1][dim] : extents[dim];
      int64_t size = genome.tiles[level][dim];
      sizes.push_back(size == parent ? 0 : size);
      any |= size != parent;
    }
    if (any) {
      b.create<TileOp>(loc, b.getDenseI64ArrayAttr(sizes));
      ++emittedLevels;
    }
    return any;
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
  case AnchorClass::Pool2D:
    outerLevel(genome.knobs[kWindowParallel]);
    tile(1);
    b.create<DecomposeOp>(loc);
    b.create<VectorizeOp>(loc);
    // Accumulators stay in registers across the innermost loop if it is a
    // reduction: reductions come last, so if the inner level tiles one.
    if (anchorClass == AnchorClass::Conv2D &&
        llvm::any_of(llvm::seq<size_t>(0, extents.size()), [&](size_t dim) {
          return loopKinds[dim] == 'r' &&
                 genome.tiles[1][dim] != genome.tiles[0][dim];
        }))
      b.create<HoistAccumulatorsOp>(loc);
    break;
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
