//===- TclSchedOps.td - Schedule primitives (tcl.sched.*) --*- tablegen -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_DIALECT_TCL_IR_TCLSCHEDOPS_TD
#define TCL_DIALECT_TCL_IR_TCLSCHEDOPS_TD

include "tcl/Dialect/Tcl/IR/TclDialect.td"
include "tcl/Dialect/Tcl/IR/TclInterfaces.td"
include "mlir/IR/OpBase.td"

//===----------------------------------------------------------------------===//
// The schedule container
//===----------------------------------------------------------------------===//

def Tcl_ScheduleOp : Tcl_Op<"sched.schedule", [
    NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "A schedule: primitives applied in order to one task's anchor op";
  let description = [{
    Names the task it applies to (payload operations carry
    `tcl.task = "<task>"` on the anchor and `tcl.epilogue = "<task>"` on the
    elementwise consumers fused with it), the anchor operation, the target
    platform and the anchor's iteration domain: one `<extent> <kind>` entry
    per loop, `?` for a dynamic extent. The body lists the primitives.

    ```mlir
    tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
        loops [256 parallel, 256 parallel, 256 reduction] {
      tcl.sched.tile [64, 256, 128]
      tcl.sched.parallelize
      tcl.sched.tile [8, 32, 1]
      tcl.sched.vectorize
      tcl.sched.hoist_accumulators
    }
    ```

    The verifier replays the primitives over the declared loop nest and
    rejects the first one that does not apply, naming it and the reason.
  }];
  let arguments = (ins StrAttr:$task, StrAttr:$anchor, StrAttr:$target,
                       DenseI64ArrayAttr:$extents, StrAttr:$loop_kinds);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `task` $task `anchor` $anchor `target` $target
    `loops` custom<LoopDomain>($extents, $loop_kinds) attr-dict-with-keyword
    $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::llvm::StringRef":$task, "::llvm::StringRef":$anchor,
                   "::llvm::StringRef":$target,
                   "::llvm::ArrayRef<int64_t>":$extents,
                   "::llvm::StringRef":$loopKinds)>,
  ];
  let extraClassDeclaration = [{
    /// Replays the primitives over the declared domain. Stops at, and emits
    /// the diagnostic of, the first primitive that does not apply.
    ::mlir::FailureOr<ScheduleState> replay();
    /// The initial state: the declared domain, no tile levels.
    ::mlir::FailureOr<ScheduleState> getInitialState();
  }];
}

//===----------------------------------------------------------------------===//
// Primitives
//===----------------------------------------------------------------------===//

class Tcl_PrimitiveOp<string mnemonic, list<Trait> traits = []>
    : Tcl_Op<"sched." # mnemonic, !listconcat(traits, [
        HasParent<"ScheduleOp">,
        DeclareOpInterfaceMethods<Tcl_SchedulePrimitiveOpInterface>])>;

def Tcl_TileOp : Tcl_PrimitiveOp<"tile"> {
  let summary = "Tiles the anchor's loops: one level of a multi-level tiling";
  let description = [{
    One tile size per loop dimension of the current domain, 0 leaving the
    dimension untiled. Chaining `tile` primitives gives multi-level tiling;
    each level's sizes must not exceed the extents left by the previous one.
    A size need not divide its extent: the loops of a sequential level are
    then peeled (the whole tiles, then the last one, each of static size);
    a parallel level (`parallelize`) is not, and leaves tiles whose size is
    known only at run time.
  }];
  let arguments = (ins DenseI64ArrayAttr:$sizes);
  let assemblyFormat = "custom<IntList>($sizes) attr-dict";
}

def Tcl_InterchangeOp : Tcl_PrimitiveOp<"interchange"> {
  let summary = "Orders the loops of the preceding tile level";
  let description = [{
    A permutation of the loop dimensions, outermost first, applied to the
    loops created by the most recent `tile`.
  }];
  let arguments = (ins DenseI64ArrayAttr:$permutation);
  let assemblyFormat = "custom<IntList>($permutation) attr-dict";
}

def Tcl_ParallelizeOp : Tcl_PrimitiveOp<"parallelize"> {
  let summary = "Makes the loops of the preceding tile level parallel";
  let description = [{
    The most recent tile level becomes one `scf.forall` over its loops. Only
    parallel dimensions may be tiled at that level.

    On a CPU (no mapping) its iterations run on the target's threads, and a
    schedule has at most one such level. On a GPU a schedule has two: the
    first, `parallelize blocks`, maps the level's loops onto the grid's
    blocks, and a later one, `parallelize threads`, maps its loops onto the
    threads of a block (at most 1024 of them). Each maps at most three
    loops, the innermost onto `x`, so that neighbouring threads touch
    neighbouring elements.

    ```mlir
    tcl.sched.tile [64, 64, 0]
    tcl.sched.parallelize blocks
    tcl.sched.tile [4, 4, 0]
    tcl.sched.parallelize threads
    ```
  }];
  let arguments = (ins OptionalAttr<StrAttr>:$mapping);
  let assemblyFormat = "custom<ParallelMapping>($mapping) attr-dict";
  let builders = [
    OpBuilder<(ins), [{ build($_builder, $_state, ::mlir::StringAttr()); }]>,
    OpBuilder<(ins "ParallelMapping":$mapping)>,
  ];
  let extraClassDeclaration = [{
    /// Where the level's iterations run; CpuThreads without a mapping.
    ParallelMapping getParallelMapping();
  }];
}

def Tcl_FuseEpilogueOp : Tcl_PrimitiveOp<"fuse_epilogue"> {
  let summary = "Fuses the task's epilogue and the anchor into one loop nest";
  let description = [{
    The task's last epilogue operation (e.g. bias + ReLU after a matmul) is
    tiled with the preceding tile level's sizes for the parallel dimensions
    and the anchor and the rest of the epilogue are fused into that loop
    nest. It must follow the first tile level, which must not tile reduction
    dimensions.
  }];
  let assemblyFormat = "attr-dict";
}

def Tcl_DecomposeOp : Tcl_PrimitiveOp<"decompose"> {
  let summary = "Rewrites a 2-D window op as a 1-D one after unit tiling";
  let description = [{
    Once an output window dimension and its kernel dimension (H or W) have
    extent 1 in the current tile, rewrites a 2-D convolution or pooling as
    its 1-D form, which MLIR vectorizes. The two dimensions leave the domain.
    A grouped convolution also needs its group dimension at extent 1, and
    becomes a plain 1-D convolution: the group dimension leaves too.
  }];
  let assemblyFormat = "attr-dict";
}

def Tcl_SplitReductionOp : Tcl_PrimitiveOp<"split_reduction"> {
  let summary = "Splits the reduction dimension into parallel partial sums";
  let description = [{
    The single reduction dimension of extent K becomes a parallel dimension
    of extent `factor` (placed just before it) and a reduction of extent
    K / factor; a separate operation combines the partial results.
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntPositive]>:$factor);
  let assemblyFormat = "`by` $factor attr-dict";
}

def Tcl_PadOp : Tcl_PrimitiveOp<"pad"> {
  let summary = "Copies operand tiles into padded local buffers";
  let description = [{
    Pads the current tile of the listed operands (input indices first, then
    outputs) to the full tile sizes and copies them into a local buffer, a
    contiguous layout that keeps the innermost loops in cache and makes
    partial tiles full ones. With `hoist N`, each copy is hoisted out of N
    enclosing loops (packing a whole panel at once).

    On a GPU, it puts a matmul's inputs in shared memory: placed after a
    sequential level inside the thread level that tiles the reduction only
    (`tile [0, 0, 16]`), at each step of that level the block's threads
    copy the block's tiles of both inputs (`[0, 1]`) into shared memory
    together, A transposed so that a thread's rows are contiguous, each
    buffer's rows padded by 4 elements against bank conflicts; the threads
    then read their tiles there (tcl-promote-gpu-operands).
  }];
  let arguments = (ins DenseI64ArrayAttr:$operands,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$hoist);
  let assemblyFormat = "custom<IntList>($operands) (`hoist` $hoist^)? attr-dict";
}

def Tcl_VectorizeOp : Tcl_PrimitiveOp<"vectorize"> {
  let summary = "Vectorizes the innermost tile";
  let description = [{
    Turns the innermost tile of the anchor into vector operations. Every
    dimension must have a static extent by then (tile dynamic ones). Tiles
    of run-time size (below a parallel level that does not divide) are
    padded to the full tile in registers first; a convolution's cannot be.
    Ends the structural part of the schedule.
  }];
  let assemblyFormat = "attr-dict";
}

def Tcl_UnrollOp : Tcl_PrimitiveOp<"unroll"> {
  let summary = "Unrolls one loop of a tile level";
  let description = [{
    Unrolls the loop of dimension `dim` at tile level `level` (a sequential
    one) by `factor`, innermost loops first. In a CPU schedule it follows
    `vectorize`; in a GPU schedule (scalar code, no `vectorize`) it ends the
    schedule.
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$level,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$dim,
                       ConfinedAttr<I64Attr, [IntMinValue<2>]>:$factor);
  let assemblyFormat = "`level` $level `dim` $dim `by` $factor attr-dict";
}

def Tcl_HoistAccumulatorsOp : Tcl_PrimitiveOp<"hoist_accumulators"> {
  let summary = "Keeps the accumulator tile in registers across the reduction loop";
  let description = [{
    After vectorization, hoists the loop-invariant reads and writes of the
    output tile out of the innermost loop of the last tile level, which must
    be a reduction loop, and out of the reduction loops of that level that
    directly enclose it (a convolution's kernel rows and columns around its
    input channels).
  }];
  let assemblyFormat = "attr-dict";
}

#endif // TCL_DIALECT_TCL_IR_TCLSCHEDOPS_TD
