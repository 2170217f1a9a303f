//===- Passes.td - tcl transformation passes ---------------*- tablegen -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TRANSFORMS_PASSES_TD
#define TCL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def ApplySchedule : Pass<"tcl-apply-schedule", "ModuleOp"> {
  let summary = "Applies the module's tcl.sched schedules to their tasks";
  let description = [{
    For every `tcl.sched.schedule` in the module, finds the payload
    operations tagged `tcl.task = "<task>"`, checks that each has the
    declared anchor operation and iteration domain, lowers the schedule onto
    the upstream transform dialect and runs the transform interpreter on it.
    The schedules are erased afterwards. With `emit-transform`, nothing is
    applied: each schedule is replaced by the transform sequence it lowers to
    (one per payload instance), for inspection.
  }];
  let options = [
    Option<"emitTransform", "emit-transform", "bool", /*default=*/"false",
           "Replace schedules by their transform sequences instead of "
           "applying them">,
  ];
  let dependentDialects = [
    "::mlir::transform::TransformDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::affine::AffineDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::gpu::GPUDialect",
  ];
}

def ExtractTasks : Pass<"tcl-extract-tasks", "ModuleOp"> {
  let summary = "Splits a model into tuning tasks: anchor ops and their epilogues";
  let description = [{
    Every linalg op tcl can schedule (see lookupAnchor) that is not already
    part of a task becomes the anchor of one. Its chain of elementwise
    consumers (all-parallel linalg.generic ops over the anchor's result
    shape, each the only user of the previous result) becomes its epilogue,
    tagged `tcl.epilogue`, so a schedule can fuse them. Anchors with the
    same workload key (the anchor op, operand types, attributes and the
    epilogue's operations) share one task name: tuned once, used everywhere.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def LowerVector : Pass<"tcl-lower-vector", "::mlir::func::FuncOp"> {
  let summary = "Lowers high-level vector ops to what the LLVM conversion takes";
  let description = [{
    Rewrites `vector.contract` into outer products and those into FMAs,
    `vector.multi_reduction` into elementwise ops and reductions, and
    transfers with permutation maps into plain transfers with broadcasts and
    transposes. What remains converts to LLVM directly. With `unroll-math`,
    math ops on n-D vectors become one op a 1-D row (for NVVM's
    conversion, which takes 1-D vectors only).
  }];
  let options = [
    Option<"unrollMath", "unroll-math", "bool", /*default=*/"false",
           "Unroll math ops on n-D vectors into 1-D rows">,
  ];
  let dependentDialects = ["::mlir::vector::VectorDialect",
                           "::mlir::arith::ArithDialect"];
}

def PrefetchNextTiles
    : Pass<"tcl-prefetch-next-tiles", "::mlir::func::FuncOp"> {
  let summary = "Prefetches what the next register tiles read: their "
                "accumulators and the next packed panel";
  let description = [{
    Runs on buffers, before linalg ops become loops and vectors are
    lowered. A reduction loop (an `scf.for` in another) that carries a
    register tile's accumulators (its init a `vector.transfer_read` of a
    subview, at indices 0 and in bounds, of rows that are contiguous, its
    result written back to that subview) and updates them at least 32
    times gets, just before it:
    - a `memref.prefetch` (for writing, kept in every cache level) of each
      cache line of the tile the enclosing loop's next iteration reads: the
      same subview with the loop's induction variable advanced by a step
      (kept at the current one in the last iteration, so every address is
      in bounds). Tiles of more than 64 lines are left alone;
    - where a loop around it packs a panel first (a `linalg.copy` of a
      subview that moves with that loop: GotoBLAS' B panel, a schedule's
      hoisted `pad`), its share of the rows of the panel that loop's next
      iteration packs, prefetched for reading into L2: tile t of the T
      tiles between the two loops (static trip counts) takes rows
      [t * r, t * r + r), r = ceil(R / T), at most 64 lines, spread over
      its reduction's iterations (a line or a few in each: a burst of
      them before the reduction stalled the tile on its first prefetch,
      7 % of the kernel's samples, 3 % spread).
    Why: the accumulators are loaded once per reduction loop, and where the
    output panel outgrows L2 they come from L3, stalling the FMAs that wait
    for them: 7.4 % of a 2048^3 matmul's time (perf, Zen 4), whose C panel
    (2048x256 floats, 2 MB) is reloaded for each of its 16 k steps;
    prefetched during the previous tile's reduction (about 1000 cycles of
    FMAs) they arrive in time, 0.91-0.92x -> 0.95-0.96x oneDNN. A packing
    copy reads its operand at the speed of L3 or memory and nothing
    overlaps it: 8.3 % of a 128x768x3072 matmul (B, 9.4 MB, read once a
    call); with the panel prefetched while the tiles compute, the copy
    reads L2, 0.81x -> 0.89x oneDNN (medians of 7 interleaved runs). Fewer
    updates than 32 (a depthwise convolution's nine taps) leave no time
    for the prefetches to pay off, and they compete with the tile's own
    loads.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def ParallelizeLeftoverOps
    : Pass<"tcl-parallelize-leftover-ops", "::mlir::func::FuncOp"> {
  let summary = "Splits large leftover elementwise ops on buffers among the "
                "threads";
  let description = [{
    Runs after tcl-collapse-contiguous-loops, before the linalg ops that no
    schedule covered (the fill and copy of a padded convolution input, layout
    transposes, unfused elementwise ops) become loops. With more than one
    thread, such an op (all loops parallel, static, on buffers, outside any
    loop) of at least 16384 elements is tiled along its first loop of at
    least as many iterations as threads into one `scf.parallel` of a tile a
    thread, which the OpenMP conversion then runs on the team. Before, they
    ran on one thread: at 2 threads the padding of a depthwise convolution's
    input took longer than the convolution.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::memref::MemRefDialect"];
  let options = [
    Option<"numThreads", "num-threads", "unsigned", /*default=*/"1",
           "Threads the parallel loops run on">,
  ];
}

def FoldHoistedTileWrites : Pass<"tcl-fold-hoisted-tile-writes"> {
  let summary = "Writes the hoisted accumulators of a tile's vector pieces "
                "straight into the tile";
  let description = [{
    Runs after the schedules are applied and cleaned up, before
    bufferization. A register tile split into vector pieces
    (`tcl.split_vector_remainders`: 48 lanes = 32 + 16) keeps each piece's
    accumulators in loop-carried vectors once `hoist_accumulators` takes
    them out of the reduction loops. After those loops, hoisting leaves
    each piece's `vector.transfer_write` into a slice of the tile as it was
    before the loops, and the `tensor.insert_slice` of that slice into the
    tile as the previous piece left it. Bufferized, the first piece's write
    has already changed the tile that the second insert reads, so the tile
    is copied, element by element, after every reduction (a 7x48 tile of a
    3x3 convolution: 240 scalar moves; a depthwise convolution's 4x48
    tiles ran 2.3x slower than its 4x32 ones).

    Such an insert of a write that covers its whole slice becomes a write
    into the insert's destination at the slice's offsets:
    `insert_slice(transfer_write(%v, %slice), %dest[offsets])` ->
    `transfer_write(%v, %dest[offsets])`, where `%slice` is an
    `extract_slice` of a tensor other than `%dest` (a matched
    extract/insert pair bufferizes in place and is left alone), `%v` has
    `%slice`'s shape, the write is unmasked, in bounds and minor-identity
    at index 0, and the insert has unit strides. Upstream's
    `fold_tensor_subset_ops_into_vector_transfers` of LLVM 19 folds such
    inserts without checking that the write covers the slice, and so drops
    the other pieces' writes.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
}

def UnshareFills : Pass<"tcl-unshare-fills", "ModuleOp"> {
  let summary = "Gives every user of a shared linalg.fill a fill of its own";
  let description = [{
    Runs before schedules are applied and again just before bufferization.
    A `linalg.fill` of a `tensor.empty` (or of a reshape of one) with
    several users (CSE merges identical fills: the zeroed accumulators of a
    model's same-shaped matmuls, e.g. the batched matmuls of Winograd's
    convolutions, or the collapsed outputs of its 1x1 convolutions computed
    as matmuls) is cloned, with an empty tensor of its own, before each user
    but the first. Why: a
    task anchor fuses its fill into a parallel tile level only if the fill
    is its own (getAnchorFill), and bufferization gives every user that
    writes into a shared fill's result a buffer of its own, filled by
    copying the one filled buffer: ResNet-18 spent 1.5 % of a run copying
    zeros (fill once, copy three times); now each buffer is filled once and
    nothing is copied. The second run is needed because the clean-ups after
    scheduling merge again the fills that no loop took.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def WriteIntoConsumers : Pass<"tcl-write-into-consumers", "ModuleOp"> {
  let summary = "Computes the operands of pads and concatenations in place";
  let description = [{
    Runs just before one-shot bufferization, on the ops of a function's body
    (not inside loop nests). A `tensor.pad` with a constant padding value
    becomes a tensor of the padded shape whose border alone is filled (a
    slab below and above the source along each padded dim; the middle is
    written by the source, so filling it too would write most of the tensor
    twice), and insert_slices of its source (or of the parts of the
    concatenation it pads) at their offsets plus the low padding; a
    concatenation (insert_slices into a `tensor.empty`, which moves to the
    start of the block) keeps its insert_slices. Each part that was computed
    into a `tensor.empty` (through loops' inits, destination-style ops'
    inits and at most one reshape, no value on the way read by anything
    else) is computed into its slice instead: that use of the empty tensor
    becomes the slice, collapsed like an expand_shape on the way where the
    slice spans the inner dims of each group (a 1x1 convolution computed as
    a matmul over pixels writes into its channels of a concatenation, not
    into the middle of a padded image), or expanded like a collapse_shape
    (Winograd's output blocks). Its insert_slice then bufferizes to nothing.
    One part of a pad (its source, or one part of the concatenation it
    pads) may have other readers (a residual or a skip connection),
    directly or through the reshape that computes it: they then read its
    slice of the padded tensor, inserted right after the part, and the
    other parts are computed into the padded tensor after it. Why: each
    pad and concatenation copied its operands into a new buffer (UNet:
    concatenated, then copied again into the padded buffer of the next
    convolution; ResNet-18: every block's output into the next block's
    padded input). A pad whose source stays elsewhere is still built from
    the border fills and one copy, where the pad was. A function's result
    that is a reshape of what an op computed into a `tensor.empty` (GPT's
    logits, [S, V] viewed as [1, S, V]) is computed into an empty tensor of
    the result's shape, reshaped back: bufferization returns that buffer,
    which becomes the caller's, instead of copying a view of another into
    it. A `nofold` pad (a tile packed into a buffer of its own, in a loop
    nest) becomes an empty tensor whose border alone is filled and a copy
    of the tile into its middle: bufferized as it was, it filled the whole
    buffer and then overwrote it, and most packed tiles have no border.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::affine::AffineDialect"];
}

def ReorderLeftoverTransposes
    : Pass<"tcl-reorder-leftover-transposes", "::mlir::func::FuncOp"> {
  let summary = "Orders a leftover transpose's loops so the innermost reads "
                "a row";
  let description = [{
    Runs after tcl-parallelize-leftover-ops, before linalg ops become loops.
    A `linalg.transpose` on buffers (a layout transpose no task absorbed)
    becomes loops in its output's order, so its innermost loop writes the
    output's row and reads the input at some stride. Where that loop has at
    least 8 iterations and its read stride is larger than the stride at
    which the loop along the input's row would write, the transpose becomes
    a generic whose innermost loop is the latter, within blocks of 4-8
    along the output's row (a divisor of its extent; an scf.for over the
    blocks). Why: NCHW -> NHWC reads the input at the stride of a plane,
    and planes of 4 KiB put every read of the innermost loop in one L1 set
    (1x64x32x32 -> 1x32x32x64 ran at 2.8 ns an element, 0.18 ms; rows
    innermost 0.06 ms; in blocks of 8 channels, which keeps the reads to 8
    planes at a time, 0.02 ms).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def CollapseContiguousLoops
    : Pass<"tcl-collapse-contiguous-loops", "::mlir::func::FuncOp"> {
  let summary = "Merges the contiguous loops of leftover elementwise ops on buffers";
  let description = [{
    Runs just before the linalg ops that no schedule vectorized (fills and
    copies around padding, elementwise ops outside tasks) become loops. Where
    adjacent loops of such an op (all parallel, static) walk every operand
    contiguously, they become one loop over collapsed buffers
    (`memref.collapse_shape`): `linalg.fill` of a 1x226x226x3 buffer is then
    one loop of 153228 stores rather than a nest whose innermost loop has 3.
    Why: LLVM fully unrolls a short innermost loop and then vectorizes the
    next one with gathers and scatters; one long loop it vectorizes with
    plain vector loads and stores (or a memset).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect"];
}

def ApproximateMath : Pass<"tcl-approximate-math", "::mlir::func::FuncOp"> {
  let summary = "Replaces erf, tanh and exp by inline polynomial "
                "approximations";
  let description = [{
    LLVM has no intrinsic for erf or tanh, and on x86 lowers its vector exp
    to one expf call per lane, so without this they become libm calls, one
    per element (and per vector lane). MLIR's polynomial approximations
    (f32-accurate to a few ulp) are plain arithmetic that vectorizes: GELU
    (erf), tanh epilogues, softmax and sigmoid (exp) run at vector speed.
    Other math ops keep their libm calls (MLIR's sine and cosine reduce
    their arguments in f32).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def PrepareEntryPoints : Pass<"tcl-prepare-entry-points", "ModuleOp"> {
  let summary = "Fixes the ABI of public functions: read-only inputs, C wrappers";
  let description = [{
    Public functions are kernel entry points. Their tensor arguments are
    inputs the caller owns: bufferization must not write into them
    (`bufferization.writable = false`). And they get a C interface wrapper
    (`llvm.emit_c_interface`): `_mlir_ciface_<name>` taking memref
    descriptors by pointer, the entry point of the JIT and of compiled
    libraries. A result that is an input is returned as a copy, so every
    result has its own out-parameter.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def MapToGPU : Pass<"tcl-map-to-gpu", "ModuleOp"> {
  let summary = "Turns loops mapped onto GPU blocks and threads into kernels";
  let description = [{
    After bufferization, each outermost scf.forall mapped onto GPU blocks
    (`tcl.sched.parallelize blocks`) becomes a gpu.launch over a grid of its
    trip counts, and the foralls nested in it that are mapped onto threads
    use the thread ids of blocks as large as the largest of them (MLIR's
    transform.gpu.map_forall_to_blocks and map_nested_forall_to_threads;
    smaller foralls are predicated, a barrier follows each).

    Linalg ops no schedule mapped (the glue between tasks: transposes,
    fills, the copies of padded inputs) get kernels of their own: their
    innermost parallel loop split into blocks of 256 threads, the next two
    parallel loops onto the grid's y and z, the rest in each thread (one
    thread for an op without parallel loops). Floating-point operations in
    kernels get the `contract` flag, so that multiplies and adds become FMAs
    as nvcc's default (-fmad=true) makes them.

    Code must not be left where it would run wrongly: an operation that
    writes memory outside every kernel (it would run on the host, on device
    memory), or in a block loop that has thread loops but outside them (it
    would run once per thread), or a buffer a block's threads would share
    outside GPU shared memory is an error that names it and its task. A
    static buffer in shared memory (tcl-promote-gpu-operands) becomes a
    workgroup attribution of the kernel.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::transform::TransformDialect"];
}

def PromoteGpuOperands : Pass<"tcl-promote-gpu-operands", "ModuleOp"> {
  let summary = "Copies the block's tiles of a matmul's inputs to shared memory";
  let description = [{
    After bufferization, for each loop a GPU schedule's `pad` marked (the
    steps of the reduction inside a thread loop, `tcl.shared_inputs`): at
    the start of each step, the block's threads copy the block's tiles of
    the inputs they read there (the union of all threads' tiles: the
    block's extent along the dimensions the thread level splits, the step's
    along the others) into shared memory, each thread every n-th element
    (n threads; neighbouring threads copy neighbouring elements), then
    wait at a barrier; the threads' reads then read the shared tiles, and a
    barrier ends each step. The tile's stepped dimensions come first in the
    shared buffer (a matmul's A transposed: a thread's rows are then
    contiguous), and its rows are padded by 4 elements (no bank conflicts
    on the transposed writes; 16-byte aligned rows). The buffer is a
    `memref.alloc` in GPU workgroup memory before the thread loop, which
    tcl-map-to-gpu turns into a workgroup attribution of the kernel.

    With `emulated` (tcl-emulate-gpu-loops runs the threads one after
    another), each thread copies the whole tile into a buffer of its own
    and there are no barriers.

    The inputs are the buffers read in the loop through views from outside
    the thread loop that nothing in the loop writes (the output, read back
    as the accumulator when it is not kept in registers, stays where it
    is). A loop whose inputs cannot be so copied is an error that names the
    task and why: not inside a thread loop, inputs read through strided or
    rank-reducing views, no input at all.
  }];
  let options = [
    Option<"emulated", "emulated", "bool", /*default=*/"false",
           "For tcl-emulate-gpu-loops: each thread copies the whole tile "
           "into host memory of its own, without barriers">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def EmulateGpuLoops : Pass<"tcl-emulate-gpu-loops", "ModuleOp"> {
  let summary = "Runs loops mapped onto GPU blocks and threads on the host";
  let description = [{
    After bufferization, in place of tcl-map-to-gpu: loops mapped onto GPU
    blocks and threads lose their mapping, so the host runs every block and
    thread one after another. Then the x86 pipeline lowers the module. What GPU
    schedules compute can so be checked on a machine without a GPU; not
    their speed, nor a race between the threads of one thread loop (the
    loops of a block run in order, as the barrier that follows each on a
    GPU orders them).

    It checks what tcl-map-to-gpu checks first (writes outside a block's
    thread loops, buffers shared by a block's threads, thread loops of
    dynamic trip count) and fails with the same errors.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def GpuHostMemory : Pass<"tcl-gpu-host-memory", "ModuleOp"> {
  let summary = "Gives the kernels of a GPU module device buffers";
  let description = [{
    After tcl-map-to-gpu, the code outside the kernels only allocates
    buffers, takes views of them and launches kernels; the buffers must be
    on the device. A public function (what the C API calls, with host
    buffers) copies each memref argument to a device buffer on entry and,
    at every return, copies back those a kernel may write; the constants it
    reads (memref.get_global: the weights) are copied to the device where
    they are read; the host's temporaries become gpu.alloc / gpu.dealloc.
    Every copy is freed at every return. Weights are copied at every call
    for now. Code outside the kernels that would read or write such a
    buffer is an error that names it.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def SinkKernelConstants
    : Pass<"tcl-sink-kernel-constants", "::mlir::func::FuncOp"> {
  let summary = "Moves the constants a vectorized kernel uses into it";
  let description = [{
    Canonicalization hoists constants out of gpu.launch bodies to the
    function's entry, and outlining then passes them as kernel arguments,
    of which LLVM knows nothing. For a kernel with vector code (a register
    tile kept across its reduction), this pass moves the constants it uses
    (and memref.dim of values outside) back into the launch: with its
    strides and offsets known, LLVM proves its row loads 16-byte aligned
    (see tcl-align-kernel-pointers) and merges them into 128-bit loads.
    Scalar kernels keep their constants as arguments: knowing their trip
    counts, LLVM fully unrolls their reduction loops and ptxas spilled up to
    4 KB a thread (a TCN's dilated convolutions).
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def AlignKernelPointers
    : Pass<"tcl-align-kernel-pointers", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Tells LLVM that a kernel's buffers start 256-byte aligned";
  let description = [{
    Every buffer a tcl kernel receives is a device allocation (the host
    code's gpu.alloc, cuMemAlloc underneath, which aligns to 256 bytes) or
    a view of one, and a view keeps its allocation's pointers in the
    memref descriptor (its displacement is the offset field). This pass
    marks each pointer argument of the module's kernels (`nvvm.kernel`
    LLVM functions) `llvm.align = 256`, so that LLVM's NVPTX back end,
    whose load/store vectorizer needs a provable alignment, merges a
    thread's neighbouring elements into 128-bit loads and stores
    (`ld.global.v4.f32`): a quarter of the load instructions, and fewer
    cache wavefronts when a warp's threads each read a short row.

    The module's shared memory (the globals of workgroup attributions,
    address space 3) is aligned to 16 bytes, which its 128-bit loads need:
    its rows are 16-byte multiples (tcl-promote-gpu-operands), but the
    lowering declares the arrays 4-byte aligned.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def MergeGPUModules : Pass<"tcl-merge-gpu-modules", "ModuleOp"> {
  let summary = "Moves every outlined kernel into one gpu.module";
  let description = [{
    gpu-kernel-outlining gives each kernel a gpu.module of its own; a model
    would become hundreds of PTX modules. This pass moves the kernels into
    the first gpu.module (renamed `tcl_kernels`, its target kept) and points
    every gpu.launch_func at it, so a model compiles to one PTX module that
    is loaded once. Kernel names stay unique: outlining names each after
    its own module.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def OutlineLoopNests : Pass<"tcl-outline-loop-nests", "ModuleOp"> {
  let summary = "Moves every top-level loop nest into a function of its own";
  let description = [{
    After bufferization, a model's entry function is a sequence of loop
    nests (one or a few per task) over buffers. Left in one function, a
    model of hundreds of tasks becomes one LLVM function of hundreds of
    thousands of instructions, and LLVM's loop passes (scalar evolution,
    induction variable simplification) grow faster than linearly with a
    function's size: compile time explodes with model depth. This pass
    moves each top-level operation that holds a loop (an scf loop or a
    linalg op) into a private function `<function>.<what>`, where `<what>`
    is the first task found inside (`tcl.task_nest` on the loops its
    schedule made, or `tcl.task` on an anchor) or else the first named
    location (an ONNX node), else `nest<N>`, so that profiles name it; it is called in
    its place, marked `no_inline` (LLVM would inline a function called
    once) and with internal linkage. The function takes the buffers (and
    globals) the nest uses; the side-effect-free values it reads (constants,
    views) are cloned into it, so offsets and sizes stay constants to LLVM.
    Nests whose functions would be the same code (one task's instances: the
    same workload and schedule, other weights) share one function.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def ProfileNests : Pass<"tcl-profile-nests", "ModuleOp"> {
  let summary = "Counts the time of every call of an outlined loop nest";
  let description = [{
    For `tcl-run --profile` and `tcl-compile --profile`: runs after
    tcl-outline-loop-nests, when a function is a sequence of calls of its
    loop nests. Every such call site gets two counters, the time stamp
    counter's ticks spent in it (`llvm.readcyclecounter` before and after)
    and the number of calls; every function that calls nests gets a site
    for its whole run too, so what is spent outside the nests (allocation,
    code that was not outlined) is the difference. The counters are the
    public global `tcl_profile_counters` (i64 [sites x 2]); the sites are
    described by the public constant `tcl_profile_sites`, one line each:
    function, callee (empty for the whole function), the task whose
    schedule made the callee's loops (`tcl.task_nest`, empty for leftover
    ops: pads, copies, transposes) and the linalg ops in the callee (else
    its loop ops), separated by tabs (the text ends with a NUL). A compiled library
    exports both, so that a runner reads them (tcl/Runtime/Profile.h).
    Calls from several threads at once would race on the counters.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def SetTargetAttributes : Pass<"tcl-set-target-attributes", "ModuleOp"> {
  let summary = "Pins the target CPU, features and vector width of every function";
  let description = [{
    Sets `target_cpu`, `target_features` and the preferred/minimum legal
    vector width of every `llvm.func` from a named platform, so that code
    generation does not depend on the machine that compiles.
  }];
  let options = [
    Option<"target", "target", "std::string",
           /*default=*/"::mlir::tcl::getHostTargetArch().name.str()",
           "Target architecture (tcl/Target/Platform.h); by default the "
           "host's">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}


//===----------------------------------------------------------------------===//
// Graph level: run on imported models before task extraction
//===----------------------------------------------------------------------===//

def PropagateLayout : Pass<"tcl-propagate-layout", "::mlir::func::FuncOp"> {
  let summary = "Removes layout transposes by moving them through elementwise ops";
  let description = [{
    The importer computes convolutions and pools channels-last (NHWC), with
    a transpose from and back to the model's NCHW around each. This pass
    moves every transpose down through the linalg.generic ops that read it
    (elementwise ops are computed in the source layout and transposed
    after; reductions read the source layout directly), and composes
    consecutive transposes, so that a transpose back to NCHW meets the next
    convolution's transpose to NHWC and both vanish. A generic moves only
    when all its full-size inputs come through the same permutation and
    every other user of those transposes is a transpose or a generic, so
    the number of transposes never grows. A transpose that moves only unit
    dims (the others keep their order) becomes a reshape.

    Batch matmuls read their inputs and write their result in the layouts
    around them: an input that is a transpose (seen through reshapes of
    unit dims) is read from its source, and a result whose one user is a
    transpose is written in its layout, as tcl's batch matmul form
    (tcl/Support/PermutedBatchMatmul.h), as long as n stays the innermost
    dim of the right-hand side and of the result (attention's [S, H, D]
    queries, values and outputs; its keys keep their transpose). Reshapes
    through a flat vector go through the finest shape both sides share,
    and a collapse of a slice that only drops unit dims becomes a
    rank-reducing slice, so that a head's slice of a fused projection stays
    a view.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FoldConstants : Pass<"tcl-fold-constants", "::mlir::func::FuncOp"> {
  let summary = "Evaluates linalg ops whose inputs are all constants";
  let description = [{
    Replaces by constants: linalg.transpose of a constant (weights exported
    in another layout), all-parallel linalg.generic ops whose inputs are all
    constants (evaluated through the fold hooks of their body's ops, up to
    `max-elements` results), and tensor.extract_slice of a constant;
    reshapes of constants fold by canonicalization.
  }];
  let options = [
    Option<"maxElements", "max-elements", "int64_t", /*default=*/"1 << 20",
           "Largest generic result (elements) evaluated at compile time">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def FoldBatchNorm : Pass<"tcl-fold-batch-norm", "::mlir::func::FuncOp"> {
  let summary = "Folds per-channel scales (BatchNorm) into convolution weights";
  let description = [{
    A BatchNormalization in inference is a per-channel scale and shift. This
    pass multiplies a per-output-channel constant scale that follows a
    convolution with constant weights (linalg.conv_2d_nhwc_hwcf or
    linalg.depthwise_conv_2d_nhwc_hwc, the importer's forms) into the
    weights, first moving it above per-channel constant shifts (the
    convolution's bias): (conv + b) * s = conv * s + b * s. The shifts then
    merge into one epilogue by elementwise fusion.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def FuseElementwise : Pass<"tcl-fuse-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Fuses chains of elementwise linalg.generic ops";
  let description = [{
    Merges an elementwise producer into its consumer when the producer has
    one use and the consumer reads it without broadcasting (so nothing is
    recomputed), with upstream linalg's fusion patterns. A chain of
    elementwise ops becomes one op: one loop nest and no intermediate
    tensors, and one epilogue for the anchor before it.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def ConvolutionsAsMatmuls
    : Pass<"tcl-convolutions-as-matmuls", "::mlir::func::FuncOp"> {
  let summary = "Computes 1x1 stride-1 convolutions as matmuls";
  let description = [{
    A linalg.conv_2d_nhwc_hwcf with a 1x1 window and unit strides is a
    matmul of its input's rows (batch, rows and columns collapsed into one
    dimension of N*H*W) with its 1x1xCxF filter as a CxF matrix. The matmul's
    M dimension can be tiled across image rows, which a convolution's
    register tile cannot: on a 7x7 map a convolution tile has at most 7
    columns, a matmul tile up to 49 rows, and channel counts that leave a
    partial vector tile (440) no longer force narrow tiles. The collapse is
    free (NHWC rows are contiguous). The result is expanded back to NHWC;
    tcl-fuse-elementwise then computes the elementwise generics that read
    the expansion (the epilogue: bias, activation, residual adds) in the
    matmul's shape, so the epilogue joins the matmul's task. Runs after
    tcl-fold-batch-norm, which folds scales into convolutions. Its tcl.*
    attributes (a task tag) stay on the matmul. Not a convolution whose
    result (through its elementwise epilogue, and as a part of a
    concatenation) is padded into a copy, the input of a full or grouped 3x3
    convolution (RegNet's 1x1 -> grouped 3x3, UNet's up path): a
    convolution computes its pixels into the middle of the padded tensor
    (tcl-write-into-consumers), where a matmul's rows of collapsed pixels
    cannot go, and the copy cost more than the matmul's wider tiles gain
    (RegNet-Y-400MF 1 thread: leftover nests 6.7 -> 2.2 %, run 3-4 %
    faster; UNet: 6.1-6.7 -> 3.3-3.8 %, the convolutions as fast as the
    matmuls were).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def BlockConvolutionFilters
    : Pass<"tcl-block-convolution-filters", "::mlir::func::FuncOp"> {
  let summary = "Packs constant convolution filters into blocks of output "
                "channels";
  let description = [{
    A linalg.conv_2d_nhwc_hwcf with a constant f32 filter, a kernel window
    (not 1x1), static shapes and at least min-channels output channels, a
    multiple of block-channels,
    becomes the filter-blocked form of tcl's grouped convolution
    (tcl/Support/GroupedConv.h): the filter [KH, KW, C, F] is packed at
    compile time into [F / B, KH, KW, C, B] (B = block-channels), the
    result computed as [N, OH, OW, F / B, B] and collapsed back to NHWC
    (tcl-fuse-elementwise then computes the epilogue in that shape, fused
    into the convolution's task). Why: in HWCF the weights a register tile
    reads for one input channel lie F floats after those of the previous
    one; with F = 512 these rows are 2 KB apart, fall into a few sets of
    the L1 cache and defeat its prefetchers, and ResNet-18's 3x3 512->512
    at 7x7 ran at 40-48 % of the FMA peak. In blocks of 64 channels the
    rows are contiguous: 1.9 -> 1.5 ms with its bias and ReLU at one thread
    (Intel Xeon, Granite Rapids class). Convolutions with tcl.* attributes
    (a task tag a schedule names) are left alone. Runs after
    tcl-fold-batch-norm (which scales the filter),
    tcl-convolutions-as-matmuls and tcl-winograd-convolutions (which take
    the convolutions they compute otherwise), before tcl-fuse-elementwise.
  }];
  let options = [
    Option<"minChannels", "min-channels", "int64_t", /*default=*/"256",
           "The fewest output channels of a convolution whose filter is "
           "packed">,
    Option<"blockChannels", "block-channels", "int64_t", /*default=*/"64",
           "Output channels a block (a multiple of every x86 vector width)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def WinogradConvolutions
    : Pass<"tcl-winograd-convolutions", "::mlir::func::FuncOp"> {
  let summary = "Computes 3x3 stride-1 convolutions by Winograd's F(4x4) or "
                "F(2x2) algorithm";
  let description = [{
    A linalg.conv_2d_nhwc_hwcf with a 3x3 window, unit strides and
    dilations, a constant f32 filter, a zero-filled accumulator and output
    rows and columns that split into 4x4 blocks (else 2x2 blocks) becomes
    Winograd's minimal filtering F(m x m, 3 x 3): the filter transformed at
    compile time into (m+2)^2 matrices of C x F, the input tiles transformed
    by two elementwise generics (rows, then columns), one
    linalg.batch_matmul of (m+2)^2 products [tiles x C] x [C x F], and the
    output transformed by two more generics into [N, H/m, m, W/m, m, F],
    collapsed to the convolution's NHWC result (tcl-fuse-elementwise then
    fuses the epilogue into the last generic). F(4x4) does 36/144 of the
    convolution's multiplications, F(2x2) 16/36; their results differ from
    the direct convolution's by rounding (F(4x4): relative errors of about
    1e-5 of the output's magnitude). Convolutions with fewer than
    min-channels input or output channels, or with tcl.* attributes (a task
    tag a schedule names), are left alone. Runs after tcl-fold-batch-norm,
    which folds scales into the filter, and before tcl-fuse-elementwise.
  }];
  let options = [
    Option<"minChannels", "min-channels", "int64_t", /*default=*/"16",
           "The fewest input and output channels a convolution computed by "
           "Winograd has">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::tensor::TensorDialect"];
}

def DefaultSchedules : Pass<"tcl-default-schedules", "ModuleOp"> {
  let summary = "Gives every schedulable op without a schedule the default one";
  let description = [{
    Linalg ops tcl can schedule (see lookupAnchor) that are not yet part of
    a task become tasks `default_<n>`; every task without a schedule gets
    the default schedule of its op class for the target (see
    DefaultSchedule.h). Tasks that already have a schedule are left alone.
  }];
  let dependentDialects = ["::mlir::tcl::TclDialect"];
  let options = [
    Option<"target", "target", "std::string",
           /*default=*/"::mlir::tcl::getHostTargetArch().name.str()",
           "Target architecture; by default the host's">,
    Option<"numThreads", "num-threads", "unsigned", /*default=*/"1",
           "Threads of parallel loops">,
  ];
}

#endif // TCL_TRANSFORMS_PASSES_TD
