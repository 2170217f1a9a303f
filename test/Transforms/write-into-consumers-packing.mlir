// tcl-write-into-consumers turns a packing copy (a `nofold` pad in a loop
// nest) into a copy of the tile into a buffer of its own, filling only the
// border: bufferized as a pad, the whole buffer was filled with the padding
// value and then overwritten by the copy.
// RUN: tcl-opt %s --tcl-write-into-consumers | FileCheck %s
// RUN: tcl-opt %s --tcl-write-into-consumers --one-shot-bufferize --cse --canonicalize | FileCheck %s --check-prefix=BUFFERS

// A whole tile has no border: a copy into an empty tensor, nothing filled.
// CHECK-LABEL: func.func @whole_tiles
//       CHECK:   scf.for
//       CHECK:     %[[TILE:.*]] = tensor.extract_slice %{{.*}}[%{{.*}}, 0] [16, 64] [1, 1]
//       CHECK:     %[[E:.*]] = tensor.empty() : tensor<16x64xf32>
//   CHECK-NOT:     linalg.fill
//       CHECK:     %[[PACKED:.*]] = linalg.copy ins(%[[TILE]] : tensor<16x64xf32>) outs(%[[E]] : tensor<16x64xf32>)
//       CHECK:     linalg.matmul ins(%{{.*}}, %[[PACKED]] : tensor<32x16xf32>, tensor<16x64xf32>)
//   CHECK-NOT:   tensor.pad

// The packed tile is a buffer of its own (the copy stays), never filled.
// BUFFERS-LABEL: func.func @whole_tiles
//       BUFFERS:   scf.for
//       BUFFERS:     %[[A:.*]] = memref.alloc() {{.*}} : memref<16x64xf32>
//   BUFFERS-NOT:     linalg.fill
//   BUFFERS-NOT:     linalg.map
//       BUFFERS:     linalg.copy ins(%{{.*}} : memref<16x64xf32, strided<{{.*}}>>) outs(%[[A]] : memref<16x64xf32>)
//       BUFFERS:     linalg.matmul ins(%{{.*}}, %[[A]] : {{.*}}, memref<16x64xf32>)
func.func @whole_tiles(%a: tensor<32x64xf32>, %b: tensor<64x64xf32>, %c: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %r = scf.for %k = %c0 to %c64 step %c16 iter_args(%acc = %c) -> (tensor<32x64xf32>) {
    %at = tensor.extract_slice %a[0, %k] [32, 16] [1, 1] : tensor<32x64xf32> to tensor<32x16xf32>
    %bt = tensor.extract_slice %b[%k, 0] [16, 64] [1, 1] : tensor<64x64xf32> to tensor<16x64xf32>
    %packed = tensor.pad %bt nofold low[0, 0] high[0, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f32
    } : tensor<16x64xf32> to tensor<16x64xf32>
    %m = linalg.matmul ins(%at, %packed : tensor<32x16xf32>, tensor<16x64xf32>) outs(%acc : tensor<32x64xf32>) -> tensor<32x64xf32>
    scf.yield %m : tensor<32x64xf32>
  }
  return %r : tensor<32x64xf32>
}

// A partial tile padded to the full one: only its border (the last 4
// columns) is filled, then the tile is inserted into the rest.
// CHECK-LABEL: func.func @partial_tile
//   CHECK-DAG:   %[[ZERO:.*]] = arith.constant 0.0
//   CHECK-DAG:   %[[E:.*]] = tensor.empty() : tensor<16x64xf32>
//       CHECK:   %[[S:.*]] = tensor.extract_slice %[[E]][0, 60] [16, 4] [1, 1]
//       CHECK:   %[[F:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[S]] : tensor<16x4xf32>)
//       CHECK:   %[[B:.*]] = tensor.insert_slice %[[F]] into %[[E]][0, 60] [16, 4] [1, 1]
//       CHECK:   %[[P:.*]] = tensor.insert_slice %{{.*}} into %[[B]][0, 0] [16, 60] [1, 1]
//       CHECK:   return %[[P]]

// BUFFERS-LABEL: func.func @partial_tile
//       BUFFERS:   %[[A:.*]] = memref.alloc() {{.*}} : memref<16x64xf32>
//       BUFFERS:   linalg.fill {{.*}} outs(%{{.*}} : memref<16x4xf32
//       BUFFERS:   %[[MIDDLE:.*]] = memref.subview %[[A]][0, 0] [16, 60] [1, 1]
//       BUFFERS:   memref.copy %{{.*}}, %[[MIDDLE]]
func.func @partial_tile(%t: tensor<16x60xf32>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %packed = tensor.pad %t nofold low[0, 0] high[0, 4] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<16x60xf32> to tensor<16x64xf32>
  return %packed : tensor<16x64xf32>
}
