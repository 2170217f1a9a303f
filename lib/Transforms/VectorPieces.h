//===- VectorPieces.h - Power-of-two pieces of a vector tile ----*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// A tile whose vector dimension is not a power of two is vectorized in
// power-of-two pieces (SplitVectorRemaindersOp splits it so); the default
// schedules count its cost in those pieces. One definition for both.
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

} // namespace mlir::tcl

#endif // TCL_LIB_TRANSFORMS_VECTORPIECES_H
