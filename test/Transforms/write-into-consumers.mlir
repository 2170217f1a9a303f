// tcl-write-into-consumers computes a leftover pad's source into the middle
// of the padded tensor: the pad becomes fills of its border (before the
// source's empty tensor) and an insert_slice that bufferizes to nothing.
// RUN: tcl-opt %s --tcl-write-into-consumers | FileCheck %s
// RUN: tcl-opt %s --tcl-write-into-consumers --one-shot-bufferize --cse --canonicalize | FileCheck %s --check-prefix=BUFFERS

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>

// Only the border is filled, slab by slab (rows 0 and 9 whole, then
// columns 0 and 9 of the rows between): the ReLU writes the middle.
// CHECK-LABEL: func.func @relu_then_pad
//       CHECK:   %[[ZERO:.*]] = arith.constant 0.0
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<1x10x10x8xf32>
//       CHECK:   %[[S0:.*]] = tensor.extract_slice %[[E]][0, 0, 0, 0] [1, 1, 10, 8] [1, 1, 1, 1]
//       CHECK:   %[[F0:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[S0]] : tensor<1x1x10x8xf32>)
//       CHECK:   %[[B0:.*]] = tensor.insert_slice %[[F0]] into %[[E]][0, 0, 0, 0] [1, 1, 10, 8] [1, 1, 1, 1]
//       CHECK:   tensor.extract_slice %[[B0]][0, 9, 0, 0] [1, 1, 10, 8] [1, 1, 1, 1]
//       CHECK:   tensor.extract_slice %{{.*}}[0, 1, 0, 0] [1, 8, 1, 8] [1, 1, 1, 1]
//       CHECK:   %[[S3:.*]] = tensor.extract_slice %[[B2:.*]][0, 1, 9, 0] [1, 8, 1, 8] [1, 1, 1, 1]
//       CHECK:   %[[F3:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[S3]] : tensor<1x8x1x8xf32>)
//       CHECK:   %[[F:.*]] = tensor.insert_slice %[[F3]] into %[[B2]][0, 1, 9, 0] [1, 8, 1, 8] [1, 1, 1, 1]
//   CHECK-NOT:   linalg.fill
//       CHECK:   %[[MIDDLE:.*]] = tensor.extract_slice %[[F]][0, 1, 1, 0] [1, 8, 8, 8] [1, 1, 1, 1]
//       CHECK:   %[[R:.*]] = linalg.generic {{.*}} outs(%[[MIDDLE]] : tensor<1x8x8x8xf32>)
//       CHECK:   %[[P:.*]] = tensor.insert_slice %[[R]] into %[[F]][0, 1, 1, 0] [1, 8, 8, 8] [1, 1, 1, 1]
//   CHECK-NOT:   tensor.pad
//       CHECK:   return %[[P]]

// The ReLU writes into the padded buffer; nothing is copied, and only the
// border is filled.
// BUFFERS-LABEL: func.func @relu_then_pad
//       BUFFERS:   %[[A:.*]] = memref.alloc() {{.*}} : memref<1x10x10x8xf32>
//       BUFFERS:   linalg.fill {{.*}} outs(%{{.*}} : memref<1x1x10x8xf32
//       BUFFERS:   linalg.fill {{.*}} outs(%{{.*}} : memref<1x1x10x8xf32
//       BUFFERS:   linalg.fill {{.*}} outs(%{{.*}} : memref<1x8x1x8xf32
//       BUFFERS:   linalg.fill {{.*}} outs(%{{.*}} : memref<1x8x1x8xf32
//       BUFFERS:   %[[SV:.*]] = memref.subview %[[A]][0, 1, 1, 0] [1, 8, 8, 8] [1, 1, 1, 1]
//       BUFFERS:   linalg.generic {{.*}} outs(%[[SV]] :
//   BUFFERS-NOT:   copy
//       BUFFERS:   return
func.func @relu_then_pad(%x: tensor<1x8x8x8xf32>) -> tensor<1x10x10x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x8x8x8xf32>) outs(%e : tensor<1x8x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x8xf32>
  %p = tensor.pad %r low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x8xf32> to tensor<1x10x10x8xf32>
  return %p : tensor<1x10x10x8xf32>
}

// A source that something else reads too (a residual connection) is
// computed into the padded tensor all the same: the other reader reads its
// slice of it, which is inserted right after the source.
// CHECK-LABEL: func.func @residual
//       CHECK:   %[[MIDDLE:.*]] = tensor.extract_slice %[[F:.*]][0, 1, 1, 0] [1, 8, 8, 8] [1, 1, 1, 1]
//       CHECK:   %[[R:.*]] = linalg.generic {{.*}} outs(%[[MIDDLE]] : tensor<1x8x8x8xf32>)
//       CHECK:   %[[P:.*]] = tensor.insert_slice %[[R]] into %[[F]][0, 1, 1, 0] [1, 8, 8, 8] [1, 1, 1, 1]
//       CHECK:   %[[VIEW:.*]] = tensor.extract_slice %[[P]][0, 1, 1, 0] [1, 8, 8, 8] [1, 1, 1, 1]
//       CHECK:   %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[VIEW]], %{{.*}} : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>)
//   CHECK-NOT:   tensor.pad
//       CHECK:   return %[[P]], %[[SUM]]

// The add reads the middle of the padded buffer; nothing is copied.
// BUFFERS-LABEL: func.func @residual
//       BUFFERS:   %[[A:.*]] = memref.alloc() {{.*}} : memref<1x10x10x8xf32>
//       BUFFERS:   %[[SV:.*]] = memref.subview %[[A]][0, 1, 1, 0] [1, 8, 8, 8] [1, 1, 1, 1]
//       BUFFERS:   linalg.generic {{.*}} outs(%[[SV]] :
//       BUFFERS:   linalg.generic {{.*}} ins(%[[SV]], %{{.*}} :
//   BUFFERS-NOT:   copy
//       BUFFERS:   return
func.func @residual(%x: tensor<1x8x8x8xf32>, %y: tensor<1x8x8x8xf32>) -> (tensor<1x10x10x8xf32>, tensor<1x8x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x8x8x8xf32>) outs(%e : tensor<1x8x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x8xf32>
  %p = tensor.pad %r low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x8xf32> to tensor<1x10x10x8xf32>
  %e2 = tensor.empty() : tensor<1x8x8x8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r, %y : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) outs(%e2 : tensor<1x8x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x8x8x8xf32>
  return %p, %sum : tensor<1x10x10x8xf32>, tensor<1x8x8x8xf32>
}

// Winograd's output transform writes blocks of rows and columns (an empty
// tensor it shares with another transform), collapsed into the image; the
// residual reads the blocks. The transform writes into the padded tensor
// through an expand_shape of its middle, with an empty tensor of its own,
// and the residual reads the same view of it.
// CHECK-LABEL: func.func @blocked_residual
//       CHECK:   %[[SHARED:.*]] = tensor.empty() : tensor<1x2x4x2x4x8xf32>
//       CHECK:   %[[MIDDLE:.*]] = tensor.extract_slice %[[F:.*]][0, 1, 1, 0] [1, 8, 8, 8] [1, 1, 1, 1]
//       CHECK:   %[[BLOCKS:.*]] = tensor.expand_shape %[[MIDDLE]] {{\[}}[0], [1, 2], [3, 4], [5]]
//       CHECK:   %[[T:.*]] = linalg.generic {{.*}} outs(%[[BLOCKS]] : tensor<1x2x4x2x4x8xf32>)
//       CHECK:   %[[C:.*]] = tensor.collapse_shape %[[T]]
//       CHECK:   %[[P:.*]] = tensor.insert_slice %[[C]] into %[[F]][0, 1, 1, 0] [1, 8, 8, 8] [1, 1, 1, 1]
//       CHECK:   %[[VIEW:.*]] = tensor.extract_slice %[[P]][0, 1, 1, 0] [1, 8, 8, 8] [1, 1, 1, 1]
//       CHECK:   %[[VIEWBLOCKS:.*]] = tensor.expand_shape %[[VIEW]] {{\[}}[0], [1, 2], [3, 4], [5]]
//       CHECK:   linalg.generic {{.*}} outs(%[[SHARED]] : tensor<1x2x4x2x4x8xf32>)
//       CHECK:   linalg.generic {{.*}} ins(%[[VIEWBLOCKS]], %{{.*}} : tensor<1x2x4x2x4x8xf32>, tensor<1x2x4x2x4x8xf32>)
//   CHECK-NOT:   tensor.pad

// BUFFERS-LABEL: func.func @blocked_residual
//   BUFFERS-NOT:   copy
//       BUFFERS:   return
func.func @blocked_residual(%x: tensor<1x2x4x2x4x8xf32>) -> (tensor<1x10x10x8xf32>, tensor<1x2x4x2x4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x4x2x4x8xf32>
  %t = linalg.generic {indexing_maps = [#id6, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x2x4x2x4x8xf32>) outs(%e : tensor<1x2x4x2x4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x4x2x4x8xf32>
  %c = tensor.collapse_shape %t [[0], [1, 2], [3, 4], [5]] : tensor<1x2x4x2x4x8xf32> into tensor<1x8x8x8xf32>
  %p = tensor.pad %c low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x8xf32> to tensor<1x10x10x8xf32>
  %u = linalg.generic {indexing_maps = [#id6, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x2x4x2x4x8xf32>) outs(%e : tensor<1x2x4x2x4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.minimumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x4x2x4x8xf32>
  %sum = linalg.generic {indexing_maps = [#id6, #id6, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%t, %u : tensor<1x2x4x2x4x8xf32>, tensor<1x2x4x2x4x8xf32>) outs(%u : tensor<1x2x4x2x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x2x4x2x4x8xf32>
  return %p, %sum : tensor<1x10x10x8xf32>, tensor<1x2x4x2x4x8xf32>
}

// A padded concatenation (UNet's skip connection before a 3x3 convolution)
// is built in the padded tensor: the parts are inserted at their offsets
// plus the padding, not concatenated and then copied into the middle; a
// part with no other reader is computed in place.
// CHECK-LABEL: func.func @padded_concatenation
//  CHECK-SAME: (%[[SKIP:.*]]: tensor<1x8x8x4xf32>, %[[X:.*]]: tensor<1x8x8x4xf32>)
//       CHECK:   %[[F:.*]] = tensor.insert_slice {{.*}}[0, 1, 9, 0] [1, 8, 1, 8] [1, 1, 1, 1] : tensor<1x8x1x8xf32> into tensor<1x10x10x8xf32>
//       CHECK:   %[[MIDDLE:.*]] = tensor.extract_slice %[[F]][0, 1, 1, 0] [1, 8, 8, 4] [1, 1, 1, 1]
//       CHECK:   %[[R:.*]] = linalg.generic {{.*}} outs(%[[MIDDLE]] : tensor<1x8x8x4xf32>)
//       CHECK:   %[[I0:.*]] = tensor.insert_slice %[[R]] into %[[F]][0, 1, 1, 0] [1, 8, 8, 4] [1, 1, 1, 1]
//       CHECK:   %[[I1:.*]] = tensor.insert_slice %[[SKIP]] into %[[I0]][0, 1, 1, 4] [1, 8, 8, 4] [1, 1, 1, 1]
//   CHECK-NOT:   tensor.pad
//       CHECK:   return %[[I1]]
func.func @padded_concatenation(%skip: tensor<1x8x8x4xf32>, %x: tensor<1x8x8x4xf32>) -> tensor<1x10x10x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x8x8x4xf32>) outs(%e : tensor<1x8x8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x4xf32>
  %c = tensor.empty() : tensor<1x8x8x8xf32>
  %c0 = tensor.insert_slice %r into %c[0, 0, 0, 0] [1, 8, 8, 4] [1, 1, 1, 1] : tensor<1x8x8x4xf32> into tensor<1x8x8x8xf32>
  %c1 = tensor.insert_slice %skip into %c0[0, 0, 0, 4] [1, 8, 8, 4] [1, 1, 1, 1] : tensor<1x8x8x4xf32> into tensor<1x8x8x8xf32>
  %p = tensor.pad %c1 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x8xf32> to tensor<1x10x10x8xf32>
  return %p : tensor<1x10x10x8xf32>
}

// Unpadded, a concatenation's part that a matmul computed over collapsed
// pixels (a 1x1 convolution) is computed into its channels of the
// concatenation, which collapse to a matrix (strided rows).
// CHECK-LABEL: func.func @concatenated_matmul
//       CHECK:   %[[C:.*]] = tensor.empty() : tensor<1x8x8x24xf32>
//       CHECK:   %[[SLICE:.*]] = tensor.extract_slice %[[C]][0, 0, 0, 0] [1, 8, 8, 16] [1, 1, 1, 1]
//       CHECK:   %[[ROWS:.*]] = tensor.collapse_shape %[[SLICE]] {{\[}}[0, 1, 2], [3]] : tensor<1x8x8x16xf32> into tensor<64x16xf32>
//       CHECK:   linalg.matmul {{.*}} outs(%[[ROWS]] : tensor<64x16xf32>)

// The matmul writes rows of 24 floats' stride into the concatenation; only
// the skip connection (an argument) is copied.
// BUFFERS-LABEL: func.func @concatenated_matmul
//       BUFFERS:   linalg.matmul {{.*}} outs(%{{.*}} : memref<64x16xf32, strided<[24, 1]>>)
//       BUFFERS:   memref.copy
//   BUFFERS-NOT:   copy
//       BUFFERS:   return
func.func @concatenated_matmul(%a: tensor<64x8xf32>, %b: tensor<8x16xf32>, %skip: tensor<1x8x8x8xf32>) -> tensor<1x8x8x24xf32> {
  %e = tensor.empty() : tensor<64x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x8xf32>, tensor<8x16xf32>) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  %x = tensor.expand_shape %m [[0, 1, 2], [3]] output_shape [1, 8, 8, 16] : tensor<64x16xf32> into tensor<1x8x8x16xf32>
  %c = tensor.empty() : tensor<1x8x8x24xf32>
  %c0 = tensor.insert_slice %x into %c[0, 0, 0, 0] [1, 8, 8, 16] [1, 1, 1, 1] : tensor<1x8x8x16xf32> into tensor<1x8x8x24xf32>
  %c1 = tensor.insert_slice %skip into %c0[0, 0, 0, 16] [1, 8, 8, 8] [1, 1, 1, 1] : tensor<1x8x8x8xf32> into tensor<1x8x8x24xf32>
  return %c1 : tensor<1x8x8x24xf32>
}

// The skip connection of a padded concatenation is read by the down path
// too: it is computed into its channels of the padded tensor all the same,
// inserted right after it, and the down path reads that slice; the up
// path, computed later, goes into the padded tensor after it.
// CHECK-LABEL: func.func @padded_concatenation_shared_skip
//       CHECK:   %[[F:.*]] = tensor.insert_slice {{.*}}[0, 1, 9, 0] [1, 8, 1, 8] [1, 1, 1, 1] : tensor<1x8x1x8xf32> into tensor<1x10x10x8xf32>
//       CHECK:   %[[SKIPMIDDLE:.*]] = tensor.extract_slice %[[F]][0, 1, 1, 4] [1, 8, 8, 4] [1, 1, 1, 1]
//       CHECK:   %[[SKIP:.*]] = linalg.generic {{.*}} outs(%[[SKIPMIDDLE]] : tensor<1x8x8x4xf32>)
//       CHECK:   %[[WITHSKIP:.*]] = tensor.insert_slice %[[SKIP]] into %[[F]][0, 1, 1, 4] [1, 8, 8, 4] [1, 1, 1, 1]
//       CHECK:   %[[SKIPVIEW:.*]] = tensor.extract_slice %[[WITHSKIP]][0, 1, 1, 4] [1, 8, 8, 4] [1, 1, 1, 1]
//       CHECK:   %[[DOWN:.*]] = linalg.generic {{.*}} ins(%[[SKIPVIEW]] : tensor<1x8x8x4xf32>)
//       CHECK:   %[[UPMIDDLE:.*]] = tensor.extract_slice %[[WITHSKIP]][0, 1, 1, 0] [1, 8, 8, 4] [1, 1, 1, 1]
//       CHECK:   %[[UP:.*]] = linalg.generic {{.*}} ins(%[[DOWN]] : tensor<1x8x8x4xf32>) outs(%[[UPMIDDLE]] : tensor<1x8x8x4xf32>)
//       CHECK:   %[[P:.*]] = tensor.insert_slice %[[UP]] into %[[WITHSKIP]][0, 1, 1, 0] [1, 8, 8, 4] [1, 1, 1, 1]
//   CHECK-NOT:   tensor.pad
//       CHECK:   return %[[P]]

// Nothing is copied.
// BUFFERS-LABEL: func.func @padded_concatenation_shared_skip
//   BUFFERS-NOT:   copy
//       BUFFERS:   return
func.func @padded_concatenation_shared_skip(%x: tensor<1x8x8x4xf32>) -> tensor<1x10x10x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x4xf32>
  %skip = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x8x8x4xf32>) outs(%e : tensor<1x8x8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x4xf32>
  %e2 = tensor.empty() : tensor<1x8x8x4xf32>
  %down = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%skip : tensor<1x8x8x4xf32>) outs(%e2 : tensor<1x8x8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x4xf32>
  %e3 = tensor.empty() : tensor<1x8x8x4xf32>
  %up = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%down : tensor<1x8x8x4xf32>) outs(%e3 : tensor<1x8x8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.addf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x4xf32>
  %c = tensor.empty() : tensor<1x8x8x8xf32>
  %c0 = tensor.insert_slice %up into %c[0, 0, 0, 0] [1, 8, 8, 4] [1, 1, 1, 1] : tensor<1x8x8x4xf32> into tensor<1x8x8x8xf32>
  %c1 = tensor.insert_slice %skip into %c0[0, 0, 0, 4] [1, 8, 8, 4] [1, 1, 1, 1] : tensor<1x8x8x4xf32> into tensor<1x8x8x8xf32>
  %p = tensor.pad %c1 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x8xf32> to tensor<1x10x10x8xf32>
  return %p : tensor<1x10x10x8xf32>
}
