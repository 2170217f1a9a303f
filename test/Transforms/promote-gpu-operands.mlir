// tcl-promote-gpu-operands: in the loop a GPU schedule's `pad` marked, at
// each step the block's threads copy the block's tiles of the inputs (A:
// 32 rows x the step's 8, transposed; B: the step's 8 x 32 columns) into
// shared memory, each thread every 64th element from its linear id (x
// fastest), then a barrier; the reads take the shared tiles; a barrier
// ends each step. Emulated, each thread copies the whole tile into a
// buffer of its own, without barriers. The output (read back as the
// accumulator only outside the steps) stays where it is.
// RUN: tcl-opt %s -split-input-file --tcl-promote-gpu-operands -verify-diagnostics | FileCheck %s
// RUN: tcl-opt %s -split-input-file --tcl-promote-gpu-operands=emulated=1 -verify-diagnostics | FileCheck %s --check-prefix=EMULATED

// CHECK-LABEL: func.func @mm
//       CHECK:   scf.forall
//   CHECK-DAG:     %[[A:.*]] = memref.alloc() : memref<8x36xf32, #gpu.address_space<workgroup>>
//   CHECK-DAG:     %[[B:.*]] = memref.alloc() : memref<8x36xf32, #gpu.address_space<workgroup>>
//       CHECK:     scf.forall (%[[TY:.*]], %[[TX:.*]]) in (8, 8)
//       CHECK:       scf.for %[[K0:.*]] =
//       CHECK:         %[[ROW:.*]] = arith.muli %[[TY]], %c8{{.*}}
//       CHECK:         %[[ID:.*]] = arith.addi %[[ROW]], %[[TX]]
//       CHECK:         scf.for %[[E:.*]] = %[[ID]] to %c256{{.*}} step %c64{{.*}} {
//       CHECK:           %[[K:.*]] = arith.remui %[[E]], %c8
//       CHECK:           %[[KK:.*]] = arith.addi %[[K]], %[[K0]]
//       CHECK:           %[[M:.*]] = arith.remui
//       CHECK:           %[[V:.*]] = memref.load %{{.*}}[%[[M]], %[[KK]]]
//       CHECK:           memref.store %[[V]], %[[A]][%[[K]], %[[M]]]
//       CHECK:         scf.for
//       CHECK:           memref.store {{.*}}, %[[B]]
//       CHECK:         gpu.barrier
//       CHECK:         scf.for
//       CHECK:           vector.transfer_read %[[A]]{{.*}}permutation_map = #{{.*}}} : memref<8x36xf32, #gpu.address_space<workgroup>>, vector<4x1xf32>
//       CHECK:           vector.transfer_read %[[B]]{{.*}} : memref<8x36xf32, #gpu.address_space<workgroup>>, vector<1x4xf32>
//       CHECK:           vector.contract
//       CHECK:         gpu.barrier
//   CHECK-NEXT:      } {tcl.task_nest = "mm"}
//   CHECK-NOT:   tcl.shared_inputs

// EMULATED-LABEL: func.func @mm
//       EMULATED:     scf.forall (%{{.*}}, %{{.*}}) in (8, 8)
//       EMULATED:       memref.alloc() : memref<8x36xf32>
//       EMULATED:       memref.alloc() : memref<8x36xf32>
//       EMULATED:       scf.for
//       EMULATED:         scf.for %{{.*}} = %c0{{.*}} to %c256{{.*}} step %c1
//   EMULATED-NOT:     gpu.barrier
#map = affine_map<(d0) -> (d0 * 32)>
#map1 = affine_map<(d0) -> (d0 * 4)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @mm(%arg0: memref<64x32xf32>, %arg1: memref<32x64xf32>, %arg2: memref<64x64xf32>) attributes {llvm.emit_c_interface} {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  scf.forall (%arg3, %arg4) in (2, 2) {
    %0 = affine.apply #map(%arg3)
    %1 = affine.apply #map(%arg4)
    %subview = memref.subview %arg0[%0, 0] [32, 32] [1, 1] : memref<64x32xf32> to memref<32x32xf32, strided<[32, 1], offset: ?>>
    %subview_0 = memref.subview %arg1[0, %1] [32, 32] [1, 1] : memref<32x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
    %subview_1 = memref.subview %arg2[%0, %1] [32, 32] [1, 1] : memref<64x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
    scf.forall (%arg5, %arg6) in (8, 8) {
      %2 = affine.apply #map1(%arg5)
      %3 = affine.apply #map1(%arg6)
      %subview_2 = memref.subview %subview[%2, 0] [4, 32] [1, 1] : memref<32x32xf32, strided<[32, 1], offset: ?>> to memref<4x32xf32, strided<[32, 1], offset: ?>>
      %subview_3 = memref.subview %subview_0[0, %3] [32, 4] [1, 1] : memref<32x32xf32, strided<[64, 1], offset: ?>> to memref<32x4xf32, strided<[64, 1], offset: ?>>
      %subview_4 = memref.subview %subview_1[%2, %3] [4, 4] [1, 1] : memref<32x32xf32, strided<[64, 1], offset: ?>> to memref<4x4xf32, strided<[64, 1], offset: ?>>
      linalg.fill ins(%cst : f32) outs(%subview_4 : memref<4x4xf32, strided<[64, 1], offset: ?>>)
      scf.for %arg7 = %c0 to %c32 step %c8 {
        %subview_5 = memref.subview %subview_2[0, %arg7] [4, 8] [1, 1] : memref<4x32xf32, strided<[32, 1], offset: ?>> to memref<4x8xf32, strided<[32, 1], offset: ?>>
        %subview_6 = memref.subview %subview_3[%arg7, 0] [8, 4] [1, 1] : memref<32x4xf32, strided<[64, 1], offset: ?>> to memref<8x4xf32, strided<[64, 1], offset: ?>>
        %4 = vector.transfer_read %subview_4[%c0, %c0], %cst {in_bounds = [true, true]} : memref<4x4xf32, strided<[64, 1], offset: ?>>, vector<4x4xf32>
        %5 = scf.for %arg8 = %c0 to %c8 step %c1 iter_args(%arg9 = %4) -> (vector<4x4xf32>) {
          %subview_7 = memref.subview %subview_5[0, %arg8] [4, 1] [1, 1] : memref<4x8xf32, strided<[32, 1], offset: ?>> to memref<4x1xf32, strided<[32, 1], offset: ?>>
          %subview_8 = memref.subview %subview_6[%arg8, 0] [1, 4] [1, 1] : memref<8x4xf32, strided<[64, 1], offset: ?>> to memref<1x4xf32, strided<[64, 1], offset: ?>>
          %6 = vector.transfer_read %subview_7[%c0, %c0], %cst {in_bounds = [true, true]} : memref<4x1xf32, strided<[32, 1], offset: ?>>, vector<4x1xf32>
          %7 = vector.transfer_read %subview_8[%c0, %c0], %cst {in_bounds = [true, true]} : memref<1x4xf32, strided<[64, 1], offset: ?>>, vector<1x4xf32>
          %8 = vector.contract {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %6, %7, %arg9 : vector<4x1xf32>, vector<1x4xf32> into vector<4x4xf32>
          scf.yield %8 : vector<4x4xf32>
        } {tcl.task_nest = "mm"}
        vector.transfer_write %5, %subview_4[%c0, %c0] {in_bounds = [true, true]} : vector<4x4xf32>, memref<4x4xf32, strided<[64, 1], offset: ?>>
      } {tcl.shared_inputs, tcl.task_nest = "mm"}
    } {mapping = [#gpu.thread<y>, #gpu.thread<x>], tcl.task_nest = "mm"}
  } {mapping = [#gpu.block<y>, #gpu.block<x>], tcl.task_nest = "mm"}
  return
}

// -----

// Marked steps outside every thread loop.
func.func @no_threads(%a: memref<8x8xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  // expected-error @below {{cannot put the inputs of task 't' in GPU shared memory: its steps are not inside a thread loop}}
  scf.for %k = %c0 to %c8 step %c1 {
    %v = memref.load %a[%k, %k] : memref<8x8xf32>
    memref.store %v, %out[%k] : memref<8xf32>
  } {tcl.shared_inputs, tcl.task_nest = "t"}
  return
}
