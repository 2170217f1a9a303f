// Multi-level tiling: each tile level becomes a scf.for nest over the tiled
// dimensions (0 = untiled); loops with a partial last tile are peeled. The
// loops are marked with their task (tcl.task_nest), which outlined functions
// and profiles are named after (every loop: a clean-up that folds a loop of
// one iteration leaves the loops inside it marked).
// RUN: tcl-opt %s --tcl-apply-schedule | FileCheck %s

// CHECK-LABEL: func.func @mm
//       CHECK:   scf.for %{{.*}} = %c0 to %c256 step %c64
//       CHECK:     scf.for %{{.*}} = %c0 to %c256 step %c128
//       CHECK:       scf.for %{{.*}} = %c0 to %c64 step %c8
//       CHECK:         scf.for %{{.*}} = %c0 to %c128 step %c32
//       CHECK:           scf.for %{{.*}} = %c0 to %c256 step %c4
//       CHECK:             linalg.matmul {{.*}}ins({{.*}} : tensor<8x4xf32>, tensor<4x32xf32>) outs({{.*}} : tensor<8x32xf32>)
// CHECK-COUNT-5:   } {tcl.task_nest = "mm"}
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

// Tile sizes that do not divide the extent leave a partial last tile; the
// loop is peeled: the whole tiles in a loop, the last one after it, both
// with static sizes.
// CHECK-LABEL: func.func @partial
//       CHECK:   scf.for %{{.*}} = %c0 to %c96 step %c32
//   CHECK-NOT:     affine.min
//       CHECK:     linalg.matmul {{.*}}ins({{.*}} : tensor<32x64xf32>, tensor<64x64xf32>) outs({{.*}} : tensor<32x64xf32>)
//       CHECK:   }
//       CHECK:   tensor.extract_slice %{{.*}}[96, 0] [4, 64]
//       CHECK:   linalg.matmul {{.*}}ins({{.*}} : tensor<4x64xf32>, tensor<64x64xf32>) outs({{.*}} : tensor<4x64xf32>)
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
