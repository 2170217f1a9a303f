//===- GroupedConvSearchTest.cpp - Search space of a grouped convolution --===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Every candidate the search space generates for a grouped convolution (a
// linalg.generic, tcl/Support/GroupedConv.h) verifies and applies, and the
// code of a sample of them computes what plain loops compute.
//
//===----------------------------------------------------------------------===//

#include "tcl/Runtime/Kernel.h"
#include "tcl/Transforms/ApplySchedule.h"
#include "tcl/Tuning/SearchSpace.h"

#include "../Support/TclTest.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>
#include <set>

using namespace mlir;
using namespace mlir::tcl;

namespace {

/// 4 groups of 8 channels, 3x3, stride 2, with a bias + ReLU epilogue; and
/// a depthwise convolution with channel multiplier 2 (1 input channel per
/// group), 1-D (a height of 1).
constexpr const char *kGroupedConvs = R"mlir(
#in = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh * 2 + kh, ow * 2 + kw, g, c)>
#filter = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (g, kh, kw, c, f)>
#out = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh, ow, g, f)>
#in1 = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh + kh, ow + kw * 2, g, c)>
#id = affine_map<(n, h, w, g, f) -> (n, h, w, g, f)>
#bias = affine_map<(n, h, w, g, f) -> (g, f)>
func.func @f(%x: tensor<1x17x17x4x8xf32>, %w: tensor<4x3x3x8x8xf32>,
             %b: tensor<4x8xf32>, %x1: tensor<1x1x20x6x1xf32>,
             %w1: tensor<6x1x3x1x2xf32>)
    -> (tensor<1x8x8x4x8xf32>, tensor<1x1x16x6x2xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x4x8xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x4x8xf32>) -> tensor<1x8x8x4x8xf32>
  %c = linalg.generic {indexing_maps = [#in, #filter, #out],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x17x17x4x8xf32>, tensor<4x3x3x8x8xf32>)
      outs(%i : tensor<1x8x8x4x8xf32>) attrs = {tcl.task = "grouped"} {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %p = arith.mulf %a, %k : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x8x8x4x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #bias, #id],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %b : tensor<1x8x8x4x8xf32>, tensor<4x8xf32>)
      outs(%e : tensor<1x8x8x4x8xf32>) attrs = {tcl.epilogue = "grouped"} {
  ^bb0(%v: f32, %bv: f32, %o: f32):
    %s = arith.addf %v, %bv : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x8x8x4x8xf32>
  %e1 = tensor.empty() : tensor<1x1x16x6x2xf32>
  %i1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x1x16x6x2xf32>) -> tensor<1x1x16x6x2xf32>
  %m = linalg.generic {indexing_maps = [#in1, #filter, #out],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x1, %w1 : tensor<1x1x20x6x1xf32>, tensor<6x1x3x1x2xf32>)
      outs(%i1 : tensor<1x1x16x6x2xf32>) attrs = {tcl.task = "multiplier"} {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %p = arith.mulf %k, %a : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1x1x16x6x2xf32>
  return %y, %m : tensor<1x8x8x4x8xf32>, tensor<1x1x16x6x2xf32>
}
)mlir";

class GroupedConvSearchTest : public test::TclTest {};

TEST_F(GroupedConvSearchTest, EveryCandidateVerifiesAndApplies) {
  OwningOpRef<ModuleOp> module = parse(kGroupedConvs);
  ASSERT_TRUE(module);
  SmallVector<linalg::LinalgOp> anchors;
  module->walk([&](linalg::LinalgOp op) {
    if (op->hasAttr(kTaskAttrName))
      anchors.push_back(op);
  });
  ASSERT_EQ(anchors.size(), 2u);
  unsigned jitted = 0;
  for (linalg::LinalgOp anchor : anchors) {
    // The generic is recognized as the grouped convolution anchor.
    EXPECT_EQ(getAnchorName(anchor), "linalg.generic.conv_2d_nhwgc_ghwcf");
    StringRef task = anchor->getAttrOfType<StringAttr>(kTaskAttrName);
    bool hasEpilogue = task == "grouped";
    for (unsigned threads : {1u, 2u}) {
      Platform platform(*lookupTargetArch("x86-avx2"), threads);
      auto space = SearchSpace::create(anchor, platform, hasEpilogue);
      ASSERT_TRUE(space);
      std::mt19937_64 rng(threads);
      std::vector<Genome> genomes;
      for (int i = 0; i < 30; ++i)
        genomes.push_back(space->sample(rng));
      for (int i = 0; i < 30; ++i) {
        genomes.push_back(space->mutate(genomes[i], rng));
        genomes.push_back(space->crossover(genomes[i], genomes[29 - i], rng));
      }
      std::set<std::string> seen;
      for (const Genome &genome : genomes) {
        if (!seen.insert(genome.str()).second)
          continue;
        ASSERT_TRUE(space->isWellFormed(genome)) << genome.str();
        // The schedule verifies and its transform sequence applies.
        OwningOpRef<ModuleOp> payload = module->clone();
        OpBuilder builder = OpBuilder::atBlockEnd(payload->getBody());
        ScheduleOp schedule =
            space->build(builder, payload->getLoc(), task, genome);
        std::string diagnostics;
        ScopedDiagnosticHandler capture(&context, [&](Diagnostic &diag) {
          diagnostics += diag.str() + "\n";
          return success();
        });
        ASSERT_TRUE(succeeded(verify(schedule)))
            << task.str() << " " << genome.str() << "\n"
            << diagnostics;
        std::string text;
        llvm::raw_string_ostream os(text);
        payload->print(os);
        ASSERT_TRUE(succeeded(applySchedule(schedule, *payload)))
            << task.str() << " " << genome.str() << "\n"
            << diagnostics;
        // A sample runs and computes what plain loops compute.
        if (seen.size() % 10 != 1)
          continue;
        ++jitted;
        auto scheduled = Kernel::jit(text, "f", LoweringOptions(platform));
        ASSERT_TRUE(bool(scheduled)) << llvm::toString(scheduled.takeError());
        auto naiveText = stripSchedules(text);
        ASSERT_TRUE(bool(naiveText));
        auto naive = Kernel::jit(
            *naiveText, "f",
            LoweringOptions(Platform(platform.getTarget(), 1), false));
        ASSERT_TRUE(bool(naive)) << llvm::toString(naive.takeError());
        std::vector<Buffer> inputs =
            scheduled->getSignature().makeRandomInputs(/*seed=*/3);
        std::vector<Buffer> fast = scheduled->getSignature().makeOutputs();
        std::vector<Buffer> slow = naive->getSignature().makeOutputs();
        ASSERT_FALSE(bool(scheduled->run(inputs, fast)));
        ASSERT_FALSE(bool(naive->run(inputs, slow)));
        EXPECT_LE(maxRelativeError(fast, slow), kOutputTolerance)
            << task.str() << " " << genome.str();
      }
    }
  }
  EXPECT_GT(jitted, 0u);
}

} // namespace
