// With one thread, a convolution or pooling whose output starts from a
// linalg.fill gets a first tile level of output rows (a divisor of at most
// 8, as a fused epilogue's), which takes the fill in: each band of rows is
// zeroed right before it is computed instead of the whole output first.
// Without a fill the schedule has no such level.
// RUN: tcl-opt %s "--tcl-default-schedules=target=x86-avx512" | FileCheck %s

// CHECK-LABEL: tcl.sched.schedule task "default_0" anchor "linalg.depthwise_conv_2d_nhwc_hwc"
//  CHECK-NEXT:   tcl.sched.tile [0, 8, 0, 0, 0, 0]
//  CHECK-NEXT:   tcl.sched.tile [0, 1, 8, 0, 1, 0]
// CHECK-LABEL: tcl.sched.schedule task "default_1" anchor "linalg.conv_2d_nhwc_hwcf"
//  CHECK-NEXT:   tcl.sched.tile [0, 1, 0, 0, 0, 0, 0]
//  CHECK-NEXT:   tcl.sched.tile [0, 0, 0, 32, 0, 0, 1]
// CHECK-LABEL: tcl.sched.schedule task "default_2" anchor "linalg.depthwise_conv_2d_nhwc_hwc"
//  CHECK-NEXT:   tcl.sched.tile [0, 1, 8, 0, 1, 0]
func.func @f(%x: tensor<1x114x114x32xf32>, %w: tensor<3x3x32xf32>,
             %y: tensor<1x13x13x256xf32>, %v: tensor<1x1x256x1000xf32>,
             %out: tensor<1x112x112x32xf32>)
    -> (tensor<1x112x112x32xf32>, tensor<1x13x13x1000xf32>, tensor<1x112x112x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x112x112x32xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x112x112x32xf32>) -> tensor<1x112x112x32xf32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x114x114x32xf32>, tensor<3x3x32xf32>) outs(%o : tensor<1x112x112x32xf32>) -> tensor<1x112x112x32xf32>
  // 13 rows: bands of one row. (Weights under 1 MB: default-schedules-sweeps.mlir
  // has the larger ones.)
  %e1 = tensor.empty() : tensor<1x13x13x1000xf32>
  %o1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x13x13x1000xf32>) -> tensor<1x13x13x1000xf32>
  %1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%y, %v : tensor<1x13x13x256xf32>, tensor<1x1x256x1000xf32>) outs(%o1 : tensor<1x13x13x1000xf32>) -> tensor<1x13x13x1000xf32>
  // Accumulating into an argument: no fill to take in.
  %2 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x114x114x32xf32>, tensor<3x3x32xf32>) outs(%out : tensor<1x112x112x32xf32>) -> tensor<1x112x112x32xf32>
  return %0, %1, %2 : tensor<1x112x112x32xf32>, tensor<1x13x13x1000xf32>, tensor<1x112x112x32xf32>
}
