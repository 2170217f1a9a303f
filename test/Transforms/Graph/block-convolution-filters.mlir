// RUN: tcl-opt %s --split-input-file --tcl-block-convolution-filters | FileCheck %s
// RUN: tcl-opt %s --split-input-file "--tcl-block-convolution-filters=min-channels=4 block-channels=2" | FileCheck %s --check-prefix=SMALL
// RUN: tcl-opt %s --split-input-file --tcl-optimize-graph | FileCheck %s --check-prefix=GRAPH

// The filter [KH, KW, C, F] is packed at compile time into
// [F / B, KH, KW, C, B]: block 0 holds channels 0-1 of every tap, block 1
// channels 2-3. The convolution computes [N, OH, OW, F / B, B] into a fill
// of its own, collapsed back to NHWC.
// SMALL-LABEL: func.func @pack
// SMALL-SAME: (%[[IN:.*]]: tensor<1x1x3x1xf32>)
// SMALL: %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x1x2x2x2xf32>)
// SMALL: %[[W:.*]] = arith.constant dense<{{\[}}{{\[}}{{\[}}{{\[}}[1.000000e+00, 2.000000e+00]], {{\[}}[5.000000e+00, 6.000000e+00]]]], {{\[}}{{\[}}{{\[}}[3.000000e+00, 4.000000e+00]], {{\[}}[7.000000e+00, 8.000000e+00]]]]]> : tensor<2x1x2x1x2xf32>
// SMALL: %[[C:.*]] = linalg.generic {{.*}} ins(%[[IN]], %[[W]] : tensor<1x1x3x1xf32>, tensor<2x1x2x1x2xf32>) outs(%[[FILL]] : tensor<1x1x2x2x2xf32>)
// SMALL: %[[OUT:.*]] = tensor.collapse_shape %[[C]] {{\[}}[0], [1], [2], [3, 4]] : tensor<1x1x2x2x2xf32> into tensor<1x1x2x4xf32>
// SMALL: return %[[OUT]]
// CHECK-LABEL: func.func @pack
// CHECK: linalg.conv_2d_nhwc_hwcf
func.func @pack(%in: tensor<1x1x3x1xf32>) -> tensor<1x1x2x4xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<[[[[1.0, 2.0, 3.0, 4.0]], [[5.0, 6.0, 7.0, 8.0]]]]> : tensor<1x2x1x4xf32>
  %e = tensor.empty() : tensor<1x1x2x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : tensor<1x1x3x1xf32>, tensor<1x2x1x4xf32>) outs(%init : tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  return %0 : tensor<1x1x2x4xf32>
}

// -----

// By default, 256 output channels and more, in blocks of 64: ResNet-18's
// 3x3/2 256->512 at 7x7 (its strides and dilations carried over). Within
// the graph optimizations, its bias and ReLU are computed in the blocked
// shape and the collapse moves below them (tcl-fuse-elementwise).
// CHECK-DAG: #[[IN_MAP:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 * 2 + d5, d2 * 2 + d6, d7)>
// CHECK-DAG: #[[W_MAP:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d5, d6, d7, d4)>
// CHECK-LABEL: func.func @strided
// CHECK: linalg.generic {indexing_maps = [#[[IN_MAP]], #[[W_MAP]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<1x15x15x256xf32>, tensor<8x3x3x256x64xf32>) outs(%{{.*}} : tensor<1x7x7x8x64xf32>)
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2], [3, 4]] : tensor<1x7x7x8x64xf32> into tensor<1x7x7x512xf32>
// CHECK-NOT: linalg.conv_2d_nhwc_hwcf
// GRAPH-LABEL: func.func @strided
// GRAPH: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x7x7x8x64xf32>)
// GRAPH: arith.maximumf
// GRAPH: } -> tensor<1x7x7x8x64xf32>
// GRAPH: %[[OUT:.*]] = tensor.collapse_shape %{{.*}} : tensor<1x7x7x8x64xf32> into tensor<1x7x7x512xf32>
// GRAPH: return %[[OUT]]
func.func @strided(%in: tensor<1x15x15x256xf32>) -> tensor<1x7x7x512xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.5> : tensor<3x3x256x512xf32>
  %e = tensor.empty() : tensor<1x7x7x512xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%in, %w : tensor<1x15x15x256xf32>, tensor<3x3x256x512xf32>) outs(%init : tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32>
  %relu = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>],
                          iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%0 : tensor<1x7x7x512xf32>) outs(%e : tensor<1x7x7x512xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x7x7x512xf32>
  return %relu : tensor<1x7x7x512xf32>
}

// -----

// Left alone: fewer than 256 output channels; channels that are not whole
// blocks; a filter known only at run time; a convolution a schedule names;
// a 1x1 kernel.
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-5: linalg.conv_2d_nhwc_hwcf
// CHECK-NOT: linalg.generic
func.func @left_alone(%in: tensor<1x9x9x16xf32>, %filter: tensor<3x3x16x256xf32>)
    -> (tensor<1x7x7x128xf32>, tensor<1x7x7x288xf32>, tensor<1x7x7x256xf32>, tensor<1x7x7x256xf32>, tensor<1x5x5x256xf32>) {
  %zero = arith.constant 0.0 : f32
  %w128 = arith.constant dense<0.5> : tensor<3x3x16x128xf32>
  %w288 = arith.constant dense<0.5> : tensor<3x3x16x288xf32>
  %w256 = arith.constant dense<0.5> : tensor<3x3x16x256xf32>
  %e128 = tensor.empty() : tensor<1x7x7x128xf32>
  %e288 = tensor.empty() : tensor<1x7x7x288xf32>
  %e256 = tensor.empty() : tensor<1x7x7x256xf32>
  %i128 = linalg.fill ins(%zero : f32) outs(%e128 : tensor<1x7x7x128xf32>) -> tensor<1x7x7x128xf32>
  %i288 = linalg.fill ins(%zero : f32) outs(%e288 : tensor<1x7x7x288xf32>) -> tensor<1x7x7x288xf32>
  %i256 = linalg.fill ins(%zero : f32) outs(%e256 : tensor<1x7x7x256xf32>) -> tensor<1x7x7x256xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w128 : tensor<1x9x9x16xf32>, tensor<3x3x16x128xf32>) outs(%i128 : tensor<1x7x7x128xf32>) -> tensor<1x7x7x128xf32>
  %1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w288 : tensor<1x9x9x16xf32>, tensor<3x3x16x288xf32>) outs(%i288 : tensor<1x7x7x288xf32>) -> tensor<1x7x7x288xf32>
  %2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %filter : tensor<1x9x9x16xf32>, tensor<3x3x16x256xf32>) outs(%i256 : tensor<1x7x7x256xf32>) -> tensor<1x7x7x256xf32>
  %3 = linalg.conv_2d_nhwc_hwcf {tcl.task = "named", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w256 : tensor<1x9x9x16xf32>, tensor<3x3x16x256xf32>) outs(%i256 : tensor<1x7x7x256xf32>) -> tensor<1x7x7x256xf32>
  %w1x1 = arith.constant dense<0.5> : tensor<1x1x16x256xf32>
  %e5 = tensor.empty() : tensor<1x5x5x256xf32>
  %i5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<1x5x5x256xf32>) -> tensor<1x5x5x256xf32>
  %4 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%in, %w1x1 : tensor<1x9x9x16xf32>, tensor<1x1x16x256xf32>) outs(%i5 : tensor<1x5x5x256xf32>) -> tensor<1x5x5x256xf32>
  return %0, %1, %2, %3, %4 : tensor<1x7x7x128xf32>, tensor<1x7x7x288xf32>, tensor<1x7x7x256xf32>, tensor<1x7x7x256xf32>, tensor<1x5x5x256xf32>
}
