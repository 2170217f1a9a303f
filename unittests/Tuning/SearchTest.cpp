//===- SearchTest.cpp - Search space, sampler, scheduler, database, tuner -===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Registration/Registration.h"
#include "tcl/Runtime/Kernel.h"
#include "tcl/Support/GroupedConv.h"
#include "tcl/Transforms/ApplySchedule.h"
#include "tcl/Transforms/DefaultSchedule.h"
#include "tcl/Transforms/Pipelines.h"
#include "tcl/Transforms/TaskExtraction.h"
#include "tcl/Tuning/Evaluation.h"
#include "tcl/Tuning/Learned/RankingModel.h"
#include "tcl/Tuning/Metrics.h"
#include "tcl/Tuning/Report.h"
#include "tcl/Tuning/Sampler.h"
#include "tcl/Tuning/SearchSpace.h"
#include "tcl/Tuning/TaskScheduler.h"
#include "tcl/Tuning/TunedSchedules.h"
#include "tcl/Tuning/Tuner.h"

#include "../Support/PlainLoops.h"
#include "../Support/TclTest.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <csignal>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tcl;

namespace {

constexpr const char *kMatmul = R"mlir(
func.func @f(%a: tensor<64x128xf32>, %b: tensor<128x96xf32>,
             %bias: tensor<96xf32>) -> tensor<64x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x96xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x96xf32>)
                      outs(%init : tensor<64x96xf32>) -> tensor<64x96xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<64x96xf32>, tensor<96xf32>)
      outs(%e : tensor<64x96xf32>) {
  ^bb0(%x: f32, %c: f32, %out: f32):
    %s = arith.addf %x, %c : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x96xf32>
  return %y : tensor<64x96xf32>
}
)mlir";

constexpr const char *kWindowOps = R"mlir(
func.func @g(%x: tensor<1x18x18x16xf32>, %w: tensor<3x3x16x32xf32>,
             %dw: tensor<3x3x16xf32>) -> (tensor<1x16x16x32xf32>, tensor<1x16x16x16xf32>, tensor<1x16x16x16xf32>, tensor<1x16x16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x16x32xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x18x18x16xf32>, tensor<3x3x16x32xf32>) outs(%i : tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  %e2 = tensor.empty() : tensor<1x16x16x16xf32>
  %i2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %dw : tensor<1x18x18x16xf32>, tensor<3x3x16xf32>) outs(%i2 : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %k = tensor.empty() : tensor<3x3xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %k : tensor<1x18x18x16xf32>, tensor<3x3xf32>) outs(%i2 : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>,
                                        affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%d : tensor<1x16x16x16xf32>) outs(%e2 : tensor<1x16x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  } -> tensor<1x16x16x16xf32>
  return %c, %d, %p, %s : tensor<1x16x16x32xf32>, tensor<1x16x16x16xf32>, tensor<1x16x16x16xf32>, tensor<1x16x16x16xf32>
}
)mlir";

class SearchTest : public test::TclTest {
protected:
  std::string tempPath(llvm::StringRef suffix) {
    llvm::SmallString<128> path;
    EXPECT_FALSE(
        llvm::sys::fs::createTemporaryFile("tcl-search", suffix, path));
    llvm::sys::fs::remove(path);
    paths.push_back(std::string(path));
    return std::string(path);
  }
  ~SearchTest() override {
    for (const std::string &path : paths) {
      llvm::sys::fs::remove(path);
      llvm::sys::fs::remove(path + "-wal");
      llvm::sys::fs::remove(path + "-shm");
    }
  }
  bool verifies(const SearchSpace &space, const Genome &genome) {
    OwningOpRef<ModuleOp> scratch = ModuleOp::create(UnknownLoc::get(&context));
    OpBuilder builder = OpBuilder::atBlockEnd(scratch->getBody());
    ScheduleOp schedule =
        space.build(builder, UnknownLoc::get(&context), "t", genome);
    ScopedDiagnosticHandler silence(&context,
                                    [](Diagnostic &) { return success(); });
    return succeeded(verify(schedule));
  }
  /// 40 random genomes of `space`, a mutation of each and 40 crossovers.
  static std::vector<Genome> generateGenomes(const SearchSpace &space,
                                             std::mt19937_64 &rng) {
    std::vector<Genome> genomes;
    for (int i = 0; i < 40; ++i)
      genomes.push_back(space.sample(rng));
    for (int i = 0; i < 40; ++i) {
      genomes.push_back(space.mutate(genomes[i], rng));
      genomes.push_back(space.crossover(genomes[i], genomes[39 - i], rng));
    }
    return genomes;
  }
  /// Runs the module `text` (its one function) for the GPU `platform` on
  /// this host (LoweringOptions::emulateGpu): it must compute what plain
  /// loops compute.
  void expectEmulationMatchesPlainLoops(llvm::StringRef text,
                                        const Platform &platform,
                                        const std::string &what) {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    ASSERT_TRUE(module) << what;
    std::string entry =
        (*module->getOps<func::FuncOp>().begin()).getName().str();
    LoweringOptions emulated(platform);
    emulated.emulateGpu = true;
    auto scheduled = Kernel::jit(text, entry, emulated);
    ASSERT_TRUE(bool(scheduled))
        << what << ": " << llvm::toString(scheduled.takeError());
    test::expectMatchesPlainLoops(*scheduled, text, entry, /*seed=*/5, what);
  }
  /// Tunes kMatmul with resume on the database at `path` (fake
  /// measurements, defined below).
  void resumeMatmulTuning(const std::string &path);

  std::vector<std::string> paths;
};

/// Every anchor class: random, mutated and crossed-over genomes are well
/// formed and their schedules verify.
TEST_F(SearchTest, GeneratedProgramsVerify) {
  for (const char *source : {kMatmul, kWindowOps}) {
    OwningOpRef<ModuleOp> module = parse(source);
    ASSERT_TRUE(module);
    for (unsigned threads : {1u, 2u}) {
      module->walk([&](linalg::LinalgOp anchor) {
        if (isa<linalg::FillOp>(anchor))
          return;
        auto space = SearchSpace::create(
            anchor, Platform(*lookupTargetArch("x86-avx512"), threads),
            /*hasEpilogue=*/false);
        ASSERT_TRUE(space) << anchor->getName().getStringRef().str();
        std::mt19937_64 rng(7);
        std::vector<Genome> genomes = generateGenomes(*space, rng);
        for (const Genome &genome : genomes) {
          EXPECT_TRUE(space->isWellFormed(genome)) << genome.str();
          EXPECT_TRUE(verifies(*space, genome))
              << anchor->getName().getStringRef().str() << " " << genome.str();
        }
      });
    }
  }
}

/// A task's workload whose matmul accumulates onto an argument, with a fused
/// epilogue (RegNet's squeeze-excitation matmul, 1x8 x 8x48 + sigmoid, as
/// the tuner extracts it): random, mutated and crossed-over genomes lower
/// to the LLVM dialect. Some padded ones did not ("cannot avoid RaW
/// conflict", 3 of the 40 programs measured of this task), and the tuner
/// recorded them as compile errors.
TEST_F(SearchTest, GeneratedProgramsLower) {
  constexpr const char *kSqueezeExcitation = R"mlir(
func.func @task(%a: tensor<1x8xf32>, %b: tensor<8x48xf32>, %init: tensor<1x48xf32>,
                %bias: tensor<48xf32>) -> tensor<1x48xf32> {
  %one = arith.constant 1.0 : f32
  %mm = linalg.matmul {tcl.task = "t"} ins(%a, %b : tensor<1x8xf32>, tensor<8x48xf32>)
                      outs(%init : tensor<1x48xf32>) -> tensor<1x48xf32>
  %e = tensor.empty() : tensor<1x48xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<1x48xf32>, tensor<48xf32>)
      outs(%e : tensor<1x48xf32>) attrs = {tcl.epilogue = "t"} {
  ^bb0(%x: f32, %c: f32, %out: f32):
    %s = arith.addf %x, %c : f32
    %n = arith.negf %s : f32
    %x1 = math.exp %n : f32
    %d = arith.addf %x1, %one : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<1x48xf32>
  return %y : tensor<1x48xf32>
}
)mlir";
  OwningOpRef<ModuleOp> module = parse(kSqueezeExcitation);
  ASSERT_TRUE(module);
  Platform platform(*lookupTargetArch("x86-avx512"));
  auto space = SearchSpace::create(
      cast<linalg::LinalgOp>(findTaskAnchor(*module)), platform,
      /*hasEpilogue=*/true);
  ASSERT_TRUE(space);
  PassManager pm(&context);
  buildLowerToLLVMPipeline(pm, LoweringOptions(platform));
  std::string diagnostics;
  ScopedDiagnosticHandler collect(&context, [&](Diagnostic &diagnostic) {
    diagnostics += diagnostic.str() + "\n";
    return success();
  });
  std::mt19937_64 rng(11);
  unsigned padded = 0;
  for (const Genome &genome : generateGenomes(*space, rng)) {
    OwningOpRef<ModuleOp> payload = module->clone();
    OpBuilder builder = OpBuilder::atBlockEnd(payload->getBody());
    ScheduleOp schedule =
        space->build(builder, UnknownLoc::get(&context), "t", genome);
    padded += llvm::any_of(schedule.getBody().front(),
                           [](Operation &op) { return isa<PadOp>(op); });
    diagnostics.clear();
    EXPECT_TRUE(succeeded(pm.run(*payload)))
        << genome.str() << ": " << diagnostics;
  }
  // The space pads (packs B) in some of them: what failed.
  EXPECT_GT(padded, 0u);
}

/// On a GPU, every anchor class has the block / thread / reduction sketch:
/// random, mutated and crossed-over genomes are well formed (at most 1024
/// threads a block), their schedules verify, and some of them compile to
/// PTX and, run on this host (tcl-emulate-gpu-loops), compute what plain
/// loops compute.
TEST_F(SearchTest, GpuProgramsVerifyAndCompile) {
  Platform gpu(*lookupTargetArch("nvptx-sm90"));
  for (const char *source : {kMatmul, kWindowOps}) {
    OwningOpRef<ModuleOp> module = parse(source);
    ASSERT_TRUE(module);
    unsigned anchorIndex = 0;
    module->walk([&](linalg::LinalgOp anchor) {
      if (isa<linalg::FillOp>(anchor))
        return;
      unsigned index = anchorIndex++;
      std::string name = anchor->getName().getStringRef().str();
      auto space = SearchSpace::create(anchor, gpu, /*hasEpilogue=*/false);
      ASSERT_TRUE(space) << name;
      std::mt19937_64 rng(11);
      std::vector<Genome> genomes = generateGenomes(*space, rng);
      std::set<std::string> distinct;
      for (const Genome &genome : genomes) {
        distinct.insert(genome.str());
        EXPECT_TRUE(space->isWellFormed(genome)) << genome.str();
        EXPECT_TRUE(verifies(*space, genome)) << name << " " << genome.str();
      }
      EXPECT_GT(distinct.size(), 10u) << name;
      // Three of them lowered to PTX, the task in a copy of the module.
      for (const Genome &genome : llvm::ArrayRef(genomes).take_front(3)) {
        OwningOpRef<ModuleOp> copy = module->clone();
        unsigned position = 0;
        copy->walk([&](linalg::LinalgOp op) {
          if (!isa<linalg::FillOp>(op) && position++ == index)
            op->setAttr(kTaskAttrName, StringAttr::get(&context, "t"));
        });
        OpBuilder builder = OpBuilder::atBlockEnd(copy->getBody());
        space->build(builder, UnknownLoc::get(&context), "t", genome);
        std::string text;
        llvm::raw_string_ostream os(text);
        copy->print(os);
        PassManager pm(&context);
        buildLowerToNVVMPipeline(pm, LoweringOptions(gpu), "");
        EXPECT_TRUE(succeeded(pm.run(*copy))) << name << " " << genome.str();
        expectEmulationMatchesPlainLoops(text, gpu, name + " " + genome.str());
      }
    });
  }
}

/// A GPU matmul's space has a `registers` knob: with it, a thread's tile of
/// at most 64 outputs is vectorized and its accumulators are hoisted out of
/// the reduction loop (and the program lowers to PTX); a larger tile, or
/// the knob off, stays scalar. Other anchors have no such knob.
TEST_F(SearchTest, GpuMatmulRegisterTiles) {
  Platform gpu(*lookupTargetArch("nvptx-sm90"));
  OwningOpRef<ModuleOp> module = parse(kMatmul);
  ASSERT_TRUE(module);
  linalg::MatmulOp matmul;
  module->walk([&](linalg::MatmulOp op) { matmul = op; });
  auto space = SearchSpace::create(matmul, gpu, /*hasEpilogue=*/false);
  ASSERT_TRUE(space);
  ASSERT_EQ(space->getKnobNames().vec(),
            (std::vector<std::string>{"unroll", "registers", "shared"}));
  auto schedule = [&](llvm::StringRef genomeText) {
    std::optional<Genome> genome = Genome::parse(genomeText);
    EXPECT_TRUE(genome && space->isWellFormed(*genome)) << genomeText.str();
    std::string text;
    llvm::raw_string_ostream os(text);
    OpBuilder builder = OpBuilder::atBlockEnd(module->getBody());
    ScheduleOp op =
        space->build(builder, UnknownLoc::get(&context), "t", *genome);
    op.print(os);
    op.erase();
    return text;
  };
  // 8 x 8 outputs a thread (blocks of 32 x 32), k in steps of 1.
  std::string registers = schedule("32,32,128|8,8,128|8,8,1;1,1,0");
  EXPECT_NE(registers.find("tcl.sched.vectorize"), std::string::npos)
      << registers;
  EXPECT_NE(registers.find("tcl.sched.hoist_accumulators"), std::string::npos)
      << registers;
  // 16 x 8 outputs: too many accumulators; and the knob off.
  for (const char *scalar :
       {"32,32,128|16,8,128|16,8,1;1,1,0", "32,32,128|8,8,128|8,8,1;1,0,0"})
    EXPECT_EQ(schedule(scalar).find("vectorize"), std::string::npos) << scalar;

  // The register tile lowers to PTX with the matmul as its task.
  module->walk([&](linalg::MatmulOp op) {
    op->setAttr(kTaskAttrName, StringAttr::get(&context, "t"));
  });
  OpBuilder builder = OpBuilder::atBlockEnd(module->getBody());
  space->build(builder, UnknownLoc::get(&context), "t",
               *Genome::parse("32,32,128|8,8,128|8,8,1;1,1,0"));
  PassManager pm(&context);
  buildLowerToNVVMPipeline(pm, LoweringOptions(gpu), "");
  EXPECT_TRUE(succeeded(pm.run(*module)));

  OwningOpRef<ModuleOp> windows = parse(kWindowOps);
  windows->walk([&](linalg::Conv2DNhwcHwcfOp conv) {
    auto convSpace = SearchSpace::create(conv, gpu, /*hasEpilogue=*/false);
    ASSERT_TRUE(convSpace);
    EXPECT_EQ(convSpace->getKnobNames().vec(),
              std::vector<std::string>{"unroll"});
  });
}

/// A GPU matmul's `shared` knob (with a register tile): each step of k
/// copies the block's tiles of A and B into shared memory (pad [0, 1]) and
/// the register tile takes one k at a time; the program lowers to PTX and,
/// emulated on this host, computes what plain loops compute. A step whose
/// tiles would take more than 48 KiB of shared memory, or the knob off,
/// reads global memory.
TEST_F(SearchTest, GpuMatmulSharedTiles) {
  Platform gpu(*lookupTargetArch("nvptx-sm90"));
  OwningOpRef<ModuleOp> module = parse(kMatmul);
  ASSERT_TRUE(module);
  linalg::MatmulOp matmul;
  module->walk([&](linalg::MatmulOp op) { matmul = op; });
  auto space = SearchSpace::create(matmul, gpu, /*hasEpilogue=*/false);
  ASSERT_TRUE(space);
  auto build = [&](ModuleOp into, llvm::StringRef genomeText) {
    std::optional<Genome> genome = Genome::parse(genomeText);
    EXPECT_TRUE(genome && space->isWellFormed(*genome)) << genomeText.str();
    OpBuilder builder = OpBuilder::atBlockEnd(into.getBody());
    return space->build(builder, UnknownLoc::get(&context), "t", *genome);
  };
  auto hasPad = [](ScheduleOp schedule) {
    return llvm::any_of(schedule.getBody().front(),
                        [](Operation &op) { return isa<tcl::PadOp>(op); });
  };
  // 32 x 32 blocks, 8 x 8 a thread, steps of 16: 16 * 2 * 36 * 4 bytes.
  const char *sharedGenome = "32,32,128|8,8,128|8,8,16;1,1,1";
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(UnknownLoc::get(&context));
  EXPECT_TRUE(hasPad(build(*scratch, sharedGenome)));
  EXPECT_TRUE(verifies(*space, *Genome::parse(sharedGenome)));
  EXPECT_FALSE(hasPad(build(*scratch, "32,32,128|8,8,128|8,8,16;1,1,0")));
  // 128 x 128 blocks and steps of 64: 64 * (132 + 132) * 4 bytes > 48 KiB.
  OwningOpRef<ModuleOp> large = parse(R"mlir(
func.func @f(%a: tensor<256x128xf32>, %b: tensor<128x256xf32>, %c: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<256x128xf32>, tensor<128x256xf32>) outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}
)mlir");
  ASSERT_TRUE(large);
  large->walk([&](linalg::MatmulOp op) { matmul = op; });
  auto largeSpace = SearchSpace::create(matmul, gpu, /*hasEpilogue=*/false);
  ASSERT_TRUE(largeSpace);
  std::optional<Genome> tooLarge =
      Genome::parse("128,128,128|8,8,128|8,8,64;1,1,1");
  ASSERT_TRUE(tooLarge && largeSpace->isWellFormed(*tooLarge));
  OpBuilder largeBuilder = OpBuilder::atBlockEnd(scratch->getBody());
  EXPECT_FALSE(hasPad(largeSpace->build(largeBuilder, UnknownLoc::get(&context),
                                        "t", *tooLarge)));

  module->walk([&](linalg::MatmulOp op) {
    op->setAttr(kTaskAttrName, StringAttr::get(&context, "t"));
  });
  build(*module, sharedGenome);
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  PassManager pm(&context);
  buildLowerToNVVMPipeline(pm, LoweringOptions(gpu), "");
  EXPECT_TRUE(succeeded(pm.run(*module)));
  expectEmulationMatchesPlainLoops(text, gpu, sharedGenome);
}

/// A cache level that tiles k alone packs no B panel: a copy hoisted out of
/// a loop over k only does not bufferize (the verifier refuses it), which
/// made 1% of the matmul candidates measured on one host fail to compile.
TEST_F(SearchTest, PackingNeedsAParallelCacheLoop) {
  OwningOpRef<ModuleOp> module = parse(kMatmul);
  linalg::MatmulOp anchor;
  module->walk([&](linalg::MatmulOp op) { anchor = op; });
  auto space =
      SearchSpace::create(anchor, Platform(*lookupTargetArch("x86-avx512")),
                          /*hasEpilogue=*/false);
  ASSERT_TRUE(space);
  // 64x96x128: the outer level keeps everything, the cache level tiles k by
  // 32, the register tile is 8 x 16; knobs: one thread, order (n, k, m),
  // pack B, unroll 2.
  std::optional<Genome> kOnly =
      Genome::parse("64,96,128|64,96,32|8,16,1;0,2,1,2");
  ASSERT_TRUE(kOnly && space->isWellFormed(*kOnly));
  EXPECT_TRUE(verifies(*space, *kOnly));
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(UnknownLoc::get(&context));
  OpBuilder builder = OpBuilder::atBlockEnd(scratch->getBody());
  ScheduleOp built =
      space->build(builder, UnknownLoc::get(&context), "t", *kOnly);
  EXPECT_FALSE(llvm::any_of(built.getBody().front(),
                            [](Operation &op) { return isa<tcl::PadOp>(op); }));
  // Tiling the rows too keeps the panel.
  std::optional<Genome> rowsToo =
      Genome::parse("64,96,128|32,96,32|8,16,1;0,2,1,2");
  ASSERT_TRUE(rowsToo && space->isWellFormed(*rowsToo));
  EXPECT_TRUE(verifies(*space, *rowsToo));
  ScheduleOp packed =
      space->build(builder, UnknownLoc::get(&context), "t", *rowsToo);
  EXPECT_TRUE(llvm::any_of(packed.getBody().front(),
                           [](Operation &op) { return isa<tcl::PadOp>(op); }));
}

/// Odd extents (13 columns, 40 channels, 100 rows) also get tile sizes that
/// do not divide them at sequential levels, whose loops are peeled, never
/// at a parallel level (an scf.forall is not peeled); such schedules apply.
TEST_F(SearchTest, OddExtentsTakePeeledTiles) {
  constexpr const char *kOdd = R"mlir(
func.func @f(%x: tensor<1x13x13x24xf32>, %w: tensor<1x1x24x40xf32>,
             %o: tensor<1x13x13x40xf32>, %a: tensor<100x24xf32>,
             %b: tensor<24x40xf32>, %c: tensor<100x40xf32>)
    -> (tensor<1x13x13x40xf32>, tensor<100x40xf32>) {
  %0 = linalg.conv_2d_nhwc_hwcf {tcl.task = "conv", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x13x13x24xf32>, tensor<1x1x24x40xf32>) outs(%o : tensor<1x13x13x40xf32>) -> tensor<1x13x13x40xf32>
  %1 = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<100x24xf32>, tensor<24x40xf32>)
      outs(%c : tensor<100x40xf32>) -> tensor<100x40xf32>
  return %0, %1 : tensor<1x13x13x40xf32>, tensor<100x40xf32>
}
)mlir";
  OwningOpRef<ModuleOp> module = parse(kOdd);
  ASSERT_TRUE(module);
  SmallVector<linalg::LinalgOp> anchors;
  module->walk([&](linalg::LinalgOp op) { anchors.push_back(op); });
  ASSERT_EQ(anchors.size(), 2u);
  for (unsigned threads : {1u, 2u}) {
    for (linalg::LinalgOp anchor : anchors) {
      StringRef task = anchor->getAttrOfType<StringAttr>("tcl.task").getValue();
      auto space = SearchSpace::create(
          anchor, Platform(*lookupTargetArch("x86-avx512"), threads),
          /*hasEpilogue=*/false);
      ASSERT_TRUE(space);
      std::mt19937_64 rng(11);
      unsigned peeled = 0;
      for (int i = 0; i < 24; ++i) {
        Genome genome = space->sample(rng);
        ASSERT_TRUE(space->isWellFormed(genome)) << genome.str();
        bool parallel = threads > 1 && genome.knobs.front() != 0;
        for (auto [level, sizes] : llvm::enumerate(genome.tiles))
          for (auto [dim, size] : llvm::enumerate(sizes)) {
            int64_t parent =
                level ? genome.tiles[level - 1][dim] : space->getExtents()[dim];
            if (parent % size == 0)
              continue;
            EXPECT_FALSE(level == 0 && parallel) << genome.str();
            ++peeled;
          }
        OwningOpRef<ModuleOp> payload = module->clone();
        OpBuilder builder = OpBuilder::atBlockEnd(payload->getBody());
        ScheduleOp schedule =
            space->build(builder, UnknownLoc::get(&context), task, genome);
        ScopedDiagnosticHandler silence(&context,
                                        [](Diagnostic &) { return success(); });
        ASSERT_TRUE(succeeded(verify(schedule))) << genome.str();
        EXPECT_TRUE(succeeded(applySchedule(schedule, *payload)))
            << task.str() << " " << genome.str();
      }
      EXPECT_GT(peeled, 0u) << task.str();
    }
  }
}

/// A full convolution's input channels may be sliced (knob `slice`): a
/// cache level of the register tile's output channels and the slice, as the
/// default schedules take for large weights; such schedules compute what
/// plain loops compute. A depthwise tile hoists its accumulators out of the
/// kernel rows where they fit the registers (fitsDepthwiseAccumulators),
/// as its default does, and not where they do not.
TEST_F(SearchTest, WindowOpsReachTheirDefaultsStructure) {
  constexpr const char *kConvs = R"mlir(
func.func @f(%x: tensor<1x10x10x64xf32>, %w: tensor<3x3x64x48xf32>,
             %o: tensor<1x8x8x48xf32>, %dw: tensor<3x3x64xf32>,
             %d: tensor<1x8x8x64xf32>)
    -> (tensor<1x8x8x48xf32>, tensor<1x8x8x64xf32>) {
  %0 = linalg.conv_2d_nhwc_hwcf {tcl.task = "conv", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x10x10x64xf32>, tensor<3x3x64x48xf32>) outs(%o : tensor<1x8x8x48xf32>) -> tensor<1x8x8x48xf32>
  %1 = linalg.depthwise_conv_2d_nhwc_hwc {tcl.task = "dw", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %dw : tensor<1x10x10x64xf32>, tensor<3x3x64xf32>) outs(%d : tensor<1x8x8x64xf32>) -> tensor<1x8x8x64xf32>
  return %0, %1 : tensor<1x8x8x48xf32>, tensor<1x8x8x64xf32>
}
)mlir";
  OwningOpRef<ModuleOp> module = parse(kConvs);
  ASSERT_TRUE(module);
  linalg::Conv2DNhwcHwcfOp conv;
  linalg::DepthwiseConv2DNhwcHwcOp depthwise;
  module->walk([&](linalg::Conv2DNhwcHwcfOp op) { conv = op; });
  module->walk([&](linalg::DepthwiseConv2DNhwcHwcOp op) { depthwise = op; });
  Platform host(*lookupTargetArch("x86-avx512"));
  auto convSpace = SearchSpace::create(conv, host, /*hasEpilogue=*/false);
  auto depthwiseSpace =
      SearchSpace::create(depthwise, host, /*hasEpilogue=*/false);
  ASSERT_TRUE(convSpace && depthwiseSpace);
  ASSERT_EQ(convSpace->getKnobNames().size(), 2u);
  EXPECT_EQ(convSpace->getKnobNames()[1], "slice");
  // 64 input channels: slices of 16 and 32, or none; not all 64, nor 8.
  for (auto [slice, allowed] :
       {std::pair(0, true), std::pair(16, true), std::pair(32, true),
        std::pair(64, false), std::pair(8, false)}) {
    std::optional<Genome> genome = Genome::parse(
        "1,8,8,48,3,3,64|1,1,8,16,1,1,1;0," + std::to_string(slice));
    ASSERT_TRUE(genome);
    EXPECT_EQ(convSpace->isWellFormed(*genome), allowed) << slice;
  }
  EXPECT_EQ(depthwiseSpace->getKnobNames().size(), 1u);

  OwningOpRef<ModuleOp> scratch = ModuleOp::create(UnknownLoc::get(&context));
  auto scheduleText = [&](const SearchSpace &space, llvm::StringRef task,
                          llvm::StringRef genomeText) {
    std::optional<Genome> genome = Genome::parse(genomeText);
    EXPECT_TRUE(genome && space.isWellFormed(*genome)) << genomeText.str();
    if (!genome)
      return std::string();
    OpBuilder builder = OpBuilder::atBlockEnd(scratch->getBody());
    ScheduleOp schedule =
        space.build(builder, UnknownLoc::get(&context), task, *genome);
    EXPECT_TRUE(succeeded(verify(schedule))) << genomeText.str();
    std::string text;
    llvm::raw_string_ostream os(text);
    schedule.print(os);
    return text;
  };
  // Rows of 4, then 1 row x 8 columns x 16 channels, input channels by 1 in
  // slices of 32: the slice's cache level takes the register tile's
  // channels.
  std::string sliced =
      scheduleText(*convSpace, "conv", "1,4,8,48,3,3,64|1,1,8,16,1,1,1;0,32");
  EXPECT_NE(sliced.find("tile [0, 0, 0, 16, 0, 0, 32]"), std::string::npos)
      << sliced;
  EXPECT_NE(sliced.find("tile [0, 1, 0, 0, 1, 1, 1]"), std::string::npos)
      << sliced;
  EXPECT_NE(sliced.find("hoist_accumulators"), std::string::npos) << sliced;
  std::string unsliced =
      scheduleText(*convSpace, "conv", "1,4,8,48,3,3,64|1,1,8,16,1,1,1;0,0");
  EXPECT_EQ(unsliced.find("32]"), std::string::npos) << unsliced;
  EXPECT_NE(unsliced.find("tile [0, 1, 0, 16, 1, 1, 1]"), std::string::npos)
      << unsliced;
  // 8 columns x 1 vector with 3 kernel columns fit 32 registers; 8 x 4
  // vectors do not.
  std::string fits =
      scheduleText(*depthwiseSpace, "dw", "1,8,8,64,3,3|1,1,8,16,1,3;0");
  EXPECT_NE(fits.find("hoist_accumulators"), std::string::npos) << fits;
  std::string spills =
      scheduleText(*depthwiseSpace, "dw", "1,8,8,64,3,3|1,1,8,64,1,3;0");
  EXPECT_EQ(spills.find("hoist_accumulators"), std::string::npos) << spills;

  // Random sliced genomes (and the ones above) compute what plain loops
  // compute.
  std::mt19937_64 rng(3);
  std::vector<std::string> genomes = {"1,4,8,48,3,3,64|1,1,8,16,1,1,1;0,32",
                                      "1,8,8,48,3,3,64|1,1,4,48,1,1,1;0,16"};
  while (genomes.size() < 5) {
    Genome genome = convSpace->sample(rng);
    if (genome.knobs[1] != 0)
      genomes.push_back(genome.str());
  }
  for (const std::string &genomeText : genomes) {
    OwningOpRef<ModuleOp> payload = module->clone();
    OpBuilder builder = OpBuilder::atBlockEnd(payload->getBody());
    convSpace->build(builder, UnknownLoc::get(&context), "conv",
                     *Genome::parse(genomeText));
    std::string text;
    llvm::raw_string_ostream os(text);
    payload->print(os);
    auto kernel = Kernel::jit(text, "f", LoweringOptions(host));
    ASSERT_TRUE(bool(kernel))
        << genomeText << ": " << llvm::toString(kernel.takeError());
    test::expectMatchesPlainLoops(*kernel, text, "f", /*seed=*/9, genomeText);
  }
}

/// The default schedules of the matmul, the convolutions (one with its
/// filter in blocks: one block at a time, knob `blocks`) and the pooling
/// have genomes in their spaces (so the search evolves them), whose
/// schedules are the defaults.
TEST_F(SearchTest, DefaultSchedulesHaveGenomes) {
  constexpr const char *kLarge = R"mlir(
#shared = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh + kh, ow + kw, c)>
#blocks = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (g, kh, kw, c, f)>
#out = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh, ow, g, f)>
func.func @f(%x: tensor<1x9x9x512xf32>, %w: tensor<3x3x512x512xf32>,
             %o: tensor<1x7x7x512xf32>, %a: tensor<128x768xf32>,
             %b: tensor<768x768xf32>, %c: tensor<128x768xf32>,
             %wb: tensor<8x3x3x512x64xf32>, %ob: tensor<1x7x7x8x64xf32>)
    -> (tensor<1x7x7x512xf32>, tensor<128x768xf32>, tensor<1x7x7x8x64xf32>) {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x9x9x512xf32>, tensor<3x3x512x512xf32>) outs(%o : tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32>
  %1 = linalg.matmul ins(%a, %b : tensor<128x768xf32>, tensor<768x768xf32>)
      outs(%c : tensor<128x768xf32>) -> tensor<128x768xf32>
  %2 = linalg.generic {indexing_maps = [#shared, #blocks, #out],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %wb : tensor<1x9x9x512xf32>, tensor<8x3x3x512x64xf32>)
      outs(%ob : tensor<1x7x7x8x64xf32>) {
  ^bb0(%in: f32, %k: f32, %acc: f32):
    %p = arith.mulf %in, %k : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x7x7x8x64xf32>
  return %0, %1, %2 : tensor<1x7x7x512xf32>, tensor<128x768xf32>, tensor<1x7x7x8x64xf32>
}
)mlir";
  unsigned found = 0, anchors = 0;
  for (const char *source : {kMatmul, kWindowOps, kLarge}) {
    OwningOpRef<ModuleOp> module = parse(source);
    ASSERT_TRUE(module);
    for (unsigned threads : {1u, 2u}) {
      Platform platform(*lookupTargetArch("x86-avx512"), threads);
      module->walk([&](linalg::LinalgOp anchor) {
        if (isa<linalg::FillOp>(anchor) ||
            (isa<linalg::GenericOp>(anchor) &&
             getAnchorName(anchor) != kFilterBlockedConvAnchorName))
          return;
        auto space =
            SearchSpace::create(anchor, platform, /*hasEpilogue=*/false);
        ASSERT_TRUE(space);
        OpBuilder builder = OpBuilder::atBlockEnd(module->getBody());
        ScheduleOp schedule = buildDefaultSchedule(
            builder, anchor, "t", platform, /*hasEpilogue=*/false);
        std::string name =
            getAnchorName(anchor).str() + " " + std::to_string(threads) + "t";
        ++anchors;
        std::optional<Genome> genome = space->findGenome(schedule);
        if (genome) {
          ++found;
          ScheduleOp built =
              space->build(builder, UnknownLoc::get(&context), "t", *genome);
          std::string a, b;
          llvm::raw_string_ostream osA(a), osB(b);
          for (Operation &op : schedule.getBody().front())
            osA << op << "\n";
          for (Operation &op : built.getBody().front())
            osB << op << "\n";
          EXPECT_EQ(a, b) << name;
          built.erase();
        }
        schedule.erase();
      });
    }
  }
  EXPECT_EQ(found, anchors);
}

TEST_F(SearchTest, GenomeTextRoundTrips) {
  Genome genome{{{64, 96, 128}, {8, 32, 1}}, {1, 0, 4}};
  EXPECT_EQ(genome.str(), "64,96,128|8,32,1;1,0,4");
  std::optional<Genome> parsed = Genome::parse(genome.str());
  ASSERT_TRUE(parsed);
  EXPECT_EQ(*parsed, genome);
  EXPECT_FALSE(Genome::parse("1,x;2"));
}

/// A crossover child takes each loop's whole chain from one parent.
TEST_F(SearchTest, CrossoverMixesWholeChains) {
  OwningOpRef<ModuleOp> module = parse(kMatmul);
  linalg::LinalgOp matmul;
  module->walk([&](linalg::MatmulOp op) { matmul = op; });
  auto space = SearchSpace::create(
      matmul, Platform(*lookupTargetArch("x86-avx512")), false);
  Genome a{{{64, 96, 128}, {32, 48, 64}, {8, 16, 1}}, {0, 0, 0, 4}};
  Genome b{{{16, 32, 128}, {16, 16, 16}, {4, 8, 1}}, {0, 2, 1, 1}};
  ASSERT_TRUE(space->isWellFormed(a));
  ASSERT_TRUE(space->isWellFormed(b));
  bool sawMix = false;
  for (uint64_t seed = 0; seed < 32; ++seed) {
    std::mt19937_64 rng(seed);
    Genome child = space->crossover(a, b, rng);
    EXPECT_TRUE(space->isWellFormed(child));
    unsigned fromA = 0;
    for (size_t dim = 0; dim < 3; ++dim) {
      bool isA = child.tiles[0][dim] == a.tiles[0][dim] &&
                 child.tiles[1][dim] == a.tiles[1][dim] &&
                 child.tiles[2][dim] == a.tiles[2][dim];
      bool isB = child.tiles[0][dim] == b.tiles[0][dim] &&
                 child.tiles[1][dim] == b.tiles[1][dim] &&
                 child.tiles[2][dim] == b.tiles[2][dim];
      EXPECT_TRUE(isA || isB);
      fromA += isA;
    }
    sawMix |= fromA > 0 && fromA < 3;
  }
  EXPECT_TRUE(sawMix);
}

TEST_F(SearchTest, SamplerTopKAndEpsilon) {
  std::vector<double> scores = {0.1, 0.9, 0.5, 0.7, 0.3};
  SamplerInput input;
  input.scores = scores;
  std::mt19937_64 rng(1);
  auto greedy = createTopKEpsilonSampler(0.0);
  EXPECT_FALSE(greedy->readsProgramViews());
  auto picks = greedy->select(input, 3, rng);
  ASSERT_TRUE(bool(picks)) << llvm::toString(picks.takeError());
  ASSERT_EQ(picks->size(), 3u);
  EXPECT_EQ((*picks)[0].index, 1u);
  EXPECT_EQ((*picks)[1].index, 3u);
  EXPECT_EQ((*picks)[2].index, 2u);
  EXPECT_EQ((*picks)[0].reason, "top-k");
  // All random: distinct picks, as many as there are candidates at most.
  auto random = createTopKEpsilonSampler(1.0);
  picks = random->select(input, 10, rng);
  ASSERT_TRUE(bool(picks)) << llvm::toString(picks.takeError());
  ASSERT_EQ(picks->size(), 5u);
  std::set<size_t> distinct;
  for (SamplerPick pick : *picks) {
    EXPECT_EQ(pick.reason, "epsilon");
    distinct.insert(pick.index);
  }
  EXPECT_EQ(distinct.size(), 5u);
}

/// The RDU sampler on a task whose candidates and measured programs lie on
/// a plane (embeddings of width 2): each weight alone picks what it should.
TEST_F(SearchTest, RduSamplerFollowsEachCriterion) {
  // Candidates: A near the measured program with the best score, B far
  // from it, C near, D the worst score; then the measured program M.
  std::vector<double> scores = {1.0, 0.9, 0.95, 0.1};
  std::vector<float> embeddings = {0, 0, 10, 0, 0.1f, 0, 0, 0, 0, 0.1f};
  std::vector<float> uncertainty = {0.1f, 0.2f, 0.9f, 0.3f};
  SamplerInput input;
  input.scores = scores;
  input.embeddingWidth = 2;
  input.embeddings = embeddings;
  input.uncertainty = uncertainty;
  auto firstPick = [&](RduWeights weights) -> size_t {
    std::mt19937_64 rng(1);
    auto sampler = createRduSampler(weights);
    EXPECT_TRUE(sampler->readsProgramViews());
    auto picks = sampler->select(input, 2, rng);
    EXPECT_TRUE(bool(picks)) << llvm::toString(picks.takeError());
    if (!picks || picks->size() != 2)
      return 99;
    EXPECT_EQ((*picks)[0].reason, "rdu");
    EXPECT_NE((*picks)[0].index, (*picks)[1].index);
    return (*picks)[0].index;
  };
  // Exploitation alone: the best score.
  EXPECT_EQ(firstPick({0, 0, 0, 1}), 0u);
  // Uncertainty alone: where the committee disagrees most.
  EXPECT_EQ(firstPick({1, 0, 0, 0}), 2u);
  // Diversity (tilted by the predicted rank): the far candidate, not the
  // better-scored ones beside the measured program.
  EXPECT_EQ(firstPick({0, 1, 0, 0}), 1u);
  // The online default weighs all four: C, the most uncertain of the
  // well-scored ones (its neighbours are measured or as well scored).
  EXPECT_EQ(firstPick(getDefaultOnlineRduWeights()), 2u);

  // Without the views it reads, a clear error.
  SamplerInput bare;
  bare.scores = scores;
  std::mt19937_64 rng(1);
  auto picks = createRduSampler({})->select(bare, 2, rng);
  ASSERT_FALSE(bool(picks));
  EXPECT_NE(llvm::toString(picks.takeError()).find("rdu sampler: needs"),
            std::string::npos);

  // Unless told, learned models use RDU; XGBoost and random top-k.
  EXPECT_EQ(getDefaultSampler("mamba"), "rdu");
  EXPECT_EQ(getDefaultSampler("mlp"), "rdu");
  EXPECT_EQ(getDefaultSampler("xgboost"), "topk");
  EXPECT_EQ(getDefaultSampler("random"), "topk");

  auto unknown = createSampler("oracle", 0.1);
  ASSERT_FALSE(bool(unknown));
  EXPECT_EQ(llvm::toString(unknown.takeError()),
            "unknown sampler 'oracle' (known: topk, rdu)");
}

TEST_F(SearchTest, TaskSchedulerArithmetic) {
  TaskScheduler scheduler({1.0, 3.0}, /*alpha=*/0.5, /*window=*/4);
  EXPECT_EQ(scheduler.next(), 0u); // warm-up, in order
  scheduler.record(0, 1, 2.0);
  EXPECT_EQ(scheduler.next(), 1u);
  scheduler.record(1, 1, 1.0);
  // Task 0: backward 0 (one point), optimistic 2/1: 1 * 0.5 * 2 = 1.
  EXPECT_DOUBLE_EQ(scheduler.priority(0), 1.0);
  // Task 1: 3 * 0.5 * 1/1 = 1.5.
  EXPECT_DOUBLE_EQ(scheduler.priority(1), 1.5);
  EXPECT_EQ(scheduler.next(), 1u);
  // Task 1 improves from 1.0 to 0.6 in 4 trials: backward 0.1, optimistic
  // 0.6 / 5 = 0.12: 3 * (0.05 + 0.06) = 0.33.
  scheduler.record(1, 5, 0.6);
  EXPECT_NEAR(scheduler.priority(1), 0.33, 1e-12);
  EXPECT_EQ(scheduler.next(), 0u);
  scheduler.retire(0);
  EXPECT_EQ(scheduler.next(), 1u);
}

TuningRecord makeRecord(llvm::StringRef key, llvm::StringRef platform,
                        llvm::StringRef schedule, double seconds,
                        llvm::StringRef status = "ok") {
  TuningRecord record;
  record.workloadKey = key.str();
  record.platform = platform.str();
  record.schedule = schedule.str();
  record.status = status.str();
  record.medianSeconds = record.minSeconds = record.maxSeconds = seconds;
  record.repeats = 3;
  record.proposer = "test";
  return record;
}

/// Runs `sql` on the SQLite file `path` (created if needed), outside
/// TuningDatabase.
void execSqlite(llvm::StringRef path, llvm::StringRef sql) {
  sqlite3 *db = nullptr;
  ASSERT_EQ(sqlite3_open(path.str().c_str(), &db), SQLITE_OK);
  char *message = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.str().c_str(), nullptr, nullptr, &message),
            SQLITE_OK)
      << (message ? message : "");
  sqlite3_free(message);
  sqlite3_close(db);
}

/// The error of opening `path`, which must fail.
std::string openError(llvm::StringRef path) {
  auto db = TuningDatabase::open(path);
  EXPECT_FALSE(bool(db)) << path.str() << " opened";
  return db ? "" : llvm::toString(db.takeError());
}

/// A database damaged in the middle of the file is refused with the reason,
/// not read as one without records.
TEST_F(SearchTest, DatabaseRoundTripRefusesCorruptFile) {
  std::string path = tempPath("db");
  {
    auto db = TuningDatabase::open(path);
    ASSERT_TRUE(bool(db)) << llvm::toString(db.takeError());
    Platform x86(*lookupTargetArch("x86-avx512"));
    ASSERT_FALSE((*db)->addPlatform(x86));
    ASSERT_FALSE((*db)->addWorkload({"k1", "linalg.matmul", 1e6, "module {}"}));
    std::vector<TuningRecord> records;
    for (int i = 0; i < 2000; ++i)
      records.push_back(makeRecord("k1", x86.getName(),
                                   "schedule " + std::to_string(i), 1e-3));
    ASSERT_FALSE((*db)->addRecords(records));
  }
  // Closed: the write-ahead log is back in the file. It reopens as it was.
  {
    auto db = TuningDatabase::open(path);
    ASSERT_TRUE(bool(db)) << llvm::toString(db.takeError());
    EXPECT_EQ((*db)->countRecords(), 2000u);
  }
  uint64_t size = 0;
  ASSERT_FALSE(llvm::sys::fs::file_size(path, size));
  ASSERT_GT(size, 16u * 4096);
  {
    int fd;
    ASSERT_FALSE(llvm::sys::fs::openFileForWrite(
        path, fd, llvm::sys::fs::CD_OpenExisting));
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    // Garbage over two pages in the middle of the file.
    out.seek(size / 2 / 4096 * 4096);
    out << std::string(2 * 4096, '\x5a');
  }
  uint64_t after = 0;
  ASSERT_FALSE(llvm::sys::fs::file_size(path, after));
  ASSERT_EQ(after, size);
  std::string message = openError(path);
  EXPECT_NE(
      message.find("tuning database '" + path + "': the file is corrupt ("),
      std::string::npos)
      << message;

  // Not a database at all.
  std::string text = tempPath("db");
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(text, ec);
    ASSERT_FALSE(ec);
    out << std::string(8192, 'x');
  }
  message = openError(text);
  EXPECT_NE(message.find("not a readable SQLite database"), std::string::npos)
      << message;
}

/// A SQLite file of another application, or a tuning database of another
/// schema version, is refused with what is wrong and the version expected.
TEST_F(SearchTest, DatabaseRoundTripRefusesForeignSchema) {
  std::string foreign = tempPath("db");
  execSqlite(foreign, "CREATE TABLE notes(id INTEGER PRIMARY KEY, text);"
                      "INSERT INTO notes(text) VALUES('hello');");
  std::string message = openError(foreign);
  EXPECT_NE(message.find("tuning database '" + foreign +
                         "': it is not a tcl tuning database (no table "
                         "'workloads'; expected schema version 1)"),
            std::string::npos)
      << message;

  // A current database, then one claiming a later version.
  std::string newer = tempPath("db");
  {
    auto db = TuningDatabase::open(newer);
    ASSERT_TRUE(bool(db)) << llvm::toString(db.takeError());
    ASSERT_FALSE((*db)->addWorkload({"k1", "linalg.matmul", 1e6, "module {}"}));
  }
  {
    auto db = TuningDatabase::open(newer);
    ASSERT_TRUE(bool(db)) << llvm::toString(db.takeError());
    EXPECT_TRUE((*db)->getWorkload("k1"));
  }
  execSqlite(newer, "PRAGMA user_version=7;");
  message = openError(newer);
  EXPECT_NE(message.find("tuning database '" + newer +
                         "': it has schema version 7, this tcl reads "
                         "versions up to 2"),
            std::string::npos)
      << message;

  // A database from before versions were stored (user_version 0) opens.
  execSqlite(newer, "PRAGMA user_version=0;");
  {
    auto db = TuningDatabase::open(newer);
    ASSERT_TRUE(bool(db)) << llvm::toString(db.takeError());
    EXPECT_TRUE((*db)->getWorkload("k1"));
  }
  // ... unless a table lacks a column.
  execSqlite(newer, "PRAGMA user_version=0; ALTER TABLE records DROP COLUMN "
                    "genome;");
  message = openError(newer);
  EXPECT_NE(message.find("it is not a tcl tuning database (table 'records' "
                         "has no column 'genome'; expected schema version "
                         "1)"),
            std::string::npos)
      << message;
}

/// A version-1 database (records without their code generation) is
/// upgraded when it opens: its records keep their data, with codegen 0
/// (unknown); the best record of the current code generation comes before a
/// faster one of an earlier version.
TEST_F(SearchTest, DatabaseUpgradesVersionOneAndPrefersCurrentCodegen) {
  std::string path = tempPath("db");
  Platform x86(*lookupTargetArch("x86-avx512"));
  std::string platform = x86.getName();
  {
    auto db = TuningDatabase::open(path);
    ASSERT_TRUE(bool(db)) << llvm::toString(db.takeError());
    ASSERT_FALSE((*db)->addPlatform(x86));
    ASSERT_FALSE((*db)->addWorkload({"k1", "linalg.matmul", 1e6, "module {}"}));
  }
  // What version 1 wrote.
  execSqlite(path, "ALTER TABLE records DROP COLUMN codegen;"
                   "INSERT INTO records(workload, platform, schedule, status, "
                   "median_s) VALUES(1, 1, 'old', 'ok', 1e-3);"
                   "PRAGMA user_version=1;");
  auto db = TuningDatabase::open(path);
  ASSERT_TRUE(bool(db)) << llvm::toString(db.takeError());
  std::vector<TuningRecord> records = (*db)->getRecords("k1", platform);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].schedule, "old");
  EXPECT_EQ(records[0].codegen, 0u);

  TuningRecord current = makeRecord("k1", platform, "current", 2e-3);
  current.codegen = 3;
  ASSERT_FALSE((*db)->addRecords({current}));
  EXPECT_EQ((*db)->getBest("k1", platform, 3)->schedule, "current");
  EXPECT_EQ((*db)->getBest("k1", platform, 0)->schedule, "old");
  // Without a record of the version asked, the fastest of any.
  EXPECT_EQ((*db)->getBest("k1", platform, 4)->schedule, "old");
  std::vector<TuningRecord> both = (*db)->getRecords("k1", platform);
  keepLatestCodegen(both);
  ASSERT_EQ(both.size(), 1u);
  EXPECT_EQ(both[0].schedule, "current");
}

TEST_F(SearchTest, DatabaseRoundTripAndJsonLines) {
  std::string path = tempPath("db");
  auto db = TuningDatabase::open(path);
  ASSERT_TRUE(bool(db)) << llvm::toString(db.takeError());
  Platform x86(*lookupTargetArch("x86-avx512"));
  EXPECT_EQ(x86.getName(), "x86-avx512/1t");
  ASSERT_FALSE((*db)->addPlatform(x86));
  std::string platform = x86.getName();
  ASSERT_FALSE((*db)->addWorkload({"k1", "linalg.matmul", 1e6, "module {}"}));
  TuningRecord versioned = makeRecord("k1", platform, "s1", 2e-3);
  versioned.codegen = 7;
  ASSERT_FALSE((*db)->addRecords(
      {versioned, makeRecord("k1", platform, "s2", 1e-3),
       makeRecord("k1", platform, "s3", 0, "compile_error")}));
  EXPECT_EQ((*db)->getRecords("k1", platform).size(), 3u);
  std::optional<TuningRecord> best = (*db)->getBest("k1", platform, 0);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->schedule, "s2");
  EXPECT_FALSE((*db)->getBest("k1", "x86-avx2/1t", 0));

  // A batch with one bad record is written not at all.
  llvm::Error error =
      (*db)->addRecords({makeRecord("k1", platform, "s4", 1e-3),
                         makeRecord("unknown", platform, "s5", 1e-3)});
  EXPECT_TRUE(bool(error));
  llvm::consumeError(std::move(error));
  EXPECT_EQ((*db)->countRecords(), 3u);

  std::string lines;
  llvm::raw_string_ostream os(lines);
  ASSERT_FALSE((*db)->exportJsonLines(os));
  auto copy = TuningDatabase::open(tempPath("db"));
  ASSERT_TRUE(bool(copy));
  auto imported = (*copy)->importJsonLines(os.str());
  ASSERT_TRUE(bool(imported));
  EXPECT_EQ(*imported, 3u);
  std::vector<TuningRecord> original = (*db)->getRecords("k1", platform);
  std::vector<TuningRecord> copied = (*copy)->getRecords("k1", platform);
  ASSERT_EQ(copied.size(), original.size());
  for (size_t i = 0; i < copied.size(); ++i) {
    EXPECT_EQ(copied[i].schedule, original[i].schedule);
    EXPECT_EQ(copied[i].status, original[i].status);
    EXPECT_EQ(copied[i].medianSeconds, original[i].medianSeconds);
    EXPECT_EQ(copied[i].time, original[i].time);
    EXPECT_EQ(copied[i].codegen, original[i].codegen);
  }
  EXPECT_EQ(copied[0].codegen, 7u);
  EXPECT_EQ((*copy)->getWorkload("k1")->module, "module {}");
  auto bad = (*copy)->importJsonLines("{not json");
  EXPECT_FALSE(bool(bad));
  llvm::consumeError(bad.takeError());
}

/// A deterministic stand-in for the measurement worker: a schedule's time
/// is a function of its text, and, with `compileErrors`, one in seven
/// (by its text's hash) fails to compile.
std::vector<MeasureResult> measureByText(llvm::ArrayRef<MeasureInput> batch,
                                         bool compileErrors) {
  std::vector<MeasureResult> results;
  for (const MeasureInput &input : batch) {
    size_t hash = llvm::hash_value(input.candidate);
    MeasureResult result;
    if (compileErrors && hash % 7 == 0) {
      result.status = MeasureStatus::CompileError;
      result.message = "fake compile error";
    } else {
      result.status = MeasureStatus::Ok;
      result.medianSeconds = result.minSeconds = result.maxSeconds =
          1e-4 * (1 + hash % 1000 / 100.0);
      result.repeats = 3;
    }
    results.push_back(result);
  }
  return results;
}

/// measureByText with its compile errors, as a plain function for the
/// Tuner's measurement callback.
std::vector<MeasureResult> fakeMeasure(llvm::ArrayRef<MeasureInput> batch) {
  return measureByText(batch, /*compileErrors=*/true);
}

std::vector<std::string> schedulesOf(TuningDatabase &db) {
  std::string lines;
  llvm::raw_string_ostream os(lines);
  EXPECT_FALSE(db.exportJsonLines(os));
  std::vector<std::string> schedules;
  llvm::SmallVector<llvm::StringRef> parts;
  llvm::StringRef(os.str()).split(parts, '\n', -1, false);
  for (llvm::StringRef line : parts) {
    // The schedule's JSON string, up to the next field.
    size_t at = line.find("\"schedule\":");
    size_t end = line.find("\",\"status\"", at);
    schedules.push_back(line.substr(at, end - at).str());
  }
  return schedules;
}

TuningOptions smallOptions(llvm::StringRef model) {
  TuningOptions options;
  options.trials = 20;
  options.batchSize = 4;
  options.population = 24;
  options.generations = 2;
  options.costModel = model.str();
  options.seed = 5;
  // Measurements are fake (fakeMeasure): the platform need not be this
  // host's, and a fixed one keeps the search space the same on every host.
  options.platform = Platform(*lookupTargetArch("x86-avx512"));
  // Probed figures differ from run to run; the tests compare runs.
  options.probeHardware = false;
  return options;
}

/// The same seed and the same measurements give the same proposals (with
/// either sampler); the tuned result is never worse than the default
/// schedule; nothing is measured twice; with the RDU sampler every search
/// proposal is RDU's.
TEST_F(SearchTest, TuningIsReproducible) {
  for (auto [model, sampler] :
       {std::pair<const char *, const char *>{"random", "topk"},
        {"xgboost", "topk"},
        {"xgboost", "rdu"}}) {
    std::vector<std::vector<std::string>> runs;
    for (int run = 0; run < 2; ++run) {
      OwningOpRef<ModuleOp> module = parse(kMatmul);
      extractTasks(*module);
      auto db = TuningDatabase::open(tempPath("db"));
      ASSERT_TRUE(bool(db));
      TuningOptions options = smallOptions(model);
      options.sampler = sampler;
      Tuner tuner(**db, options, fakeMeasure);
      auto report = tuner.tune(*module);
      ASSERT_TRUE(bool(report)) << llvm::toString(report.takeError());
      ASSERT_EQ(report->tasks.size(), 1u);
      EXPECT_EQ(report->tasks[0].trials, 20u);
      EXPECT_LE(report->tasks[0].bestSeconds, report->tasks[0].defaultSeconds);
      EXPECT_EQ((*db)->countRecords(), 20u);
      std::vector<std::string> schedules = schedulesOf(**db);
      EXPECT_EQ(
          std::set<std::string>(schedules.begin(), schedules.end()).size(),
          schedules.size());
      if (llvm::StringRef(sampler) == "rdu")
        for (const TuningRecord &record :
             (*db)->getRecords(report->tasks[0].key, "x86-avx512/1t"))
          EXPECT_TRUE(record.proposer == "default" ||
                      record.proposer == "xgboost/rdu")
              << record.proposer;
      runs.push_back(std::move(schedules));
      // The best schedule goes into the module.
      auto applied = applyTunedSchedules(
          *module, **db, Platform(*lookupTargetArch("x86-avx512")));
      ASSERT_TRUE(bool(applied));
      EXPECT_EQ(*applied, 1u);
    }
    EXPECT_EQ(runs[0], runs[1]) << model << " " << sampler;
  }
}

/// Without the default schedules (TuningOptions::startFromDefaults) the
/// search starts from samples of the space: no default is measured, the
/// budget goes to the search, a task's first batch is small (4 trials, of
/// batches of 8), and the whole model's curve has a point from the first
/// batch on (every task then has a best).
TEST_F(SearchTest, TuningCanStartWithoutTheDefaults) {
  for (bool fromDefaults : {true, false}) {
    OwningOpRef<ModuleOp> module = parse(kMatmul);
    extractTasks(*module);
    auto db = TuningDatabase::open(tempPath("db"));
    ASSERT_TRUE(bool(db));
    TuningOptions options = smallOptions("xgboost");
    options.startFromDefaults = fromDefaults;
    options.batchSize = 8;
    Tuner tuner(**db, options, fakeMeasure);
    auto report = tuner.tune(*module);
    ASSERT_TRUE(bool(report)) << llvm::toString(report.takeError());
    ASSERT_EQ(report->tasks.size(), 1u);
    EXPECT_EQ(report->tasks[0].trials, 20u);
    unsigned defaults = 0;
    for (const TuningRecord &record :
         (*db)->getRecords(report->tasks[0].key, "x86-avx512/1t"))
      defaults += record.proposer == "default";
    EXPECT_EQ(defaults, fromDefaults ? 1u : 0u);
    EXPECT_EQ(report->tasks[0].defaultSeconds > 0, fromDefaults);
    EXPECT_GT(report->tasks[0].bestSeconds, 0);
    ASSERT_FALSE(report->tasks[0].curve.empty());
    EXPECT_EQ(report->tasks[0].curve[0].first, fromDefaults ? 1u : 4u);
    ASSERT_FALSE(report->modelCurve.empty());
    for (auto [trials, seconds] : report->modelCurve)
      EXPECT_GT(seconds, 0) << trials;
  }
}

/// The RDU sampler needs a model's scores: the random cost model is refused
/// with a clear error, and so is an unknown sampler.
TEST_F(SearchTest, SamplersAreCheckedBeforeTuning) {
  OwningOpRef<ModuleOp> module = parse(kMatmul);
  extractTasks(*module);
  for (auto [model, sampler, message] :
       {std::tuple<const char *, const char *, const char *>{
            "random", "rdu",
            "the rdu sampler reads a cost model's scores and uncertainty, "
            "which the random cost model does not have: use xgboost, mamba, "
            "tlp or mlp"},
        {"xgboost", "best", "unknown sampler 'best' (known: topk, rdu)"}}) {
    auto db = TuningDatabase::open(tempPath("db"));
    ASSERT_TRUE(bool(db));
    TuningOptions options = smallOptions(model);
    options.sampler = sampler;
    Tuner tuner(**db, options, fakeMeasure);
    auto report = tuner.tune(*module);
    ASSERT_FALSE(bool(report));
    EXPECT_EQ(llvm::toString(report.takeError()), message);
  }
}

/// Records of a target on this host's machine stand in for the platform
/// first, then records tied to no machine, then other machines' (their
/// schedules are valid on any machine of the target, if not tuned for it).
TEST_F(SearchTest, TunedSchedulesPreferThisMachine) {
  const TargetArch &avx512 = *lookupTargetArch("x86-avx512");
  const std::string here = getHostMachineName();
  {
    // Tuned on another machine only: its schedules are used.
    OwningOpRef<ModuleOp> module = parse(kMatmul);
    extractTasks(*module);
    auto db = TuningDatabase::open(tempPath("db"));
    ASSERT_TRUE(bool(db));
    TuningOptions options = smallOptions("random");
    options.trials = 4;
    options.platform = Platform(avx512).onMachine("other-machine");
    Tuner tuner(**db, options, fakeMeasure);
    auto report = tuner.tune(*module);
    ASSERT_TRUE(bool(report)) << llvm::toString(report.takeError());
    EXPECT_EQ(
        (*db)
            ->getRecords(report->tasks[0].key, "x86-avx512/1t@other-machine")
            .size(),
        4u);
    auto applied = applyTunedSchedules(*module, **db, Platform(avx512));
    ASSERT_TRUE(bool(applied)) << llvm::toString(applied.takeError());
    EXPECT_EQ(*applied, 1u);
  }
  auto db = TuningDatabase::open(tempPath("db"));
  ASSERT_TRUE(bool(db));
  for (const Platform &platform :
       {Platform(avx512).onMachine("other-machine"), Platform(avx512),
        Platform(avx512).onMachine(here),
        Platform(*lookupTargetArch("x86-avx2")).onMachine(here)})
    ASSERT_FALSE(bool((*db)->addPlatform(platform)));
  EXPECT_EQ(getStandInPlatforms(**db, Platform(avx512)),
            (std::vector<std::string>{"x86-avx512/1t@" + here, "x86-avx512/1t",
                                      "x86-avx512/1t@other-machine"}));
  EXPECT_EQ(getStandInPlatforms(**db, Platform(avx512, 2)),
            std::vector<std::string>{});

  // A name without a machine resolves to this host's; one with a machine,
  // or one the database has as it is, to itself.
  auto resolved = resolvePlatformName(**db, "x86-avx2/1t");
  ASSERT_TRUE(bool(resolved)) << llvm::toString(resolved.takeError());
  EXPECT_EQ(*resolved, "x86-avx2/1t@" + here);
  resolved = resolvePlatformName(**db, "x86-avx512/1t");
  ASSERT_TRUE(bool(resolved)) << llvm::toString(resolved.takeError());
  EXPECT_EQ(*resolved, "x86-avx512/1t");
  resolved = resolvePlatformName(**db, "x86-sse42/1t");
  ASSERT_FALSE(bool(resolved));
  EXPECT_EQ(llvm::toString(resolved.takeError()),
            "the database has no platform 'x86-sse42/1t'");
}

void SearchTest::resumeMatmulTuning(const std::string &path) {
  OwningOpRef<ModuleOp> module = parse(kMatmul);
  extractTasks(*module);
  auto db = TuningDatabase::open(path);
  ASSERT_TRUE(bool(db));
  TuningOptions options = smallOptions("xgboost");
  options.resume = true;
  Tuner tuner(**db, options, fakeMeasure);
  auto report = tuner.tune(*module);
  ASSERT_TRUE(bool(report)) << llvm::toString(report.takeError());
}

/// A tuning run killed (SIGKILL) in the middle of a batch loses only that
/// batch; rerunning with resume continues to the same total without
/// measuring anything twice.
TEST_F(SearchTest, KilledRunResumes) {
  std::string path = tempPath("db");
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    OwningOpRef<ModuleOp> module = parse(kMatmul);
    extractTasks(*module);
    auto db = TuningDatabase::open(path);
    if (!db)
      _exit(3);
    unsigned batches = 0;
    Tuner tuner(**db, smallOptions("xgboost"),
                [&](llvm::ArrayRef<MeasureInput> batch) {
                  // Killed while measuring the fourth batch.
                  if (++batches == 4)
                    raise(SIGKILL);
                  return fakeMeasure(batch);
                });
    (void)tuner.tune(*module);
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  {
    auto db = TuningDatabase::open(path);
    ASSERT_TRUE(bool(db));
    // The default schedule and two batches of four were committed.
    EXPECT_EQ((*db)->countRecords(), 1u + 2 * 4);
  }
  resumeMatmulTuning(path);
  auto db = TuningDatabase::open(path);
  ASSERT_TRUE(bool(db));
  EXPECT_EQ((*db)->countRecords(), 20u);
  std::vector<std::string> schedules = schedulesOf(**db);
  std::set<std::string> distinct;
  for (const std::string &schedule : schedules)
    EXPECT_TRUE(distinct.insert(schedule).second)
        << "measured twice: " << schedule;
}

/// Records of an earlier code generation time other code: a resumed run
/// neither counts nor trusts them, measures the default schedule again, and
/// stamps what it measures with this build's version.
TEST_F(SearchTest, ResumedRunMeasuresEarlierCodegenAgain) {
  std::string path = tempPath("db");
  {
    OwningOpRef<ModuleOp> module = parse(kMatmul);
    extractTasks(*module);
    auto db = TuningDatabase::open(path);
    ASSERT_TRUE(bool(db));
    Tuner tuner(**db, smallOptions("xgboost"), fakeMeasure);
    ASSERT_TRUE(bool(tuner.tune(*module)));
    EXPECT_EQ((*db)->countRecords(), 20u);
  }
  // As if an earlier compiler had measured them.
  execSqlite(path, "UPDATE records SET codegen = 0;");
  resumeMatmulTuning(path);
  auto db = TuningDatabase::open(path);
  ASSERT_TRUE(bool(db));
  EXPECT_EQ((*db)->countRecords(), 40u);
  unsigned current = 0, defaults = 0;
  for (const TuningDatabase::Summary &row : (*db)->summarize())
    for (const TuningRecord &record :
         (*db)->getRecords(row.workloadKey, row.platform)) {
      current += record.codegen == kCodegenVersion;
      defaults += record.proposer == "default";
    }
  EXPECT_EQ(current, 20u);
  EXPECT_EQ(defaults, 2u);
}

/// Collection mode: every task gets its quota of programs, a share of them
/// uniform samples, in round-robin turns; a rerun with a larger quota tops
/// every task up without measuring anything twice.
TEST_F(SearchTest, CollectionFillsEveryTaskToItsQuota) {
  std::string path = tempPath("db");
  for (unsigned quota : {6u, 9u}) {
    OwningOpRef<ModuleOp> module = parse(kWindowOps);
    extractTasks(*module);
    auto db = TuningDatabase::open(path);
    ASSERT_TRUE(bool(db));
    TuningOptions options = smallOptions("random");
    options.trialsPerTask = quota;
    options.randomFraction = 0.5;
    unsigned calls = 0;
    Tuner tuner(**db, options, [&](llvm::ArrayRef<MeasureInput> batch) {
      ++calls;
      return fakeMeasure(batch);
    });
    auto report = tuner.tune(*module);
    ASSERT_TRUE(bool(report)) << llvm::toString(report.takeError());
    ASSERT_EQ(report->tasks.size(), 4u);
    for (const TaskReport &task : report->tasks)
      EXPECT_EQ(task.trials, quota) << task.name;
    EXPECT_EQ((*db)->countRecords(), 4u * quota);
    EXPECT_GT(calls, 0u);
  }
  auto db = TuningDatabase::open(path);
  ASSERT_TRUE(bool(db));
  std::map<std::string, unsigned> proposers;
  std::set<std::string> distinct;
  for (const TuningDatabase::Summary &row : (*db)->summarize())
    for (const TuningRecord &record :
         (*db)->getRecords(row.workloadKey, row.platform)) {
      ++proposers[record.proposer];
      EXPECT_TRUE(distinct.insert(row.workloadKey + record.schedule).second)
          << "measured twice: " << record.schedule;
    }
  EXPECT_EQ(proposers["default"], 4u);
  EXPECT_GT(proposers["random/sample"], 0u);
  EXPECT_GT(proposers["random/top-k"] + proposers["random/epsilon"], 0u);
}

/// The default schedules of several tasks are measured together, batchSize
/// at a time, so that they can build in parallel.
TEST_F(SearchTest, DefaultsOfSeveralTasksShareABatch) {
  OwningOpRef<ModuleOp> module = parse(kWindowOps);
  extractTasks(*module);
  auto db = TuningDatabase::open(tempPath("db"));
  ASSERT_TRUE(bool(db));
  TuningOptions options = smallOptions("random");
  options.batchSize = 3;
  options.trials = 4;
  std::vector<std::vector<std::string>> batches;
  Tuner tuner(**db, options, [&](llvm::ArrayRef<MeasureInput> batch) {
    batches.emplace_back();
    for (const MeasureInput &input : batch)
      batches.back().push_back(input.workload);
    // Every default measures (which ones the hash would fail depends on the
    // default schedules' text, not on batching).
    return measureByText(batch, /*compileErrors=*/false);
  });
  auto report = tuner.tune(*module);
  ASSERT_TRUE(bool(report)) << llvm::toString(report.takeError());
  // Four tasks, four trials: the four defaults, three then one.
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(batches[0].size(), 3u);
  EXPECT_EQ(batches[1].size(), 1u);
  std::set<std::string> workloads(batches[0].begin(), batches[0].end());
  workloads.insert(batches[1].begin(), batches[1].end());
  EXPECT_EQ(workloads.size(), 4u);
  for (const TaskReport &task : report->tasks)
    EXPECT_GT(task.defaultSeconds, 0) << task.name;
  // Every default (the window ops' and the elementwise op's) is recorded
  // with its genome, which the search evolves
  // (SearchTest.DefaultSchedulesHaveGenomes).
  unsigned withGenome = 0;
  for (const TuningRecord &record :
       (*db)->getPlatformRecords(options.platform.getName()))
    withGenome += record.proposer == "default" &&
                  Genome::parse(record.genome).has_value();
  EXPECT_EQ(withGenome, 4u);
}

/// A run that names no budget spends kDefaultTrialsPerTask trials a task
/// (at least kMinDefaultTrials), not a fixed total that a model of many
/// tasks would spend on their default schedules alone.
TEST_F(SearchTest, TheDefaultBudgetGrowsWithTheTasks) {
  EXPECT_EQ(getDefaultTrials(1), kMinDefaultTrials);
  EXPECT_EQ(getDefaultTrials(33), 33 * kDefaultTrialsPerTask);
  OwningOpRef<ModuleOp> module =
      parse(std::string(kMatmul) + std::string(kWindowOps));
  extractTasks(*module);
  auto db = TuningDatabase::open(tempPath("db"));
  ASSERT_TRUE(bool(db));
  TuningOptions options = smallOptions("random");
  options.trials = 0;
  Tuner tuner(**db, options, fakeMeasure);
  auto report = tuner.tune(*module);
  ASSERT_TRUE(bool(report)) << llvm::toString(report.takeError());
  ASSERT_EQ(report->tasks.size(), 5u);
  EXPECT_EQ((*db)->countRecords(), 5 * kDefaultTrialsPerTask);
  for (const TaskReport &task : report->tasks)
    EXPECT_GT(task.trials, 1u) << task.name;
}

/// The search's winner is measured again beside the default before it is
/// chosen: one candidate measures lucky (twice as fast as the default) the
/// first time and, measured again, slower than the default; the task then
/// keeps its default. A winner whose speed holds stays the winner.
TEST_F(SearchTest, TheSearchWinnerIsMeasuredAgainBeforeItIsChosen) {
  for (bool luckHolds : {false, true}) {
    for (unsigned rounds : {0u, 3u}) {
      OwningOpRef<ModuleOp> module = parse(kMatmul);
      extractTasks(*module);
      auto db = TuningDatabase::open(tempPath("db"));
      ASSERT_TRUE(bool(db));
      TuningOptions options = smallOptions("random");
      options.confirmationRounds = rounds;
      std::string defaultText, luckyText;
      std::map<std::string, unsigned> measured;
      Tuner tuner(**db, options, [&](llvm::ArrayRef<MeasureInput> batch) {
        std::vector<MeasureResult> results;
        for (const MeasureInput &input : batch) {
          if (defaultText.empty())
            defaultText = input.candidate;
          else if (luckyText.empty())
            luckyText = input.candidate;
          unsigned times = measured[input.candidate]++;
          double seconds = 3e-4;
          if (input.candidate == defaultText)
            seconds = 1e-4;
          else if (input.candidate == luckyText)
            seconds = times == 0 || luckHolds ? 0.5e-4 : 2e-4;
          MeasureResult result;
          result.status = MeasureStatus::Ok;
          result.minSeconds = result.medianSeconds = result.maxSeconds =
              seconds;
          result.repeats = 10;
          results.push_back(result);
        }
        return results;
      });
      auto report = tuner.tune(*module);
      ASSERT_TRUE(bool(report)) << llvm::toString(report.takeError());
      ASSERT_EQ(report->tasks.size(), 1u);
      const TaskReport &task = report->tasks[0];
      auto best =
          (*db)->getBest(task.key, options.platform.getName(), kCodegenVersion);
      ASSERT_TRUE(best.has_value());
      // Measured again, a schedule keeps its one record.
      EXPECT_EQ((*db)->countRecords(), options.trials);
      if (rounds == 0) {
        // Without confirmation the lucky measurement wins.
        EXPECT_EQ(report->remeasured, 0u);
        EXPECT_NE(best->proposer, "default");
        continue;
      }
      EXPECT_EQ(report->remeasured, 2u);
      EXPECT_EQ(measured[defaultText], 2u);
      EXPECT_EQ(measured[luckyText], 2u);
      EXPECT_DOUBLE_EQ(task.defaultSeconds, 1e-4);
      if (luckHolds) {
        EXPECT_NE(best->proposer, "default");
        EXPECT_DOUBLE_EQ(task.bestSeconds, 0.5e-4);
        EXPECT_TRUE(report->defaultsKept.empty());
      } else {
        EXPECT_EQ(best->proposer, "default");
        EXPECT_DOUBLE_EQ(task.bestSeconds, 1e-4);
        EXPECT_EQ(report->defaultsKept, std::vector<std::string>{task.name});
      }
    }
  }
  // A new measurement of a schedule the database has no record of is
  // refused, not added.
  auto db = TuningDatabase::open(tempPath("db"));
  ASSERT_TRUE(bool(db));
  TuningRecord stranger;
  stranger.workloadKey = "no such workload";
  stranger.platform = "x86-avx512/1t";
  stranger.schedule = "tcl.sched.schedule";
  llvm::Error error = (*db)->updateMeasurements({stranger});
  EXPECT_TRUE(bool(error));
  llvm::consumeError(std::move(error));
  EXPECT_EQ((*db)->countRecords(), 0u);
}

/// Held-out evaluation: trains on every other task of a database and ranks
/// the rest.
TEST_F(SearchTest, EvaluatesOnHeldOutTasks) {
  auto db = TuningDatabase::open(tempPath("db"));
  ASSERT_TRUE(bool(db));
  OwningOpRef<ModuleOp> module = parse(kWindowOps);
  extractTasks(*module);
  TuningOptions options = smallOptions("random");
  options.trials = 40;
  Tuner tuner(**db, options, fakeMeasure);
  ASSERT_TRUE(bool(tuner.tune(*module)));
  for (llvm::StringRef name : {"random", "xgboost"}) {
    auto model = createCostModel(name, 1);
    auto result = evaluateCostModel(**db, "x86-avx512/1t", *model, &context);
    ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
    EXPECT_EQ(result->trainTasks + result->testTasks, 4u);
    EXPECT_EQ(result->trainRecords + result->testRecords, 40u);
    EXPECT_GT(result->top1, 0.0);
    EXPECT_LE(result->top1, result->top5);
    EXPECT_LE(result->top5, 1.0);
    EXPECT_GE(result->pairwiseAccuracy, 0.0);
    EXPECT_LE(result->pairwiseAccuracy, 1.0);
  }
  // One task is not enough to hold one out.
  auto single = TuningDatabase::open(tempPath("db"));
  auto model = createCostModel("random", 1);
  auto none = evaluateCostModel(**single, "x86-avx512/1t", *model, &context);
  EXPECT_FALSE(bool(none));
  llvm::consumeError(none.takeError());
}

TEST_F(SearchTest, CostModelsLearnAndRoundTrip) {
  // Separable: the label grows with feature 0, feature 1 is noise.
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<float> uniform(0, 1);
  std::vector<CostSample> samples;
  for (int i = 0; i < 200; ++i) {
    float x = uniform(rng), noise = uniform(rng);
    samples.push_back({{x, noise}, x, 0});
  }
  auto model = createCostModel("xgboost", 1);
  ASSERT_TRUE(model);
  ASSERT_FALSE(model->update(samples));
  std::vector<std::vector<float>> probe = {
      {0.1f, 0.5f}, {0.5f, 0.5f}, {0.9f, 0.5f}};
  std::vector<double> scores = model->predict(probe);
  EXPECT_LT(scores[0], scores[1]);
  EXPECT_LT(scores[1], scores[2]);
  std::string path = tempPath("json");
  ASSERT_FALSE(model->save(path));
  auto loaded = createCostModel("xgboost", 1);
  ASSERT_FALSE(loaded->load(path));
  EXPECT_EQ(loaded->predict(probe), scores);
  EXPECT_FALSE(createCostModel("nonsense", 1));
}

/// Programs of `space` with their features of `kind` and a label from
/// their first level's tile size along m (a signal the token rows carry):
/// log2(tile) / 6, or 1 minus that with `reversed`. Every fourth program
/// goes to `probe` (with its label in `truth`) as well as to the samples.
struct TileSizePrograms {
  std::vector<CostSample> samples;
  std::vector<std::vector<float>> probe;
  std::vector<double> truth;
};
static TileSizePrograms sampleTileSizePrograms(MLIRContext &context,
                                               SearchSpace &space,
                                               const TaskFeatures &task,
                                               FeatureKind kind, uint64_t seed,
                                               bool reversed) {
  TileSizePrograms programs;
  std::mt19937_64 rng(seed);
  OpBuilder builder(&context);
  for (int i = 0; programs.samples.size() < 96 && i < 1000; ++i) {
    Genome genome = space.sample(rng);
    OwningOpRef<ModuleOp> scratch = ModuleOp::create(UnknownLoc::get(&context));
    builder.setInsertionPointToEnd(scratch->getBody());
    ScheduleOp schedule =
        space.build(builder, UnknownLoc::get(&context), "task", genome);
    ScopedDiagnosticHandler silence(&context,
                                    [](Diagnostic &) { return success(); });
    if (failed(verify(schedule)))
      continue;
    FailureOr<std::vector<float>> features =
        featurize(schedule, task, nullptr, kind);
    EXPECT_TRUE(succeeded(features));
    if (failed(features))
      break;
    float label = std::log2(float(genome.tiles[0][0])) / 6.0f;
    if (reversed)
      label = 1 - label;
    if (programs.samples.size() % 4 == 3) {
      programs.probe.push_back(*features);
      programs.truth.push_back(label);
    }
    programs.samples.push_back(
        {*features, label, static_cast<unsigned>(i % 4)});
  }
  return programs;
}

/// kMatmul's task, its search space on x86-avx512 and its features (the
/// module stays alive with them).
struct MatmulTask {
  OwningOpRef<ModuleOp> module;
  std::unique_ptr<SearchSpace> space;
  FailureOr<TaskFeatures> task = failure();

  explicit MatmulTask(MLIRContext &context) {
    module = parseSourceString<ModuleOp>(kMatmul, &context);
    extractTasks(*module);
    auto anchor = cast<linalg::LinalgOp>(findTaskAnchor(*module));
    space =
        SearchSpace::create(anchor, Platform(*lookupTargetArch("x86-avx512")),
                            /*hasEpilogue=*/true);
    task = TaskFeatures::fromAnchor(anchor);
  }
};

/// How well `scores` order programs of labels `truth` (higher is faster).
static double pairwiseAccuracyOf(const std::vector<double> &scores,
                                 const std::vector<double> &truth) {
  RankedGroup group{scores, {}, 1};
  for (double label : truth)
    group.latencies.push_back(1.0 / (0.01 + label));
  return pairwiseAccuracy(group);
}

/// The learned models behind the CostModel interface: each reads the
/// features of its kind (the tokenizer's [32, kWidth] matrix for the
/// sequence models, the summary vector for the MLP) of real schedules,
/// learns a ranking from them, and round-trips through save/load.
TEST_F(SearchTest, LearnedCostModelsReadTokenizerFeatures) {
  MatmulTask matmul(context);
  ASSERT_TRUE(matmul.space && succeeded(matmul.task));
  SearchSpace &space = *matmul.space;
  const TaskFeatures &task = *matmul.task;
  for (llvm::StringRef name : {"mamba", "tlp", "mlp"}) {
    LearnedModelOptions options;
    options.epochs = 30;
    options.threads = 1;
    std::unique_ptr<CostModel> model =
        createLearnedCostModel(name, /*seed=*/2, options);
    ASSERT_TRUE(model) << name.str();
    FeatureKind kind = model->getFeatureKind();
    EXPECT_EQ(kind,
              name == "mlp" ? FeatureKind::Summary : FeatureKind::Sequence);
    TileSizePrograms programs = sampleTileSizePrograms(
        context, space, task, kind, /*seed=*/11, /*reversed=*/false);
    ASSERT_EQ(programs.samples.front().features.size(),
              kind == FeatureKind::Sequence
                  ? 32u * Tokenizer::kWidth
                  : 2u * Tokenizer::kTokenWidth + 1 + Tokenizer::kTaskWidth +
                        Tokenizer::kHardwareWidth);
    ASSERT_FALSE(model->update(programs.samples)) << name.str();
    EXPECT_GT(model->getNumParameters(), 1000u);
    std::vector<double> scores = model->predict(programs.probe);
    EXPECT_GT(pairwiseAccuracyOf(scores, programs.truth), 0.6) << name.str();

    std::string path = tempPath(name.str());
    ASSERT_FALSE(model->save(path));
    auto loaded = createLearnedCostModel(name, 2, options);
    ASSERT_FALSE(loaded->load(path));
    EXPECT_EQ(loaded->predict(programs.probe), scores) << name.str();
    // A file of another kind is refused with a message.
    auto other = createCostModel(name == "mlp" ? "mamba" : "mlp", 1);
    llvm::Error wrong = other->load(path);
    ASSERT_TRUE(bool(wrong));
    EXPECT_NE(llvm::toString(std::move(wrong)).find("holds a"),
              std::string::npos);
  }
}

/// With OnlineLearning::Correct a loaded model learns a run whose programs
/// rank the other way round from what it was trained on, without training
/// its network: the checkpoint it saves is the one it loaded, byte for
/// byte.
TEST_F(SearchTest, CorrectionLearnsTheRunWithoutTrainingTheNetwork) {
  MatmulTask matmul(context);
  ASSERT_TRUE(matmul.space && succeeded(matmul.task));
  SearchSpace &space = *matmul.space;
  const TaskFeatures &task = *matmul.task;
  LearnedModelOptions options;
  options.epochs = 30;
  options.threads = 1;
  auto pretrained = createLearnedCostModel("mamba", /*seed=*/2, options);
  TileSizePrograms trained =
      sampleTileSizePrograms(context, space, task, FeatureKind::Sequence,
                             /*seed=*/11, /*reversed=*/false);
  ASSERT_FALSE(pretrained->update(trained.samples));
  std::string path = tempPath("pretrained");
  ASSERT_FALSE(pretrained->save(path));

  // The run: other programs, ranked the other way round.
  TileSizePrograms run =
      sampleTileSizePrograms(context, space, task, FeatureKind::Sequence,
                             /*seed=*/12, /*reversed=*/true);
  // Programs the run has not measured, ranked as the run's are.
  TileSizePrograms unseen =
      sampleTileSizePrograms(context, space, task, FeatureKind::Sequence,
                             /*seed=*/13, /*reversed=*/true);
  options.online = LearnedModelOptions::OnlineLearning::Correct;
  auto model = createLearnedCostModel("mamba", /*seed=*/2, options);
  ASSERT_FALSE(model->load(path));
  double before = pairwiseAccuracyOf(model->predict(run.probe), run.truth);
  double unseenBefore =
      pairwiseAccuracyOf(model->predict(unseen.probe), unseen.truth);
  EXPECT_LT(before, 0.4);
  EXPECT_LT(unseenBefore, 0.4);
  ASSERT_FALSE(model->update(run.samples));
  double after = pairwiseAccuracyOf(model->predict(run.probe), run.truth);
  EXPECT_GT(after, 0.9) << "before the run's measurements: " << before;
  double unseenAfter =
      pairwiseAccuracyOf(model->predict(unseen.probe), unseen.truth);
  EXPECT_GT(unseenAfter, 0.7) << "before: " << unseenBefore;

  std::string saved = tempPath("saved");
  ASSERT_FALSE(model->save(saved));
  auto read = [](const std::string &file) {
    auto buffer = llvm::MemoryBuffer::getFile(file);
    return buffer ? (*buffer)->getBuffer().str() : std::string();
  };
  EXPECT_EQ(read(saved), read(path));
  EXPECT_FALSE(read(path).empty());
}

/// Trains a Mamba with `options` on kMatmul's tile-size programs (seed 11)
/// and saves it to `path`; returns a run's programs, ranked the other way
/// round (seed 12): what the fine-tuning tests load and learn.
static TileSizePrograms trainTileSizeMamba(MLIRContext &context,
                                           MatmulTask &matmul,
                                           const LearnedModelOptions &options,
                                           const std::string &path) {
  auto pretrained = createLearnedCostModel("mamba", /*seed=*/2, options);
  TileSizePrograms trained =
      sampleTileSizePrograms(context, *matmul.space, *matmul.task,
                             FeatureKind::Sequence, /*seed=*/11, false);
  EXPECT_FALSE(pretrained->update(trained.samples));
  EXPECT_FALSE(pretrained->save(path));
  return sampleTileSizePrograms(context, *matmul.space, *matmul.task,
                                FeatureKind::Sequence, /*seed=*/12, true);
}

/// A loaded model fine-tunes on a search's measurements at its own step
/// size (LearnedModelOptions::fineTuneLearningRate), not at the one it
/// trains with from scratch: with a tiny fine-tuning step the update barely
/// moves a score, with a tiny training step it still learns.
TEST_F(SearchTest, FineTuningALoadedModelTakesItsOwnStepSize) {
  MatmulTask matmul(context);
  ASSERT_TRUE(matmul.space && succeeded(matmul.task));
  LearnedModelOptions options;
  options.epochs = 5;
  options.threads = 1;
  std::string path = tempPath("pretrained");
  TileSizePrograms run = trainTileSizeMamba(context, matmul, options, path);
  EXPECT_EQ(LearnedModelOptions().fineTuneLearningRate, 1e-4);
  for (bool fineTuneStepTiny : {true, false}) {
    options.learningRate = fineTuneStepTiny ? 1e-3 : 1e-12;
    options.fineTuneLearningRate = fineTuneStepTiny ? 1e-12 : 1e-3;
    auto model = createLearnedCostModel("mamba", /*seed=*/2, options);
    ASSERT_FALSE(model->load(path));
    std::vector<double> before = model->predict(run.probe);
    ASSERT_FALSE(model->update(run.samples));
    std::vector<double> after = model->predict(run.probe);
    double moved = 0;
    for (auto [a, b] : llvm::zip(before, after))
      moved = std::max(moved, std::abs(a - b));
    if (fineTuneStepTiny)
      EXPECT_LT(moved, 1e-4);
    else
      EXPECT_GT(moved, 1e-3);
  }
}

/// A loaded model fine-tunes on a search's measurements with its own loss
/// (LearnedModelOptions::fineTuneLoss), not with the one it trains with
/// from scratch: a run labels programs relative to the best measured of
/// their task so far, an order more than a scale (what each loss is worth
/// is measured in bench/cost_models.py's closed loop and tuning study). An
/// unknown loss is an error naming it.
TEST_F(SearchTest, FineTuningALoadedModelTakesItsOwnLoss) {
  MatmulTask matmul(context);
  ASSERT_TRUE(matmul.space && succeeded(matmul.task));
  LearnedModelOptions options;
  options.epochs = 5;
  options.threads = 1;
  std::string path = tempPath("pretrained");
  TileSizePrograms run = trainTileSizeMamba(context, matmul, options, path);
  EXPECT_EQ(LearnedModelOptions().fineTuneLoss, "lambdarank+mse");
  auto fineTuned = [&](const char *loss,
                       const char *fineTuneLoss) -> std::vector<double> {
    LearnedModelOptions given = options;
    given.loss = loss;
    given.fineTuneLoss = fineTuneLoss;
    given.fineTuneLearningRate = 1e-3;
    auto model = createLearnedCostModel("mamba", /*seed=*/2, given);
    EXPECT_FALSE(model->load(path));
    EXPECT_FALSE(model->update(run.samples));
    return model->predict(run.probe);
  };
  std::vector<double> rankedOnly = fineTuned("lambdarank", "lambdarank");
  EXPECT_EQ(fineTuned("lambdarank+mse", "lambdarank"), rankedOnly);
  EXPECT_NE(fineTuned("lambdarank", "lambdarank+mse"), rankedOnly);

  options.fineTuneLoss = "hinge";
  auto model = createLearnedCostModel("mamba", /*seed=*/2, options);
  ASSERT_FALSE(model->load(path));
  llvm::Error unknown = model->update(run.samples);
  ASSERT_TRUE(bool(unknown));
  EXPECT_EQ(llvm::toString(std::move(unknown)),
            "unknown fine-tuning loss 'hinge'");
}

/// A checkpoint records the feature layout it was trained on; one of
/// another layout version or shape, or of none, is refused by name.
TEST_F(SearchTest, LearnedCheckpointOfAnotherFeatureLayoutIsRefused) {
  EXPECT_EQ(getFeatureLayout(FeatureKind::Sequence),
            "tokens-v" + std::to_string(Tokenizer::kLayoutVersion) + "-32x" +
                std::to_string(Tokenizer::kWidth));
  EXPECT_EQ(getFeatureLayout(FeatureKind::Summary),
            "summary-v" + std::to_string(Tokenizer::kLayoutVersion) + "-1x" +
                std::to_string(2 * Tokenizer::kTokenWidth + 1 +
                               Tokenizer::kTaskWidth +
                               Tokenizer::kHardwareWidth));
  std::string current = getFeatureLayout(FeatureKind::Sequence);
  for (std::string inputs :
       {std::string("tokens-v0-32x74"), std::string(""), current}) {
    learned::ModelConfig config(learned::ModelKind::Mamba, 32,
                                Tokenizer::kWidth);
    config.inputs = inputs;
    auto made = learned::RankingModel::create(config);
    ASSERT_TRUE(bool(made)) << llvm::toString(made.takeError());
    std::string path = tempPath("layout-" + inputs);
    ASSERT_FALSE((*made)->save(path));
    auto model = createCostModel("mamba", 1);
    llvm::Error error = model->load(path);
    if (inputs == current) {
      EXPECT_FALSE(bool(error));
      continue;
    }
    ASSERT_TRUE(bool(error)) << inputs;
    std::string message = llvm::toString(std::move(error));
    EXPECT_NE(message.find(inputs.empty() ? "an unversioned layout" : inputs),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("this tcl makes '" + current + "'"),
              std::string::npos)
        << message;
  }
}

/// A checkpoint names the platforms it learned: on another one the search
/// learns in an active column beside it (and says so); on one of them it
/// fine-tunes the checkpoint as before.
TEST_F(SearchTest, CheckpointOfOtherPlatformsLearnsInAnActiveColumn) {
  for (bool known : {false, true}) {
    learned::ModelConfig config(learned::ModelKind::Mamba, 32,
                                Tokenizer::kWidth);
    config.inputs = getFeatureLayout(FeatureKind::Sequence);
    config.platforms = {known ? "x86-avx512/1t" : "x86-sse42/1t@elsewhere"};
    auto made = learned::RankingModel::create(config);
    ASSERT_TRUE(bool(made)) << llvm::toString(made.takeError());
    std::string path = tempPath("checkpoint");
    ASSERT_FALSE((*made)->save(path));

    OwningOpRef<ModuleOp> module = parse(kMatmul);
    extractTasks(*module);
    auto db = TuningDatabase::open(tempPath("db"));
    ASSERT_TRUE(bool(db));
    TuningOptions options = smallOptions("mamba");
    options.trials = 8;
    options.costModelFile = path;
    std::string progress;
    llvm::raw_string_ostream os(progress);
    Tuner tuner(**db, options, fakeMeasure);
    auto report = tuner.tune(*module, &os);
    ASSERT_TRUE(bool(report)) << llvm::toString(report.takeError());
    EXPECT_EQ(report->tasks[0].trials, 8u);
    bool said =
        os.str().find("tuning: the cost model learned "
                      "x86-sse42/1t@elsewhere, not x86-avx512/1t: an "
                      "active column learns it online") != std::string::npos;
    EXPECT_EQ(said, !known) << os.str();
  }
  // Only a learned model loaded from a file has a column to start.
  llvm::Error error = createCostModel("xgboost", 1)->startActiveColumn();
  ASSERT_TRUE(bool(error));
  EXPECT_NE(llvm::toString(std::move(error)).find("no active column"),
            std::string::npos);
  error = createCostModel("mamba", 1)->startActiveColumn();
  ASSERT_TRUE(bool(error));
  EXPECT_NE(llvm::toString(std::move(error)).find("loaded from a file"),
            std::string::npos);
}

/// The ablations clear exactly one part of the features, in every row.
TEST_F(SearchTest, ClearingAFeaturePartZeroesItsColumns) {
  constexpr unsigned kToken = Tokenizer::kTokenWidth,
                     kTask = Tokenizer::kTaskWidth, kWidth = Tokenizer::kWidth;
  // Two token rows and a summary row of ones.
  std::vector<float> tokens(2 * kWidth, 1.0f);
  clearFeaturePart(tokens, FeatureKind::Sequence, FeaturePart::Task);
  for (unsigned row = 0; row < 2; ++row)
    for (unsigned col = 0; col < kWidth; ++col)
      EXPECT_EQ(tokens[row * kWidth + col],
                col >= kToken && col < kToken + kTask ? 0.0f : 1.0f)
          << row << " " << col;
  clearFeaturePart(tokens, FeatureKind::Sequence, FeaturePart::Hardware);
  EXPECT_EQ(std::count(tokens.begin(), tokens.end(), 1.0f), 2 * kToken);

  const unsigned summaryWidth =
      2 * kToken + 1 + kTask + Tokenizer::kHardwareWidth;
  std::vector<float> summary(summaryWidth, 1.0f);
  clearFeaturePart(summary, FeatureKind::Summary, FeaturePart::Hardware);
  for (unsigned col = 0; col < summaryWidth; ++col)
    EXPECT_EQ(summary[col], col >= 2 * kToken + 1 + kTask ? 0.0f : 1.0f) << col;
  clearFeaturePart(summary, FeatureKind::Summary, FeaturePart::Schedule);
  EXPECT_EQ(std::count(summary.begin(), summary.end(), 1.0f), kTask);
}

/// The search runs with a learned model and is refitted online.
TEST_F(SearchTest, SearchRunsWithALearnedModel) {
  OwningOpRef<ModuleOp> module = parse(kMatmul);
  extractTasks(*module);
  auto db = TuningDatabase::open(tempPath("db"));
  ASSERT_TRUE(bool(db));
  TuningOptions options = smallOptions("mamba");
  options.trials = 12;
  Tuner tuner(**db, options, fakeMeasure);
  auto report = tuner.tune(*module);
  ASSERT_TRUE(bool(report)) << llvm::toString(report.takeError());
  EXPECT_EQ(report->tasks[0].trials, 12u);
  std::vector<TuningRecord> records =
      (*db)->getRecords(report->tasks[0].key, "x86-avx512/1t");
  // A learned model's default sampler is RDU.
  EXPECT_TRUE(llvm::any_of(records, [](const TuningRecord &record) {
    return record.proposer == "mamba/rdu";
  }));
  // Told top-k, it takes the best by score.
  auto topkDb = TuningDatabase::open(tempPath("db"));
  ASSERT_TRUE(bool(topkDb));
  TuningOptions topk = options;
  topk.sampler = "topk";
  Tuner topkTuner(**topkDb, topk, fakeMeasure);
  auto topkReport = topkTuner.tune(*module);
  ASSERT_TRUE(bool(topkReport)) << llvm::toString(topkReport.takeError());
  EXPECT_EQ(topkReport->tasks[0].trials, 12u);
  records = (*topkDb)->getRecords(topkReport->tasks[0].key, "x86-avx512/1t");
  EXPECT_TRUE(llvm::none_of(records, [](const TuningRecord &record) {
    return record.proposer == "mamba/rdu";
  }));
  // A model file that does not exist stops the run with an error.
  options.costModelFile = tempPath("missing");
  Tuner broken(**db, options, fakeMeasure);
  auto failed = broken.tune(*module);
  EXPECT_FALSE(bool(failed));
  llvm::consumeError(failed.takeError());
}

} // namespace
