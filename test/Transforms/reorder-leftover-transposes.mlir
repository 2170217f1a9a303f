// tcl-reorder-leftover-transposes gives a leftover NCHW -> NHWC transpose
// loops whose innermost one reads the input's row (in blocks of 8 output
// channels); a transpose whose output-order loops already read at a small
// stride, or whose innermost loop is short, is left alone.
// RUN: tcl-opt %s --split-input-file --tcl-reorder-leftover-transposes | FileCheck %s

// 64 channels of 32x32: blocks of 8 channels, each a generic whose loops
// are (n, h, c, w): w, the input's row, innermost.
//   CHECK-DAG: #[[READ:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
//   CHECK-DAG: #[[WRITE:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>
// CHECK-LABEL: func.func @nchw_to_nhwc(
//       CHECK:   scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %c8
//   CHECK-DAG:     %[[IN:.*]] = memref.subview %{{.*}}[0, %[[C]], 0, 0] [1, 8, 32, 32]
//   CHECK-DAG:     %[[OUT:.*]] = memref.subview %{{.*}}[0, 0, 0, %[[C]]] [1, 32, 32, 8]
//       CHECK:     linalg.generic {indexing_maps = [#[[READ]], #[[WRITE]]]
//  CHECK-SAME:       ins(%[[IN]] {{.*}} outs(%[[OUT]]
//   CHECK-NOT:   linalg.transpose
func.func @nchw_to_nhwc(%in: memref<1x64x32x32xf32>, %out: memref<1x32x32x64xf32>) {
  linalg.transpose ins(%in : memref<1x64x32x32xf32>) outs(%out : memref<1x32x32x64xf32>) permutation = [0, 2, 3, 1]
  return
}

// -----

// NHWC -> NCHW: the output-order loops read at the channel stride (32),
// smaller than the plane stride at which the other order would write.
// CHECK-LABEL: func.func @nhwc_to_nchw(
//       CHECK:   linalg.transpose
func.func @nhwc_to_nchw(%in: memref<1x32x32x32xf32>, %out: memref<1x32x32x32xf32>) {
  linalg.transpose ins(%in : memref<1x32x32x32xf32>) outs(%out : memref<1x32x32x32xf32>) permutation = [0, 3, 1, 2]
  return
}

// -----

// An image's 3 channels: a short innermost loop, left to LLVM to unroll.
// CHECK-LABEL: func.func @image(
//       CHECK:   linalg.transpose
func.func @image(%in: memref<1x3x224x224xf32>, %out: memref<1x224x224x3xf32>) {
  linalg.transpose ins(%in : memref<1x3x224x224xf32>) outs(%out : memref<1x224x224x3xf32>) permutation = [0, 2, 3, 1]
  return
}

// -----

// 9 channels: no block of 4-8 divides them (no partial blocks), so one
// generic over all of them, still with the input's row innermost.
// CHECK-LABEL: func.func @nine(
//   CHECK-NOT:   scf.for
//       CHECK:   linalg.generic
func.func @nine(%in: memref<1x9x32x32xf32>, %out: memref<1x32x32x9xf32>) {
  linalg.transpose ins(%in : memref<1x9x32x32xf32>) outs(%out : memref<1x32x32x9xf32>) permutation = [0, 2, 3, 1]
  return
}
