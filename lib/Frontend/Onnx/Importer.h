//===- Importer.h - The ONNX importer's shared declarations -----*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Frontend. The importer converts an ONNX graph one node at a
// time, with one converter per ONNX operator type, registered in one table
// (getConverters) that each op family's file fills:
//
//   Tensor.cpp       tensors known at import time, broadcasting
//   Importer.cpp     the Importer, the converter table, importModel and the
//                    public API of tcl/Frontend/OnnxImporter.h
//   Elementwise.cpp  unary, binary, comparison, logical, Where, Cast, Clip,
//                    Pow, Mod
//   Convolution.cpp  Conv and the pools (window ops, computed channels-last)
//   NN.cpp           normalizations, Softmax, Gemm and MatMul
//   Reductions.cpp   the Reduce* family, ArgMax/ArgMin, the global pools,
//                    CumSum
//   ShapeOps.cpp     shape and indexing ops, constants, Dropout
//   DataMovement.cpp Tile, Pad, DepthToSpace, SpaceToDepth, Trilu, Resize
//   Normalization.cpp  InstanceNormalization, GroupNormalization,
//                    LpNormalization, LRN
//   Evaluator.cpp    evaluation at import time of nodes on constants
//   Validation.cpp   checks of the graph before ONNX shape inference sees it
//
// Converters build linalg named ops where linalg has one (matmul,
// convolutions, pooling, transpose) so that tcl can schedule them, and
// linalg.generic for elementwise ops and reductions. Shapes are static: ONNX
// shape inference plus the user's --input-shape fix them at import time.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_LIB_FRONTEND_ONNX_IMPORTER_H
#define TCL_LIB_FRONTEND_ONNX_IMPORTER_H

#include "tcl/Frontend/OnnxImporter.h"
#include "tcl/Support/Buffer.h"

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include "onnx/onnx_pb.h"

#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace mlir::tcl::onnx_import {

inline llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// "1x3x224x224", or "scalar" for rank 0.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// The most elements a tensor may have, in the model or computed at import
/// time: shapes from a file are checked against it before anything is
/// allocated or multiplied.
constexpr int64_t kMaxElements = int64_t(1) << 31;

/// The element count of `shape`, or nullopt if a dimension is negative or
/// the count exceeds kMaxElements (checked without overflow).
std::optional<int64_t> elementCount(llvm::ArrayRef<int64_t> shape);

/// Success if `shape` has no negative dimension and at most kMaxElements
/// elements; else an error that starts with `subject` (a node described,
/// say) and names the rule.
llvm::Error checkShape(const llvm::Twine &subject,
                       llvm::ArrayRef<int64_t> shape);

//===----------------------------------------------------------------------===//
// Tensor data (Tensor.cpp)
//===----------------------------------------------------------------------===//

/// Element types the importer carries: f32 for data, i64 for integers
/// (indices, shapes), i1 for booleans (masks).
enum class ElementKind { Float, Int, Bool };

/// A tensor whose value is known at import time: an initializer, a Constant
/// node, or the result of evaluating a node on such tensors (shape
/// computations, see getEvaluators).
struct ConstantData {
  std::vector<int64_t> shape;
  ElementKind kind = ElementKind::Float;
  std::vector<float> floats; // Float
  std::vector<int64_t> ints; // Int, and Bool as 0 or 1

  bool isFloat() const { return kind == ElementKind::Float; }
  /// The element count of a checked shape (checkShape). Counted by
  /// elementCount, as a plain product of the dimensions overflows for an
  /// empty tensor whose other dimensions are huge.
  int64_t size() const { return elementCount(shape).value_or(0); }
  /// A zero-filled tensor.
  static ConstantData zeros(ElementKind kind, std::vector<int64_t> shape) {
    ConstantData data;
    data.kind = kind;
    data.shape = std::move(shape);
    if (data.isFloat())
      data.floats.assign(data.size(), 0.0f);
    else
      data.ints.assign(data.size(), 0);
    return data;
  }
  /// Element `from` of `source` (of the same kind) becomes element `to`.
  void copyElement(int64_t to, const ConstantData &source, int64_t from) {
    if (isFloat())
      floats[to] = source.floats[from];
    else
      ints[to] = source.ints[from];
  }
  double asDouble(int64_t i) const {
    return isFloat() ? floats[i] : static_cast<double>(ints[i]);
  }
};

/// Reads an initializer or tensor attribute, checking its dimensions and
/// data size.
llvm::Expected<ConstantData> readTensor(const onnx::TensorProto &tensor);

/// Row-major offset in a tensor of `shape` of the element that `index` (of
/// the broadcast shape, same or higher rank) reads under numpy broadcasting.
int64_t broadcastOffset(llvm::ArrayRef<int64_t> shape,
                        llvm::ArrayRef<int64_t> index);

/// The numpy broadcast of `shapes`, or nullopt if they do not broadcast.
std::optional<std::vector<int64_t>>
broadcastShapes(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes);

/// A constant permuted by `perm` at import time.
ConstantData permuteConstant(const ConstantData &from,
                             llvm::ArrayRef<int64_t> perm);

//===----------------------------------------------------------------------===//
// Importer (Importer.cpp)
//===----------------------------------------------------------------------===//

class Importer;
using Converter =
    std::function<llvm::Error(Importer &, const onnx::NodeProto &)>;
/// Converters by ONNX operator type.
using ConverterTable = std::map<std::string, Converter>;

class Importer {
public:
  Importer(MLIRContext *context) : b(context), loc(b.getUnknownLoc()) {}

  llvm::Expected<OwningOpRef<ModuleOp>>
  importModel(onnx::ModelProto &model, const OnnxImportOptions &options);

  // Access for converters.
  OpBuilder b;
  Location loc;

  /// Binds input `index` of `node` to `value`; the error names the node and
  /// the input if it is missing or not defined before the node.
  llvm::Error input(const onnx::NodeProto &node, int index, Value &value);
  /// Binds the node's first inputs, in order, to `operands`:
  ///   Value x, w;
  ///   if (llvm::Error e = im.inputs(node, x, w))
  ///     return e;
  template <typename... Operands>
  llvm::Error inputs(const onnx::NodeProto &node, Operands &...operands) {
    static_assert((std::is_same_v<Operands, Value> && ...),
                  "inputs binds mlir::Values");
    int index = 0;
    for (Value *operand : {&operands...})
      if (llvm::Error e = input(node, index++, *operand))
        return e;
    return llvm::Error::success();
  }
  /// Binds all inputs of a variadic node, in order, to `operands`.
  llvm::Error allInputs(const onnx::NodeProto &node,
                        std::vector<Value> &operands);
  /// Binds input `index` if the node has it, else leaves `value` null.
  llvm::Error optionalInput(const onnx::NodeProto &node, int index,
                            Value &value);

  /// The value named `name`; a constant known at import time is
  /// materialized on first use. Null if `name` is not defined.
  Value lookup(llvm::StringRef name);
  Value materialize(const ConstantData &data);
  Type elementType(ElementKind kind);
  static bool isBool(Value value) { return isBool(elementTypeOf(value)); }
  static bool isBool(Type elementType) { return elementType.isInteger(8); }
  static Value boolToByte(OpBuilder &b, Location loc, Value flag);
  static Value byteToBool(OpBuilder &b, Location loc, Value byte);
  static Type elementTypeOf(Value value) {
    return cast<RankedTensorType>(value.getType()).getElementType();
  }
  bool hasInput(const onnx::NodeProto &node, int index) const {
    return index < node.input_size() && !node.input(index).empty();
  }
  const ConstantData *constant(const onnx::NodeProto &node, int index) const {
    if (!hasInput(node, index))
      return nullptr;
    auto found = constants.find(node.input(index));
    return found == constants.end() ? nullptr : &found->second;
  }
  void define(const onnx::NodeProto &node, Value value, int index = 0) {
    values[node.output(index)] = value;
  }
  /// Defines the node's output from a converter's result, or passes its
  /// error on.
  llvm::Error define(const onnx::NodeProto &node, llvm::Expected<Value> value) {
    if (!value)
      return value.takeError();
    define(node, *value);
    return llvm::Error::success();
  }

  /// The node's name, or its first output's name if it has none.
  static std::string nameOf(const onnx::NodeProto &node) {
    if (!node.name().empty() || node.output_size() == 0)
      return node.name();
    return node.output(0);
  }
  static std::string describe(const onnx::NodeProto &node) {
    return node.op_type() + " node '" + nameOf(node) + "'";
  }
  /// describe() with the node's position in the graph: "Add node 'a' (#3)".
  static std::string describe(const onnx::NodeProto &node, int index) {
    return describe(node) + " (#" + std::to_string(index) + ")";
  }

  static const onnx::AttributeProto *attribute(const onnx::NodeProto &node,
                                               llvm::StringRef name) {
    for (const onnx::AttributeProto &attr : node.attribute())
      if (attr.name() == name)
        return &attr;
    return nullptr;
  }
  static int64_t getInt(const onnx::NodeProto &node, llvm::StringRef name,
                        int64_t fallback) {
    const onnx::AttributeProto *attr = attribute(node, name);
    return attr ? attr->i() : fallback;
  }
  static float getFloat(const onnx::NodeProto &node, llvm::StringRef name,
                        float fallback) {
    const onnx::AttributeProto *attr = attribute(node, name);
    return attr ? attr->f() : fallback;
  }
  static std::vector<int64_t> getInts(const onnx::NodeProto &node,
                                      llvm::StringRef name,
                                      std::vector<int64_t> fallback = {}) {
    const onnx::AttributeProto *attr = attribute(node, name);
    if (!attr)
      return fallback;
    return std::vector<int64_t>(attr->ints().begin(), attr->ints().end());
  }
  static std::string getString(const onnx::NodeProto &node,
                               llvm::StringRef name, std::string fallback) {
    const onnx::AttributeProto *attr = attribute(node, name);
    return attr ? attr->s() : fallback;
  }

  static llvm::ArrayRef<int64_t> shapeOf(Value value) {
    return cast<RankedTensorType>(value.getType()).getShape();
  }
  RankedTensorType f32Tensor(llvm::ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, b.getF32Type());
  }
  Value f32Constant(float value);
  Value denseConstant(llvm::ArrayRef<int64_t> shape,
                      llvm::ArrayRef<float> data);
  Value filled(llvm::ArrayRef<int64_t> shape, float value);
  /// A tensor of `value`'s type filled with it.
  Value filled(llvm::ArrayRef<int64_t> shape, TypedAttr value);
  /// An uninitialized tensor, f32 unless `elementType` is given.
  Value empty(llvm::ArrayRef<int64_t> shape, Type elementType = nullptr);

  /// A linalg.generic reading `inputs` with numpy broadcasting, over their
  /// broadcast shape (and `shape` too, if given). The result has the element
  /// type of the first input unless `resultType` is given.
  llvm::Expected<Value>
  elementwise(const onnx::NodeProto &node, llvm::ArrayRef<Value> inputs,
              std::function<Value(OpBuilder &, Location, ValueRange)> body,
              Type resultType = nullptr, llvm::ArrayRef<int64_t> shape = {});

  /// Reshapes a static tensor (collapse to 1-D, expand to `shape`).
  Value reshape(Value value, llvm::ArrayRef<int64_t> shape);

  /// Static offsets, sizes or strides of a tensor slice.
  SmallVector<OpFoldResult> indexAttrs(llvm::ArrayRef<int64_t> values);
  /// The `size` entries of `value` from `offset` along `axis` (the other
  /// dimensions whole).
  Value extractAlongAxis(Value value, int64_t axis, int64_t offset,
                         int64_t size);
  /// `part` written into `into` from `offset` along `axis`.
  Value insertAlongAxis(Value part, Value into, int64_t axis, int64_t offset);

  /// `axis` of `node` normalized from [-bound, bound) into [0, bound), or an
  /// error naming the node, the rank of its input and the allowed range.
  static llvm::Expected<int64_t> normalizeAxis(const onnx::NodeProto &node,
                                               int64_t axis, int64_t rank,
                                               int64_t bound);
  /// The node's `axis` attribute (`fallback` if absent) normalized for a
  /// rank-`rank` input, as normalizeAxis(node, axis, rank, rank).
  static llvm::Expected<int64_t> axisAttribute(const onnx::NodeProto &node,
                                               int64_t rank, int64_t fallback) {
    return normalizeAxis(node, getInt(node, "axis", fallback), rank, rank);
  }

  /// A tensor of `shape` whose element at each index is `source`'s element
  /// at the position `position` computes (from linalg.index values and the
  /// elements of `inputs`, read through `inputMaps` over the output's
  /// dimensions): one linalg.generic with tensor.extract, for positions no
  /// affine map expresses (negative steps, reflections, indices known only
  /// at run time).
  Value
  extractAt(Value source, llvm::ArrayRef<int64_t> shape,
            llvm::ArrayRef<Value> inputs, llvm::ArrayRef<AffineMap> inputMaps,
            std::function<SmallVector<Value>(OpBuilder &, Location, ValueRange)>
                position);

  /// A linalg.generic with explicit maps and iterators.
  Value generic(llvm::ArrayRef<Value> inputs, Value init,
                llvm::ArrayRef<AffineMap> maps,
                llvm::ArrayRef<utils::IteratorType> iterators,
                std::function<Value(OpBuilder &, Location, ValueRange)> body);

  // The graph's boundary (Importer.cpp): a graph input or output of a type
  // other than f32 and i64 is converted to or from the importer's types.

  /// The element type of a graph input or output of ONNX type `onnxType`,
  /// if a compiled model takes and returns it.
  static std::optional<ElementType> getBoundaryType(int32_t onnxType);
  /// The MLIR type `element` is stored as at the boundary.
  Type storageType(ElementType element);
  /// A graph input of type `element` converted to the importer's types.
  Value fromBoundary(Value argument, ElementType element);
  /// A graph output converted to its boundary type.
  Value toBoundary(Value result, ElementType element);
  /// The boundary type of graph output `name`, computed as `computed` and
  /// declared in the model as ONNX type `declared` (0 if not declared), or
  /// an error if they disagree.
  llvm::Expected<ElementType> getOutputType(llvm::StringRef name, Type computed,
                                            int32_t declared);
  /// A linalg.generic applying `convert` to each element of `value`.
  Value
  convertElements(Value value, Type to,
                  std::function<Value(OpBuilder &, Location, Value)> convert);

  llvm::StringMap<Value> values;
  llvm::StringMap<ConstantData> constants;
  /// The model's version of the default ONNX operator set.
  int64_t opset = 21;
};

/// The converter table, filled once by the op families below.
const ConverterTable &getConverters();

void registerElementwiseConverters(ConverterTable &table);
void registerConvolutionConverters(ConverterTable &table);
void registerNNConverters(ConverterTable &table);
void registerReductionConverters(ConverterTable &table);
void registerShapeConverters(ConverterTable &table);
void registerDataMovementConverters(ConverterTable &table);
void registerNormalizationConverters(ConverterTable &table);

//===----------------------------------------------------------------------===//
// Import-time evaluation (Evaluator.cpp)
//===----------------------------------------------------------------------===//

using Evaluator = std::function<llvm::Expected<ConstantData>(
    Importer &, const onnx::NodeProto &, llvm::ArrayRef<const ConstantData *>)>;

/// Evaluators by ONNX operator type, for nodes whose inputs are all known at
/// import time.
const std::map<std::string, Evaluator> &getEvaluators();

//===----------------------------------------------------------------------===//
// Validation (Validation.cpp)
//===----------------------------------------------------------------------===//

/// Checks what ONNX shape inference (which crashes on some malformed nodes)
/// and the converters rely on, before either sees the model: every node has
/// its required inputs and outputs, each name is defined once, window ops
/// have valid strides, dilations, kernel shapes and pads, and ranks agree
/// where the graph's static shapes (inputs, with the user's --input-shape,
/// initializers, constants, value_info) make them known.
llvm::Error validateModel(const onnx::ModelProto &model,
                          const OnnxImportOptions &options);

//===----------------------------------------------------------------------===//
// Helpers shared by converters and evaluators
//===----------------------------------------------------------------------===//

/// Cast's target element kind (Elementwise.cpp).
llvm::Expected<ElementKind> castTarget(const onnx::NodeProto &node);

/// Folds `x` over `axes` (sorted) into a tensor of the remaining dimensions
/// (Reductions.cpp). `body` gets an element of `x`, the matching element of
/// each of `rows` (tensors of the remaining dimensions, such as a row's
/// maximum) and the accumulator, which starts at `init`.
Value reduce(Importer &im, Value x, llvm::ArrayRef<Value> rows,
             llvm::ArrayRef<int64_t> axes, TypedAttr init,
             std::function<Value(OpBuilder &, Location, ValueRange)> body);

/// Sum of `x` over `axes` (sorted), keeping them as size-1 dims if `keep`
/// (Reductions.cpp).
Value reduceSum(Importer &im, Value x, llvm::ArrayRef<int64_t> axes, bool keep);

/// A tensor standardized over some of its dimensions: (x - mean) / sqrt(var
/// + epsilon) is centered * inverse; mean and inverse keep the reduced
/// dimensions as size 1.
struct Standardized {
  Value centered, mean, inverse;
};

/// Mean and variance of `x` over `axes` (sorted) (NN.cpp).
llvm::Expected<Standardized> standardize(Importer &im,
                                         const onnx::NodeProto &node, Value x,
                                         llvm::ArrayRef<int64_t> axes,
                                         float epsilon);

/// The integer input `index` (a shape, pads), known at compile time, or an
/// error naming the node and the input (ShapeOps.cpp).
llvm::Expected<std::vector<int64_t>>
constantInts(Importer &im, const onnx::NodeProto &node, int index);

/// `x` padded with `low` and `high` entries of `value` in each dimension
/// (DataMovement.cpp).
Value padTensor(Importer &im, Value x, llvm::ArrayRef<int64_t> low,
                llvm::ArrayRef<int64_t> high, Value value);

/// Permutes a tensor with linalg.transpose (ShapeOps.cpp).
Value transposeTensor(Importer &im, Value x, llvm::ArrayRef<int64_t> perm);

/// Transpose's permutation (reversed dimensions by default) (ShapeOps.cpp).
llvm::Expected<std::vector<int64_t>>
transposePermutation(const onnx::NodeProto &node, size_t rank);

/// The output shape of the ops that only change the shape: Flatten,
/// Reshape, Squeeze, Unsqueeze (ShapeOps.cpp).
llvm::Expected<std::vector<int64_t>> reshapeTarget(Importer &im,
                                                   const onnx::NodeProto &node,
                                                   llvm::ArrayRef<int64_t> xs);

/// Which elements Slice takes from each dimension of its data.
struct SliceSpec {
  std::vector<int64_t> starts, steps, sizes;
};

/// Slice's starts, steps and sizes on data of shape `ds` (ShapeOps.cpp).
llvm::Expected<SliceSpec> sliceSpec(Importer &im, const onnx::NodeProto &node,
                                    llvm::ArrayRef<int64_t> ds);

} // namespace mlir::tcl::onnx_import

#endif // TCL_LIB_FRONTEND_ONNX_IMPORTER_H
