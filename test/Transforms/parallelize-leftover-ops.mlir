// With several threads, large elementwise ops no schedule covered (here the
// fill and copy that pad a convolution's input) are split among them: one
// scf.parallel along their first loop of at least as many iterations as
// threads, one iteration a step where loops remain inside (OpenMP's static
// schedule gives each thread a contiguous range; with a chunk of rows a
// step, every loop of the chunk had a small constant trip count and LLVM
// unrolled a transpose's whole, 30,756 loads), a chunk a thread where none
// does.
// RUN: tcl-opt %s --pass-pipeline="builtin.module(func.func(tcl-parallelize-leftover-ops{num-threads=2}))" | FileCheck %s
// RUN: tcl-opt %s --pass-pipeline="builtin.module(func.func(tcl-parallelize-leftover-ops{num-threads=1}))" | FileCheck %s --check-prefix=ONE

// CHECK-LABEL: func.func @pad_input
// The fill's 114 rows, one a step.
//       CHECK: scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}})
//       CHECK:   memref.subview %{{.*}}[0, %[[I]], 0, 0] [1, 1, 114, 32]
//       CHECK:   linalg.fill
// The copy's 112 rows, one a step.
//       CHECK: scf.parallel (%[[J:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}})
//       CHECK:   memref.subview %{{.*}}[0, %[[J]], 0, 0] [1, 1, 112, 32]
//       CHECK:   linalg.copy
// ONE-LABEL: func.func @pad_input
//   ONE-NOT: scf.parallel
func.func @pad_input(%in: memref<1x112x112x32xf32>, %padded: memref<1x114x114x32xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%padded : memref<1x114x114x32xf32>)
  %interior = memref.subview %padded[0, 1, 1, 0] [1, 112, 112, 32] [1, 1, 1, 1] : memref<1x114x114x32xf32> to memref<1x112x112x32xf32, strided<[415872, 3648, 32, 1], offset: 3680>>
  linalg.copy ins(%in : memref<1x112x112x32xf32>) outs(%interior : memref<1x112x112x32xf32, strided<[415872, 3648, 32, 1], offset: 3680>>)
  return
}

// A collapsed fill (one loop: tcl-collapse-contiguous-loops) splits into a
// chunk a thread.
// CHECK-LABEL: func.func @one_loop
//       CHECK: scf.parallel
//       CHECK:   memref.subview %{{.*}}[%{{.*}}] [16384] [1]
func.func @one_loop(%flat: memref<32768xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%flat : memref<32768xf32>)
  return
}

// Left alone: small ops (the threads' fork and join would cost more), ops
// in loops, reductions.
// CHECK-LABEL: func.func @left_alone
//   CHECK-NOT: scf.parallel
func.func @left_alone(%small: memref<64x64xf32>, %big: memref<256x256xf32>, %sums: memref<256xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  linalg.fill ins(%zero : f32) outs(%small : memref<64x64xf32>)
  scf.for %i = %c0 to %c2 step %c1 {
    linalg.fill ins(%zero : f32) outs(%big : memref<256x256xf32>)
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%big : memref<256x256xf32>) outs(%sums : memref<256xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}
