//===- CompilerTest.cpp - The compiler as a library call ------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Driver/Compiler.h"
#include "tcl/Registration/Registration.h"
#include "tcl/Runtime/Kernel.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::tcl;

namespace {

/// A matmul + ReLU without a schedule: compiled with the default one.
constexpr const char *kModel = R"mlir(
func.func @forward(%a: tensor<40x24xf32>, %b: tensor<24x56xf32>) -> tensor<40x56xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<40x56xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<40x56xf32>) -> tensor<40x56xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<40x24xf32>, tensor<24x56xf32>)
      outs(%init : tensor<40x56xf32>) -> tensor<40x56xf32>
  %out = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<40x56xf32>) outs(%empty : tensor<40x56xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<40x56xf32>
  return %out : tensor<40x56xf32>
}
)mlir";

class CompilerTest : public ::testing::Test {
protected:
  std::string temp(llvm::StringRef suffix) {
    llvm::SmallString<128> path;
    EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("compiler-test", suffix,
                                                    path));
    paths.emplace_back(path.str().str());
    return paths.back();
  }
  std::string writeModel() {
    std::string path = temp("mlir");
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    os << kModel;
    return path;
  }
  ~CompilerTest() override {
    for (const std::string &path : paths)
      llvm::sys::fs::remove(path);
  }
  std::vector<std::string> paths;
};

/// A shared library from compileModel computes what plain loops compute.
TEST_F(CompilerTest, SharedLibraryMatchesPlainLoops) {
  CompileOptions options;
  options.input = writeModel();
  options.output = temp("so");
  options.entry = "forward";
  auto report = compileModel(options, nullptr);
  ASSERT_TRUE(bool(report)) << llvm::toString(report.takeError());
  EXPECT_EQ(*report->platform, Platform::host());
  EXPECT_EQ(report->tunedTasks, 0u);
  EXPECT_FALSE(report->tuning);

  DialectRegistry registry;
  registerTclDialects(registry);
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kModel, &context);
  ASSERT_TRUE(module);
  auto signature = KernelSignature::fromFunction(*module, "forward");
  ASSERT_TRUE(bool(signature)) << llvm::toString(signature.takeError());
  auto library = Kernel::load(options.output, "forward", *signature);
  ASSERT_TRUE(bool(library)) << llvm::toString(library.takeError());
  auto plainLoops = Kernel::jit(
      kModel, "forward", LoweringOptions(Platform::host(), /*defaults=*/false));
  ASSERT_TRUE(bool(plainLoops)) << llvm::toString(plainLoops.takeError());
  std::vector<Buffer> inputs = signature->makeRandomInputs(3);
  std::vector<Buffer> got = signature->makeOutputs();
  std::vector<Buffer> want = signature->makeOutputs();
  ASSERT_FALSE(bool(library->run(inputs, got)));
  ASSERT_FALSE(bool(plainLoops->run(inputs, want)));
  EXPECT_LT(maxRelativeError(got, want), 1e-3);
}

/// The task table lists the matmul with its fused ReLU.
TEST_F(CompilerTest, WritesTheTaskTable) {
  CompileOptions options;
  options.input = writeModel();
  options.output = temp("md");
  options.emit = EmitKind::Tasks;
  ASSERT_TRUE(bool(compileModel(options, nullptr)));
  auto text = llvm::MemoryBuffer::getFile(options.output);
  ASSERT_TRUE(bool(text));
  llvm::StringRef table = (*text)->getBuffer();
  EXPECT_TRUE(table.contains("| linalg.matmul | 1 | 1 | 0.108 |")) << table.str();
  EXPECT_TRUE(table.contains("1 tasks, 0.000 GFLOP in all")) << table.str();
}

/// Options that cannot work fail with the reason, and tuning creates no
/// database then.
TEST_F(CompilerTest, RefusesOptionsThatCannotWork) {
  CompileOptions options;
  options.input = writeModel();
  options.tune = true;
  auto noDatabase = compileModel(options, nullptr);
  ASSERT_FALSE(bool(noDatabase));
  EXPECT_EQ(llvm::toString(noDatabase.takeError()),
            "--tune needs --tuning-db=<file> to keep its measurements");

  options.tuningDatabase = temp("db");
  llvm::sys::fs::remove(options.tuningDatabase);
  options.tuning.costModel = "oracle";
  auto unknownModel = compileModel(options, nullptr);
  ASSERT_FALSE(bool(unknownModel));
  EXPECT_NE(llvm::toString(unknownModel.takeError())
                .find("unknown cost model 'oracle'"),
            std::string::npos);
  EXPECT_FALSE(llvm::sys::fs::exists(options.tuningDatabase));

  CompileOptions missing;
  missing.input = "/nonexistent/model.mlir";
  auto notThere = compileModel(missing, nullptr);
  ASSERT_FALSE(bool(notThere));
  EXPECT_NE(llvm::toString(notThere.takeError()).find("cannot open"),
            std::string::npos);
}

} // namespace
