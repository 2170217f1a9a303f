//===- Reductions.cpp - ONNX reductions to linalg.generic -----------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The Reduce* family, ArgMax and ArgMin, the global pools and CumSum: each a
// linalg.generic that folds the reduced dimensions into an accumulator,
// with an elementwise op before (|x|, x^2) or after (sqrt, log, the mean's
// division) where the reduction has one.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <limits>

using namespace mlir;
using namespace mlir::tcl;
using namespace mlir::tcl::onnx_import;

/// Folds `x` over `axes` (sorted) into a tensor of the remaining dimensions.
/// `body` gets an element of `x`, the matching element of each of `rows`
/// (tensors of the remaining dimensions, such as a row's maximum) and the
/// accumulator, which starts at `init`.
Value onnx_import::reduce(
    Importer &im, Value x, llvm::ArrayRef<Value> rows,
    llvm::ArrayRef<int64_t> axes, TypedAttr init,
    std::function<Value(OpBuilder &, Location, ValueRange)> body) {
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  size_t rank = xs.size();
  SmallVector<int64_t> reduced;
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iterators;
  for (size_t d = 0; d < rank; ++d) {
    bool isAxis = llvm::is_contained(axes, (int64_t)d);
    iterators.push_back(isAxis ? utils::IteratorType::reduction
                               : utils::IteratorType::parallel);
    if (!isAxis) {
      reduced.push_back(xs[d]);
      outExprs.push_back(im.b.getAffineDimExpr(d));
    }
  }
  MLIRContext *ctx = im.b.getContext();
  AffineMap row = AffineMap::get(rank, 0, outExprs, ctx);
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx)};
  maps.append(rows.size() + 1, row);
  SmallVector<Value> inputs = {x};
  inputs.append(rows.begin(), rows.end());
  return im.generic(inputs, im.filled(reduced, init), maps, iterators, body);
}

/// `value` of `x`'s shape with `axes` (sorted) kept as size-1 dimensions.
static Value keepAxes(Importer &im, Value value, llvm::ArrayRef<int64_t> xs,
                      llvm::ArrayRef<int64_t> axes) {
  SmallVector<int64_t> kept(xs.begin(), xs.end());
  for (int64_t axis : axes)
    kept[axis] = 1;
  return im.reshape(value, kept);
}

/// Sum of `x` over `axes` (sorted), keeping them as size-1 dims if `keep`.
Value onnx_import::reduceSum(Importer &im, Value x,
                             llvm::ArrayRef<int64_t> axes, bool keep) {
  Value sum = reduce(
      im, x, {}, axes, im.b.getF32FloatAttr(0),
      [](OpBuilder &b, Location loc, ValueRange args) {
        return b.create<arith::AddFOp>(loc, args[0], args[1]).getResult();
      });
  return keep ? keepAxes(im, sum, Importer::shapeOf(x), axes) : sum;
}

namespace {

/// The reduced axes of a Reduce* node, normalized and sorted: its axes input
/// (ReduceSum from opset 13, the others from opset 18) or attribute (before),
/// all axes when none are given, or nullopt when none are given and
/// noop_with_empty_axes makes the node an identity.
llvm::Expected<std::optional<std::vector<int64_t>>>
reductionAxes(Importer &im, const onnx::NodeProto &node, int64_t rank) {
  std::vector<int64_t> axes = Importer::getInts(node, "axes");
  if (im.hasInput(node, 1)) {
    const ConstantData *given = im.constant(node, 1);
    if (!given || given->isFloat() || given->shape.size() > 1)
      return error(Importer::describe(node) +
                   ": its axes must be a 1-D integer tensor known at "
                   "compile time (a constant, or computed from shapes)");
    axes = given->ints;
  }
  if (axes.empty()) {
    if (Importer::getInt(node, "noop_with_empty_axes", 0) != 0)
      return std::nullopt;
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  for (int64_t &axis : axes) {
    llvm::Expected<int64_t> normalized =
        Importer::normalizeAxis(node, axis, rank, rank);
    if (!normalized)
      return normalized.takeError();
    axis = *normalized;
  }
  llvm::sort(axes);
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    return error(Importer::describe(node) + ": axis " +
                 std::to_string(*std::adjacent_find(axes.begin(), axes.end())) +
                 " is given twice");
  return axes;
}

/// How a reduction folds its elements.
enum class Fold { Add, Mul, Max, Min };

/// The start of a fold on `type` (f32 or i64): its identity element.
TypedAttr foldIdentity(OpBuilder &b, Fold fold, Type type) {
  bool isFloat = type.isF32();
  switch (fold) {
  case Fold::Add:
    return isFloat ? TypedAttr(b.getF32FloatAttr(0)) : b.getI64IntegerAttr(0);
  case Fold::Mul:
    return isFloat ? TypedAttr(b.getF32FloatAttr(1)) : b.getI64IntegerAttr(1);
  case Fold::Max:
    return isFloat ? TypedAttr(b.getF32FloatAttr(
                         -std::numeric_limits<float>::infinity()))
                   : b.getI64IntegerAttr(std::numeric_limits<int64_t>::min());
  case Fold::Min:
    return isFloat ? TypedAttr(b.getF32FloatAttr(
                         std::numeric_limits<float>::infinity()))
                   : b.getI64IntegerAttr(std::numeric_limits<int64_t>::max());
  }
  llvm_unreachable("unknown fold");
}

Value foldStep(OpBuilder &b, Location loc, Fold fold, Value acc, Value x) {
  bool isFloat = isa<FloatType>(x.getType());
  switch (fold) {
  case Fold::Add:
    return isFloat ? b.create<arith::AddFOp>(loc, acc, x).getResult()
                   : b.create<arith::AddIOp>(loc, acc, x).getResult();
  case Fold::Mul:
    return isFloat ? b.create<arith::MulFOp>(loc, acc, x).getResult()
                   : b.create<arith::MulIOp>(loc, acc, x).getResult();
  case Fold::Max:
    return isFloat ? b.create<arith::MaximumFOp>(loc, acc, x).getResult()
                   : b.create<arith::MaxSIOp>(loc, acc, x).getResult();
  case Fold::Min:
    return isFloat ? b.create<arith::MinimumFOp>(loc, acc, x).getResult()
                   : b.create<arith::MinSIOp>(loc, acc, x).getResult();
  }
  llvm_unreachable("unknown fold");
}

using ScalarFn = std::function<Value(OpBuilder &, Location, Value)>;

/// A Reduce* operator: elements mapped by `before` (none: as they are),
/// folded, the results mapped by `after` (given the reduced element count).
struct Reduction {
  Fold fold;
  ScalarFn before;
  std::function<Value(OpBuilder &, Location, Value, float count)> after;
  /// Whether noop_with_empty_axes (no axes given) makes it the identity.
  /// ONNX leaves it undefined for the reductions that map their elements
  /// or results (its reference squares them for ReduceSumSquare): tcl does
  /// not guess there.
  bool noopIsIdentity = true;
  /// Whether it is defined on integers (those without before and after).
  bool onIntegers() const { return !before && !after; }
};

/// |x|, x^2, and the float constant `value`, in a payload body.
Value absolute(OpBuilder &b, Location loc, Value x) {
  return b.create<math::AbsFOp>(loc, x);
}
Value square(OpBuilder &b, Location loc, Value x) {
  return b.create<arith::MulFOp>(loc, x, x);
}
Value constantF32(OpBuilder &b, Location loc, float value) {
  return b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(value));
}

Converter reduction(Reduction r) {
  return [r](Importer &im, const onnx::NodeProto &node) -> llvm::Error {
    Value x;
    if (llvm::Error e = im.inputs(node, x))
      return e;
    llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
    Type type = Importer::elementTypeOf(x);
    if (Importer::isBool(x) || (!type.isF32() && !r.onIntegers()))
      return error(Importer::describe(node) + ": " +
                   (Importer::isBool(x) ? "bool" : "integer") +
                   " inputs are not supported");
    auto axes = reductionAxes(im, node, xs.size());
    if (!axes)
      return axes.takeError();
    if (!*axes) {
      if (!r.noopIsIdentity)
        return error(Importer::describe(node) +
                     ": noop_with_empty_axes without axes is not supported "
                     "for " +
                     node.op_type());
      im.define(node, x);
      return llvm::Error::success();
    }
    float count = 1;
    for (int64_t axis : **axes)
      count *= xs[axis];
    Value result = reduce(im, x, {}, **axes, foldIdentity(im.b, r.fold, type),
                          [&](OpBuilder &b, Location loc, ValueRange args) {
                            Value element =
                                r.before ? r.before(b, loc, args[0]) : args[0];
                            return foldStep(b, loc, r.fold, args[1], element);
                          });
    if (r.after) {
      auto mapped = im.elementwise(
          node, {result}, [&](OpBuilder &b, Location loc, ValueRange args) {
            return r.after(b, loc, args[0], count);
          });
      if (!mapped)
        return mapped.takeError();
      result = *mapped;
    }
    if (Importer::getInt(node, "keepdims", 1) != 0)
      result = keepAxes(im, result, xs, **axes);
    im.define(node, result);
    return llvm::Error::success();
  };
}

/// log(sum(exp(x))) computed as max + log(sum(exp(x - max))), which does not
/// overflow.
llvm::Error convertReduceLogSumExp(Importer &im, const onnx::NodeProto &node) {
  Value x;
  if (llvm::Error e = im.inputs(node, x))
    return e;
  if (!Importer::elementTypeOf(x).isF32())
    return error(Importer::describe(node) +
                 ": integer and bool inputs are not supported");
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  auto axes = reductionAxes(im, node, xs.size());
  if (!axes)
    return axes.takeError();
  if (!*axes)
    return error(Importer::describe(node) +
                 ": noop_with_empty_axes without axes is not supported for "
                 "ReduceLogSumExp");
  Value max = reduce(im, x, {}, **axes,
                     foldIdentity(im.b, Fold::Max, im.b.getF32Type()),
                     [](OpBuilder &b, Location loc, ValueRange args) {
                       return foldStep(b, loc, Fold::Max, args[1], args[0]);
                     });
  Value sum = reduce(
      im, x, {max}, **axes, im.b.getF32FloatAttr(0),
      [](OpBuilder &b, Location loc, ValueRange args) {
        Value shifted = b.create<math::ExpOp>(
            loc, b.create<arith::SubFOp>(loc, args[0], args[1]));
        return b.create<arith::AddFOp>(loc, args[2], shifted).getResult();
      });
  auto result = im.elementwise(
      node, {sum, max}, [](OpBuilder &b, Location loc, ValueRange args) {
        return b
            .create<arith::AddFOp>(loc, b.create<math::LogOp>(loc, args[0]),
                                   args[1])
            .getResult();
      });
  if (!result)
    return result.takeError();
  bool keep = Importer::getInt(node, "keepdims", 1) != 0;
  im.define(node, keep ? keepAxes(im, *result, xs, **axes) : *result);
  return llvm::Error::success();
}

/// ArgMax and ArgMin: the row's extreme value, then the first (or with
/// select_last_index, the last) index along the axis that holds it, as i64.
llvm::Error convertArgExtreme(Importer &im, const onnx::NodeProto &node,
                              Fold extreme) {
  Value x;
  if (llvm::Error e = im.inputs(node, x))
    return e;
  if (Importer::isBool(x))
    return error(Importer::describe(node) + ": bool inputs are not supported");
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  int64_t rank = xs.size();
  llvm::Expected<int64_t> normalized = Importer::axisAttribute(node, rank, 0);
  if (!normalized)
    return normalized.takeError();
  int64_t axis = *normalized;
  bool last = Importer::getInt(node, "select_last_index", 0) != 0;
  Type type = Importer::elementTypeOf(x);
  Value best = reduce(im, x, {}, {axis}, foldIdentity(im.b, extreme, type),
                      [&](OpBuilder &b, Location loc, ValueRange args) {
                        return foldStep(b, loc, extreme, args[1], args[0]);
                      });
  // The index: the smallest (largest) position whose element is the best.
  Fold pick = last ? Fold::Max : Fold::Min;
  TypedAttr none = foldIdentity(im.b, pick, im.b.getI64Type());
  Value index =
      reduce(im, x, {best}, {axis}, none,
             [&](OpBuilder &b, Location loc, ValueRange args) {
               Value here = b.create<arith::IndexCastOp>(
                   loc, b.getI64Type(), b.create<linalg::IndexOp>(loc, axis));
               // A NaN is the extreme (maximumf and minimumf propagate it), and
               // equal to nothing: match NaNs themselves, as numpy does.
               Value isBest;
               if (isa<FloatType>(args[0].getType()))
                 isBest = b.create<arith::OrIOp>(
                     loc,
                     b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OEQ,
                                             args[0], args[1]),
                     b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNO,
                                             args[0], args[0]));
               else
                 isBest = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                                  args[0], args[1]);
               Value candidate = b.create<arith::SelectOp>(
                   loc, isBest, here, b.create<arith::ConstantOp>(loc, none));
               return foldStep(b, loc, pick, args[2], candidate);
             });
  if (Importer::getInt(node, "keepdims", 1) != 0)
    index = keepAxes(im, index, xs, {axis});
  im.define(node, index);
  return llvm::Error::success();
}

/// The global pools reduce the spatial dimensions (from 2 on), keeping them.
llvm::Expected<std::vector<int64_t>> spatialAxes(const onnx::NodeProto &node,
                                                 llvm::ArrayRef<int64_t> xs) {
  if (xs.size() < 3)
    return error(Importer::describe(node) + ": needs a spatial dimension");
  std::vector<int64_t> axes;
  for (size_t d = 2; d < xs.size(); ++d)
    axes.push_back(d);
  return axes;
}

llvm::Error convertGlobalPool(Importer &im, const onnx::NodeProto &node,
                              bool max) {
  Value x;
  if (llvm::Error e = im.inputs(node, x))
    return e;
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  if (!Importer::elementTypeOf(x).isF32())
    return error(Importer::describe(node) + ": needs a float input");
  auto axes = spatialAxes(node, xs);
  if (!axes)
    return axes.takeError();
  if (max) {
    Value result = reduce(
        im, x, {}, *axes, foldIdentity(im.b, Fold::Max, im.b.getF32Type()),
        [](OpBuilder &b, Location loc, ValueRange args) {
          return foldStep(b, loc, Fold::Max, args[1], args[0]);
        });
    im.define(node, keepAxes(im, result, xs, *axes));
    return llvm::Error::success();
  }
  float count = 1;
  for (int64_t axis : *axes)
    count *= xs[axis];
  Value divisor = im.f32Constant(count);
  auto result = im.elementwise(
      node, {reduceSum(im, x, *axes, /*keep=*/true)},
      [&](OpBuilder &b, Location loc, ValueRange args) {
        return b.create<arith::DivFOp>(loc, args[0], divisor).getResult();
      });
  return im.define(node, std::move(result));
}

/// CumSum: y[..., i, ...] = sum of x[..., j, ...] over j <= i (j < i when
/// exclusive; j >= i, j > i when reversed), as a reduction over a second
/// index j along the axis.
llvm::Error convertCumSum(Importer &im, const onnx::NodeProto &node) {
  Value x;
  if (llvm::Error e = im.inputs(node, x))
    return e;
  if (Importer::isBool(x))
    return error(Importer::describe(node) + ": bool inputs are not supported");
  const ConstantData *given = im.constant(node, 1);
  if (!given || given->isFloat() || given->size() != 1)
    return error(Importer::describe(node) +
                 ": its axis must be an integer scalar known at compile time");
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  int64_t rank = xs.size();
  llvm::Expected<int64_t> normalized =
      Importer::normalizeAxis(node, given->ints[0], rank, rank);
  if (!normalized)
    return normalized.takeError();
  int64_t axis = *normalized;
  bool exclusive = Importer::getInt(node, "exclusive", 0) != 0;
  bool reverse = Importer::getInt(node, "reverse", 0) != 0;
  MLIRContext *ctx = im.b.getContext();
  SmallVector<AffineExpr> inExprs;
  for (int64_t d = 0; d < rank; ++d)
    inExprs.push_back(im.b.getAffineDimExpr(d == axis ? rank : d));
  SmallVector<AffineExpr> outExprs;
  for (int64_t d = 0; d < rank; ++d)
    outExprs.push_back(im.b.getAffineDimExpr(d));
  SmallVector<utils::IteratorType> iterators(rank + 1,
                                             utils::IteratorType::parallel);
  iterators.back() = utils::IteratorType::reduction;
  Type type = Importer::elementTypeOf(x);
  arith::CmpIPredicate taken =
      reverse
          ? (exclusive ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::sge)
          : (exclusive ? arith::CmpIPredicate::slt : arith::CmpIPredicate::sle);
  Value result =
      im.generic({x}, im.filled(xs, foldIdentity(im.b, Fold::Add, type)),
                 {AffineMap::get(rank + 1, 0, inExprs, ctx),
                  AffineMap::get(rank + 1, 0, outExprs, ctx)},
                 iterators, [&](OpBuilder &b, Location loc, ValueRange args) {
                   Value i = b.create<linalg::IndexOp>(loc, axis);
                   Value j = b.create<linalg::IndexOp>(loc, rank);
                   Value counted = b.create<arith::CmpIOp>(loc, taken, j, i);
                   Value zero = b.create<arith::ConstantOp>(
                       loc, foldIdentity(b, Fold::Add, args[0].getType()));
                   Value term =
                       b.create<arith::SelectOp>(loc, counted, args[0], zero);
                   return foldStep(b, loc, Fold::Add, args[1], term);
                 });
  im.define(node, result);
  return llvm::Error::success();
}

} // namespace

void onnx_import::registerReductionConverters(ConverterTable &table) {
  using After = std::function<Value(OpBuilder &, Location, Value, float)>;
  table.insert({
      {"GlobalAveragePool",
       [](Importer &im, const onnx::NodeProto &node) {
         return convertGlobalPool(im, node, /*max=*/false);
       }},
      {"GlobalMaxPool",
       [](Importer &im, const onnx::NodeProto &node) {
         return convertGlobalPool(im, node, /*max=*/true);
       }},
      {"ReduceSum", reduction({Fold::Add, nullptr, nullptr})},
      {"ReduceProd", reduction({Fold::Mul, nullptr, nullptr})},
      {"ReduceMax", reduction({Fold::Max, nullptr, nullptr})},
      {"ReduceMin", reduction({Fold::Min, nullptr, nullptr})},
      {"ReduceMean",
       reduction({Fold::Add, nullptr,
                  After([](OpBuilder &b, Location loc, Value sum, float count) {
                    return b.create<arith::DivFOp>(loc, sum,
                                                   constantF32(b, loc, count));
                  })})},
      {"ReduceL1", reduction({Fold::Add, absolute, nullptr, false})},
      {"ReduceL2",
       reduction({Fold::Add, square,
                  After([](OpBuilder &b, Location loc, Value sum, float) {
                    return b.create<math::SqrtOp>(loc, sum).getResult();
                  }),
                  false})},
      {"ReduceSumSquare", reduction({Fold::Add, square, nullptr, false})},
      {"ReduceLogSum",
       reduction({Fold::Add, nullptr,
                  After([](OpBuilder &b, Location loc, Value sum, float) {
                    return b.create<math::LogOp>(loc, sum).getResult();
                  }),
                  false})},
      {"ReduceLogSumExp", convertReduceLogSumExp},
      {"ArgMax",
       [](Importer &im, const onnx::NodeProto &node) {
         return convertArgExtreme(im, node, Fold::Max);
       }},
      {"ArgMin",
       [](Importer &im, const onnx::NodeProto &node) {
         return convertArgExtreme(im, node, Fold::Min);
       }},
      {"CumSum", convertCumSum},
  });
}
