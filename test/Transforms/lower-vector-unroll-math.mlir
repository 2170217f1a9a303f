// RUN: tcl-opt %s "--tcl-lower-vector=unroll-math" | FileCheck %s
// RUN: tcl-opt %s --tcl-lower-vector | FileCheck %s --check-prefix=KEPT

// With unroll-math (the GPU pipeline's), a math op on an n-D vector (a fused
// epilogue's GELU on a thread's register tile) becomes one op a 1-D row,
// which NVVM's conversion lowers lane by lane to libdevice calls; 1-D ops
// and other dialects' ops stay as they are.
// CHECK-LABEL: func.func @gelu_tile
// CHECK-SAME: (%[[TILE:.*]]: vector<2x3x4xf32>, %[[ROW:.*]]: vector<4xf32>
// CHECK-COUNT-6: math.erf %{{.*}} : vector<4xf32>
// CHECK-NOT: math.erf
// CHECK: math.exp %[[ROW]] : vector<4xf32>
// CHECK: arith.addf %[[TILE]], %[[TILE]] : vector<2x3x4xf32>
// KEPT: math.erf %{{.*}} : vector<2x3x4xf32>
func.func @gelu_tile(%tile: vector<2x3x4xf32>, %row: vector<4xf32>) -> (vector<2x3x4xf32>, vector<4xf32>, vector<2x3x4xf32>) {
  %erf = math.erf %tile : vector<2x3x4xf32>
  %exp = math.exp %row : vector<4xf32>
  %sum = arith.addf %tile, %tile : vector<2x3x4xf32>
  return %erf, %exp, %sum : vector<2x3x4xf32>, vector<4xf32>, vector<2x3x4xf32>
}
