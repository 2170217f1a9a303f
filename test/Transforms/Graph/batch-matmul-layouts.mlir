// RUN: tcl-opt %s --tcl-propagate-layout --canonicalize | FileCheck %s

// tcl-propagate-layout folds the transposes around batch matmuls into their
// operands' layouts (tcl/Support/PermutedBatchMatmul.h).

// Attention with its heads in the middle ([S, H, D] = 32x4x16): the query,
// the value and the output are transposed to [H, S, D] and back around the
// two batch matmuls. The batch matmuls read the query and the value and
// write the output in place (tcl's batch-matmul form); the key, read as
// [H, D, S], would put S (n, which the kernel loads as vectors) outermost,
// so it keeps its transpose.
// CHECK-DAG: #[[QMAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d3)>
// CHECK-DAG: #[[BMAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[CMAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[PMAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[VMAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d3, d0, d2)>
// CHECK-DAG: #[[OMAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d2)>
// CHECK-LABEL: func.func @attention_heads
// CHECK-SAME: (%[[Q:.*]]: tensor<32x4x16xf32>, %[[K:.*]]: tensor<32x4x16xf32>, %[[V:.*]]: tensor<32x4x16xf32>)
// CHECK: %[[KT:.*]] = linalg.transpose ins(%[[K]] : tensor<32x4x16xf32>) {{.*}} permutation = [1, 2, 0]
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[QMAP]], #[[BMAP]], #[[CMAP]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[Q]], %[[KT]] : tensor<32x4x16xf32>, tensor<4x16x32xf32>) outs({{.*}} : tensor<4x32x32xf32>)
// CHECK: %[[O:.*]] = linalg.generic {indexing_maps = [#[[PMAP]], #[[VMAP]], #[[OMAP]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[S]], %[[V]] : tensor<4x32x32xf32>, tensor<32x4x16xf32>) outs({{.*}} : tensor<32x4x16xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: return %[[O]]
func.func @attention_heads(%q: tensor<32x4x16xf32>, %k: tensor<32x4x16xf32>,
                           %v: tensor<32x4x16xf32>) -> tensor<32x4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x32x16xf32>
  %ek = tensor.empty() : tensor<4x16x32xf32>
  %qt = linalg.transpose ins(%q : tensor<32x4x16xf32>) outs(%e : tensor<4x32x16xf32>) permutation = [1, 0, 2]
  %kt = linalg.transpose ins(%k : tensor<32x4x16xf32>) outs(%ek : tensor<4x16x32xf32>) permutation = [1, 2, 0]
  %vt = linalg.transpose ins(%v : tensor<32x4x16xf32>) outs(%e : tensor<4x32x16xf32>) permutation = [1, 0, 2]
  %es = tensor.empty() : tensor<4x32x32xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<4x32x32xf32>) -> tensor<4x32x32xf32>
  %s = linalg.batch_matmul ins(%qt, %kt : tensor<4x32x16xf32>, tensor<4x16x32xf32>) outs(%zs : tensor<4x32x32xf32>) -> tensor<4x32x32xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%e : tensor<4x32x16xf32>) -> tensor<4x32x16xf32>
  %o = linalg.batch_matmul ins(%s, %vt : tensor<4x32x32xf32>, tensor<4x32x16xf32>) outs(%zo : tensor<4x32x16xf32>) -> tensor<4x32x16xf32>
  %eo = tensor.empty() : tensor<32x4x16xf32>
  %ot = linalg.transpose ins(%o : tensor<4x32x16xf32>) outs(%eo : tensor<32x4x16xf32>) permutation = [1, 0, 2]
  return %ot : tensor<32x4x16xf32>
}

// The same with a leading unit batch ([1, S, H, D], GPT's export): the
// transposes are seen through the reshapes that drop and add it.
// CHECK-LABEL: func.func @attention_heads_unit_batch
// CHECK-SAME: (%[[Q:.*]]: tensor<1x32x4x16xf32>, %[[P:.*]]: tensor<4x16x32xf32>)
// CHECK: %[[QS:.*]] = tensor.collapse_shape %[[Q]] {{\[\[}}0, 1], [2], [3]] : tensor<1x32x4x16xf32> into tensor<32x4x16xf32>
// CHECK: %[[O:.*]] = linalg.generic {{.*}} ins(%[[QS]], %[[P]] : tensor<32x4x16xf32>, tensor<4x16x32xf32>) outs({{.*}} : tensor<32x4x32xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[R:.*]] = tensor.expand_shape %[[O]] {{\[\[}}0, 1], [2], [3]] output_shape [1, 32, 4, 32]
// CHECK: return %[[R]]
func.func @attention_heads_unit_batch(%q: tensor<1x32x4x16xf32>, %p: tensor<4x16x32xf32>) -> tensor<1x32x4x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x32x16xf32>
  %qt = linalg.transpose ins(%q : tensor<1x32x4x16xf32>) outs(%e : tensor<1x4x32x16xf32>) permutation = [0, 2, 1, 3]
  %qc = tensor.collapse_shape %qt [[0, 1], [2], [3]] : tensor<1x4x32x16xf32> into tensor<4x32x16xf32>
  %es = tensor.empty() : tensor<4x32x32xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<4x32x32xf32>) -> tensor<4x32x32xf32>
  %s = linalg.batch_matmul ins(%qc, %p : tensor<4x32x16xf32>, tensor<4x16x32xf32>) outs(%zs : tensor<4x32x32xf32>) -> tensor<4x32x32xf32>
  %se = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [1, 4, 32, 32] : tensor<4x32x32xf32> into tensor<1x4x32x32xf32>
  %eo = tensor.empty() : tensor<1x32x4x32xf32>
  %ot = linalg.transpose ins(%se : tensor<1x4x32x32xf32>) outs(%eo : tensor<1x32x4x32xf32>) permutation = [0, 2, 1, 3]
  return %ot : tensor<1x32x4x32xf32>
}

// A result another op reads as well, or with an epilogue, keeps its layout.
// CHECK-LABEL: func.func @batch_matmul_result_read_twice
// CHECK: linalg.batch_matmul
// CHECK: linalg.transpose
func.func @batch_matmul_result_read_twice(%a: tensor<4x32x16xf32>, %b: tensor<4x16x32xf32>) -> (tensor<4x32x32xf32>, tensor<32x4x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<4x32x32xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<4x32x32xf32>) -> tensor<4x32x32xf32>
  %s = linalg.batch_matmul ins(%a, %b : tensor<4x32x16xf32>, tensor<4x16x32xf32>) outs(%zs : tensor<4x32x32xf32>) -> tensor<4x32x32xf32>
  %eo = tensor.empty() : tensor<32x4x32xf32>
  %ot = linalg.transpose ins(%s : tensor<4x32x32xf32>) outs(%eo : tensor<32x4x32xf32>) permutation = [1, 0, 2]
  return %s, %ot : tensor<4x32x32xf32>, tensor<32x4x32xf32>
}
