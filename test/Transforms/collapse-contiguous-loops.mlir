// tcl-collapse-contiguous-loops merges the loops of leftover elementwise ops
// on buffers wherever every operand walks them contiguously, so that LLVM
// sees one long innermost loop instead of one of 3 or 64 iterations.
// RUN: tcl-opt %s --pass-pipeline="builtin.module(func.func(tcl-collapse-contiguous-loops))" | FileCheck %s

// A fill of a whole buffer: one loop.
// CHECK-LABEL: func.func @fill_whole
//       CHECK:   %[[FLAT:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1, 2, 3]] : memref<1x226x226x3xf32> into memref<153228xf32>
//       CHECK:   linalg.fill ins(%{{.*}} : f32) outs(%[[FLAT]] : memref<153228xf32>)
func.func @fill_whole(%buffer: memref<1x226x226x3xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%buffer : memref<1x226x226x3xf32>)
  return
}

// The interior of a padded buffer: a row of 224 pixels x 3 channels is
// contiguous in both, rows are not (226 vs 224 pixels apart).
// CHECK-LABEL: func.func @copy_into_padding
//       CHECK:   %[[SRC:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : memref<1x224x224x3xf32> into memref<1x224x672xf32>
//       CHECK:   %[[DST:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : memref<1x224x224x3xf32, strided<[153228, 678, 3, 1], offset: 681>> into memref<1x224x672xf32, strided<[153228, 678, 1], offset: 681>>
//       CHECK:   linalg.copy ins(%[[SRC]] : memref<1x224x672xf32>) outs(%[[DST]] : memref<1x224x672xf32, strided<[153228, 678, 1], offset: 681>>)
func.func @copy_into_padding(%src: memref<1x224x224x3xf32>, %padded: memref<1x226x226x3xf32>) {
  %interior = memref.subview %padded[0, 1, 1, 0] [1, 224, 224, 3] [1, 1, 1, 1] : memref<1x226x226x3xf32> to memref<1x224x224x3xf32, strided<[153228, 678, 3, 1], offset: 681>>
  linalg.copy ins(%src : memref<1x224x224x3xf32>) outs(%interior : memref<1x224x224x3xf32, strided<[153228, 678, 3, 1], offset: 681>>)
  return
}

// A bias broadcast along the rows reads only the last loop: the rows merge
// with each other, not with the channels.
// CHECK-LABEL: func.func @bias_add
//       CHECK:   memref.collapse_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] : memref<1x8x112x16xf32> into memref<896x16xf32>
//       CHECK:   linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "parallel"]
func.func @bias_add(%x: memref<1x8x112x16xf32>, %bias: memref<16xf32>, %y: memref<1x8x112x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %bias : memref<1x8x112x16xf32>, memref<16xf32>) outs(%y : memref<1x8x112x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// A fused epilogue on a tile: 16 of 64 channels, rows merged with columns;
// its bias slice has a strided layout, which upstream's collapsing refuses
// for an operand of lower rank than the loops. Left as it is (it stopped the
// compilation with an error before).
// CHECK-LABEL: func.func @bias_slice_left_alone
//   CHECK-NOT:   memref.collapse_shape
//       CHECK:   linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "parallel", "parallel", "parallel"]
func.func @bias_slice_left_alone(%x: memref<1x32x112x16xf32, strided<[802816, 7168, 64, 1], offset: ?>>, %bias: memref<16xf32, strided<[1], offset: ?>>, %y: memref<1x32x112x16xf32, strided<[802816, 7168, 64, 1], offset: ?>>) {
  linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %bias : memref<1x32x112x16xf32, strided<[802816, 7168, 64, 1], offset: ?>>, memref<16xf32, strided<[1], offset: ?>>) outs(%y : memref<1x32x112x16xf32, strided<[802816, 7168, 64, 1], offset: ?>>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// Left alone: a transpose (no two loops adjacent in both operands), dynamic
// strides, and reductions.
// CHECK-LABEL: func.func @left_alone
//   CHECK-NOT:   memref.collapse_shape
//       CHECK:   linalg.transpose
//       CHECK:   linalg.copy
//       CHECK:   linalg.generic
//   CHECK-NOT:   memref.collapse_shape
func.func @left_alone(%x: memref<1x3x224x224xf32>, %xt: memref<1x224x224x3xf32>,
                      %view: memref<8x16xf32, strided<[?, 1], offset: ?>>, %out: memref<8x16xf32>,
                      %sum: memref<8xf32>) {
  linalg.transpose ins(%x : memref<1x3x224x224xf32>) outs(%xt : memref<1x224x224x3xf32>) permutation = [0, 2, 3, 1]
  linalg.copy ins(%view : memref<8x16xf32, strided<[?, 1], offset: ?>>) outs(%out : memref<8x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%out : memref<8x16xf32>) outs(%sum : memref<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  }
  return
}
