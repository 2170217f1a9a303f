//===- TargetAttributes.cpp - Entry points and target attributes ----------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Target/Platform.h"
#include "tcl/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMAttrs.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_PREPAREENTRYPOINTS
#define GEN_PASS_DEF_SETTARGETATTRIBUTES
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;

namespace {
struct PrepareEntryPointsPass
    : public mlir::tcl::impl::PrepareEntryPointsBase<PrepareEntryPointsPass> {
  void runOnOperation() override {
    Builder b(&getContext());
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func.isPublic() || func.isExternal())
        continue;
      func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    b.getUnitAttr());
      for (unsigned index = 0; index < func.getNumArguments(); ++index)
        if (isa<TensorType>(func.getArgument(index).getType()))
          func.setArgAttr(index,
                          bufferization::BufferizationDialect::kWritableAttrName,
                          b.getBoolAttr(false));
    }
  }
};

struct SetTargetAttributesPass
    : public mlir::tcl::impl::SetTargetAttributesBase<
          SetTargetAttributesPass> {
  using SetTargetAttributesBase::SetTargetAttributesBase;

  void runOnOperation() override {
    const tcl::Platform *platform = tcl::lookupPlatform(target);
    if (!platform || platform->kind != tcl::PlatformKind::CPU) {
      getOperation().emitError("tcl-set-target-attributes: '")
          << target << "' is not a CPU platform";
      return signalPassFailure();
    }
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    std::string width = std::to_string(platform->vectorBits);
    // The X86 backend otherwise picks the vector width from the CPU name
    // (256 bits on many AVX-512 parts), which halves FMA throughput.
    ArrayAttr passthrough = b.getArrayAttr(
        {b.getStrArrayAttr({"prefer-vector-width", width}),
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
