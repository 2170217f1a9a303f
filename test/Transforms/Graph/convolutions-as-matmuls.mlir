// RUN: tcl-opt %s --split-input-file --tcl-convolutions-as-matmuls | FileCheck %s
// RUN: tcl-opt %s --split-input-file --tcl-optimize-graph | FileCheck %s --check-prefix=GRAPH

// A 1x1 convolution with unit strides is a matmul of the input's rows
// (N*H*W) with the filter as a CxF matrix; the task tag moves to the matmul,
// the convolution's own attributes do not.
// CHECK-LABEL: func.func @pointwise
// CHECK-SAME: (%[[IN:.*]]: tensor<2x7x7x440xf32>, %[[W:.*]]: tensor<1x1x440x24xf32>
// CHECK-DAG: %[[INIT:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3]] : tensor<2x7x7x24xf32> into tensor<98x24xf32>
// CHECK-DAG: %[[A:.*]] = tensor.collapse_shape %[[IN]] {{\[}}[0, 1, 2], [3]] : tensor<2x7x7x440xf32> into tensor<98x440xf32>
// CHECK-DAG: %[[B:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0, 1, 2], [3]] : tensor<1x1x440x24xf32> into tensor<440x24xf32>
// CHECK: %[[MM:.*]] = linalg.matmul {tcl.task = "t"} ins(%[[A]], %[[B]] : tensor<98x440xf32>, tensor<440x24xf32>) outs(%[[INIT]] : tensor<98x24xf32>)
// CHECK: %[[OUT:.*]] = tensor.expand_shape %[[MM]] {{\[}}[0, 1, 2], [3]] output_shape [2, 7, 7, 24] : tensor<98x24xf32> into tensor<2x7x7x24xf32>
// CHECK-NOT: linalg.conv_2d
// CHECK: return %[[OUT]]
func.func @pointwise(%in: tensor<2x7x7x440xf32>, %w: tensor<1x1x440x24xf32>) -> tensor<2x7x7x24xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x7x7x24xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x7x7x24xf32>) -> tensor<2x7x7x24xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {tcl.task = "t", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : tensor<2x7x7x440xf32>, tensor<1x1x440x24xf32>) outs(%init : tensor<2x7x7x24xf32>) -> tensor<2x7x7x24xf32>
  return %0 : tensor<2x7x7x24xf32>
}

// -----

// Not matmuls: a strided 1x1 convolution (it skips input rows and columns),
// a 3x3 one, and a 1x1 one whose input is larger than its output.
// CHECK-LABEL: func.func @not_pointwise
// CHECK-NOT: linalg.matmul
// CHECK-COUNT-3: linalg.conv_2d_nhwc_hwcf
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @not_pointwise(%in: tensor<1x8x8x16xf32>, %w1: tensor<1x1x16x8xf32>, %w3: tensor<3x3x16x8xf32>)
    -> (tensor<1x4x4x8xf32>, tensor<1x6x6x8xf32>, tensor<1x6x6x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<1x4x4x8xf32>
  %i4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %e6 = tensor.empty() : tensor<1x6x6x8xf32>
  %i6 = linalg.fill ins(%zero : f32) outs(%e6 : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  %strided = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%in, %w1 : tensor<1x8x8x16xf32>, tensor<1x1x16x8xf32>) outs(%i4 : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %window = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w3 : tensor<1x8x8x16xf32>, tensor<3x3x16x8xf32>) outs(%i6 : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  %in6 = tensor.extract_slice %in[0, 0, 0, 0] [1, 7, 7, 16] [1, 1, 1, 1] : tensor<1x8x8x16xf32> to tensor<1x7x7x16xf32>
  %e6b = tensor.empty() : tensor<1x6x6x8xf32>
  %i6b = linalg.fill ins(%zero : f32) outs(%e6b : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  %cropped = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in6, %w1 : tensor<1x7x7x16xf32>, tensor<1x1x16x8xf32>) outs(%i6b : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  return %strided, %window, %cropped : tensor<1x4x4x8xf32>, tensor<1x6x6x8xf32>, tensor<1x6x6x8xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chan = affine_map<(d0, d1, d2, d3) -> (d3)>

// In the graph pipeline: the constant filter becomes a constant matrix, and
// the epilogue (bias + ReLU + a residual add) is computed in the matmul's
// shape, reading the residual through a collapse, so that it joins the
// matmul's task; one expansion remains, at the end.
// GRAPH-LABEL: func.func @with_epilogue
// GRAPH-SAME: (%[[IN:.*]]: tensor<1x4x4x8xf32>, %[[RES:.*]]: tensor<1x4x4x2xf32>)
// GRAPH-DAG: %[[W:.*]] = arith.constant dense<{{.*}}> : tensor<8x2xf32>
// GRAPH-DAG: %[[A:.*]] = tensor.collapse_shape %[[IN]] {{\[}}[0, 1, 2], [3]] : tensor<1x4x4x8xf32> into tensor<16x8xf32>
// GRAPH: %[[MM:.*]] = linalg.matmul ins(%[[A]], %[[W]] : tensor<16x8xf32>, tensor<8x2xf32>)
// GRAPH: %[[R:.*]] = tensor.collapse_shape %[[RES]] {{\[}}[0, 1, 2], [3]] : tensor<1x4x4x2xf32> into tensor<16x2xf32>
// GRAPH: %[[EPI:.*]] = linalg.generic {{.*}} ins(%[[MM]], %{{.*}}, %[[R]] : tensor<16x2xf32>, tensor<2xf32>, tensor<16x2xf32>)
// GRAPH: arith.addf
// GRAPH: arith.maximumf
// GRAPH: arith.addf
// GRAPH: %[[OUT:.*]] = tensor.expand_shape %[[EPI]] {{\[}}[0, 1, 2], [3]] output_shape [1, 4, 4, 2] : tensor<16x2xf32> into tensor<1x4x4x2xf32>
// GRAPH-NOT: linalg.conv_2d
// GRAPH: return %[[OUT]]
func.func @with_epilogue(%in: tensor<1x4x4x8xf32>, %res: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w = arith.constant dense<0.5> : tensor<1x1x8x2xf32>
  %bias = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : tensor<1x4x4x8xf32>, tensor<1x1x8x2xf32>) outs(%init : tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %biased = linalg.generic {indexing_maps = [#id, #chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv, %bias : tensor<1x4x4x2xf32>, tensor<2xf32>) outs(%e : tensor<1x4x4x2xf32>) {
  ^bb0(%x: f32, %b: f32, %o: f32):
    %s = arith.addf %x, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x2xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%biased : tensor<1x4x4x2xf32>) outs(%e : tensor<1x4x4x2xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x4x4x2xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%relu, %res : tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) outs(%e : tensor<1x4x4x2xf32>) {
  ^bb0(%x: f32, %r: f32, %o: f32):
    %s = arith.addf %x, %r : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x2xf32>
  return %sum : tensor<1x4x4x2xf32>
}

// -----

// The next (depthwise) convolution pads the result: the pad stays after the
// expansion (elementwise fusion once crashed on a pad of an expanded
// matmul result). (Padded for a full convolution, the 1x1 convolution
// stays one: see @padded_for_3x3.)
// GRAPH-LABEL: func.func @padded_for_the_next_convolution
// GRAPH: %[[MM:.*]] = linalg.matmul
// GRAPH: %[[OUT:.*]] = tensor.expand_shape %[[MM]] {{\[}}[0, 1, 2], [3]] output_shape [1, 4, 4, 2]
// GRAPH: tensor.pad %[[OUT]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// GRAPH: linalg.depthwise_conv_2d_nhwc_hwc
func.func @padded_for_the_next_convolution(%in: tensor<1x4x4x8xf32>, %w: tensor<1x1x8x2xf32>, %w3: tensor<3x3x2xf32>) -> tensor<1x4x4x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : tensor<1x4x4x8xf32>, tensor<1x1x8x2xf32>) outs(%init : tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %padded = tensor.pad %conv low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x4x2xf32> to tensor<1x6x6x2xf32>
  %init3 = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %conv3 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%padded, %w3 : tensor<1x6x6x2xf32>, tensor<3x3x2xf32>) outs(%init3 : tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  return %conv3 : tensor<1x4x4x2xf32>
}

// -----

// On buffers the convolution stays (the pass rewrites tensors only).
// CHECK-LABEL: func.func @on_buffers
// CHECK: linalg.conv_2d_nhwc_hwcf
// CHECK-NOT: linalg.matmul
func.func @on_buffers(%in: memref<1x4x4x8xf32>, %w: memref<1x1x8x2xf32>, %out: memref<1x4x4x2xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : memref<1x4x4x8xf32>, memref<1x1x8x2xf32>) outs(%out : memref<1x4x4x2xf32>)
  return
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A 1x1 convolution whose result, through its ReLU, is padded for a 3x3
// convolution stays a convolution: it can then compute its pixels into the
// middle of the padded tensor (tcl-write-into-consumers), which rows of
// collapsed pixels cannot. Padded for a depthwise convolution (whose tiles
// read the unpadded input) it is a matmul.
// CHECK-LABEL: func.func @padded_for_3x3
// CHECK-NOT: linalg.matmul
// CHECK: %[[C:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x8x8x16xf32>, tensor<1x1x16x8xf32>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[C]] :
// CHECK: tensor.pad %[[R]]
// CHECK-LABEL: func.func @concatenated_then_padded
// CHECK-NOT: linalg.matmul
// CHECK: %[[C:.*]] = linalg.conv_2d_nhwc_hwcf
// CHECK: tensor.insert_slice %[[C]]
// CHECK: tensor.pad
// CHECK-LABEL: func.func @padded_for_depthwise
// CHECK: linalg.matmul
// CHECK: tensor.pad
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc
func.func @padded_for_3x3(%in: tensor<1x8x8x16xf32>, %w1: tensor<1x1x16x8xf32>, %w3: tensor<3x3x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w1 : tensor<1x8x8x16xf32>, tensor<1x1x16x8xf32>) outs(%init : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<1x8x8x8xf32>) outs(%e : tensor<1x8x8x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x8xf32>
  %p = tensor.pad %r low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x8xf32> to tensor<1x10x10x8xf32>
  %o = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w3 : tensor<1x10x10x8xf32>, tensor<3x3x8x8xf32>) outs(%init : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %o : tensor<1x8x8x8xf32>
}

// UNet's up path: the 1x1 convolution is a part of the concatenation that
// the next 3x3 convolution pads.
func.func @concatenated_then_padded(%in: tensor<1x8x8x16xf32>, %skip: tensor<1x8x8x8xf32>, %w1: tensor<1x1x16x8xf32>) -> tensor<1x10x10x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w1 : tensor<1x8x8x16xf32>, tensor<1x1x16x8xf32>) outs(%init : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %cat = tensor.empty() : tensor<1x8x8x16xf32>
  %cat0 = tensor.insert_slice %c into %cat[0, 0, 0, 0] [1, 8, 8, 8] [1, 1, 1, 1] : tensor<1x8x8x8xf32> into tensor<1x8x8x16xf32>
  %cat1 = tensor.insert_slice %skip into %cat0[0, 0, 0, 8] [1, 8, 8, 8] [1, 1, 1, 1] : tensor<1x8x8x8xf32> into tensor<1x8x8x16xf32>
  %p = tensor.pad %cat1 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x16xf32> to tensor<1x10x10x16xf32>
  return %p : tensor<1x10x10x16xf32>
}

func.func @padded_for_depthwise(%in: tensor<1x8x8x16xf32>, %w1: tensor<1x1x16x8xf32>, %w3: tensor<3x3x8xf32>) -> tensor<1x8x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w1 : tensor<1x8x8x16xf32>, tensor<1x1x16x8xf32>) outs(%init : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %p = tensor.pad %c low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x8xf32> to tensor<1x10x10x8xf32>
  %o = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w3 : tensor<1x10x10x8xf32>, tensor<3x3x8xf32>) outs(%init : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %o : tensor<1x8x8x8xf32>
}
