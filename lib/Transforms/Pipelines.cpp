//===- Pipelines.cpp - tcl's lowering pipelines ---------------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Transforms/Pipelines.h"
#include "tcl/Target/GpuCodegen.h"
#include "tcl/Target/Platform.h"
#include "tcl/Transforms/DefaultSchedule.h"
#include "tcl/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::tcl;

static bool convertAllFunctions(func::FuncOp *) { return true; }

/// Tasks, schedules (defaults for the ops that have none), then tensor
/// cleanup.
static void addScheduling(OpPassManager &pm, const LoweringOptions &options) {
  if (options.extractTasks)
    pm.addPass(createExtractTasks());
  if (options.defaultSchedules) {
    DefaultSchedulesOptions defaults;
    defaults.target = options.platform.getTargetName().str();
    defaults.numThreads = options.platform.getThreads();
    pm.addPass(createDefaultSchedules(defaults));
  }
  // A fill of its own for each anchor, so that a parallel tile level fuses
  // it (a shared fill is fused into no anchor's loops).
  pm.addPass(createUnshareFills());
  pm.addPass(createApplySchedule());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createFoldHoistedTileWrites());
  pm.addPass(createPrepareEntryPoints());
}

/// The conversions of memrefs, functions, arithmetic, branches and indices
/// to the LLVM dialect, which every pipeline's (host) code needs.
static void addCoreToLLVM(OpPassManager &pm) {
  // Temporaries are allocated through _mlir_memref_to_llvm_alloc/free, which
  // tcl provides (TemporaryCache.c): freed blocks are kept for the next run.
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertIndexToLLVMPass());
}

/// Bufferization, without deallocation. Results become out-params, so
/// callers own every buffer they see; the deallocation pipeline that follows
/// frees every temporary.
static void addBufferization(OpPassManager &pm) {
  // Again, after the last CSE, which merged the fills that no loop took.
  pm.addPass(createUnshareFills());
  // Copies become linalg.copy and then loops: memref.copy of strided views
  // would call memrefCopy from MLIR's runner library, a dependency compiled
  // kernels must not have.
  auto copyWithLinalg = [](OpBuilder &b, Location loc, Value from,
                           Value to) -> LogicalResult {
    b.create<linalg::CopyOp>(loc, from, to);
    return success();
  };
  bufferization::OneShotBufferizationOptions bufferization;
  bufferization.memCpyFn = copyWithLinalg;
  bufferization.bufferizeFunctionBoundaries = true;
  bufferization.setFunctionBoundaryTypeConversion(
      bufferization::LayoutMapOption::IdentityLayoutMap);
  pm.addPass(createWriteIntoConsumers());
  pm.addPass(bufferization::createOneShotBufferizePass(bufferization));
  // Loops carry their output buffer as an iteration argument they yield
  // unchanged; folding those lets a function return the buffer it
  // allocated, which the next pass then makes the caller's out-param
  // instead of copying it there (a whole extra pass over every output).
  pm.addPass(createCanonicalizerPass());
  // (No drop-equivalent-buffer-results: a result that is an input, as in
  // Identity, must still be an out-parameter, or the ABI would depend on
  // what the function computes.)
  // (filterFn must be set: its default is a function_ref to a temporary.)
  bufferization::BufferResultsToOutParamsOpts outParams;
  outParams.filterFn = convertAllFunctions;
  outParams.hoistStaticAllocs = true;
  outParams.memCpyFn = copyWithLinalg;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  pm.addNestedPass<func::FuncOp>(bufferization::createBufferHoistingPass());
  pm.addNestedPass<func::FuncOp>(bufferization::createBufferLoopHoistingPass());
}

/// Vectors: contractions to FMAs, n-D transfers unrolled to 1-D loads.
static void addVectorLowering(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createLowerVector());
  VectorTransferToSCFOptions transfers;
  transfers.enableFullUnroll();
  transfers.enableLowerTensors();
  pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass(transfers));
  pm.addNestedPass<func::FuncOp>(createLowerVector());
}

/// Tiles written back into the views they were read from leave copies of
/// a view onto itself (once CSE unifies the two views), which
/// canonicalization erases: on a GPU they would run in every thread.
static void addGpuCopyCleanup(OpPassManager &pm) {
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
}

/// The x86 pipeline after bufferization.
static void addHostLowering(OpPassManager &pm, const LoweringOptions &options);

void mlir::tcl::buildLowerToLLVMPipeline(OpPassManager &pm,
                                         const LoweringOptions &options) {
  addScheduling(pm, options);
  addBufferization(pm);
  if (options.emulateGpu &&
      options.platform.getTarget().kind == TargetKind::GPU) {
    addGpuCopyCleanup(pm);
    PromoteGpuOperandsOptions promote;
    promote.emulated = true;
    pm.addPass(createPromoteGpuOperands(promote));
    pm.addPass(createEmulateGpuLoops());
    LoweringOptions host = options;
    host.platform = Platform::host();
    addHostLowering(pm, host);
    return;
  }
  addHostLowering(pm, options);
}

static void addHostLowering(OpPassManager &pm, const LoweringOptions &options) {
  bufferization::buildBufferDeallocationPipeline(
      pm, bufferization::BufferDeallocationPipelineOptions());
  pm.addPass(createCanonicalizerPass());
  // Each loop nest in a function of its own: LLVM's optimizations then work
  // on functions of one task's size, whatever the model's depth.
  pm.addPass(createOutlineLoopNests());
  if (options.profile)
    pm.addPass(createProfileNests());

  // Each register tile prefetches the next one's accumulators (and a share
  // of the next packed panel), while packing copies are still linalg.copy.
  pm.addNestedPass<func::FuncOp>(createPrefetchNextTiles());

  // Loops: leftover linalg ops become loops (one long loop where their
  // elements are contiguous), scf.forall becomes scf.parallel.
  pm.addNestedPass<func::FuncOp>(createCollapseContiguousLoops());
  ParallelizeLeftoverOpsOptions leftovers;
  leftovers.numThreads = options.platform.getThreads();
  pm.addNestedPass<func::FuncOp>(createParallelizeLeftoverOps(leftovers));
  pm.addNestedPass<func::FuncOp>(createReorderLeftoverTransposes());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createForallToParallelLoopPass());

  addVectorLowering(pm);

  // Parallel loops run on OpenMP threads (sequentially for one thread). The
  // conversion wraps loop bodies in memref.alloca_scope; canonicalization
  // inlines the scopes that allocate nothing, which after full unrolling of
  // vector transfers is all of them.
  if (options.platform.getThreads() > 1) {
    ConvertSCFToOpenMPPassOptions openMP;
    openMP.numThreads = options.platform.getThreads();
    pm.addPass(createConvertSCFToOpenMPPass(openMP));
    pm.addPass(createCanonicalizerPass());
  }
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertSCFToCFPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  // To the LLVM dialect.
  // Math first: erf and tanh become inline polynomials; what else LLVM has
  // no intrinsic for becomes libm calls, unrolled over vector lanes with
  // vector ops the next step lowers.
  pm.addNestedPass<func::FuncOp>(createApproximateMath());
  pm.addNestedPass<func::FuncOp>(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  ConvertVectorToLLVMPassOptions vectorToLLVM;
  vectorToLLVM.reassociateFPReductions = true;
  pm.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  addCoreToLLVM(pm);
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  SetTargetAttributesOptions target;
  target.target = options.platform.getTargetName().str();
  pm.addPass(createSetTargetAttributes(target));
}

void mlir::tcl::buildLowerToNVVMPipeline(OpPassManager &pm,
                                         const LoweringOptions &options,
                                         StringRef cudaToolkit) {
  const TargetArch &target = options.platform.getTarget();
  addScheduling(pm, options);
  addBufferization(pm);
  addGpuCopyCleanup(pm);
  // A thread's private buffers go on its stack; deallocation is placed for
  // the host's buffers; then block and thread loops become gpu.launch
  // operations (after deallocation, which does not know their barriers).
  pm.addNestedPass<func::FuncOp>(
      bufferization::createPromoteBuffersToStackPass(isGpuThreadPrivate));
  bufferization::buildBufferDeallocationPipeline(
      pm, bufferization::BufferDeallocationPipelineOptions());
  // (After deallocation, which would free shared memory.)
  pm.addPass(createPromoteGpuOperands());
  pm.addPass(createMapToGPU());
  pm.addPass(createGpuHostMemory());
  pm.addPass(createCanonicalizerPass());
  addVectorLowering(pm);

  // Inside the kernels: leftover linalg ops become loops, views become
  // pointer arithmetic, loops become branches.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertSCFToCFPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Canonicalization folds some 1-element vector inserts into n-D
  // broadcasts, which NVVM's conversion does not take: lowered again, with
  // a fused epilogue's math on n-D vectors as 1-D rows.
  LowerVectorOptions rows;
  rows.unrollMath = true;
  pm.addNestedPass<func::FuncOp>(createLowerVector(rows));
  // Constants (canonicalization hoists them out of launches to the
  // function's entry) go back into the vectorized kernels.
  pm.addNestedPass<func::FuncOp>(createSinkKernelConstants());

  // Kernels into a gpu.module for the target, lowered to NVVM; the host's
  // launches to calls of the GPU runtime; the module to PTX (libdevice from
  // the toolkit is linked in for math functions).
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createMergeGPUModules());
  // The host's allocations, copies and launches in one chain of a stream
  // (gpu-to-llvm lowers their asynchronous forms only).
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  GpuNVVMAttachTargetOptions attach;
  attach.chip = target.cpu.str();
  attach.features = target.features.str();
  attach.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(attach));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(createAlignKernelPointers());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createGpuToLLVMConversionPass());
  addCoreToLLVM(pm);
  pm.addPass(createReconcileUnrealizedCastsPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  binary.toolkitPath = cudaToolkit.str();
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

void mlir::tcl::buildGraphOptimizationPipeline(OpPassManager &pm,
                                               const GraphOptions &options) {
  OpPassManager &funcs = pm.nest<func::FuncOp>();
  funcs.addPass(createPropagateLayout());
  funcs.addPass(createCanonicalizerPass());
  funcs.addPass(createFoldConstants());
  funcs.addPass(createFoldBatchNorm());
  funcs.addPass(createConvolutionsAsMatmuls());
  if (options.winograd)
    funcs.addPass(createWinogradConvolutions());
  if (options.blockFilters)
    funcs.addPass(createBlockConvolutionFilters());
  funcs.addPass(createFuseElementwise());
  funcs.addPass(createCanonicalizerPass());
  funcs.addPass(createCSEPass());
}

LogicalResult mlir::tcl::optimizeGraph(ModuleOp module, TimingScope *timing,
                                       const GraphOptions &options) {
  PassManager pm(module.getContext());
  buildGraphOptimizationPipeline(pm, options);
  if (timing)
    pm.enableTiming(*timing);
  return pm.run(module);
}

namespace {
struct LowerToLLVMPipelineOptions
    : public PassPipelineOptions<LowerToLLVMPipelineOptions> {
  Option<std::string> target{
      *this, "target",
      llvm::cl::desc("Target architecture; by default the host's"),
      llvm::cl::init(getHostTargetArch().name.str())};
  Option<unsigned> numThreads{*this, "num-threads",
                              llvm::cl::desc("Threads of parallel loops"),
                              llvm::cl::init(1)};
  Option<bool> defaultSchedules{
      *this, "default-schedules",
      llvm::cl::desc("Schedule unscheduled ops with the default heuristic"),
      llvm::cl::init(true)};
  Option<bool> profile{
      *this, "profile",
      llvm::cl::desc("Count the time of every loop nest's calls "
                     "(tcl-profile-nests)"),
      llvm::cl::init(false)};
  Option<bool> emulateGpu{
      *this, "emulate-gpu",
      llvm::cl::desc("With a GPU target: its schedules, each block and thread "
                     "run one after another on this host "
                     "(tcl-emulate-gpu-loops)"),
      llvm::cl::init(false)};
};

struct LowerToNVVMPipelineOptions
    : public PassPipelineOptions<LowerToNVVMPipelineOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("GPU target architecture"),
                             llvm::cl::init("nvptx-sm90")};
  Option<bool> defaultSchedules{
      *this, "default-schedules",
      llvm::cl::desc("Schedule unscheduled ops with the default heuristic"),
      llvm::cl::init(true)};
  Option<std::string> cudaToolkit{
      *this, "cuda-toolkit",
      llvm::cl::desc("CUDA toolkit root (libdevice); by default $CUDA_HOME, "
                     "$CUDA_PATH or /usr/local/cuda")};
};
} // namespace

/// The GPU targets' names, for diagnostics.
static std::string getGpuTargetNames() {
  std::string names;
  for (const TargetArch &target : getTargetArchs())
    if (target.kind == TargetKind::GPU)
      names += (names.empty() ? "" : ", ") + target.name.str();
  return names;
}

void mlir::tcl::registerTclPipelines() {
  // (Registered as PassPipelineRegistration does, but with the error
  // handler: an unknown target is an error when the pipeline is parsed.)
  registerPassPipeline(
      "tcl-lower-to-llvm",
      "Lowers scheduled linalg on tensors to the LLVM dialect for x86",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        LowerToLLVMPipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        llvm::Expected<Platform> platform =
            Platform::get(options.target, options.numThreads);
        if (!platform)
          return errorHandler("tcl-lower-to-llvm: " +
                              llvm::toString(platform.takeError()));
        if (platform->getTarget().kind != TargetKind::CPU &&
            !options.emulateGpu)
          return errorHandler("tcl-lower-to-llvm: '" + options.target +
                              "' is a GPU target; tcl-lower-to-nvvm lowers "
                              "for GPUs (or emulate-gpu=1 on this host)");
        LoweringOptions lowering;
        lowering.platform = *platform;
        lowering.defaultSchedules = options.defaultSchedules;
        lowering.profile = options.profile;
        lowering.emulateGpu = options.emulateGpu;
        buildLowerToLLVMPipeline(pm, lowering);
        return success();
      },
      [](function_ref<void(const ::mlir::detail::PassOptions &)>
             optionHandler) { optionHandler(LowerToLLVMPipelineOptions()); });
  registerPassPipeline(
      "tcl-lower-to-nvvm",
      "Lowers scheduled linalg on tensors to kernels in PTX (a gpu.binary) "
      "and host code in the LLVM dialect for an NVIDIA GPU",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        LowerToNVVMPipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        const TargetArch *target = lookupTargetArch(options.target);
        if (!target || target->kind != TargetKind::GPU)
          return errorHandler(
              "tcl-lower-to-nvvm: '" + options.target +
              "' is not a GPU target (known: " + getGpuTargetNames() + ")");
        LoweringOptions lowering{Platform(*target), options.defaultSchedules};
        std::string toolkit = options.cudaToolkit.empty()
                                  ? findCudaToolkit()
                                  : options.cudaToolkit.getValue();
        buildLowerToNVVMPipeline(pm, lowering, toolkit);
        return success();
      },
      [](function_ref<void(const ::mlir::detail::PassOptions &)>
             optionHandler) { optionHandler(LowerToNVVMPipelineOptions()); });
  PassPipelineRegistration<>(
      "tcl-optimize-graph",
      "Graph-level optimizations of imported models: layout propagation, "
      "constant and BatchNorm folding, 1x1 convolutions as matmuls, 3x3 "
      "ones by Winograd's algorithm, wide filters in blocks of channels, "
      "elementwise fusion",
      [](OpPassManager &pm) { buildGraphOptimizationPipeline(pm); });
}
