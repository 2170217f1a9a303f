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
