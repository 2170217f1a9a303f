// tcl-map-to-gpu turns block and thread loops into gpu.launch operations and
// gives ops no schedule mapped (glue) kernels of their own; code that would
// write memory on the host or once per thread is an error naming it.
// RUN: tcl-opt %s -split-input-file --tcl-map-to-gpu -verify-diagnostics | FileCheck %s

// A block loop of 4 x 2 blocks whose thread loop has 8 x 16 threads: the
// grid and block sizes of the launch (x is the innermost loop).
// CHECK-LABEL: func.func @scale
//   CHECK-DAG:   %[[C2:.*]] = arith.constant 2 : index
//   CHECK-DAG:   %[[C4:.*]] = arith.constant 4 : index
//   CHECK-DAG:   %[[C8:.*]] = arith.constant 8 : index
//   CHECK-DAG:   %[[C16:.*]] = arith.constant 16 : index
//       CHECK:   gpu.launch blocks({{.*}}) in ({{.*}} = %[[C2]], {{.*}} = %[[C4]], {{.*}}) threads({{.*}}) in ({{.*}} = %[[C16]], {{.*}} = %[[C8]], {{.*}})
//       CHECK:     gpu.block_id  x
//       CHECK:     gpu.thread_id  x
//       CHECK:     linalg.generic
// Multiplies and adds in kernels may contract into FMAs (nvcc's default).
//       CHECK:       arith.mulf {{.*}} fastmath<contract>
//       CHECK:     gpu.barrier
//   CHECK-NOT:   scf.forall
#id = affine_map<(i, j) -> (i, j)>
func.func @scale(%in: memref<64x64xf32>, %out: memref<64x64xf32>) {
  scf.forall (%bi, %bj) in (4, 2) {
    %i0 = affine.apply affine_map<(d) -> (d * 16)>(%bi)
    %j0 = affine.apply affine_map<(d) -> (d * 32)>(%bj)
    scf.forall (%ti, %tj) in (8, 16) {
      %i = affine.apply affine_map<(d)[s] -> (d * 2 + s)>(%ti)[%i0]
      %j = affine.apply affine_map<(d)[s] -> (d * 2 + s)>(%tj)[%j0]
      %a = memref.subview %in[%i, %j] [2, 2] [1, 1] : memref<64x64xf32> to memref<2x2xf32, strided<[64, 1], offset: ?>>
      %b = memref.subview %out[%i, %j] [2, 2] [1, 1] : memref<64x64xf32> to memref<2x2xf32, strided<[64, 1], offset: ?>>
      linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
          ins(%a : memref<2x2xf32, strided<[64, 1], offset: ?>>) outs(%b : memref<2x2xf32, strided<[64, 1], offset: ?>>) {
      ^bb0(%x: f32, %y: f32):
        %s = arith.mulf %x, %x : f32
        linalg.yield %s : f32
      }
    } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
  } {mapping = [#gpu.block<y>, #gpu.block<x>]}
  return
}

// -----

// Glue: a transpose no schedule maps runs on blocks of up to 256 threads
// over its innermost loop, the next loops on the grid's y and z.
// CHECK-LABEL: func.func @glue
//       CHECK:   gpu.launch
//       CHECK:     memref.load
//       CHECK:     memref.store
//   CHECK-NOT:   linalg.transpose
func.func @glue(%in: memref<64x300xf32>, %out: memref<300x64xf32>) {
  linalg.transpose ins(%in : memref<64x300xf32>) outs(%out : memref<300x64xf32>) permutation = [1, 0]
  return
}

// -----

#id = affine_map<(i, j) -> (i, j)>
func.func @block_level_write(%in: memref<64x64xf32>, %out: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%bi) in (4) {
    %i0 = affine.apply affine_map<(d) -> (d * 16)>(%bi)
    %b = memref.subview %out[%i0, 0] [16, 64] [1, 1] : memref<64x64xf32> to memref<16x64xf32, strided<[64, 1], offset: ?>>
    // expected-error @below {{'linalg.fill' is in a GPU block loop but outside its thread loops: every thread of the block would run it}}
    linalg.fill ins(%zero : f32) outs(%b : memref<16x64xf32, strided<[64, 1], offset: ?>>)
    scf.forall (%ti) in (16) {
      %i = affine.apply affine_map<(d)[s] -> (d + s)>(%ti)[%i0]
      %a = memref.subview %in[%i, 0] [1, 64] [1, 1] : memref<64x64xf32> to memref<1x64xf32, strided<[64, 1], offset: ?>>
      %o = memref.subview %out[%i, 0] [1, 64] [1, 1] : memref<64x64xf32> to memref<1x64xf32, strided<[64, 1], offset: ?>>
      linalg.copy ins(%a : memref<1x64xf32, strided<[64, 1], offset: ?>>) outs(%o : memref<1x64xf32, strided<[64, 1], offset: ?>>)
    } {mapping = [#gpu.thread<x>]}
  } {mapping = [#gpu.block<x>]}
  return
}

// -----

func.func @shared_buffer(%in: memref<64x64xf32>, %out: memref<64x64xf32>) {
  scf.forall (%bi) in (4) {
    // expected-error @below {{'memref.alloc' allocates a buffer in a GPU kernel that its threads share outside shared memory (only a GPU schedule's pad puts buffers there)}}
    %tmp = memref.alloc() : memref<16x64xf32>
    scf.forall (%ti) in (16) {
      %t = memref.subview %tmp[%ti, 0] [1, 64] [1, 1] : memref<16x64xf32> to memref<1x64xf32, strided<[64, 1], offset: ?>>
      %a = memref.subview %in[%ti, 0] [1, 64] [1, 1] : memref<64x64xf32> to memref<1x64xf32, strided<[64, 1], offset: ?>>
      linalg.copy ins(%a : memref<1x64xf32, strided<[64, 1], offset: ?>>) outs(%t : memref<1x64xf32, strided<[64, 1], offset: ?>>)
    } {mapping = [#gpu.thread<x>]}
  } {mapping = [#gpu.block<x>]}
  return
}

// -----

func.func @host_store(%out: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  // expected-error @below {{'memref.store' would run on the host: it is in no GPU kernel}}
  memref.store %zero, %out[%c0] : memref<4xf32>
  return
}

// -----

// A buffer in GPU shared memory (tcl-promote-gpu-operands) becomes a
// workgroup attribution of the kernel.
// CHECK-LABEL: func.func @shared
//       CHECK:   gpu.launch {{.*}} workgroup(%[[SHARED:.*]] : memref<32xf32, #gpu.address_space<workgroup>>)
//   CHECK-NOT:     memref.alloc
//       CHECK:     memref.store {{.*}}, %[[SHARED]]
//       CHECK:     gpu.barrier
//       CHECK:     memref.load %[[SHARED]]
func.func @shared(%in: memref<64xf32>, %out: memref<64xf32>) {
  scf.forall (%b) in (2) {
    %shared = memref.alloc() : memref<32xf32, #gpu.address_space<workgroup>>
    %base = affine.apply affine_map<(d) -> (d * 32)>(%b)
    scf.forall (%t) in (32) {
      %i = affine.apply affine_map<(d)[s] -> (d + s)>(%t)[%base]
      %v = memref.load %in[%i] : memref<64xf32>
      memref.store %v, %shared[%t] : memref<32xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %r = affine.apply affine_map<(d) -> (31 - d)>(%t)
      %w = memref.load %shared[%r] : memref<32xf32, #gpu.address_space<workgroup>>
      memref.store %w, %out[%i] : memref<64xf32>
    } {mapping = [#gpu.thread<x>]}
  } {mapping = [#gpu.block<x>]}
  return
}
