//===- NN.cpp - ONNX normalizations, Softmax and matrix products ----------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// BatchNormalization, LayerNormalization, Softmax and LogSoftmax as
// linalg.generic ops; Gemm and MatMul as linalg matmuls (batched or with a
// transposed B where ONNX's operands are).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tcl;
using namespace mlir::tcl::onnx_import;

/// Mean and variance of `x` over `axes` (sorted): the mean, x - mean, and
/// 1 / sqrt(variance + epsilon), the biased variance as ONNX's
/// normalizations take it.
llvm::Expected<Standardized>
onnx_import::standardize(Importer &im, const onnx::NodeProto &node, Value x,
                         llvm::ArrayRef<int64_t> axes, float epsilon) {
  if (!Importer::elementTypeOf(x).isF32())
    return error(Importer::describe(node) + ": needs a float input");
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  float count = 1;
  for (int64_t axis : axes)
    count *= xs[axis];
  Value divisor = im.f32Constant(count);
  auto mean = [&](Value sum) {
    return im.elementwise(
        node, {sum}, [&](OpBuilder &b, Location loc, ValueRange args) {
          return b.create<arith::DivFOp>(loc, args[0], divisor).getResult();
        });
  };
  auto average = mean(reduceSum(im, x, axes, /*keep=*/true));
  if (!average)
    return average.takeError();
  auto centered = im.elementwise(
      node, {x, *average}, [](OpBuilder &b, Location loc, ValueRange args) {
        return b.create<arith::SubFOp>(loc, args[0], args[1]).getResult();
      });
  if (!centered)
    return centered.takeError();
  auto squares = im.elementwise(
      node, {*centered}, [](OpBuilder &b, Location loc, ValueRange args) {
        return b.create<arith::MulFOp>(loc, args[0], args[0]).getResult();
      });
  if (!squares)
    return squares.takeError();
  auto variance = mean(reduceSum(im, *squares, axes, /*keep=*/true));
  if (!variance)
    return variance.takeError();
  Value eps = im.f32Constant(epsilon);
  auto inverse = im.elementwise(
      node, {*variance}, [&](OpBuilder &b, Location loc, ValueRange args) {
        return b
            .create<math::RsqrtOp>(loc,
                                   b.create<arith::AddFOp>(loc, args[0], eps))
            .getResult();
      });
  if (!inverse)
    return inverse.takeError();
  return Standardized{*centered, *average, *inverse};
}

namespace {

llvm::Error convertBatchNorm(Importer &im, const onnx::NodeProto &node) {
  Value x;
  if (llvm::Error e = im.inputs(node, x))
    return e;
  if (Importer::getInt(node, "training_mode", 0) != 0 ||
      (node.output_size() > 1 && !node.output(1).empty()))
    return error(Importer::describe(node) +
                 ": training mode (running "
                 "statistics outputs) is not supported");
  float epsilon = Importer::getFloat(node, "epsilon", 1e-5f);
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  if (xs.size() < 2)
    return error(Importer::describe(node) + ": needs a channel dimension");
  int64_t c = xs[1];
  // Parameters become [C, 1, ..., 1] so they broadcast over [N, C, ...].
  std::vector<int64_t> paramShape(xs.size() - 1, 1);
  paramShape[0] = c;
  const ConstantData *scale = im.constant(node, 1),
                     *bias = im.constant(node, 2), *mean = im.constant(node, 3),
                     *var = im.constant(node, 4);
  std::vector<Value> inputs = {x};
  const ConstantData *parameters[] = {scale, bias, mean, var};
  const char *names[] = {"scale", "bias", "mean", "var"};
  for (int i = 0; i < 4; ++i)
    if (parameters[i] && (!parameters[i]->isFloat() ||
                          parameters[i]->shape != std::vector<int64_t>{c}))
      return error(Importer::describe(node) + ": its " + names[i] +
                   " has shape " + formatShape(parameters[i]->shape) +
                   "; it must be a float tensor of " + std::to_string(c) +
                   " entries, one per channel");
  if (scale && bias && mean && var) {
    // The usual case (initializers): y = x * a + b, a and b computed here,
    // as two ops so that tcl-fold-batch-norm can move the scale into a
    // convolution before.
    std::vector<float> a(c), shift(c);
    for (int64_t i = 0; i < c; ++i) {
      a[i] = scale->floats[i] / std::sqrt(var->floats[i] + epsilon);
      shift[i] = bias->floats[i] - mean->floats[i] * a[i];
    }
    auto arithmetic = [&](Value value, llvm::ArrayRef<float> parameter,
                          bool multiply) {
      return im.elementwise(
          node, {value, im.denseConstant(paramShape, parameter)},
          [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
            if (multiply)
              return b.create<arith::MulFOp>(loc, args[0], args[1]);
            return b.create<arith::AddFOp>(loc, args[0], args[1]);
          });
    };
    auto scaled = arithmetic(x, a, /*multiply=*/true);
    if (!scaled)
      return scaled.takeError();
    return im.define(node, arithmetic(*scaled, shift, /*multiply=*/false));
  }
  {
    for (int index = 1; index <= 4; ++index) {
      Value value;
      if (llvm::Error e = im.input(node, index, value))
        return e;
      if (Importer::shapeOf(value) != llvm::ArrayRef<int64_t>{c})
        return error(Importer::describe(node) + ": parameters must have " +
                     std::to_string(c) + " channels");
      inputs.push_back(im.reshape(value, paramShape));
    }
  }
  auto result = im.elementwise(
      node, inputs, [&](OpBuilder &b, Location loc, ValueRange args) {
        // (x - mean) * scale / sqrt(var + epsilon) + bias
        Value eps =
            b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(epsilon));
        Value centered = b.create<arith::SubFOp>(loc, args[0], args[3]);
        Value deviation = b.create<math::SqrtOp>(
            loc, b.create<arith::AddFOp>(loc, args[4], eps));
        Value normalized = b.create<arith::DivFOp>(
            loc, b.create<arith::MulFOp>(loc, centered, args[1]), deviation);
        return b.create<arith::AddFOp>(loc, normalized, args[2]).getResult();
      });
  return im.define(node, std::move(result));
}

Value transpose2D(Importer &im, Value x) {
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  Value init = im.empty({xs[1], xs[0]});
  return im.b
      .create<linalg::TransposeOp>(im.loc, x, init,
                                   llvm::ArrayRef<int64_t>{1, 0})
      .getResult()[0];
}

llvm::Error convertGemm(Importer &im, const onnx::NodeProto &node) {
  Value a, bm;
  if (llvm::Error e = im.inputs(node, a, bm))
    return e;
  Value lhs = a, rhs = bm;
  if (Importer::shapeOf(lhs).size() != 2 || Importer::shapeOf(rhs).size() != 2)
    return error(Importer::describe(node) + ": A and B must be matrices");
  if (Importer::getInt(node, "transA", 0))
    lhs = transpose2D(im, lhs);
  bool transB = Importer::getInt(node, "transB", 0) != 0;
  // A constant B (a classifier's or a linear layer's weights, usually
  // stored transposed) is transposed once here, so the product is a plain
  // matmul whose schedules vectorize along B's contiguous rows: as
  // matmul_transpose_b, every vector of B is a strided gather (ResNet-18's
  // 1x512 -> 1000 classifier: 0.47 ms instead of 0.04 ms).
  if (const ConstantData *weights = im.constant(node, 1); transB && weights) {
    rhs = im.materialize(permuteConstant(*weights, {1, 0}));
    transB = false;
  }
  int64_t m = Importer::shapeOf(lhs)[0], k = Importer::shapeOf(lhs)[1];
  int64_t n = transB ? Importer::shapeOf(rhs)[0] : Importer::shapeOf(rhs)[1];
  int64_t rk = transB ? Importer::shapeOf(rhs)[1] : Importer::shapeOf(rhs)[0];
  if (rk != k)
    return error(Importer::describe(node) + ": inner dimensions differ");
  Value init = im.filled({m, n}, 0.0f);
  Value product = transB ? im.b.create<linalg::MatmulTransposeBOp>(
                                   im.loc, TypeRange{init.getType()},
                                   ValueRange{lhs, rhs}, ValueRange{init})
                               .getResult(0)
                         : im.b.create<linalg::MatmulOp>(
                                   im.loc, TypeRange{init.getType()},
                                   ValueRange{lhs, rhs}, ValueRange{init})
                               .getResult(0);
  float alpha = Importer::getFloat(node, "alpha", 1.0f);
  float beta = Importer::getFloat(node, "beta", 1.0f);
  std::vector<Value> inputs = {product};
  Value c;
  if (llvm::Error e = im.optionalInput(node, 2, c))
    return e;
  if (c)
    inputs.push_back(c);
  if (inputs.size() == 1 && alpha == 1.0f) {
    im.define(node, product);
    return llvm::Error::success();
  }
  auto result = im.elementwise(
      node, inputs, [&](OpBuilder &b, Location loc, ValueRange args) {
        Value v = args[0];
        if (alpha != 1.0f)
          v = b.create<arith::MulFOp>(
              loc, v,
              b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(alpha)));
        if (args.size() > 2) {
          Value c = args[1];
          if (beta != 1.0f)
            c = b.create<arith::MulFOp>(
                loc, c,
                b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(beta)));
          v = b.create<arith::AddFOp>(loc, v, c);
        }
        return v;
      });
  return im.define(node, std::move(result));
}

llvm::Error convertMatMul(Importer &im, const onnx::NodeProto &node) {
  Value a, bm;
  if (llvm::Error e = im.inputs(node, a, bm))
    return e;
  llvm::ArrayRef<int64_t> as = Importer::shapeOf(a), bs = Importer::shapeOf(bm);
  if (as.size() >= 2 && bs.size() == 2 && as.back() == bs[0]) {
    // [..., M, K] x [K, N]: fold the leading dims into M.
    int64_t rows = std::accumulate(as.begin(), as.end() - 1, int64_t(1),
                                   std::multiplies<int64_t>());
    Value lhs = im.reshape(a, {rows, as.back()});
    Value init = im.filled({rows, bs[1]}, 0.0f);
    Value product =
        im.b.create<linalg::MatmulOp>(im.loc, TypeRange{init.getType()},
                                      ValueRange{lhs, bm}, ValueRange{init})
            .getResult(0);
    SmallVector<int64_t> shape(as.begin(), as.end() - 1);
    shape.push_back(bs[1]);
    im.define(node, im.reshape(product, shape));
    return llvm::Error::success();
  }
  if (as.size() == bs.size() && as.size() >= 3 &&
      as.drop_back(2) == bs.drop_back(2) && as.back() == bs[bs.size() - 2]) {
    int64_t batch = std::accumulate(as.begin(), as.end() - 2, int64_t(1),
                                    std::multiplies<int64_t>());
    int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
    Value lhs = im.reshape(a, {batch, m, k});
    Value rhs = im.reshape(bm, {batch, k, n});
    Value init = im.filled({batch, m, n}, 0.0f);
    Value product = im.b.create<linalg::BatchMatmulOp>(
                            im.loc, TypeRange{init.getType()},
                            ValueRange{lhs, rhs}, ValueRange{init})
                        .getResult(0);
    SmallVector<int64_t> shape(as.begin(), as.end() - 1);
    shape.push_back(n);
    im.define(node, im.reshape(product, shape));
    return llvm::Error::success();
  }
  return error(Importer::describe(node) + ": shapes " + formatShape(as) +
               " and " + formatShape(bs) +
               " are not supported (matrix, "
               "stacked-by-matrix and equal-batch products are)");
}

/// Softmax and LogSoftmax: over `axis` (opset >= 13), or over all dimensions
/// from `axis` on (older opsets, which flatten the input to 2-D there).
llvm::Error convertSoftmax(Importer &im, const onnx::NodeProto &node,
                           bool logarithm) {
  Value x;
  if (llvm::Error e = im.inputs(node, x))
    return e;
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  int64_t rank = xs.size();
  bool flattening = im.opset < 13;
  llvm::Expected<int64_t> normalized =
      Importer::axisAttribute(node, rank, flattening ? 1 : -1);
  if (!normalized)
    return normalized.takeError();
  int64_t axis = *normalized;
  auto reduced = [&](int64_t d) { return flattening ? d >= axis : d == axis; };
  MLIRContext *ctx = im.b.getContext();
  SmallVector<AffineExpr> rowExprs;
  SmallVector<int64_t> rows;
  SmallVector<utils::IteratorType> reduce,
      parallel(rank, utils::IteratorType::parallel);
  for (int64_t d = 0; d < rank; ++d) {
    reduce.push_back(reduced(d) ? utils::IteratorType::reduction
                                : utils::IteratorType::parallel);
    if (!reduced(d)) {
      rowExprs.push_back(im.b.getAffineDimExpr(d));
      rows.push_back(xs[d]);
    }
  }
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap row = AffineMap::get(rank, 0, rowExprs, ctx);
  Value max = im.generic(
      {x}, im.filled(rows, -std::numeric_limits<float>::infinity()),
      {identity, row}, reduce, [](OpBuilder &b, Location loc, ValueRange args) {
        return b.create<arith::MaximumFOp>(loc, args[0], args[1]).getResult();
      });
  Value sum =
      im.generic({x, max}, im.filled(rows, 0.0f), {identity, row, row}, reduce,
                 [](OpBuilder &b, Location loc, ValueRange args) {
                   Value e = b.create<math::ExpOp>(
                       loc, b.create<arith::SubFOp>(loc, args[0], args[1]));
                   return b.create<arith::AddFOp>(loc, e, args[2]).getResult();
                 });
  Value result = im.generic(
      {x, max, sum}, im.empty(xs), {identity, row, row, identity}, parallel,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value shifted = b.create<arith::SubFOp>(loc, args[0], args[1]);
        if (logarithm)
          return b
              .create<arith::SubFOp>(loc, shifted,
                                     b.create<math::LogOp>(loc, args[2]))
              .getResult();
        return b
            .create<arith::DivFOp>(loc, b.create<math::ExpOp>(loc, shifted),
                                   args[2])
            .getResult();
      });
  im.define(node, result);
  return llvm::Error::success();
}

/// LayerNormalization (opset 17) over the dimensions from `axis` on, with
/// its optional Mean and InvStdDev outputs.
llvm::Error convertLayerNorm(Importer &im, const onnx::NodeProto &node) {
  Value x, scale;
  if (llvm::Error e = im.inputs(node, x, scale))
    return e;
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  int64_t rank = xs.size();
  llvm::Expected<int64_t> normalized = Importer::axisAttribute(node, rank, -1);
  if (!normalized)
    return normalized.takeError();
  SmallVector<int64_t> axes;
  for (int64_t d = *normalized; d < rank; ++d)
    axes.push_back(d);
  auto parts = standardize(im, node, x, axes,
                           Importer::getFloat(node, "epsilon", 1e-5f));
  if (!parts)
    return parts.takeError();
  std::vector<Value> inputs = {parts->centered, parts->inverse, scale};
  Value bias;
  if (llvm::Error e = im.optionalInput(node, 2, bias))
    return e;
  if (bias)
    inputs.push_back(bias);
  auto y = im.elementwise(
      node, inputs, [](OpBuilder &b, Location loc, ValueRange args) {
        Value v = b.create<arith::MulFOp>(
            loc, b.create<arith::MulFOp>(loc, args[0], args[1]), args[2]);
        if (args.size() > 4)
          v = b.create<arith::AddFOp>(loc, v, args[3]);
        return v;
      });
  if (!y)
    return y.takeError();
  im.define(node, *y);
  if (node.output_size() > 1 && !node.output(1).empty())
    im.define(node, parts->mean, 1);
  if (node.output_size() > 2 && !node.output(2).empty())
    im.define(node, parts->inverse, 2);
  return llvm::Error::success();
}

} // namespace

void onnx_import::registerNNConverters(ConverterTable &table) {
  table.insert({
      {"BatchNormalization", convertBatchNorm},
      {"Gemm", convertGemm},
      {"MatMul", convertMatMul},
      {"Softmax",
       [](Importer &im, const onnx::NodeProto &node) {
         return convertSoftmax(im, node, /*logarithm=*/false);
       }},
      {"LogSoftmax",
       [](Importer &im, const onnx::NodeProto &node) {
         return convertSoftmax(im, node, /*logarithm=*/true);
       }},
      {"LayerNormalization", convertLayerNorm},
  });
}
