//===- KernelTest.cpp - JIT and AOT kernels -------------------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Runtime/Kernel.h"
#include "tcl/Registration/Registration.h"
#include "tcl/Target/Codegen.h"
#include "tcl/Transforms/Pipelines.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <set>

using namespace mlir;
using namespace mlir::tcl;

namespace {

// A matmul + bias + ReLU with a schedule that tiles (with partial tiles:
// 100 is not a multiple of 8), parallelizes, fuses the epilogue, vectorizes,
// hoists the accumulator and unrolls.
constexpr const char *kScheduled = R"mlir(
func.func @mm_bias_relu(%a: tensor<100x64xf32>, %b: tensor<64x96xf32>,
                        %bias: tensor<96xf32>) -> tensor<100x96xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<100x96xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<100x96xf32>) -> tensor<100x96xf32>
  %mm = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<100x64xf32>, tensor<64x96xf32>)
      outs(%init : tensor<100x96xf32>) -> tensor<100x96xf32>
  %out = linalg.generic {tcl.epilogue = "mm",
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<100x96xf32>, tensor<96xf32>) outs(%empty : tensor<100x96xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<100x96xf32>
  return %out : tensor<100x96xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [100 parallel, 96 parallel, 64 reduction] {
  tcl.sched.tile [32, 48, 0]
  tcl.sched.parallelize
  tcl.sched.fuse_epilogue
  tcl.sched.tile [8, 16, 1]
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
  tcl.sched.unroll level 1 dim 2 by 4
}
)mlir";

/// Plain C++ matmul + bias + ReLU, the ground truth.
std::vector<float> expected(const std::vector<Buffer> &in) {
  const int64_t m = 100, n = 96, k = 64;
  std::vector<float> out(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t l = 0; l < k; ++l)
        acc += double(in[0].data[i * k + l]) * in[1].data[l * n + j];
      out[i * n + j] = std::max(0.0, acc + in[2].data[j]);
    }
  return out;
}

float maxAbsDifference(const std::vector<float> &a,
                       const std::vector<float> &b) {
  float diff = 0;
  for (size_t i = 0; i < a.size(); ++i)
    diff = std::max(diff, std::fabs(a[i] - b[i]));
  return diff;
}

/// Lowers kScheduled with `options` and compiles it to the shared library
/// `path`, as tcl-compile does.
llvm::Error emitScheduledLibrary(const LoweringOptions &options,
                                 llvm::StringRef path) {
  DialectRegistry registry;
  registerTclDialects(registry);
  registerLLVMTranslations(registry);
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kScheduled, &context);
  PassManager pm(&context);
  if (!module)
    return llvm::createStringError("cannot parse the scheduled kernel");
  std::vector<FunctionSignature> signatures = getFunctionSignatures(*module);
  buildLowerToLLVMPipeline(pm, options);
  if (failed(pm.run(*module)))
    return llvm::createStringError("cannot lower the scheduled kernel");
  return emitSharedLibrary(*module, options.platform.getTarget(),
                           options.platform.getThreads() > 1, path, signatures);
}

/// The signature of @mm_bias_relu in kScheduled.
KernelSignature getScheduledSignature() {
  DialectRegistry registry;
  registerTclDialects(registry);
  MLIRContext context(registry);
  auto signature = KernelSignature::fromFunction(
      *parseSourceString<ModuleOp>(kScheduled, &context), "mm_bias_relu");
  EXPECT_TRUE(bool(signature)) << llvm::toString(signature.takeError());
  return signature ? std::move(*signature) : KernelSignature();
}

/// `source` without its schedules, as plain loops: the naive reference.
llvm::Expected<Kernel> jitNaive(llvm::StringRef source, llvm::StringRef entry,
                                LoweringOptions options) {
  auto naiveSource = stripSchedules(source);
  if (!naiveSource)
    return naiveSource.takeError();
  options.defaultSchedules = false;
  return Kernel::jit(*naiveSource, entry, options);
}

class KernelTest : public ::testing::TestWithParam<unsigned> {};

TEST_P(KernelTest, ScheduledMatchesReferenceAndNaive) {
  LoweringOptions options(Platform::host(GetParam()));
  auto kernel = Kernel::jit(kScheduled, "mm_bias_relu", options);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  std::vector<Buffer> inputs = kernel->getSignature().makeRandomInputs(1);
  std::vector<Buffer> outputs = kernel->getSignature().makeOutputs();
  ASSERT_FALSE(bool(kernel->run(inputs, outputs)));
  EXPECT_LT(maxAbsDifference(outputs[0].data, expected(inputs)), 1e-4f);

  auto naive = jitNaive(kScheduled, "mm_bias_relu", options);
  ASSERT_TRUE(bool(naive)) << llvm::toString(naive.takeError());
  std::vector<Buffer> naiveOutputs = naive->getSignature().makeOutputs();
  ASSERT_FALSE(bool(naive->run(inputs, naiveOutputs)));
  EXPECT_LT(maxAbsDifference(naiveOutputs[0].data, expected(inputs)), 1e-4f);
}

TEST_P(KernelTest, RunsAgainAfterItsThreadsSlept) {
  LoweringOptions options(Platform::host(GetParam()));
  auto kernel = Kernel::jit(kScheduled, "mm_bias_relu", options);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  std::vector<Buffer> inputs = kernel->getSignature().makeRandomInputs(2);
  // The spin time of LLVM's OpenMP runtime, once a parallel run loaded it.
  auto blockTime = []() -> int {
    void *runtime =
        dlopen(getOpenMPRuntimeLibrary().data(), RTLD_LAZY | RTLD_NOLOAD);
    if (!runtime)
      return -1;
    auto get = reinterpret_cast<int (*)()>(dlsym(runtime, "kmp_get_blocktime"));
    int value = get ? get() : -1;
    dlclose(runtime);
    return value;
  };
  for (int round = 0; round < 3; ++round) {
    std::vector<Buffer> outputs = kernel->getSignature().makeOutputs();
    int before = blockTime();
    ASSERT_FALSE(bool(kernel->runThenSleepThreads(inputs, outputs)));
    // Restored for the runs that follow (zero only during that run).
    if (GetParam() > 1) {
      EXPECT_GT(blockTime(), 0);
      if (round > 0)
        EXPECT_EQ(blockTime(), before);
    }
    EXPECT_LT(maxAbsDifference(outputs[0].data, expected(inputs)), 1e-4f);
    outputs = kernel->getSignature().makeOutputs();
    ASSERT_FALSE(bool(kernel->run(inputs, outputs)));
    EXPECT_LT(maxAbsDifference(outputs[0].data, expected(inputs)), 1e-4f);
  }
}

/// The CPUs the calling thread may run on.
std::vector<int> getCallingThreadCpus() {
  cpu_set_t set;
  std::vector<int> cpus;
  if (pthread_getaffinity_np(pthread_self(), sizeof(set), &set) != 0)
    return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set))
      cpus.push_back(cpu);
  return cpus;
}

TEST(OpenMPThreadPinningTest, PinnedThreadsRunOnCpusOfTheirOwn) {
  LoweringOptions options(Platform::host(2));
  auto kernel = Kernel::jit(kScheduled, "mm_bias_relu", options);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  std::vector<Buffer> inputs = kernel->getSignature().makeRandomInputs(3);
  std::vector<Buffer> outputs = kernel->getSignature().makeOutputs();
  // A parallel kernel's first run loads the OpenMP runtime.
  ASSERT_FALSE(bool(kernel->run(inputs, outputs)));
  std::vector<int> allowed = getCallingThreadCpus();
  {
    OpenMPThreadPinning pinning;
    const std::vector<int> &bound = pinning.getBoundCpus();
    if (allowed.size() > 1) {
      // Each team thread on a CPU of its own, the calling thread on the
      // first; the kernel still computes what it did.
      ASSERT_FALSE(bound.empty());
      EXPECT_EQ(getCallingThreadCpus(), std::vector<int>{bound[0]});
      std::set<int> distinct(bound.begin(), bound.end());
      EXPECT_EQ(distinct.size(), std::min(bound.size(), allowed.size()));
      for (int cpu : bound)
        EXPECT_TRUE(llvm::is_contained(allowed, cpu)) << cpu;
      outputs = kernel->getSignature().makeOutputs();
      ASSERT_FALSE(bool(kernel->run(inputs, outputs)));
      EXPECT_LT(maxAbsDifference(outputs[0].data, expected(inputs)), 1e-4f);
    } else {
      // A process on one CPU has nothing to spread its threads over.
      EXPECT_TRUE(bound.empty());
    }
  }
  // Afterwards every thread may run anywhere again.
  EXPECT_EQ(getCallingThreadCpus(), allowed);
}

TEST_P(KernelTest, JitAndSharedLibraryAreBitIdentical) {
  LoweringOptions options(Platform::host(GetParam()));
  auto jitted = Kernel::jit(kScheduled, "mm_bias_relu", options);
  ASSERT_TRUE(bool(jitted)) << llvm::toString(jitted.takeError());

  // The same module through tcl-compile's AOT path.
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("kernel-test", "so", path));
  llvm::FileRemover remove(path);
  llvm::Error emitted = emitScheduledLibrary(options, path);
  ASSERT_FALSE(bool(emitted)) << llvm::toString(std::move(emitted));
  auto loaded = Kernel::load(path, "mm_bias_relu", jitted->getSignature());
  ASSERT_TRUE(bool(loaded)) << llvm::toString(loaded.takeError());

  std::vector<Buffer> inputs = jitted->getSignature().makeRandomInputs(7);
  std::vector<Buffer> fromJit = jitted->getSignature().makeOutputs();
  std::vector<Buffer> fromLibrary = jitted->getSignature().makeOutputs();
  ASSERT_FALSE(bool(jitted->run(inputs, fromJit)));
  ASSERT_FALSE(bool(loaded->run(inputs, fromLibrary)));
  EXPECT_EQ(fromJit[0].data, fromLibrary[0].data);
}

// A convolution + ReLU and a matmul whose sequential tile levels do not
// divide their extents (13 rows by 5, 13 columns by 8, 40 channels by 16,
// 100 rows by 48 and 8, a reduction of 24 by 16): the loops are peeled
// into tiles of static sizes, each vectorized.
constexpr const char *kPeeledConv = R"mlir(
func.func @conv_relu(%x: tensor<1x15x15x24xf32>, %w: tensor<3x3x24x40xf32>) -> tensor<1x13x13x40xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x13x13x40xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x13x13x40xf32>) -> tensor<1x13x13x40xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {tcl.task = "conv", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x15x15x24xf32>, tensor<3x3x24x40xf32>) outs(%init : tensor<1x13x13x40xf32>) -> tensor<1x13x13x40xf32>
  %out = linalg.generic {tcl.epilogue = "conv",
      indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv : tensor<1x13x13x40xf32>) outs(%empty : tensor<1x13x13x40xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x13x13x40xf32>
  return %out : tensor<1x13x13x40xf32>
}
tcl.sched.schedule task "conv" anchor "linalg.conv_2d_nhwc_hwcf" target "x86-avx512"
    loops [1 parallel, 13 parallel, 13 parallel, 40 parallel, 3 reduction, 3 reduction, 24 reduction] {
  tcl.sched.tile [0, 5, 0, 0, 0, 0, 0]
  tcl.sched.fuse_epilogue
  tcl.sched.tile [1, 1, 8, 16, 1, 1, 8]
  tcl.sched.decompose
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}
)mlir";

constexpr const char *kPeeledMatmul = R"mlir(
func.func @mm(%a: tensor<100x24xf32>, %b: tensor<24x40xf32>) -> tensor<100x40xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<100x40xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<100x40xf32>) -> tensor<100x40xf32>
  %mm = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<100x24xf32>, tensor<24x40xf32>)
      outs(%init : tensor<100x40xf32>) -> tensor<100x40xf32>
  return %mm : tensor<100x40xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [100 parallel, 40 parallel, 24 reduction] {
  tcl.sched.tile [48, 0, 16]
  tcl.sched.tile [8, 32, 1]
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
  tcl.sched.unroll level 1 dim 2 by 4
}
)mlir";

TEST_P(KernelTest, PeeledTilesMatchNaive) {
  for (auto [source, entry] :
       {std::pair(kPeeledConv, "conv_relu"), std::pair(kPeeledMatmul, "mm")}) {
    LoweringOptions options(Platform::host(GetParam()));
    auto kernel = Kernel::jit(source, entry, options);
    ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
    auto naive = jitNaive(source, entry, options);
    ASSERT_TRUE(bool(naive)) << llvm::toString(naive.takeError());
    std::vector<Buffer> inputs = kernel->getSignature().makeRandomInputs(3);
    std::vector<Buffer> outputs = kernel->getSignature().makeOutputs();
    std::vector<Buffer> naiveOutputs = naive->getSignature().makeOutputs();
    ASSERT_FALSE(bool(kernel->run(inputs, outputs)));
    ASSERT_FALSE(bool(naive->run(inputs, naiveOutputs)));
    EXPECT_LT(maxAbsDifference(outputs[0].data, naiveOutputs[0].data), 1e-4f)
        << entry;
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, KernelTest, ::testing::Values(1u, 2u));

/// Code for a platform this host cannot execute is refused with the reason,
/// by the JIT and by the loader of a shared library that names its
/// platform, instead of dying of SIGILL. TCL_HOST_ISA makes any host one
/// without AVX2.
TEST(KernelErrors, RefusesCodeTheHostCannotRun) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("kernel-test", "so", path));
  llvm::FileRemover remove(path);
  Platform avx2(*lookupTargetArch("x86-avx2"));
  ASSERT_FALSE(bool(emitScheduledLibrary(LoweringOptions(avx2), path)));
  DialectRegistry registry;
  registerTclDialects(registry);
  MLIRContext context(registry);
  auto signature = KernelSignature::fromFunction(
      *parseSourceString<ModuleOp>(kScheduled, &context), "mm_bias_relu");
  ASSERT_TRUE(bool(signature)) << llvm::toString(signature.takeError());

  ASSERT_EQ(setenv("TCL_HOST_ISA", "x86-sse42", 1), 0);
  EXPECT_FALSE(hostSupports(*lookupTargetArch("x86-avx2")));
  EXPECT_EQ(getHostTargetArch().name, "x86-sse42");
  auto loaded = Kernel::load(path, "mm_bias_relu", *signature);
  auto jitted = Kernel::jit(kScheduled, "mm_bias_relu", LoweringOptions(avx2));
  unsetenv("TCL_HOST_ISA");
  ASSERT_FALSE(bool(loaded));
  std::string message = llvm::toString(loaded.takeError());
  EXPECT_NE(message.find("code for platform 'x86-avx2' cannot run on this "
                         "host: TCL_HOST_ISA=x86-sse42 limits"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("(it runs x86-sse42)"), std::string::npos) << message;
  ASSERT_FALSE(bool(jitted));
  EXPECT_NE(llvm::toString(jitted.takeError()).find("cannot run on this host"),
            std::string::npos);
}

/// A truncated library (an interrupted copy or download) is refused before
/// dlopen maps it: touching its missing pages would raise SIGBUS.
TEST(KernelErrors, RefusesTruncatedLibrary) {
  llvm::SmallString<128> path, truncated;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("kernel-test", "so", path));
  llvm::FileRemover remove(path);
  ASSERT_FALSE(
      llvm::sys::fs::createTemporaryFile("kernel-test-cut", "so", truncated));
  llvm::FileRemover removeTruncated(truncated);
  llvm::Error emitted =
      emitScheduledLibrary(LoweringOptions(Platform::host()), path);
  ASSERT_FALSE(bool(emitted)) << llvm::toString(std::move(emitted));
  auto whole = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(bool(whole));
  KernelSignature signature = getScheduledSignature();
  ASSERT_TRUE(bool(Kernel::load(path, "mm_bias_relu", signature)));

  for (size_t size :
       {size_t(0), size_t(40), size_t(3000), (*whole)->getBufferSize() / 2,
        // The last byte of the ELF file, before the content hash's trailer
        // (a cut trailer: LibraryHash.LoadRefusesDamagedOrCutLibraries).
        (*whole)->getBufferSize() - kLibraryTrailerSize - 1}) {
    SCOPED_TRACE("truncated to " + std::to_string(size) + " bytes");
    {
      std::error_code ec;
      llvm::raw_fd_ostream out(truncated, ec);
      ASSERT_FALSE(ec);
      out << (*whole)->getBuffer().take_front(size);
    }
    auto loaded = Kernel::load(truncated, "mm_bias_relu", signature);
    ASSERT_FALSE(bool(loaded));
    std::string message = llvm::toString(loaded.takeError());
    EXPECT_NE(message.find("'" + truncated.str().str() +
                           "' is not a complete shared library: "),
              std::string::npos)
        << message;
  }
}

/// A library records the signature of each function; loading one built for
/// another model (another signature under the same entry name) is refused
/// with both signatures instead of running past the caller's buffers.
TEST(KernelErrors, RefusesLibraryOfAnotherSignature) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("kernel-test", "so", path));
  llvm::FileRemover remove(path);
  llvm::Error emitted =
      emitScheduledLibrary(LoweringOptions(Platform::host()), path);
  ASSERT_FALSE(bool(emitted)) << llvm::toString(std::move(emitted));
  KernelSignature signature = getScheduledSignature();
  EXPECT_EQ(signature.str(), "f32[100x64],f32[64x96],f32[96]->f32[100x96]");

  KernelSignature other = signature;
  other.inputs[0].shape = {200, 64};
  other.outputs[0].shape = {200, 96};
  auto loaded = Kernel::load(path, "mm_bias_relu", other);
  ASSERT_FALSE(bool(loaded));
  std::string message = llvm::toString(loaded.takeError());
  EXPECT_NE(message.find("@mm_bias_relu there has the signature "
                         "f32[100x64],f32[64x96],f32[96]->f32[100x96], but "
                         "the caller expects "
                         "f32[200x64],f32[64x96],f32[96]->f32[200x96]"),
            std::string::npos)
      << message;

  auto same = Kernel::load(path, "mm_bias_relu", signature);
  ASSERT_TRUE(bool(same)) << llvm::toString(same.takeError());
}

TEST(KernelErrors, RejectsBadInput) {
  LoweringOptions options;
  auto unparsable = Kernel::jit("func.func @f(", "f", options);
  ASSERT_FALSE(bool(unparsable));
  EXPECT_NE(llvm::toString(unparsable.takeError()).find("cannot parse"),
            std::string::npos);

  auto missing = Kernel::jit(kScheduled, "nope", options);
  ASSERT_FALSE(bool(missing));
  EXPECT_NE(llvm::toString(missing.takeError()).find("no function @nope"),
            std::string::npos);

  // An unknown target has no platform to lower for.
  llvm::Expected<Platform> unknownTarget = Platform::get("x86-avx1024");
  ASSERT_FALSE(bool(unknownTarget));
  llvm::consumeError(unknownTarget.takeError());

  auto kernel = Kernel::jit(kScheduled, "mm_bias_relu", options);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  std::vector<Buffer> wrong = {Buffer::zeros({1})};
  std::vector<Buffer> outputs = kernel->getSignature().makeOutputs();
  llvm::Error error = kernel->run(wrong, outputs);
  ASSERT_TRUE(bool(error));
  llvm::consumeError(std::move(error));
}

/// `count` inputs of f32[4] and their sum (the first counted twice), as one
/// linalg.generic.
std::string sumOfInputs(size_t count) {
  std::string args, names, types, maps, block,
      body = "    %s0 = arith.addf %a0, %a0 : f32\n";
  for (size_t i = 0; i < count; ++i) {
    std::string n = std::to_string(i), sep = i ? ", " : "";
    args += sep + "%x" + n + ": tensor<4xf32>";
    names += sep + "%x" + n;
    types += sep + "tensor<4xf32>";
    maps += "#id, ";
    block += "%a" + n + ": f32, ";
    if (i)
      body += "    %s" + n + " = arith.addf %s" + std::to_string(i - 1) +
              ", %a" + n + " : f32\n";
  }
  return "#id = affine_map<(d0) -> (d0)>\nfunc.func @sum(" + args +
         ") -> tensor<4xf32> {\n  %e = tensor.empty() : tensor<4xf32>\n"
         "  %r = linalg.generic {indexing_maps = [" +
         maps + "#id], iterator_types = [\"parallel\"]} ins(" + names + " : " +
         types + ") outs(%e : tensor<4xf32>) {\n  ^bb0(" + block +
         "%o: f32):\n" + body + "    linalg.yield %s" +
         std::to_string(count - 1) +
         " : f32\n  } -> tensor<4xf32>\n  return %r : tensor<4xf32>\n}\n";
}

/// Kernels of up to 32 buffers are called with each in its place (a
/// Winograd output transform with a residual epilogue takes 15); more are
/// refused, saying how many.
TEST(KernelErrors, TakesUpTo32Buffers) {
  LoweringOptions options;
  auto kernel = Kernel::jit(sumOfInputs(31), "sum", options);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  std::vector<Buffer> inputs;
  for (size_t i = 0; i < 31; ++i) {
    inputs.push_back(Buffer::zeros({4}));
    inputs.back().data = {float(i), 1.0f, 0.0f, -float(i)};
  }
  std::vector<Buffer> outputs = kernel->getSignature().makeOutputs();
  llvm::Error error = kernel->run(inputs, outputs);
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
  // x0 twice, then x1..x30: 0 + 465, 32, 0, -465.
  EXPECT_EQ(outputs[0].data, (std::vector<float>{465, 32, 0, -465}));

  auto tooMany = Kernel::jit(sumOfInputs(33), "sum", options);
  ASSERT_FALSE(bool(tooMany));
  EXPECT_NE(llvm::toString(tooMany.takeError())
                .find("kernels take 1 to 32 buffers; this one takes 34"),
            std::string::npos);
}

TEST(RandomInputs, UniformInRangeAndSeeded) {
  KernelSignature signature;
  signature.inputs = {{ElementType::F32, {64, 64}, ""},
                      {ElementType::F32, {4096}, ""}};
  std::vector<Buffer> first = signature.makeRandomInputs(3);
  std::vector<Buffer> again = signature.makeRandomInputs(3);
  std::vector<Buffer> other = signature.makeRandomInputs(4);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].data, again[0].data);
  EXPECT_EQ(first[1].data, again[1].data);
  EXPECT_NE(first[0].data, other[0].data);
  double sum = 0;
  int negative = 0;
  for (const Buffer &buffer : first)
    for (float value : buffer.data) {
      ASSERT_GE(value, -1.0f);
      ASSERT_LT(value, 1.0f);
      sum += value;
      negative += value < 0;
    }
  // 8192 uniform values: the mean is within 4 standard deviations (0.025)
  // of 0 and about half are negative.
  EXPECT_NEAR(sum / 8192, 0.0, 0.025);
  EXPECT_NEAR(negative, 4096, 4 * 45);
}

// An entry of `floats` values (inputs and outputs together).
static ReferenceCache::Entry makeEntry(int64_t floats) {
  ReferenceCache::Entry entry;
  entry.inputs.push_back(Buffer::zeros({floats / 2}));
  entry.outputs.push_back(Buffer::zeros({floats - floats / 2}));
  return entry;
}

TEST(ReferenceCacheTest, DropsTheLeastRecentlyUsedBeyondItsBudget) {
  // Room for two entries of 1000 floats, not three.
  ReferenceCache cache(2500 * sizeof(float));
  cache.insert("a", makeEntry(1000));
  cache.insert("b", makeEntry(1000));
  EXPECT_EQ(cache.getBytes(), 2000 * sizeof(float));
  // Using "a" makes "b" the least recently used.
  ASSERT_NE(cache.lookup("a"), nullptr);
  cache.insert("c", makeEntry(1000));
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_NE(cache.lookup("a"), nullptr);
  EXPECT_EQ(cache.lookup("b"), nullptr);
  EXPECT_NE(cache.lookup("c"), nullptr);
  EXPECT_EQ(cache.getBytes(), 2000 * sizeof(float));

  // Replacing a key keeps one entry for it and counts its new size.
  cache.insert("c", makeEntry(500));
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.getBytes(), 1500 * sizeof(float));

  // An entry over the whole budget still stays (alone): the request that
  // computed it needs it.
  const ReferenceCache::Entry &large = cache.insert("large", makeEntry(4000));
  EXPECT_EQ(large.inputs[0].data.size() + large.outputs[0].data.size(), 4000u);
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_NE(cache.lookup("large"), nullptr);
}

} // namespace

namespace {

/// Every tool checks outputs with one measure: |got - want| / (1 + |want|),
/// located at the worst element; a NaN on one side only, or a size
/// mismatch, is infinitely wrong.
TEST(OutputCheck, FindsTheLargestRelativeError) {
  std::vector<Buffer> want = {{{2}, {1.0f, 100.0f}}, {{1}, {0.0f}}};
  std::vector<Buffer> got = {{{2}, {1.0f, 100.5f}}, {{1}, {0.002f}}};
  OutputError largest = findLargestError(got, want);
  EXPECT_EQ(largest.output, 0u);
  EXPECT_EQ(largest.index, 1u);
  EXPECT_NEAR(largest.error, 0.5 / 101, 1e-9);
  EXPECT_EQ(maxRelativeError(got, want), largest.error);
  EXPECT_GT(largest.error, kOutputTolerance);

  got[0].data[1] = 100.0f;
  EXPECT_EQ(findLargestError(got, want).output, 1u);
  EXPECT_NEAR(maxRelativeError(got, want), 0.002, 1e-6);

  got[1].data[0] = NAN;
  OutputError nan = findLargestError(got, want);
  EXPECT_TRUE(std::isinf(nan.error));
  EXPECT_EQ(nan.output, 1u);
  want[1].data[0] = NAN;
  EXPECT_EQ(maxRelativeError(got, want), 0.0);

  got[0].data.push_back(1.0f);
  EXPECT_TRUE(std::isinf(maxRelativeError(got, want)));
}

// Every boundary element type goes through a kernel call: i32 and u8 are
// narrowed for the call and widened back, i64 passes in place, a bool is a
// byte the caller may set to any nonzero value.
constexpr const char *kTyped = R"mlir(
#map = affine_map<(i) -> (i)>
func.func @typed(%a: tensor<4xi32>, %b: tensor<4xi64>,
                 %c: tensor<4xi8> {tcl.element_type = "u8"},
                 %flag: tensor<4xi8> {tcl.element_type = "bool"})
    -> (tensor<4xi32>, tensor<4xi8> {tcl.element_type = "bool"}) {
  %e32 = tensor.empty() : tensor<4xi32>
  %e8 = tensor.empty() : tensor<4xi8>
  %sum, %positive = linalg.generic {indexing_maps = [#map, #map, #map, #map, #map, #map],
      iterator_types = ["parallel"]}
      ins(%a, %b, %c, %flag : tensor<4xi32>, tensor<4xi64>, tensor<4xi8>, tensor<4xi8>)
      outs(%e32, %e8 : tensor<4xi32>, tensor<4xi8>) {
  ^bb0(%x: i32, %y: i64, %z: i8, %f: i8, %o: i32, %p: i8):
    %y32 = arith.trunci %y : i64 to i32
    %z32 = arith.extui %z : i8 to i32
    %s = arith.addi %x, %y32 : i32
    %t = arith.addi %s, %z32 : i32
    %zero8 = arith.constant 0 : i8
    %set = arith.cmpi ne, %f, %zero8 : i8
    %zero = arith.constant 0 : i32
    %minus = arith.subi %zero, %t : i32
    %r = arith.select %set, %minus, %t : i32
    %gt = arith.cmpi sgt, %r, %zero : i32
    %g = arith.extui %gt : i1 to i8
    linalg.yield %r, %g : i32, i8
  } -> (tensor<4xi32>, tensor<4xi8>)
  return %sum, %positive : tensor<4xi32>, tensor<4xi8>
}
)mlir";

TEST(TypedKernel, IntegerAndBoolBuffersCrossTheCall) {
  LoweringOptions options;
  auto kernel = Kernel::jit(kTyped, "typed", options);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  const KernelSignature &signature = kernel->getSignature();
  EXPECT_EQ(signature.str(), "i32[4],i64[4],u8[4],bool[4]->i32[4],bool[4]");

  std::vector<Buffer> inputs = {Buffer::zeros({4}, ElementType::I32),
                                Buffer::zeros({4}, ElementType::I64),
                                Buffer::zeros({4}, ElementType::U8),
                                Buffer::zeros({4}, ElementType::Bool)};
  inputs[0].ints = {-7, 100000, 3, 0};
  inputs[1].ints = {1, 2, 3, 4};
  inputs[2].ints = {255, 0, 128, 1}; // Read unsigned: 255 is not -1.
  inputs[3].ints = {0, 0, 5, 1};     // 5 counts as true.
  std::vector<Buffer> outputs = signature.makeOutputs();
  ASSERT_EQ(outputs[0].type, ElementType::I32);
  ASSERT_EQ(outputs[1].type, ElementType::Bool);
  llvm::Error error = kernel->run(inputs, outputs);
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
  EXPECT_EQ(outputs[0].ints, (std::vector<int64_t>{249, 100002, -134, -5}));
  EXPECT_EQ(outputs[1].ints, (std::vector<int64_t>{1, 1, 0, 0}));

  // A buffer of the wrong element type is refused, not reinterpreted.
  std::vector<Buffer> wrong = inputs;
  wrong[1] = Buffer::zeros({4}, ElementType::I32);
  llvm::Error refused = kernel->run(wrong, outputs);
  ASSERT_TRUE(bool(refused));
  EXPECT_NE(llvm::toString(std::move(refused))
                .find("inputs 1 holds i32 elements, not i64"),
            std::string::npos);

  // Random inputs leave integers at zero: a valid index and mask anywhere.
  std::vector<Buffer> random = signature.makeRandomInputs(1);
  EXPECT_EQ(random[0].ints, (std::vector<int64_t>{0, 0, 0, 0}));
}

TEST(TypedKernel, IntegerOutputsCompareExactly) {
  Buffer got = Buffer::zeros({3}, ElementType::I64);
  Buffer want = Buffer::zeros({3}, ElementType::I64);
  got.ints = want.ints = {1000, 2000, 3000};
  EXPECT_EQ(maxRelativeError({got}, {want}), 0.0);
  // Off by one in 3000 is within a float tolerance, but an index is exact.
  got.ints[2] = 3001;
  OutputError error = findLargestError({got}, {want});
  EXPECT_TRUE(std::isinf(error.error));
  EXPECT_EQ(error.index, 2u);
  // Same values, different element types: not the same output.
  Buffer asFloat({3}, {1000, 2000, 3000});
  EXPECT_TRUE(std::isinf(maxRelativeError({asFloat}, {want})));
}

TEST(LibraryHash, LoadRefusesDamagedOrCutLibraries) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("kernel-hash", "so", path));
  llvm::FileRemover remove(path);
  llvm::Error emitted =
      emitScheduledLibrary(LoweringOptions(Platform::host()), path);
  ASSERT_FALSE(bool(emitted)) << llvm::toString(std::move(emitted));
  auto contents = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
  ASSERT_TRUE(bool(contents));
  std::string bytes = (*contents)->getBuffer().str();
  ASSERT_GT(bytes.size(), kLibraryTrailerSize);
  EXPECT_EQ(bytes.substr(bytes.size() - 8), kLibraryHashMagic.str());
  auto asBytes = [](llvm::StringRef text) {
    return llvm::ArrayRef<uint8_t>(
        reinterpret_cast<const uint8_t *>(text.data()), text.size());
  };
  EXPECT_FALSE(bool(checkLibraryHash(path, asBytes(bytes))));

  auto rewrite = [&](const std::string &text) {
    std::error_code ec;
    llvm::raw_fd_ostream out(path, ec);
    out << text;
  };
  // One changed byte anywhere before the trailer.
  std::string damaged = bytes;
  damaged[damaged.size() / 2] ^= 0x20;
  rewrite(damaged);
  auto loaded = Kernel::load(path, "mm_bias_relu", getScheduledSignature());
  ASSERT_FALSE(bool(loaded));
  EXPECT_NE(llvm::toString(loaded.takeError())
                .find("is damaged: its content does not match the hash"),
            std::string::npos);
  // The trailer cut off.
  rewrite(bytes.substr(0, bytes.size() - kLibraryTrailerSize));
  auto cut = Kernel::load(path, "mm_bias_relu", getScheduledSignature());
  ASSERT_FALSE(bool(cut));
  EXPECT_NE(llvm::toString(cut.takeError()).find("has no content hash"),
            std::string::npos);
  rewrite(bytes);
  auto intact = Kernel::load(path, "mm_bias_relu", getScheduledSignature());
  EXPECT_TRUE(bool(intact)) << llvm::toString(intact.takeError());
}

TEST(LibraryHash, EveryWordAndTheLengthCount) {
  std::vector<uint8_t> bytes(37, 0);
  uint64_t base = hashLibraryContents(bytes);
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::vector<uint8_t> changed = bytes;
    changed[i] = 1;
    EXPECT_NE(hashLibraryContents(changed), base) << "byte " << i;
  }
  bytes.push_back(0);
  EXPECT_NE(hashLibraryContents(bytes), base);
}

} // namespace
