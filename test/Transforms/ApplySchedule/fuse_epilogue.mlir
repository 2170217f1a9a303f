// fuse_epilogue tiles the task's last epilogue op (bias + ReLU) at the first
// tile level and fuses the epilogue, the matmul and its fill into that nest;
// the fill goes on into the register tiles, as a store of zero vectors
// before each tile's reduction loop. The fused ops are vectorized in slabs of at most 512
// elements (here 4 rows of the 32x128 tile), each slab a loop iteration:
// never scalar loops.
// RUN: tcl-opt %s --tcl-apply-schedule | FileCheck %s

// CHECK-LABEL: func.func @mm_bias_relu
//       CHECK:   %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8x32xf32>
//   CHECK-NOT:   linalg.matmul
//       CHECK:   scf.for %{{.*}} = %c0 to %c128 step %c32
//       CHECK:     scf.for %{{.*}} = %c0 to %c512 step %c128
//   CHECK-NOT:       vector.transfer_write
//       CHECK:       scf.for %{{.*}} = %c0 to %c32 step %c8
//       CHECK:         scf.for %{{.*}} = %c0 to %c128 step %c32
//       CHECK:           vector.transfer_write %[[ZERO]], {{.*}} : vector<8x32xf32>, tensor<8x32xf32>
//       CHECK:           scf.for %{{.*}} = %c0 to %c256 step %c1
//       CHECK:             vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
//       CHECK:       scf.for %{{.*}} = %c0 to %c32 step %c4
//       CHECK:         arith.addf {{.*}} : vector<4x128xf32>
//       CHECK:         arith.maximumf {{.*}} : vector<4x128xf32>
//       CHECK:       tensor.insert_slice {{.*}} : tensor<32x128xf32> into tensor<128x512xf32>
//   CHECK-NOT:   linalg.generic
func.func @mm_bias_relu(%a: tensor<128x256xf32>, %b: tensor<256x512xf32>, %bias: tensor<512xf32>) -> tensor<128x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x512xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<128x512xf32>) -> tensor<128x512xf32>
  %0 = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<128x256xf32>, tensor<256x512xf32>) outs(%c : tensor<128x512xf32>) -> tensor<128x512xf32>
  %1 = linalg.generic {tcl.epilogue = "mm", indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
    ins(%0, %bias : tensor<128x512xf32>, tensor<512xf32>) outs(%e : tensor<128x512xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<128x512xf32>
  %2 = linalg.generic {tcl.epilogue = "mm", indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
    ins(%1 : tensor<128x512xf32>) outs(%e : tensor<128x512xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<128x512xf32>
  return %2 : tensor<128x512xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [128 parallel, 512 parallel, 256 reduction] {
  tcl.sched.tile [32, 128, 0]
  tcl.sched.fuse_epilogue
  tcl.sched.tile [8, 32, 1]
  tcl.sched.vectorize
}
