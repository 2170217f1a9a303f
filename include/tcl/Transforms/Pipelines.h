//===- Pipelines.h - tcl's lowering pipelines -------------------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TRANSFORMS_PIPELINES_H
#define TCL_TRANSFORMS_PIPELINES_H

#include "tcl/Target/Platform.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/LogicalResult.h"
#include "mlir/Support/Timing.h"

#include <string>

namespace mlir::tcl {

/// The version of the code a schedule becomes. Bump it with a change to
/// lowering (schedule application, the pipelines, code generation) that makes
/// the code of some schedule run at another speed or compile where it did
/// not: measurements carry it (TuningRecord::codegen), and the search and the
/// training data do not mix latencies of different versions.
/// 1: 2026-12-02 (partial tiles peeled; the first version recorded).
/// 2: 2026-12-04 (convolutions' and poolings' border taps skipped, depthwise
///    and pooling padding folded into tiles, and a task's workload takes
///    its input pads along).
/// 3: 2026-12-05 (register tiles prefetch the next tile's accumulators and
///    packed panel, packing copies fill only their border, and a first
///    sequential tile level of parallel loops takes the output's fill in).
/// 4: 2026-12-05 (tiles whose vector dimension is not a power of two are
///    split into power-of-two pieces before vectorization).
/// 5: 2026-12-05 (register tiles that span a convolution's output width
///    skip the products of the rows that read zero padding).
/// 6: 2026-12-06 (the vector pieces of a register tile write their hoisted
///    accumulators straight into it: tiles of 48 lanes copied the tile).
/// 7: 2026-12-06 (a padded tile is copied back into the anchor's init with
///    linalg.copy: materialize_in_destination failed to bufferize when a
///    fused epilogue's loops read an argument init; workloads take the fill
///    of a reshaped empty init along).
constexpr unsigned kCodegenVersion = 7;

struct LoweringOptions {
  explicit LoweringOptions(Platform platform = Platform::host(),
                           bool defaultSchedules = true)
      : platform(std::move(platform)), defaultSchedules(defaultSchedules) {}

  /// What the code runs on; by default the host with one thread (which
  /// keeps code sequential and free of the OpenMP runtime).
  Platform platform = Platform::host();
  /// Give ops without a schedule the default schedule of their op class
  /// (tcl-default-schedules); without, they become plain loops.
  bool defaultSchedules = true;
  /// Split the module into tasks (tcl-extract-tasks) first, so epilogues
  /// are fused into their anchor's loops.
  bool extractTasks = true;
  /// Count the time of every call of a loop nest in the code itself
  /// (tcl-profile-nests; CPU targets only).
  bool profile = false;
  /// For a GPU platform: its schedules, run on this host's CPU (each block
  /// and thread one after another, tcl-emulate-gpu-loops) by the x86
  /// pipeline, to check what they compute without a GPU.
  bool emulateGpu = false;
};

/// Adds the x86 lowering pipeline to `pm` (anchored on builtin.module):
/// default schedules for unscheduled ops, apply schedules, bufferize (functions
/// return results through out-params, temporaries are deallocated), lower
/// vectors to FMAs and loads, parallel loops to OpenMP, and convert everything
/// to the LLVM dialect with the platform's target attributes. A GPU target is
/// refused when the pipeline runs (tcl-set-target-attributes), unless
/// `options.emulateGpu` asks for its schedules on this host.
void buildLowerToLLVMPipeline(OpPassManager &pm,
                              const LoweringOptions &options);

/// Adds the NVIDIA GPU lowering pipeline to `pm` (anchored on builtin.module)
/// for a GPU platform: default schedules, apply schedules and bufferize as
/// for x86, then block and thread loops become kernels (tcl-map-to-gpu), the
/// kernels a gpu.module lowered to NVVM and compiled to PTX for the
/// platform's architecture (a gpu.binary), the host code calls of MLIR's GPU
/// runtime interface (mgpu*) in the LLVM dialect. `cudaToolkit` is where
/// libdevice (math functions) is found; without one, kernels that call math
/// functions do not assemble.
void buildLowerToNVVMPipeline(OpPassManager &pm, const LoweringOptions &options,
                              StringRef cudaToolkit);

struct GraphOptions {
  /// Compute 3x3 stride-1 convolutions by Winograd's algorithm
  /// (tcl-winograd-convolutions).
  bool winograd = true;
  /// Pack the constant filters of wide convolutions into blocks of output
  /// channels (tcl-block-convolution-filters).
  bool blockFilters = true;
};

/// Adds the graph-level optimizations for imported models to `pm` (anchored
/// on builtin.module): layout propagation (transposes cancel across
/// elementwise ops), constant folding, BatchNorm folding into convolutions,
/// 1x1 stride-1 convolutions as matmuls, 3x3 stride-1 ones by Winograd's
/// algorithm (`options.winograd`), the filters of the remaining wide ones
/// in blocks of output channels (`options.blockFilters`) and elementwise
/// fusion, with
/// canonicalization and CSE between.
void buildGraphOptimizationPipeline(OpPassManager &pm,
                                    const GraphOptions &options = {});

/// Runs buildGraphOptimizationPipeline on `module`.
/// With `timing`, the passes' times go under it (tcl-compile --timing).
LogicalResult optimizeGraph(ModuleOp module, TimingScope *timing = nullptr,
                            const GraphOptions &options = {});

/// Registers `tcl-lower-to-llvm{target=... num-threads=...}` and
/// `tcl-optimize-graph` for tcl-opt.
void registerTclPipelines();

} // namespace mlir::tcl

#endif // TCL_TRANSFORMS_PIPELINES_H
