// RUN: tcl-opt %s --split-input-file --tcl-winograd-convolutions | FileCheck %s
// RUN: tcl-opt %s --split-input-file --tcl-optimize-graph | FileCheck %s --check-prefix=GRAPH
// RUN: tcl-opt %s --split-input-file --tcl-winograd-convolutions=min-channels=32 | FileCheck %s --check-prefix=FEW

// An 8x8 output splits into 4x4 blocks: F(4x4, 3x3), 6x6 transformed
// tiles. The input's rows of every tile are slices with a stride of 4
// rows, combined by B^T's columns; then the columns likewise; 36 matmuls
// of [4 tiles x 16] x [16 x 24] with the filter transformed now; A^T
// twice; the result collapsed to NHWC.
// CHECK-LABEL: func.func @f4x4
// CHECK-SAME: (%[[IN:.*]]: tensor<1x10x10x16xf32>)
// CHECK: %[[R0:.*]] = tensor.extract_slice %[[IN]][0, 0, 0, 0] [1, 2, 10, 16] [1, 4, 1, 1] : tensor<1x10x10x16xf32> to tensor<1x2x10x16xf32>
// CHECK: %[[R5:.*]] = tensor.extract_slice %[[IN]][0, 5, 0, 0] [1, 2, 10, 16] [1, 4, 1, 1]
// CHECK: %[[Z:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins({{.*}}, %[[R0]], {{.*}}, %[[R5]] : {{.*}}) outs(%{{.*}} : tensor<6x1x2x10x16xf32>)
// CHECK-COUNT-5: math.fma
// CHECK: %[[C5:.*]] = tensor.extract_slice %[[Z]][0, 0, 0, 5, 0] [6, 1, 2, 2, 16] [1, 1, 1, 4, 1] : tensor<6x1x2x10x16xf32> to tensor<6x1x2x2x16xf32>
// CHECK: %[[V:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<6x6x1x2x2x16xf32>)
// CHECK: %[[LHS:.*]] = tensor.collapse_shape %[[V]] {{\[}}[0, 1], [2, 3, 4], [5]] : tensor<6x6x1x2x2x16xf32> into tensor<36x4x16xf32>
// CHECK: %[[U:.*]] = arith.constant dense<{{.*}}> : tensor<36x16x24xf32>
// CHECK: %[[M:.*]] = linalg.batch_matmul ins(%[[LHS]], %[[U]] : tensor<36x4x16xf32>, tensor<36x16x24xf32>)
// CHECK: %[[M6:.*]] = tensor.expand_shape %[[M]] {{\[}}[0, 1], [2, 3, 4], [5]] output_shape [6, 6, 1, 2, 2, 24]
// CHECK: tensor.extract_slice %[[M6]][5, 0, 0, 0, 0, 0] [1, 6, 1, 2, 2, 24] [1, 1, 1, 1, 1, 1] : tensor<6x6x1x2x2x24xf32> to tensor<6x1x2x2x24xf32>
// CHECK: %[[O:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4x6x1x2x2x24xf32>)
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x4x2x4x24xf32>) attrs = {tcl.winograd_output}
// CHECK: %[[OUT:.*]] = tensor.collapse_shape %[[Y]] {{\[}}[0], [1, 2], [3, 4], [5]] : tensor<1x2x4x2x4x24xf32> into tensor<1x8x8x24xf32>
// CHECK-NOT: linalg.conv_2d
// CHECK: return %[[OUT]]
// FEW-LABEL: func.func @f4x4
// FEW: linalg.conv_2d_nhwc_hwcf
// FEW-NOT: linalg.batch_matmul
func.func @f4x4(%in: tensor<1x10x10x16xf32>) -> tensor<1x8x8x24xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.5> : tensor<3x3x16x24xf32>
  %e = tensor.empty() : tensor<1x8x8x24xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x24xf32>) -> tensor<1x8x8x24xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : tensor<1x10x10x16xf32>, tensor<3x3x16x24xf32>) outs(%init : tensor<1x8x8x24xf32>) -> tensor<1x8x8x24xf32>
  return %0 : tensor<1x8x8x24xf32>
}

// -----

// 6x6 outputs, a batch of 2: F(2x2, 3x3), 4x4 transformed tiles, the batch
// among the tiles (2 x 3 x 3 = 18).
// CHECK-LABEL: func.func @f2x2
// CHECK: tensor.extract_slice %{{.*}}[0, 3, 0, 0] [2, 3, 8, 32] [1, 2, 1, 1] : tensor<2x8x8x32xf32> to tensor<2x3x8x32xf32>
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<16x18x32xf32>, tensor<16x32x32xf32>)
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2], [3, 4], [5]] : tensor<2x3x2x3x2x32xf32> into tensor<2x6x6x32xf32>
// FEW-LABEL: func.func @f2x2
// FEW: linalg.batch_matmul
func.func @f2x2(%in: tensor<2x8x8x32xf32>) -> tensor<2x6x6x32xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.25> : tensor<3x3x32x32xf32>
  %e = tensor.empty() : tensor<2x6x6x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x6x6x32xf32>) -> tensor<2x6x6x32xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : tensor<2x8x8x32xf32>, tensor<3x3x32x32xf32>) outs(%init : tensor<2x6x6x32xf32>) -> tensor<2x6x6x32xf32>
  return %0 : tensor<2x6x6x32xf32>
}

// -----

// Left alone: a filter known only at run time, a stride of 2, a dilation,
// 7x7 outputs (odd: no blocks), an accumulator that does not start at
// zero, fewer than 16 input channels, and a convolution with a task tag.
// CHECK-LABEL: func.func @not_winograd
// CHECK-NOT: linalg.batch_matmul
// CHECK-COUNT-7: linalg.conv_2d_nhwc_hwcf
// CHECK-NOT: linalg.batch_matmul
// CHECK: return
func.func @not_winograd(%in: tensor<1x10x10x16xf32>, %wr: tensor<3x3x16x16xf32>, %in9: tensor<1x9x9x16xf32>,
                        %acc: tensor<1x8x8x16xf32>, %in8: tensor<1x10x10x8xf32>)
    -> (tensor<1x8x8x16xf32>, tensor<1x4x4x16xf32>, tensor<1x6x6x16xf32>, tensor<1x7x7x16xf32>,
        tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.5> : tensor<3x3x16x16xf32>
  %w8 = arith.constant dense<0.5> : tensor<3x3x8x16xf32>
  %e8 = tensor.empty() : tensor<1x8x8x16xf32>
  %i8 = linalg.fill ins(%zero : f32) outs(%e8 : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %e4 = tensor.empty() : tensor<1x4x4x16xf32>
  %i4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %e6 = tensor.empty() : tensor<1x6x6x16xf32>
  %i6 = linalg.fill ins(%zero : f32) outs(%e6 : tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  %e7 = tensor.empty() : tensor<1x7x7x16xf32>
  %i7 = linalg.fill ins(%zero : f32) outs(%e7 : tensor<1x7x7x16xf32>) -> tensor<1x7x7x16xf32>
  %runtime = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %wr : tensor<1x10x10x16xf32>, tensor<3x3x16x16xf32>) outs(%i8 : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %strided = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%in, %w : tensor<1x10x10x16xf32>, tensor<3x3x16x16xf32>) outs(%i4 : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %dilated = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : tensor<1x10x10x16xf32>, tensor<3x3x16x16xf32>) outs(%i6 : tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  %odd = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in9, %w : tensor<1x9x9x16xf32>, tensor<3x3x16x16xf32>) outs(%i7 : tensor<1x7x7x16xf32>) -> tensor<1x7x7x16xf32>
  %accumulating = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : tensor<1x10x10x16xf32>, tensor<3x3x16x16xf32>) outs(%acc : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %narrow = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in8, %w8 : tensor<1x10x10x8xf32>, tensor<3x3x8x16xf32>) outs(%i8 : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %tagged = linalg.conv_2d_nhwc_hwcf {tcl.task = "t", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : tensor<1x10x10x16xf32>, tensor<3x3x16x16xf32>) outs(%i8 : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  return %runtime, %strided, %dilated, %odd, %accumulating, %narrow, %tagged
      : tensor<1x8x8x16xf32>, tensor<1x4x4x16xf32>, tensor<1x6x6x16xf32>, tensor<1x7x7x16xf32>,
        tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chan = affine_map<(d0, d1, d2, d3) -> (d3)>

// In the graph pipeline the epilogue (bias, ReLU, a residual add) is
// computed in the output transform's shape, fused into it: its task. The
// residual is read through an expansion; one collapse remains, at the end.
// GRAPH-LABEL: func.func @with_epilogue
// GRAPH-SAME: (%[[IN:.*]]: tensor<1x10x10x16xf32>, %[[RES:.*]]: tensor<1x8x8x16xf32>)
// GRAPH: linalg.batch_matmul
// GRAPH: %[[R:.*]] = tensor.expand_shape %[[RES]] {{\[}}[0], [1, 2], [3, 4], [5]] output_shape [1, 2, 4, 2, 4, 16] : tensor<1x8x8x16xf32> into tensor<1x2x4x2x4x16xf32>
// GRAPH: %[[Y:.*]] = linalg.generic {{.*}} ins({{.*}}, %[[R]] : {{.*}}) outs(%{{.*}} : tensor<1x2x4x2x4x16xf32>)
// GRAPH-COUNT-5: math.fma
// GRAPH: arith.addf
// GRAPH: arith.maximumf
// GRAPH: arith.addf
// GRAPH: linalg.yield
// GRAPH: %[[OUT:.*]] = tensor.collapse_shape %[[Y]] {{\[}}[0], [1, 2], [3, 4], [5]] : tensor<1x2x4x2x4x16xf32> into tensor<1x8x8x16xf32>
// GRAPH-NEXT: return %[[OUT]]
func.func @with_epilogue(%in: tensor<1x10x10x16xf32>, %res: tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32> {
  %w = arith.constant dense<0.5> : tensor<3x3x16x16xf32>
  %bias = arith.constant dense<1.0> : tensor<16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : tensor<1x10x10x16xf32>, tensor<3x3x16x16xf32>) outs(%init : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %biased = linalg.generic {indexing_maps = [#id, #chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv, %bias : tensor<1x8x8x16xf32>, tensor<16xf32>) outs(%e : tensor<1x8x8x16xf32>) {
  ^bb0(%x: f32, %b: f32, %o: f32):
    %s = arith.addf %x, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x8x8x16xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%biased : tensor<1x8x8x16xf32>) outs(%e : tensor<1x8x8x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x8x8x16xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%relu, %res : tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>) outs(%e : tensor<1x8x8x16xf32>) {
  ^bb0(%x: f32, %r: f32, %o: f32):
    %s = arith.addf %x, %r : f32
    linalg.yield %s : f32
  } -> tensor<1x8x8x16xf32>
  return %sum : tensor<1x8x8x16xf32>
}
