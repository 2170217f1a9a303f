//===- Validation.cpp - Checks of an ONNX graph before shape inference ----===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// ONNX shape inference trusts the nodes it is given: a window op with a
// stride of 0 divides by it, a convolution whose weights have another rank
// than its input reads past the end of its attributes. So the model is
// checked here first, and refused with an error that names the node and the
// rule: every node has the inputs, outputs and attributes its operator
// requires, each value is defined once and before it is used, window
// attributes are in range, and the ranks of window ops agree where the
// graph's static shapes, and the ranks tcl propagates from them through the
// operators it knows, make them known.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "llvm/ADT/StringSet.h"

#include "onnx/defs/data_type_utils.h"
#include "onnx/defs/schema.h"

using namespace mlir;
using namespace mlir::tcl;
using namespace mlir::tcl::onnx_import;

namespace {

/// Dimensions by value name, -1 where a dimension is not known.
using ShapeMap = llvm::StringMap<std::vector<int64_t>>;

std::vector<int64_t> dimsOf(const onnx::TensorShapeProto &shape) {
  std::vector<int64_t> dims;
  for (const auto &dim : shape.dim())
    dims.push_back(dim.has_dim_value() && dim.dim_value() > 0 ? dim.dim_value()
                                                              : -1);
  return dims;
}

/// "1x?x5": a shape with `?` where the dimension is not known.
std::string formatKnownShape(llvm::ArrayRef<int64_t> dims) {
  std::string text;
  for (auto [index, dim] : llvm::enumerate(dims))
    text += (index ? "x" : "") + (dim < 0 ? "?" : std::to_string(dim));
  return text.empty() ? "scalar" : text;
}

void recordValueInfo(ShapeMap &shapes, const onnx::ValueInfoProto &info) {
  if (info.type().has_tensor_type() && info.type().tensor_type().has_shape() &&
      !shapes.count(info.name()))
    shapes[info.name()] = dimsOf(info.type().tensor_type().shape());
}

/// The static shapes ONNX shape inference starts from: graph inputs (with
/// the user's shapes), initializers, value_info and Constant nodes.
ShapeMap knownShapes(const onnx::GraphProto &graph,
                     const OnnxImportOptions &options) {
  ShapeMap shapes;
  for (const auto &[name, shape] : options.inputShapes)
    shapes[name] = shape;
  for (const onnx::TensorProto &init : graph.initializer())
    shapes[init.name()].assign(init.dims().begin(), init.dims().end());
  for (const onnx::ValueInfoProto &info : graph.input())
    recordValueInfo(shapes, info);
  for (const onnx::ValueInfoProto &info : graph.value_info())
    recordValueInfo(shapes, info);
  for (const onnx::NodeProto &node : graph.node())
    if (node.op_type() == "Constant" && node.output_size() == 1)
      if (const auto *value = Importer::attribute(node, "value"))
        shapes[node.output(0)].assign(value->t().dims().begin(),
                                      value->t().dims().end());
  return shapes;
}

/// Operators whose first output has the rank of their first input.
bool keepsRank(llvm::StringRef type) {
  return llvm::is_contained({"Relu",
                             "LeakyRelu",
                             "Sigmoid",
                             "Tanh",
                             "Elu",
                             "Selu",
                             "HardSigmoid",
                             "HardSwish",
                             "Gelu",
                             "Erf",
                             "Exp",
                             "Log",
                             "Sqrt",
                             "Abs",
                             "Neg",
                             "Reciprocal",
                             "Clip",
                             "Identity",
                             "Dropout",
                             "Cast",
                             "Softmax",
                             "LogSoftmax",
                             "BatchNormalization",
                             "InstanceNormalization",
                             "LayerNormalization",
                             "Conv",
                             "ConvTranspose",
                             "MaxPool",
                             "AveragePool",
                             "LpPool"},
                            type);
}

/// Operators with spatial windows, whose attributes ONNX shape inference
/// divides and indexes by without checking them.
bool isWindowOp(llvm::StringRef type) {
  return llvm::is_contained({"Conv", "ConvInteger", "ConvTranspose",
                             "QLinearConv", "MaxPool", "AveragePool", "LpPool",
                             "MaxUnpool"},
                            type);
}

class Validator {
public:
  Validator(const onnx::ModelProto &model, const OnnxImportOptions &options)
      : graph(model.graph()), shapes(knownShapes(graph, options)) {
    for (const onnx::OperatorSetIdProto &set : model.opset_import())
      if (set.domain().empty() || set.domain() == "ai.onnx")
        opset = set.version();
    for (const onnx::ValueInfoProto &in : graph.input())
      definedBy[in.name()] = -1;
    for (const onnx::TensorProto &init : graph.initializer())
      definedBy[init.name()] = -1;
    // Element types known before shape inference (which does not check
    // them against the operators' type constraints).
    auto recordType = [&](const onnx::ValueInfoProto &info) {
      if (info.type().has_tensor_type() &&
          info.type().tensor_type().elem_type() != 0)
        elementTypes[info.name()] = info.type().tensor_type().elem_type();
    };
    for (const onnx::ValueInfoProto &in : graph.input())
      recordType(in);
    for (const onnx::ValueInfoProto &info : graph.value_info())
      recordType(info);
    for (const onnx::TensorProto &init : graph.initializer())
      elementTypes[init.name()] = init.data_type();
    for (const onnx::NodeProto &node : graph.node())
      if (node.op_type() == "Constant" && node.output_size() == 1)
        if (const auto *value = Importer::attribute(node, "value"))
          elementTypes[node.output(0)] = value->t().data_type();
  }

  llvm::Error run() {
    for (int index = 0; index < graph.node_size(); ++index) {
      const onnx::NodeProto &node = graph.node(index);
      std::string subject = Importer::describe(node, index);
      if (llvm::Error e = checkArity(node, subject))
        return e;
      if (llvm::Error e = checkInputsAreDefined(node, subject))
        return e;
      if (llvm::Error e = checkInputTypes(node, subject))
        return e;
      if (llvm::Error e = checkOutputsAreNew(node, index, subject))
        return e;
      if (isWindowOp(node.op_type())) {
        if (llvm::Error e = checkWindowAttributes(node, subject))
          return e;
        if (llvm::Error e = checkWindowRanks(node, subject))
          return e;
      }
      if (llvm::Error e = checkLayerNormAxis(node, subject))
        return e;
      propagateRank(node);
    }
    return llvm::Error::success();
  }

private:
  /// The schema of `node`'s operator at the model's opset; null for other
  /// domains and unknown operators.
  const onnx::OpSchema *schemaOf(const onnx::NodeProto &node) const {
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      return nullptr;
    return onnx::OpSchemaRegistry::Schema(node.op_type(), opset);
  }

  /// Input and output counts, required inputs named and required attributes
  /// present, as the operator's schema for the model's opset says.
  llvm::Error checkArity(const onnx::NodeProto &node,
                         const std::string &subject) {
    if (node.output_size() == 0 || node.output(0).empty())
      return error(subject + ": has no output (a node defines at least its "
                             "first output)");
    const onnx::OpSchema *schema = schemaOf(node);
    if (!schema)
      return llvm::Error::success(); // The importer names it as unsupported.
    auto range = [](int low, int high, const char *what) {
      std::string noun = std::string(what) + (high == 1 ? "" : "s");
      if (low == high)
        return std::to_string(low) + " " + noun;
      if (high == std::numeric_limits<int>::max())
        return "at least " + std::to_string(low) + " " + what +
               (low == 1 ? "" : "s");
      return std::to_string(low) + " to " + std::to_string(high) + " " + noun;
    };
    if (node.input_size() < schema->min_input() ||
        node.input_size() > schema->max_input())
      return error(subject + ": takes " +
                   range(schema->min_input(), schema->max_input(), "input") +
                   ", got " + std::to_string(node.input_size()));
    if (node.output_size() < schema->min_output() ||
        node.output_size() > schema->max_output())
      return error(subject + ": has " +
                   range(schema->min_output(), schema->max_output(), "output") +
                   ", got " + std::to_string(node.output_size()));
    // Shape inference reads required attributes without checking for them.
    for (const auto &[name, formal] : schema->attributes())
      if (formal.required && !Importer::attribute(node, name))
        return error(subject + ": lacks its required attribute '" + name + "'");
    const auto &formals = schema->inputs();
    for (int i = 0; i < node.input_size() && !formals.empty(); ++i) {
      const auto &formal = formals[std::min<size_t>(i, formals.size() - 1)];
      if (node.input(i).empty() &&
          formal.GetOption() != onnx::OpSchema::Optional)
        return error(subject + ": input " + std::to_string(i) + " (" +
                     formal.GetName() + ") is required but has no name");
    }
    return llvm::Error::success();
  }

  /// Each input is defined before the node (by a graph input, an
  /// initializer or an earlier node): shape inference dereferences the type
  /// of a required input without checking that it has one.
  llvm::Error checkInputsAreDefined(const onnx::NodeProto &node,
                                    const std::string &subject) {
    for (const std::string &name : node.input())
      if (!name.empty() && !definedBy.count(name))
        return error(subject + ": uses '" + name +
                     "', which is not defined before it");
    return llvm::Error::success();
  }

  /// ONNX graphs are in SSA form: each value has one definition.
  llvm::Error checkOutputsAreNew(const onnx::NodeProto &node, int index,
                                 const std::string &subject) {
    for (const std::string &name : node.output()) {
      if (name.empty())
        continue; // An optional output left out.
      auto [found, isNew] = definedBy.try_emplace(name, index);
      if (isNew)
        continue;
      return error(subject + ": output '" + name + "' is already defined " +
                   (found->second < 0
                        ? std::string("as a graph input or "
                                      "initializer")
                        : "by node #" + std::to_string(found->second)) +
                   " (each value must be defined once)");
    }
    return llvm::Error::success();
  }

  llvm::Error checkWindowAttributes(const onnx::NodeProto &node,
                                    const std::string &subject) {
    for (auto [name, least] : {std::pair<const char *, int64_t>("strides", 1),
                               {"dilations", 1},
                               {"kernel_shape", 1},
                               {"pads", 0},
                               {"output_padding", 0}}) {
      for (int64_t value : Importer::getInts(node, name))
        if (value < least)
          return error(subject + ": " + name + " must be " +
                       (least ? "at least 1" : "non-negative") + ", got " +
                       std::to_string(value));
    }
    if (Importer::attribute(node, "group") &&
        Importer::getInt(node, "group", 1) < 1)
      return error(subject + ": group must be at least 1, got " +
                   std::to_string(Importer::getInt(node, "group", 1)));
    return llvm::Error::success();
  }

  const std::vector<int64_t> *shapeOf(const onnx::NodeProto &node, int i) {
    if (i >= node.input_size() || node.input(i).empty())
      return nullptr;
    auto found = shapes.find(node.input(i));
    return found == shapes.end() ? nullptr : &found->second;
  }

  /// A window op's data has a batch and a channel dimension and at least one
  /// spatial one; a convolution's weights have the same rank; spatial
  /// attributes have one entry per spatial dimension.
  llvm::Error checkWindowRanks(const onnx::NodeProto &node,
                               const std::string &subject) {
    const std::vector<int64_t> *x = shapeOf(node, 0);
    if (!x)
      return llvm::Error::success();
    int64_t rank = x->size();
    if (rank < 3)
      return error(subject + ": its input has rank " + std::to_string(rank) +
                   " (shape " + formatKnownShape(*x) +
                   "); it needs a batch, a channel and at least one spatial "
                   "dimension");
    int weightIndex = node.op_type() == "QLinearConv" ? 3 : 1;
    bool hasWeights = node.op_type().find("Conv") != std::string::npos;
    if (hasWeights)
      if (const std::vector<int64_t> *w = shapeOf(node, weightIndex))
        if (static_cast<int64_t>(w->size()) != rank)
          return error(subject + ": its weights have rank " +
                       std::to_string(w->size()) + " (shape " +
                       formatKnownShape(*w) + ") but its input has rank " +
                       std::to_string(rank) + "; they must be equal");
    size_t spatial = rank - 2;
    for (const char *name : {"strides", "dilations", "kernel_shape"}) {
      std::vector<int64_t> values = Importer::getInts(node, name);
      if (Importer::attribute(node, name) && values.size() != spatial)
        return error(subject + ": " + name + " has " +
                     std::to_string(values.size()) + " entries for " +
                     std::to_string(spatial) + " spatial dimensions");
    }
    std::vector<int64_t> pads = Importer::getInts(node, "pads");
    if (Importer::attribute(node, "pads") && pads.size() != 2 * spatial)
      return error(subject + ": pads has " + std::to_string(pads.size()) +
                   " entries for " + std::to_string(spatial) +
                   " spatial dimensions (it needs 2 per dimension)");
    return llvm::Error::success();
  }

  /// The rank of input `i`, if known.
  std::optional<int64_t> rankOf(const onnx::NodeProto &node, int i) {
    const std::vector<int64_t> *shape = shapeOf(node, i);
    return shape ? std::optional<int64_t>(shape->size()) : std::nullopt;
  }

  /// The entry count of 1-D input `i` (a shape or an axes list), if known.
  std::optional<int64_t> lengthOf(const onnx::NodeProto &node, int i) {
    const std::vector<int64_t> *shape = shapeOf(node, i);
    if (!shape || shape->size() != 1 || (*shape)[0] < 0)
      return std::nullopt;
    return (*shape)[0];
  }

  /// How many axes Squeeze, Unsqueeze or a reduction lists (attribute, or
  /// input 1 from opset 13/18), if known.
  std::optional<int64_t> axisCount(const onnx::NodeProto &node) {
    if (Importer::attribute(node, "axes"))
      return Importer::getInts(node, "axes").size();
    return lengthOf(node, 1);
  }

  /// The rank of the node's first output, if tcl can tell it from the ranks
  /// of its inputs: enough to check the window ops that follow a Reshape, a
  /// MatMul or a Gather before ONNX shape inference sees them.
  std::optional<int64_t> outputRank(const onnx::NodeProto &node) {
    llvm::StringRef type = node.op_type();
    std::optional<int64_t> x = rankOf(node, 0);
    if (keepsRank(type) || llvm::is_contained({"Transpose",
                                               "Concat",
                                               "Split",
                                               "Pad",
                                               "Resize",
                                               "Tile",
                                               "DepthToSpace",
                                               "SpaceToDepth",
                                               "Trilu",
                                               "CumSum",
                                               "GlobalAveragePool",
                                               "GlobalMaxPool",
                                               "LpNormalization",
                                               "GroupNormalization",
                                               "LRN",
                                               "PRelu",
                                               "Mish",
                                               "Softplus",
                                               "Softsign",
                                               "Not",
                                               "Sign",
                                               "Floor",
                                               "Ceil",
                                               "Round"},
                                              type))
      return x;
    if (llvm::is_contained({"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min",
                            "Sum", "Mean", "Mod", "Equal", "Less", "Greater",
                            "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor",
                            "Where"},
                           type)) {
      int64_t rank = 0;
      for (int i = 0; i < node.input_size(); ++i) {
        std::optional<int64_t> r = rankOf(node, i);
        if (!r)
          return std::nullopt;
        rank = std::max(rank, *r);
      }
      return rank;
    }
    if (type == "Flatten" || type == "Gemm")
      return 2;
    if (type == "Shape")
      return 1;
    if (type == "Reshape" || type == "ConstantOfShape")
      return lengthOf(node, type == "Reshape" ? 1 : 0);
    if (type == "Expand") {
      std::optional<int64_t> target = lengthOf(node, 1);
      if (!x || !target)
        return std::nullopt;
      return std::max(*x, *target);
    }
    if (type == "MatMul") {
      std::optional<int64_t> b = rankOf(node, 1);
      if (!x || !b || *x < 1 || *b < 1)
        return std::nullopt;
      if (*x == 1 || *b == 1)
        return std::max(*x, *b) - 1;
      return std::max(*x, *b);
    }
    if (type == "Gather") {
      std::optional<int64_t> indices = rankOf(node, 1);
      if (!x || !indices)
        return std::nullopt;
      return *x + *indices - 1;
    }
    if (type == "Squeeze" || type == "Unsqueeze") {
      std::optional<int64_t> count = axisCount(node);
      if (!x || !count)
        return std::nullopt;
      return type == "Squeeze" ? *x - *count : *x + *count;
    }
    if (type.starts_with("Reduce") || type == "ArgMax" || type == "ArgMin") {
      if (!x)
        return std::nullopt;
      if (Importer::getInt(node, "keepdims", 1) != 0)
        return x;
      if (type == "ArgMax" || type == "ArgMin")
        return *x - 1;
      std::optional<int64_t> count = axisCount(node);
      if (!count || *count == 0)
        return std::nullopt; // All axes, or noop_with_empty_axes.
      return *x - *count;
    }
    return std::nullopt;
  }

  /// Inputs of known element type: each one a type its operator's schema
  /// allows, and inputs of one type parameter (LayerNormalization's X,
  /// Scale and B: T) of one type. (The converters build arithmetic for the
  /// first input's type; an int64 bias of a float op made invalid IR.)
  llvm::Error checkInputTypes(const onnx::NodeProto &node,
                              const std::string &subject) {
    const onnx::OpSchema *schema = schemaOf(node);
    if (!schema || schema->inputs().empty())
      return llvm::Error::success();
    const auto &formals = schema->inputs();
    llvm::StringMap<int> boundBy; // Type parameter -> input index.
    for (int i = 0; i < node.input_size(); ++i) {
      auto known = elementTypes.find(node.input(i));
      if (node.input(i).empty() || known == elementTypes.end())
        continue;
      const auto &formal = formals[std::min<size_t>(i, formals.size() - 1)];
      onnx::TypeProto type;
      type.mutable_tensor_type()->set_elem_type(known->second);
      onnx::DataType name;
      try {
        name = onnx::Utils::DataTypeUtils::ToType(type);
      } catch (const std::exception &) {
        return error(subject + ": input " + std::to_string(i) + " ('" +
                     node.input(i) + "') has an unknown element type (" +
                     std::to_string(known->second) + ")");
      }
      if (!formal.GetTypes().count(name))
        return error(subject + ": input " + std::to_string(i) + " ('" +
                     node.input(i) + "', " + formal.GetName() + ") is a " +
                     *name + ", which " + node.op_type() + " does not take");
      auto [bound, isNew] = boundBy.try_emplace(formal.GetTypeStr(), i);
      if (!isNew &&
          elementTypes.lookup(node.input(bound->second)) != known->second)
        return error(subject + ": inputs " + std::to_string(bound->second) +
                     " ('" + node.input(bound->second) + "') and " +
                     std::to_string(i) + " ('" + node.input(i) +
                     "') must have the same element type (" +
                     formal.GetTypeStr() + ")");
    }
    return llvm::Error::success();
  }

  /// LayerNormalization's shape inference indexes its input's dimensions by
  /// `axis` unchecked when it infers the Mean and InvStdDev outputs.
  llvm::Error checkLayerNormAxis(const onnx::NodeProto &node,
                                 const std::string &subject) {
    const std::vector<int64_t> *x = shapeOf(node, 0);
    if (node.op_type() != "LayerNormalization" || !x)
      return llvm::Error::success();
    int64_t rank = x->size();
    auto axis = Importer::axisAttribute(node, rank, -1);
    if (axis)
      return llvm::Error::success();
    // The message names the node; the validator's also say where it is.
    std::string message = llvm::toString(axis.takeError());
    return error(subject + llvm::StringRef(message).drop_front(
                               Importer::describe(node).size()));
  }

  /// Ranks known after the node, for the checks of the nodes that follow.
  void propagateRank(const onnx::NodeProto &node) {
    if (node.output(0).empty() || shapes.count(node.output(0)))
      return;
    std::optional<int64_t> rank = outputRank(node);
    if (rank && *rank >= 0)
      shapes[node.output(0)] = std::vector<int64_t>(*rank, -1);
  }

  const onnx::GraphProto &graph;
  ShapeMap shapes;
  /// Node index by defined value name; -1 for graph inputs and initializers.
  llvm::StringMap<int> definedBy;
  /// ONNX element types (TensorProto::DataType) known before inference.
  llvm::StringMap<int32_t> elementTypes;
  int64_t opset = 21;
};

} // namespace

llvm::Error onnx_import::validateModel(const onnx::ModelProto &model,
                                       const OnnxImportOptions &options) {
  return Validator(model, options).run();
}
