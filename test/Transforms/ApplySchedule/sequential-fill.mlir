// A sequential tile level takes the fill of the anchor's output in too
// (tcl.fuse_fill_into_tile_loops), as a parallel one does: the loops start
// from the fill's empty tensor, and each tile fills its own output slice
// right before it is computed, or, where the level also tiles reductions
// inside its parallel loops, right before the outermost reduction loop,
// which starts from the filled tensor. Each further level moves it on,
// down to the register tile. Not where a reduction loop encloses a
// parallel one (a tile's slice is then visited once a reduction step, and
// each visit would zero what the last one summed), nor where the fill has
// other users.
// RUN: tcl-opt %s --tcl-apply-schedule | FileCheck %s

// Row bands, then register tiles that step through the kernel rows: the
// fill ends before the kernel-row loop of each register tile.
// CHECK-LABEL: func.func @rows
//       CHECK:   %[[EMPTY:.*]] = tensor.empty() : tensor<1x16x16x32xf32>
//   CHECK-NOT:   linalg.fill
//       CHECK:   scf.for %{{.*}} = %c0 to %c16 step %c4 iter_args(%{{.*}} = %[[EMPTY]])
//   CHECK-NOT:     linalg.fill
//       CHECK:     scf.for %{{.*}} = %c0 to %c16 step %c8 iter_args(%[[OUT:.*]] = %{{.*}})
//       CHECK:       scf.for %{{.*}} = %c0 to %c32 step %c16 iter_args(%[[OUT2:.*]] = %[[OUT]])
//       CHECK:         %[[TILE:.*]] = tensor.extract_slice %[[OUT2]]
//       CHECK:         %[[FILLED:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[TILE]] : tensor<1x1x8x16xf32>)
//       CHECK:         %[[WHOLE:.*]] = tensor.insert_slice %[[FILLED]] into %[[OUT2]]
//       CHECK:         scf.for %{{.*}} = %c0 to %c3 step %c1 iter_args(%{{.*}} = %[[WHOLE]])
//       CHECK:           linalg.depthwise_conv_2d_nhwc_hwc
func.func @rows(%x: tensor<1x18x18x32xf32>, %w: tensor<3x3x32xf32>) -> tensor<1x16x16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x16x32xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {tcl.task = "dw", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x18x18x32xf32>, tensor<3x3x32xf32>) outs(%o : tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  return %0 : tensor<1x16x16x32xf32>
}
tcl.sched.schedule task "dw" anchor "linalg.depthwise_conv_2d_nhwc_hwc" target "x86-avx512"
    loops [1 parallel, 16 parallel, 16 parallel, 32 parallel, 3 reduction, 3 reduction] {
  tcl.sched.tile [0, 4, 0, 0, 0, 0]
  tcl.sched.tile [0, 1, 8, 16, 1, 0]
}

// Rows and columns: the fill is made in the innermost loop of the level.
// CHECK-LABEL: func.func @rows_and_columns
//   CHECK-NOT:   linalg.fill
//       CHECK:   scf.for
//       CHECK:     scf.for {{.*}} iter_args(%[[OUT:.*]] = %{{.*}})
//       CHECK:       %[[TILE:.*]] = tensor.extract_slice %[[OUT]]
//       CHECK:       linalg.fill ins(%{{.*}} : f32) outs(%[[TILE]] : tensor<1x4x8x32xf32>)
//       CHECK:       linalg.depthwise_conv_2d_nhwc_hwc
func.func @rows_and_columns(%x: tensor<1x18x18x32xf32>, %w: tensor<3x3x32xf32>) -> tensor<1x16x16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x16x32xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {tcl.task = "dw2", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x18x18x32xf32>, tensor<3x3x32xf32>) outs(%o : tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  return %0 : tensor<1x16x16x32xf32>
}
tcl.sched.schedule task "dw2" anchor "linalg.depthwise_conv_2d_nhwc_hwc" target "x86-avx512"
    loops [1 parallel, 16 parallel, 16 parallel, 32 parallel, 3 reduction, 3 reduction] {
  tcl.sched.tile [0, 4, 8, 0, 0, 0]
}

// The first level tiles the kernel rows (a reduction) inside its row
// bands: each band is filled before its kernel-row loop.
// CHECK-LABEL: func.func @reduction_level
//   CHECK-NOT:   linalg.fill
//       CHECK:   scf.for %{{.*}} = %c0 to %c16 step %c4 iter_args(%[[OUT:.*]] = %{{.*}})
//       CHECK:     %[[TILE:.*]] = tensor.extract_slice %[[OUT]]
//       CHECK:     %[[FILLED:.*]] = linalg.fill {{.*}} outs(%[[TILE]] : tensor<1x4x16x32xf32>)
//       CHECK:     %[[WHOLE:.*]] = tensor.insert_slice %[[FILLED]] into %[[OUT]]
//       CHECK:     scf.for %{{.*}} = %c0 to %c3 step %c1 iter_args(%{{.*}} = %[[WHOLE]])
//   CHECK-NOT:       linalg.fill
//       CHECK:   return
func.func @reduction_level(%x: tensor<1x18x18x32xf32>, %w: tensor<3x3x32xf32>) -> tensor<1x16x16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x16x32xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {tcl.task = "dw3", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x18x18x32xf32>, tensor<3x3x32xf32>) outs(%o : tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  return %0 : tensor<1x16x16x32xf32>
}
tcl.sched.schedule task "dw3" anchor "linalg.depthwise_conv_2d_nhwc_hwc" target "x86-avx512"
    loops [1 parallel, 16 parallel, 16 parallel, 32 parallel, 3 reduction, 3 reduction] {
  tcl.sched.tile [0, 4, 0, 0, 1, 0]
}

// The kernel-row loop encloses the row bands (interchanged): the fill
// stays whole, before the loops.
// CHECK-LABEL: func.func @reduction_outside
//       CHECK:   %[[FILL:.*]] = linalg.fill {{.*}} -> tensor<1x16x16x32xf32>
//       CHECK:   scf.for %{{.*}} = %c0 to %c3 step %c1 iter_args(%{{.*}} = %[[FILL]])
//   CHECK-NOT:     linalg.fill
//       CHECK:   return
func.func @reduction_outside(%x: tensor<1x18x18x32xf32>, %w: tensor<3x3x32xf32>) -> tensor<1x16x16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x16x32xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {tcl.task = "dw5", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x18x18x32xf32>, tensor<3x3x32xf32>) outs(%o : tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  return %0 : tensor<1x16x16x32xf32>
}
tcl.sched.schedule task "dw5" anchor "linalg.depthwise_conv_2d_nhwc_hwc" target "x86-avx512"
    loops [1 parallel, 16 parallel, 16 parallel, 32 parallel, 3 reduction, 3 reduction] {
  tcl.sched.tile [0, 4, 0, 0, 1, 0]
  tcl.sched.interchange [0, 4, 1, 2, 3, 5]
}

// The fill has another user: it stays.
// CHECK-LABEL: func.func @shared
//       CHECK:   %[[FILL:.*]] = linalg.fill {{.*}} -> tensor<1x16x16x32xf32>
//       CHECK:   scf.for {{.*}} iter_args(%{{.*}} = %[[FILL]])
//       CHECK:   return %{{.*}}, %[[FILL]]
func.func @shared(%x: tensor<1x18x18x32xf32>, %w: tensor<3x3x32xf32>) -> (tensor<1x16x16x32xf32>, tensor<1x16x16x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x16x32xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {tcl.task = "dw4", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x18x18x32xf32>, tensor<3x3x32xf32>) outs(%o : tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  return %0, %o : tensor<1x16x16x32xf32>, tensor<1x16x16x32xf32>
}
tcl.sched.schedule task "dw4" anchor "linalg.depthwise_conv_2d_nhwc_hwc" target "x86-avx512"
    loops [1 parallel, 16 parallel, 16 parallel, 32 parallel, 3 reduction, 3 reduction] {
  tcl.sched.tile [0, 4, 0, 0, 0, 0]
}
