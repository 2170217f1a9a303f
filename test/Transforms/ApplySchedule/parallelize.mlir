// Parallelize turns a tile level into one scf.forall over its loops.
// RUN: tcl-opt %s --tcl-apply-schedule | FileCheck %s

// CHECK-LABEL: func.func @mm
//       CHECK:   scf.forall (%{{.*}}, %{{.*}}) in (4, 2) shared_outs
//       CHECK:     scf.for %{{.*}} = %c0 to %c64 step %c8
//       CHECK:       linalg.matmul {{.*}}outs({{.*}} : tensor<8x128xf32>)
//       CHECK:     scf.forall.in_parallel
//       CHECK:       tensor.parallel_insert_slice {{.*}} [64, 128] [1, 1] : tensor<64x128xf32> into tensor<256x256xf32>
func.func @mm(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>, %c: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %0 = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>) outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [256 parallel, 256 parallel, 256 reduction] {
  tcl.sched.tile [64, 128, 0]
  tcl.sched.parallelize
  tcl.sched.tile [8, 0, 0]
}
