// Vectorize turns the innermost tile into vector ops (a matmul tile into a
// vector.contract, which lowers to FMAs); partial tiles of sequential
// levels are peeled, those of a parallel level padded to full static tiles.
// RUN: tcl-opt %s -split-input-file --tcl-apply-schedule | FileCheck %s

// CHECK-LABEL: func.func @mm
//       CHECK:   scf.for {{.*}} step %c8
//       CHECK:     scf.for {{.*}} step %c32
//       CHECK:       scf.for {{.*}} step %c1
//       CHECK:         vector.transfer_read {{.*}} : tensor<8x1xf32>, vector<8x1xf32>
//       CHECK:         vector.transfer_read {{.*}} : tensor<1x32xf32>, vector<1x32xf32>
//       CHECK:         vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
//       CHECK:         vector.transfer_write {{.*}} : vector<8x32xf32>, tensor<8x32xf32>
//   CHECK-NOT:     linalg.matmul
func.func @mm(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [64 parallel, 64 parallel, 64 reduction] {
  tcl.sched.tile [8, 32, 1]
  tcl.sched.vectorize
}

// -----

// A partial last tile is peeled (see tile.mlir) and vectorized with its
// own static shape, without padding.
// CHECK-LABEL: func.func @partial
//       CHECK:   scf.for {{.*}} = %c0 to %c96 step %c8
//       CHECK:     vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
//       CHECK:   }
//       CHECK:   vector.contract {{.*}} : vector<4x1xf32>, vector<1x32xf32> into vector<4x32xf32>
//   CHECK-NOT:   tensor.pad
//   CHECK-NOT:   linalg.matmul
func.func @partial(%a: tensor<100x64xf32>, %b: tensor<64x32xf32>, %c: tensor<100x32xf32>) -> tensor<100x32xf32> {
  %0 = linalg.matmul {tcl.task = "partial"} ins(%a, %b : tensor<100x64xf32>, tensor<64x32xf32>) outs(%c : tensor<100x32xf32>) -> tensor<100x32xf32>
  return %0 : tensor<100x32xf32>
}
tcl.sched.schedule task "partial" anchor "linalg.matmul" target "x86-avx512"
    loops [100 parallel, 32 parallel, 64 reduction] {
  tcl.sched.tile [8, 32, 1]
  tcl.sched.vectorize
}

// -----

// A parallel level (an scf.forall, not peeled) with a partial last tile
// leaves tiles whose size is known only at run time: they are padded to the
// full static tile in registers.
// CHECK-LABEL: func.func @partial_parallel
//       CHECK:   scf.forall
//       CHECK:     tensor.pad
//       CHECK:     } : tensor<?x1xf32> to tensor<8x1xf32>
//       CHECK:     vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
//       CHECK:     tensor.extract_slice {{.*}} : tensor<8x32xf32> to tensor<?x32xf32>
func.func @partial_parallel(%a: tensor<100x64xf32>, %b: tensor<64x32xf32>, %c: tensor<100x32xf32>) -> tensor<100x32xf32> {
  %0 = linalg.matmul {tcl.task = "partial_parallel"} ins(%a, %b : tensor<100x64xf32>, tensor<64x32xf32>) outs(%c : tensor<100x32xf32>) -> tensor<100x32xf32>
  return %0 : tensor<100x32xf32>
}
tcl.sched.schedule task "partial_parallel" anchor "linalg.matmul" target "x86-avx512"
    loops [100 parallel, 32 parallel, 64 reduction] {
  tcl.sched.tile [48, 0, 0]
  tcl.sched.parallelize
  tcl.sched.tile [8, 32, 1]
  tcl.sched.vectorize
}

// -----

// Elementwise/reduction generics vectorize too.
// CHECK-LABEL: func.func @rowsum
//       CHECK:   scf.for {{.*}} step %c16
//       CHECK:     vector.multi_reduction <add>, {{.*}} [1] : vector<16x64xf32> to vector<16xf32>
func.func @rowsum(%x: tensor<64x64xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  %0 = linalg.generic {tcl.task = "rowsum", indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
    ins(%x : tensor<64x64xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %0 : tensor<64xf32>
}
tcl.sched.schedule task "rowsum" anchor "linalg.generic" target "x86-avx512"
    loops [64 parallel, 64 reduction] {
  tcl.sched.tile [16, 0]
  tcl.sched.vectorize
}
