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
