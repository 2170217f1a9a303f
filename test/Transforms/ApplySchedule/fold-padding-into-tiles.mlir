// After a convolution's last tile level, its tiles read the unpadded input
// where they lie inside it, and the tiles at its sides pad themselves: the
// padded copy of the whole input is never built.
// RUN: tcl-opt %s -split-input-file --tcl-apply-schedule | FileCheck %s

// 16 output rows, 16 column tiles of 8: rows 1 to 14 and columns 8 to 119
// read the input directly; the first and the last row pad each of their
// tiles (offsets known only at run time: a fill and a copy), the first and
// the last column tile of the other rows their one side with vectors.
// CHECK-LABEL: func.func @depthwise
//  CHECK-SAME:   (%[[X:.*]]: tensor<1x16x128x16xf32>
//   CHECK-NOT: tensor.pad
//   CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
//   CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
//   CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
//   CHECK-DAG: %[[C15:.*]] = arith.constant 15 : index
//   CHECK-DAG: %[[C119:.*]] = arith.constant 119 : index
//   CHECK-DAG: %[[C120:.*]] = arith.constant 120 : index
//   CHECK-DAG: %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : vector<1x1x10x16xf32>
// The first row.
//       CHECK: scf.for
//       CHECK:   scf.for
//       CHECK:     tensor.extract_slice %[[X]]{{.*}} to tensor<1x?x?x16xf32>
//       CHECK:     linalg.fill
//       CHECK:     tensor.insert_slice {{.*}} into tensor<1x1x10x16xf32>
//       CHECK:     linalg.depthwise_conv_2d_nhwc_hwc
// The rows inside: the left column tile, those inside, the right one.
//       CHECK: scf.for %[[R:.*]] = %[[C1]] to %[[C15]] step %[[C1]]
//       CHECK:   scf.for
//       CHECK:     %[[PADDED:.*]] = vector.transfer_write %[[ZEROS]]
//       CHECK:     %[[LEFT:.*]] = vector.transfer_read %[[X]][%[[C0]], %{{.*}}, %[[C0]], %[[C0]]]{{.*}} vector<1x1x9x16xf32>
//       CHECK:     %[[TILE:.*]] = vector.transfer_write %[[LEFT]], %[[PADDED]][%[[C0]], %[[C0]], %[[C1]], %[[C0]]]
//       CHECK:     linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%[[TILE]],
//       CHECK:   scf.for %[[COL:.*]] = %[[C8]] to %[[C120]] step %[[C8]]
//       CHECK:     scf.for
//       CHECK:       %[[FIRST:.*]] = affine.apply #{{.*}}(%[[COL]])
//       CHECK:       %[[INSIDE:.*]] = tensor.extract_slice %[[X]][0, %{{.*}}, %[[FIRST]], 0] [1, 1, 10, 16]
//       CHECK:       linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%[[INSIDE]],
//       CHECK:   scf.for
//       CHECK:     %[[PADDED2:.*]] = vector.transfer_write %[[ZEROS]]
//       CHECK:     %[[RIGHT:.*]] = vector.transfer_read %[[X]][%[[C0]], %{{.*}}, %[[C119]], %[[C0]]]{{.*}} vector<1x1x9x16xf32>
//       CHECK:     vector.transfer_write %[[RIGHT]], %[[PADDED2]][%[[C0]], %[[C0]], %[[C0]], %[[C0]]]
// The last row.
//       CHECK: scf.for
//       CHECK:   scf.for
//       CHECK:     linalg.fill
//       CHECK:     linalg.depthwise_conv_2d_nhwc_hwc
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

// A 14x14 map whose tile spans every column: all its tiles would pad
// themselves, so the input is padded once as before.
// CHECK-LABEL: func.func @narrow_map
//       CHECK: tensor.pad
//       CHECK: scf.for
//       CHECK:   tensor.extract_slice %padded
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
