//===- PaddedSlices.h - Slices of a padded tensor ---------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The ops that skip work on a convolution's padding (SkipZeroBorderTapsOp on
// a tile's kernel-window loops, SkipZeroBorderProductsOp on its vector
// contractions) both trace what a tile reads back to the tensor.pad it is
// a slice of, and where along a dimension. One definition for both.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_LIB_TRANSFORMS_PADDEDSLICES_H
#define TCL_LIB_TRANSFORMS_PADDEDSLICES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallBitVector.h"

namespace mlir::tcl {

/// The tensor.pad with a constant padding value that `value` is a chain of
/// unit-stride slices of (rank-reducing ones too); `dim`, a dimension of
/// `value`, becomes the padded tensor's dimension it runs along, and the
/// slices' offsets along it are appended to `offsets`. Null where the
/// chain has another slice or does not end at such a pad.
inline tensor::PadOp getPaddedSource(Value value, unsigned &dim,
                                     SmallVectorImpl<OpFoldResult> &offsets) {
  while (auto slice = value.getDefiningOp<tensor::ExtractSliceOp>()) {
    if (!slice.hasUnitStride())
      return {};
    // The dim-th of the source's dimensions that the slice keeps.
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    unsigned kept = 0, source = 0;
    for (; source < dropped.size(); ++source)
      if (!dropped[source] && kept++ == dim)
        break;
    if (source == dropped.size())
      return {};
    dim = source;
    offsets.push_back(slice.getMixedOffsets()[dim]);
    value = slice.getSource();
  }
  auto pad = value.getDefiningOp<tensor::PadOp>();
  return pad && pad.getConstantPaddingValue() ? pad : tensor::PadOp();
}

/// Whether `value` is a constant zero, float or integer: a padding whose
/// products add nothing.
inline bool isZeroConstant(Value value) {
  return matchPattern(value, m_AnyZeroFloat()) || matchPattern(value, m_Zero());
}

/// The output columns of a window op that read its input's padding on the
/// left, those whose windows lie inside the input, and those on the right.
struct PaddedSideColumns {
  int64_t left, middle, right;
};

/// Those of `op`, an NHWC window op (loops `columnDim` over its `columns`
/// output columns, `windowDim` over its `kernelColumns` kernel columns)
/// whose input is a tensor.pad of static sizes, padded along W. None where
/// its input is no such pad.
std::optional<PaddedSideColumns> getPaddedSideColumns(linalg::LinalgOp op,
                                                      unsigned columnDim,
                                                      unsigned windowDim,
                                                      int64_t columns,
                                                      int64_t kernelColumns);

} // namespace mlir::tcl

#endif // TCL_LIB_TRANSFORMS_PADDEDSLICES_H
