// Pad copies operand tiles into padded local buffers (`nofold` pads); with
// `hoist N` the copies of whole panels move out of N enclosing loops.
// RUN: tcl-opt %s -split-input-file --tcl-apply-schedule | FileCheck %s

// (The partial last tiles of rows and columns are peeled: 96 of the 100
// rows and 192 of the 200 columns are whole tiles.)
// CHECK-LABEL: func.func @mm
//       CHECK:   scf.for %{{.*}} = %c0 to %c96 step %c32
//       CHECK:     scf.for %{{.*}} = %c0 to %c192 step %c64
// The panels of A and B are packed for all k tiles before the k loop:
//       CHECK:       scf.for {{.*}} -> (tensor<4x32x64xf32>)
//       CHECK:         tensor.pad {{.*}} nofold
//       CHECK:       scf.for {{.*}} -> (tensor<4x64x64xf32>)
//       CHECK:         tensor.pad {{.*}} nofold
//       CHECK:       scf.for %{{.*}} = %c0 to %c256 step %c64
//       CHECK:         linalg.matmul {{.*}}ins({{.*}} : tensor<32x64xf32>, tensor<64x64xf32>) outs({{.*}} : tensor<32x64xf32>)
func.func @mm(%a: tensor<100x256xf32>, %b: tensor<256x200xf32>, %c: tensor<100x200xf32>) -> tensor<100x200xf32> {
  %0 = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<100x256xf32>, tensor<256x200xf32>) outs(%c : tensor<100x200xf32>) -> tensor<100x200xf32>
  return %0 : tensor<100x200xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [100 parallel, 200 parallel, 256 reduction] {
  tcl.sched.tile [32, 64, 64]
  tcl.sched.pad [0, 1] hoist 1
}

// -----

// Without hoisting, each tile is copied where it is used.
// CHECK-LABEL: func.func @nohoist
//       CHECK:   scf.for %{{.*}} = %c0 to %c64 step %c16
//       CHECK:     tensor.pad {{.*}} nofold
//       CHECK:     linalg.matmul {{.*}}ins({{.*}} : tensor<16x64xf32>, tensor<64x64xf32>) outs({{.*}} : tensor<16x64xf32>)
func.func @nohoist(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul {tcl.task = "nohoist"} ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
tcl.sched.schedule task "nohoist" anchor "linalg.matmul" target "x86-avx512"
    loops [64 parallel, 64 parallel, 64 reduction] {
  tcl.sched.tile [16, 64, 0]
  tcl.sched.pad [0]
}
