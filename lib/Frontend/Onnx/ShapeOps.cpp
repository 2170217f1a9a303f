//===- ShapeOps.cpp - ONNX shape and indexing ops to tensor ops -----------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Ops that move data without arithmetic (Transpose, the reshapes, Concat,
// Gather, Slice, Expand, Identity, inference's Dropout) and ops whose
// results are known at import time (Shape, ConstantOfShape, Range,
// Constant), which only define constants. Shape and index inputs must be
// known at compile time, since tcl's shapes are static.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tcl;
using namespace mlir::tcl::onnx_import;

/// Permutes a tensor with linalg.transpose.
Value onnx_import::transposeTensor(Importer &im, Value x,
                                   llvm::ArrayRef<int64_t> perm) {
  llvm::ArrayRef<int64_t> xs = Importer::shapeOf(x);
  SmallVector<int64_t> shape;
  for (int64_t d : perm)
    shape.push_back(xs[d]);
  return im.b
      .create<linalg::TransposeOp>(
          im.loc, x, im.empty(shape, Importer::elementTypeOf(x)), perm)
      .getResult()[0];
}

/// Transpose's permutation (reversed dimensions by default).
llvm::Expected<std::vector<int64_t>>
onnx_import::transposePermutation(const onnx::NodeProto &node, size_t rank) {
  std::vector<int64_t> perm = Importer::getInts(node, "perm");
  if (perm.empty())
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  std::vector<int64_t> sorted = perm;
  llvm::sort(sorted);
  for (size_t d = 0; d < sorted.size(); ++d)
    if (sorted[d] != static_cast<int64_t>(d) || perm.size() != rank)
      return error(Importer::describe(node) +
                   ": perm is not a permutation of the " +
                   std::to_string(rank) + " dimensions");
  return perm;
}

/// The output shape of the ops that only change the shape: Flatten,
/// Reshape, Squeeze, Unsqueeze.
llvm::Expected<std::vector<int64_t>>
onnx_import::reshapeTarget(Importer &im, const onnx::NodeProto &node,
                           llvm::ArrayRef<int64_t> xs) {
  int64_t rank = xs.size();
  int64_t count = std::accumulate(xs.begin(), xs.end(), int64_t(1),
                                  std::multiplies<int64_t>());
  std::vector<int64_t> shape;
  const std::string &type = node.op_type();
  auto axesOf = [&]() -> std::vector<int64_t> {
    if (const ConstantData *given = im.constant(node, 1))
      return given->ints;
    return Importer::getInts(node, "axes");
  };
  if (im.hasInput(node, 1) && !im.constant(node, 1))
    return error(Importer::describe(node) +
                 ": its shape or axes input must be known at compile time "
                 "(a constant, or computed from shapes)");
  std::string subject = Importer::describe(node);
  // Axes normalized into [0, bound), from [-bound, bound); no duplicates.
  auto normalize = [&](std::vector<int64_t> &axes,
                       int64_t bound) -> llvm::Error {
    for (int64_t &axis : axes) {
      llvm::Expected<int64_t> normalized =
          Importer::normalizeAxis(node, axis, rank, bound);
      if (!normalized)
        return normalized.takeError();
      axis = *normalized;
    }
    std::vector<int64_t> sorted = axes;
    llvm::sort(sorted);
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      return error(
          subject + ": axis " +
          std::to_string(*std::adjacent_find(sorted.begin(), sorted.end())) +
          " is given twice");
    return llvm::Error::success();
  };
  if (type == "Flatten") {
    // Flatten's axis is in [-rank, rank]: rank puts everything outside.
    int64_t axis = Importer::getInt(node, "axis", 1);
    if (axis < -rank || axis > rank)
      return error(subject + ": axis " + std::to_string(axis) +
                   " is out of range for a rank-" + std::to_string(rank) +
                   " input (it must be in [" + std::to_string(-rank) + ", " +
                   std::to_string(rank) + "])");
    if (axis < 0)
      axis += rank;
    int64_t outer = std::accumulate(xs.begin(), xs.begin() + axis, int64_t(1),
                                    std::multiplies<int64_t>());
    shape = {outer, outer ? count / outer : 0};
  } else if (type == "Reshape") {
    const ConstantData *target = im.constant(node, 1);
    if (!target || target->isFloat())
      return error(Importer::describe(node) + ": the target shape must be a "
                                              "constant");
    int64_t inferred = -1;
    for (size_t i = 0; i < target->ints.size(); ++i) {
      int64_t dim = target->ints[i];
      if (dim == 0 && !Importer::getInt(node, "allowzero", 0) && i < xs.size())
        dim = xs[i];
      if (dim < -1 || (dim == -1 && inferred >= 0))
        return error(subject + ": target shape " + formatShape(target->ints) +
                     " is invalid (dimensions are at least 0, or one of "
                     "them is -1)");
      if (dim == -1)
        inferred = i;
      shape.push_back(dim);
    }
    std::vector<int64_t> others = shape;
    if (inferred >= 0)
      others[inferred] = 1;
    std::optional<int64_t> known = elementCount(others);
    if (!known)
      return error(subject + ": cannot reshape " + formatShape(xs) + " into " +
                   formatShape(target->ints));
    if (inferred >= 0 && *known != 0)
      shape[inferred] = count / *known;
  } else if (type == "Squeeze") {
    std::vector<int64_t> axes = axesOf();
    if (llvm::Error e = normalize(axes, rank))
      return std::move(e);
    for (int64_t axis : axes)
      if (xs[axis] != 1)
        return error(subject + ": cannot squeeze axis " + std::to_string(axis) +
                     " of " + formatShape(xs) + ", whose size is not 1");
    for (int64_t d = 0; d < rank; ++d)
      if (!(axes.empty() ? xs[d] == 1 : llvm::is_contained(axes, d)))
        shape.push_back(xs[d]);
  } else { // Unsqueeze
    std::vector<int64_t> axes = axesOf();
    int64_t outRank = rank + axes.size();
    if (llvm::Error e = normalize(axes, outRank))
      return std::move(e);
    size_t next = 0;
    for (int64_t d = 0; d < outRank; ++d)
      shape.push_back(llvm::is_contained(axes, d) ? 1 : xs[next++]);
  }
  std::optional<int64_t> newCount = elementCount(shape);
  if (newCount != count)
    return error(Importer::describe(node) + ": cannot reshape " +
                 formatShape(xs) + " into " + formatShape(shape));
  return shape;
}

/// Which elements Slice takes from each dimension of its data.
llvm::Expected<SliceSpec> onnx_import::sliceSpec(Importer &im,
                                                 const onnx::NodeProto &node,
                                                 llvm::ArrayRef<int64_t> ds) {
  int64_t rank = ds.size();
  std::vector<int64_t> starts, ends, axes, steps;
  if (im.opset < 10) {
    starts = Importer::getInts(node, "starts");
    ends = Importer::getInts(node, "ends");
    axes = Importer::getInts(node, "axes");
  } else {
    for (auto [index, list] : {std::pair(1, &starts), std::pair(2, &ends),
                               std::pair(3, &axes), std::pair(4, &steps)}) {
      if (!im.hasInput(node, index))
        continue;
      const ConstantData *given = im.constant(node, index);
      if (!given || given->isFloat())
        return error(Importer::describe(node) +
                     ": starts, ends, axes and steps must be known at "
                     "compile time (constants, or computed from shapes)");
      *list = given->ints;
    }
  }
  if (axes.empty())
    for (size_t k = 0; k < starts.size(); ++k)
      axes.push_back(k);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return error(Importer::describe(node) +
                 ": starts, ends, axes and steps differ in length");
  SliceSpec spec{std::vector<int64_t>(rank, 0), std::vector<int64_t>(rank, 1),
                 std::vector<int64_t>(ds.begin(), ds.end())};
  for (size_t k = 0; k < starts.size(); ++k) {
    int64_t axis = axes[k] < 0 ? axes[k] + rank : axes[k];
    if (axis < 0 || axis >= rank)
      return error(Importer::describe(node) + ": axis " +
                   std::to_string(axes[k]) + " is out of range for a rank-" +
                   std::to_string(rank) + " input");
    if (llvm::any_of(llvm::ArrayRef(axes).take_front(k),
                     [&](int64_t a) { return (a < 0 ? a + rank : a) == axis; }))
      return error(Importer::describe(node) + ": axis " + std::to_string(axis) +
                   " is sliced twice");
    int64_t dim = ds[axis], step = steps[k];
    if (step == 0)
      return error(Importer::describe(node) + ": a step is 0");
    int64_t start = starts[k] < 0 ? starts[k] + dim : starts[k];
    int64_t end = ends[k] < 0 ? ends[k] + dim : ends[k];
    int64_t size;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
      size = end > start ? (end - start + step - 1) / step : 0;
    } else {
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
      size = start > end ? (start - end - step - 1) / -step : 0;
    }
    spec.starts[axis] = start;
    spec.steps[axis] = step;
    spec.sizes[axis] = size;
  }
  return spec;
}

/// The integer input `index` (a shape, pads), known at compile time.
llvm::Expected<std::vector<int64_t>>
onnx_import::constantInts(Importer &im, const onnx::NodeProto &node,
                          int index) {
  const ConstantData *given = im.constant(node, index);
  if (!given || given->isFloat())
    return error(Importer::describe(node) + ": input " + std::to_string(index) +
                 " must be an integer tensor known at compile time (a "
                 "constant, or computed from shapes)");
  return given->ints;
}

namespace {

llvm::Error convertTranspose(Importer &im, const onnx::NodeProto &node) {
  Value x;
  if (llvm::Error e = im.inputs(node, x))
    return e;
  auto perm = transposePermutation(node, Importer::shapeOf(x).size());
  if (!perm)
    return perm.takeError();
  im.define(node, transposeTensor(im, x, *perm));
  return llvm::Error::success();
}

llvm::Error convertReshapeLike(Importer &im, const onnx::NodeProto &node) {
  Value x;
  if (llvm::Error e = im.inputs(node, x))
    return e;
  auto shape = reshapeTarget(im, node, Importer::shapeOf(x));
  if (!shape)
    return shape.takeError();
  im.define(node, im.reshape(x, *shape));
  return llvm::Error::success();
}

llvm::Error convertConcat(Importer &im, const onnx::NodeProto &node) {
  std::vector<Value> inputs;
  if (llvm::Error e = im.allInputs(node, inputs))
    return e;
  llvm::ArrayRef<int64_t> first = Importer::shapeOf(inputs[0]);
  int64_t rank = first.size();
  llvm::Expected<int64_t> normalized = Importer::axisAttribute(node, rank, 0);
  if (!normalized)
    return normalized.takeError();
  int64_t axis = *normalized;
  SmallVector<int64_t> shape(first.begin(), first.end());
  shape[axis] = 0;
  for (Value value : inputs) {
    llvm::ArrayRef<int64_t> vs = Importer::shapeOf(value);
    bool matches = vs.size() == first.size();
    for (int64_t d = 0; matches && d < rank; ++d)
      matches = d == axis || vs[d] == first[d];
    if (!matches)
      return error(Importer::describe(node) + ": cannot concatenate " +
                   formatShape(first) + " and " + formatShape(vs) +
                   " on axis " + std::to_string(axis) +
                   " (ranks and the other dimensions must be equal)");
    if (Importer::elementTypeOf(value) != Importer::elementTypeOf(inputs[0]))
      return error(Importer::describe(node) + ": inputs differ in type");
    shape[axis] += vs[axis];
  }
  if (llvm::Error e = checkShape(Importer::describe(node), shape))
    return e;
  Value result = im.empty(shape, Importer::elementTypeOf(inputs[0]));
  int64_t offset = 0;
  for (Value value : inputs) {
    result = im.insertAlongAxis(value, result, axis, offset);
    offset += Importer::shapeOf(value)[axis];
  }
  im.define(node, result);
  return llvm::Error::success();
}

/// Gather with constant indices: slices of the data along the axis.
/// Gather with indices known only at run time (token ids into an embedding
/// table, say), or of rank 2 and more: one generic over the output that
/// reads each index and then the data with tensor.extract. An index out of
/// range is clamped into it: ONNX leaves it undefined, and a read past the
/// data must not happen.
Value gatherAtRunTime(Importer &im, Value data, Value indices, int64_t axis) {
  llvm::ArrayRef<int64_t> ds = Importer::shapeOf(data);
  llvm::ArrayRef<int64_t> is = Importer::shapeOf(indices);
  int64_t rank = ds.size(), indexRank = is.size();
  SmallVector<int64_t> shape(ds.begin(), ds.begin() + axis);
  llvm::append_range(shape, is);
  shape.append(ds.begin() + axis + 1, ds.end());
  int64_t outRank = shape.size();
  MLIRContext *ctx = im.b.getContext();
  SmallVector<AffineExpr> indexExprs;
  for (int64_t d = 0; d < indexRank; ++d)
    indexExprs.push_back(im.b.getAffineDimExpr(axis + d));
  int64_t extent = ds[axis];
  return im.extractAt(
      data, shape, {indices}, {AffineMap::get(outRank, 0, indexExprs, ctx)},
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value index = args[0];
        Value zero = b.create<arith::ConstantIntOp>(loc, 0, 64);
        Value size = b.create<arith::ConstantIntOp>(loc, extent, 64);
        Value last = b.create<arith::ConstantIntOp>(loc, extent - 1, 64);
        Value negative = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt,
                                                 index, zero);
        Value wrapped = b.create<arith::SelectOp>(
            loc, negative, b.create<arith::AddIOp>(loc, index, size), index);
        Value clamped = b.create<arith::MinSIOp>(
            loc, b.create<arith::MaxSIOp>(loc, wrapped, zero), last);
        SmallVector<Value> position;
        for (int64_t d = 0; d < rank; ++d) {
          if (d == axis)
            position.push_back(
                b.create<arith::IndexCastOp>(loc, b.getIndexType(), clamped));
          else
            position.push_back(b.create<linalg::IndexOp>(
                loc, d < axis ? d : d + indexRank - 1));
        }
        return position;
      });
}

llvm::Error convertGather(Importer &im, const onnx::NodeProto &node) {
  Value data;
  if (llvm::Error e = im.inputs(node, data))
    return e;
  llvm::ArrayRef<int64_t> ds = Importer::shapeOf(data);
  int64_t rank = ds.size();
  llvm::Expected<int64_t> normalized = Importer::axisAttribute(node, rank, 0);
  if (!normalized)
    return normalized.takeError();
  int64_t axis = *normalized;
  const ConstantData *indices = im.constant(node, 1);
  if (!indices || indices->shape.size() > 1) {
    Value runtime;
    if (llvm::Error e = im.input(node, 1, runtime))
      return e;
    Type indexType = Importer::elementTypeOf(runtime);
    if (!indexType.isInteger(64) || Importer::isBool(runtime))
      return error(Importer::describe(node) + ": indices must be integers");
    if (ds[axis] == 0)
      return error(Importer::describe(node) + ": gathers from an empty axis");
    im.define(node, gatherAtRunTime(im, data, runtime, axis));
    return llvm::Error::success();
  }
  if (indices->isFloat())
    return error(Importer::describe(node) + ": indices must be integers");
  Type element = Importer::elementTypeOf(data);
  SmallVector<Value> slices;
  for (int64_t index : indices->ints) {
    if (index < 0)
      index += ds[axis];
    if (index < 0 || index >= ds[axis])
      return error(Importer::describe(node) + ": index " +
                   std::to_string(index) + " out of range");
    slices.push_back(im.extractAlongAxis(data, axis, index, 1));
  }
  Value result;
  SmallVector<int64_t> shape(ds.begin(), ds.end());
  if (indices->shape.empty()) {
    shape.erase(shape.begin() + axis); // A scalar index drops the axis.
    result = im.reshape(slices[0], shape);
  } else {
    shape[axis] = slices.size();
    result = im.empty(shape, element);
    for (auto [position, slice] : llvm::enumerate(slices))
      result = im.insertAlongAxis(slice, result, axis, position);
  }
  im.define(node, result);
  return llvm::Error::success();
}

llvm::Error convertSlice(Importer &im, const onnx::NodeProto &node) {
  Value data;
  if (llvm::Error e = im.inputs(node, data))
    return e;
  llvm::ArrayRef<int64_t> ds = Importer::shapeOf(data);
  auto spec = sliceSpec(im, node, ds);
  if (!spec)
    return spec.takeError();
  if (llvm::is_contained(spec->sizes, 0))
    return error(Importer::describe(node) + ": the slice is empty");
  Type element = Importer::elementTypeOf(data);
  auto resultType = RankedTensorType::get(spec->sizes, element);
  if (llvm::all_of(spec->steps, [](int64_t step) { return step > 0; })) {
    Value slice = im.b.create<tensor::ExtractSliceOp>(
        im.loc, resultType, data, im.indexAttrs(spec->starts),
        im.indexAttrs(spec->sizes), im.indexAttrs(spec->steps));
    im.define(node, slice);
    return llvm::Error::success();
  }
  // Negative steps: each element reads data[start + i * step] (affine maps
  // with negative coefficients do not tile).
  int64_t rank = ds.size();
  Value result = im.extractAt(
      data, spec->sizes, {}, {}, [&](OpBuilder &b, Location loc, ValueRange) {
        SmallVector<Value> indices;
        for (int64_t d = 0; d < rank; ++d) {
          Value i = b.create<linalg::IndexOp>(loc, d);
          Value step = b.create<arith::ConstantIndexOp>(loc, spec->steps[d]);
          Value start = b.create<arith::ConstantIndexOp>(loc, spec->starts[d]);
          indices.push_back(b.create<arith::AddIOp>(
              loc, start, b.create<arith::MulIOp>(loc, i, step)));
        }
        return indices;
      });
  im.define(node, result);
  return llvm::Error::success();
}

/// Split: consecutive slices of `input` along `axis`, sized by the `split`
/// input (opset 13+) or attribute (older), else equal parts (the last one
/// smaller when the extent does not divide, as opset 18 allows).
llvm::Error convertSplit(Importer &im, const onnx::NodeProto &node) {
  Value data;
  if (llvm::Error e = im.inputs(node, data))
    return e;
  llvm::ArrayRef<int64_t> shape = Importer::shapeOf(data);
  int64_t rank = shape.size();
  llvm::Expected<int64_t> normalized = Importer::axisAttribute(node, rank, 0);
  if (!normalized)
    return normalized.takeError();
  int64_t axis = *normalized;
  int64_t extent = shape[axis];
  int64_t parts = node.output_size();
  std::vector<int64_t> sizes;
  if (im.hasInput(node, 1)) {
    auto given = constantInts(im, node, 1);
    if (!given)
      return given.takeError();
    sizes = *given;
  } else if (Importer::attribute(node, "split")) {
    sizes = Importer::getInts(node, "split");
  } else {
    int64_t chunk = (extent + parts - 1) / parts;
    for (int64_t part = 0; part < parts; ++part)
      sizes.push_back(
          std::max<int64_t>(0, std::min(chunk, extent - chunk * part)));
  }
  int64_t total = 0;
  for (int64_t size : sizes) {
    if (size <= 0)
      return error(Importer::describe(node) +
                   ": empty outputs are not supported (split sizes must be "
                   "positive)");
    total += size;
  }
  if (static_cast<int64_t>(sizes.size()) != parts || total != extent)
    return error(Importer::describe(node) + ": " +
                 std::to_string(sizes.size()) + " split sizes summing to " +
                 std::to_string(total) + " do not cut the extent " +
                 std::to_string(extent) + " of axis " + std::to_string(axis) +
                 " into " + std::to_string(parts) + " outputs");
  int64_t offset = 0;
  for (auto [index, size] : llvm::enumerate(sizes)) {
    im.define(node, im.extractAlongAxis(data, axis, offset, size), index);
    offset += size;
  }
  return llvm::Error::success();
}

llvm::Error convertExpand(Importer &im, const onnx::NodeProto &node) {
  Value x;
  if (llvm::Error e = im.inputs(node, x))
    return e;
  auto shape = constantInts(im, node, 1);
  if (!shape)
    return shape.takeError();
  if (llvm::Error e = checkShape(Importer::describe(node), *shape))
    return e;
  auto result = im.elementwise(
      node, {x}, [](OpBuilder &, Location, ValueRange args) { return args[0]; },
      nullptr, *shape);
  return im.define(node, std::move(result));
}

/// Shape: always known at compile time, since tcl's shapes are static.
llvm::Error convertShape(Importer &im, const onnx::NodeProto &node) {
  std::vector<int64_t> shape;
  if (const ConstantData *given = im.constant(node, 0)) {
    shape = given->shape;
  } else {
    Value x;
    if (llvm::Error e = im.inputs(node, x))
      return e;
    shape = Importer::shapeOf(x);
  }
  int64_t rank = shape.size();
  auto bound = [&](int64_t value) {
    return std::clamp<int64_t>(value < 0 ? value + rank : value, 0, rank);
  };
  int64_t start = bound(Importer::getInt(node, "start", 0));
  int64_t end = bound(Importer::getInt(node, "end", rank));
  ConstantData result;
  result.kind = ElementKind::Int;
  if (end > start)
    result.ints.assign(shape.begin() + start, shape.begin() + end);
  result.shape = {static_cast<int64_t>(result.ints.size())};
  im.constants[node.output(0)] = std::move(result);
  return llvm::Error::success();
}

llvm::Error convertConstantOfShape(Importer &im, const onnx::NodeProto &node) {
  auto shape = constantInts(im, node, 0);
  if (!shape)
    return shape.takeError();
  ConstantData fill = ConstantData::zeros(ElementKind::Float, {1});
  if (const onnx::AttributeProto *value = Importer::attribute(node, "value")) {
    auto data = readTensor(value->t());
    if (!data)
      return data.takeError();
    if (data->size() != 1)
      return error(Importer::describe(node) + ": value must have one element");
    fill = *data;
  }
  if (llvm::Error e = checkShape(Importer::describe(node), *shape))
    return e;
  ConstantData result = ConstantData::zeros(fill.kind, *shape);
  for (int64_t i = 0; i < result.size(); ++i)
    result.copyElement(i, fill, 0);
  im.constants[node.output(0)] = std::move(result);
  return llvm::Error::success();
}

llvm::Error convertRange(Importer &im, const onnx::NodeProto &node) {
  const ConstantData *start = im.constant(node, 0),
                     *limit = im.constant(node, 1),
                     *delta = im.constant(node, 2);
  if (!start || !limit || !delta || start->size() != 1 || limit->size() != 1 ||
      delta->size() != 1)
    return error(Importer::describe(node) +
                 ": start, limit and delta must be scalars known at compile "
                 "time");
  if (start->kind != limit->kind || start->kind != delta->kind ||
      start->kind == ElementKind::Bool)
    return error(Importer::describe(node) +
                 ": start, limit and delta must all be floats or all "
                 "integers");
  double first = start->asDouble(0), step = delta->asDouble(0);
  if (step == 0)
    return error(Importer::describe(node) + ": delta is 0");
  double steps = std::ceil((limit->asDouble(0) - first) / step);
  if (!(steps <= static_cast<double>(kMaxElements)))
    return error(Importer::describe(node) + ": the range has more than " +
                 std::to_string(kMaxElements) +
                 " elements, tcl's limit for a tensor");
  int64_t count = std::max<int64_t>(0, static_cast<int64_t>(steps));
  ConstantData result = ConstantData::zeros(start->kind, {count});
  for (int64_t i = 0; i < count; ++i) {
    if (result.isFloat())
      result.floats[i] = static_cast<float>(first + i * step);
    else
      result.ints[i] = start->ints[0] + i * delta->ints[0];
  }
  im.constants[node.output(0)] = std::move(result);
  return llvm::Error::success();
}

llvm::Error convertConstant(Importer &im, const onnx::NodeProto &node) {
  ConstantData data;
  if (const onnx::AttributeProto *value = Importer::attribute(node, "value")) {
    auto tensor = readTensor(value->t());
    if (!tensor)
      return tensor.takeError();
    data = std::move(*tensor);
  } else if (const auto *f = Importer::attribute(node, "value_float")) {
    data.floats = {f->f()};
  } else if (const auto *fs = Importer::attribute(node, "value_floats")) {
    data.floats.assign(fs->floats().begin(), fs->floats().end());
    data.shape = {static_cast<int64_t>(data.floats.size())};
  } else if (const auto *i = Importer::attribute(node, "value_int")) {
    data.kind = ElementKind::Int;
    data.ints = {i->i()};
  } else if (const auto *is = Importer::attribute(node, "value_ints")) {
    data.kind = ElementKind::Int;
    data.ints.assign(is->ints().begin(), is->ints().end());
    data.shape = {static_cast<int64_t>(data.ints.size())};
  } else {
    return error(Importer::describe(node) +
                 ": only the value, value_float(s) and value_int(s) forms "
                 "are supported");
  }
  im.constants[node.output(0)] = std::move(data);
  return llvm::Error::success();
}

/// Dropout at inference: the identity, with an all-true mask if asked for.
/// Training mode (random dropout) is refused, never ignored.
llvm::Error convertDropout(Importer &im, const onnx::NodeProto &node) {
  Value x;
  if (llvm::Error e = im.inputs(node, x))
    return e;
  bool training = im.opset < 7 && Importer::getInt(node, "is_test", 0) == 0;
  if (im.hasInput(node, 2)) {
    const ConstantData *mode = im.constant(node, 2);
    if (!mode || mode->size() != 1)
      return error(Importer::describe(node) +
                   ": its training_mode must be a scalar known at compile "
                   "time");
    training = mode->asDouble(0) != 0;
  }
  if (training)
    return error(Importer::describe(node) +
                 ": training mode (random dropout) is not supported");
  im.define(node, x);
  if (node.output_size() > 1 && !node.output(1).empty())
    im.define(node, im.filled(Importer::shapeOf(x), im.b.getI8IntegerAttr(1)),
              1);
  return llvm::Error::success();
}

} // namespace

void onnx_import::registerShapeConverters(ConverterTable &table) {
  table.insert({
      {"Identity",
       [](Importer &im, const onnx::NodeProto &node) -> llvm::Error {
         Value x;
         if (llvm::Error e = im.inputs(node, x))
           return e;
         im.define(node, x);
         return llvm::Error::success();
       }},
      {"Constant", convertConstant},
      {"Dropout", convertDropout},
      {"Transpose", convertTranspose},
      {"Slice", convertSlice},
      {"Split", convertSplit},
      {"Expand", convertExpand},
      {"Shape", convertShape},
      {"ConstantOfShape", convertConstantOfShape},
      {"Range", convertRange},
      {"Flatten", convertReshapeLike},
      {"Reshape", convertReshapeLike},
      {"Squeeze", convertReshapeLike},
      {"Unsqueeze", convertReshapeLike},
      {"Concat", convertConcat},
      {"Gather", convertGather},
  });
}
