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

// A grouped convolution (4 groups of 8 channels, 3x3/2, padded at the top
// and left only) of an argument, whose padded copy would cost a third of
// the op: 8 output columns in tiles of 4 are split into column 0, which
// pads itself (its kernel-column loop skips the tap left of the input),
// and columns 1 to 7 (a tile of 4 and one of 3), which read the input
// directly: 7 and 5 input columns at stride 2.
// CHECK-LABEL: func.func @grouped
//  CHECK-SAME:   (%[[X:.*]]: tensor<1x16x16x4x8xf32>
//   CHECK-NOT: tensor.pad
//   CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
//   CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
//       CHECK: scf.for %{{.*}} = %[[C1]] to %[[C3]]
//       CHECK:   tensor.extract_slice %[[X]]{{.*}} [1, 1, 1, 1, 1]
//       CHECK: tensor.extract_slice %[[X]]{{.*}} [1, 1, 7, 1, 1]
//       CHECK: tensor.extract_slice %[[X]]{{.*}} [1, 1, 5, 1, 1]
#grouped_input = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh * 2 + kh, ow * 2 + kw, g, c)>
#grouped_filter = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (g, kh, kw, c, f)>
#grouped_output = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh, ow, g, f)>
func.func @grouped(%x: tensor<1x16x16x4x8xf32>, %w: tensor<4x3x3x8x8xf32>) -> tensor<1x8x8x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %in = tensor.pad %x low[0, 1, 1, 0, 0] high[0, 0, 0, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index, %m: index):
    tensor.yield %zero : f32
  } : tensor<1x16x16x4x8xf32> to tensor<1x17x17x4x8xf32>
  %e = tensor.empty() : tensor<1x8x8x4x8xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x4x8xf32>) -> tensor<1x8x8x4x8xf32>
  %0 = linalg.generic {indexing_maps = [#grouped_input, #grouped_filter, #grouped_output], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %w : tensor<1x17x17x4x8xf32>, tensor<4x3x3x8x8xf32>) outs(%o : tensor<1x8x8x4x8xf32>) attrs = {tcl.task = "g"} {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<1x8x8x4x8xf32>
  return %0 : tensor<1x8x8x4x8xf32>
}
tcl.sched.schedule task "g" anchor "linalg.generic.conv_2d_nhwgc_ghwcf" target "x86-avx512" loops [1 parallel, 8 parallel, 8 parallel, 4 parallel, 8 parallel, 3 reduction, 3 reduction, 8 reduction] {
  tcl.sched.tile [0, 1, 4, 1, 0, 1, 1, 1]
  tcl.sched.decompose
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}

// -----

// The same convolution of a value computed into an empty tensor: the
// padded tensor stays, for tcl-write-into-consumers to compute the value
// into its middle (no copy), and no tile pads itself.
// CHECK-LABEL: func.func @grouped_of_computed
//       CHECK: linalg.generic
//       CHECK: tensor.pad
//   CHECK-NOT: vector.transfer_write %{{.*}}, %{{.*}} : vector<{{.*}}>, tensor<1x1x
//       CHECK: return
#grouped_input = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh * 2 + kh, ow * 2 + kw, g, c)>
#grouped_filter = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (g, kh, kw, c, f)>
#grouped_output = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh, ow, g, f)>
#elementwise = affine_map<(a, b, c, d, e) -> (a, b, c, d, e)>
func.func @grouped_of_computed(%x: tensor<1x16x16x4x8xf32>, %w: tensor<4x3x3x8x8xf32>) -> tensor<1x8x8x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x16x16x4x8xf32>
  %relu = linalg.generic {indexing_maps = [#elementwise, #elementwise], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x16x16x4x8xf32>) outs(%empty : tensor<1x16x16x4x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x16x16x4x8xf32>
  %in = tensor.pad %relu low[0, 1, 1, 0, 0] high[0, 0, 0, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index, %m: index):
    tensor.yield %zero : f32
  } : tensor<1x16x16x4x8xf32> to tensor<1x17x17x4x8xf32>
  %e = tensor.empty() : tensor<1x8x8x4x8xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x4x8xf32>) -> tensor<1x8x8x4x8xf32>
  %0 = linalg.generic {indexing_maps = [#grouped_input, #grouped_filter, #grouped_output], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %w : tensor<1x17x17x4x8xf32>, tensor<4x3x3x8x8xf32>) outs(%o : tensor<1x8x8x4x8xf32>) attrs = {tcl.task = "g"} {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<1x8x8x4x8xf32>
  return %0 : tensor<1x8x8x4x8xf32>
}
tcl.sched.schedule task "g" anchor "linalg.generic.conv_2d_nhwgc_ghwcf" target "x86-avx512" loops [1 parallel, 8 parallel, 8 parallel, 4 parallel, 8 parallel, 3 reduction, 3 reduction, 8 reduction] {
  tcl.sched.tile [0, 1, 4, 1, 0, 1, 1, 1]
  tcl.sched.decompose
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
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
// no tile pads itself (the only fill is of each output tile, of 32
// channels, not of an input tile of 8).
// CHECK-LABEL: func.func @full_convolution
//       CHECK: tensor.pad
//   CHECK-NOT: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x1x{{[0-9]+}}x8xf32>)
//       CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x1x4x32xf32>)
//   CHECK-NOT: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x1x{{[0-9]+}}x8xf32>)
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
