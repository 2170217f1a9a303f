//===- ApproximateMath.cpp - Inline polynomial erf and tanh ---------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;

namespace {
struct ApproximateMathPass
    : public mlir::tcl::impl::ApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populatePolynomialApproximateErfPattern(patterns);
    populatePolynomialApproximateTanhPattern(patterns);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // exp too (softmax, sigmoid, SiLU): LLVM lowers a vector exp to a libm
    // call per lane. MLIR has no pattern for exp alone; its whole set is
    // applied to the exp ops only (its sine, cosine and others reduce their
    // arguments in f32, less accurate than libm far from zero).
    SmallVector<Operation *> exps;
    getOperation().walk([&](math::ExpOp exp) { exps.push_back(exp); });
    if (exps.empty())
      return;
    RewritePatternSet all(&getContext());
    populateMathPolynomialApproximationPatterns(all);
    GreedyRewriteConfig onlyThese;
    onlyThese.strictMode = GreedyRewriteStrictness::ExistingOps;
    if (failed(applyOpPatternsAndFold(exps, std::move(all), onlyThese)))
      signalPassFailure();
  }
};
} // namespace
