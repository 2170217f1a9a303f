//===- Buffer.h - Element types and dense host tensors ----------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The element types a compiled model takes and returns at its boundary, and
// the dense row-major buffers that carry them: the ONNX test data the
// importer reads, the inputs and outputs of kernels (Runtime), the C API of
// a compiled model (Target). Header-only, so that those layers share one
// definition without depending on each other.
//
// Inside a model, tcl computes on f32, i64 (every integer type) and i8
// (bools); a graph input or output of another integer type is converted at
// the boundary. At the boundary, u8 and bool are stored as MLIR's signless
// i8 and told apart by the function's `tcl.element_type` argument or result
// attribute.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_SUPPORT_BUFFER_H
#define TCL_SUPPORT_BUFFER_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace mlir::tcl {

/// An element type at a compiled model's boundary.
enum class ElementType : uint8_t { F32, I64, I32, I8, U8, Bool };

/// "f32", "i64", "i32", "i8", "u8" or "bool": how signatures and the
/// `tcl.element_type` attribute write it.
inline llvm::StringRef getElementTypeName(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return "f32";
  case ElementType::I64:
    return "i64";
  case ElementType::I32:
    return "i32";
  case ElementType::I8:
    return "i8";
  case ElementType::U8:
    return "u8";
  case ElementType::Bool:
    return "bool";
  }
  return "?";
}

inline std::optional<ElementType> parseElementType(llvm::StringRef name) {
  for (ElementType type : {ElementType::F32, ElementType::I64, ElementType::I32,
                           ElementType::I8, ElementType::U8, ElementType::Bool})
    if (getElementTypeName(type) == name)
      return type;
  return std::nullopt;
}

/// Bytes an element takes in memory (a bool is one byte, 0 or 1).
inline size_t getElementSize(ElementType type) {
  switch (type) {
  case ElementType::F32:
  case ElementType::I32:
    return 4;
  case ElementType::I64:
    return 8;
  case ElementType::I8:
  case ElementType::U8:
  case ElementType::Bool:
    return 1;
  }
  return 0;
}

/// The type's code in ONNX's TensorProto.DataType, which the compiled
/// model's C API reports (tcl_model_input_type).
inline int getOnnxElementType(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return 1;
  case ElementType::U8:
    return 2;
  case ElementType::I8:
    return 3;
  case ElementType::I32:
    return 6;
  case ElementType::I64:
    return 7;
  case ElementType::Bool:
    return 9;
  }
  return 0;
}

/// The argument or result attribute that tells u8 and bool from i8.
inline constexpr llvm::StringLiteral kElementTypeAttrName = "tcl.element_type";

/// The boundary element type of a tensor of MLIR element type `type` with
/// the `tcl.element_type` attribute `annotation` (may be null); nullopt for
/// a type a compiled model cannot take or return.
inline std::optional<ElementType> getBoundaryElementType(Type type,
                                                         Attribute annotation) {
  if (type.isF32())
    return annotation ? std::nullopt : std::optional(ElementType::F32);
  if (type.isSignlessInteger(64))
    return annotation ? std::nullopt : std::optional(ElementType::I64);
  if (type.isSignlessInteger(32))
    return annotation ? std::nullopt : std::optional(ElementType::I32);
  if (!type.isSignlessInteger(8))
    return std::nullopt;
  if (!annotation)
    return ElementType::I8;
  auto name = dyn_cast<StringAttr>(annotation);
  std::optional<ElementType> named =
      name ? parseElementType(name.getValue()) : std::nullopt;
  if (named == ElementType::U8 || named == ElementType::Bool)
    return named;
  return std::nullopt;
}

/// A dense, row-major buffer. f32 values live in `data`; every other element
/// type's in `ints`, widened (a bool is 0 or 1, a u8 0 to 255), and a kernel
/// call converts them to the type's width.
struct Buffer {
  std::vector<int64_t> shape;
  std::vector<float> data;
  ElementType type = ElementType::F32;
  std::vector<int64_t> ints;

  /// An f32 buffer (`data` must have the shape's element count).
  Buffer(std::vector<int64_t> shape = {}, std::vector<float> data = {})
      : shape(std::move(shape)), data(std::move(data)) {}

  static Buffer zeros(std::vector<int64_t> shape,
                      ElementType type = ElementType::F32) {
    Buffer buffer(std::move(shape));
    buffer.type = type;
    if (type == ElementType::F32)
      buffer.data.assign(buffer.getNumElements(), 0.0f);
    else
      buffer.ints.assign(buffer.getNumElements(), 0);
    return buffer;
  }
  int64_t getNumElements() const {
    int64_t count = 1;
    for (int64_t size : shape)
      count *= size;
    return count;
  }
  bool isFloat() const { return type == ElementType::F32; }
  /// Elements held, in `data` or `ints`.
  size_t size() const { return isFloat() ? data.size() : ints.size(); }
  /// Element `index` as a double (exact for every integer a model holds
  /// below 2^53).
  double getAsDouble(size_t index) const {
    return isFloat() ? double(data[index]) : double(ints[index]);
  }
};

} // namespace mlir::tcl

#endif // TCL_SUPPORT_BUFFER_H
