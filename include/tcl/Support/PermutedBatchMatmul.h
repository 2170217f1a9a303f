//===- PermutedBatchMatmul.h - Batch matmuls in any layout ------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// linalg.batch_matmul reads [B, M, K] x [B, K, N] into [B, M, N]. Attention
// keeps its heads in the middle ([S, H, D]) and transposes them out to the
// batch before each batch matmul and back after it: copies of every query,
// value and output. tcl writes the batch matmul that reads and writes those
// layouts in place as a linalg.generic of a fixed form, which the schedule
// machinery knows as an anchor of its own, scheduled like linalg.batch_matmul
// (its loops are the same).
//
//   loops   (b, m, n, k): 3 parallel, 1 reduction
//   lhs     a permutation of (b, m, k)
//   rhs     a permutation of (b, k, n)
//   result  a permutation of (b, m, n)
//   body    out += lhs * rhs (f32)
//
// Header-only, so that the layers that build it and those that schedule it
// share one definition (like tcl/Support/GroupedConv.h).
//
//===----------------------------------------------------------------------===//

#ifndef TCL_SUPPORT_PERMUTEDBATCHMATMUL_H
#define TCL_SUPPORT_PERMUTEDBATCHMATMUL_H

#include "tcl/Support/MultiplyAccumulate.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"

#include <array>
#include <optional>

namespace mlir::tcl {

/// The loops of a batch matmul, in linalg.batch_matmul's order.
enum BatchMatmulDim : unsigned {
  kBatchMatmulB = 0,
  kBatchMatmulM,
  kBatchMatmulN,
  kBatchMatmulK,
  kNumBatchMatmulDims
};

/// The name under which schedules, tasks and reports know the form.
inline constexpr llvm::StringLiteral kPermutedBatchMatmulAnchorName =
    "linalg.generic.batch_matmul";

/// The loop each operand dimension iterates, in the operand's order.
struct BatchMatmulLayout {
  std::array<unsigned, 3> lhs = {kBatchMatmulB, kBatchMatmulM, kBatchMatmulK};
  std::array<unsigned, 3> rhs = {kBatchMatmulB, kBatchMatmulK, kBatchMatmulN};
  std::array<unsigned, 3> result = {kBatchMatmulB, kBatchMatmulM,
                                    kBatchMatmulN};
  bool operator==(const BatchMatmulLayout &other) const {
    return lhs == other.lhs && rhs == other.rhs && result == other.result;
  }
  /// Whether this is linalg.batch_matmul's own layout.
  bool isNamed() const { return *this == BatchMatmulLayout(); }
};

/// The indexing maps (lhs, rhs, result) of the form.
inline SmallVector<AffineMap, 3>
getBatchMatmulMaps(MLIRContext *ctx, const BatchMatmulLayout &layout) {
  auto map = [&](ArrayRef<unsigned> dims) {
    SmallVector<AffineExpr, 3> results;
    for (unsigned dim : dims)
      results.push_back(getAffineDimExpr(dim, ctx));
    return AffineMap::get(kNumBatchMatmulDims, 0, results, ctx);
  };
  return {map(layout.lhs), map(layout.rhs), map(layout.result)};
}

/// `init` plus the batch matmul of `lhs` by `rhs` in `layout`: a
/// linalg.batch_matmul for its own layout, else the form.
inline Value buildBatchMatmul(OpBuilder &b, Location loc, Value lhs,
                              Value rhs, Value init,
                              const BatchMatmulLayout &layout) {
  if (layout.isNamed())
    return b
        .create<linalg::BatchMatmulOp>(loc, TypeRange{init.getType()},
                                       ValueRange{lhs, rhs}, ValueRange{init})
        .getResult(0);
  SmallVector<utils::IteratorType> iterators(kNumBatchMatmulDims,
                                             utils::IteratorType::parallel);
  iterators[kBatchMatmulK] = utils::IteratorType::reduction;
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{init.getType()}, ValueRange{lhs, rhs},
          ValueRange{init}, getBatchMatmulMaps(b.getContext(), layout),
          iterators,
          [](OpBuilder &nested, Location bodyLoc, ValueRange args) {
            buildMultiplyAccumulate(nested, bodyLoc, args);
          })
      .getResult(0);
}

/// The layout of `op` if it is the form (a linalg.generic, on tensors or
/// buffers of f32, any shapes), else nullopt.
inline std::optional<BatchMatmulLayout>
matchPermutedBatchMatmul(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 2 ||
      generic.getNumDpsInits() != 1 ||
      generic.getNumLoops() != kNumBatchMatmulDims)
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = generic.getIteratorTypesArray();
  for (unsigned dim = 0; dim < kNumBatchMatmulDims; ++dim)
    if ((iterators[dim] == utils::IteratorType::reduction) !=
        (dim == kBatchMatmulK))
      return std::nullopt;
  // Each map a permutation of its operand's three loops.
  auto readDims = [](AffineMap map, unsigned missing,
                     std::array<unsigned, 3> &dims) {
    if (!map.isProjectedPermutation() || map.getNumResults() != 3)
      return false;
    for (unsigned i = 0; i < 3; ++i) {
      dims[i] = cast<AffineDimExpr>(map.getResult(i)).getPosition();
      if (dims[i] == missing)
        return false;
    }
    return true;
  };
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  BatchMatmulLayout layout;
  if (!readDims(maps[0], kBatchMatmulN, layout.lhs) ||
      !readDims(maps[1], kBatchMatmulM, layout.rhs) ||
      !readDims(maps[2], kBatchMatmulK, layout.result) ||
      !isMultiplyAccumulate(generic))
    return std::nullopt;
  return layout;
}

} // namespace mlir::tcl

#endif // TCL_SUPPORT_PERMUTEDBATCHMATMUL_H
