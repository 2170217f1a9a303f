//===- ScheduleState.cpp - Loop-nest state a schedule walks through -------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Dialect/Tcl/IR/ScheduleState.h"
#include "tcl/Support/GroupedConv.h"
#include "tcl/Support/PermutedBatchMatmul.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tcl;

// Loop orders are those of the linalg named ops' iteration domains (see their
// indexing maps in LinalgNamedStructuredOps.yaml); `decompose` drops an
// (output, window) pair once both have extent 1, as linalg's decomposition
// patterns require.
namespace {
constexpr std::nullopt_t none = std::nullopt;
} // namespace

static const AnchorInfo kAnchors[] = {
    // name, class, loop kinds, height pair, width pair, channel, input
    // channel, group, decomposed name, vectorizable
    {"linalg.matmul", AnchorClass::Matmul, "ppr", none, none, none, none, none,
     "", true},
    {"linalg.matmul_transpose_b", AnchorClass::Matmul, "ppr", none, none, none,
     none, none, "", true},
    {"linalg.batch_matmul", AnchorClass::BatchMatmul, "pppr", none, none, none,
     none, none, "", true},
    // (b, m, n, k) with the operands in other layouts (attention's heads).
    {kPermutedBatchMatmulAnchorName, AnchorClass::BatchMatmul, "pppr", none,
     none, none, none, none, "", true},
    // (n, oh, ow, f, kh, kw, c)
    {"linalg.conv_2d_nhwc_hwcf", AnchorClass::Conv2D, "pppprrr",
     WindowDims{1, 4}, WindowDims{2, 5}, 3, 6, none, "linalg.conv_1d_nwc_wcf",
     false},
    // (n, f, oh, ow, c, kh, kw)
    {"linalg.conv_2d_nchw_fchw", AnchorClass::Conv2D, "pppprrr",
     WindowDims{2, 5}, WindowDims{3, 6}, 1, 4, none, "linalg.conv_1d_ncw_fcw",
     false},
    // (n, oh, ow, g, f, kh, kw, c): a 2-D convolution with a group loop,
    // which `decompose` drops with the window pair.
    {kGroupedConvAnchorName, AnchorClass::Conv2D, "ppppprrr",
     WindowDims{kGroupedOH, kGroupedKH}, WindowDims{kGroupedOW, kGroupedKW},
     kGroupedF, kGroupedC, kGroupedG, "linalg.conv_1d_nwc_wcf", false},
    // The same loops over an input without groups: a convolution whose
    // filter is stored in blocks of output channels, one block a group.
    {kFilterBlockedConvAnchorName, AnchorClass::Conv2D, "ppppprrr",
     WindowDims{kGroupedOH, kGroupedKH}, WindowDims{kGroupedOW, kGroupedKW},
     kGroupedF, kGroupedC, kGroupedG, "linalg.conv_1d_nwc_wcf", false},
    // (n, oh, ow, c, kh, kw)
    {"linalg.depthwise_conv_2d_nhwc_hwc", AnchorClass::DepthwiseConv2D,
     "pppprr", WindowDims{1, 4}, WindowDims{2, 5}, 3, none, none,
     "linalg.depthwise_conv_1d_nwc_wc", false},
    {"linalg.pooling_nhwc_max", AnchorClass::Pool2D, "pppprr", WindowDims{1, 4},
     WindowDims{2, 5}, 3, none, none, "linalg.pooling_nwc_max", false},
    {"linalg.pooling_nhwc_sum", AnchorClass::Pool2D, "pppprr", WindowDims{1, 4},
     WindowDims{2, 5}, 3, none, none, "linalg.pooling_nwc_sum", false},
    // (n, c, oh, ow, kh, kw)
    {"linalg.pooling_nchw_max", AnchorClass::Pool2D, "pppprr", WindowDims{2, 4},
     WindowDims{3, 5}, 1, none, none, "linalg.pooling_ncw_max", false},
    {"linalg.pooling_nchw_sum", AnchorClass::Pool2D, "pppprr", WindowDims{2, 4},
     WindowDims{3, 5}, 1, none, none, "linalg.pooling_ncw_sum", false},
    {"linalg.generic", AnchorClass::Generic, "", none, none, none, none, none,
     "", true},
};

const AnchorInfo *mlir::tcl::lookupAnchor(StringRef opName) {
  for (const AnchorInfo &info : kAnchors)
    if (info.opName == opName)
      return &info;
  return nullptr;
}

StringRef mlir::tcl::getAnchorName(Operation *op) {
  if (std::optional<GroupedConvWindow> window = matchGroupedConv(op))
    return window->sharedInput ? kFilterBlockedConvAnchorName
                               : kGroupedConvAnchorName;
  if (matchPermutedBatchMatmul(op))
    return kPermutedBatchMatmulAnchorName;
  return op->getName().getStringRef();
}

const AnchorInfo *mlir::tcl::lookupAnchor(Operation *op) {
  return lookupAnchor(getAnchorName(op));
}

ArrayRef<AnchorInfo> mlir::tcl::getSupportedAnchors() { return kAnchors; }

std::optional<int64_t> TileLevel::findTiledReduction() const {
  for (auto [dim, size] : llvm::enumerate(sizes))
    if (size != 0 && kinds[dim] == LoopKind::Reduction)
      return dim;
  return std::nullopt;
}

SmallVector<int64_t> TileLevel::loopDims() const {
  SmallVector<int64_t> dims;
  for (int64_t dim : interchange)
    if (sizes[dim] != 0)
      dims.push_back(dim);
  return dims;
}

StringRef mlir::tcl::getParallelMappingKeyword(ParallelMapping mapping) {
  switch (mapping) {
  case ParallelMapping::CpuThreads:
    return "";
  case ParallelMapping::GpuBlocks:
    return "blocks";
  case ParallelMapping::GpuThreads:
    return "threads";
  }
  return "";
}

const TileLevel *
ScheduleState::findParallelLevel(ParallelMapping mapping) const {
  for (const TileLevel &level : levels)
    if (level.parallel && level.mapping == mapping)
      return &level;
  return nullptr;
}

bool ScheduleState::isGpuMapped() const {
  return findParallelLevel(ParallelMapping::GpuBlocks) ||
         findParallelLevel(ParallelMapping::GpuThreads);
}

SmallVector<std::pair<unsigned, int64_t>>
ScheduleState::getAccumulatorLoops() const {
  SmallVector<std::pair<unsigned, int64_t>> loops;
  for (unsigned index = levels.size(); index-- > 0;) {
    const TileLevel &level = levels[index];
    SmallVector<int64_t> dims = level.loopDims();
    for (int64_t dim : llvm::reverse(dims)) {
      if (level.kinds[dim] != LoopKind::Reduction)
        return loops;
      loops.push_back({index, dim});
    }
    // Into an enclosing level only on a GPU, from a sequential one.
    if (!isGpuMapped() || level.parallel || dims.empty() || index == 0 ||
        levels[index - 1].parallel)
      return loops;
  }
  return loops;
}

int64_t ScheduleState::innermostTileVolume() const {
  int64_t volume = 1;
  for (const LoopDim &dim : dims) {
    if (ShapedType::isDynamic(dim.extent))
      return ShapedType::kDynamic;
    volume *= dim.extent;
  }
  return volume;
}

std::string mlir::tcl::formatSizes(ArrayRef<int64_t> sizes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(sizes, os, [&](int64_t size) {
    if (ShapedType::isDynamic(size))
      os << '?';
    else
      os << size;
  });
  os << ']';
  return text;
}
