// A batch matmul that reads and writes attention's [S, H, D] layouts in
// place (tcl/Support/PermutedBatchMatmul.h, made by tcl-propagate-layout) is
// an anchor of its own, scheduled like linalg.batch_matmul: a head a tile,
// a register tile of rows by whole vectors of n, the accumulators hoisted
// out of the k loop.
// RUN: tcl-opt %s "--tcl-default-schedules=target=x86-avx512" | FileCheck %s
// RUN: tcl-opt %s "--tcl-default-schedules=target=x86-avx512" --tcl-apply-schedule | FileCheck %s --check-prefix=CODE

// CHECK-LABEL: tcl.sched.schedule task "default_0" anchor "linalg.generic.batch_matmul" target "x86-avx512" loops [4 parallel, 32 parallel, 32 parallel, 32 reduction]
//  CHECK-NEXT:   tcl.sched.tile [1, 0, 0, 0]
//  CHECK-NEXT:   tcl.sched.tile [0, 8, 0, 1]
//  CHECK-NEXT:   tcl.sched.vectorize
//  CHECK-NEXT:   tcl.sched.hoist_accumulators
// CHECK-LABEL: tcl.sched.schedule task "default_1" anchor "linalg.generic.batch_matmul"
// A batch matmul's B is not packed, so its cache tile of k keeps 128 steps
// (a packed matmul's deepens with its panel of C: default-schedules-packing).
// CHECK-LABEL: tcl.sched.schedule task "default_2" anchor "linalg.batch_matmul" target "x86-avx512" loops [2 parallel, 512 parallel, 1024 parallel, 1024 reduction]
//  CHECK-NEXT:   tcl.sched.tile [1, 64, 256, 128]
//  CHECK-NEXT:   tcl.sched.tile [0, 8, 32, 1]

// The query's rows are read as scalars of [S, H, D] and the key's as
// vectors of 32 columns; the scores' 8 rows stay in registers.
// CODE-LABEL: func.func @scores
//       CODE:   vector.transfer_read {{.*}} : tensor<1x8x32xf32>, vector<1x8x32xf32>
//       CODE:   scf.for
//       CODE:     vector.transfer_read {{.*}} : tensor<8x1x1xf32>, vector<8x1x1xf32>
//       CODE:     vector.transfer_read {{.*}} : tensor<1x1x32xf32>, vector<1x1x32xf32>
//       CODE:     vector.contract
//   CODE-NOT:   linalg.generic
//       CODE: return
// The context is written into [S, H, D]: 8 rows of one head.
// CODE-LABEL: func.func @context
//       CODE:   vector.transfer_read {{.*}} : tensor<8x1x32xf32>, vector<8x1x32xf32>
//       CODE:   scf.for
//       CODE:     vector.contract
//   CODE-NOT:   linalg.generic
//       CODE:   vector.transfer_write {{.*}} : vector<8x1x32xf32>, tensor<8x1x32xf32>
//       CODE: return

#q = affine_map<(b, m, n, k) -> (m, b, k)>
#kt = affine_map<(b, m, n, k) -> (b, k, n)>
#s = affine_map<(b, m, n, k) -> (b, m, n)>
#p = affine_map<(b, m, n, k) -> (b, m, k)>
#v = affine_map<(b, m, n, k) -> (k, b, n)>
#o = affine_map<(b, m, n, k) -> (m, b, n)>
func.func @scores(%q: tensor<32x4x32xf32>, %k: tensor<4x32x32xf32>, %init: tensor<4x32x32xf32>) -> tensor<4x32x32xf32> {
  %0 = linalg.generic {indexing_maps = [#q, #kt, #s], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<32x4x32xf32>, tensor<4x32x32xf32>) outs(%init : tensor<4x32x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x32x32xf32>
  return %0 : tensor<4x32x32xf32>
}
func.func @context(%p: tensor<4x32x32xf32>, %v: tensor<32x4x32xf32>, %init: tensor<32x4x32xf32>) -> tensor<32x4x32xf32> {
  %0 = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<4x32x32xf32>, tensor<32x4x32xf32>) outs(%init : tensor<32x4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<32x4x32xf32>
  return %0 : tensor<32x4x32xf32>
}

func.func @big(%a: tensor<2x512x1024xf32>, %b: tensor<2x1024x1024xf32>) -> tensor<2x512x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x512x1024xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x512x1024xf32>) -> tensor<2x512x1024xf32>
  %0 = linalg.batch_matmul ins(%a, %b : tensor<2x512x1024xf32>, tensor<2x1024x1024xf32>) outs(%c : tensor<2x512x1024xf32>) -> tensor<2x512x1024xf32>
  return %0 : tensor<2x512x1024xf32>
}
