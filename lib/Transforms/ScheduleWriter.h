//===- ScheduleWriter.h - Writing schedules ---------------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// What the default schedules of every target (DefaultSchedule.cpp for CPUs,
// DefaultScheduleGPU.cpp for GPUs) write schedules with. Private to
// lib/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_LIB_TRANSFORMS_SCHEDULEWRITER_H
#define TCL_LIB_TRANSFORMS_SCHEDULEWRITER_H

#include "tcl/Dialect/Tcl/IR/TclOps.h"

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Builders.h"

namespace mlir::tcl {

/// A tile size for a dimension of `extent`: `extent` itself if it is at most
/// `preferred`, else the largest multiple of `multiple` that divides it and
/// is at least half of `preferred`, else `preferred` (partial tiles are
/// padded).
inline int64_t pickTile(int64_t extent, int64_t preferred,
                        int64_t multiple = 1) {
  if (ShapedType::isDynamic(extent))
    return preferred;
  if (extent <= preferred)
    return extent;
  for (int64_t size = preferred - preferred % multiple; size * 2 >= preferred;
       size -= multiple)
    if (size > 0 && extent % size == 0)
      return size;
  return preferred;
}

/// Builds the primitives of one schedule, tracking the current extents.
class ScheduleWriter {
public:
  ScheduleWriter(OpBuilder &builder, ScheduleOp schedule)
      : b(builder), loc(schedule.getLoc()),
        extents(schedule.getExtents().begin(), schedule.getExtents().end()) {
    b.setInsertionPointToEnd(&schedule.getBody().front());
  }

  int64_t extent(unsigned dim) const { return extents[dim]; }

  /// Tiles with `sizes`; a size equal to the current extent means untiled.
  /// Returns false (and adds nothing) if nothing would be tiled.
  bool tile(SmallVector<int64_t> sizes) {
    bool any = false;
    for (auto [dim, size] : llvm::enumerate(sizes)) {
      if (size == extents[dim])
        size = 0;
      if (size != 0) {
        any = true;
        extents[dim] = size;
      }
    }
    if (any) {
      b.create<TileOp>(loc, b.getDenseI64ArrayAttr(sizes));
      ++levels;
    }
    return any;
  }
  /// Tiles with `sizes` as they are: a size equal to the current extent
  /// makes a loop of one trip (0 leaves a dimension untiled).
  void tileExactly(ArrayRef<int64_t> sizes) {
    for (auto [dim, size] : llvm::enumerate(sizes))
      if (size != 0)
        extents[dim] = size;
    b.create<TileOp>(loc, b.getDenseI64ArrayAttr(sizes));
    ++levels;
  }
  void parallelize(ParallelMapping mapping = ParallelMapping::CpuThreads) {
    b.create<ParallelizeOp>(loc, mapping);
  }
  void interchange(ArrayRef<int64_t> permutation) {
    b.create<InterchangeOp>(loc, b.getDenseI64ArrayAttr(permutation));
  }
  void pad(ArrayRef<int64_t> operands, int64_t hoist) {
    b.create<tcl::PadOp>(loc, b.getDenseI64ArrayAttr(operands),
                         b.getI64IntegerAttr(hoist));
  }
  void fuseEpilogue() { b.create<FuseEpilogueOp>(loc); }
  void decompose() { b.create<DecomposeOp>(loc); }
  void vectorize() { b.create<VectorizeOp>(loc); }
  void hoistAccumulators() { b.create<HoistAccumulatorsOp>(loc); }
  void unroll(int64_t dim, int64_t factor) {
    b.create<UnrollOp>(loc, b.getI64IntegerAttr(levels - 1),
                       b.getI64IntegerAttr(dim), b.getI64IntegerAttr(factor));
  }
  unsigned getNumLevels() const { return levels; }

private:
  OpBuilder &b;
  Location loc;
  SmallVector<int64_t> extents;
  unsigned levels = 0;
};

/// Writes the default schedule of an anchor of class `anchorClass` with
/// loops of `kinds` for a GPU target (DefaultScheduleGPU.cpp): a block
/// level and a thread level. Writes nothing where no loop is parallel.
void writeGpuDefaultSchedule(ScheduleWriter &writer, AnchorClass anchorClass,
                             ArrayRef<utils::IteratorType> kinds,
                             bool hasEpilogue);

} // namespace mlir::tcl

#endif // TCL_LIB_TRANSFORMS_SCHEDULEWRITER_H
