//===- ConvolutionsAsMatmuls.cpp - 1x1 convolutions as matmuls ------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// conv_2d_nhwc_hwcf(in: NxHxWxC, w: 1x1xCxF) with unit strides is
//   expand(matmul(collapse(in): (N*H*W)xC, collapse(w): CxF)): NxHxWxF
// Both collapses merge contiguous dimensions, so they are views after
// bufferization; the expansion is moved below the epilogue by
// tcl-fuse-elementwise. Not where the result is padded into a copy (see
// the pass description).
//
//===----------------------------------------------------------------------===//

#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_CONVOLUTIONSASMATMULS
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;

namespace {

/// Whether `conv` is a 1x1 convolution with unit strides on tensors of
/// static shapes (any dilation: a 1x1 window has no gaps to dilate).
bool isPointwise(linalg::Conv2DNhwcHwcfOp conv) {
  if (!conv.hasPureTensorSemantics())
    return false;
  auto input = cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto filter = cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto output = cast<RankedTensorType>(conv.getResult(0).getType());
  return filter.hasStaticShape() && output.hasStaticShape() &&
         input.hasStaticShape() && filter.getDimSize(0) == 1 &&
         filter.getDimSize(1) == 1 &&
         llvm::all_of(conv.getStrides().getValues<int64_t>(),
                      [](int64_t stride) { return stride == 1; }) &&
         // The input has exactly the output's rows and columns (no border
         // the convolution would skip).
         input.getDimSize(1) == output.getDimSize(1) &&
         input.getDimSize(2) == output.getDimSize(2);
}

/// Whether `conv`'s result, through elementwise ops that are its only
/// readers and as a part of a concatenation (UNet's up path beside the skip
/// connection), is padded into a copy (the input of a full or grouped 3x3
/// convolution; not of a depthwise one, whose tiles read the unpadded
/// input). A convolution can compute its pixels into the middle of the
/// padded tensor (tcl-write-into-consumers), a matmul over the collapsed
/// pixels cannot: the middle of a padded image is not a matrix.
bool isPaddedIntoCopy(linalg::Conv2DNhwcHwcfOp conv) {
  Value value = conv.getResult(0);
  while (value.hasOneUse()) {
    Operation *user = *value.getUsers().begin();
    if (isa<tensor::PadOp>(user))
      return llvm::any_of(user->getUsers(), [](Operation *reader) {
        return !tcl::isPaddingWorthFolding(reader);
      });
    if (auto part = dyn_cast<tensor::InsertSliceOp>(user)) {
      if (part.getSource() != value)
        return false;
      // The concatenation: insert_slices, each into the previous one.
      value = part.getResult();
      while (value.hasOneUse()) {
        auto next = dyn_cast<tensor::InsertSliceOp>(*value.getUsers().begin());
        if (!next || next.getDest() != value)
          break;
        value = next.getResult();
      }
      continue;
    }
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (!generic || generic.getNumResults() != 1 ||
        generic.getNumReductionLoops() != 0)
      return false;
    value = generic.getResult(0);
  }
  return false;
}

/// Rewrites `conv` (isPointwise) as a matmul between reshapes.
void rewriteAsMatmul(linalg::Conv2DNhwcHwcfOp conv, RewriterBase &rewriter) {
  Location loc = conv.getLoc();
  rewriter.setInsertionPoint(conv);
  // NxHxWxC -> (N*H*W)xC, 1x1xCxF -> CxF, NxHxWxF -> (N*H*W)xF.
  SmallVector<ReassociationIndices> rows = {{0, 1, 2}, {3}};
  auto collapse = [&](Value value) -> Value {
    return rewriter.create<tensor::CollapseShapeOp>(loc, value, rows);
  };
  Value init = collapse(conv.getOutputs()[0]);
  auto matmul = rewriter.create<linalg::MatmulOp>(
      loc, TypeRange{init.getType()},
      ValueRange{collapse(conv.getInputs()[0]), collapse(conv.getInputs()[1])},
      ValueRange{init});
  // tcl's attributes (a task tag) travel with the computation; the
  // convolution's own (strides, dilations, linalg's memoized maps) do not.
  for (NamedAttribute attr : conv->getDiscardableAttrs())
    if (attr.getName().strref().starts_with("tcl."))
      matmul->setAttr(attr.getName(), attr.getValue());
  rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
      conv, conv.getResult(0).getType(), matmul.getResult(0), rows);
}

struct ConvolutionsAsMatmulsPass
    : public mlir::tcl::impl::ConvolutionsAsMatmulsBase<
          ConvolutionsAsMatmulsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::Conv2DNhwcHwcfOp> convs;
    getOperation().walk([&](linalg::Conv2DNhwcHwcfOp conv) {
      if (isPointwise(conv) && !isPaddedIntoCopy(conv))
        convs.push_back(conv);
    });
    for (linalg::Conv2DNhwcHwcfOp conv : convs)
      rewriteAsMatmul(conv, rewriter);
  }
};

} // namespace
