// RUN: tcl-opt %s --tcl-fuse-elementwise | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#bcast = affine_map<(d0, d1) -> (d1)>

// bias -> GELU-like chain -> clip: one generic, one loop nest.
// CHECK-LABEL: func.func @chain
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: math.tanh
// CHECK: arith.minimumf
// CHECK-NOT: linalg.generic
func.func @chain(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%1 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %six = arith.constant 6.0 : f32
    %m = arith.minimumf %a, %six : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// A producer read with broadcasting would be recomputed per use: not fused.
// Nor is one with two users.
// CHECK-LABEL: func.func @no_recompute
// CHECK-COUNT-3: linalg.generic
func.func @no_recompute(%x: tensor<8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e1 = tensor.empty() : tensor<8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e1 : tensor<8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #bcast, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y, %0 : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %s = arith.mulf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%1 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  return %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>
}

// An epilogue behind a reshape of a matmul is computed in the matmul's
// shape (then reshaped), so task extraction can fuse it into the matmul.
// CHECK-LABEL: func.func @behind_reshape
// CHECK: %[[MM:.*]] = linalg.matmul
// CHECK: %[[EPILOGUE:.*]] = linalg.generic {{.*}} ins(%[[MM]], %{{.*}} : tensor<8x16xf32>, tensor<16xf32>)
// CHECK: tensor.expand_shape %[[EPILOGUE]] {{.*}} into tensor<2x4x16xf32>
func.func @behind_reshape(%a: tensor<8x32xf32>, %w: tensor<32x16xf32>,
                          %b: tensor<16xf32>) -> tensor<2x4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e0 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %mm = linalg.matmul ins(%a, %w : tensor<8x32xf32>, tensor<32x16xf32>) outs(%init : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = tensor.expand_shape %mm [[0, 1], [2]] output_shape [2, 4, 16] : tensor<8x16xf32> into tensor<2x4x16xf32>
  %e1 = tensor.empty() : tensor<2x4x16xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r, %b : tensor<2x4x16xf32>, tensor<16xf32>) outs(%e1 : tensor<2x4x16xf32>) {
  ^bb0(%x: f32, %c: f32, %out: f32):
    %s = arith.addf %x, %c : f32
    linalg.yield %s : f32
  } -> tensor<2x4x16xf32>
  return %y : tensor<2x4x16xf32>
}
