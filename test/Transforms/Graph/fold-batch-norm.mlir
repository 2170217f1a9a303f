// RUN: tcl-opt %s --tcl-fold-batch-norm --canonicalize | FileCheck %s

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chan = affine_map<(d0, d1, d2, d3) -> (d3)>

// conv -> + bias -> * scale -> + shift (an imported Conv + BatchNorm): the
// scale goes into the weights, the bias is scaled, the shift stays.
// CHECK-LABEL: func.func @conv_bn
// CHECK: %[[W:.*]] = arith.constant dense<{{\[}}[{{\[}}[2.000000e+00, -3.000000e+00]]]]> : tensor<1x1x1x2xf32>
// CHECK: %[[B:.*]] = arith.constant dense<[2.000000e+00, -6.000000e+00]> : tensor<2xf32>
// CHECK: %[[SHIFT:.*]] = arith.constant dense<[5.000000e-01, 2.500000e-01]> : tensor<2xf32>
// CHECK: %[[CONV:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %[[W]] :
// CHECK: %[[BIASED:.*]] = linalg.generic {{.*}} ins(%[[CONV]], %[[B]] :
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[BIASED]], %[[SHIFT]] :
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.addf
// CHECK-NOT: arith.mulf
func.func @conv_bn(%x: tensor<1x4x4x1xf32>) -> tensor<1x4x4x2xf32> {
  %w = arith.constant dense<[[[[1.0, 1.0]]]]> : tensor<1x1x1x2xf32>
  %bias = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %scale = arith.constant dense<[2.0, -3.0]> : tensor<2xf32>
  %shift = arith.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x4x4x1xf32>, tensor<1x1x1x2xf32>) outs(%init : tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %b = linalg.generic {indexing_maps = [#id, #chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv, %bias : tensor<1x4x4x2xf32>, tensor<2xf32>) outs(%e : tensor<1x4x4x2xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x2xf32>
  %m = linalg.generic {indexing_maps = [#id, #chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b, %scale : tensor<1x4x4x2xf32>, tensor<2xf32>) outs(%e : tensor<1x4x4x2xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %s = arith.mulf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x2xf32>
  %y = linalg.generic {indexing_maps = [#id, #chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%m, %shift : tensor<1x4x4x2xf32>, tensor<2xf32>) outs(%e : tensor<1x4x4x2xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x2xf32>
  return %y : tensor<1x4x4x2xf32>
}

// A scale that varies along a spatial loop is not per channel: it stays.
// CHECK-LABEL: func.func @not_per_channel
// CHECK: linalg.conv_2d_nhwc_hwcf
// CHECK: arith.mulf
#row = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @not_per_channel(%x: tensor<1x2x2x1xf32>) -> tensor<1x2x2x2xf32> {
  %w = arith.constant dense<[[[[1.0, 1.0]]]]> : tensor<1x1x1x2xf32>
  %scale = arith.constant dense<[2.0, -3.0]> : tensor<2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x2x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x2x2x1xf32>, tensor<1x1x1x2xf32>) outs(%init : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %m = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv, %scale : tensor<1x2x2x2xf32>, tensor<2xf32>) outs(%e : tensor<1x2x2x2xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %s = arith.mulf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<1x2x2x2xf32>
  return %m : tensor<1x2x2x2xf32>
}

// A grouped convolution (2 groups: weights [G, KH, KW, C/G, F/G] = [2, 1,
// 1, 1, 2], read collapsed to 4 channels): channel g * 2 + f of the scale
// goes into weight [g, 0, 0, 0, f].
// CHECK-LABEL: func.func @grouped_bn
// CHECK: %[[W:.*]] = arith.constant dense<{{\[\[\[\[\[}}1.000000e+00, 2.000000e+00]]]], {{\[\[\[\[}}3.000000e+00, 4.000000e+00]]]]]> : tensor<2x1x1x1x2xf32>
// CHECK: %[[CONV:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[W]] :
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[CONV]]
// CHECK-NEXT: return %[[C]]
#gin = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh + kh, ow + kw, g, c)>
#gfilter = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (g, kh, kw, c, f)>
#gout = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh, ow, g, f)>
func.func @grouped_bn(%x: tensor<1x4x4x2x1xf32>) -> tensor<1x4x4x4xf32> {
  %w = arith.constant dense<1.0> : tensor<2x1x1x1x2xf32>
  %scale = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x2x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x2x2xf32>) -> tensor<1x4x4x2x2xf32>
  %conv = linalg.generic {indexing_maps = [#gin, #gfilter, #gout],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x4x4x2x1xf32>, tensor<2x1x1x1x2xf32>) outs(%init : tensor<1x4x4x2x2xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x2x2xf32>
  %c = tensor.collapse_shape %conv [[0], [1], [2], [3, 4]] : tensor<1x4x4x2x2xf32> into tensor<1x4x4x4xf32>
  %e4 = tensor.empty() : tensor<1x4x4x4xf32>
  %m = linalg.generic {indexing_maps = [#id, #chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %scale : tensor<1x4x4x4xf32>, tensor<4xf32>) outs(%e4 : tensor<1x4x4x4xf32>) {
  ^bb0(%a: f32, %s: f32, %out: f32):
    %r = arith.mulf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<1x4x4x4xf32>
  return %m : tensor<1x4x4x4xf32>
}
