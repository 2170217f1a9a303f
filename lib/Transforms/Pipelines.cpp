//===- Pipelines.cpp - tcl's lowering pipelines ---------------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Transforms/Pipelines.h"
#include "tcl/Target/Platform.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tcl;

std::string mlir::tcl::getLowerToLLVMPipeline(const LoweringOptions &options) {
  std::string parallelLoops =
      options.numThreads > 1
          ? llvm::formatv("convert-scf-to-openmp{{num-threads={0}},",
                          options.numThreads)
                .str()
          : std::string();
  return llvm::formatv(
             // Schedules, then tensor-level cleanup.
             "tcl-apply-schedule,canonicalize,cse,"
             // Bufferization: results become out-params so callers own all
             // buffers; the deallocation pipeline frees every temporary.
             "one-shot-bufferize{{bufferize-function-boundaries "
             "function-boundary-type-conversion=identity-layout-map},"
             "drop-equivalent-buffer-results,"
             "buffer-results-to-out-params{{hoist-static-allocs},"
             "func.func(buffer-hoisting,buffer-loop-hoisting),"
             "buffer-deallocation-pipeline,canonicalize,"
             // Loops: leftover linalg ops, parallel loops.
             "func.func(convert-linalg-to-loops),"
             "scf-forall-to-parallel,{0}"
             // Vectors: contractions to FMAs, transfers to loads/stores.
             "func.func(tcl-lower-vector,"
             "convert-vector-to-scf{{full-unroll lower-tensors},"
             "tcl-lower-vector),"
             "lower-affine,convert-scf-to-cf,canonicalize,cse,"
             // To the LLVM dialect.
             "tcl-emit-c-interface,"
             "convert-vector-to-llvm{{reassociate-fp-reductions},"
             "func.func(convert-math-to-llvm),"
             "expand-strided-metadata,lower-affine,"
             "finalize-memref-to-llvm,convert-func-to-llvm,"
             "convert-arith-to-llvm,convert-cf-to-llvm,convert-index-to-llvm,"
             "convert-openmp-to-llvm,reconcile-unrealized-casts,"
             "tcl-set-target-attributes{{target={1}}",
             parallelLoops, options.target)
      .str();
}

LogicalResult mlir::tcl::buildLowerToLLVMPipeline(OpPassManager &pm,
                                                  const LoweringOptions &options) {
  const Platform *platform = lookupPlatform(options.target);
  if (!platform || platform->kind != PlatformKind::CPU)
    return failure();
  return parsePassPipeline(getLowerToLLVMPipeline(options), pm, llvm::errs());
}

namespace {
struct LowerToLLVMPipelineOptions
    : public PassPipelineOptions<LowerToLLVMPipelineOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("Named CPU platform"),
                             llvm::cl::init("x86-avx512")};
  Option<unsigned> numThreads{*this, "num-threads",
                              llvm::cl::desc("Threads of parallel loops"),
                              llvm::cl::init(1)};
};
} // namespace

void mlir::tcl::registerTclPipelines() {
  PassPipelineRegistration<LowerToLLVMPipelineOptions>(
      "tcl-lower-to-llvm",
      "Lowers scheduled linalg on tensors to the LLVM dialect for x86",
      [](OpPassManager &pm, const LowerToLLVMPipelineOptions &options) {
        // An unknown target is reported by tcl-set-target-attributes when
        // the pipeline runs.
        LoweringOptions lowering{options.target, options.numThreads};
        (void)parsePassPipeline(getLowerToLLVMPipeline(lowering), pm);
      });
}
