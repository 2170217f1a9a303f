//===- GenericAnchorSearchTest.cpp - Search spaces of generic anchors -----===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Every candidate the search space generates for a grouped convolution (a
// linalg.generic, tcl/Support/GroupedConv.h) and its filter-blocked form
// (an ordinary convolution with its filter in blocks of output channels),
// for a batch matmul of
// attention's [S, H, D] layouts (tcl/Support/PermutedBatchMatmul.h) and for
// a Resize (a generic that reads its input at computed indices, vectorized
// where the reads are rows) verifies and applies, and the code of a sample
// of them computes what plain loops compute.
//
//===----------------------------------------------------------------------===//

#include "tcl/Runtime/Kernel.h"
#include "tcl/Transforms/ApplySchedule.h"
#include "tcl/Transforms/DefaultSchedule.h"
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

/// 4 groups of 8 channels, 3x3, stride 2, with a bias + ReLU epilogue; a
/// depthwise convolution with channel multiplier 2 (1 input channel per
/// group), 1-D (a height of 1); and a convolution with its filter in 3
/// blocks of 16 output channels (the filter-blocked form, an input without
/// groups), 3x3.
constexpr const char *kGroupedConvs = R"mlir(
#in = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh * 2 + kh, ow * 2 + kw, g, c)>
#filter = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (g, kh, kw, c, f)>
#out = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh, ow, g, f)>
#in1 = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh + kh, ow + kw * 2, g, c)>
#shared = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh + kh, ow + kw, c)>
#id = affine_map<(n, h, w, g, f) -> (n, h, w, g, f)>
#bias = affine_map<(n, h, w, g, f) -> (g, f)>
func.func @f(%x: tensor<1x17x17x4x8xf32>, %w: tensor<4x3x3x8x8xf32>,
             %b: tensor<4x8xf32>, %x1: tensor<1x1x20x6x1xf32>,
             %w1: tensor<6x1x3x1x2xf32>, %x2: tensor<1x9x9x8xf32>,
             %w2: tensor<3x3x3x8x16xf32>)
    -> (tensor<1x8x8x4x8xf32>, tensor<1x1x16x6x2xf32>, tensor<1x7x7x3x16xf32>) {
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
  %e2 = tensor.empty() : tensor<1x7x7x3x16xf32>
  %i2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x7x7x3x16xf32>) -> tensor<1x7x7x3x16xf32>
  %blocked = linalg.generic {indexing_maps = [#shared, #filter, #out],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x2, %w2 : tensor<1x9x9x8xf32>, tensor<3x3x3x8x16xf32>)
      outs(%i2 : tensor<1x7x7x3x16xf32>) attrs = {tcl.task = "blocked"} {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %p = arith.mulf %a, %k : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x7x7x3x16xf32>
  return %y, %m, %blocked : tensor<1x8x8x4x8xf32>, tensor<1x1x16x6x2xf32>, tensor<1x7x7x3x16xf32>
}
)mlir";

/// Attention's two batch matmuls on [S, H, D] = 24x3x16 queries and values
/// (keys transposed to [H, D, S]), the second with the odd sequence length
/// of the first's columns as its reduction: scores [H, S, S] from the
/// queries in place, the context written into [S, H, D] in place.
constexpr const char *kAttentionHeads = R"mlir(
#q = affine_map<(b, m, n, k) -> (m, b, k)>
#kt = affine_map<(b, m, n, k) -> (b, k, n)>
#s = affine_map<(b, m, n, k) -> (b, m, n)>
#p = affine_map<(b, m, n, k) -> (b, m, k)>
#v = affine_map<(b, m, n, k) -> (k, b, n)>
#o = affine_map<(b, m, n, k) -> (m, b, n)>
func.func @f(%q: tensor<24x3x16xf32>, %k: tensor<3x16x24xf32>,
             %v: tensor<24x3x16xf32>)
    -> (tensor<3x24x24xf32>, tensor<24x3x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<3x24x24xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<3x24x24xf32>) -> tensor<3x24x24xf32>
  %scores = linalg.generic {indexing_maps = [#q, #kt, #s],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<24x3x16xf32>, tensor<3x16x24xf32>)
      outs(%zs : tensor<3x24x24xf32>) attrs = {tcl.task = "scores"} {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<3x24x24xf32>
  %eo = tensor.empty() : tensor<24x3x16xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<24x3x16xf32>) -> tensor<24x3x16xf32>
  %context = linalg.generic {indexing_maps = [#p, #v, #o],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%scores, %v : tensor<3x24x24xf32>, tensor<24x3x16xf32>)
      outs(%zo : tensor<24x3x16xf32>) attrs = {tcl.task = "context"} {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %b, %a : f32
    %r = arith.addf %m, %acc : f32
    linalg.yield %r : f32
  } -> tensor<24x3x16xf32>
  return %scores, %context : tensor<3x24x24xf32>, tensor<24x3x16xf32>
}
)mlir";

/// A bilinear Resize of a channels-last image, 8x8 -> 16x16, as the
/// importer builds it (index tables read in the body, weights as inputs).
constexpr const char *kResize = R"mlir(
#h = affine_map<(n, h, w, c) -> (h)>
#w = affine_map<(n, h, w, c) -> (w)>
#id = affine_map<(n, h, w, c) -> (n, h, w, c)>
func.func @f(%x: tensor<1x8x8x16xf32>) -> tensor<1x16x16x16xf32> {
  %lower = arith.constant dense<[0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7]> : tensor<16xi64>
  %upper = arith.constant dense<[1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 7]> : tensor<16xi64>
  %weight = arith.constant dense<[0.0, 0.25, 0.75, 0.25, 0.75, 0.25, 0.75, 0.25, 0.75, 0.25, 0.75, 0.25, 0.75, 0.25, 0.75, 0.0]> : tensor<16xf32>
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<1x16x16x16xf32>
  %r = linalg.generic {indexing_maps = [#h, #w, #id],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%weight, %weight : tensor<16xf32>, tensor<16xf32>)
      outs(%e : tensor<1x16x16x16xf32>) attrs = {tcl.task = "resize"} {
  ^bb0(%wh: f32, %ww: f32, %o: f32):
    %n = linalg.index 0 : index
    %h = linalg.index 1 : index
    %w = linalg.index 2 : index
    %c = linalg.index 3 : index
    %h0 = tensor.extract %lower[%h] : tensor<16xi64>
    %h1 = tensor.extract %upper[%h] : tensor<16xi64>
    %w0 = tensor.extract %lower[%w] : tensor<16xi64>
    %w1 = tensor.extract %upper[%w] : tensor<16xi64>
    %ih0 = arith.index_cast %h0 : i64 to index
    %ih1 = arith.index_cast %h1 : i64 to index
    %iw0 = arith.index_cast %w0 : i64 to index
    %iw1 = arith.index_cast %w1 : i64 to index
    %a = tensor.extract %x[%n, %ih0, %iw0, %c] : tensor<1x8x8x16xf32>
    %b = tensor.extract %x[%n, %ih0, %iw1, %c] : tensor<1x8x8x16xf32>
    %d = tensor.extract %x[%n, %ih1, %iw0, %c] : tensor<1x8x8x16xf32>
    %g = tensor.extract %x[%n, %ih1, %iw1, %c] : tensor<1x8x8x16xf32>
    %uh = arith.subf %one, %wh : f32
    %uw = arith.subf %one, %ww : f32
    %ta = arith.mulf %a, %uw : f32
    %tb = arith.mulf %b, %ww : f32
    %t = arith.addf %ta, %tb : f32
    %ba = arith.mulf %d, %uw : f32
    %bb = arith.mulf %g, %ww : f32
    %bt = arith.addf %ba, %bb : f32
    %vt = arith.mulf %t, %uh : f32
    %vb = arith.mulf %bt, %wh : f32
    %v = arith.addf %vt, %vb : f32
    linalg.yield %v : f32
  } -> tensor<1x16x16x16xf32>
  return %r : tensor<1x16x16x16xf32>
}
)mlir";

class GenericAnchorSearchTest : public test::TclTest {
protected:
  /// Every candidate of `anchor`'s search space (samples, mutations,
  /// crossovers) at 1 and 2 threads verifies and applies to `module`, and
  /// every tenth computes what plain loops compute. Returns how many ran;
  /// `vectorized` counts the candidates that vectorize.
  unsigned checkCandidates(ModuleOp module, linalg::LinalgOp anchor,
                           bool hasEpilogue, unsigned *vectorized = nullptr) {
    StringRef task = anchor->getAttrOfType<StringAttr>(kTaskAttrName);
    unsigned jitted = 0;
    for (unsigned threads : {1u, 2u}) {
      Platform platform(*lookupTargetArch("x86-avx2"), threads);
      auto space = SearchSpace::create(anchor, platform, hasEpilogue);
      EXPECT_TRUE(space);
      if (!space)
        return jitted;
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
        EXPECT_TRUE(space->isWellFormed(genome)) << genome.str();
        // The schedule verifies and its transform sequence applies.
        OwningOpRef<ModuleOp> payload = module.clone();
        OpBuilder builder = OpBuilder::atBlockEnd(payload->getBody());
        ScheduleOp schedule =
            space->build(builder, payload->getLoc(), task, genome);
        if (vectorized &&
            llvm::any_of(schedule.getBody().front(), [](Operation &primitive) {
              return isa<VectorizeOp>(primitive);
            }))
          ++*vectorized;
        std::string diagnostics;
        ScopedDiagnosticHandler capture(&context, [&](Diagnostic &diag) {
          diagnostics += diag.str() + "\n";
          return success();
        });
        EXPECT_TRUE(succeeded(verify(schedule)))
            << task.str() << " " << genome.str() << "\n"
            << diagnostics;
        std::string text;
        llvm::raw_string_ostream os(text);
        payload->print(os);
        if (failed(applySchedule(schedule, *payload))) {
          ADD_FAILURE() << task.str() << " " << genome.str() << "\n"
                        << diagnostics;
          continue;
        }
        // A sample runs and computes what plain loops compute.
        if (seen.size() % 10 != 1)
          continue;
        ++jitted;
        auto scheduled = Kernel::jit(text, "f", LoweringOptions(platform));
        if (!scheduled) {
          ADD_FAILURE() << llvm::toString(scheduled.takeError());
          continue;
        }
        auto naiveText = stripSchedules(text);
        EXPECT_TRUE(bool(naiveText));
        if (!naiveText)
          continue;
        auto naive = Kernel::jit(
            *naiveText, "f",
            LoweringOptions(Platform(platform.getTarget(), 1), false));
        if (!naive) {
          ADD_FAILURE() << llvm::toString(naive.takeError());
          continue;
        }
        std::vector<Buffer> inputs =
            scheduled->getSignature().makeRandomInputs(/*seed=*/3);
        std::vector<Buffer> fast = scheduled->getSignature().makeOutputs();
        std::vector<Buffer> slow = naive->getSignature().makeOutputs();
        EXPECT_FALSE(bool(scheduled->run(inputs, fast)));
        EXPECT_FALSE(bool(naive->run(inputs, slow)));
        EXPECT_LE(maxRelativeError(fast, slow), kOutputTolerance)
            << task.str() << " " << genome.str();
      }
    }
    return jitted;
  }
};

TEST_F(GenericAnchorSearchTest, EveryCandidateVerifiesAndApplies) {
  OwningOpRef<ModuleOp> module = parse(kGroupedConvs);
  ASSERT_TRUE(module);
  SmallVector<linalg::LinalgOp> anchors;
  module->walk([&](linalg::LinalgOp op) {
    if (op->hasAttr(kTaskAttrName))
      anchors.push_back(op);
  });
  ASSERT_EQ(anchors.size(), 3u);
  unsigned jitted = 0;
  for (linalg::LinalgOp anchor : anchors) {
    // The generics are recognized as the grouped convolution anchor, or its
    // filter-blocked form.
    StringRef task = anchor->getAttrOfType<StringAttr>(kTaskAttrName);
    EXPECT_EQ(getAnchorName(anchor),
              task == "blocked" ? "linalg.generic.conv_2d_nhwc_ghwcf"
                                : "linalg.generic.conv_2d_nhwgc_ghwcf");
    jitted +=
        checkCandidates(*module, anchor, /*hasEpilogue=*/task == "grouped");
  }
  EXPECT_GT(jitted, 0u);
}

// Batch matmuls that read and write attention's layouts in place are
// recognized as their anchor, and their candidates, vectorized ones among
// them, all compute the products.
TEST_F(GenericAnchorSearchTest,
       EveryAttentionHeadsCandidateComputesTheProduct) {
  OwningOpRef<ModuleOp> module = parse(kAttentionHeads);
  ASSERT_TRUE(module);
  SmallVector<linalg::LinalgOp> anchors;
  module->walk([&](linalg::LinalgOp op) {
    if (op->hasAttr(kTaskAttrName))
      anchors.push_back(op);
  });
  ASSERT_EQ(anchors.size(), 2u);
  unsigned jitted = 0, vectorized = 0;
  for (linalg::LinalgOp anchor : anchors) {
    EXPECT_EQ(getAnchorName(anchor), "linalg.generic.batch_matmul");
    jitted +=
        checkCandidates(*module, anchor, /*hasEpilogue=*/false, &vectorized);
  }
  EXPECT_GT(jitted, 0u);
  EXPECT_GT(vectorized, 0u);
}

// A Resize's candidates include vectorized ones (its reads are rows of
// channels; tiles of more than one row gather), and all compute it.
TEST_F(GenericAnchorSearchTest, EveryResizeCandidateComputesTheResize) {
  OwningOpRef<ModuleOp> module = parse(kResize);
  ASSERT_TRUE(module);
  linalg::LinalgOp anchor;
  module->walk([&](linalg::LinalgOp op) {
    if (op->hasAttr(kTaskAttrName))
      anchor = op;
  });
  ASSERT_TRUE(anchor);
  EXPECT_TRUE(isVectorizableGeneric(anchor));
  unsigned vectorized = 0;
  EXPECT_GT(
      checkCandidates(*module, anchor, /*hasEpilogue=*/false, &vectorized), 0u);
  EXPECT_GT(vectorized, 0u);
}

} // namespace
