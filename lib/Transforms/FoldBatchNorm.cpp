//===- FoldBatchNorm.cpp - Per-channel scales into convolution weights ----===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Matches elementwise generics of the form `x * c` and `x + c` where c is a
// constant that varies along one loop only (the output channel), and rewrites
//   conv(in, w) * s        -> conv(in, w * s)
//   (x + b) * s            -> x * s + b * s
// so that a scale climbs above bias-like shifts to the convolution.
//
//===----------------------------------------------------------------------===//

#include "tcl/Support/GroupedConv.h"
#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_FOLDBATCHNORM
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;

namespace {

/// A binary elementwise generic `x op c`: x read through the identity map,
/// c a constant whose value depends on one loop only.
template <typename OpTy> struct ChannelwiseOp {
  linalg::GenericOp op;
  Value x;
  unsigned channelLoop;
  std::vector<float> constants; // one per index of channelLoop

  static std::optional<ChannelwiseOp> match(linalg::GenericOp op) {
    if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
        op.getNumReductionLoops() != 0 ||
        !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity() ||
        op.payloadUsesValueFromOperand(op.getDpsInitOperand(0)))
      return std::nullopt;
    Block &body = op.getRegion().front();
    if (body.getOperations().size() != 2)
      return std::nullopt;
    auto binary = dyn_cast<OpTy>(body.front());
    if (!binary || !cast<RankedTensorType>(op.getResult(0).getType())
                        .getElementType()
                        .isF32())
      return std::nullopt;
    // The body must combine exactly the two arguments and yield that.
    if (!((binary.getLhs() == body.getArgument(0) &&
           binary.getRhs() == body.getArgument(1)) ||
          (binary.getLhs() == body.getArgument(1) &&
           binary.getRhs() == body.getArgument(0))) ||
        body.getTerminator()->getOperand(0) != binary.getResult())
      return std::nullopt;
    for (unsigned which : {0u, 1u}) {
      OpOperand *xOperand = op.getDpsInputOperand(which);
      OpOperand *cOperand = op.getDpsInputOperand(1 - which);
      DenseElementsAttr values;
      if (!op.getMatchingIndexingMap(xOperand).isIdentity() ||
          !matchPattern(cOperand->get(), m_Constant(&values)))
        continue;
      AffineMap map = op.getMatchingIndexingMap(cOperand);
      auto cShape = cast<ShapedType>(values.getType()).getShape();
      std::optional<unsigned> loop;
      bool channelwise = true;
      for (auto [position, expr] : llvm::enumerate(map.getResults())) {
        if (cShape[position] == 1)
          continue;
        auto dim = dyn_cast<AffineDimExpr>(expr);
        if (!dim || (loop && *loop != dim.getPosition()))
          channelwise = false;
        else
          loop = dim.getPosition();
      }
      if (!channelwise)
        continue;
      auto loopRanges = op.getStaticLoopRanges();
      unsigned channel = loop ? *loop : map.getNumDims() - 1;
      ChannelwiseOp result{op, xOperand->get(), channel, {}};
      auto floats = llvm::to_vector(values.getValues<float>());
      for (int64_t i = 0; i < loopRanges[channel]; ++i) {
        SmallVector<int64_t> point(map.getNumDims(), 0);
        point[channel] = i;
        int64_t offset = 0, stride = 1;
        SmallVector<int64_t> at = map.compose(point);
        for (int d = static_cast<int>(cShape.size()) - 1; d >= 0; --d) {
          offset += (cShape[d] == 1 ? 0 : at[d]) * stride;
          stride *= cShape[d];
        }
        result.constants.push_back(values.isSplat() ? floats[0]
                                                    : floats[offset]);
      }
      return result;
    }
    return std::nullopt;
  }
};

/// A constant [n] f32 tensor.
Value channelConstant(PatternRewriter &rewriter, Location loc,
                      ArrayRef<float> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    rewriter.getF32Type());
  return rewriter.create<arith::ConstantOp>(
      loc, type, DenseElementsAttr::get(type, values));
}

/// A generic `x op c[channel]` over x's shape.
Value channelwise(PatternRewriter &rewriter, Location loc, Value x,
                  unsigned channelLoop, ArrayRef<float> constants,
                  bool multiply) {
  auto type = cast<RankedTensorType>(x.getType());
  unsigned rank = type.getRank();
  MLIRContext *ctx = rewriter.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap channel =
      AffineMap::get(rank, 0, getAffineDimExpr(channelLoop, ctx), ctx);
  Value init = rewriter.create<tensor::EmptyOp>(loc, type.getShape(),
                                                type.getElementType());
  return rewriter
      .create<linalg::GenericOp>(
          loc, TypeRange{type},
          ValueRange{x, channelConstant(rewriter, loc, constants)},
          ValueRange{init}, ArrayRef<AffineMap>{identity, channel, identity},
          SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
          [&](OpBuilder &b, Location bodyLoc, ValueRange args) {
            Value result =
                multiply ? b.create<arith::MulFOp>(bodyLoc, args[0], args[1])
                               .getResult()
                         : b.create<arith::AddFOp>(bodyLoc, args[0], args[1])
                               .getResult();
            b.create<linalg::YieldOp>(bodyLoc, result);
          })
      .getResult(0);
}

/// conv(in, w) * s[f] -> conv(in, w * s) for constant weights whose last
/// dimension is the output channel (HWCF, HWC for depthwise, [G, KH, KW,
/// C/G, F/G] for grouped convolutions).
struct ScaleIntoConvolution : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    auto scale = ChannelwiseOp<arith::MulFOp>::match(op);
    if (!scale || !scale->x.hasOneUse())
      return failure();
    Operation *conv = scale->x.getDefiningOp();
    // A grouped convolution's [N, OH, OW, G, F/G] result is read collapsed
    // to [N, OH, OW, F].
    if (auto collapse = dyn_cast_or_null<tensor::CollapseShapeOp>(conv);
        collapse && collapse.getSrc().hasOneUse())
      conv = collapse.getSrc().getDefiningOp();
    bool grouped = tcl::matchGroupedConv(conv).has_value();
    if (!grouped && !isa_and_nonnull<linalg::Conv2DNhwcHwcfOp,
                                     linalg::DepthwiseConv2DNhwcHwcOp>(conv))
      return failure();
    auto linalgOp = cast<linalg::LinalgOp>(conv);
    auto resultType = cast<RankedTensorType>(scale->x.getType());
    if (scale->channelLoop != resultType.getRank() - 1)
      return failure();
    // The accumulator must start at zero, or scaling the weights would
    // not scale it.
    auto fill =
        linalgOp.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>();
    if (!fill || !matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
      return failure();
    DenseElementsAttr weights;
    if (!matchPattern(linalgOp.getDpsInputOperand(1)->get(),
                      m_Constant(&weights)))
      return failure();
    // The output channel of weight element i: i % F for HWCF and HWC;
    // g * F/G + i % F/G for a grouped convolution's [G, KH, KW, C/G, F/G].
    auto weightType = cast<RankedTensorType>(weights.getType());
    int64_t perGroup = weightType.getShape().back();
    int64_t groups = grouped ? weightType.getShape().front() : 1;
    if (groups * perGroup != static_cast<int64_t>(scale->constants.size()))
      return failure();
    int64_t groupSize = weightType.getNumElements() / groups;
    std::vector<float> scaled;
    scaled.reserve(weightType.getNumElements());
    int64_t i = 0;
    for (float w : weights.getValues<float>()) {
      scaled.push_back(
          w * scale->constants[i / groupSize * perGroup + i % perGroup]);
      ++i;
    }
    rewriter.setInsertionPoint(conv);
    Value newWeights = rewriter.create<arith::ConstantOp>(
        conv->getLoc(), weightType,
        DenseElementsAttr::get(weightType, llvm::ArrayRef(scaled)));
    rewriter.modifyOpInPlace(
        conv, [&] { linalgOp.getDpsInputOperand(1)->set(newWeights); });
    rewriter.replaceOp(op, scale->x);
    return success();
  }
};

/// (x + b[c]) * s[c] -> x * s[c] + (b * s)[c], moving a scale above a
/// shift along the same channel loop.
struct ScaleAboveShift : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    auto scale = ChannelwiseOp<arith::MulFOp>::match(op);
    if (!scale || !scale->x.hasOneUse())
      return failure();
    auto producer = scale->x.getDefiningOp<linalg::GenericOp>();
    if (!producer)
      return failure();
    auto shift = ChannelwiseOp<arith::AddFOp>::match(producer);
    if (!shift || shift->channelLoop != scale->channelLoop ||
        shift->x.getType() != scale->x.getType())
      return failure();
    std::vector<float> shifted;
    for (auto [b, s] : llvm::zip(shift->constants, scale->constants))
      shifted.push_back(b * s);
    Location loc = op.getLoc();
    Value scaled = channelwise(rewriter, loc, shift->x, scale->channelLoop,
                               scale->constants, /*multiply=*/true);
    rewriter.replaceOp(op, channelwise(rewriter, loc, scaled,
                                       scale->channelLoop, shifted,
                                       /*multiply=*/false));
    return success();
  }
};

struct FoldBatchNormPass
    : public mlir::tcl::impl::FoldBatchNormBase<FoldBatchNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ScaleIntoConvolution, ScaleAboveShift>(&getContext());
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
