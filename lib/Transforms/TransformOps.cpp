//===- TransformOps.cpp - tcl's transform dialect extension ---------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Transforms/TransformOps.h"
#include "tcl/Support/GroupedConv.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformTypes.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::tcl;

/// `type` without dimensions `dims` (all of extent 1).
static RankedTensorType dropUnitDims(RankedTensorType type,
                                     ArrayRef<unsigned> dims) {
  SmallVector<int64_t> shape;
  for (auto [dim, extent] : llvm::enumerate(type.getShape()))
    if (!llvm::is_contained(dims, dim))
      shape.push_back(extent);
  return RankedTensorType::get(shape, type.getElementType());
}

DiagnosedSilenceableFailure DecomposeGroupedConvOp::applyToOne(
    transform::TransformRewriter &rewriter, linalg::LinalgOp target,
    transform::ApplyToEachResultList &results, transform::TransformState &) {
  std::optional<GroupedConvWindow> window = matchGroupedConv(target);
  if (!window || !target.hasPureTensorSemantics())
    return emitDefaultSilenceableFailure(target)
           << "is not a grouped 2-D convolution on tensors";
  SmallVector<int64_t> extents = target.getStaticLoopRanges();
  auto isUnit = [&](unsigned output, unsigned window) {
    return extents[output] == 1 && extents[window] == 1;
  };
  // The H pair first, as the schedule verifier (DecomposeOp) assumes.
  bool dropHeight = isUnit(kGroupedOH, kGroupedKH);
  if (extents[kGroupedG] != 1 ||
      (!dropHeight && !isUnit(kGroupedOW, kGroupedKW)))
    return emitDefaultSilenceableFailure(target)
           << "needs the group loop and the H or W (output, kernel) loops at "
              "extent 1";
  // Operand dimensions that go: the dropped spatial one and the group.
  unsigned spatial = dropHeight ? 1 : 2;
  Location loc = target.getLoc();
  Value input = target.getDpsInputOperand(0)->get();
  Value filter = target.getDpsInputOperand(1)->get();
  Value output = target.getDpsInitOperand(0)->get();
  auto typeOf = [](Value value) {
    return cast<RankedTensorType>(value.getType());
  };
  rewriter.setInsertionPoint(target);
  // Input [N, H, W, 1, C] -> [N, W, C]; filter [1, KH, KW, C, F] ->
  // [KW, C, F]; output [N, OH, OW, 1, F] -> [N, OW, F] (or H for W).
  Value newInput = tensor::createCanonicalRankReducingExtractSliceOp(
      rewriter, loc, input, dropUnitDims(typeOf(input), {spatial, 3}));
  Value newFilter = tensor::createCanonicalRankReducingExtractSliceOp(
      rewriter, loc, filter, dropUnitDims(typeOf(filter), {0, spatial}));
  RankedTensorType newOutputType = dropUnitDims(typeOf(output), {spatial, 3});
  Value newOutput = tensor::createCanonicalRankReducingExtractSliceOp(
      rewriter, loc, output, newOutputType);
  unsigned kept = dropHeight ? 1 : 0;
  auto conv = rewriter.create<linalg::Conv1DNwcWcfOp>(
      loc, newOutputType, ValueRange{newInput, newFilter},
      ValueRange{newOutput}, rewriter.getI64VectorAttr({window->strides[kept]}),
      rewriter.getI64VectorAttr({window->dilations[kept]}));
  Value inserted = tensor::createCanonicalRankReducingInsertSliceOp(
      rewriter, loc, conv.getResult(0), output);
  rewriter.replaceOp(target, inserted);
  results.push_back(conv);
  return DiagnosedSilenceableFailure::success();
}

#define GET_OP_CLASSES
#include "tcl/Transforms/TransformOps.cpp.inc"

namespace {
class TclTransformExtension
    : public transform::TransformDialectExtension<TclTransformExtension> {
public:
  using Base::Base;

  void init() {
    declareGeneratedDialect<linalg::LinalgDialect>();
    declareGeneratedDialect<tensor::TensorDialect>();
    registerTransformOps<
#define GET_OP_LIST
#include "tcl/Transforms/TransformOps.cpp.inc"
        >();
  }
};
} // namespace

void mlir::tcl::registerTransformDialectExtension(DialectRegistry &registry) {
  registry.addExtensions<TclTransformExtension>();
}
