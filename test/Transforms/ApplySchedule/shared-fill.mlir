// Two task anchors whose outputs start from one shared linalg.fill (CSE
// merges identical fills): tcl-unshare-fills, which the pipeline runs
// before applying schedules, gives each a fill of its own, which each then
// fuses into its own threads' loop (each thread zeroes its own tile),
// instead of one fill that no loop can take and that bufferization would
// copy for every user.
// RUN: tcl-opt %s --tcl-unshare-fills --tcl-apply-schedule | FileCheck %s

// CHECK-LABEL: func.func @two_matmuls
//   CHECK-NOT:   linalg.fill
//       CHECK:   scf.forall
//       CHECK:     linalg.fill {{.*}} -> tensor<16x32xf32>
//       CHECK:     linalg.matmul
//       CHECK:   } {{{.*}}tcl.task_nest = "mm"}
//   CHECK-NOT:   linalg.fill {{.*}} -> tensor<32x32xf32>
//       CHECK:   scf.forall
//       CHECK:     linalg.fill {{.*}} -> tensor<16x32xf32>
//       CHECK:     linalg.matmul
func.func @two_matmuls(%a: tensor<32x32xf32>, %b: tensor<32x32xf32>) -> (tensor<32x32xf32>, tensor<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %0 = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<32x32xf32>, tensor<32x32xf32>) outs(%f : tensor<32x32xf32>) -> tensor<32x32xf32>
  %1 = linalg.matmul {tcl.task = "mm"} ins(%b, %a : tensor<32x32xf32>, tensor<32x32xf32>) outs(%f : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %0, %1 : tensor<32x32xf32>, tensor<32x32xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [32 parallel, 32 parallel, 32 reduction] {
  tcl.sched.tile [16, 0, 0]
  tcl.sched.parallelize
}

// The same at a sequential tile level that fuses the epilogue, for the
// collapsed outputs of 1x1 convolutions computed as matmuls. Hoisting the
// accumulators runs CSE over the function, which merges the fills of the
// instances still to be scheduled again (here the second's and the
// third's): tcl-apply-schedule unshares them after each instance, so that
// every matmul fuses its fill, down to its register tiles, which start
// from zero accumulators.
// CHECK-LABEL: func.func @three_convolutions_as_matmuls
//   CHECK-NOT:   linalg.fill
//       CHECK:   %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8x32xf32>
//   CHECK-NOT:   linalg.fill
//       CHECK:   scf.for
//       CHECK:     scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (vector<8x32xf32>)
//       CHECK:     vector.contract
//       CHECK:   } {{{.*}}tcl.task_nest = "conv1x1"}
//   CHECK-NOT:   linalg.fill
//       CHECK:   scf.for
//       CHECK:     scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (vector<8x32xf32>)
//       CHECK:     vector.contract
//       CHECK:   } {{{.*}}tcl.task_nest = "conv1x1"}
//   CHECK-NOT:   linalg.fill
//       CHECK:   scf.for
//       CHECK:     scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (vector<8x32xf32>)
//       CHECK:     vector.contract
//       CHECK:   } {{{.*}}tcl.task_nest = "conv1x1"}
//   CHECK-NOT:   linalg.fill
//       CHECK:   return
func.func @three_convolutions_as_matmuls(%a: tensor<32x32xf32>, %b: tensor<32x32xf32>, %bias: tensor<32xf32>) -> (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x8x32xf32>
  %c = tensor.collapse_shape %e [[0, 1, 2], [3]] : tensor<1x4x8x32xf32> into tensor<32x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %0 = linalg.matmul {tcl.task = "conv1x1"} ins(%a, %b : tensor<32x32xf32>, tensor<32x32xf32>) outs(%f : tensor<32x32xf32>) -> tensor<32x32xf32>
  %e0 = tensor.empty() : tensor<32x32xf32>
  %1 = linalg.generic {tcl.epilogue = "conv1x1", indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
    ins(%0, %bias : tensor<32x32xf32>, tensor<32xf32>) outs(%e0 : tensor<32x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  %2 = linalg.matmul {tcl.task = "conv1x1"} ins(%1, %a : tensor<32x32xf32>, tensor<32x32xf32>) outs(%f : tensor<32x32xf32>) -> tensor<32x32xf32>
  %3 = linalg.generic {tcl.epilogue = "conv1x1", indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
    ins(%2, %bias : tensor<32x32xf32>, tensor<32xf32>) outs(%e0 : tensor<32x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  %4 = linalg.matmul {tcl.task = "conv1x1"} ins(%3, %b : tensor<32x32xf32>, tensor<32x32xf32>) outs(%f : tensor<32x32xf32>) -> tensor<32x32xf32>
  %5 = linalg.generic {tcl.epilogue = "conv1x1", indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
    ins(%4, %bias : tensor<32x32xf32>, tensor<32xf32>) outs(%e0 : tensor<32x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  return %1, %3, %5 : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>
}
tcl.sched.schedule task "conv1x1" anchor "linalg.matmul" target "x86-avx512"
    loops [32 parallel, 32 parallel, 32 reduction] {
  tcl.sched.tile [16, 0, 0]
  tcl.sched.fuse_epilogue
  tcl.sched.tile [8, 32, 1]
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}
