// Unroll replicates the body of one loop of a tile level.
// RUN: tcl-opt %s --tcl-apply-schedule | FileCheck %s

// CHECK-LABEL: func.func @mm
//       CHECK:   scf.for %[[K:.*]] = %c0 to %c64 step %c4
//       CHECK:     vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
//       CHECK:     arith.addi %[[K]], %c1
//       CHECK:     vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
//       CHECK:     arith.addi %[[K]], %c2
//       CHECK:     vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
//       CHECK:     arith.addi %[[K]], %c3
//       CHECK:     vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
//   CHECK-NOT:     vector.contract
//       CHECK:     scf.yield
func.func @mm(%a: tensor<8x64xf32>, %b: tensor<64x32xf32>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %0 = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<8x64xf32>, tensor<64x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 32 parallel, 64 reduction] {
  tcl.sched.tile [0, 0, 1]
  tcl.sched.vectorize
  tcl.sched.unroll level 0 dim 2 by 4
}
