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
