// The taps a padded convolution skips (skip-zero-border-taps.mlir) add
// nothing: the scheduled code computes what plain loops do, with 1- and
// 2-row tiles, a stride of 2 and an uneven border; nor do a max pooling's
// taps that read only its -inf border.
// REQUIRES: tcl-run
// RUN: tcl-run %s --entry=conv | FileCheck %s
// RUN: tcl-run %s --entry=strided | FileCheck %s
// RUN: tcl-run %s --entry=max_pool | FileCheck %s
// CHECK: against plain loops: ok

func.func @conv(%x: tensor<1x6x6x8xf32>, %w: tensor<3x3x8x8xf32>) -> tensor<1x6x6x8xf32> {
  %zero = arith.constant 0.0 : f32
  %in = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x6x6x8xf32> to tensor<1x8x8x8xf32>
  %e = tensor.empty() : tensor<1x6x6x8xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {tcl.task = "conv", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : tensor<1x8x8x8xf32>, tensor<3x3x8x8xf32>) outs(%o : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  return %0 : tensor<1x6x6x8xf32>
}
tcl.sched.schedule task "conv" anchor "linalg.conv_2d_nhwc_hwcf" target "x86-sse42" loops [1 parallel, 6 parallel, 6 parallel, 8 parallel, 3 reduction, 3 reduction, 8 reduction] {
  tcl.sched.tile [0, 2, 2, 0, 0, 0, 0]
  tcl.sched.tile [0, 1, 0, 0, 1, 1, 1]
  tcl.sched.decompose
  tcl.sched.vectorize
}

func.func @strided(%x: tensor<1x7x7x8xf32>, %w: tensor<3x3x8xf32>) -> tensor<1x4x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %in = tensor.pad %x low[0, 1, 2, 0] high[0, 1, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x7x7x8xf32> to tensor<1x9x9x8xf32>
  %e = tensor.empty() : tensor<1x4x4x8xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {tcl.task = "strided", dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%in, %w : tensor<1x9x9x8xf32>, tensor<3x3x8xf32>) outs(%o : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  return %0 : tensor<1x4x4x8xf32>
}
tcl.sched.schedule task "strided" anchor "linalg.depthwise_conv_2d_nhwc_hwc" target "x86-sse42" loops [1 parallel, 4 parallel, 4 parallel, 8 parallel, 3 reduction, 3 reduction] {
  tcl.sched.tile [0, 1, 1, 4, 1, 1]
  tcl.sched.decompose
  tcl.sched.vectorize
}

func.func @max_pool(%x: tensor<1x7x7x16xf32>) -> tensor<1x4x4x16xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %in = tensor.pad %x low[0, 1, 2, 0] high[0, 1, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<1x7x7x16xf32> to tensor<1x9x9x16xf32>
  %e = tensor.empty() : tensor<1x4x4x16xf32>
  %o = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %k = tensor.empty() : tensor<3x3xf32>
  %0 = linalg.pooling_nhwc_max {tcl.task = "max_pool", dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%in, %k : tensor<1x9x9x16xf32>, tensor<3x3xf32>) outs(%o : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  return %0 : tensor<1x4x4x16xf32>
}
tcl.sched.schedule task "max_pool" anchor "linalg.pooling_nhwc_max" target "x86-sse42" loops [1 parallel, 4 parallel, 4 parallel, 16 parallel, 3 reduction, 3 reduction] {
  tcl.sched.tile [0, 1, 2, 0, 1, 1]
  tcl.sched.decompose
  tcl.sched.vectorize
}
