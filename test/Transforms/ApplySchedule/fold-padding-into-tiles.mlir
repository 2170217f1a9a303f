// After a convolution's last tile level, its tiles read the unpadded input
// where they lie inside it, and the tiles at its sides pad themselves: the
// padded copy of the whole input is never built. Before that level, an op
// whose column tiles are several columns wide (or span the map) is split
// into its first column, the columns whose windows lie inside the input,
// and its last column: only the two side columns pad themselves.
// RUN: tcl-opt %s -split-input-file --tcl-apply-schedule | FileCheck %s

// 16 output rows, 128 columns in tiles of 8: column 0, columns 1 to 126
// (15 tiles of 8 and one of 6, peeled), column 127. The rows need no split:
// the kernel-row loop runs only the taps whose row lies inside the input
// (tcl.skip_zero_border_taps). The middle columns read the input directly;
// the side columns pad their tiles with vectors.
// CHECK-LABEL: func.func @depthwise
//  CHECK-SAME:   (%[[X:.*]]: tensor<1x16x128x16xf32>
//   CHECK-NOT: tensor.pad
//   CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
//   CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
//   CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
//   CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
//   CHECK-DAG: %[[C120:.*]] = arith.constant 120 : index
//   CHECK-DAG: %[[C126:.*]] = arith.constant 126 : index
//   CHECK-DAG: %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : vector<1x1x3x16xf32>
// Column 0: a zero, then input columns 0 and 1.
//   CHECK-NOT: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x1x
//       CHECK: scf.for %{{.*}} = %[[C0]] to %[[C16]] step %[[C1]]
//       CHECK:   scf.for
//       CHECK:     %[[PADDED:.*]] = vector.transfer_write %[[ZEROS]]
//       CHECK:     %[[LEFT:.*]] = vector.transfer_read %[[X]][%[[C0]], %{{.*}}, %[[C0]], %[[C0]]]{{.*}} vector<1x1x2x16xf32>
//       CHECK:     %[[TILE:.*]] = vector.transfer_write %[[LEFT]], %[[PADDED]][%[[C0]], %[[C0]], %[[C1]], %[[C0]]]
//       CHECK:     linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%[[TILE]],
// Columns 1 to 126: the input's columns c - 1 to c + 8.
//       CHECK: scf.for %{{.*}} = %[[C0]] to %[[C16]] step %[[C1]]
//       CHECK:   scf.for %[[COL:.*]] = %[[C0]] to %[[C120]] step %[[C8]]
//       CHECK:     scf.for
//       CHECK:       %[[INSIDE:.*]] = tensor.extract_slice %[[X]][0, %{{.*}}, %[[COL]], 0] [1, 1, 10, 16]
//       CHECK:       linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%[[INSIDE]],
//       CHECK:   scf.for
//       CHECK:     %[[LAST:.*]] = tensor.extract_slice %[[X]][0, %{{.*}}, 120, 0] [1, 1, 8, 16]
//       CHECK:     linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%[[LAST]],
// Column 127: input columns 126 and 127, then a zero.
//       CHECK: scf.for %{{.*}} = %[[C0]] to %[[C16]] step %[[C1]]
//       CHECK:   scf.for
//       CHECK:     %[[PADDED2:.*]] = vector.transfer_write %[[ZEROS]]
//       CHECK:     %[[RIGHT:.*]] = vector.transfer_read %[[X]][%[[C0]], %{{.*}}, %[[C126]], %[[C0]]]{{.*}} vector<1x1x2x16xf32>
//       CHECK:     vector.transfer_write %[[RIGHT]], %[[PADDED2]][%[[C0]], %[[C0]], %[[C0]], %[[C0]]]
//   CHECK-NOT: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x1x
//       CHECK: return
func.func @depthwise(%x: tensor<1x16x128x16xf32>, %w: tensor<3x3x16xf32>) -> tensor<1x16x128x16xf32> {
  %zero = arith.constant 0.0 : f32
  %in = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x16x128x16xf32> to tensor<1x18x130x16xf32>
  %e = tensor.empty() : tensor<1x16x128x16xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x128x16xf32>) -> tensor<1x16x128x16xf32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {tcl.task = "t", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : tensor<1x18x130x16xf32>, tensor<3x3x16xf32>) outs(%o : tensor<1x16x128x16xf32>) -> tensor<1x16x128x16xf32>
  return %0 : tensor<1x16x128x16xf32>
}
tcl.sched.schedule task "t" anchor "linalg.depthwise_conv_2d_nhwc_hwc" target "x86-avx512" loops [1 parallel, 16 parallel, 128 parallel, 16 parallel, 3 reduction, 3 reduction] {
  tcl.sched.tile [0, 1, 8, 16, 1, 0]
}

// -----

// A 14x14 map whose tile spans every column: it is split into column 0,
// columns 1 to 12 (one tile of 12, reading input columns 0 to 13) and
// column 13.
// CHECK-LABEL: func.func @narrow_map
//  CHECK-SAME:   (%[[X:.*]]: tensor<1x14x14x16xf32>
//   CHECK-NOT: tensor.pad
//   CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
//   CHECK-DAG: %[[C12:.*]] = arith.constant 12 : index
//       CHECK: vector.transfer_read %[[X]][%[[C0]], %{{.*}}, %[[C0]], %[[C0]]]{{.*}} vector<1x1x2x16xf32>
//       CHECK: %[[MIDDLE:.*]] = tensor.extract_slice %[[X]][0, %{{.*}}, 0, 0] [1, 1, 14, 16]
//       CHECK: linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%[[MIDDLE]], {{.*}} outs(%{{.*}} : tensor<1x1x12x16xf32>)
//       CHECK: vector.transfer_read %[[X]][%[[C0]], %{{.*}}, %[[C12]], %[[C0]]]{{.*}} vector<1x1x2x16xf32>
func.func @narrow_map(%x: tensor<1x14x14x16xf32>, %w: tensor<3x3x16xf32>) -> tensor<1x14x14x16xf32> {
  %zero = arith.constant 0.0 : f32
  %in = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x14x14x16xf32> to tensor<1x16x16x16xf32>
  %e = tensor.empty() : tensor<1x14x14x16xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x14x14x16xf32>) -> tensor<1x14x14x16xf32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {tcl.task = "n", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : tensor<1x16x16x16xf32>, tensor<3x3x16xf32>) outs(%o : tensor<1x14x14x16xf32>) -> tensor<1x14x14x16xf32>
  return %0 : tensor<1x14x14x16xf32>
}
tcl.sched.schedule task "n" anchor "linalg.depthwise_conv_2d_nhwc_hwc" target "x86-avx512" loops [1 parallel, 14 parallel, 14 parallel, 16 parallel, 3 reduction, 3 reduction] {
  tcl.sched.tile [0, 1, 14, 16, 1, 0]
}

// -----

// A 6x6 map whose kernel rows are unrolled (so no tap is skipped): even
// split at its side columns, a third of its rows would pad themselves
// (less than 75% of the work inside), so the input is padded once as
// before.
// CHECK-LABEL: func.func @small_map
//       CHECK: tensor.pad
//       CHECK: scf.for
//       CHECK:   tensor.extract_slice %padded
func.func @small_map(%x: tensor<1x6x6x16xf32>, %w: tensor<3x3x16xf32>) -> tensor<1x6x6x16xf32> {
  %zero = arith.constant 0.0 : f32
  %in = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x6x6x16xf32> to tensor<1x8x8x16xf32>
  %e = tensor.empty() : tensor<1x6x6x16xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {tcl.task = "s", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : tensor<1x8x8x16xf32>, tensor<3x3x16xf32>) outs(%o : tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  return %0 : tensor<1x6x6x16xf32>
}
tcl.sched.schedule task "s" anchor "linalg.depthwise_conv_2d_nhwc_hwc" target "x86-avx512" loops [1 parallel, 6 parallel, 6 parallel, 16 parallel, 3 reduction, 3 reduction] {
  tcl.sched.tile [0, 1, 0, 16, 1, 0]
  tcl.sched.decompose
  tcl.sched.vectorize
  tcl.sched.unroll level 0 dim 4 by 3
}

// -----

// A convolution of 32 channels to 32 does 288 multiply-adds for each input
// element: its padded copy is cheap beside them, so it is made once, and
// no tile pads itself.
// CHECK-LABEL: func.func @full_convolution
//       CHECK: tensor.pad
//   CHECK-NOT: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x1x
//       CHECK: return
func.func @full_convolution(%x: tensor<1x16x64x32xf32>, %w: tensor<3x3x32x32xf32>) -> tensor<1x16x64x32xf32> {
  %zero = arith.constant 0.0 : f32
  %in = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x16x64x32xf32> to tensor<1x18x66x32xf32>
  %e = tensor.empty() : tensor<1x16x64x32xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x64x32xf32>) -> tensor<1x16x64x32xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {tcl.task = "c", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : tensor<1x18x66x32xf32>, tensor<3x3x32x32xf32>) outs(%o : tensor<1x16x64x32xf32>) -> tensor<1x16x64x32xf32>
  return %0 : tensor<1x16x64x32xf32>
}
tcl.sched.schedule task "c" anchor "linalg.conv_2d_nhwc_hwcf" target "x86-avx512" loops [1 parallel, 16 parallel, 64 parallel, 32 parallel, 3 reduction, 3 reduction, 32 reduction] {
  tcl.sched.tile [0, 1, 4, 32, 1, 1, 8]
}
