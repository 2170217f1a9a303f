// tcl-unshare-fills gives every user of a shared fill of an empty tensor a
// fill (and an empty tensor) of its own, just before it; bufferization
// would otherwise fill one buffer and copy it for every user.
// RUN: tcl-opt %s --tcl-unshare-fills | FileCheck %s
// RUN: tcl-opt %s --tcl-lower-to-llvm=target=x86-avx512 -mlir-print-ir-after=one-shot-bufferize -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUFFERS

// CHECK-LABEL: func.func @two_users(
//       CHECK:   %[[E0:.*]] = tensor.empty() : tensor<32x32xf32>
//       CHECK:   %[[F0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E0]] :
//       CHECK:   linalg.matmul {{.*}}outs(%[[F0]] :
//       CHECK:   %[[E1:.*]] = tensor.empty() : tensor<32x32xf32>
//       CHECK:   %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] :
//       CHECK:   linalg.matmul {{.*}}outs(%[[F1]] :

// Each matmul's loop starts from a buffer of its own, none copied; each
// fill went on into the matmul's register tiles (zero accumulators), so no
// buffer is filled whole.
// BUFFERS-LABEL: IR Dump After OneShotBufferize
//       BUFFERS: func.func @two_users
//   BUFFERS-NOT: linalg.fill
//       BUFFERS: %[[A0:.*]] = memref.alloc()
//  BUFFERS-NEXT: %[[A1:.*]] = memref.alloc()
//  BUFFERS-NEXT: scf.for {{.*}}iter_args(%{{.*}} = %[[A1]])
//   BUFFERS-NOT: linalg.fill
//       BUFFERS: scf.for {{.*}}iter_args(%{{.*}} = %[[A0]])
//   BUFFERS-NOT: linalg.fill
//       BUFFERS: func.func @collapsed
func.func @two_users(%a: tensor<32x32xf32>, %b: tensor<32x32xf32>) -> (tensor<32x32xf32>, tensor<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<32x32xf32>, tensor<32x32xf32>) outs(%f : tensor<32x32xf32>) -> tensor<32x32xf32>
  %1 = linalg.matmul ins(%b, %a : tensor<32x32xf32>, tensor<32x32xf32>) outs(%f : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %0, %1 : tensor<32x32xf32>, tensor<32x32xf32>
}

// The outputs of 1x1 convolutions computed as matmuls are fills of a
// collapsed empty tensor: the second user gets a fill of an empty tensor of
// its own too.
// CHECK-LABEL: func.func @collapsed(
//       CHECK:   %[[E0:.*]] = tensor.empty() : tensor<1x4x8x32xf32>
//       CHECK:   %[[C0:.*]] = tensor.collapse_shape %[[E0]]
//       CHECK:   %[[F0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[C0]] :
//       CHECK:   linalg.matmul {{.*}}outs(%[[F0]] :
//       CHECK:   %[[E1:.*]] = tensor.empty() : tensor<32x32xf32>
//       CHECK:   %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] :
//       CHECK:   linalg.matmul {{.*}}outs(%[[F1]] :
func.func @collapsed(%a: tensor<32x32xf32>, %b: tensor<32x32xf32>) -> (tensor<32x32xf32>, tensor<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x8x32xf32>
  %c = tensor.collapse_shape %e [[0, 1, 2], [3]] : tensor<1x4x8x32xf32> into tensor<32x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<32x32xf32>, tensor<32x32xf32>) outs(%f : tensor<32x32xf32>) -> tensor<32x32xf32>
  %1 = linalg.matmul ins(%b, %a : tensor<32x32xf32>, tensor<32x32xf32>) outs(%f : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %0, %1 : tensor<32x32xf32>, tensor<32x32xf32>
}

// A fill of data (a function argument) is not unshared: its users read it.
// CHECK-LABEL: func.func @filled_argument(
//       CHECK:   linalg.fill
//   CHECK-NOT:   linalg.fill
func.func @filled_argument(%a: tensor<32x32xf32>, %b: tensor<32x32xf32>, %out: tensor<32x32xf32>) -> (tensor<32x32xf32>, tensor<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %f = linalg.fill ins(%zero : f32) outs(%out : tensor<32x32xf32>) -> tensor<32x32xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<32x32xf32>, tensor<32x32xf32>) outs(%f : tensor<32x32xf32>) -> tensor<32x32xf32>
  %1 = linalg.matmul ins(%b, %a : tensor<32x32xf32>, tensor<32x32xf32>) outs(%f : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %0, %1 : tensor<32x32xf32>, tensor<32x32xf32>
}
