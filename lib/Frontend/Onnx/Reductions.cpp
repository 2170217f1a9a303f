//===- Reductions.cpp - ONNX reductions to linalg.generic -----------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// ReduceMean and GlobalAveragePool: a sum over the reduced dimensions (one
// linalg.generic), then a division by their element count.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::tcl;
using namespace mlir::tcl::onnx_import;

/// Sum of `x` over `axes` (sorted), keeping them as size-1 dims if `keep`.
Value onnx_import::reduceSum(Importer &im, Value x,
                             llvm::ArrayRef<int64_t> axes, bool keep) {
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
  Value sum = im.generic(
      {x}, im.filled(reduced, 0.0f),
      {AffineMap::getMultiDimIdentityMap(rank, ctx),
       AffineMap::get(rank, 0, outExprs, ctx)},
      iterators, [](OpBuilder &b, Location loc, ValueRange args) {
        return b.create<arith::AddFOp>(loc, args[0], args[1]).getResult();
      });
  if (!keep)
    return sum;
  SmallVector<int64_t> kept(xs.begin(), xs.end());
  for (int64_t axis : axes)
    kept[axis] = 1;
  return im.reshape(sum, kept);
}

namespace {

llvm::Error divideBy(Importer &im, const onnx::NodeProto &node, Value value,
                     float divisor) {
  Value scale = im.f32Constant(divisor);
  auto result = im.elementwise(
      node, {value}, [scale](OpBuilder &b, Location loc, ValueRange args) {
        return b.create<arith::DivFOp>(loc, args[0], scale).getResult();
      });
  return im.define(node, std::move(result));
}

llvm::Error convertGlobalAveragePool(Importer &im,
                                     const onnx::NodeProto &node) {
  Value x;
  if (llvm::Error e = im.inputs(node, x))
    return e;
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  if (xs.size() < 3)
    return error(Importer::describe(node) + ": needs a spatial dimension");
  SmallVector<int64_t> axes;
  float count = 1;
  for (size_t d = 2; d < xs.size(); ++d) {
    axes.push_back(d);
    count *= xs[d];
  }
  return divideBy(im, node, reduceSum(im, x, axes, /*keep=*/true), count);
}

llvm::Error convertReduceMean(Importer &im, const onnx::NodeProto &node) {
  Value x;
  if (llvm::Error e = im.inputs(node, x))
    return e;
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  int64_t rank = xs.size();
  std::vector<int64_t> axes = Importer::getInts(node, "axes");
  if (const ConstantData *given = im.constant(node, 1))
    axes = given->ints;
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  float count = 1;
  for (int64_t &axis : axes) {
    llvm::Expected<int64_t> normalized =
        Importer::normalizeAxis(node, axis, rank, rank);
    if (!normalized)
      return normalized.takeError();
    axis = *normalized;
    count *= xs[axis];
  }
  llvm::sort(axes);
  bool keep = Importer::getInt(node, "keepdims", 1) != 0;
  return divideBy(im, node, reduceSum(im, x, axes, keep), count);
}

} // namespace

void onnx_import::registerReductionConverters(ConverterTable &table) {
  table.insert({
      {"GlobalAveragePool", convertGlobalAveragePool},
      {"ReduceMean", convertReduceMean},
  });
}
