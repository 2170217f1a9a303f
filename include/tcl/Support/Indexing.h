//===- Indexing.h - Row-major index arithmetic ------------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Compile-time evaluation walks tensors element by element: the importer's
// evaluation of shape computations and tcl-fold-constants. Header-only, so
// that both libraries share it without depending on each other.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_SUPPORT_INDEXING_H
#define TCL_SUPPORT_INDEXING_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace mlir::tcl {

/// Row-major strides of `shape` (in elements).
inline llvm::SmallVector<int64_t>
rowMajorStrides(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t> strides(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Calls `fn` with every index of `shape`, in row-major order (not at all
/// for an empty shape with a zero extent).
inline void forEachIndex(llvm::ArrayRef<int64_t> shape,
                         llvm::function_ref<void(llvm::ArrayRef<int64_t>)> fn) {
  if (llvm::is_contained(shape, 0))
    return;
  llvm::SmallVector<int64_t> index(shape.size(), 0);
  while (true) {
    fn(index);
    int d = static_cast<int>(shape.size()) - 1;
    for (; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
    if (d < 0)
      return;
  }
}

} // namespace mlir::tcl

#endif // TCL_SUPPORT_INDEXING_H
