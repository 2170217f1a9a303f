//===- Importer.cpp - ONNX models to linalg on tensors --------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The Importer walks the graph in order: a node whose inputs are all known
// at import time is evaluated (getEvaluators), any other is converted by the
// converter registered for its operator type (getConverters). Also the
// public API of tcl/Frontend/OnnxImporter.h.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/MemoryBuffer.h"

#include "onnx/shape_inference/implementation.h"

#include <climits>
#include <fstream>

using namespace mlir;
using namespace mlir::tcl;
using namespace mlir::tcl::onnx_import;

//===----------------------------------------------------------------------===//
// Importer
//===----------------------------------------------------------------------===//

llvm::Error Importer::input(const onnx::NodeProto &node, int index,
                            Value &value) {
  if (index >= node.input_size() || node.input(index).empty())
    return error(describe(node) + " lacks input " + std::to_string(index));
  if ((value = lookup(node.input(index))))
    return llvm::Error::success();
  return error(describe(node) + " uses '" + node.input(index) +
               "', which is not defined before it");
}

llvm::Error Importer::allInputs(const onnx::NodeProto &node,
                                std::vector<Value> &operands) {
  for (int i = 0; i < node.input_size(); ++i)
    if (llvm::Error e = input(node, i, operands.emplace_back()))
      return e;
  return llvm::Error::success();
}

llvm::Error Importer::optionalInput(const onnx::NodeProto &node, int index,
                                    Value &value) {
  if (!hasInput(node, index))
    return llvm::Error::success();
  return input(node, index, value);
}

Value Importer::lookup(llvm::StringRef name) {
  auto found = values.find(name);
  if (found != values.end())
    return found->second;
  auto constant = constants.find(name);
  if (constant == constants.end())
    return nullptr;
  return values[name] = materialize(constant->second);
}

Value Importer::materialize(const ConstantData &data) {
  auto type = RankedTensorType::get(data.shape, elementType(data.kind));
  DenseElementsAttr attr;
  if (data.kind == ElementKind::Float)
    attr = DenseElementsAttr::get(type, llvm::ArrayRef(data.floats));
  else if (data.kind == ElementKind::Int)
    attr = DenseElementsAttr::get(type, llvm::ArrayRef(data.ints));
  else
    attr = DenseElementsAttr::get(
        type, llvm::ArrayRef(llvm::to_vector(llvm::map_range(
                  data.ints, [](int64_t v) -> int8_t { return v != 0; }))));
  return b.create<arith::ConstantOp>(loc, type, attr);
}

Type Importer::elementType(ElementKind kind) {
  switch (kind) {
  case ElementKind::Float:
    return b.getF32Type();
  case ElementKind::Int:
    return b.getI64Type();
  case ElementKind::Bool:
    // Bytes, not i1: i1 tensors in memory would be read as packed bits by
    // vector loads. Bodies compare (i1) and widen with boolToByte.
    return b.getI8Type();
  }
  llvm_unreachable("unknown element kind");
}

Value Importer::boolToByte(OpBuilder &b, Location loc, Value flag) {
  return b.create<arith::ExtUIOp>(loc, b.getI8Type(), flag);
}

Value Importer::byteToBool(OpBuilder &b, Location loc, Value byte) {
  Value zero = b.create<arith::ConstantOp>(loc, b.getI8IntegerAttr(0));
  return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, byte, zero);
}

Value Importer::f32Constant(float value) {
  return b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(value));
}

Value Importer::denseConstant(llvm::ArrayRef<int64_t> shape,
                              llvm::ArrayRef<float> data) {
  auto type = f32Tensor(shape);
  return b.create<arith::ConstantOp>(loc, type,
                                     DenseElementsAttr::get(type, data));
}

Value Importer::filled(llvm::ArrayRef<int64_t> shape, float value) {
  return filled(shape, b.getF32FloatAttr(value));
}

Value Importer::filled(llvm::ArrayRef<int64_t> shape, TypedAttr value) {
  Value empty = b.create<tensor::EmptyOp>(loc, shape, value.getType());
  Value scalar = b.create<arith::ConstantOp>(loc, value);
  return b.create<linalg::FillOp>(loc, scalar, empty).getResult(0);
}

Value Importer::empty(llvm::ArrayRef<int64_t> shape, Type elementType) {
  return b.create<tensor::EmptyOp>(loc, shape,
                                   elementType ? elementType : b.getF32Type());
}

Value Importer::generic(
    llvm::ArrayRef<Value> inputs, Value init, llvm::ArrayRef<AffineMap> maps,
    llvm::ArrayRef<utils::IteratorType> iterators,
    std::function<Value(OpBuilder &, Location, ValueRange)> body) {
  auto op = b.create<linalg::GenericOp>(
      loc, TypeRange{init.getType()}, ValueRange(inputs), ValueRange{init},
      maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        nested.create<linalg::YieldOp>(nestedLoc,
                                       body(nested, nestedLoc, args));
      });
  return op.getResult(0);
}

Value Importer::extractAt(
    Value source, llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<Value> inputs,
    llvm::ArrayRef<AffineMap> inputMaps,
    std::function<SmallVector<Value>(OpBuilder &, Location, ValueRange)>
        position) {
  SmallVector<AffineMap> maps(inputMaps.begin(), inputMaps.end());
  maps.push_back(
      AffineMap::getMultiDimIdentityMap(shape.size(), b.getContext()));
  return generic(inputs, empty(shape, elementTypeOf(source)), maps,
                 SmallVector<utils::IteratorType>(
                     shape.size(), utils::IteratorType::parallel),
                 [&](OpBuilder &nested, Location at, ValueRange args) {
                   SmallVector<Value> indices = position(nested, at, args);
                   return nested.create<tensor::ExtractOp>(at, source, indices)
                       .getResult();
                 });
}

llvm::Expected<Value> Importer::elementwise(
    const onnx::NodeProto &node, llvm::ArrayRef<Value> inputs,
    std::function<Value(OpBuilder &, Location, ValueRange)> body,
    Type resultType, llvm::ArrayRef<int64_t> minShape) {
  SmallVector<llvm::ArrayRef<int64_t>> shapes = {minShape};
  for (Value value : inputs)
    shapes.push_back(shapeOf(value));
  std::optional<std::vector<int64_t>> broadcast = broadcastShapes(shapes);
  if (!broadcast) {
    std::string list;
    for (llvm::ArrayRef<int64_t> shape : llvm::drop_begin(shapes))
      list += " " + formatShape(shape);
    return error(describe(node) + ": shapes" + list + " do not broadcast" +
                 (minShape.empty() ? "" : " to " + formatShape(minShape)));
  }
  const std::vector<int64_t> &shape = *broadcast;
  if (llvm::Error e = checkShape(describe(node), shape))
    return std::move(e);
  size_t rank = shape.size();
  SmallVector<AffineMap> maps;
  for (Value value : inputs) {
    llvm::ArrayRef<int64_t> in = shapeOf(value);
    SmallVector<AffineExpr> exprs;
    for (size_t i = 0; i < in.size(); ++i) {
      size_t dim = rank - in.size() + i;
      exprs.push_back(in[i] == 1 && shape[dim] != 1 ? b.getAffineConstantExpr(0)
                                                    : b.getAffineDimExpr(dim));
    }
    maps.push_back(AffineMap::get(rank, 0, exprs, b.getContext()));
  }
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Type element = resultType ? resultType : elementTypeOf(inputs[0]);
  return generic(inputs, empty(shape, element), maps, iterators, body);
}

SmallVector<OpFoldResult> Importer::indexAttrs(llvm::ArrayRef<int64_t> values) {
  return llvm::to_vector(llvm::map_range(
      values, [&](int64_t v) { return OpFoldResult(b.getIndexAttr(v)); }));
}

/// Offsets and unit strides of the part of a rank-`rank` tensor that starts
/// at `offset` along `axis`.
static std::pair<SmallVector<int64_t>, SmallVector<int64_t>>
axisOffsetsAndStrides(int64_t rank, int64_t axis, int64_t offset) {
  SmallVector<int64_t> offsets(rank, 0), strides(rank, 1);
  offsets[axis] = offset;
  return {offsets, strides};
}

Value Importer::extractAlongAxis(Value value, int64_t axis, int64_t offset,
                                 int64_t size) {
  SmallVector<int64_t> shape(shapeOf(value));
  shape[axis] = size;
  auto [offsets, strides] = axisOffsetsAndStrides(shape.size(), axis, offset);
  auto type = RankedTensorType::get(shape, elementTypeOf(value));
  return b.create<tensor::ExtractSliceOp>(loc, type, value, indexAttrs(offsets),
                                          indexAttrs(shape),
                                          indexAttrs(strides));
}

Value Importer::insertAlongAxis(Value part, Value into, int64_t axis,
                                int64_t offset) {
  llvm::ArrayRef<int64_t> shape = shapeOf(part);
  auto [offsets, strides] = axisOffsetsAndStrides(shape.size(), axis, offset);
  return b.create<tensor::InsertSliceOp>(loc, part, into, indexAttrs(offsets),
                                         indexAttrs(shape),
                                         indexAttrs(strides));
}

llvm::Expected<int64_t> Importer::normalizeAxis(const onnx::NodeProto &node,
                                                int64_t axis, int64_t rank,
                                                int64_t bound) {
  if (axis < -bound || axis >= bound)
    return error(describe(node) + ": axis " + std::to_string(axis) +
                 " is out of range for a rank-" + std::to_string(rank) +
                 " input (it must be in [" + std::to_string(-bound) + ", " +
                 std::to_string(bound - 1) + "])");
  return axis < 0 ? axis + bound : axis;
}

Value Importer::reshape(Value value, llvm::ArrayRef<int64_t> shape) {
  llvm::ArrayRef<int64_t> from = shapeOf(value);
  if (from == shape)
    return value;
  auto typed = [&](llvm::ArrayRef<int64_t> dims) {
    return RankedTensorType::get(dims, elementTypeOf(value));
  };
  int64_t count = std::accumulate(from.begin(), from.end(), int64_t(1),
                                  std::multiplies<int64_t>());
  Value flat = value;
  if (from.size() != 1) {
    SmallVector<ReassociationIndices> all(1);
    for (size_t i = 0; i < from.size(); ++i)
      all[0].push_back(i);
    flat =
        from.empty()
            ? b.create<tensor::ExpandShapeOp>(
                   loc, typed({1}), value, SmallVector<ReassociationIndices>{})
                  .getResult()
            : b.create<tensor::CollapseShapeOp>(loc, typed({count}), value, all)
                  .getResult();
  }
  if (shape.size() == 1)
    return flat;
  SmallVector<ReassociationIndices> all(shape.empty() ? 0 : 1);
  for (size_t i = 0; i < shape.size(); ++i)
    all[0].push_back(i);
  if (shape.empty())
    return b.create<tensor::CollapseShapeOp>(loc, typed({}), flat, all);
  return b.create<tensor::ExpandShapeOp>(loc, typed(shape), flat, all);
}

const ConverterTable &onnx_import::getConverters() {
  static const ConverterTable converters = [] {
    ConverterTable table;
    registerElementwiseConverters(table);
    registerConvolutionConverters(table);
    registerNNConverters(table);
    registerReductionConverters(table);
    registerShapeConverters(table);
    registerDataMovementConverters(table);
    registerNormalizationConverters(table);
    return table;
  }();
  return converters;
}

//===----------------------------------------------------------------------===//
// Models
//===----------------------------------------------------------------------===//

namespace {

llvm::Expected<std::vector<int64_t>>
staticShape(const onnx::ValueInfoProto &info,
            const OnnxImportOptions &options) {
  auto given = options.inputShapes.find(info.name());
  if (given != options.inputShapes.end()) {
    if (llvm::Error e =
            checkShape("graph input '" + info.name() + "'", given->second))
      return std::move(e);
    return given->second;
  }
  if (!info.type().has_tensor_type())
    return error("graph input '" + info.name() + "' is not a tensor");
  std::vector<int64_t> shape;
  const onnx::TensorShapeProto &proto = info.type().tensor_type().shape();
  for (int d = 0; d < proto.dim_size(); ++d) {
    const auto &dim = proto.dim(d);
    if (!dim.has_dim_value() || dim.dim_value() <= 0)
      return error(
          "graph input '" + info.name() + "' has a dynamic dimension " +
          (dim.has_dim_param() ? "'" + dim.dim_param() + "' " : "") + "(dim " +
          std::to_string(d) + "); give its shape with --input-shape " +
          info.name() + "=1x3x224x224 (for example)");
    shape.push_back(dim.dim_value());
  }
  if (llvm::Error e = checkShape("graph input '" + info.name() + "'", shape))
    return std::move(e);
  return shape;
}

} // namespace

//===----------------------------------------------------------------------===//
// The graph's boundary
//===----------------------------------------------------------------------===//

/// The element types a compiled model takes and returns, for messages.
static constexpr llvm::StringLiteral kBoundaryTypes =
    "float, int64, int32, int8, uint8 and bool";

std::optional<ElementType> Importer::getBoundaryType(int32_t onnxType) {
  switch (onnxType) {
  case onnx::TensorProto::FLOAT:
    return ElementType::F32;
  case onnx::TensorProto::INT64:
    return ElementType::I64;
  case onnx::TensorProto::INT32:
    return ElementType::I32;
  case onnx::TensorProto::INT8:
    return ElementType::I8;
  case onnx::TensorProto::UINT8:
    return ElementType::U8;
  case onnx::TensorProto::BOOL:
    return ElementType::Bool;
  default:
    return std::nullopt;
  }
}

Type Importer::storageType(ElementType element) {
  switch (element) {
  case ElementType::F32:
    return b.getF32Type();
  case ElementType::I64:
    return b.getI64Type();
  case ElementType::I32:
    return b.getI32Type();
  case ElementType::I8:
  case ElementType::U8:
  case ElementType::Bool:
    return b.getI8Type();
  }
  llvm_unreachable("an element type without storage");
}

Value Importer::convertElements(
    Value value, Type to,
    std::function<Value(OpBuilder &, Location, Value)> convert) {
  auto type = cast<RankedTensorType>(value.getType());
  unsigned rank = type.getRank();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  return generic(
      {value}, empty(type.getShape(), to), {identity, identity},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nested, Location at, ValueRange args) {
        return convert(nested, at, args[0]);
      });
}

Value Importer::fromBoundary(Value argument, ElementType element) {
  switch (element) {
  case ElementType::F32:
  case ElementType::I64:
    return argument;
  case ElementType::I32:
  case ElementType::I8:
    return convertElements(argument, b.getI64Type(),
                           [](OpBuilder &b, Location loc, Value x) -> Value {
                             return b.create<arith::ExtSIOp>(loc,
                                                             b.getI64Type(), x);
                           });
  case ElementType::U8:
    return convertElements(argument, b.getI64Type(),
                           [](OpBuilder &b, Location loc, Value x) -> Value {
                             return b.create<arith::ExtUIOp>(loc,
                                                             b.getI64Type(), x);
                           });
  case ElementType::Bool:
    // A caller's nonzero byte is true: the model's bools are 0 or 1.
    return convertElements(
        argument, b.getI8Type(),
        [](OpBuilder &b, Location loc, Value x) -> Value {
          Value zero = b.create<arith::ConstantIntOp>(loc, 0, 8);
          Value isSet =
              b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, x, zero);
          return b.create<arith::ExtUIOp>(loc, b.getI8Type(), isSet);
        });
  }
  llvm_unreachable("an unknown element type");
}

Value Importer::toBoundary(Value result, ElementType element) {
  Type stored = storageType(element);
  if (elementTypeOf(result) == stored)
    return result;
  // Only i64 values narrow (to i32, i8 or u8): two's complement truncation,
  // as ONNX's Cast does.
  return convertElements(
      result, stored, [stored](OpBuilder &b, Location loc, Value x) -> Value {
        return b.create<arith::TruncIOp>(loc, stored, x);
      });
}

llvm::Expected<ElementType>
Importer::getOutputType(llvm::StringRef name, Type computed, int32_t declared) {
  std::optional<ElementType> element = getBoundaryType(declared);
  auto mismatch = [&](llvm::StringRef kind) {
    return error("graph output '" + name + "' is computed as " + kind +
                 " but declared with ONNX element type " +
                 std::to_string(declared) + "; tcl's compiled models return " +
                 kBoundaryTypes + " outputs");
  };
  if (computed.isF32()) {
    if (declared != 0 && element != ElementType::F32)
      return mismatch("float");
    return ElementType::F32;
  }
  if (isBool(computed)) {
    if (declared != 0 && element != ElementType::Bool)
      return mismatch("bool");
    return ElementType::Bool;
  }
  if (declared == 0)
    return ElementType::I64;
  if (!element || *element == ElementType::F32 || *element == ElementType::Bool)
    return mismatch("integer");
  return *element;
}

llvm::Expected<OwningOpRef<ModuleOp>>
Importer::importModel(onnx::ModelProto &model,
                      const OnnxImportOptions &options) {
  MLIRContext *ctx = b.getContext();
  ctx->loadDialect<arith::ArithDialect, func::FuncDialect,
                   linalg::LinalgDialect, math::MathDialect,
                   tensor::TensorDialect>();
  const onnx::GraphProto &graph = model.graph();

  for (const onnx::OperatorSetIdProto &set : model.opset_import())
    if (set.domain().empty() || set.domain() == "ai.onnx")
      opset = set.version();
  for (const onnx::TensorProto &init : graph.initializer()) {
    auto data = readTensor(init);
    if (!data)
      return data.takeError();
    constants[init.name()] = *data;
  }
  for (const auto &[name, path] : options.boundInputs) {
    std::ifstream stream(path, std::ios::binary);
    onnx::TensorProto tensor;
    if (!stream || !tensor.ParseFromIstream(&stream))
      return error("cannot read an ONNX tensor for input '" + name +
                   "' from '" + path + "'");
    auto data = readTensor(tensor);
    if (!data)
      return data.takeError();
    constants[name] = *data;
  }

  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  SmallVector<Type> argTypes;
  std::vector<std::string> argNames;
  std::vector<ElementType> argElements;
  for (const onnx::ValueInfoProto &in : graph.input()) {
    if (constants.count(in.name()))
      continue; // An initializer (listed by older exporters) or bound.
    int32_t onnxType = in.type().tensor_type().elem_type();
    std::optional<ElementType> element = getBoundaryType(onnxType);
    if (!element)
      return error("graph input '" + in.name() + "' has ONNX element type " +
                   std::to_string(onnxType) + "; tcl's compiled models take " +
                   kBoundaryTypes + " inputs");
    auto shape = staticShape(in, options);
    if (!shape)
      return shape.takeError();
    argTypes.push_back(RankedTensorType::get(*shape, storageType(*element)));
    argNames.push_back(in.name());
    argElements.push_back(*element);
  }
  auto func = b.create<func::FuncOp>(loc, options.functionName,
                                     b.getFunctionType(argTypes, {}));
  Block *body = func.addEntryBlock();
  b.setInsertionPointToStart(body);
  for (auto [name, arg, element] :
       llvm::zip_equal(argNames, body->getArguments(), argElements))
    values[name] = fromBoundary(arg, element);

  const auto &converters = getConverters();
  const auto &evaluators = getEvaluators();
  for (int index = 0; index < graph.node_size(); ++index) {
    const onnx::NodeProto &node = graph.node(index);
    if (node.output_size() == 0 || node.output(0).empty())
      return error(describe(node, index) + ": has no output");
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      return error("unsupported operator '" + node.domain() +
                   "::" + node.op_type() + "' (node '" + node.name() + "', #" +
                   std::to_string(index) + ")");
    auto converter = converters.find(node.op_type());
    if (converter == converters.end())
      return error("unsupported operator '" + node.op_type() + "' (node '" +
                   nameOf(node) + "', #" + std::to_string(index) + ")");
    loc = NameLoc::get(b.getStringAttr(nameOf(node)));
    // Converters and evaluators describe the node; add where it is.
    auto located = [&](llvm::Error e) -> llvm::Error {
      std::string message = llvm::toString(std::move(e));
      std::string subject = describe(node);
      if (llvm::StringRef(message).starts_with(subject + ":"))
        message.insert(subject.size(), " (#" + std::to_string(index) + ")");
      return error(message);
    };
    // Evaluate the node if all its inputs are known at import time (one
    // left out, even an optional one, leaves the node to its converter, so
    // that evaluators get each input they index).
    SmallVector<const ConstantData *> known;
    for (int i = 0; i < node.input_size(); ++i)
      known.push_back(constant(node, i));
    bool allKnown = !known.empty() && !llvm::is_contained(known, nullptr);
    auto evaluator = evaluators.find(node.op_type());
    if (evaluator != evaluators.end() && allKnown) {
      auto result = evaluator->second(*this, node, known);
      if (!result)
        return located(result.takeError());
      constants[node.output(0)] = std::move(*result);
      continue;
    }
    if (llvm::Error e = converter->second(*this, node))
      return located(std::move(e));
  }
  loc = b.getUnknownLoc();

  SmallVector<Value> results;
  std::vector<ElementType> resultElements;
  for (const onnx::ValueInfoProto &out : graph.output()) {
    Value result = lookup(out.name());
    if (!result)
      return error("graph output '" + out.name() +
                   "' is not computed by "
                   "any supported node");
    auto element = getOutputType(out.name(), elementTypeOf(result),
                                 out.type().tensor_type().elem_type());
    if (!element)
      return element.takeError();
    results.push_back(toBoundary(result, *element));
    resultElements.push_back(*element);
  }
  b.create<func::ReturnOp>(loc, results);
  func.setFunctionType(
      b.getFunctionType(argTypes, ValueRange(results).getTypes()));
  // The graph's names and the element types that i8 leaves ambiguous, for
  // the compiled model's C API.
  auto describeElement = [&](ElementType element) -> StringAttr {
    if (element != ElementType::U8 && element != ElementType::Bool)
      return nullptr;
    return b.getStringAttr(getElementTypeName(element));
  };
  for (auto [index, name] : llvm::enumerate(argNames)) {
    func.setArgAttr(index, "tcl.name", b.getStringAttr(name));
    if (StringAttr element = describeElement(argElements[index]))
      func.setArgAttr(index, kElementTypeAttrName, element);
  }
  for (int index = 0; index < graph.output_size(); ++index) {
    func.setResultAttr(index, "tcl.name",
                       b.getStringAttr(graph.output(index).name()));
    if (StringAttr element = describeElement(resultElements[index]))
      func.setResultAttr(index, kElementTypeAttrName, element);
  }
  if (failed(verify(*module)))
    return error("the imported module does not verify (a tcl importer bug)");
  return module;
}

llvm::Expected<OwningOpRef<ModuleOp>>
mlir::tcl::importOnnxFile(llvm::StringRef path, MLIRContext *context,
                          const OnnxImportOptions &options) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return error("cannot open '" + path + "'");
  return importOnnxModel((*buffer)->getBuffer(), path, context, options);
}

llvm::Expected<OwningOpRef<ModuleOp>>
mlir::tcl::importOnnxModel(llvm::StringRef bytes, llvm::StringRef path,
                           MLIRContext *context,
                           const OnnxImportOptions &options) {
  onnx::ModelProto model;
  // (protobuf refuses messages of 2 GiB and more anyway.)
  if (bytes.size() > size_t(INT_MAX) ||
      !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return error("'" + path +
                 "' is not a valid ONNX model (protobuf parse "
                 "failed)");
  if (!model.has_graph())
    return error("'" + path + "' has no graph");
  // Fix the user-given input shapes before shape inference, so it can
  // propagate them.
  for (onnx::ValueInfoProto &in : *model.mutable_graph()->mutable_input()) {
    auto given = options.inputShapes.find(in.name());
    if (given == options.inputShapes.end())
      continue;
    onnx::TensorShapeProto *shape =
        in.mutable_type()->mutable_tensor_type()->mutable_shape();
    shape->clear_dim();
    for (int64_t dim : given->second)
      shape->add_dim()->set_dim_value(dim);
  }
  // Shape inference crashes on some malformed nodes: check them first.
  if (llvm::Error e = validateModel(model, options))
    return std::move(e);
  try {
    onnx::shape_inference::InferShapes(model);
  } catch (const std::exception &e) {
    return error("ONNX shape inference failed on '" + path + "': " + e.what());
  }
  Importer importer(context);
  return importer.importModel(model, options);
}

llvm::Error mlir::tcl::parseInputShape(llvm::StringRef text,
                                       OnnxImportOptions &options) {
  auto [name, dims] = text.rsplit('=');
  if (name.empty() || dims.empty())
    return error("--input-shape expects name=DxDx..., got '" + text + "'");
  std::vector<int64_t> shape;
  llvm::SmallVector<llvm::StringRef> parts;
  dims.split(parts, 'x');
  for (llvm::StringRef part : parts) {
    int64_t dim;
    if (part.getAsInteger(10, dim) || dim <= 0)
      return error("--input-shape '" + text + "': '" + part +
                   "' is not a positive dimension");
    shape.push_back(dim);
  }
  options.inputShapes[name.str()] = shape;
  return llvm::Error::success();
}

llvm::Error mlir::tcl::parseBoundInput(llvm::StringRef text,
                                       OnnxImportOptions &options) {
  auto [name, path] = text.split('=');
  if (name.empty() || path.empty())
    return error("--bind-input expects name=value.pb, got '" + text + "'");
  options.boundInputs[name.str()] = path.str();
  return llvm::Error::success();
}

std::vector<std::string> mlir::tcl::getSupportedOnnxOps() {
  std::vector<std::string> names;
  for (const auto &[name, converter] : getConverters())
    names.push_back(name);
  return names;
}

llvm::Expected<Buffer> mlir::tcl::readOnnxTensorFile(llvm::StringRef path) {
  std::ifstream stream(path.str(), std::ios::binary);
  onnx::TensorProto tensor;
  if (!stream || !tensor.ParseFromIstream(&stream))
    return error("cannot read an ONNX tensor from '" + path + "'");
  std::optional<ElementType> element =
      Importer::getBoundaryType(tensor.data_type());
  if (!element)
    return error("'" + path + "' holds ONNX element type " +
                 std::to_string(tensor.data_type()) + ", not " +
                 kBoundaryTypes);
  auto values = readTensor(tensor);
  if (!values)
    return values.takeError();
  Buffer buffer;
  buffer.shape = values->shape;
  buffer.type = *element;
  buffer.data = std::move(values->floats);
  buffer.ints = std::move(values->ints);
  return buffer;
}

llvm::Expected<std::vector<Buffer>>
mlir::tcl::readOnnxTestData(llvm::StringRef dir, llvm::StringRef prefix,
                            size_t count) {
  std::vector<Buffer> tensors;
  for (size_t i = 0; i < count; ++i) {
    auto tensor = readOnnxTensorFile(
        (dir + "/" + prefix + std::to_string(i) + ".pb").str());
    if (!tensor)
      return tensor.takeError();
    tensors.push_back(std::move(*tensor));
  }
  return tensors;
}
