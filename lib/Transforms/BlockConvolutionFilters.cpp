//===- BlockConvolutionFilters.cpp - Filters in blocks of channels --------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Rewrites a convolution with a constant filter into the filter-blocked
// form of tcl's grouped convolution (tcl/Support/GroupedConv.h): the filter
// is packed at compile time so that each block of output channels has its
// weights to itself, contiguous; the convolution's schedules then treat the
// blocks as groups that all read the whole input.
//
//===----------------------------------------------------------------------===//

#include "tcl/Support/GroupedConv.h"
#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_BLOCKCONVOLUTIONFILTERS
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;

namespace {

/// A convolution whose filter is packed, and its constant filter.
struct BlockingCandidate {
  linalg::Conv2DNhwcHwcfOp conv;
  DenseElementsAttr filter;
};

/// `conv` and its filter if its filter is packed: static f32 shapes, a
/// constant filter, a kernel window (not 1x1), at least `minChannels`
/// output channels in whole blocks of `blockChannels` (more than one), no
/// tcl attributes. (1x1 convolutions that stay convolutions, the strided
/// ones, ran slower in blocks: ResNet-18's 1x1/2 256->512 at 7x7 0.081 ->
/// 0.093 ms, 1x1/2 128->256 at 14x14 0.071 -> 0.082 ms at one thread.)
std::optional<BlockingCandidate> getCandidate(linalg::Conv2DNhwcHwcfOp conv,
                                              int64_t minChannels,
                                              int64_t blockChannels) {
  if (!conv.hasPureTensorSemantics() || blockChannels <= 0)
    return std::nullopt;
  for (NamedAttribute attr : conv->getDiscardableAttrs())
    if (attr.getName().strref().starts_with("tcl."))
      return std::nullopt;
  for (Value value :
       {conv.getInputs()[0], conv.getInputs()[1], conv.getResult(0)}) {
    auto type = cast<RankedTensorType>(value.getType());
    if (!type.hasStaticShape() || !type.getElementType().isF32())
      return std::nullopt;
  }
  auto filterType = cast<RankedTensorType>(conv.getInputs()[1].getType());
  int64_t channels = filterType.getDimSize(3);
  if (filterType.getDimSize(0) * filterType.getDimSize(1) == 1 ||
      channels < minChannels || channels % blockChannels != 0 ||
      channels == blockChannels)
    return std::nullopt;
  DenseElementsAttr filter;
  if (!matchPattern(conv.getInputs()[1], m_Constant(&filter)))
    return std::nullopt;
  return BlockingCandidate{conv, filter};
}

/// `filter` [KH, KW, C, F] packed into [F / B, KH, KW, C, B].
DenseElementsAttr packFilter(DenseElementsAttr filter, int64_t block) {
  ArrayRef<int64_t> shape = filter.getType().getShape();
  int64_t taps = shape[0] * shape[1] * shape[2], channels = shape[3];
  int64_t blocks = channels / block;
  SmallVector<float> values = llvm::to_vector(filter.getValues<float>());
  SmallVector<float> packed(values.size());
  for (int64_t g = 0; g < blocks; ++g)
    for (int64_t tap = 0; tap < taps; ++tap)
      for (int64_t f = 0; f < block; ++f)
        packed[(g * taps + tap) * block + f] =
            values[tap * channels + g * block + f];
  auto type = RankedTensorType::get(
      {blocks, shape[0], shape[1], shape[2], block}, filter.getElementType());
  return DenseElementsAttr::get(type, ArrayRef(packed));
}

void blockFilter(const BlockingCandidate &candidate, int64_t block,
                 IRRewriter &rewriter) {
  linalg::Conv2DNhwcHwcfOp conv = candidate.conv;
  Location loc = conv.getLoc();
  rewriter.setInsertionPoint(conv);
  auto outputType = cast<RankedTensorType>(conv.getResult(0).getType());
  ArrayRef<int64_t> out = outputType.getShape();
  auto blockedType =
      RankedTensorType::get({out[0], out[1], out[2], out[3] / block, block},
                            outputType.getElementType());
  SmallVector<ReassociationIndices> lastSplit = {{0}, {1}, {2}, {3, 4}};
  // The accumulator in blocks: a fill of its own (the task's fill, fused
  // into its tiles), else the given one viewed so.
  Value init = conv.getOutputs()[0];
  Value blockedInit;
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (fill && fill->hasOneUse() &&
      fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>()) {
    Value empty = rewriter.create<tensor::EmptyOp>(
        loc, blockedType.getShape(), blockedType.getElementType());
    blockedInit =
        rewriter.create<linalg::FillOp>(loc, fill.getInputs()[0], empty)
            .getResult(0);
  } else {
    blockedInit = rewriter.create<tensor::ExpandShapeOp>(loc, blockedType, init,
                                                         lastSplit);
  }
  DenseElementsAttr packed = packFilter(candidate.filter, block);
  Value filter =
      rewriter.create<arith::ConstantOp>(loc, packed.getType(), packed);
  tcl::GroupedConvWindow window;
  window.sharedInput = true;
  for (unsigned i = 0; i < 2; ++i) {
    window.strides[i] = conv.getStrides().getValues<int64_t>()[i];
    window.dilations[i] = conv.getDilations().getValues<int64_t>()[i];
  }
  Value blocked = tcl::buildGroupedConv(rewriter, loc, conv.getInputs()[0],
                                        filter, blockedInit, window);
  rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(conv, outputType,
                                                       blocked, lastSplit);
  if (fill && fill->use_empty())
    rewriter.eraseOp(fill);
}

struct BlockConvolutionFiltersPass
    : public mlir::tcl::impl::BlockConvolutionFiltersBase<
          BlockConvolutionFiltersPass> {
  using BlockConvolutionFiltersBase::BlockConvolutionFiltersBase;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<BlockingCandidate> candidates;
    getOperation().walk([&](linalg::Conv2DNhwcHwcfOp conv) {
      if (std::optional<BlockingCandidate> candidate =
              getCandidate(conv, minChannels, blockChannels))
        candidates.push_back(*candidate);
    });
    for (const BlockingCandidate &candidate : candidates)
      blockFilter(candidate, blockChannels, rewriter);
  }
};

} // namespace
