// Interchange orders the loops of the tile level it follows.
// RUN: tcl-opt %s --tcl-apply-schedule | FileCheck %s

// CHECK-LABEL: func.func @mm
//       CHECK:   scf.for %{{.*}} = %c0 to %c128 step %c16
//       CHECK:     scf.for %{{.*}} = %c0 to %c64 step %c8
//       CHECK:       scf.for %{{.*}} = %c0 to %c32 step %c4
//       CHECK:         linalg.matmul {{.*}}ins({{.*}} : tensor<4x8xf32>, tensor<8x16xf32>) outs({{.*}} : tensor<4x16xf32>)
func.func @mm(%a: tensor<32x64xf32>, %b: tensor<64x128xf32>, %c: tensor<32x128xf32>) -> tensor<32x128xf32> {
  %0 = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<32x64xf32>, tensor<64x128xf32>) outs(%c : tensor<32x128xf32>) -> tensor<32x128xf32>
  return %0 : tensor<32x128xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [32 parallel, 128 parallel, 64 reduction] {
  tcl.sched.tile [4, 16, 8]
  tcl.sched.interchange [1, 2, 0]
}
