//===- VectorPieces.h - Power-of-two pieces of a vector tile ----*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// A tile whose vector dimension is not a power of two is vectorized in
// power-of-two pieces (SplitVectorRemaindersOp splits it so); the default
// schedules count its cost in those pieces. One definition for both. And
// how much of a fused epilogue's tile is vectorized at once.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_LIB_TRANSFORMS_VECTORPIECES_H
#define TCL_LIB_TRANSFORMS_VECTORPIECES_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

#include <cstdint>

namespace mlir::tcl {

/// The power-of-two extents that `extent` lanes split into, largest first
/// (24 = 16 + 8, 56 = 32 + 16 + 8): one piece where `extent` is a power
/// of two, none for 0.
inline llvm::SmallVector<int64_t> getVectorPieces(int64_t extent) {
  llvm::SmallVector<int64_t> pieces;
  for (int64_t piece = llvm::PowerOf2Ceil(extent); piece >= 1; piece /= 2)
    if (extent & piece)
      pieces.push_back(piece);
  return pieces;
}

/// Elements of a fused epilogue tile vectorized at once: a larger tile is a
/// loop over slabs of a few dozen vectors, whose straight-line code stays
/// small (slabs of 4096 elements ran MobileNetV2's expansion convolutions
/// 20% slower than slabs of 512).
inline constexpr int64_t kFusedSlabVolume = 1 << 9;

/// The innermost part of a tile of shape `shape` that is vectorized at once:
/// its innermost dimensions whole while they hold at most kFusedSlabVolume
/// elements, the next one by its largest divisor that still fits, the
/// others by 1.
inline llvm::SmallVector<int64_t> getVectorSlab(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t> slab(shape.size(), 1);
  int64_t volume = 1;
  for (int64_t dim = shape.size() - 1; dim >= 0; --dim) {
    int64_t size = shape[dim];
    while (volume * size > kFusedSlabVolume || shape[dim] % size != 0)
      --size;
    slab[dim] = size;
    volume *= size;
    if (size != shape[dim])
      break;
  }
  return slab;
}

} // namespace mlir::tcl

#endif // TCL_LIB_TRANSFORMS_VECTORPIECES_H
