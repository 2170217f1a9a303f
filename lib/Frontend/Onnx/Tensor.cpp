//===- Tensor.cpp - ONNX tensors known at import time ---------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Initializers, Constant nodes and tensor attributes read into ConstantData,
// and the index arithmetic of numpy broadcasting that converters and the
// import-time evaluator share.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "tcl/Support/Indexing.h"

using namespace mlir;
using namespace mlir::tcl;
using namespace mlir::tcl::onnx_import;

std::string onnx_import::formatShape(llvm::ArrayRef<int64_t> shape) {
  std::string text;
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "x" : "") + std::to_string(shape[i]);
  return text.empty() ? "scalar" : text;
}

std::optional<int64_t>
onnx_import::elementCount(llvm::ArrayRef<int64_t> shape) {
  // Any zero dimension makes the tensor empty, whatever the others are.
  if (llvm::any_of(shape, [](int64_t dim) { return dim < 0; }))
    return std::nullopt;
  if (llvm::is_contained(shape, 0))
    return 0;
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (count > kMaxElements / dim)
      return std::nullopt;
    count *= dim;
  }
  return count;
}

llvm::Error onnx_import::checkShape(const llvm::Twine &subject,
                                    llvm::ArrayRef<int64_t> shape) {
  if (elementCount(shape))
    return llvm::Error::success();
  if (llvm::any_of(shape, [](int64_t dim) { return dim < 0; }))
    return error(subject + ": shape " + formatShape(shape) +
                 " has a negative dimension");
  return error(subject + ": shape " + formatShape(shape) + " has more than " +
               std::to_string(kMaxElements) +
               " elements, tcl's limit for a tensor");
}

llvm::Expected<ConstantData>
onnx_import::readTensor(const onnx::TensorProto &tensor) {
  ConstantData data;
  data.shape.assign(tensor.dims().begin(), tensor.dims().end());
  // Dimensions come from the file: check them before multiplying.
  if (llvm::Error e = checkShape(
          "tensor '" + tensor.name() + "' has invalid dimensions", data.shape))
    return std::move(e);
  int64_t count = data.size();
  if (tensor.has_data_location() &&
      tensor.data_location() == onnx::TensorProto::EXTERNAL)
    return error("tensor '" + tensor.name() +
                 "' keeps its data in an external file, which tcl does not "
                 "read yet");
  const std::string &raw = tensor.raw_data();
  // Reads raw bytes of element type T, or else the typed field `typed`.
  auto read = [&](auto tag, const auto &typed, auto &out) -> llvm::Error {
    using T = decltype(tag);
    if (raw.empty()) {
      out.assign(typed.begin(), typed.end());
      return llvm::Error::success();
    }
    if (raw.size() != count * sizeof(T))
      return error("tensor '" + tensor.name() + "' has " +
                   std::to_string(raw.size()) + " bytes of data for " +
                   std::to_string(count) + " elements");
    const T *values = reinterpret_cast<const T *>(raw.data());
    out.assign(values, values + count);
    return llvm::Error::success();
  };
  llvm::Error status = [&]() -> llvm::Error {
    switch (tensor.data_type()) {
    case onnx::TensorProto::FLOAT:
      return read(float(), tensor.float_data(), data.floats);
    case onnx::TensorProto::DOUBLE:
      return read(double(), tensor.double_data(), data.floats);
    case onnx::TensorProto::INT64:
      data.kind = ElementKind::Int;
      return read(int64_t(), tensor.int64_data(), data.ints);
    case onnx::TensorProto::INT32:
      data.kind = ElementKind::Int;
      return read(int32_t(), tensor.int32_data(), data.ints);
    case onnx::TensorProto::INT8:
      data.kind = ElementKind::Int;
      return read(int8_t(), tensor.int32_data(), data.ints);
    case onnx::TensorProto::UINT8:
      data.kind = ElementKind::Int;
      return read(uint8_t(), tensor.int32_data(), data.ints);
    case onnx::TensorProto::BOOL:
      data.kind = ElementKind::Bool;
      if (llvm::Error e = read(uint8_t(), tensor.int32_data(), data.ints))
        return e;
      for (int64_t &value : data.ints)
        value = value != 0;
      return llvm::Error::success();
    default:
      return error("tensor '" + tensor.name() + "' has ONNX element type " +
                   std::to_string(tensor.data_type()) +
                   "; tcl reads float, double, int8/32/64, uint8 and bool "
                   "tensors");
    }
  }();
  if (status)
    return std::move(status);
  if ((int64_t)(data.isFloat() ? data.floats.size() : data.ints.size()) !=
      count)
    return error("tensor '" + tensor.name() +
                 "' has the wrong number of "
                 "elements");
  return data;
}

//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

/// Row-major offset in a tensor of `shape` of the element that `index` (of
/// the broadcast shape, same or higher rank) reads under numpy broadcasting.
int64_t onnx_import::broadcastOffset(llvm::ArrayRef<int64_t> shape,
                                     llvm::ArrayRef<int64_t> index) {
  int64_t offset = 0, stride = 1;
  size_t lead = index.size() - shape.size();
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    offset += (shape[d] == 1 ? 0 : index[lead + d]) * stride;
    stride *= shape[d];
  }
  return offset;
}

/// The numpy broadcast of `shapes`, or nullopt if they do not broadcast.
std::optional<std::vector<int64_t>>
onnx_import::broadcastShapes(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes) {
  size_t rank = 0;
  for (llvm::ArrayRef<int64_t> shape : shapes)
    rank = std::max(rank, shape.size());
  std::vector<int64_t> result(rank, 1);
  for (llvm::ArrayRef<int64_t> shape : shapes)
    for (size_t i = 0; i < shape.size(); ++i) {
      int64_t &out = result[rank - shape.size() + i];
      if (shape[i] == out || shape[i] == 1)
        continue;
      if (out != 1)
        return std::nullopt;
      out = shape[i];
    }
  return result;
}

/// A constant permuted by `perm` at import time.
ConstantData onnx_import::permuteConstant(const ConstantData &from,
                                          llvm::ArrayRef<int64_t> perm) {
  std::vector<int64_t> shape;
  for (int64_t d : perm)
    shape.push_back(from.shape[d]);
  ConstantData to = ConstantData::zeros(from.kind, shape);
  llvm::SmallVector<int64_t> strides = rowMajorStrides(from.shape);
  int64_t out = 0;
  forEachIndex(shape, [&](llvm::ArrayRef<int64_t> index) {
    int64_t offset = 0;
    for (size_t d = 0; d < perm.size(); ++d)
      offset += index[d] * strides[perm[d]];
    to.copyElement(out++, from, offset);
  });
  return to;
}
