// After a convolution's last tile level, a kernel-window loop of one tap a
// step runs only the taps whose input rows (columns) are not all in the
// zero border of its padded input: the others would add zero products. A
// 7x7 map with a 3x3 kernel and a border of 1 runs 19 of its 21 kernel
// rows (oneDNN skips them too).
// RUN: tcl-opt %s -split-input-file --tcl-apply-schedule | FileCheck %s

// One output row a tile: the kernel rows of row %r are max(1 - r, 0) to
// min(8 - r, 3). The 7 columns a tile read 7 + kw columns, never all
// border: the column loop keeps its bounds.
// CHECK-LABEL: func.func @padded_conv
//   CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
//   CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
//   CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
//   CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
//       CHECK: scf.for %[[R:.*]] = %[[C0]] to
//       CHECK:   %[[LO:.*]] = arith.subi %[[C1]], %[[R]]
//       CHECK:   %[[HI:.*]] = arith.subi %[[C8]], %[[R]]
//       CHECK:   %[[FIRST:.*]] = arith.maxsi %[[LO]], %[[C0]]
//       CHECK:   %[[END:.*]] = arith.minsi %[[HI]], %[[C3]]
//       CHECK:   scf.for %{{.*}} = %[[FIRST]] to %[[END]] step %[[C1]]
//       CHECK:     scf.for %{{.*}} = %[[C0]] to %[[C3]] step %[[C1]]
//       CHECK:       linalg.conv_2d_nhwc_hwcf
// Each kernel row it runs reads one input row, inside the input: the loop
// says so while the schedule's sequence runs (tcl.fold_padding_into_tiles
// reads the mark); no mark is left in what the pass returns.
//   CHECK-NOT:     taps_inside
//       CHECK: return
func.func @padded_conv(%x: tensor<1x7x7x16xf32>, %w: tensor<3x3x16x32xf32>) -> tensor<1x7x7x32xf32> {
  %zero = arith.constant 0.0 : f32
  %in = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x7x7x16xf32> to tensor<1x9x9x16xf32>
  %e = tensor.empty() : tensor<1x7x7x32xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {tcl.task = "t", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : tensor<1x9x9x16xf32>, tensor<3x3x16x32xf32>) outs(%o : tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32>
  return %0 : tensor<1x7x7x32xf32>
}
tcl.sched.schedule task "t" anchor "linalg.conv_2d_nhwc_hwcf" target "x86-avx512" loops [1 parallel, 7 parallel, 7 parallel, 32 parallel, 3 reduction, 3 reduction, 16 reduction] {
  tcl.sched.tile [0, 1, 0, 0, 1, 1, 1]
}

// -----

// A stride-2 depthwise convolution on a map whose bottom border the last
// window does not reach (high padding 0): output row %r reads padded rows
// 2r + kh, of which 1 to 8 are not border.
// CHECK-LABEL: func.func @strided_depthwise
//   CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
//   CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
//   CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
//   CHECK-DAG: %[[C9:.*]] = arith.constant 9 : index
//       CHECK: scf.for %[[R:.*]] = %[[C0]] to
//       CHECK:   %[[TWICE:.*]] = affine.apply #{{.*}}(%[[R]])
//       CHECK:   %[[LO:.*]] = arith.subi %[[C1]], %[[TWICE]]
//       CHECK:   %[[HI:.*]] = arith.subi %[[C9]], %[[TWICE]]
//       CHECK:   %[[FIRST:.*]] = arith.maxsi %[[LO]], %[[C0]]
//       CHECK:   %[[END:.*]] = arith.minsi %[[HI]], %[[C3]]
//       CHECK:   scf.for %{{.*}} = %[[FIRST]] to %[[END]] step %[[C1]]
//       CHECK:     linalg.depthwise_conv_2d_nhwc_hwc
func.func @strided_depthwise(%x: tensor<1x8x8x16xf32>, %w: tensor<3x3x16xf32>) -> tensor<1x4x4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %in = tensor.pad %x low[0, 1, 1, 0] high[0, 0, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x16xf32> to tensor<1x9x9x16xf32>
  %e = tensor.empty() : tensor<1x4x4x16xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {tcl.task = "t", dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%in, %w : tensor<1x9x9x16xf32>, tensor<3x3x16xf32>) outs(%o : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  return %0 : tensor<1x4x4x16xf32>
}
tcl.sched.schedule task "t" anchor "linalg.depthwise_conv_2d_nhwc_hwc" target "x86-avx512" loops [1 parallel, 4 parallel, 4 parallel, 16 parallel, 3 reduction, 3 reduction] {
  tcl.sched.tile [0, 1, 4, 0, 1, 1]
}

// -----

// Nothing to skip where the input is an argument (its border may hold
// anything) or a pad of ones.
// CHECK-LABEL: func.func @unpadded
//   CHECK-NOT: arith.maxsi
//       CHECK: linalg.conv_2d_nhwc_hwcf
func.func @unpadded(%in: tensor<1x9x9x16xf32>, %w: tensor<3x3x16x32xf32>) -> tensor<1x7x7x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x7x32xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {tcl.task = "t", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : tensor<1x9x9x16xf32>, tensor<3x3x16x32xf32>) outs(%o : tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32>
  return %0 : tensor<1x7x7x32xf32>
}
tcl.sched.schedule task "t" anchor "linalg.conv_2d_nhwc_hwcf" target "x86-avx512" loops [1 parallel, 7 parallel, 7 parallel, 32 parallel, 3 reduction, 3 reduction, 16 reduction] {
  tcl.sched.tile [0, 1, 0, 0, 1, 1, 1]
}

// -----

// CHECK-LABEL: func.func @padded_with_ones
//   CHECK-NOT: arith.maxsi
//       CHECK: linalg.conv_2d_nhwc_hwcf
func.func @padded_with_ones(%x: tensor<1x7x7x16xf32>, %w: tensor<3x3x16x32xf32>) -> tensor<1x7x7x32xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %in = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %one : f32
  } : tensor<1x7x7x16xf32> to tensor<1x9x9x16xf32>
  %e = tensor.empty() : tensor<1x7x7x32xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {tcl.task = "t", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : tensor<1x9x9x16xf32>, tensor<3x3x16x32xf32>) outs(%o : tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32>
  return %0 : tensor<1x7x7x32xf32>
}
tcl.sched.schedule task "t" anchor "linalg.conv_2d_nhwc_hwcf" target "x86-avx512" loops [1 parallel, 7 parallel, 7 parallel, 32 parallel, 3 reduction, 3 reduction, 16 reduction] {
  tcl.sched.tile [0, 1, 0, 0, 1, 1, 1]
}

// -----

// A max pooling whose border is -inf: a tap that reads only border changes
// no maximum, and is skipped like a convolution's zero products.
// CHECK-LABEL: func.func @max_pool_minus_infinity
//   CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
//   CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
//       CHECK: scf.for %[[R:.*]] = %[[C0]] to
//       CHECK:   %[[FIRST:.*]] = arith.maxsi %{{.*}}, %[[C0]]
//       CHECK:   %[[END:.*]] = arith.minsi %{{.*}}, %[[C3]]
//       CHECK:   scf.for %{{.*}} = %[[FIRST]] to %[[END]]
//       CHECK:     linalg.pooling_nhwc_max
func.func @max_pool_minus_infinity(%x: tensor<1x8x8x16xf32>) -> tensor<1x4x4x16xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %in = tensor.pad %x low[0, 1, 1, 0] high[0, 0, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<1x8x8x16xf32> to tensor<1x9x9x16xf32>
  %e = tensor.empty() : tensor<1x4x4x16xf32>
  %o = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %k = tensor.empty() : tensor<3x3xf32>
  %0 = linalg.pooling_nhwc_max {tcl.task = "t", dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%in, %k : tensor<1x9x9x16xf32>, tensor<3x3xf32>) outs(%o : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  return %0 : tensor<1x4x4x16xf32>
}
tcl.sched.schedule task "t" anchor "linalg.pooling_nhwc_max" target "x86-avx512" loops [1 parallel, 4 parallel, 4 parallel, 16 parallel, 3 reduction, 3 reduction] {
  tcl.sched.tile [0, 1, 4, 0, 1, 1]
}

// -----

// A max pooling padded with zeros takes the border into its maximum (a
// negative window becomes 0): its taps all run.
// CHECK-LABEL: func.func @max_pool_zero_border
//   CHECK-NOT: arith.maxsi
//       CHECK: linalg.pooling_nhwc_max
func.func @max_pool_zero_border(%x: tensor<1x8x8x16xf32>) -> tensor<1x4x4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %in = tensor.pad %x low[0, 1, 1, 0] high[0, 0, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x16xf32> to tensor<1x9x9x16xf32>
  %e = tensor.empty() : tensor<1x4x4x16xf32>
  %o = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %k = tensor.empty() : tensor<3x3xf32>
  %0 = linalg.pooling_nhwc_max {tcl.task = "t", dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%in, %k : tensor<1x9x9x16xf32>, tensor<3x3xf32>) outs(%o : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  return %0 : tensor<1x4x4x16xf32>
}
tcl.sched.schedule task "t" anchor "linalg.pooling_nhwc_max" target "x86-avx512" loops [1 parallel, 4 parallel, 4 parallel, 16 parallel, 3 reduction, 3 reduction] {
  tcl.sched.tile [0, 1, 4, 0, 1, 1]
}
