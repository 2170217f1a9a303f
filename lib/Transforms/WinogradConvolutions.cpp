//===- WinogradConvolutions.cpp - 3x3 convolutions by Winograd ------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// A 3x3 stride-1 convolution computes each m x m block of its output from an
// (m + 2) x (m + 2) block of its input (a tile). Winograd's minimal filtering
// algorithm F(m x m, 3 x 3) computes it as
//
//   Y = A^T [ (G g G^T) . (B^T d B) ] A
//
// where g is a 3x3 filter, d an input tile, . the product of matching
// elements and A, B, G constant matrices. Over all tiles, input and output
// channels the middle product is one matmul per element of the
// (m + 2) x (m + 2) transformed tile: (m + 2)^2 matmuls of
// [tiles x C] x [C x F] that do (m + 2)^2 / (9 m^2) of the convolution's
// multiplications (F(4x4): 36 / 144, F(2x2): 16 / 36).
//
// Rewritten here, on tensors and before tasks exist:
//   filter  G g G^T for every (c, f), computed now (the filter is constant):
//           U [(m+2)^2, C, F]
//   input   two ops of one row and one column of B^T each (separable), each
//           an elementwise generic over (m + 2) strided slices of its input,
//           so that every map is a projected permutation (vectorizable):
//           Z [a1, N, TH, W+2, C], V [a1, a2, N, TH, TW, C]
//   product linalg.batch_matmul of V as [(m+2)^2, N*TH*TW, C] by U
//   output  two ops of A^T likewise: O [i, a2, N, TH, TW, F], then
//           Y [N, TH, i, TW, j, F], collapsed to [N, H, W, F] (a view: TH
//           and i, TW and j are adjacent). tcl-fuse-elementwise computes
//           the convolution's epilogue in Y's shape, fused into it.
// Each of the five ops is a task of its own with its own schedules.
//
//===----------------------------------------------------------------------===//

#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_WINOGRADCONVOLUTIONS
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;

namespace {

/// The matrices of F(m x m, 3 x 3), row-major: B^T is (m+2) x (m+2), G is
/// (m+2) x 3, A^T is m x (m+2). The interpolation points are 0, 1, -1 (and
/// 2, -2 for m = 4) and infinity, as in Lavin and Gray's paper.
struct WinogradMatrices {
  int64_t m;
  std::vector<double> bt, g, at;
  int64_t alpha() const { return m + 2; }
};

WinogradMatrices getMatrices(int64_t m) {
  // clang-format off
  if (m == 2)
    return {2,
            {1,  0, -1,  0,
             0,  1,  1,  0,
             0, -1,  1,  0,
             0,  1,  0, -1},
            {1,    0,   0,
             0.5,  0.5, 0.5,
             0.5, -0.5, 0.5,
             0,    0,   1},
            {1, 1,  1,  0,
             0, 1, -1, -1}};
  assert(m == 4 && "F(m x m, 3 x 3) is built for m = 2 and 4");
  return {4,
          {4,  0, -5,  0, 1, 0,
           0, -4, -4,  1, 1, 0,
           0,  4, -4, -1, 1, 0,
           0, -2, -1,  2, 1, 0,
           0,  2, -1, -2, 1, 0,
           0,  4,  0, -5, 0, 1},
          {1.0 / 4,   0,         0,
           -1.0 / 6,  -1.0 / 6,  -1.0 / 6,
           -1.0 / 6,  1.0 / 6,   -1.0 / 6,
           1.0 / 24,  1.0 / 12,  1.0 / 6,
           1.0 / 24,  -1.0 / 12, 1.0 / 6,
           0,         0,         1},
          {1, 1,  1, 1,  1, 0,
           0, 1, -1, 2, -2, 0,
           0, 1,  1, 4,  4, 0,
           0, 1, -1, 8, -8, 1}};
  // clang-format on
}

/// A convolution Winograd computes: its output block size m and its filter.
struct WinogradCandidate {
  linalg::Conv2DNhwcHwcfOp conv;
  int64_t m;
  DenseElementsAttr filter;
};

/// How Winograd computes `conv`, or nothing when the convolution is not one
/// it applies to: a 3x3 window, unit strides and
/// dilations, static shapes, a constant filter, an accumulator that starts
/// at zero, output rows and columns that split into blocks (4, else 2), and
/// at least `minChannels` input and output channels (the matmuls' reduction
/// and column extents). Convolutions carrying tcl attributes (a task tag a
/// schedule names) keep their form.
std::optional<WinogradCandidate>
getWinogradCandidate(linalg::Conv2DNhwcHwcfOp conv, int64_t minChannels) {
  if (!conv.hasPureTensorSemantics())
    return std::nullopt;
  for (NamedAttribute attr : conv->getDiscardableAttrs())
    if (attr.getName().strref().starts_with("tcl."))
      return std::nullopt;
  auto input = cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto filter = cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto output = cast<RankedTensorType>(conv.getResult(0).getType());
  if (!input.hasStaticShape() || !filter.hasStaticShape() ||
      !output.hasStaticShape() || !input.getElementType().isF32() ||
      !filter.getElementType().isF32() || !output.getElementType().isF32())
    return std::nullopt;
  auto isOne = [](int64_t value) { return value == 1; };
  if (filter.getDimSize(0) != 3 || filter.getDimSize(1) != 3 ||
      !llvm::all_of(conv.getStrides().getValues<int64_t>(), isOne) ||
      !llvm::all_of(conv.getDilations().getValues<int64_t>(), isOne) ||
      filter.getDimSize(2) < minChannels || filter.getDimSize(3) < minChannels)
    return std::nullopt;
  DenseElementsAttr weights;
  if (!matchPattern(conv.getInputs()[1], m_Constant(&weights)))
    return std::nullopt;
  auto fill = conv.getOutputs()[0].getDefiningOp<linalg::FillOp>();
  if (!fill || !matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
    return std::nullopt;
  int64_t rows = output.getDimSize(1), columns = output.getDimSize(2);
  for (int64_t m : {4, 2})
    if (rows % m == 0 && columns % m == 0 && rows >= 2 * m && columns >= 2 * m)
      return WinogradCandidate{conv, m, weights};
  return std::nullopt;
}

/// G g G^T of every (c, f) pair of `filter` ([3, 3, C, F]), as
/// [(m+2)^2, C, F]: element (a1 * (m+2) + a2, c, f).
DenseElementsAttr transformFilter(DenseElementsAttr filter,
                                  const WinogradMatrices &matrices) {
  auto type = cast<RankedTensorType>(filter.getType());
  int64_t channels = type.getDimSize(2), features = type.getDimSize(3);
  int64_t alpha = matrices.alpha(), pairs = channels * features;
  SmallVector<float> g = llvm::to_vector(filter.getValues<float>());
  std::vector<float> u(alpha * alpha * pairs);
  for (int64_t pair = 0; pair < pairs; ++pair) {
    // t = G g (alpha x 3), then t G^T (alpha x alpha), in double.
    double t[6][3] = {};
    for (int64_t a = 0; a < alpha; ++a)
      for (int64_t s = 0; s < 3; ++s)
        for (int64_t r = 0; r < 3; ++r)
          t[a][s] += matrices.g[a * 3 + r] * g[(r * 3 + s) * pairs + pair];
    for (int64_t a1 = 0; a1 < alpha; ++a1)
      for (int64_t a2 = 0; a2 < alpha; ++a2) {
        double sum = 0;
        for (int64_t s = 0; s < 3; ++s)
          sum += t[a1][s] * matrices.g[a2 * 3 + s];
        u[(a1 * alpha + a2) * pairs + pair] = static_cast<float>(sum);
      }
  }
  auto uType = RankedTensorType::get({alpha * alpha, channels, features},
                                     type.getElementType());
  return DenseElementsAttr::get(uType, llvm::ArrayRef(u));
}

/// Builds the Winograd ops of one convolution.
class WinogradBuilder {
public:
  WinogradBuilder(RewriterBase &rewriter, Location loc)
      : rewriter(rewriter), loc(loc) {}

  /// sum_k coefficient_k * input_k over `shape`, where coefficient k is
  /// column k of `matrix` (rows x columns, row-major) indexed by loop
  /// `coefficientLoop`, and every input is read through `inputMap` (the
  /// same for all).
  Value combine(ArrayRef<int64_t> shape, ArrayRef<double> matrix, int64_t rows,
                unsigned coefficientLoop, ValueRange inputs,
                AffineMap inputMap) {
    MLIRContext *ctx = rewriter.getContext();
    int64_t columns = static_cast<int64_t>(inputs.size());
    SmallVector<Value> operands;
    for (int64_t column = 0; column < columns; ++column) {
      SmallVector<float> values;
      for (int64_t row = 0; row < rows; ++row)
        values.push_back(static_cast<float>(matrix[row * columns + column]));
      auto type = RankedTensorType::get({rows}, rewriter.getF32Type());
      operands.push_back(rewriter.create<arith::ConstantOp>(
          loc, type, DenseElementsAttr::get(type, llvm::ArrayRef(values))));
    }
    llvm::append_range(operands, inputs);
    unsigned loops = shape.size();
    SmallVector<AffineMap> maps(
        columns,
        AffineMap::get(loops, 0, rewriter.getAffineDimExpr(coefficientLoop)));
    maps.append(columns, inputMap);
    maps.push_back(AffineMap::getMultiDimIdentityMap(loops, ctx));
    Value init =
        rewriter.create<tensor::EmptyOp>(loc, shape, rewriter.getF32Type());
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, init.getType(), operands, ValueRange{init}, maps,
        SmallVector<utils::IteratorType>(loops, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location nested, ValueRange args) {
          Value sum = b.create<arith::MulFOp>(nested, args[0], args[columns]);
          for (int64_t k = 1; k < columns; ++k)
            sum =
                b.create<math::FmaOp>(nested, args[k], args[columns + k], sum);
          b.create<linalg::YieldOp>(nested, sum);
        });
    return generic.getResult(0);
  }

  /// The `count` slices of `source` along `dim`, the k-th at offset k,
  /// of `size` elements `stride` apart (the others whole); a dimension of
  /// size 1 is dropped.
  SmallVector<Value> sliceEach(Value source, unsigned dim, int64_t count,
                               int64_t size, int64_t stride) {
    MLIRContext *ctx = rewriter.getContext();
    auto type = cast<RankedTensorType>(source.getType());
    SmallVector<int64_t> offsets(type.getRank(), 0), strides(type.getRank(), 1);
    SmallVector<int64_t> sizes = llvm::to_vector(type.getShape());
    sizes[dim] = size;
    strides[dim] = stride;
    SmallVector<int64_t> resultShape = sizes;
    if (size == 1)
      resultShape.erase(resultShape.begin() + dim);
    auto resultType = RankedTensorType::get(resultShape, type.getElementType());
    SmallVector<Value> slices;
    for (int64_t k = 0; k < count; ++k) {
      offsets[dim] = k;
      slices.push_back(rewriter.create<tensor::ExtractSliceOp>(
          loc, resultType, source, getAsIndexOpFoldResult(ctx, offsets),
          getAsIndexOpFoldResult(ctx, sizes),
          getAsIndexOpFoldResult(ctx, strides)));
    }
    return slices;
  }

  AffineMap dims(unsigned loops, ArrayRef<unsigned> positions) {
    return AffineMap::getMultiDimMapWithTargets(loops, positions,
                                                rewriter.getContext());
  }

  RewriterBase &rewriter;
  Location loc;
};

void rewriteByWinograd(const WinogradCandidate &candidate,
                       RewriterBase &rewriter) {
  linalg::Conv2DNhwcHwcfOp conv = candidate.conv;
  int64_t m = candidate.m;
  WinogradMatrices matrices = getMatrices(m);
  int64_t a = matrices.alpha();
  auto inputType = cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto outputType = cast<RankedTensorType>(conv.getResult(0).getType());
  int64_t n = outputType.getDimSize(0), rows = outputType.getDimSize(1),
          columns = outputType.getDimSize(2),
          features = outputType.getDimSize(3);
  int64_t channels = inputType.getDimSize(3);
  int64_t inColumns = inputType.getDimSize(2);
  int64_t th = rows / m, tw = columns / m;
  rewriter.setInsertionPoint(conv);
  WinogradBuilder build(rewriter, conv.getLoc());
  Value input = conv.getInputs()[0];

  // Z[a1, n, th, w, c] = sum_i B^T[a1, i] x[n, m th + i, w, c]: input row i
  // of every tile is a slice with a stride of m rows.
  SmallVector<Value> inputRows = build.sliceEach(input, 1, a, th, m);
  Value z = build.combine({a, n, th, inColumns, channels}, matrices.bt, a,
                          /*coefficientLoop=*/0, inputRows,
                          build.dims(5, {1, 2, 3, 4}));
  // V[a1, a2, n, th, tw, c] = sum_j B^T[a2, j] Z[a1, n, th, m tw + j, c].
  SmallVector<Value> zColumns = build.sliceEach(z, 3, a, tw, m);
  Value v = build.combine({a, a, n, th, tw, channels}, matrices.bt, a,
                          /*coefficientLoop=*/1, zColumns,
                          build.dims(6, {0, 2, 3, 4, 5}));

  // M[a1 a2, tiles, f] = V[a1 a2, tiles, c] x U[a1 a2, c, f].
  SmallVector<ReassociationIndices> batchTilesChannels = {
      {0, 1}, {2, 3, 4}, {5}};
  Value lhs = rewriter.create<tensor::CollapseShapeOp>(build.loc, v,
                                                       batchTilesChannels);
  DenseElementsAttr transformed = transformFilter(candidate.filter, matrices);
  Value rhs = rewriter.create<arith::ConstantOp>(
      build.loc, transformed.getType(), transformed);
  auto productType = RankedTensorType::get({a * a, n * th * tw, features},
                                           rewriter.getF32Type());
  Value zero = rewriter.create<arith::ConstantOp>(
      build.loc, rewriter.getF32FloatAttr(0.0f));
  Value productInit =
      rewriter
          .create<linalg::FillOp>(
              build.loc, zero,
              ValueRange{rewriter.create<tensor::EmptyOp>(
                  build.loc, productType.getShape(), rewriter.getF32Type())})
          .getResult(0);
  Value product = rewriter
                      .create<linalg::BatchMatmulOp>(
                          build.loc, TypeRange{productType},
                          ValueRange{lhs, rhs}, ValueRange{productInit})
                      .getResult(0);
  Value expanded = rewriter.create<tensor::ExpandShapeOp>(
      build.loc,
      RankedTensorType::get({a, a, n, th, tw, features}, rewriter.getF32Type()),
      product, batchTilesChannels);

  // O[i, a2, n, th, tw, f] = sum_a1 A^T[i, a1] M[a1, a2, n, th, tw, f].
  SmallVector<Value> productRows = build.sliceEach(expanded, 0, a, 1, 1);
  Value o = build.combine({m, a, n, th, tw, features}, matrices.at, m,
                          /*coefficientLoop=*/0, productRows,
                          build.dims(6, {1, 2, 3, 4, 5}));
  // Y[n, th, i, tw, j, f] = sum_a2 A^T[j, a2] O[i, a2, n, th, tw, f].
  SmallVector<Value> oColumns = build.sliceEach(o, 1, a, 1, 1);
  Value y = build.combine({n, th, m, tw, m, features}, matrices.at, m,
                          /*coefficientLoop=*/4, oColumns,
                          build.dims(6, {2, 0, 1, 3, 5}));
  y.getDefiningOp()->setAttr(tcl::kWinogradOutputAttrName,
                             rewriter.getUnitAttr());
  rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
      conv, outputType, y,
      SmallVector<ReassociationIndices>{{0}, {1, 2}, {3, 4}, {5}});
}

struct WinogradConvolutionsPass
    : public mlir::tcl::impl::WinogradConvolutionsBase<
          WinogradConvolutionsPass> {
  using WinogradConvolutionsBase::WinogradConvolutionsBase;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<WinogradCandidate> candidates;
    getOperation().walk([&](linalg::Conv2DNhwcHwcfOp conv) {
      if (std::optional<WinogradCandidate> candidate =
              getWinogradCandidate(conv, minChannels))
        candidates.push_back(*candidate);
    });
    for (const WinogradCandidate &candidate : candidates)
      rewriteByWinograd(candidate, rewriter);
  }
};

} // namespace
