// Multi-level tiling: each tile level becomes a scf.for nest over the tiled
// dimensions (0 = untiled); partial tiles get affine.min bounds.
// RUN: tcl-opt %s --tcl-apply-schedule | FileCheck %s

// CHECK-LABEL: func.func @mm
//       CHECK:   scf.for %{{.*}} = %c0 to %c256 step %c64
//       CHECK:     scf.for %{{.*}} = %c0 to %c256 step %c128
//       CHECK:       scf.for %{{.*}} = %c0 to %c64 step %c8
//       CHECK:         scf.for %{{.*}} = %c0 to %c128 step %c32
//       CHECK:           scf.for %{{.*}} = %c0 to %c256 step %c4
//       CHECK:             linalg.matmul {{.*}}ins({{.*}} : tensor<8x4xf32>, tensor<4x32xf32>) outs({{.*}} : tensor<8x32xf32>)
//   CHECK-NOT: tcl.sched
func.func @mm(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>, %c: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %0 = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>) outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [256 parallel, 256 parallel, 256 reduction] {
  tcl.sched.tile [64, 128, 0]
  tcl.sched.tile [8, 32, 4]
}

// Tile sizes that do not divide the extent leave a partial last tile.
// CHECK-LABEL: func.func @partial
//       CHECK:   scf.for %[[I:.*]] = %c0 to %c100 step %c32
//       CHECK:     %[[SIZE:.*]] = affine.min #{{.*}}(%[[I]])
//       CHECK:     linalg.matmul {{.*}}ins({{.*}} : tensor<?x64xf32>, tensor<64x64xf32>) outs({{.*}} : tensor<?x64xf32>)
func.func @partial(%a: tensor<100x64xf32>, %b: tensor<64x64xf32>, %c: tensor<100x64xf32>) -> tensor<100x64xf32> {
  %0 = linalg.matmul {tcl.task = "partial"} ins(%a, %b : tensor<100x64xf32>, tensor<64x64xf32>) outs(%c : tensor<100x64xf32>) -> tensor<100x64xf32>
  return %0 : tensor<100x64xf32>
}
tcl.sched.schedule task "partial" anchor "linalg.matmul" target "x86-avx512"
    loops [100 parallel, 64 parallel, 64 reduction] {
  tcl.sched.tile [32, 0, 0]
}

// Every instance of a task (the same workload occurring twice) is scheduled.
// CHECK-LABEL: func.func @twice
//       CHECK:   scf.for {{.*}} step %c16
//       CHECK:     linalg.matmul {{.*}}outs({{.*}} : tensor<16x32xf32>)
//       CHECK:   scf.for {{.*}} step %c16
//       CHECK:     linalg.matmul {{.*}}outs({{.*}} : tensor<16x32xf32>)
func.func @twice(%a: tensor<32x32xf32>, %c: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %0 = linalg.matmul {tcl.task = "twice"} ins(%a, %a : tensor<32x32xf32>, tensor<32x32xf32>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %1 = linalg.matmul {tcl.task = "twice"} ins(%0, %a : tensor<32x32xf32>, tensor<32x32xf32>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %1 : tensor<32x32xf32>
}
tcl.sched.schedule task "twice" anchor "linalg.matmul" target "x86-avx512"
    loops [32 parallel, 32 parallel, 32 reduction] {
  tcl.sched.tile [16, 0, 0]
}
