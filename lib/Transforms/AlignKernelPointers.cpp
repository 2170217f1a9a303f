//===- AlignKernelPointers.cpp - Kernel buffers' alignment for LLVM -------===//
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
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_ALIGNKERNELPOINTERS
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;
using namespace mlir::tcl;

namespace {
/// cuMemAlloc's alignment of every allocation.
constexpr int64_t kDeviceAllocationAlignment = 256;
/// Shared memory's: that of a 128-bit load.
constexpr int64_t kSharedMemoryAlignment = 16;
/// NVPTX's address space of shared memory.
constexpr unsigned kSharedAddressSpace = 3;

struct AlignKernelPointers
    : public tcl::impl::AlignKernelPointersBase<AlignKernelPointers> {
  void runOnOperation() override {
    Builder builder(&getContext());
    auto alignment = builder.getI64IntegerAttr(kDeviceAllocationAlignment);
    for (auto kernel : getOperation().getOps<LLVM::LLVMFuncOp>()) {
      if (!kernel->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
        continue;
      for (auto [index, type] :
           llvm::enumerate(kernel.getFunctionType().getParams()))
        if (isa<LLVM::LLVMPointerType>(type))
          kernel.setArgAttr(index, LLVM::LLVMDialect::getAlignAttrName(),
                            alignment);
    }
    for (auto global : getOperation().getOps<LLVM::GlobalOp>())
      if (global.getAddrSpace() == kSharedAddressSpace &&
          global.getAlignment().value_or(0) < kSharedMemoryAlignment)
        global.setAlignment(kSharedMemoryAlignment);
  }
};
} // namespace
