//===- TargetAttributes.cpp - Entry points and target attributes ----------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Support/Buffer.h"
#include "tcl/Target/Platform.h"
#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMAttrs.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_PREPAREENTRYPOINTS
#define GEN_PASS_DEF_SETTARGETATTRIBUTES
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;

namespace {
struct PrepareEntryPointsPass
    : public mlir::tcl::impl::PrepareEntryPointsBase<PrepareEntryPointsPass> {
  /// A result that is an input (Identity) still gets its own out-parameter:
  /// return a copy. (MLIR 19's buffer-results-to-out-params also crashes on
  /// a returned block argument.)
  static void copyReturnedArguments(func::FuncOp func) {
    func.walk([](func::ReturnOp ret) {
      OpBuilder b(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        auto type = dyn_cast<RankedTensorType>(operand.get().getType());
        if (!type || !isa<BlockArgument>(operand.get()))
          continue;
        Value empty = b.create<tensor::EmptyOp>(ret.getLoc(), type.getShape(),
                                                type.getElementType());
        operand.set(b.create<linalg::CopyOp>(ret.getLoc(), operand.get(), empty)
                        .getResult(0));
      }
    });
  }

  void runOnOperation() override {
    Builder b(&getContext());
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func.isPublic() || func.isExternal())
        continue;
      func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    b.getUnitAttr());
      for (unsigned index = 0; index < func.getNumArguments(); ++index)
        if (isa<TensorType>(func.getArgument(index).getType()))
          func.setArgAttr(
              index, bufferization::BufferizationDialect::kWritableAttrName,
              b.getBoolAttr(false));
      copyReturnedArguments(func);
      // Names and boundary element types of ONNX inputs and outputs served
      // the C API and the library's signature; they mean nothing to LLVM.
      for (llvm::StringRef name :
           {llvm::StringRef("tcl.name"),
            llvm::StringRef(tcl::kElementTypeAttrName)}) {
        for (unsigned index = 0; index < func.getNumArguments(); ++index)
          func.removeArgAttr(index, b.getStringAttr(name));
        for (unsigned index = 0; index < func.getNumResults(); ++index)
          func.removeResultAttr(index, b.getStringAttr(name));
      }
    }
  }
};

struct SetTargetAttributesPass
    : public mlir::tcl::impl::SetTargetAttributesBase<SetTargetAttributesPass> {
  using SetTargetAttributesBase::SetTargetAttributesBase;

  void runOnOperation() override {
    const tcl::TargetArch *platform = tcl::lookupTargetArch(target);
    if (!platform || platform->kind != tcl::TargetKind::CPU) {
      getOperation().emitError("tcl-set-target-attributes: '")
          << target << "' is not a CPU platform";
      return signalPassFailure();
    }
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    std::string width = std::to_string(platform->vectorBits);
    // The X86 backend otherwise picks the vector width from the CPU name
    // (256 bits on many AVX-512 parts), which halves FMA throughput.
    ArrayAttr passthrough =
        b.getArrayAttr({b.getStrArrayAttr({"prefer-vector-width", width}),
                        b.getStrArrayAttr({"min-legal-vector-width", width})});
    for (auto func : getOperation().getOps<LLVM::LLVMFuncOp>()) {
      if (func.isExternal())
        continue;
      func.setTargetCpuAttr(b.getStringAttr(platform->cpu));
      if (!platform->features.empty())
        func.setTargetFeaturesAttr(
            LLVM::TargetFeaturesAttr::get(ctx, platform->features));
      func.setPassthroughAttr(passthrough);
    }
  }
};
} // namespace
