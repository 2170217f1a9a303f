// Tiles that read the unpadded input and tiles that pad themselves
// (fold-padding-into-tiles.mlir) compute what plain loops do: a depthwise
// convolution with the default schedule's primitives, a stride of 2 with an
// uneven border, a depthwise convolution tiled twice (slices of slices)
// whose epilogue is fused at the outer level (the op it was fused from is
// still there, dead), a max pooling, whose padding is -inf, a 14x14
// map whose tile spans its columns, and grouped convolutions (8 groups of
// 4 channels) of stride 1, padded at every side, and of stride 2.
// REQUIRES: tcl-run
// RUN: tcl-run %s --entry=depthwise | FileCheck %s
// RUN: tcl-run %s --entry=strided | FileCheck %s
// RUN: tcl-run %s --entry=fused | FileCheck %s
// RUN: tcl-run %s --entry=pool | FileCheck %s
// RUN: tcl-run %s --entry=narrow | FileCheck %s
// RUN: tcl-run %s --entry=grouped | FileCheck %s
// RUN: tcl-run %s --entry=grouped_strided | FileCheck %s
// CHECK: against plain loops: ok
// RUN: tcl-opt %s --tcl-apply-schedule | FileCheck %s --check-prefix=FOLDED
// FOLDED-NOT: tensor.pad

func.func @depthwise(%x: tensor<1x16x128x16xf32>, %w: tensor<3x3x16xf32>) -> tensor<1x16x128x16xf32> {
  %zero = arith.constant 0.0 : f32
  %in = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x16x128x16xf32> to tensor<1x18x130x16xf32>
  %e = tensor.empty() : tensor<1x16x128x16xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x128x16xf32>) -> tensor<1x16x128x16xf32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {tcl.task = "depthwise", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : tensor<1x18x130x16xf32>, tensor<3x3x16xf32>) outs(%o : tensor<1x16x128x16xf32>) -> tensor<1x16x128x16xf32>
  return %0 : tensor<1x16x128x16xf32>
}
tcl.sched.schedule task "depthwise" anchor "linalg.depthwise_conv_2d_nhwc_hwc" target "x86-sse42" loops [1 parallel, 16 parallel, 128 parallel, 16 parallel, 3 reduction, 3 reduction] {
  tcl.sched.tile [0, 1, 8, 8, 1, 0]
  tcl.sched.decompose
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}

func.func @strided(%x: tensor<1x14x67x8xf32>, %w: tensor<3x3x8xf32>) -> tensor<1x7x33x8xf32> {
  %zero = arith.constant 0.0 : f32
  %in = tensor.pad %x low[0, 1, 1, 0] high[0, 0, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x14x67x8xf32> to tensor<1x15x68x8xf32>
  %e = tensor.empty() : tensor<1x7x33x8xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x33x8xf32>) -> tensor<1x7x33x8xf32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {tcl.task = "strided", dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%in, %w : tensor<1x15x68x8xf32>, tensor<3x3x8xf32>) outs(%o : tensor<1x7x33x8xf32>) -> tensor<1x7x33x8xf32>
  return %0 : tensor<1x7x33x8xf32>
}
tcl.sched.schedule task "strided" anchor "linalg.depthwise_conv_2d_nhwc_hwc" target "x86-sse42" loops [1 parallel, 7 parallel, 33 parallel, 8 parallel, 3 reduction, 3 reduction] {
  tcl.sched.tile [0, 1, 3, 4, 1, 0]
  tcl.sched.decompose
  tcl.sched.vectorize
}

#bias = affine_map<(n, h, w, c) -> (c)>
#identity = affine_map<(n, h, w, c) -> (n, h, w, c)>
func.func @fused(%x: tensor<1x16x64x8xf32>, %w: tensor<3x3x8xf32>, %b: tensor<8xf32>) -> tensor<1x16x64x8xf32> {
  %zero = arith.constant 0.0 : f32
  %in = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x16x64x8xf32> to tensor<1x18x66x8xf32>
  %e = tensor.empty() : tensor<1x16x64x8xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x64x8xf32>) -> tensor<1x16x64x8xf32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {tcl.task = "fused", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : tensor<1x18x66x8xf32>, tensor<3x3x8xf32>) outs(%o : tensor<1x16x64x8xf32>) -> tensor<1x16x64x8xf32>
  %1 = linalg.generic {tcl.epilogue = "fused", indexing_maps = [#identity, #bias, #identity], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0, %b : tensor<1x16x64x8xf32>, tensor<8xf32>) outs(%e : tensor<1x16x64x8xf32>) {
  ^bb0(%v: f32, %c: f32, %out: f32):
    %s = arith.addf %v, %c : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x16x64x8xf32>
  return %1 : tensor<1x16x64x8xf32>
}
tcl.sched.schedule task "fused" anchor "linalg.depthwise_conv_2d_nhwc_hwc" target "x86-sse42" loops [1 parallel, 16 parallel, 64 parallel, 8 parallel, 3 reduction, 3 reduction] {
  tcl.sched.tile [0, 4, 0, 0, 0, 0]
  tcl.sched.fuse_epilogue
  tcl.sched.tile [0, 1, 4, 0, 1, 0]
  tcl.sched.decompose
  tcl.sched.vectorize
}

func.func @pool(%x: tensor<1x32x128x8xf32>) -> tensor<1x32x128x8xf32> {
  %lowest = arith.constant 0xFF800000 : f32
  %in = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %lowest : f32
  } : tensor<1x32x128x8xf32> to tensor<1x34x130x8xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %e = tensor.empty() : tensor<1x32x128x8xf32>
  %o = linalg.fill ins(%lowest : f32) outs(%e : tensor<1x32x128x8xf32>) -> tensor<1x32x128x8xf32>
  %0 = linalg.pooling_nhwc_max {tcl.task = "pool", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %window : tensor<1x34x130x8xf32>, tensor<3x3xf32>) outs(%o : tensor<1x32x128x8xf32>) -> tensor<1x32x128x8xf32>
  return %0 : tensor<1x32x128x8xf32>
}
tcl.sched.schedule task "pool" anchor "linalg.pooling_nhwc_max" target "x86-sse42" loops [1 parallel, 32 parallel, 128 parallel, 8 parallel, 3 reduction, 3 reduction] {
  tcl.sched.tile [0, 1, 8, 8, 1, 0]
  tcl.sched.decompose
  tcl.sched.vectorize
}

func.func @narrow(%x: tensor<1x14x14x16xf32>, %w: tensor<3x3x16xf32>) -> tensor<1x14x14x16xf32> {
  %zero = arith.constant 0.0 : f32
  %in = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x14x14x16xf32> to tensor<1x16x16x16xf32>
  %e = tensor.empty() : tensor<1x14x14x16xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x14x14x16xf32>) -> tensor<1x14x14x16xf32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {tcl.task = "narrow", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : tensor<1x16x16x16xf32>, tensor<3x3x16xf32>) outs(%o : tensor<1x14x14x16xf32>) -> tensor<1x14x14x16xf32>
  return %0 : tensor<1x14x14x16xf32>
}
tcl.sched.schedule task "narrow" anchor "linalg.depthwise_conv_2d_nhwc_hwc" target "x86-sse42" loops [1 parallel, 14 parallel, 14 parallel, 16 parallel, 3 reduction, 3 reduction] {
  tcl.sched.tile [0, 7, 0, 0, 0, 0]
  tcl.sched.tile [0, 1, 0, 16, 1, 0]
  tcl.sched.decompose
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}

#grouped_input = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh * 1 + kh, ow * 1 + kw, g, c)>
#grouped_filter = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (g, kh, kw, c, f)>
#grouped_output = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh, ow, g, f)>
func.func @grouped(%x: tensor<1x12x12x8x4xf32>, %w: tensor<8x3x3x4x4xf32>) -> tensor<1x12x12x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %in = tensor.pad %x low[0, 1, 1, 0, 0] high[0, 1, 1, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index, %m: index):
    tensor.yield %zero : f32
  } : tensor<1x12x12x8x4xf32> to tensor<1x14x14x8x4xf32>
  %e = tensor.empty() : tensor<1x12x12x8x4xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x12x12x8x4xf32>) -> tensor<1x12x12x8x4xf32>
  %0 = linalg.generic {indexing_maps = [#grouped_input, #grouped_filter, #grouped_output], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %w : tensor<1x14x14x8x4xf32>, tensor<8x3x3x4x4xf32>) outs(%o : tensor<1x12x12x8x4xf32>) attrs = {tcl.task = "grouped"} {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<1x12x12x8x4xf32>
  return %0 : tensor<1x12x12x8x4xf32>
}
tcl.sched.schedule task "grouped" anchor "linalg.generic.conv_2d_nhwgc_ghwcf" target "x86-sse42" loops [1 parallel, 12 parallel, 12 parallel, 8 parallel, 4 parallel, 3 reduction, 3 reduction, 4 reduction] {
  tcl.sched.tile [0, 1, 4, 1, 0, 1, 1, 1]
  tcl.sched.decompose
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}

#grouped_strided_input = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh * 2 + kh, ow * 2 + kw, g, c)>
#grouped_strided_filter = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (g, kh, kw, c, f)>
#grouped_strided_output = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh, ow, g, f)>
func.func @grouped_strided(%x: tensor<1x15x15x8x4xf32>, %w: tensor<8x3x3x4x4xf32>) -> tensor<1x7x7x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %in = tensor.pad %x low[0, 1, 1, 0, 0] high[0, 0, 0, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index, %m: index):
    tensor.yield %zero : f32
  } : tensor<1x15x15x8x4xf32> to tensor<1x16x16x8x4xf32>
  %e = tensor.empty() : tensor<1x7x7x8x4xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x8x4xf32>) -> tensor<1x7x7x8x4xf32>
  %0 = linalg.generic {indexing_maps = [#grouped_strided_input, #grouped_strided_filter, #grouped_strided_output], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %w : tensor<1x16x16x8x4xf32>, tensor<8x3x3x4x4xf32>) outs(%o : tensor<1x7x7x8x4xf32>) attrs = {tcl.task = "grouped_strided"} {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<1x7x7x8x4xf32>
  return %0 : tensor<1x7x7x8x4xf32>
}
tcl.sched.schedule task "grouped_strided" anchor "linalg.generic.conv_2d_nhwgc_ghwcf" target "x86-sse42" loops [1 parallel, 7 parallel, 7 parallel, 8 parallel, 4 parallel, 3 reduction, 3 reduction, 4 reduction] {
  tcl.sched.tile [0, 1, 3, 1, 0, 1, 1, 1]
  tcl.sched.decompose
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}
