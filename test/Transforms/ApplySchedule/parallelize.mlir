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

// The fill of the anchor's output moves into the threads' loop: each thread
// zeroes its own tile, none zeroes the whole output first. On a CPU it
// then moves on into the register tile, right before its reduction loop.
// CHECK-LABEL: func.func @mm_fill
//   CHECK-NOT:   linalg.fill
//       CHECK:   scf.forall (%{{.*}}) in (4) shared_outs(%{{.*}} = %{{.*}})
//       CHECK:     scf.for
//       CHECK:       scf.for {{.*}} iter_args(%[[OUT:.*]] = %{{.*}})
//       CHECK:         %[[TILE:.*]] = tensor.extract_slice %[[OUT]]
//       CHECK:         %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[TILE]] : tensor<8x32xf32>)
//       CHECK:         %[[FILLED:.*]] = tensor.insert_slice %[[FILL]] into %[[OUT]]
//       CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %[[FILLED]])
//       CHECK:           linalg.matmul
//       CHECK:     scf.forall.in_parallel

func.func @mm_fill(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %0 = linalg.matmul {tcl.task = "mm2"} ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>) outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}
tcl.sched.schedule task "mm2" anchor "linalg.matmul" target "x86-avx512"
    loops [256 parallel, 256 parallel, 256 reduction] {
  tcl.sched.tile [64, 0, 0]
  tcl.sched.parallelize
  tcl.sched.tile [8, 32, 1]
}

// On a GPU the fill stays at the threads' level (the thread level fuses it
// from the block level).
// CHECK-LABEL: func.func @mm_fill_gpu
//       CHECK:   scf.forall (%{{.*}}) in (4) shared_outs(%[[OUT:.*]] = %{{.*}})
//       CHECK:     %[[TILE:.*]] = tensor.extract_slice %[[OUT]]
//       CHECK:     linalg.fill ins(%{{.*}} : f32) outs(%[[TILE]] : tensor<64x256xf32>)
//       CHECK:     scf.for
//       CHECK:     scf.forall.in_parallel
func.func @mm_fill_gpu(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %0 = linalg.matmul {tcl.task = "mm2gpu"} ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>) outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}
tcl.sched.schedule task "mm2gpu" anchor "linalg.matmul" target "nvptx-sm90"
    loops [256 parallel, 256 parallel, 256 reduction] {
  tcl.sched.tile [64, 0, 0]
  tcl.sched.parallelize blocks
  tcl.sched.tile [8, 32, 1]
}
