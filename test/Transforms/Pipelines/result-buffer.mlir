// A function's result computed into a buffer it allocates is written in
// place into the caller's out-parameter: no temporary, no copy nest. (The
// loops that tile the result carry its buffer as an iteration argument;
// unless those fold away first, the result was a copy of a temporary, a
// whole extra pass over every output a kernel or a measured task writes.)
// RUN: tcl-opt %s "--tcl-lower-to-llvm=target=x86-avx512" | FileCheck %s

// The convolution, whose register tiles fill their own accumulators;
// nothing else, and no allocation.
// CHECK-LABEL: llvm.func @depthwise(
//   CHECK-NOT:   malloc
//       CHECK:   llvm.call @depthwise.t(
//   CHECK-NOT:   llvm.call
//   CHECK-NOT:   malloc
//       CHECK:   llvm.return
func.func @depthwise(%in: tensor<1x114x114x32xf32>, %w: tensor<3x3x32xf32>) -> tensor<1x112x112x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x112x112x32xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x112x112x32xf32>) -> tensor<1x112x112x32xf32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {tcl.task = "t", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : tensor<1x114x114x32xf32>, tensor<3x3x32xf32>) outs(%o : tensor<1x112x112x32xf32>) -> tensor<1x112x112x32xf32>
  return %0 : tensor<1x112x112x32xf32>
}
tcl.sched.schedule task "t" anchor "linalg.depthwise_conv_2d_nhwc_hwc" target "x86-avx512" loops [1 parallel, 112 parallel, 112 parallel, 32 parallel, 3 reduction, 3 reduction] {
  tcl.sched.tile [0, 1, 8, 0, 1, 0]
  tcl.sched.decompose
  tcl.sched.vectorize
}
