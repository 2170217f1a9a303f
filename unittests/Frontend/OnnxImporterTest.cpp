//===- OnnxImporterTest.cpp - Bad ONNX input gets clear errors ------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Frontend/OnnxImporter.h"
#include "tcl/Registration/Registration.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"

#include "onnx/onnx_pb.h"

#include <fstream>
#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::tcl;

namespace {

/// x [batch?, 4] -> Relu -> (Op) -> y
onnx::ModelProto makeModel(const std::string &secondOp, bool dynamicBatch) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(13);
  onnx::GraphProto *graph = model.mutable_graph();
  graph->set_name("g");
  onnx::ValueInfoProto *x = graph->add_input();
  x->set_name("x");
  auto *type = x->mutable_type()->mutable_tensor_type();
  type->set_elem_type(onnx::TensorProto::FLOAT);
  if (dynamicBatch)
    type->mutable_shape()->add_dim()->set_dim_param("batch");
  else
    type->mutable_shape()->add_dim()->set_dim_value(2);
  type->mutable_shape()->add_dim()->set_dim_value(4);
  onnx::NodeProto *relu = graph->add_node();
  relu->set_op_type("Relu");
  relu->set_name("relu0");
  relu->add_input("x");
  relu->add_output("r");
  onnx::NodeProto *second = graph->add_node();
  second->set_op_type(secondOp);
  second->set_name("second");
  second->add_input("r");
  second->add_output("y");
  graph->add_output()->set_name("y");
  return model;
}

class OnnxImporterTest : public ::testing::Test {
protected:
  OnnxImporterTest() {
    DialectRegistry registry;
    registerTclDialects(registry);
    context.appendDialectRegistry(registry);
  }

  std::string write(const std::string &bytes) {
    llvm::SmallString<128> path;
    EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("importer", "onnx", path));
    paths.emplace_back(path);
    std::ofstream(std::string(path), std::ios::binary) << bytes;
    return std::string(path);
  }
  std::string write(const onnx::ModelProto &model) {
    return write(model.SerializeAsString());
  }
  std::string importError(const std::string &path,
                          const OnnxImportOptions &options = {}) {
    auto module = importOnnxFile(path, &context, options);
    if (module)
      return "";
    return llvm::toString(module.takeError());
  }

  MLIRContext context;
  std::vector<llvm::FileRemover> paths;
};

TEST_F(OnnxImporterTest, ImportsAStaticModel) {
  std::string path = write(makeModel("Sigmoid", /*dynamicBatch=*/false));
  auto module = importOnnxFile(path, &context);
  ASSERT_TRUE(bool(module)) << llvm::toString(module.takeError());
  auto forward = (**module).lookupSymbol<func::FuncOp>(kOnnxEntryName);
  ASSERT_TRUE(forward);
  EXPECT_EQ(forward.getFunctionType().getNumInputs(), 1u);
  EXPECT_EQ(forward.getFunctionType().getNumResults(), 1u);
}

TEST_F(OnnxImporterTest, ImportsFromMemoryAsFromAFile) {
  std::string bytes =
      makeModel("Sigmoid", /*dynamicBatch=*/false).SerializeAsString();
  auto module = importOnnxModel(bytes, "in memory", &context);
  ASSERT_TRUE(bool(module)) << llvm::toString(module.takeError());
  EXPECT_TRUE((**module).lookupSymbol<func::FuncOp>(kOnnxEntryName));
  auto garbage = importOnnxModel("\xff\xff garbage", "in memory", &context);
  ASSERT_FALSE(bool(garbage));
  EXPECT_EQ(llvm::toString(garbage.takeError()),
            "'in memory' is not a valid ONNX model (protobuf parse failed)");
}

TEST_F(OnnxImporterTest, MissingFile) {
  EXPECT_NE(importError("/nonexistent/model.onnx").find("cannot open"),
            std::string::npos);
}

TEST_F(OnnxImporterTest, MalformedFile) {
  std::string path = write(std::string("\xff\xff\xff garbage", 12));
  EXPECT_NE(importError(path).find("is not a valid ONNX model"),
            std::string::npos);
}

TEST_F(OnnxImporterTest, UnsupportedOperatorIsNamedWithItsNode) {
  std::string path = write(makeModel("Acos", /*dynamicBatch=*/false));
  EXPECT_EQ(importError(path),
            "unsupported operator 'Acos' (node 'second', #1)");
}

TEST_F(OnnxImporterTest, DynamicDimensionAsksForAnInputShape) {
  std::string path = write(makeModel("Sigmoid", /*dynamicBatch=*/true));
  std::string message = importError(path);
  EXPECT_NE(message.find("graph input 'x' has a dynamic dimension 'batch'"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("--input-shape x="), std::string::npos) << message;

  OnnxImportOptions options;
  ASSERT_FALSE(bool(parseInputShape("x=3x4", options)));
  auto module = importOnnxFile(path, &context, options);
  ASSERT_TRUE(bool(module)) << llvm::toString(module.takeError());
}

TEST_F(OnnxImporterTest, BadInputShapeOption) {
  OnnxImportOptions options;
  llvm::Error error = parseInputShape("x=3xq", options);
  ASSERT_TRUE(bool(error));
  EXPECT_NE(llvm::toString(std::move(error)).find("not a positive dimension"),
            std::string::npos);
  error = parseInputShape("noequals", options);
  ASSERT_TRUE(bool(error));
  llvm::consumeError(std::move(error));
}

TEST_F(OnnxImporterTest, UnsupportedAttributeValue) {
  onnx::ModelProto model = makeModel("Cast", /*dynamicBatch=*/false);
  onnx::AttributeProto *to =
      model.mutable_graph()->mutable_node(1)->add_attribute();
  to->set_name("to");
  to->set_type(onnx::AttributeProto::INT);
  to->set_i(onnx::TensorProto::STRING);
  EXPECT_EQ(importError(write(model)),
            "Cast node 'second' (#1): casting to ONNX element type 8 is not "
            "supported");
}

TEST_F(OnnxImporterTest, HugeOrNegativeTensorDimensionsAreRejected) {
  for (int64_t dim : {int64_t(-3), int64_t(1) << 62}) {
    onnx::ModelProto model = makeModel("Relu", /*dynamicBatch=*/false);
    onnx::TensorProto *weight = model.mutable_graph()->add_initializer();
    weight->set_name("w");
    weight->set_data_type(onnx::TensorProto::FLOAT);
    weight->add_dims(dim);
    weight->add_dims(105);
    EXPECT_EQ(
        importError(write(model)).rfind("tensor 'w' has invalid dimensions", 0),
        0u);
  }
}

// Under UBSan (CI's sanitized build) this overflowed counting the elements.
TEST_F(OnnxImporterTest,
       EmptyTensorWithHugeDimensionsIsCountedWithoutOverflow) {
  onnx::ModelProto model = makeModel("Relu", /*dynamicBatch=*/false);
  onnx::TensorProto *weight = model.mutable_graph()->add_initializer();
  weight->set_name("w");
  weight->set_data_type(onnx::TensorProto::FLOAT);
  weight->add_dims(int64_t(1) << 40);
  weight->add_dims(int64_t(1) << 40);
  weight->add_dims(0);
  EXPECT_EQ(importError(write(model)), "");
}

TEST_F(OnnxImporterTest, NodeWithoutOutputsIsRefused) {
  onnx::ModelProto model = makeModel("Sigmoid", /*dynamicBatch=*/false);
  model.mutable_graph()->mutable_node(1)->clear_output();
  EXPECT_EQ(importError(write(model)),
            "Sigmoid node 'second' (#1): has no output (a node defines at "
            "least its first output)");
}

TEST_F(OnnxImporterTest, WrongInputCountIsRefused) {
  onnx::ModelProto model = makeModel("Add", /*dynamicBatch=*/false);
  EXPECT_EQ(importError(write(model)),
            "Add node 'second' (#1): takes 2 inputs, got 1");
}

TEST_F(OnnxImporterTest, HugeGraphInputIsRefused) {
  OnnxImportOptions options;
  ASSERT_FALSE(bool(parseInputShape("x=4611686018427387904x4", options)));
  EXPECT_EQ(
      importError(write(makeModel("Relu", /*dynamicBatch=*/true)), options),
      "graph input 'x': shape 4611686018427387904x4 has more than "
      "2147483648 elements, tcl's limit for a tensor");
}

TEST_F(OnnxImporterTest, ShapeInferenceErrorsAreReported) {
  onnx::ModelProto model = makeModel("MatMul", /*dynamicBatch=*/false);
  // MatMul of [2,4] with itself: shapes do not match.
  model.mutable_graph()->mutable_node(1)->add_input("r");
  std::string message = importError(write(model));
  EXPECT_FALSE(message.empty());
}

} // namespace
