//===- GpuHostMemory.cpp - The host's buffers of a GPU module -> device ---===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Kernels read and write device memory; the code around them must hand
// them device buffers. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tcl/Dialect/Tcl/IR/TclOps.h"
#include "tcl/Transforms/Passes.h"

#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_GPUHOSTMEMORY
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;
using namespace mlir::tcl;

/// Whether a kernel may write the buffer `value` (or a view of it): an
/// operation that is not known to only read it counts as a write.
static bool isWrittenInKernels(Value value) {
  SmallVector<Value> worklist = {value};
  while (!worklist.empty()) {
    Value buffer = worklist.pop_back_val();
    for (OpOperand &use : buffer.getUses()) {
      Operation *user = use.getOwner();
      if (isa<ViewLikeOpInterface, memref::CastOp, memref::CollapseShapeOp,
              memref::ExpandShapeOp, memref::ReinterpretCastOp>(user)) {
        llvm::append_range(worklist, user->getResults());
        continue;
      }
      // Outside kernels, only the copies in and out use the buffer.
      if (!user->getParentOfType<gpu::LaunchOp>())
        continue;
      if (isa<memref::LoadOp, memref::DimOp, memref::ExtractStridedMetadataOp,
              memref::DeallocOp, gpu::DeallocOp>(user))
        continue;
      if (auto dps = dyn_cast<DestinationStyleOpInterface>(user)) {
        if (dps.isDpsInit(&use))
          return true;
        continue;
      }
      if (auto memcpy = dyn_cast<gpu::MemcpyOp>(user)) {
        if (memcpy.getDst() == buffer)
          return true;
        continue;
      }
      if (auto effects = dyn_cast<MemoryEffectOpInterface>(user)) {
        if (effects.getEffectOnValue<MemoryEffects::Write>(buffer))
          return true;
        continue;
      }
      return true;
    }
  }
  return false;
}

/// Whether code outside kernels reads or writes the memory of `value` (a
/// view only takes its address).
static Operation *findHostAccess(Value value) {
  SmallVector<Value> worklist = {value};
  while (!worklist.empty()) {
    Value buffer = worklist.pop_back_val();
    for (Operation *user : buffer.getUsers()) {
      if (user->getParentOfType<gpu::LaunchOp>())
        continue;
      if (isa<ViewLikeOpInterface, memref::CastOp, memref::CollapseShapeOp,
              memref::ExpandShapeOp, memref::ReinterpretCastOp>(user)) {
        llvm::append_range(worklist, user->getResults());
        continue;
      }
      if (isa<memref::DimOp, memref::ExtractStridedMetadataOp,
              memref::DeallocOp, gpu::DeallocOp, gpu::MemcpyOp, func::CallOp,
              func::ReturnOp>(user))
        continue;
      return user;
    }
  }
  return nullptr;
}

namespace {
struct GpuHostMemoryPass
    : public tcl::impl::GpuHostMemoryBase<GpuHostMemoryPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>()))
      if (!func.isExternal() && failed(moveToDevice(func)))
        return signalPassFailure();
  }

  LogicalResult moveToDevice(func::FuncOp func) {
    OpBuilder b(func.getContext());
    Block &entry = func.getBody().front();
    // Buffers the function gets (a public function's: the caller's, on the
    // host) and the constants it reads: device copies for the kernels,
    // freed (and the written ones copied back) at every return.
    SmallVector<std::pair<Value, Value>> copies; // (host, device)
    auto copyToDevice = [&](Value host, Location loc) -> Value {
      auto type = cast<MemRefType>(host.getType());
      auto device =
          b.create<gpu::AllocOp>(loc, type, /*asyncToken=*/Type(), ValueRange(),
                                 ValueRange(), ValueRange());
      Value copy = device.getMemref();
      host.replaceAllUsesExcept(copy, device);
      b.create<gpu::MemcpyOp>(loc, TypeRange(), ValueRange(), copy, host);
      copies.push_back({host, copy});
      return copy;
    };
    b.setInsertionPointToStart(&entry);
    if (func.isPublic())
      for (BlockArgument arg : entry.getArguments())
        if (auto type = dyn_cast<MemRefType>(arg.getType())) {
          if (!type.getLayout().isIdentity())
            return func.emitError("argument ")
                   << arg.getArgNumber() << " of " << func.getName()
                   << " has a strided layout; GPU code copies only "
                      "contiguous buffers to the device";
          copyToDevice(arg, func.getLoc());
        }
    SmallVector<memref::GetGlobalOp> globals;
    SmallVector<memref::AllocOp> allocs;
    SmallVector<memref::DeallocOp> deallocs;
    func.walk([&](Operation *op) {
      if (op->getParentOfType<gpu::LaunchOp>())
        return;
      if (auto global = dyn_cast<memref::GetGlobalOp>(op))
        globals.push_back(global);
      else if (auto alloc = dyn_cast<memref::AllocOp>(op))
        allocs.push_back(alloc);
      else if (auto dealloc = dyn_cast<memref::DeallocOp>(op))
        deallocs.push_back(dealloc);
    });
    for (memref::GetGlobalOp global : globals) {
      b.setInsertionPointAfter(global);
      copyToDevice(global.getResult(), global.getLoc());
    }
    // The host's temporaries become device buffers.
    for (memref::AllocOp alloc : allocs) {
      b.setInsertionPoint(alloc);
      auto device = b.create<gpu::AllocOp>(
          alloc.getLoc(), alloc.getType(), /*asyncToken=*/Type(), ValueRange(),
          alloc.getDynamicSizes(), alloc.getSymbolOperands());
      alloc.replaceAllUsesWith(device.getMemref());
      alloc.erase();
    }
    for (memref::DeallocOp dealloc : deallocs) {
      b.setInsertionPoint(dealloc);
      b.create<gpu::DeallocOp>(dealloc.getLoc(), TypeRange(), ValueRange(),
                               dealloc.getMemref());
      dealloc.erase();
    }
    for (auto [host, device] : copies)
      if (Operation *access = findHostAccess(device))
        return access->emitError()
               << "'" << access->getName()
               << "' would access device memory on the host: it is in no "
                  "GPU kernel";
    // Written buffers go back to the caller; every copy is freed.
    func.walk([&](func::ReturnOp ret) {
      b.setInsertionPoint(ret);
      for (auto [host, device] : copies) {
        if (isa<BlockArgument>(host) && isWrittenInKernels(device))
          b.create<gpu::MemcpyOp>(ret.getLoc(), TypeRange(), ValueRange(), host,
                                  device);
        b.create<gpu::DeallocOp>(ret.getLoc(), TypeRange(), ValueRange(),
                                 device);
      }
    });
    return success();
  }
};
} // namespace
