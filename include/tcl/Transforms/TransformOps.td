//===- TransformOps.td - tcl's transform dialect extension -*- tablegen -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Transform ops that schedules lower onto where upstream has none.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_TRANSFORMS_TRANSFORMOPS_TD
#define TCL_TRANSFORMS_TRANSFORMOPS_TD

include "mlir/Dialect/Transform/IR/TransformDialect.td"
include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpBase.td"

def DecomposeGroupedConvOp : Op<Transform_Dialect, "tcl.decompose_grouped_conv",
    [FunctionalStyleTransformOpTrait, MemoryEffectsOpInterface,
     TransformOpInterface, TransformEachOpTrait,
     ReportTrackingListenerFailuresOpTrait]> {
  let summary = "Rewrites a one-group tile of a grouped convolution as a 1-D "
                "convolution";
  let description = [{
    The target must be tcl's grouped 2-D convolution (a linalg.generic, see
    tcl/Support/GroupedConv.h) whose group loop and one (output, kernel)
    window pair, H or else W, have extent 1. It becomes a
    `linalg.conv_1d_nwc_wcf` on rank-reduced slices of its operands, which
    MLIR vectorizes, as `transform.structured.decompose` does for the named
    2-D convolutions. Returns the new op.
  }];
  let cppNamespace = "::mlir::tcl";
  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs TransformHandleTypeInterface:$transformed);
  let assemblyFormat =
      "$target attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::linalg::LinalgOp target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def PeelPartialLoopsOp : Op<Transform_Dialect, "tcl.peel_partial_loops",
    [DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Peels the last, partial iteration of loops whose step does "
                "not divide their static range";
  let description = [{
    Each scf.for of the target with constant bounds and a step that does not
    divide its range is split into a loop of whole steps and a loop over the
    remainder (upstream `scf::peelForLoopAndSimplifyBounds`), so that the
    tiles inside both have static sizes and are vectorized without padding.
    Other loops (dividing steps, bounds known only at run time, other ops)
    are left as they are. Loops nested in others of the target are peeled
    first, so that peeling an outer loop copies the peeled inner ones. The
    remainder loops run once; their induction variable becomes the constant
    it takes, and the bodies of the outermost loops peeled are canonicalized
    so that the tiles inside have static types (the loops themselves stay).

    The main loops stay the ops that handles refer to; the remainder loops
    and what they hold are new ops that no handle refers to (schedules find
    them again by their attributes, which are copied).
  }];
  let cppNamespace = "::mlir::tcl";
  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs);
  let assemblyFormat = "$target attr-dict `:` type($target)";
}

def SkipZeroBorderTapsOp : Op<Transform_Dialect, "tcl.skip_zero_border_taps",
    [DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Narrows a tiled convolution's or pooling's kernel-window "
                "loops to the taps that read more than the border of its input";
  let description = [{
    Each target is a tile of a 2-D convolution on tensors
    (`linalg.conv_2d_nhwc_hwcf`, `linalg.depthwise_conv_2d_nhwc_hwc` or
    tcl's grouped convolution) or pooling (`linalg.pooling_nhwc_max`,
    `linalg.pooling_nhwc_sum`) whose input is a unit-stride slice, directly
    or through other such slices, of a `tensor.pad` with static low padding
    and a padding value that changes nothing: zero for a convolution and a
    sum, -inf for a maximum. Where the tile's kernel-window offset
    along H or W is the induction variable of an enclosing `scf.for` of
    step 1 (a window tile of one tap) that holds no other structured op, the
    loop's bounds become those of the taps whose input rows (columns) are not
    all in the padding: the skipped taps would only add zero products (or
    take the maximum with -inf). The
    new bounds are computed before the loop from the values the offsets are
    made of (an affine.apply of the induction variable and values defined
    outside the loop); a loop whose offsets depend on anything else is left
    as it is, as are targets of other kinds. A convolution on a 7x7 map with
    a 3x3 kernel and a border of 1 then runs 19 of 21 kernel rows per output
    column tile, as the vendor library does.
  }];
  let cppNamespace = "::mlir::tcl";
  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs);
  let assemblyFormat = "$target attr-dict `:` type($target)";
}

def FoldPaddingIntoTilesOp : Op<Transform_Dialect,
    "tcl.fold_padding_into_tiles",
    [DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Tiles of a tiled op read its padded input from the "
                "unpadded tensor instead of a padded copy";
  let description = [{
    Each target is a tiled op on tensors whose first input is a unit-stride
    slice, directly or through other such slices, of a `tensor.pad` with a
    constant padding value, static padding and static shapes, which only
    such slices inside loops use. The padded tensor is then never built
    (a copy of the whole input and a fill of its border, before the op):

    - slices of slices of the padded tensor become one slice of it;
    - along each padded dimension, the innermost enclosing `scf.for` whose
      induction variable moves the slice (preferring the loops of the
      target's output tile) is split in three: the iterations before the
      first whose slice lies inside the source along that dimension, those
      that do, and those after (bounds computed before the loop, constants
      where everything is static; the offsets must be affine in induction
      variables and values defined outside, loops nested inside the split
      one need constant ranges, or `arith.maxsi`/`arith.minsi` bounds with
      a constant);
    - a slice inside the source along every padded dimension reads the
      source directly; any other slice (in the first or the last part of a
      split) becomes a small padded tile of its own: the padding value
      filled into a tensor of the slice's static shape, the part of the
      source it covers inserted into it.

    Ops of other kinds, and pads used otherwise or whose slices cannot be
    analyzed, are left as they are. Loops are cloned: handles to ops inside
    them are invalidated, and schedules find the ops again by their
    attributes, which are copied.
  }];
  let cppNamespace = "::mlir::tcl";
  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs);
  let assemblyFormat = "$target attr-dict `:` type($target)";
}

def FuseFillIntoTileLoopsOp : Op<Transform_Dialect,
    "tcl.fuse_fill_into_tile_loops",
    [DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Each tile of a sequential loop nest fills its own output "
                "slice, instead of one fill of the whole output before it";
  let description = [{
    Each target is a tiled linalg op on tensors with one output, a
    `tensor.extract_slice` of an `scf.for` iteration argument, whose chain
    of enclosing loops (each one's iteration argument initialized by the
    next one out's) starts from the result of a `linalg.fill` that nothing
    else uses. The fill then moves into the loops: the outermost loop
    starts from the fill's own output operand, and the target's output
    slice is filled right before the target, so each tile zeroes its
    part of the output while it is in cache rather than the whole output
    being written, evicted and read back. (An `scf.forall` fuses a fill
    with `fuse_into_containing_op`; an `scf.for`, whose tiles reach the
    output through iteration arguments, cannot.)

    Loops that the target's output slice does not move with (a reduction
    tiled by the level) must lie inside all those it moves with: the
    slice is then filled right before the outermost of them, which starts
    from the filled tensor, so that each element of the output is filled
    once, before its first reduction step. A register tile then starts from
    accumulators it knows to be zero (`tcl.forward_filled_reads`) and its
    output is written once, instead of being filled, read back and
    written.
    The emitter applies it to each sequential tile level as long as the
    fill stays outside every tiled reduction. Targets that do not match
    are left as they are. The targets stay the ops that handles refer to;
    the fill is erased, and `fills` holds the fills made.
  }];
  let cppNamespace = "::mlir::tcl";
  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs TransformHandleTypeInterface:$fills);
  let assemblyFormat =
      "$target attr-dict `:` functional-type(operands, results)";
}

def FillSplitPiecesOp : Op<Transform_Dialect, "tcl.fill_split_pieces",
    [DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Each piece of a split op fills its own output slice, "
                "instead of one fill of the whole output before them";
  let description = [{
    The targets are the pieces of one linalg op split along a parallel
    dimension (`transform.structured.split`, all of them: together they
    write the whole output). Each piece's output is a
    `tensor.extract_slice` of the output the split started from, reached
    through the `tensor.insert_slice`s of the pieces before it (and the
    slices of a piece that was split again). Where that
    output is the result of a `linalg.fill` that nothing but this chain
    uses, each piece's slice is filled right before the piece instead, and
    the chain starts from the fill's own output operand: then
    `tcl.fuse_fill_into_tile_loops` can move each piece's fill into its
    tile loops. Pieces in any other form are left as they are.
  }];
  let cppNamespace = "::mlir::tcl";
  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs);
  let assemblyFormat = "$target attr-dict `:` type($target)";
}

def ForwardFilledReadsOp : Op<Transform_Dialect,
    "tcl.forward_filled_reads",
    [DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Reads of a tile that was just filled become the fill's "
                "value";
  let description = [{
    In the targets (loop nests on tensors), each `vector.transfer_read`
    without a mask and in bounds whose source holds one value everywhere,
    as the ops that make it show, is replaced by that value broadcast: a
    `linalg.fill`, a `vector.transfer_write` of a splat that covers its
    whole destination, a `tensor.extract_slice` of either, or the slice of
    an insertion that reads back exactly what was inserted. A register
    tile whose fill `tcl.fuse_fill_into_tile_loops` moved right before its
    reduction then starts from zero accumulators instead of loading the
    zeros it just stored. Then each such fill (or write of a splat) whose
    every use is a write that covers it, through slices that cover it, is
    dropped: those writes go to the tensor it filled.
  }];
  let cppNamespace = "::mlir::tcl";
  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs);
  let assemblyFormat = "$target attr-dict `:` type($target)";
}

def SplitVectorRemaindersOp : Op<Transform_Dialect,
    "tcl.split_vector_remainders",
    [DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Splits tiles whose vector dimension is not a power of two "
                "into pieces that are";
  let description = [{
    The vector dimension of a linalg op is the loop that indexes its
    output's innermost (contiguous) dimension: the lanes vectorization
    fills (a matmul's columns, a convolution's output channels). Where a
    target's static extent there is not a power of two (a remainder tile
    of 24 lanes, left by 440 channels in tiles of 32), the op is split
    along it (upstream `linalg::splitOp`) into power-of-two pieces, largest
    first: 24 = 16 + 8, 56 = 32 + 16 + 8. The pieces stay in the same
    loops, so one reduction step runs them all, as one register tile.
    Vectorized whole, such a tile becomes vectors of 24 or 48 lanes, which
    LLVM widens to the next power of two and shuffles on every step.

    Ops that need no split, are not linalg ops or have a dynamic extent
    there are returned as they are. Returns the pieces and those ops.
  }];
  let cppNamespace = "::mlir::tcl";
  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs TransformHandleTypeInterface:$pieces);
  let assemblyFormat =
      "$target attr-dict `:` functional-type(operands, results)";
}

def SkipZeroBorderProductsOp : Op<Transform_Dialect,
    "tcl.skip_zero_border_products",
    [DeclareOpInterfaceMethods<TransformOpInterface>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Narrows the vector contractions of a convolution's register "
                "tile to the rows whose input is not zero padding";
  let description = [{
    Where a register tile spans a convolution's whole output width (a 7x7
    map: 7 output columns a tile), every kernel column reads the zero
    padding for one of them: a 3x3 kernel on 7 columns with a border of 1
    computes 21 products of which 2 are zeros. `tcl.skip_zero_border_taps`
    can skip a kernel column only where it reads padding for every column
    of the tile. This op, run on the vectorized loops of a task (after the
    accumulators are hoisted into loop-carried vectors), drops those
    products one by one.

    Each `vector.contract` of kind add in the targets whose left-hand
    side is a `vector.transfer_read` (at index 0, all in bounds, minor
    identity) of unit-stride slices of a `tensor.pad` with a zero padding
    value is looked at along each dimension of the left-hand side that is
    a parallel dimension of the accumulator and not of the right-hand side
    (a row of the register tile). Where that dimension's offset in the
    padded tensor depends on the induction variable of an enclosing
    `scf.for` with constant bounds and at most 16 iterations (the kernel
    column loop), and some iteration reads padding there, that loop is
    unrolled. Then, where the offset is a constant, the contraction is
    narrowed to the rows that read inside the padded tensor's source: the
    accumulator's other rows pass through unchanged (vector
    `extract_strided_slice` and `insert_strided_slice`, free once lowered
    to registers). A contraction whose rows are all padding is removed.

    Anything else is left as it is.
  }];
  let cppNamespace = "::mlir::tcl";
  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs);
  let assemblyFormat = "$target attr-dict `:` type($target)";
}

#endif // TCL_TRANSFORMS_TRANSFORMOPS_TD
