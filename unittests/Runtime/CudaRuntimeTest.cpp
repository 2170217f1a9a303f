//===- CudaRuntimeTest.cpp - tcl's CUDA runtime over a fake driver --------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The mgpu* functions that compiled models call, run over the fake driver
// of FakeCudaDriver.cpp (this test's LD_LIBRARY_PATH finds it as
// libcuda.so.1): what they allocate, copy and launch, and what they report,
// on any machine.
//
//===----------------------------------------------------------------------===//

#include "tcl/Runtime/Cuda/Driver.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>
#include <vector>

using namespace mlir::tcl;

extern "C" {
cuda::CUstream mgpuStreamCreate();
void *mgpuMemAlloc(uint64_t sizeBytes, cuda::CUstream stream, bool shared);
void mgpuMemFree(void *pointer, cuda::CUstream stream);
void mgpuMemcpy(void *destination, void *source, size_t sizeBytes,
                cuda::CUstream stream);
cuda::CUmodule mgpuModuleLoad(void *data, size_t size);
cuda::CUfunction mgpuModuleGetFunction(cuda::CUmodule module, const char *name);
void mgpuLaunchKernel(cuda::CUfunction function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedBytes,
                      cuda::CUstream stream, void **params, void **extra,
                      size_t paramsCount);
}

namespace {
// A model's weights, as a compiled library holds them (.rodata).
const float kWeights[256] = {1.0f, 2.0f, 3.0f, 4.0f};

/// A counter of the fake driver.
template <typename Result> Result fake(const char *name) {
  void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(driver, nullptr) << "the fake driver is not loaded";
  auto function =
      reinterpret_cast<Result (*)()>(driver ? dlsym(driver, name) : nullptr);
  EXPECT_NE(function, nullptr) << name;
  return function ? function() : Result();
}

class CudaRuntimeTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_NE(cuda::Driver::get(), nullptr) << cuda::Driver::getLoadError();
    ASSERT_EQ(cuda::Driver::get()->getProperties().name, "Fake GPU")
        << "not the fake driver: this test must not run on a real GPU";
    ASSERT_STREQ(tclCudaTakeError(), "");
    stream = mgpuStreamCreate();
  }
  cuda::CUstream stream = nullptr;
};
} // namespace

/// A compiled model's weights are uploaded once: the first copy from them
/// fills a device copy (one host-to-device copy), and every copy, that one
/// included, reads the device copy; bytes that can change (an input on the
/// heap) are copied from where they are, every time.
TEST_F(CudaRuntimeTest, UploadsConstantsOnceAndCopiesInputsEveryRun) {
  int allocations = fake<int>("fakeCudaAllocations");
  int uploads = fake<int>("fakeCudaHostToDeviceCopies");
  for (int run = 0; run < 3; ++run) {
    void *weights = mgpuMemAlloc(sizeof(kWeights), stream, false);
    mgpuMemcpy(weights, const_cast<float *>(kWeights), sizeof(kWeights),
               stream);
    EXPECT_NE(fake<const void *>("fakeCudaLastAsyncSource"), kWeights);
    EXPECT_EQ(std::memcmp(weights, kWeights, sizeof(kWeights)), 0);
    mgpuMemFree(weights, stream);
  }
  EXPECT_EQ(fake<int>("fakeCudaHostToDeviceCopies") - uploads, 1);
  // Three run buffers and the one kept copy.
  EXPECT_EQ(fake<int>("fakeCudaAllocations") - allocations, 4);

  std::vector<float> input(64, 5.0f);
  void *device = mgpuMemAlloc(input.size() * sizeof(float), stream, false);
  for (int run = 0; run < 2; ++run) {
    input[0] = float(run);
    mgpuMemcpy(device, input.data(), input.size() * sizeof(float), stream);
    EXPECT_EQ(fake<const void *>("fakeCudaLastAsyncSource"), input.data());
    EXPECT_EQ(static_cast<float *>(device)[0], float(run));
  }
  mgpuMemFree(device, stream);
  EXPECT_EQ(fake<int>("fakeCudaHostToDeviceCopies") - uploads, 1);
  EXPECT_STREQ(tclCudaTakeError(), "");
}

/// With kernel timing on, each launch is timed between two events and the
/// times add up until taken; with it off, nothing is timed.
TEST_F(CudaRuntimeTest, TimesKernelsBetweenEventsWhenAsked) {
  static const char kImage[] = "// PTX";
  cuda::CUmodule module = mgpuModuleLoad(const_cast<char *>(kImage), 0);
  cuda::CUfunction kernel = mgpuModuleGetFunction(module, "k");
  ASSERT_NE(kernel, nullptr);
  int launches = fake<int>("fakeCudaLaunches");
  auto launch = [&] {
    mgpuLaunchKernel(kernel, 1, 1, 1, 32, 1, 1, 0, stream, nullptr, nullptr, 0);
  };
  launch();
  EXPECT_EQ(tclCudaTakeKernelMilliseconds(), 0.0);
  tclCudaTimeKernels(1);
  launch();
  launch();
  double each = fake<float>("fakeCudaKernelMilliseconds");
  EXPECT_DOUBLE_EQ(tclCudaTakeKernelMilliseconds(), 2 * each);
  EXPECT_EQ(tclCudaTakeKernelMilliseconds(), 0.0);
  tclCudaTimeKernels(0);
  launch();
  EXPECT_EQ(tclCudaTakeKernelMilliseconds(), 0.0);
  EXPECT_EQ(fake<int>("fakeCudaLaunches") - launches, 4);
  EXPECT_STREQ(tclCudaTakeError(), "");
}

/// A failed call is kept as the run's error, naming what failed and the
/// driver's reason; calls after it do nothing until the error is taken.
TEST_F(CudaRuntimeTest, KeepsTheFirstErrorAndStopsThere) {
  int allocations = fake<int>("fakeCudaAllocations");
  void *huge = mgpuMemAlloc(uint64_t(1) << 40, stream, false);
  EXPECT_EQ(huge, nullptr);
  std::vector<float> input(4, 1.0f), output(4, 0.0f);
  mgpuMemcpy(output.data(), input.data(), sizeof(float) * 4, stream);
  EXPECT_EQ(output[0], 0.0f);
  std::string error = tclCudaTakeError();
  EXPECT_NE(error.find("cannot allocate 1099511627776 bytes of device memory"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("CUDA_ERROR_OUT_OF_MEMORY"), std::string::npos) << error;
  EXPECT_STREQ(tclCudaTakeError(), "");
  EXPECT_EQ(fake<int>("fakeCudaAllocations"), allocations);
}

/// A library from tcl-compile for a GPU, run twice: the first run uploads
/// its weights (a constant of the library), the second copies only its
/// input over the host's bus; every run frees what it allocates.
TEST_F(CudaRuntimeTest, ACompiledModelUploadsItsWeightsOnce) {
  char self[4096] = {};
  ASSERT_GT(readlink("/proc/self/exe", self, sizeof(self) - 1), 0);
  std::string bin = self;
  bin.erase(bin.rfind('/'));
  char directory[] = "/tmp/tcl-fake-gpu-XXXXXX";
  ASSERT_NE(mkdtemp(directory), nullptr);
  std::string source = std::string(directory) + "/model.mlir",
              library = std::string(directory) + "/model.so";
  {
    std::ofstream mlir(source);
    mlir << "func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {\n"
            "  %w = arith.constant dense<[";
    for (int row = 0; row < 8; ++row) {
      mlir << (row ? ", [" : "[");
      for (int column = 0; column < 8; ++column)
        mlir << (column ? ", " : "") << row * 8 + column << ".0";
      mlir << "]";
    }
    mlir << "]> : tensor<8x8xf32>\n"
            "  %zero = arith.constant 0.0 : f32\n"
            "  %e = tensor.empty() : tensor<4x8xf32>\n"
            "  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) "
            "-> tensor<4x8xf32>\n"
            "  %y = linalg.matmul ins(%x, %w : tensor<4x8xf32>, "
            "tensor<8x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>\n"
            "  return %y : tensor<4x8xf32>\n"
            "}\n";
  }
  std::string compile = bin + "/tcl-compile " + source +
                        " --entry=f --target=nvptx-sm90 -o " + library;
  ASSERT_EQ(std::system(compile.c_str()), 0) << compile;
  void *model = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(model, nullptr) << dlerror();
  auto create = reinterpret_cast<void *(*)()>(dlsym(model, "tcl_model_create"));
  auto run =
      reinterpret_cast<int (*)(void *, const void *const *, void *const *)>(
          dlsym(model, "tcl_model_run"));
  auto error =
      reinterpret_cast<const char *(*)()>(dlsym(model, "tcl_model_error"));
  ASSERT_TRUE(create && run && error);
  void *instance = create();
  ASSERT_NE(instance, nullptr) << error();
  std::vector<float> input(32, 1.0f), output(32, 0.0f);
  const void *inputs[] = {input.data()};
  void *outputs[] = {output.data()};
  auto counts = [] {
    return std::make_tuple(fake<int>("fakeCudaHostToDeviceCopies"),
                           fake<int>("fakeCudaAllocations"),
                           fake<int>("fakeCudaFrees"),
                           fake<int>("fakeCudaLaunches"));
  };
  auto [uploads0, allocations0, frees0, launches0] = counts();
  ASSERT_EQ(run(instance, inputs, outputs), 0) << error();
  auto [uploads1, allocations1, frees1, launches1] = counts();
  ASSERT_EQ(run(instance, inputs, outputs), 0) << error();
  auto [uploads2, allocations2, frees2, launches2] = counts();
  EXPECT_EQ(uploads1 - uploads0, 1) << "the weights, once";
  EXPECT_EQ(uploads2 - uploads1, 0);
  EXPECT_GT(launches1, launches0);
  EXPECT_EQ(launches2 - launches1, launches1 - launches0);
  // The first run also allocates the weights' kept copy.
  EXPECT_EQ(allocations1 - allocations0, frees1 - frees0 + 1);
  EXPECT_EQ(allocations2 - allocations1, frees2 - frees1);
  EXPECT_STREQ(tclCudaTakeError(), "");
  std::remove(source.c_str());
  std::remove(library.c_str());
  rmdir(directory);
}
