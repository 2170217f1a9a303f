// RUN: tcl-opt %s --tcl-fold-constants | FileCheck %s
// RUN: tcl-opt %s --tcl-fold-constants=max-elements=2 | FileCheck %s --check-prefix=LIMIT

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// Weights exported in another layout: the transpose is done at compile time.
// CHECK-LABEL: func.func @transpose
// CHECK-NOT: linalg.transpose
// CHECK: arith.constant dense<{{\[}}[1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
func.func @transpose() -> tensor<3x2xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%w : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  return %t : tensor<3x2xf32>
}

// Elementwise math on constants (with a broadcast operand) is evaluated
// through the body's fold hooks: sqrt(x) * row + 1.
// CHECK-LABEL: func.func @generic
// CHECK-NOT: linalg.generic
// CHECK: arith.constant dense<{{\[}}[3.000000e+00, 7.000000e+00], [5.000000e+00, 1.300000e+01]]> : tensor<2x2xf32>
// LIMIT-LABEL: func.func @generic
// LIMIT: linalg.generic
func.func @generic() -> tensor<2x2xf32> {
  %x = arith.constant dense<[[4.0, 9.0], [16.0, 36.0]]> : tensor<2x2xf32>
  %r = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %e = tensor.empty() : tensor<2x2xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %r : tensor<2x2xf32>, tensor<2xf32>) outs(%e : tensor<2x2xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %one = arith.constant 1.0 : f32
    %s = math.sqrt %a : f32
    %m = arith.mulf %s, %b : f32
    %p = arith.addf %m, %one : f32
    linalg.yield %p : f32
  } -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// A generic reading a run-time value stays.
// CHECK-LABEL: func.func @runtime
// CHECK: linalg.generic
func.func @runtime(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %e = tensor.empty() : tensor<2x2xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) {
  ^bb0(%a: f32, %out: f32):
    %s = math.sqrt %a : f32
    linalg.yield %s : f32
  } -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// Slices of constants fold (grouped convolution weights).
// CHECK-LABEL: func.func @slice
// CHECK-NOT: tensor.extract_slice
// CHECK: arith.constant dense<[2.000000e+00, 3.000000e+00]> : tensor<2xf32>
func.func @slice() -> tensor<2xf32> {
  %w = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %s = tensor.extract_slice %w[1] [2] [1] : tensor<4xf32> to tensor<2xf32>
  return %s : tensor<2xf32>
}
