// A register tile that spans a convolution's output width (7 columns of a
// 7x7 map) reads one column of the zero padding with its first and its
// last kernel column. After the accumulators are hoisted, the kernel-column
// loop is unrolled and those two contractions narrowed to the 6 columns
// that read the input (tcl.skip_zero_border_products): 19 of 21 products
// a step, as the vendor library computes. The middle kernel column keeps
// all 7. Without a padding (or with one that is not zero) nothing changes.
// RUN: tcl-opt %s --tcl-apply-schedule | FileCheck %s

// CHECK-LABEL: func.func @padded
//       CHECK:   tensor.pad
//       CHECK:   scf.for
//       CHECK:     scf.for
//       CHECK:       vector.extract_strided_slice {{.*}} {offsets = [0, 1, 0], sizes = [1, 6, 1], strides = [1, 1, 1]} : vector<1x7x1xf32> to vector<1x6x1xf32>
//       CHECK:       vector.extract_strided_slice {{.*}} {offsets = [0, 1, 0], sizes = [1, 6, 32], strides = [1, 1, 1]} : vector<1x7x32xf32> to vector<1x6x32xf32>
//       CHECK:       vector.contract {{.*}} vector<1x6x1xf32>, vector<1x32xf32> into vector<1x6x32xf32>
//       CHECK:       vector.insert_strided_slice {{.*}} {offsets = [0, 1, 0], strides = [1, 1, 1]} : vector<1x6x32xf32> into vector<1x7x32xf32>
//       CHECK:     scf.for
//       CHECK:       vector.contract {{.*}} vector<1x7x1xf32>, vector<1x32xf32> into vector<1x7x32xf32>
//       CHECK:     scf.for
//       CHECK:       vector.extract_strided_slice {{.*}} {offsets = [0, 0, 0], sizes = [1, 6, 1], strides = [1, 1, 1]} : vector<1x7x1xf32> to vector<1x6x1xf32>
//       CHECK:       vector.contract {{.*}} vector<1x6x1xf32>, vector<1x32xf32> into vector<1x6x32xf32>
//       CHECK:       vector.insert_strided_slice {{.*}} {offsets = [0, 0, 0], strides = [1, 1, 1]} : vector<1x6x32xf32> into vector<1x7x32xf32>
//       CHECK:   return
func.func @padded(%x: tensor<1x7x7x8xf32>, %w: tensor<3x3x8x32xf32>, %o: tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x7x7x8xf32> to tensor<1x9x9x8xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {tcl.task = "conv", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x9x9x8xf32>, tensor<3x3x8x32xf32>) outs(%o : tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32>
  return %0 : tensor<1x7x7x32xf32>
}
tcl.sched.schedule task "conv" anchor "linalg.conv_2d_nhwc_hwcf" target "x86-avx512"
    loops [1 parallel, 7 parallel, 7 parallel, 32 parallel, 3 reduction, 3 reduction, 8 reduction] {
  tcl.sched.tile [0, 1, 0, 0, 1, 1, 1]
  tcl.sched.decompose
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}

// CHECK-LABEL: func.func @padded_with_ones
//   CHECK-NOT:   vector.extract_strided_slice
//       CHECK:   return
func.func @padded_with_ones(%x: tensor<1x7x7x8xf32>, %w: tensor<3x3x8x32xf32>, %o: tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32> {
  %one = arith.constant 1.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %one : f32
  } : tensor<1x7x7x8xf32> to tensor<1x9x9x8xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {tcl.task = "ones", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x9x9x8xf32>, tensor<3x3x8x32xf32>) outs(%o : tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32>
  return %0 : tensor<1x7x7x32xf32>
}
tcl.sched.schedule task "ones" anchor "linalg.conv_2d_nhwc_hwcf" target "x86-avx512"
    loops [1 parallel, 7 parallel, 7 parallel, 32 parallel, 3 reduction, 3 reduction, 8 reduction] {
  tcl.sched.tile [0, 1, 0, 0, 1, 1, 1]
  tcl.sched.decompose
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}

// A kernel-column loop the schedule unrolled already leaves each column's
// contraction at a constant offset: narrowed as they are.
// CHECK-LABEL: func.func @unrolled
//       CHECK:   vector.contract {{.*}} vector<1x6x1xf32>, vector<1x32xf32> into vector<1x6x32xf32>
//       CHECK:   vector.contract {{.*}} vector<1x7x1xf32>, vector<1x32xf32> into vector<1x7x32xf32>
//       CHECK:   vector.contract {{.*}} vector<1x6x1xf32>, vector<1x32xf32> into vector<1x6x32xf32>
//   CHECK-NOT:   vector.contract
//       CHECK:   return
func.func @unrolled(%x: tensor<1x7x7x8xf32>, %w: tensor<3x3x8x32xf32>, %o: tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x7x7x8xf32> to tensor<1x9x9x8xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {tcl.task = "unrolled", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x9x9x8xf32>, tensor<3x3x8x32xf32>) outs(%o : tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32>
  return %0 : tensor<1x7x7x32xf32>
}
tcl.sched.schedule task "unrolled" anchor "linalg.conv_2d_nhwc_hwcf" target "x86-avx512"
    loops [1 parallel, 7 parallel, 7 parallel, 32 parallel, 3 reduction, 3 reduction, 8 reduction] {
  tcl.sched.tile [0, 1, 0, 0, 1, 1, 1]
  tcl.sched.decompose
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
  tcl.sched.unroll level 0 dim 5 by 3
}
