// A register tile whose reduction lies inside it takes the fill of its
// output in (tcl.fuse_fill_into_tile_loops at each tile level): once its
// accumulators are hoisted, their first read is of the zeros just filled,
// and becomes the zero vector (tcl.forward_filled_reads), and the fill
// that nothing reads any more is dropped. No pass fills the output whole
// and reads it back: the output is written once. A convolution split at
// its padded sides (tcl.fill_split_pieces) takes it in each piece: the
// first column, the columns between and the last column.
// RUN: tcl-opt %s --tcl-apply-schedule | FileCheck %s
// RUN: tcl-opt %s --tcl-apply-schedule=emit-transform | FileCheck %s --check-prefix=EMIT
// (register-tile-fill-run.mlir runs these functions.)

// Each tile level takes the fill on; the pieces fill their own outputs
// before the register tiles take the fills in; the register tiles' fills
// are vectorized with them; the reads are forwarded at the end.
// EMIT-LABEL: transform.named_sequence @__tcl_dw_0
//       EMIT:   transform.structured.tile_using_for {{.*}} tile_sizes [0, 2, 0, 0, 0, 0]
//  EMIT-NEXT:   transform.tcl.fuse_fill_into_tile_loops
//       EMIT:   transform.structured.split
//       EMIT:   transform.structured.split
//       EMIT:   transform.tcl.fill_split_pieces %[[PIECES:.*]] :
//  EMIT-NEXT:   transform.structured.tile_using_for %[[PIECES]] tile_sizes [0, 1, 4, 16, 1, 0]
//  EMIT-NEXT:   transform.tcl.fuse_fill_into_tile_loops
// (Found again by their tag after the peeling, then after the padding's
// fold, which copy them.)
//       EMIT:   transform.structured.match attributes {__tcl_sched_tile_fill}
//       EMIT:   %[[FILLS:.*]] = transform.structured.match attributes {__tcl_sched_tile_fill}
//       EMIT:   transform.structured.vectorize
//  EMIT-NEXT:   transform.structured.vectorize %[[FILLS]]
//       EMIT:   transform.tcl.forward_filled_reads

// CHECK-LABEL: func.func @dw
//   CHECK-DAG:   %[[MIDDLE:.*]] = arith.constant dense<0.000000e+00> : vector<1x4x16xf32>
//   CHECK-DAG:   %[[SIDE:.*]] = arith.constant dense<0.000000e+00> : vector<1x1x16xf32>
//   CHECK-NOT:   linalg.fill
//       CHECK:   scf.for {{.*}} iter_args(%{{.*}} = %[[SIDE]]) -> (vector<1x1x16xf32>)
//   CHECK-NOT:   linalg.fill
//       CHECK:   scf.for {{.*}} iter_args(%{{.*}} = %[[MIDDLE]]) -> (vector<1x4x16xf32>)
//   CHECK-NOT:   linalg.fill
//       CHECK:   scf.for {{.*}} iter_args(%{{.*}} = %[[SIDE]]) -> (vector<1x1x16xf32>)
//   CHECK-NOT:   linalg.fill
//       CHECK:   return
func.func @dw(%x: tensor<1x10x10x32xf32>, %w: tensor<3x3x32xf32>) -> tensor<1x10x10x32xf32> {
  %zero = arith.constant 0.0 : f32
  %in = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x10x10x32xf32> to tensor<1x12x12x32xf32>
  %e = tensor.empty() : tensor<1x10x10x32xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x10x10x32xf32>) -> tensor<1x10x10x32xf32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {tcl.task = "dw", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : tensor<1x12x12x32xf32>, tensor<3x3x32xf32>) outs(%o : tensor<1x10x10x32xf32>) -> tensor<1x10x10x32xf32>
  return %0 : tensor<1x10x10x32xf32>
}
tcl.sched.schedule task "dw" anchor "linalg.depthwise_conv_2d_nhwc_hwc" target "x86-avx512"
    loops [1 parallel, 10 parallel, 10 parallel, 32 parallel, 3 reduction, 3 reduction] {
  tcl.sched.tile [0, 2, 0, 0, 0, 0]
  tcl.sched.tile [0, 1, 4, 16, 1, 0]
  tcl.sched.decompose
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}

// A cache tile that splits the reduction (k by 32) keeps the fill outside
// it, whole: each register tile then reads what the last k step summed.
// CHECK-LABEL: func.func @mm
//       CHECK:   %[[FILL:.*]] = linalg.fill {{.*}} -> tensor<64x64xf32>
//       CHECK:   scf.for {{.*}} iter_args(%{{.*}} = %[[FILL]])
//   CHECK-NOT:     linalg.fill
//       CHECK:       vector.transfer_read
//       CHECK:   return
func.func @mm(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %0 = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [64 parallel, 64 parallel, 64 reduction] {
  tcl.sched.tile [0, 0, 32]
  tcl.sched.tile [8, 32, 1]
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}
