// tcl-emulate-gpu-loops: loops mapped onto GPU blocks and threads lose their
// mapping (the host runs each block and thread in turn, the thread loops of
// a block one after the other, as a GPU's barriers order them); what
// tcl-map-to-gpu refuses, it refuses with the same error.
// RUN: tcl-opt %s -split-input-file --tcl-emulate-gpu-loops -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @two_thread_loops
//       CHECK:   scf.forall (%{{.*}}, %{{.*}}) in (4, 2) {
//       CHECK:     scf.forall (%{{.*}}) in (64) {
//       CHECK:       linalg.generic
//       CHECK:     }{{$}}
//       CHECK:     scf.forall (%{{.*}}) in (32) {
//       CHECK:       memref.alloc() : memref<2xf32>
//       CHECK:     }{{$}}
//       CHECK:   }{{$}}
//   CHECK-NOT:   mapping
#id = affine_map<(i) -> (i)>
func.func @two_thread_loops(%in: memref<512xf32>, %out: memref<512xf32>) {
  scf.forall (%bi, %bj) in (4, 2) {
    %base = affine.apply affine_map<(d0, d1) -> (d0 * 128 + d1 * 64)>(%bi, %bj)
    scf.forall (%t) in (64) {
      %i = affine.apply affine_map<(d)[s] -> (d + s)>(%t)[%base]
      %a = memref.subview %in[%i] [1] [1] : memref<512xf32> to memref<1xf32, strided<[1], offset: ?>>
      %b = memref.subview %out[%i] [1] [1] : memref<512xf32> to memref<1xf32, strided<[1], offset: ?>>
      linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
          ins(%a : memref<1xf32, strided<[1], offset: ?>>) outs(%b : memref<1xf32, strided<[1], offset: ?>>) {
      ^bb0(%x: f32, %y: f32):
        %s = arith.mulf %x, %x : f32
        linalg.yield %s : f32
      }
    } {mapping = [#gpu.thread<x>]}
    // A thread's own buffer (on its stack on a GPU) is allowed.
    scf.forall (%t) in (32) {
      %i = affine.apply affine_map<(d)[s] -> (d * 2 + s)>(%t)[%base]
      %private = memref.alloc() : memref<2xf32>
      %b = memref.subview %out[%i] [2] [1] : memref<512xf32> to memref<2xf32, strided<[1], offset: ?>>
      linalg.copy ins(%b : memref<2xf32, strided<[1], offset: ?>>) outs(%private : memref<2xf32>)
      linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
          ins(%private : memref<2xf32>) outs(%b : memref<2xf32, strided<[1], offset: ?>>) {
      ^bb0(%x: f32, %y: f32):
        %s = arith.addf %x, %x : f32
        linalg.yield %s : f32
      }
      memref.dealloc %private : memref<2xf32>
    } {mapping = [#gpu.thread<x>]}
  } {mapping = [#gpu.block<y>, #gpu.block<x>]}
  return
}

// -----

// A write in a block loop outside its thread loops would run in every
// thread on a GPU.
func.func @write_outside_threads(%out: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%b) in (2) {
    // expected-error @below {{'linalg.fill' is in a GPU block loop but outside its thread loops: every thread of the block would run it}}
    linalg.fill ins(%zero : f32) outs(%out : memref<64xf32>)
    scf.forall (%t) in (32) {
      memref.store %zero, %out[%t] : memref<64xf32>
    } {mapping = [#gpu.thread<x>]}
  } {mapping = [#gpu.block<x>]}
  return
}

// -----

// A buffer a block's threads share needs shared memory.
func.func @shared_buffer(%out: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%b) in (2) {
    // expected-error @below {{'memref.alloc' allocates a buffer in a GPU kernel that its threads share outside shared memory (only a GPU schedule's pad puts buffers there)}}
    %shared = memref.alloc() : memref<32xf32>
    scf.forall (%t) in (32) {
      %v = memref.load %shared[%t] : memref<32xf32>
      memref.store %v, %out[%t] : memref<64xf32>
    } {mapping = [#gpu.thread<x>]}
    memref.dealloc %shared : memref<32xf32>
  } {mapping = [#gpu.block<x>]}
  return
}
