//===- GroupedConv.h - Grouped convolutions as linalg.generic ---*- C++ -*-===//
//-*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// MLIR 19's linalg has no channels-last grouped convolution, so tcl writes
// one as a linalg.generic of a fixed form: the ONNX importer builds it, and
// the schedule machinery recognizes it as an anchor of its own (a 2-D
// convolution with an extra parallel group loop). Header-only, so that both
// layers share the one definition without depending on each other.
//
//   loops   (n, oh, ow, g, f, kh, kw, c): 5 parallel, 3 reduction
//   input   [N, H, W, G, C]   (n, oh * sh + kh * dh, ow * sw + kw * dw, g, c)
//   filter  [G, KH, KW, C, F] (g, kh, kw, c, f)
//   output  [N, OH, OW, G, F] (n, oh, ow, g, f)
//   body    out += in * filter (f32)
//
// With the group loop tiled to 1 this is linalg.conv_2d_nhwc_hwcf; with
// the group and one (output, kernel) window pair tiled to 1, it is
// linalg.conv_1d_nwc_wcf, which MLIR vectorizes.
//
// The same form with an input of no group dimension, [N, H, W, C] read by
// every group, is an ordinary convolution whose filter is stored in blocks
// of F output channels ("filter-blocked"): tcl-block-convolution-filters
// packs a constant filter so at compile time, and each block's weights are
// then contiguous (F floats a row) instead of rows of all the output
// channels apart.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_SUPPORT_GROUPEDCONV_H
#define TCL_SUPPORT_GROUPEDCONV_H

#include "tcl/Support/MultiplyAccumulate.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"

#include <array>
#include <optional>

namespace mlir::tcl {

/// The loops of a grouped 2-D convolution, in order.
enum GroupedConvDim : unsigned {
  kGroupedN = 0,
  kGroupedOH,
  kGroupedOW,
  kGroupedG,
  kGroupedF,
  kGroupedKH,
  kGroupedKW,
  kGroupedC,
  kNumGroupedConvDims
};

/// The name under which schedules, tasks and reports know the form.
inline constexpr llvm::StringLiteral kGroupedConvAnchorName =
    "linalg.generic.conv_2d_nhwgc_ghwcf";
/// The name of the filter-blocked form (an input without groups).
inline constexpr llvm::StringLiteral kFilterBlockedConvAnchorName =
    "linalg.generic.conv_2d_nhwc_ghwcf";

/// Strides and dilations (H, W) of a grouped 2-D convolution, and whether
/// its input has no group dimension (the filter-blocked form).
struct GroupedConvWindow {
  std::array<int64_t, 2> strides = {1, 1}, dilations = {1, 1};
  bool sharedInput = false;
  bool operator==(const GroupedConvWindow &other) const {
    return strides == other.strides && dilations == other.dilations &&
           sharedInput == other.sharedInput;
  }
};

/// Input dimensions (of NHWGC, or NHWC when the input is shared) that a
/// convolution within one group and one output row or column drops.
inline SmallVector<unsigned, 2>
getGroupedConvInputDropDims(const GroupedConvWindow &window,
                            unsigned spatialDim) {
  if (window.sharedInput)
    return {spatialDim};
  return {spatialDim, 3};
}

/// The indexing maps (input, filter, output) of the form.
inline SmallVector<AffineMap, 3>
getGroupedConvMaps(MLIRContext *ctx, const GroupedConvWindow &window) {
  auto d = [&](unsigned dim) { return getAffineDimExpr(dim, ctx); };
  AffineExpr ih =
      d(kGroupedOH) * window.strides[0] + d(kGroupedKH) * window.dilations[0];
  AffineExpr iw =
      d(kGroupedOW) * window.strides[1] + d(kGroupedKW) * window.dilations[1];
  auto map = [&](ArrayRef<AffineExpr> results) {
    return AffineMap::get(kNumGroupedConvDims, 0, results, ctx);
  };
  AffineMap input =
      window.sharedInput
          ? map({d(kGroupedN), ih, iw, d(kGroupedC)})
          : map({d(kGroupedN), ih, iw, d(kGroupedG), d(kGroupedC)});
  return {input,
          map({d(kGroupedG), d(kGroupedKH), d(kGroupedKW), d(kGroupedC),
               d(kGroupedF)}),
          map({d(kGroupedN), d(kGroupedOH), d(kGroupedOW), d(kGroupedG),
               d(kGroupedF)})};
}

/// Builds the form: `init` ([N, OH, OW, G, F], usually zeros) plus the
/// grouped convolution of `input` ([N, H, W, G, C], padded; [N, H, W, C]
/// with `window.sharedInput`) by `filter` ([G, KH, KW, C, F]).
inline Value buildGroupedConv(OpBuilder &b, Location loc, Value input,
                              Value filter, Value init,
                              const GroupedConvWindow &window) {
  using utils::IteratorType;
  SmallVector<IteratorType> iterators(kNumGroupedConvDims,
                                      IteratorType::parallel);
  for (unsigned dim : {kGroupedKH, kGroupedKW, kGroupedC})
    iterators[dim] = IteratorType::reduction;
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{init.getType()}, ValueRange{input, filter},
          ValueRange{init}, getGroupedConvMaps(b.getContext(), window),
          iterators,
          [](OpBuilder &nested, Location bodyLoc, ValueRange args) {
            buildMultiplyAccumulate(nested, bodyLoc, args);
          })
      .getResult(0);
}

/// The window of `op` if it is the form, grouped or filter-blocked (on
/// tensors or buffers of f32, any shapes), else nullopt.
inline std::optional<GroupedConvWindow> matchGroupedConv(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 2 ||
      generic.getNumDpsInits() != 1 ||
      generic.getNumLoops() != kNumGroupedConvDims)
    return std::nullopt;
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  if (maps[0].getNumResults() != 5 && maps[0].getNumResults() != 4)
    return std::nullopt;
  // The strides and dilations are the coefficients of the window loops in
  // the input's H and W: read them off, then compare everything.
  GroupedConvWindow window;
  window.sharedInput = maps[0].getNumResults() == 4;
  for (unsigned i = 0; i < 2; ++i) {
    AffineExpr expr = maps[0].getResult(1 + i);
    auto coefficient = [&](unsigned dim) -> int64_t {
      SmallVector<AffineExpr> point(kNumGroupedConvDims,
                                    getAffineConstantExpr(0, op->getContext()));
      point[dim] = getAffineConstantExpr(1, op->getContext());
      auto value = dyn_cast<AffineConstantExpr>(expr.replaceDims(point));
      return value ? value.getValue() : 0;
    };
    window.strides[i] = coefficient(i == 0 ? kGroupedOH : kGroupedOW);
    window.dilations[i] = coefficient(i == 0 ? kGroupedKH : kGroupedKW);
  }
  if (maps != ArrayRef(getGroupedConvMaps(op->getContext(), window)))
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = generic.getIteratorTypesArray();
  for (unsigned dim = 0; dim < kNumGroupedConvDims; ++dim)
    if ((iterators[dim] == utils::IteratorType::reduction) !=
        (dim == kGroupedKH || dim == kGroupedKW || dim == kGroupedC))
      return std::nullopt;
  // out + in * filter, in f32.
  if (!isMultiplyAccumulate(generic))
    return std::nullopt;
  return window;
}

} // namespace mlir::tcl

#endif // TCL_SUPPORT_GROUPEDCONV_H
