// hoist_accumulators keeps the output tile in vector registers across the
// reduction loop: one read before the loop, one write after it.
// RUN: tcl-opt %s --tcl-apply-schedule | FileCheck %s

// CHECK-LABEL: func.func @mm
//       CHECK:   %[[INIT:.*]] = vector.transfer_read {{.*}} : tensor<8x32xf32>, vector<8x32xf32>
//       CHECK:   %[[ACC:.*]] = scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%[[ARG:.*]] = %[[INIT]]) -> (vector<8x32xf32>)
//   CHECK-NOT:     vector.transfer_write
//       CHECK:     vector.contract {{.*}} %{{.*}}, %{{.*}}, %[[ARG]] : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
//       CHECK:     scf.yield %{{.*}} : vector<8x32xf32>
//       CHECK:   vector.transfer_write %[[ACC]], {{.*}} : vector<8x32xf32>, tensor<8x32xf32>
func.func @mm(%a: tensor<8x64xf32>, %b: tensor<64x32xf32>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %0 = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<8x64xf32>, tensor<64x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 32 parallel, 64 reduction] {
  tcl.sched.tile [0, 0, 1]
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}

// -----

// A convolution's kernel rows, kernel columns and input channels are three
// reduction loops: the accumulators are carried through all three, read
// before the outermost and written after it (with 3 input channels they were
// reloaded every 3 steps: the 7x7 stem ran at 0.65x the vendor library).
// CHECK-LABEL: func.func @stem
//       CHECK:   %[[INIT:.*]] = vector.transfer_read {{.*}} : tensor<1x8x32xf32>, vector<1x8x32xf32>
//       CHECK:   %[[ACC:.*]] = scf.for %{{.*}} = %c0 to %c7 step %c1 iter_args(%{{.*}} = %[[INIT]]) -> (vector<1x8x32xf32>)
//       CHECK:     scf.for %{{.*}} = %c0 to %c7 step %c1 iter_args({{.*}}) -> (vector<1x8x32xf32>)
//       CHECK:       scf.for %{{.*}} = %c0 to %c3 step %c1 iter_args({{.*}}) -> (vector<1x8x32xf32>)
//   CHECK-NOT:         vector.transfer_write
//       CHECK:         vector.contract
//       CHECK:   vector.transfer_write %[[ACC]], {{.*}} : vector<1x8x32xf32>, tensor<1x8x32xf32>
func.func @stem(%in: tensor<1x21x21x3xf32>, %w: tensor<7x7x3x32xf32>, %out: tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {tcl.task = "stem", dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%in, %w : tensor<1x21x21x3xf32>, tensor<7x7x3x32xf32>) outs(%out : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  return %0 : tensor<1x8x8x32xf32>
}
tcl.sched.schedule task "stem" anchor "linalg.conv_2d_nhwc_hwcf" target "x86-avx512"
    loops [1 parallel, 8 parallel, 8 parallel, 32 parallel, 7 reduction, 7 reduction, 3 reduction] {
  tcl.sched.tile [1, 1, 8, 32, 1, 1, 1]
  tcl.sched.decompose
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}
