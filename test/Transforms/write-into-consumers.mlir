// tcl-write-into-consumers computes a leftover pad's source into the middle
// of the padded tensor: the pad becomes a fill (before the source's empty
// tensor) and an insert_slice that bufferizes to nothing.
// RUN: tcl-opt %s --tcl-write-into-consumers | FileCheck %s
// RUN: tcl-opt %s --tcl-write-into-consumers --one-shot-bufferize --cse --canonicalize | FileCheck %s --check-prefix=BUFFERS

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// CHECK-LABEL: func.func @relu_then_pad
//       CHECK:   %[[ZERO:.*]] = arith.constant 0.0
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<1x10x10x8xf32>
//       CHECK:   %[[F:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<1x10x10x8xf32>)
//       CHECK:   %[[MIDDLE:.*]] = tensor.extract_slice %[[F]][0, 1, 1, 0] [1, 8, 8, 8] [1, 1, 1, 1]
//       CHECK:   %[[R:.*]] = linalg.generic {{.*}} outs(%[[MIDDLE]] : tensor<1x8x8x8xf32>)
//       CHECK:   %[[P:.*]] = tensor.insert_slice %[[R]] into %[[F]][0, 1, 1, 0] [1, 8, 8, 8] [1, 1, 1, 1]
//   CHECK-NOT:   tensor.pad
//       CHECK:   return %[[P]]

// The ReLU writes into the padded buffer; nothing is copied.
// BUFFERS-LABEL: func.func @relu_then_pad
//       BUFFERS:   %[[A:.*]] = memref.alloc() {{.*}} : memref<1x10x10x8xf32>
//       BUFFERS:   linalg.fill {{.*}} outs(%[[A]] :
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

// A source that something else reads too (a residual connection) keeps its
// buffer and the pad its copy: writing into the padded buffer would need
// the other reader to follow.
// CHECK-LABEL: func.func @residual
//       CHECK:   linalg.generic {{.*}} outs(%{{.*}} : tensor<1x8x8x8xf32>)
//       CHECK:   tensor.pad
func.func @residual(%x: tensor<1x8x8x8xf32>) -> (tensor<1x10x10x8xf32>, tensor<1x8x8x8xf32>) {
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
  return %p, %r : tensor<1x10x10x8xf32>, tensor<1x8x8x8xf32>
}

// A padded concatenation (UNet's skip connection before a 3x3 convolution)
// is built in the padded tensor: the parts are inserted at their offsets
// plus the padding, not concatenated and then copied into the middle; a
// part with no other reader is computed in place.
// CHECK-LABEL: func.func @padded_concatenation
//  CHECK-SAME: (%[[SKIP:.*]]: tensor<1x8x8x4xf32>, %[[X:.*]]: tensor<1x8x8x4xf32>)
//       CHECK:   %[[F:.*]] = linalg.fill {{.*}} -> tensor<1x10x10x8xf32>
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
