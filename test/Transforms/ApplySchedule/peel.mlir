// Loops of sequential tile levels whose tiles do not divide the extent are
// peeled: the whole tiles run in the loop, the last, partial one after it as
// a copy of the nest with static sizes, so that it is decomposed and
// vectorized like the others (a convolution's partial tiles could not be
// padded). Inner levels peel the remainders of outer ones again.
// RUN: tcl-opt %s -split-input-file --tcl-apply-schedule | FileCheck %s

// 13 output columns in tiles of 8 (8 + 5), 40 channels in tiles of 16
// (16 + 16 + 8): four static register tiles, no partial one.
// CHECK-LABEL: func.func @conv
//       CHECK:   scf.for %{{.*}} = %c0 to %c13 step %c1
//       CHECK:     scf.for %{{.*}} = %c0 to %c32 step %c16
//       CHECK:       vector.contract {{.*}} : vector<1x8x1xf32>, vector<1x16xf32> into vector<1x8x16xf32>
//       CHECK:     vector.contract {{.*}} : vector<1x8x1xf32>, vector<1x8xf32> into vector<1x8x8xf32>
//       CHECK:     scf.for %{{.*}} = %c0 to %c32 step %c16
//       CHECK:       vector.contract {{.*}} : vector<1x5x1xf32>, vector<1x16xf32> into vector<1x5x16xf32>
//       CHECK:     vector.contract {{.*}} : vector<1x5x1xf32>, vector<1x8xf32> into vector<1x5x8xf32>
//   CHECK-NOT: linalg.conv
//   CHECK-NOT: tensor.pad
//   CHECK-NOT: affine.min
func.func @conv(%in: tensor<1x13x13x24xf32>, %w: tensor<1x1x24x40xf32>, %out: tensor<1x13x13x40xf32>) -> tensor<1x13x13x40xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {tcl.task = "conv", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x13x13x24xf32>, tensor<1x1x24x40xf32>) outs(%out : tensor<1x13x13x40xf32>) -> tensor<1x13x13x40xf32>
  return %0 : tensor<1x13x13x40xf32>
}
tcl.sched.schedule task "conv" anchor "linalg.conv_2d_nhwc_hwcf" target "x86-avx512"
    loops [1 parallel, 13 parallel, 13 parallel, 40 parallel, 1 reduction, 1 reduction, 24 reduction] {
  tcl.sched.tile [1, 1, 8, 16, 1, 1, 1]
  tcl.sched.decompose
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}

// -----

// Two levels: 100 rows in cache tiles of 48 (48 + 48 + 4), each in register
// tiles of 8 rows; the 4-row remainder of the cache level is one register
// tile of 4 rows. The k loop of every copy carries its accumulators.
// CHECK-LABEL: func.func @mm
//       CHECK:   scf.for %{{.*}} = %c0 to %c96 step %c48
//       CHECK:     scf.for %{{.*}} = %c0 to %c48 step %c8
//       CHECK:       scf.for {{.*}} -> (vector<8x32xf32>)
//       CHECK:         vector.contract {{.*}} into vector<8x32xf32>
//       CHECK:   scf.for {{.*}} -> (vector<4x32xf32>)
//       CHECK:     vector.contract {{.*}} into vector<4x32xf32>
//   CHECK-NOT: tensor.pad
func.func @mm(%a: tensor<100x64xf32>, %b: tensor<64x32xf32>, %c: tensor<100x32xf32>) -> tensor<100x32xf32> {
  %0 = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<100x64xf32>, tensor<64x32xf32>) outs(%c : tensor<100x32xf32>) -> tensor<100x32xf32>
  return %0 : tensor<100x32xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [100 parallel, 32 parallel, 64 reduction] {
  tcl.sched.tile [48, 0, 0]
  tcl.sched.tile [8, 32, 1]
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}

// -----

// A fused epilogue's level is peeled too: the epilogue and the anchor are
// copied into the remainder (rows 8..12 of 13), and the fill, moved on into
// the register tiles, with them: both start from zero accumulators. (The
// main loop runs once and is folded away. Fused ops are vectorized only
// where the first level divides the domain, not here.)
// CHECK-LABEL: func.func @fused
//       CHECK:   %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<1x13x16xf32>
//   CHECK-NOT:   linalg.fill
//       CHECK:   scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]])
//       CHECK:   vector.contract {{.*}} into vector<1x13x16xf32>
//       CHECK:   linalg.generic {{.*}} outs({{.*}} : tensor<1x8x13x16xf32>)
//       CHECK:   scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]])
//       CHECK:   vector.contract {{.*}} into vector<1x13x16xf32>
//       CHECK:   linalg.generic {{.*}} outs({{.*}} : tensor<1x5x13x16xf32>)
func.func @fused(%in: tensor<1x13x13x8xf32>, %w: tensor<1x1x8x16xf32>) -> tensor<1x13x13x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x13x13x16xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x13x13x16xf32>) -> tensor<1x13x13x16xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {tcl.task = "fused", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x13x13x8xf32>, tensor<1x1x8x16xf32>) outs(%o : tensor<1x13x13x16xf32>) -> tensor<1x13x13x16xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%0 : tensor<1x13x13x16xf32>) outs(%e : tensor<1x13x13x16xf32>) attrs = {tcl.epilogue = "fused"} {
  ^bb0(%x: f32, %y: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x13x13x16xf32>
  return %1 : tensor<1x13x13x16xf32>
}
tcl.sched.schedule task "fused" anchor "linalg.conv_2d_nhwc_hwcf" target "x86-avx512"
    loops [1 parallel, 13 parallel, 13 parallel, 16 parallel, 1 reduction, 1 reduction, 8 reduction] {
  tcl.sched.tile [0, 8, 0, 0, 0, 0, 0]
  tcl.sched.fuse_epilogue
  tcl.sched.tile [1, 1, 0, 16, 1, 1, 1]
  tcl.sched.decompose
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}
