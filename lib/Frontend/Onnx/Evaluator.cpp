//===- Evaluator.cpp - Evaluating ONNX nodes at import time ---------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// A node whose inputs are all known at import time is evaluated here instead
// of being converted: shape computations (Shape -> Gather -> Concat ->
// Reshape) must be, since tcl's shapes are static, and folding the rest
// keeps the module small.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "tcl/Support/Indexing.h"

#include <limits>

using namespace mlir;
using namespace mlir::tcl;
using namespace mlir::tcl::onnx_import;

namespace {

/// Elementwise evaluation with numpy broadcasting: in doubles when an input
/// is float, else in integers; the result has kind `kind`, or the first
/// input's kind when unset. `onInts` fails on operands it is not defined on
/// (integer division by 0), naming them.
Evaluator evaluateElementwise(
    std::optional<ElementKind> kind,
    std::function<double(llvm::ArrayRef<double>)> onFloats,
    std::function<llvm::Expected<int64_t>(llvm::ArrayRef<int64_t>)> onInts) {
  return [=](Importer &, const onnx::NodeProto &node,
             llvm::ArrayRef<const ConstantData *> inputs)
             -> llvm::Expected<ConstantData> {
    SmallVector<llvm::ArrayRef<int64_t>> shapes;
    bool anyFloat = false;
    for (const ConstantData *input : inputs) {
      shapes.push_back(input->shape);
      anyFloat |= input->isFloat();
    }
    auto shape = broadcastShapes(shapes);
    if (!shape)
      return error(Importer::describe(node) + ": shapes do not broadcast");
    if (llvm::Error e = checkShape(Importer::describe(node), *shape))
      return std::move(e);
    if ((anyFloat && !onFloats) || (!anyFloat && !onInts))
      return error(Importer::describe(node) + ": not defined on " +
                   (anyFloat ? "floats" : "integers"));
    llvm::Error failure = llvm::Error::success();
    ConstantData result =
        ConstantData::zeros(kind ? *kind : inputs[0]->kind, *shape);
    SmallVector<double> doubles(inputs.size());
    SmallVector<int64_t> ints(inputs.size());
    int64_t out = 0;
    forEachIndex(*shape, [&](llvm::ArrayRef<int64_t> index) {
      for (auto [i, input] : llvm::enumerate(inputs)) {
        int64_t offset = broadcastOffset(input->shape, index);
        if (anyFloat)
          doubles[i] = input->asDouble(offset);
        else
          ints[i] = input->ints[offset];
      }
      if (anyFloat) {
        double value = onFloats(doubles);
        if (result.isFloat())
          result.floats[out] = static_cast<float>(value);
        else
          result.ints[out] = static_cast<int64_t>(value);
      } else if (!failure) {
        llvm::Expected<int64_t> value = onInts(ints);
        if (!value)
          failure = value.takeError();
        else if (result.isFloat())
          result.floats[out] = static_cast<float>(*value);
        else
          result.ints[out] = *value;
      }
      ++out;
    });
    if (failure)
      return error(Importer::describe(node) + ": " +
                   llvm::toString(std::move(failure)));
    return result;
  };
}

/// Evaluates data movement: output element at `index` is input 0's element
/// at the offset `source` gives (nullopt: the node is not supported).
llvm::Expected<ConstantData>
gatherElements(const onnx::NodeProto &node, const ConstantData &input,
               std::vector<int64_t> shape,
               llvm::function_ref<int64_t(llvm::ArrayRef<int64_t>)> source) {
  if (llvm::Error e = checkShape(Importer::describe(node), shape))
    return std::move(e);
  ConstantData result = ConstantData::zeros(input.kind, std::move(shape));
  int64_t out = 0;
  forEachIndex(result.shape, [&](llvm::ArrayRef<int64_t> index) {
    result.copyElement(out++, input, source(index));
  });
  return result;
}

/// The error of an int64 operation whose result does not fit: ONNX's
/// reference wraps around, which for a shape computation only hides a bad
/// model (and is undefined behaviour in C++).
llvm::Error overflow(int64_t a, llvm::StringRef operation, int64_t b) {
  return error("int64 arithmetic overflows: " + std::to_string(a) + " " +
               operation + " " + std::to_string(b));
}

} // namespace

const std::map<std::string, Evaluator> &onnx_import::getEvaluators() {
  using Doubles = llvm::ArrayRef<double>;
  using Ints = llvm::ArrayRef<int64_t>;
  auto sameData = [](Importer &im, const onnx::NodeProto &node,
                     llvm::ArrayRef<const ConstantData *> inputs)
      -> llvm::Expected<ConstantData> {
    ConstantData result = *inputs[0];
    if (node.op_type() == "Identity")
      return result;
    auto shape = reshapeTarget(im, node, inputs[0]->shape);
    if (!shape)
      return shape.takeError();
    result.shape = *shape;
    return result;
  };
  auto compare = [](auto predicate) {
    return evaluateElementwise(
        ElementKind::Bool,
        [=](Doubles v) -> double { return predicate(v[0], v[1]); },
        [=](Ints v) -> llvm::Expected<int64_t> {
          return predicate(v[0], v[1]);
        });
  };
  static const std::map<std::string, Evaluator> evaluators = {
      {"Identity", sameData},
      {"Reshape", sameData},
      {"Flatten", sameData},
      {"Squeeze", sameData},
      {"Unsqueeze", sameData},
      {"Add", evaluateElementwise(
                  std::nullopt, [](Doubles v) { return v[0] + v[1]; },
                  [](Ints v) -> llvm::Expected<int64_t> {
                    int64_t sum;
                    if (__builtin_add_overflow(v[0], v[1], &sum))
                      return overflow(v[0], "+", v[1]);
                    return sum;
                  })},
      {"Sub", evaluateElementwise(
                  std::nullopt, [](Doubles v) { return v[0] - v[1]; },
                  [](Ints v) -> llvm::Expected<int64_t> {
                    int64_t difference;
                    if (__builtin_sub_overflow(v[0], v[1], &difference))
                      return overflow(v[0], "-", v[1]);
                    return difference;
                  })},
      {"Mul", evaluateElementwise(
                  std::nullopt, [](Doubles v) { return v[0] * v[1]; },
                  [](Ints v) -> llvm::Expected<int64_t> {
                    int64_t product;
                    if (__builtin_mul_overflow(v[0], v[1], &product))
                      return overflow(v[0], "*", v[1]);
                    return product;
                  })},
      {"Div",
       evaluateElementwise(
           std::nullopt, [](Doubles v) { return v[0] / v[1]; },
           [](Ints v) -> llvm::Expected<int64_t> {
             if (v[1] == 0 ||
                 (v[0] == std::numeric_limits<int64_t>::min() && v[1] == -1))
               return error("integer division " + std::to_string(v[0]) + " / " +
                            std::to_string(v[1]) +
                            " is undefined (division by zero or "
                            "overflow)");
             return v[0] / v[1];
           })},
      {"Neg", evaluateElementwise(
                  std::nullopt, [](Doubles v) { return -v[0]; },
                  [](Ints v) -> llvm::Expected<int64_t> {
                    int64_t negated;
                    if (__builtin_sub_overflow(int64_t(0), v[0], &negated))
                      return overflow(0, "-", v[0]);
                    return negated;
                  })},
      {"Equal", compare([](auto a, auto b) { return a == b; })},
      {"Less", compare([](auto a, auto b) { return a < b; })},
      {"Greater", compare([](auto a, auto b) { return a > b; })},
      {"LessOrEqual", compare([](auto a, auto b) { return a <= b; })},
      {"GreaterOrEqual", compare([](auto a, auto b) { return a >= b; })},
      {"Where",
       [](Importer &im, const onnx::NodeProto &node,
          llvm::ArrayRef<const ConstantData *> inputs)
           -> llvm::Expected<ConstantData> {
         return evaluateElementwise(
             inputs[1]->kind, [](Doubles v) { return v[0] != 0 ? v[1] : v[2]; },
             [](Ints v) -> llvm::Expected<int64_t> {
               return v[0] != 0 ? v[1] : v[2];
             })(im, node, inputs);
       }},
      {"Cast",
       [](Importer &, const onnx::NodeProto &node,
          llvm::ArrayRef<const ConstantData *> inputs)
           -> llvm::Expected<ConstantData> {
         auto kind = castTarget(node);
         if (!kind)
           return kind.takeError();
         const ConstantData &in = *inputs[0];
         ConstantData result = ConstantData::zeros(*kind, in.shape);
         for (int64_t i = 0; i < in.size(); ++i) {
           if (*kind == ElementKind::Float)
             result.floats[i] = static_cast<float>(in.asDouble(i));
           else if (*kind == ElementKind::Bool)
             result.ints[i] = in.asDouble(i) != 0;
           else
             result.ints[i] =
                 in.isFloat() ? static_cast<int64_t>(in.floats[i]) : in.ints[i];
         }
         return result;
       }},
      {"Transpose",
       [](Importer &, const onnx::NodeProto &node,
          llvm::ArrayRef<const ConstantData *> inputs)
           -> llvm::Expected<ConstantData> {
         auto perm = transposePermutation(node, inputs[0]->shape.size());
         if (!perm)
           return perm.takeError();
         return permuteConstant(*inputs[0], *perm);
       }},
      {"Slice",
       [](Importer &im, const onnx::NodeProto &node,
          llvm::ArrayRef<const ConstantData *> inputs)
           -> llvm::Expected<ConstantData> {
         const ConstantData &data = *inputs[0];
         auto spec = sliceSpec(im, node, data.shape);
         if (!spec)
           return spec.takeError();
         llvm::SmallVector<int64_t> strides = rowMajorStrides(data.shape);
         return gatherElements(node, data, spec->sizes, [&](Ints index) {
           int64_t offset = 0;
           for (size_t d = 0; d < index.size(); ++d)
             offset +=
                 (spec->starts[d] + index[d] * spec->steps[d]) * strides[d];
           return offset;
         });
       }},
      {"Gather",
       [](Importer &, const onnx::NodeProto &node,
          llvm::ArrayRef<const ConstantData *> inputs)
           -> llvm::Expected<ConstantData> {
         const ConstantData &data = *inputs[0], &indices = *inputs[1];
         int64_t rank = data.shape.size();
         int64_t axis = Importer::getInt(node, "axis", 0);
         if (axis < 0)
           axis += rank;
         if (axis < 0 || axis >= rank || indices.isFloat())
           return error(Importer::describe(node) +
                        ": bad axis or non-integer indices");
         for (int64_t index : indices.ints)
           if (index < -data.shape[axis] || index >= data.shape[axis])
             return error(Importer::describe(node) + ": index " +
                          std::to_string(index) + " out of range");
         std::vector<int64_t> shape(data.shape.begin(),
                                    data.shape.begin() + axis);
         shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
         shape.insert(shape.end(), data.shape.begin() + axis + 1,
                      data.shape.end());
         llvm::SmallVector<int64_t> strides = rowMajorStrides(data.shape),
                                    indexStrides =
                                        rowMajorStrides(indices.shape);
         int64_t indexRank = indices.shape.size();
         return gatherElements(node, data, shape, [&](Ints out) {
           int64_t position = 0;
           for (int64_t d = 0; d < indexRank; ++d)
             position += out[axis + d] * indexStrides[d];
           int64_t index = indices.ints[position];
           if (index < 0)
             index += data.shape[axis];
           int64_t offset = index * strides[axis];
           for (int64_t d = 0; d < axis; ++d)
             offset += out[d] * strides[d];
           for (int64_t d = axis + 1; d < rank; ++d)
             offset += out[d - 1 + indexRank] * strides[d];
           return offset;
         });
       }},
      {"Concat",
       [](Importer &, const onnx::NodeProto &node,
          llvm::ArrayRef<const ConstantData *> inputs)
           -> llvm::Expected<ConstantData> {
         int64_t rank = inputs[0]->shape.size();
         int64_t axis = Importer::getInt(node, "axis", 0);
         if (axis < 0)
           axis += rank;
         if (axis < 0 || axis >= rank)
           return error(Importer::describe(node) + ": axis out of range");
         std::vector<int64_t> shape = inputs[0]->shape;
         shape[axis] = 0;
         for (const ConstantData *input : inputs) {
           if (input->kind != inputs[0]->kind ||
               input->shape.size() != shape.size())
             return error(Importer::describe(node) +
                          ": inputs differ in type or rank");
           for (int64_t d = 0; d < rank; ++d)
             if (d != axis && input->shape[d] != shape[d])
               return error(Importer::describe(node) + ": cannot concatenate " +
                            formatShape(inputs[0]->shape) + " and " +
                            formatShape(input->shape) + " on axis " +
                            std::to_string(axis) +
                            " (the other dimensions must be equal)");
           shape[axis] += input->shape[axis];
         }
         if (llvm::Error e = checkShape(Importer::describe(node), shape))
           return std::move(e);
         ConstantData result = ConstantData::zeros(inputs[0]->kind, shape);
         int64_t out = 0;
         forEachIndex(shape, [&](Ints index) {
           SmallVector<int64_t> at(index.begin(), index.end());
           size_t which = 0;
           while (at[axis] >= inputs[which]->shape[axis])
             at[axis] -= inputs[which++]->shape[axis];
           result.copyElement(out++, *inputs[which],
                              broadcastOffset(inputs[which]->shape, at));
         });
         return result;
       }},
      {"Expand",
       [](Importer &, const onnx::NodeProto &node,
          llvm::ArrayRef<const ConstantData *> inputs)
           -> llvm::Expected<ConstantData> {
         const ConstantData &data = *inputs[0];
         if (inputs[1]->isFloat() || inputs[1]->shape.size() != 1)
           return error(Importer::describe(node) +
                        ": its shape input must be a 1-D integer tensor");
         if (llvm::Error e =
                 checkShape(Importer::describe(node), inputs[1]->ints))
           return std::move(e);
         auto shape = broadcastShapes({data.shape, inputs[1]->ints});
         if (!shape)
           return error(Importer::describe(node) + ": cannot expand " +
                        formatShape(data.shape) + " to " +
                        formatShape(inputs[1]->ints));
         return gatherElements(node, data, *shape, [&](Ints index) {
           return broadcastOffset(data.shape, index);
         });
       }},
  };
  return evaluators;
}
