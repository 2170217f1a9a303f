// decompose rewrites a 2-D window op as its 1-D form once the output and
// kernel height are tiled to 1; the 1-D form then vectorizes.
// RUN: tcl-opt %s -split-input-file --tcl-apply-schedule | FileCheck %s

// CHECK-LABEL: func.func @conv
//       CHECK:   scf.for %{{.*}} = %c0 to %c56 step %c1
//       CHECK:     scf.for %{{.*}} = %c0 to %c56 step %c8
//       CHECK:       scf.for %{{.*}} = %c0 to %c64 step %c32
//       CHECK:         scf.for %{{.*}} = %c0 to %c3 step %c1
//       CHECK:           scf.for %{{.*}} = %c0 to %c3 step %c1
//       CHECK:             scf.for %{{.*}} = %c0 to %c64 step %c1
//       CHECK:               vector.contract {{.*}} : vector<1x8x1xf32>, vector<1x32xf32> into vector<1x8x32xf32>
//   CHECK-NOT: linalg.conv
func.func @conv(%in: tensor<1x58x58x64xf32>, %w: tensor<3x3x64x64xf32>, %out: tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {tcl.task = "conv", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x58x58x64xf32>, tensor<3x3x64x64xf32>) outs(%out : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  return %0 : tensor<1x56x56x64xf32>
}
tcl.sched.schedule task "conv" anchor "linalg.conv_2d_nhwc_hwcf" target "x86-avx512"
    loops [1 parallel, 56 parallel, 56 parallel, 64 parallel, 3 reduction, 3 reduction, 64 reduction] {
  tcl.sched.tile [1, 1, 8, 32, 1, 1, 1]
  tcl.sched.decompose
  tcl.sched.vectorize
}

// -----

// Without vectorization the decomposed op is visible: a 1-D depthwise conv.
// CHECK-LABEL: func.func @dw
//       CHECK:   linalg.depthwise_conv_1d_nwc_wc {{.*}} outs(%{{.*}} : tensor<1x8x16xf32>)
func.func @dw(%in: tensor<1x18x18x32xf32>, %w: tensor<3x3x32xf32>, %out: tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32> {
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {tcl.task = "dw", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x18x18x32xf32>, tensor<3x3x32xf32>) outs(%out : tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  return %0 : tensor<1x16x16x32xf32>
}
tcl.sched.schedule task "dw" anchor "linalg.depthwise_conv_2d_nhwc_hwc" target "x86-avx512"
    loops [1 parallel, 16 parallel, 16 parallel, 32 parallel, 3 reduction, 3 reduction] {
  tcl.sched.tile [1, 1, 8, 16, 1, 0]
  tcl.sched.decompose
}

// -----

// Max pooling decomposes and vectorizes as well.
// CHECK-LABEL: func.func @pool
//       CHECK:   vector.transfer_read
//       CHECK:   arith.maximumf {{.*}} : vector<1x1x32xf32>
//   CHECK-NOT: linalg.pooling
func.func @pool(%in: tensor<1x16x16x32xf32>, %win: tensor<2x2xf32>, %out: tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32> {
  %0 = linalg.pooling_nhwc_max {tcl.task = "pool", dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%in, %win : tensor<1x16x16x32xf32>, tensor<2x2xf32>) outs(%out : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  return %0 : tensor<1x8x8x32xf32>
}
tcl.sched.schedule task "pool" anchor "linalg.pooling_nhwc_max" target "x86-avx512"
    loops [1 parallel, 8 parallel, 8 parallel, 32 parallel, 2 reduction, 2 reduction] {
  tcl.sched.tile [1, 1, 4, 32, 1, 0]
  tcl.sched.decompose
  tcl.sched.vectorize
}

// -----

// A grouped convolution (tcl's linalg.generic form, 4 groups of 8 channels,
// stride 2) decomposes within one group to a plain 1-D convolution on
// rank-reduced slices, which vectorizes like any other.
// CHECK-LABEL: func.func @grouped
//       CHECK:   scf.for %{{.*}} = %c0 to %c8 step %c1
//       CHECK:     scf.for %{{.*}} = %c0 to %c4 step %c1
//       CHECK:       scf.for %{{.*}} = %c0 to %c3 step %c1
//       CHECK:         scf.for %{{.*}} = %c0 to %c3 step %c1
//       CHECK:           scf.for %{{.*}} = %c0 to %c8 step %c1
//       CHECK:             vector.contract {{.*}} : vector<1x1x1xf32>, vector<1x8xf32> into vector<1x1x8xf32>
//   CHECK-NOT: linalg.generic
#in = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh * 2 + kh, ow * 2 + kw, g, c)>
#filter = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (g, kh, kw, c, f)>
#out = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh, ow, g, f)>
func.func @grouped(%in: tensor<1x17x17x4x8xf32>, %w: tensor<4x3x3x8x8xf32>, %out: tensor<1x8x8x4x8xf32>) -> tensor<1x8x8x4x8xf32> {
  %0 = linalg.generic {indexing_maps = [#in, #filter, #out],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
    ins(%in, %w : tensor<1x17x17x4x8xf32>, tensor<4x3x3x8x8xf32>) outs(%out : tensor<1x8x8x4x8xf32>) attrs = {tcl.task = "grouped"} {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x8x8x4x8xf32>
  return %0 : tensor<1x8x8x4x8xf32>
}
tcl.sched.schedule task "grouped" anchor "linalg.generic.conv_2d_nhwgc_ghwcf" target "x86-avx512"
    loops [1 parallel, 8 parallel, 8 parallel, 4 parallel, 8 parallel, 3 reduction, 3 reduction, 8 reduction] {
  tcl.sched.tile [1, 1, 8, 1, 8, 1, 1, 1]
  tcl.sched.decompose
  tcl.sched.vectorize
}

// -----

// Without vectorization: the 1-D convolution of one group, on slices that
// drop the group and the output row.
// CHECK-LABEL: func.func @grouped_1d
//       CHECK:   tensor.extract_slice {{.*}} : tensor<1x1x17x1x8xf32> to tensor<1x17x8xf32>
//       CHECK:   linalg.conv_1d_nwc_wcf {dilations = dense<1> : vector<1xi64>, strides = dense<2> : vector<1xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x17x8xf32>, tensor<3x8x8xf32>) outs(%{{.*}} : tensor<1x8x8xf32>)
#in1 = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh * 2 + kh, ow * 2 + kw, g, c)>
#filter1 = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (g, kh, kw, c, f)>
#out1 = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh, ow, g, f)>
func.func @grouped_1d(%in: tensor<1x17x17x4x8xf32>, %w: tensor<4x3x3x8x8xf32>, %out: tensor<1x8x8x4x8xf32>) -> tensor<1x8x8x4x8xf32> {
  %0 = linalg.generic {indexing_maps = [#in1, #filter1, #out1],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
    ins(%in, %w : tensor<1x17x17x4x8xf32>, tensor<4x3x3x8x8xf32>) outs(%out : tensor<1x8x8x4x8xf32>) attrs = {tcl.task = "grouped"} {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x8x8x4x8xf32>
  return %0 : tensor<1x8x8x4x8xf32>
}
tcl.sched.schedule task "grouped" anchor "linalg.generic.conv_2d_nhwgc_ghwcf" target "x86-avx512"
    loops [1 parallel, 8 parallel, 8 parallel, 4 parallel, 8 parallel, 3 reduction, 3 reduction, 8 reduction] {
  tcl.sched.tile [0, 1, 0, 1, 0, 1, 0, 0]
  tcl.sched.decompose
}
