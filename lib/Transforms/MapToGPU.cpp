//===- MapToGPU.cpp - Loops mapped onto blocks and threads -> kernels -----===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The GPU counterpart of OpenMP for CPU targets: a schedule's block and
// thread levels (scf.forall loops with gpu.block / gpu.thread mappings)
// become gpu.launch operations, through MLIR's own transform.gpu ops run by
// the interpreter. What is left outside the mapped loops is checked, since
// a write there would run on the host or once per thread.
//
//===----------------------------------------------------------------------===//

#include "tcl/Dialect/Tcl/IR/TclOps.h"
#include "tcl/Transforms/Passes.h"

#include "mlir/Conversion/SCFToGPU/SCFToGPUPass.h"
#include "mlir/Dialect/GPU/TransformOps/GPUTransformOps.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Linalg/TransformOps/LinalgTransformOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::tcl {
#define GEN_PASS_DEF_EMULATEGPULOOPS
#define GEN_PASS_DEF_MAPTOGPU
#define GEN_PASS_DEF_MERGEGPUMODULES
#include "tcl/Transforms/Passes.h.inc"
} // namespace mlir::tcl

using namespace mlir;
using namespace mlir::tcl;

/// Temporary attribute through which the transform sequence finds the
/// block loop it maps.
static constexpr StringLiteral kBlockLoopAttrName = "__tcl_gpu_block_loop";

/// Whether `forall` is mapped onto GPU blocks (or threads).
template <typename MappingAttr> static bool isMappedOnto(scf::ForallOp forall) {
  std::optional<ArrayAttr> mapping = forall.getMapping();
  return mapping && !mapping->empty() && isa<MappingAttr>((*mapping)[0]);
}

/// Whether `op` writes memory itself (not through ops in its regions).
static bool writesMemory(Operation *op) {
  if (isa<scf::ForallOp, memref::AllocOp, memref::AllocaOp, memref::DeallocOp>(
          op))
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return isa<linalg::LinalgOp>(op);
  return effects.hasEffect<MemoryEffects::Write>();
}

/// Names `op` and the task it belongs to for a diagnostic.
static std::string describe(Operation *op) {
  std::string text = ("'" + op->getName().getStringRef() + "'").str();
  for (Operation *parent = op; parent; parent = parent->getParentOp())
    if (auto task = parent->getAttrOfType<StringAttr>(kTaskAttrName))
      return text + " of task '" + task.getValue().str() + "'";
  return text;
}

/// The trip count of each loop of `forall`, if all are static.
static std::optional<SmallVector<int64_t>>
getStaticTripCounts(scf::ForallOp forall) {
  SmallVector<int64_t> trips;
  for (auto [lower, upper, step] :
       llvm::zip(forall.getMixedLowerBound(), forall.getMixedUpperBound(),
                 forall.getMixedStep())) {
    std::optional<int64_t> l = getConstantIntValue(lower),
                           u = getConstantIntValue(upper),
                           s = getConstantIntValue(step);
    if (!l || !u || !s || *s <= 0)
      return std::nullopt;
    trips.push_back(llvm::divideCeil(*u - *l, *s));
  }
  return trips;
}

/// The block size the thread loops nested in `blockLoop` need: per mapping
/// id (x, y, z), the largest trip count mapped onto it. Fails if a thread
/// loop's trip count is not static.
static FailureOr<SmallVector<int64_t, 3>>
getBlockDims(scf::ForallOp blockLoop) {
  SmallVector<int64_t, 3> dims = {1, 1, 1};
  WalkResult result = blockLoop.walk([&](scf::ForallOp forall) {
    if (!isMappedOnto<gpu::GPUThreadMappingAttr>(forall))
      return WalkResult::advance();
    std::optional<SmallVector<int64_t>> trips = getStaticTripCounts(forall);
    if (!trips) {
      forall.emitOpError("is mapped onto GPU threads but its trip counts are "
                         "not static");
      return WalkResult::interrupt();
    }
    for (auto [attr, trip] : llvm::zip(*forall.getMapping(), *trips)) {
      auto id = cast<gpu::GPUThreadMappingAttr>(attr).getMappingId();
      int64_t &dim = dims[static_cast<unsigned>(id)];
      dim = std::max(dim, trip);
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  return dims;
}

static bool hasThreadLoops(scf::ForallOp blockLoop) {
  WalkResult result = blockLoop.walk([&](scf::ForallOp forall) {
    return isMappedOnto<gpu::GPUThreadMappingAttr>(forall)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return result.wasInterrupted();
}

bool mlir::tcl::isGpuThreadPrivate(Value alloc) {
  for (Operation *parent = alloc.getParentBlock()->getParentOp(); parent;
       parent = parent->getParentOp()) {
    auto forall = dyn_cast<scf::ForallOp>(parent);
    if (!forall)
      continue;
    if (isMappedOnto<gpu::GPUThreadMappingAttr>(forall))
      return true;
    if (isMappedOnto<gpu::GPUBlockMappingAttr>(forall))
      return !hasThreadLoops(forall);
  }
  return false;
}

/// Whether `alloc` is a static buffer in GPU shared memory.
static bool isWorkgroupBuffer(memref::AllocOp alloc) {
  auto space =
      dyn_cast_or_null<gpu::AddressSpaceAttr>(alloc.getType().getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup &&
         alloc.getType().hasStaticShape();
}

/// Checks that every write in `blockLoop` is inside a thread loop, when it
/// has any (else the block has one thread and everything is its), and that
/// it allocates no memory on the heap: buffers private to a thread are on
/// its stack by now (isGpuThreadPrivate), and buffers a block's threads
/// share must be in shared memory (from tcl-promote-gpu-operands).
static LogicalResult checkBlockLoop(scf::ForallOp blockLoop) {
  WalkResult allocates = blockLoop.walk([&](memref::AllocOp alloc) {
    // (tcl-emulate-gpu-loops leaves these on the heap, where a host thread's
    // loops may allocate them.)
    if (alloc.getType().hasStaticShape() && isGpuThreadPrivate(alloc))
      return WalkResult::advance();
    // (Shared memory, from tcl-promote-gpu-operands.)
    if (isWorkgroupBuffer(alloc))
      return WalkResult::advance();
    alloc.emitError() << describe(alloc)
                      << " allocates a buffer in a GPU kernel that its "
                         "threads share outside shared memory (only a GPU "
                         "schedule's pad puts buffers there)";
    return WalkResult::interrupt();
  });
  if (allocates.wasInterrupted())
    return failure();
  if (!hasThreadLoops(blockLoop))
    return success();
  WalkResult result =
      blockLoop.getBody()->walk<WalkOrder::PreOrder>([&](Operation *op) {
        if (auto forall = dyn_cast<scf::ForallOp>(op);
            forall && isMappedOnto<gpu::GPUThreadMappingAttr>(forall))
          return WalkResult::skip();
        if (!writesMemory(op))
          return WalkResult::advance();
        op->emitError() << describe(op)
                        << " is in a GPU block loop but outside its thread "
                           "loops: every thread of the block would run it";
        return WalkResult::interrupt();
      });
  return failure(result.wasInterrupted());
}

/// Threads of a block that runs an operation no schedule mapped.
static constexpr int64_t kGlueThreadsPerBlock = 256;

/// Runs `op`, which writes memory on the host, in a kernel of one thread.
static void wrapInSingleThreadKernel(RewriterBase &rewriter, Operation *op) {
  rewriter.setInsertionPoint(op);
  Location loc = op->getLoc();
  Value one = rewriter.create<arith::ConstantIndexOp>(loc, 1);
  auto launch =
      rewriter.create<gpu::LaunchOp>(loc, one, one, one, one, one, one);
  rewriter.setInsertionPointToEnd(&launch.getBody().front());
  auto terminator = rewriter.create<gpu::TerminatorOp>(loc);
  rewriter.moveOpBefore(op, terminator);
}

/// Maps a linalg op that no schedule mapped (glue between tasks: a
/// transpose, a fill, the copy of a padded input) onto the GPU: its
/// parallel loops, the innermost split into blocks of
/// kGlueThreadsPerBlock threads, the next two onto the grid's y and z,
/// the others and its reductions loops in each thread. An op without
/// parallel loops runs in a kernel of one thread.
static void mapUnscheduledOp(RewriterBase &rewriter, linalg::LinalgOp op) {
  MLIRContext *ctx = op.getContext();
  if (op.getNumParallelLoops() == 0) {
    wrapInSingleThreadKernel(rewriter, op);
    return;
  }
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::LinalgLoops> loops =
      linalg::linalgOpToParallelLoops(rewriter, op);
  if (failed(loops) || loops->empty()) {
    wrapInSingleThreadKernel(rewriter, op);
    return;
  }
  rewriter.eraseOp(op);
  auto parallel = cast<scf::ParallelOp>(loops->front());
  unsigned numLoops = parallel.getNumLoops();
  SmallVector<int64_t> tileSizes(numLoops, 1);
  tileSizes.back() = kGlueThreadsPerBlock;
  std::optional<int64_t> innermost =
      getConstantIntValue(parallel.getUpperBound().back());
  if (innermost && *innermost < kGlueThreadsPerBlock)
    tileSizes.back() = *innermost;
  auto [grid, block] =
      scf::tileParallelLoop(parallel, tileSizes, /*noMinMaxBounds=*/true);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(1, ctx);
  auto dimMapping = [&](gpu::Processor processor) {
    return gpu::ParallelLoopDimMappingAttr::get(ctx, processor, identity,
                                                identity);
  };
  SmallVector<gpu::ParallelLoopDimMappingAttr> gridMapping, blockMapping;
  const gpu::Processor gridIds[] = {
      gpu::Processor::BlockX, gpu::Processor::BlockY, gpu::Processor::BlockZ};
  for (unsigned loop = 0; loop < numLoops; ++loop) {
    unsigned fromInnermost = numLoops - 1 - loop;
    gridMapping.push_back(dimMapping(fromInnermost < 3
                                         ? gridIds[fromInnermost]
                                         : gpu::Processor::Sequential));
    blockMapping.push_back(dimMapping(fromInnermost == 0
                                          ? gpu::Processor::ThreadX
                                          : gpu::Processor::Sequential));
  }
  (void)gpu::setMappingAttr(grid, gridMapping);
  (void)gpu::setMappingAttr(block, blockMapping);
}

namespace {
struct MapToGPUPass : public tcl::impl::MapToGPUBase<MapToGPUPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Scheduled tasks: block loops.
    SmallVector<scf::ForallOp> blockLoops;
    module->walk<WalkOrder::PreOrder>([&](scf::ForallOp forall) {
      if (!isMappedOnto<gpu::GPUBlockMappingAttr>(forall))
        return WalkResult::advance();
      blockLoops.push_back(forall);
      return WalkResult::skip();
    });
    for (scf::ForallOp blockLoop : blockLoops)
      if (failed(checkBlockLoop(blockLoop)) || failed(mapBlockLoop(blockLoop)))
        return signalPassFailure();

    // The glue between them: linalg ops outside every kernel.
    SmallVector<linalg::LinalgOp> unscheduled;
    module->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::LaunchOp, gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
        unscheduled.push_back(linalgOp);
        return WalkResult::skip();
      }
      return WalkResult::advance();
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : unscheduled)
      mapUnscheduledOp(rewriter, op);
    OpPassManager toGpu(ModuleOp::getOperationName());
    toGpu.addPass(createParallelLoopToGpuPass());
    if (failed(runPipeline(toGpu, module)))
      return signalPassFailure();

    // Whatever still writes memory on the host would write device memory
    // there.
    WalkResult hostWrites =
        module->walk<WalkOrder::PreOrder>([&](Operation *op) {
          if (isa<gpu::LaunchOp, gpu::GPUModuleOp>(op))
            return WalkResult::skip();
          if (!writesMemory(op) || isa<func::CallOp>(op))
            return WalkResult::advance();
          op->emitError() << describe(op)
                          << " would run on the host: it is in no GPU kernel";
          return WalkResult::interrupt();
        });
    if (hostWrites.wasInterrupted())
      return signalPassFailure();

    // Multiplies and adds in kernels may contract into FMAs, as nvcc's
    // default (-fmad=true) allows: LLVM's NVPTX backend keeps them apart
    // (mul.rn, add.rn) unless the instructions say so.
    module.walk([](gpu::LaunchOp launch) {
      launch.walk([](arith::ArithFastMathInterface op) {
        auto flags = op.getFastMathFlagsAttr();
        arith::FastMathFlags contract =
            (flags ? flags.getValue() : arith::FastMathFlags::none) |
            arith::FastMathFlags::contract;
        op->setAttr(op.getFastMathAttrName(),
                    arith::FastMathFlagsAttr::get(op->getContext(), contract));
      });
    });
  }

  /// Maps one block loop and the thread loops in it onto a gpu.launch.
  LogicalResult mapBlockLoop(scf::ForallOp blockLoop) {
    FailureOr<SmallVector<int64_t, 3>> blockDims = getBlockDims(blockLoop);
    if (failed(blockDims))
      return failure();
    MLIRContext *ctx = &getContext();
    OpBuilder builder(ctx);
    Location loc = blockLoop.getLoc();
    OwningOpRef<ModuleOp> library = ModuleOp::create(loc);
    (*library)->setAttr(transform::TransformDialect::kWithNamedSequenceAttrName,
                        builder.getUnitAttr());
    builder.setInsertionPointToEnd(library->getBody());
    Type anyOp = transform::AnyOpType::get(ctx);
    auto sequence = builder.create<transform::NamedSequenceOp>(
        loc, "__tcl_map_to_gpu", anyOp, TypeRange(),
        [&](OpBuilder &b, Location loc, BlockArgument root) {
          Value forall = b.create<transform::MatchOp>(
              loc, anyOp, root, /*ops=*/ArrayAttr(), /*interface=*/nullptr,
              b.getDictionaryAttr(
                  b.getNamedAttr(kBlockLoopAttrName, b.getUnitAttr())),
              /*filter_result_type=*/TypeAttr(),
              /*filter_operand_types=*/ArrayAttr());
          Value launch = b.create<transform::MapForallToBlocks>(
              loc, anyOp, forall, /*grid_dims=*/ArrayRef<int64_t>(),
              /*generate_gpu_launch=*/true);
          b.create<transform::MapNestedForallToThreads>(loc, anyOp, launch,
                                                        *blockDims);
          b.create<transform::YieldOp>(loc);
        });
    sequence.setArgAttr(0, transform::TransformDialect::kArgReadOnlyAttrName,
                        builder.getUnitAttr());
    Operation *payloadRoot = blockLoop->getParentOp();
    while (payloadRoot->getParentOp() && !isa<FunctionOpInterface>(payloadRoot))
      payloadRoot = payloadRoot->getParentOp();
    blockLoop->setAttr(kBlockLoopAttrName, builder.getUnitAttr());
    LogicalResult result = transform::applyTransformNamedSequence(
        payloadRoot, sequence, *library, transform::TransformOptions());
    payloadRoot->walk([](gpu::LaunchOp launch) {
      launch->removeAttr(kBlockLoopAttrName);
      launch.walk([](Operation *op) { op->removeAttr(kBlockLoopAttrName); });
      // Shared memory: the kernel's workgroup attributions.
      SmallVector<memref::AllocOp> shared;
      launch.walk([&](memref::AllocOp alloc) {
        if (isWorkgroupBuffer(alloc))
          shared.push_back(alloc);
      });
      for (memref::AllocOp alloc : shared) {
        BlockArgument buffer =
            launch.addWorkgroupAttribution(alloc.getType(), alloc.getLoc());
        alloc.replaceAllUsesWith(buffer);
        alloc.erase();
      }
    });
    return result;
  }
};
} // namespace

namespace {
struct EmulateGpuLoopsPass
    : public tcl::impl::EmulateGpuLoopsBase<EmulateGpuLoopsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // What tcl-map-to-gpu would refuse is refused here too: a schedule
    // that passes emulation passes the GPU pipeline's checks.
    WalkResult checked =
        module->walk<WalkOrder::PreOrder>([&](scf::ForallOp forall) {
          if (!isMappedOnto<gpu::GPUBlockMappingAttr>(forall))
            return WalkResult::advance();
          if (failed(checkBlockLoop(forall)) || failed(getBlockDims(forall)))
            return WalkResult::interrupt();
          return WalkResult::skip();
        });
    if (checked.wasInterrupted())
      return signalPassFailure();
    // Blocks and threads become iterations of plain loops, one after
    // another: the thread loops of a block, which a barrier separates on
    // the GPU, then run one after the other too.
    module->walk([](scf::ForallOp forall) {
      if (isMappedOnto<gpu::GPUBlockMappingAttr>(forall) ||
          isMappedOnto<gpu::GPUThreadMappingAttr>(forall))
        forall.removeMappingAttr();
    });
  }
};
} // namespace

namespace {
struct MergeGPUModulesPass
    : public tcl::impl::MergeGPUModulesBase<MergeGPUModulesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto gpuModules = llvm::to_vector(module.getOps<gpu::GPUModuleOp>());
    if (gpuModules.empty())
      return;
    gpu::GPUModuleOp merged = gpuModules.front();
    MLIRContext *ctx = &getContext();
    StringAttr mergedName = StringAttr::get(ctx, kMergedModuleName);
    if (SymbolTable::lookupSymbolIn(module, mergedName)) {
      module.emitError() << "a symbol is named '" << kMergedModuleName
                         << "' already";
      return signalPassFailure();
    }
    // Kernels are renamed after their modules (unique symbols of the
    // module): outlining gives each module one kernel, named after the
    // function it came from, so kernels of one function share a name.
    llvm::DenseMap<std::pair<StringAttr, StringAttr>, StringAttr> renamed;
    for (gpu::GPUModuleOp gpuModule : gpuModules) {
      auto kernels = llvm::to_vector(gpuModule.getOps<gpu::GPUFuncOp>());
      for (gpu::GPUFuncOp kernel : kernels) {
        std::string name = gpuModule.getName().str();
        if (kernels.size() > 1)
          name += "_" + kernel.getName().str();
        StringAttr newName = StringAttr::get(ctx, name);
        renamed[{gpuModule.getNameAttr(), kernel.getNameAttr()}] = newName;
        kernel.setName(newName);
      }
    }
    Block &body = merged.getBodyRegion().front();
    for (gpu::GPUModuleOp other : llvm::drop_begin(gpuModules)) {
      for (Operation &op :
           llvm::make_early_inc_range(other.getBodyRegion().front()))
        if (!op.hasTrait<OpTrait::IsTerminator>())
          op.moveBefore(body.getTerminator());
      other.erase();
    }
    merged.setName(kMergedModuleName);
    // After the host code, which reads first.
    merged->moveAfter(&module.getBody()->back());
    // (Renaming the first module changed no launch's reference: `renamed`
    // is keyed by the names they hold.)
    module.walk([&](gpu::LaunchFuncOp launch) {
      StringAttr kernel = renamed.lookup(
          {launch.getKernelModuleName(), launch.getKernelName()});
      launch.setKernelAttr(
          SymbolRefAttr::get(mergedName, {FlatSymbolRefAttr::get(kernel)}));
    });
  }

  static constexpr StringLiteral kMergedModuleName = "tcl_kernels";
};
} // namespace
