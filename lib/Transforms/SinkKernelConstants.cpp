//===- SinkKernelConstants.cpp - Constants into vectorized kernels --------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_SINKKERNELCONSTANTS
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;

namespace {
bool isConstantOrDim(Operation *op) {
  return matchPattern(op, m_Constant()) || isa<memref::DimOp>(op);
}

struct SinkKernelConstants
    : public tcl::impl::SinkKernelConstantsBase<SinkKernelConstants> {
  void runOnOperation() override {
    getOperation().walk([&](gpu::LaunchOp launch) {
      bool vectorized =
          launch.getBody()
              .walk([](Operation *op) {
                return isa<vector::VectorDialect>(op->getDialect())
                           ? WalkResult::interrupt()
                           : WalkResult::advance();
              })
              .wasInterrupted();
      if (vectorized &&
          failed(sinkOperationsIntoLaunchOp(launch, isConstantOrDim)))
        signalPassFailure();
    });
  }
};
} // namespace
