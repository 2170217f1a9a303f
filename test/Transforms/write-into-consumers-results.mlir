// tcl-write-into-consumers computes a function's result that is a reshape
// of what an op computed into an empty tensor of the result's shape: the
// buffer returned is that tensor's, which becomes the caller's output
// buffer, instead of a view of another copied into it.
// RUN: tcl-opt %s --tcl-write-into-consumers | FileCheck %s
// RUN: tcl-opt %s --tcl-write-into-consumers --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize --buffer-results-to-out-params="hoist-static-allocs" --canonicalize | FileCheck %s --check-prefix=BUFFERS
// RUN: tcl-opt %s --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize --buffer-results-to-out-params="hoist-static-allocs" --canonicalize | FileCheck %s --check-prefix=BEFORE

// The logits of a language model: [S, V] computed, [1, S, V] returned; the
// empty tensor is shared with an earlier matmul.
// CHECK-LABEL: func.func @logits
// CHECK: %[[RESULT:.*]] = tensor.empty() : tensor<1x8x32xf32>
// CHECK: %[[FIRST:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x32xf32>) outs(%{{.*}} : tensor<8x32xf32>)
// CHECK: %[[VIEW:.*]] = tensor.collapse_shape %[[RESULT]] {{\[\[}}0, 1], [2]] : tensor<1x8x32xf32> into tensor<8x32xf32>
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[VIEW]] : tensor<8x32xf32>)
// CHECK: %[[LOGITS:.*]] = linalg.matmul {{.*}} outs(%[[ZERO]] : tensor<8x32xf32>)
// CHECK: tensor.expand_shape %[[LOGITS]]
// BUFFERS-LABEL: func.func @logits
// BUFFERS-SAME: %[[OUT:[a-z0-9]+]]: memref<1x8x32xf32>)
// BUFFERS-NOT: memref.copy
// BUFFERS: %[[VIEW:.*]] = memref.collapse_shape %[[OUT]]
// BUFFERS: linalg.matmul {{.*}} outs(%[[VIEW]] : memref<8x32xf32>)
// BUFFERS-NOT: memref.copy
// BUFFERS: return
// BEFORE-LABEL: func.func @logits
// BEFORE: memref.copy
func.func @logits(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %v: tensor<32x32xf32>) -> tensor<1x8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x32xf32>) outs(%z1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %logits = linalg.matmul ins(%h, %v : tensor<8x32xf32>, tensor<32x32xf32>) outs(%z2 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %r = tensor.expand_shape %logits [[0, 1], [2]] output_shape [1, 8, 32] : tensor<8x32xf32> into tensor<1x8x32xf32>
  return %r : tensor<1x8x32xf32>
}
