// Padded tiles of an anchor whose epilogue is fused, when the anchor's init
// is a function argument (a matmul that accumulates onto its input): the
// tile loops carry the epilogue's output, not the init, so a copy of the
// padded result back into the init's slice (what transform.structured.pad
// makes by default, bufferization.materialize_in_destination) would have
// to write into a tensor that every iteration reads: the lowering failed
// with "cannot avoid RaW conflict". A linalg.copy bufferizes out of place
// there (and folds away where the tile was written in place).
// @se: a squeeze-excitation matmul (8 -> 48) with a sigmoid, its B panel
// packed; @packed_out: the output tile itself copied into a padded buffer,
// on partial tiles (10x20 in 4x8 tiles).
// REQUIRES: tcl-run
// RUN: tcl-run %s --entry=se | FileCheck %s
// RUN: tcl-run %s --entry=packed_out | FileCheck %s
// CHECK: against plain loops: ok
// RUN: tcl-opt %s --tcl-apply-schedule | FileCheck %s --check-prefix=APPLIED
// APPLIED-NOT: materialize_in_destination

#map = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>

func.func @se(%a: tensor<1x8xf32>, %b: tensor<8x48xf32>, %init: tensor<1x48xf32>, %bias: tensor<48xf32>) -> tensor<1x48xf32> {
  %one = arith.constant 1.0 : f32
  %0 = linalg.matmul {tcl.task = "se"} ins(%a, %b : tensor<1x8xf32>, tensor<8x48xf32>) outs(%init : tensor<1x48xf32>) -> tensor<1x48xf32>
  %e = tensor.empty() : tensor<1x48xf32>
  %1 = linalg.generic {indexing_maps = [#map, #bias, #map], iterator_types = ["parallel", "parallel"]} ins(%0, %bias : tensor<1x48xf32>, tensor<48xf32>) outs(%e : tensor<1x48xf32>) attrs = {tcl.epilogue = "se"} {
  ^bb0(%in: f32, %b_: f32, %out: f32):
    %s = arith.addf %in, %b_ : f32
    %n = arith.negf %s : f32
    %x = math.exp %n : f32
    %d = arith.addf %x, %one : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<1x48xf32>
  return %1 : tensor<1x48xf32>
}
tcl.sched.schedule task "se" anchor "linalg.matmul" target "x86-avx512" loops [1 parallel, 48 parallel, 8 reduction] {
  tcl.sched.tile [0, 3, 0]
  tcl.sched.fuse_epilogue
  tcl.sched.tile [0, 2, 0]
  tcl.sched.interchange [1, 0, 2]
  tcl.sched.pad [1] hoist 1
  tcl.sched.tile [0, 0, 1]
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
  tcl.sched.unroll level 2 dim 2 by 2
}

func.func @packed_out(%a: tensor<10x16xf32>, %b: tensor<16x20xf32>, %init: tensor<10x20xf32>, %bias: tensor<20xf32>) -> tensor<10x20xf32> {
  %zero = arith.constant 0.0 : f32
  %0 = linalg.matmul {tcl.task = "packed_out"} ins(%a, %b : tensor<10x16xf32>, tensor<16x20xf32>) outs(%init : tensor<10x20xf32>) -> tensor<10x20xf32>
  %e = tensor.empty() : tensor<10x20xf32>
  %1 = linalg.generic {indexing_maps = [#map, #bias, #map], iterator_types = ["parallel", "parallel"]} ins(%0, %bias : tensor<10x20xf32>, tensor<20xf32>) outs(%e : tensor<10x20xf32>) attrs = {tcl.epilogue = "packed_out"} {
  ^bb0(%in: f32, %b_: f32, %out: f32):
    %s = arith.addf %in, %b_ : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<10x20xf32>
  return %1 : tensor<10x20xf32>
}
tcl.sched.schedule task "packed_out" anchor "linalg.matmul" target "x86-avx512" loops [10 parallel, 20 parallel, 16 reduction] {
  tcl.sched.tile [4, 8, 0]
  tcl.sched.fuse_epilogue
  tcl.sched.pad [0, 2]
  tcl.sched.tile [0, 0, 4]
  tcl.sched.vectorize
}
