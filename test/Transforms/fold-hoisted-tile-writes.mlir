// tcl-fold-hoisted-tile-writes: an insert of a write that covers its whole
// slice, where the slice is not one of the insert's own destination,
// becomes a write into that destination.
// RUN: tcl-opt %s --split-input-file --tcl-fold-hoisted-tile-writes | FileCheck %s
// A register tile of 48 lanes, scheduled, cleaned up and bufferized, with
// the pass and without it:
// RUN: tcl-opt %s --split-input-file --tcl-apply-schedule --canonicalize --tcl-fold-hoisted-tile-writes --one-shot-bufferize="bufferize-function-boundaries" --cse --canonicalize | FileCheck %s --check-prefix=BUFFERS
// RUN: tcl-opt %s --split-input-file --tcl-apply-schedule --canonicalize --one-shot-bufferize="bufferize-function-boundaries" --cse --canonicalize | FileCheck %s --check-prefix=UNFOLDED

// The second piece's insert goes into the tile the first piece left: folded
// (the slice drops a unit dimension, which the write's map skips). The
// first piece's slice is of the tile it is inserted into: a matched pair,
// which bufferizes in place, left alone.
// CHECK-LABEL: func.func @pieces
//  CHECK-SAME:   (%[[T:.*]]: tensor<1x4x48xf32>, %[[A:.*]]: vector<4x32xf32>, %[[B:.*]]: vector<1x4x16xf32>)
//       CHECK:   %[[S:.*]] = tensor.extract_slice %[[T]][0, 0, 32] [1, 4, 16]
//       CHECK:   %[[W:.*]] = vector.transfer_write %[[B]], %[[S]]
//       CHECK:   %[[I:.*]] = tensor.insert_slice %[[W]] into %[[T]][0, 0, 32] [1, 4, 16]
//       CHECK:   %[[R:.*]] = vector.transfer_write %[[A]], %[[I]][%{{.*}}, %{{.*}}, %{{.*}}] {in_bounds = [true, true]} : vector<4x32xf32>, tensor<1x4x48xf32>
//       CHECK:   return %[[R]]
func.func @pieces(%t: tensor<1x4x48xf32>, %a: vector<4x32xf32>, %b: vector<1x4x16xf32>) -> tensor<1x4x48xf32> {
  %c0 = arith.constant 0 : index
  %s0 = tensor.extract_slice %t[0, 0, 0] [1, 4, 32] [1, 1, 1] : tensor<1x4x48xf32> to tensor<4x32xf32>
  %s1 = tensor.extract_slice %t[0, 0, 32] [1, 4, 16] [1, 1, 1] : tensor<1x4x48xf32> to tensor<1x4x16xf32>
  %w1 = vector.transfer_write %b, %s1[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<1x4x16xf32>, tensor<1x4x16xf32>
  %w0 = vector.transfer_write %a, %s0[%c0, %c0] {in_bounds = [true, true]} : vector<4x32xf32>, tensor<4x32xf32>
  %i1 = tensor.insert_slice %w1 into %t[0, 0, 32] [1, 4, 16] [1, 1, 1] : tensor<1x4x16xf32> into tensor<1x4x48xf32>
  %i0 = tensor.insert_slice %w0 into %i1[0, 0, 0] [1, 4, 32] [1, 1, 1] : tensor<4x32xf32> into tensor<1x4x48xf32>
  return %i0 : tensor<1x4x48xf32>
}

// -----

// A write that covers only part of its slice leaves the rest of the slice
// as it was, which the insert copies too: not folded (LLVM 19's upstream
// fold drops that part).
// CHECK-LABEL: func.func @partial
//       CHECK:   %[[W:.*]] = vector.transfer_write
//       CHECK:   tensor.insert_slice %[[W]]
func.func @partial(%t: tensor<1x4x64xf32>, %u: tensor<1x4x64xf32>, %a: vector<1x4x32xf32>) -> tensor<1x4x64xf32> {
  %c0 = arith.constant 0 : index
  %s = tensor.extract_slice %t[0, 0, 0] [1, 4, 48] [1, 1, 1] : tensor<1x4x64xf32> to tensor<1x4x48xf32>
  %w = vector.transfer_write %a, %s[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<1x4x32xf32>, tensor<1x4x48xf32>
  %i = tensor.insert_slice %w into %u[0, 0, 16] [1, 4, 48] [1, 1, 1] : tensor<1x4x48xf32> into tensor<1x4x64xf32>
  return %i : tensor<1x4x64xf32>
}

// -----

// A matmul's 8x48 register tile: pieces of 32 and 16 lanes whose
// accumulators the reduction loop carries. Folded, the tile bufferizes in
// place; as hoisting left it, the tile is copied after the loop.
// BUFFERS-LABEL: func.func @scheduled
//   BUFFERS-NOT:   memref.alloc
//   BUFFERS-NOT:   memref.copy
//       BUFFERS:   return
// UNFOLDED-LABEL: func.func @scheduled
//       UNFOLDED:   memref.copy
func.func @scheduled(%a: tensor<8x64xf32>, %b: tensor<64x48xf32>, %c: tensor<8x48xf32>) -> tensor<8x48xf32> {
  %0 = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<8x64xf32>, tensor<64x48xf32>) outs(%c : tensor<8x48xf32>) -> tensor<8x48xf32>
  return %0 : tensor<8x48xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 48 parallel, 64 reduction] {
  tcl.sched.tile [0, 0, 1]
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}
