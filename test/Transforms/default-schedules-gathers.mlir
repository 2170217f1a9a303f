// A generic that reads its input at computed indices (tensor.extract, a
// Resize) is vectorized where each read is a row along the innermost loop
// or a broadcast: its tile is a row of that loop, and MLIR's vectorizer
// makes such reads contiguous loads. Where a read would be a gather (an
// index that changes along the innermost loop other than by its step, or
// an input's element, which the vectorizer counts as varying), it stays
// scalar loops: gathers measured no faster.
// RUN: tcl-opt %s "--tcl-default-schedules=target=x86-avx512" | FileCheck %s
// RUN: tcl-opt %s "--tcl-default-schedules=target=x86-avx512" --tcl-apply-schedule | FileCheck %s --check-prefix=CODE

#h = affine_map<(d0, d1, d2, d3) -> (d1)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// CHECK-LABEL: tcl.sched.schedule task "default_0" anchor "linalg.generic" target "x86-avx512" loops [1 parallel, 16 parallel, 16 parallel, 64 parallel]
//  CHECK-NEXT:   tcl.sched.tile [0, 1, 1, 0]
//  CHECK-NEXT:   tcl.sched.vectorize
//  CHECK-NEXT: }
// CHECK-LABEL: tcl.sched.schedule task "default_1" anchor "linalg.generic" target "x86-avx512" loops [1 parallel, 64 parallel, 16 parallel, 16 parallel]
//  CHECK-NEXT:   tcl.sched.tile [0, 1, 1, 0]
//  CHECK-NEXT: }
// CHECK-LABEL: tcl.sched.schedule task "default_2" anchor "linalg.generic"
//   CHECK-NOT:   tcl.sched.vectorize
//       CHECK: }

// The channels-last Resize reads rows of 64 channels; the index tables are
// read once a row, as scalars.
// CODE-LABEL: func.func @channels_last
//       CODE:   scf.for
//       CODE:   tensor.extract %{{.*}} : tensor<16xi64>
//       CODE:   tensor.extract %{{.*}} : tensor<16xi64>
//       CODE:   vector.transfer_read %{{.*}} : tensor<1x8x8x64xf32>, vector<1x1x1x64xf32>
//   CODE-NOT:   vector.gather
//       CODE:   vector.transfer_write
func.func @channels_last(%x: tensor<1x8x8x64xf32>) -> tensor<1x16x16x64xf32> {
  %rows = arith.constant dense<[0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7]> : tensor<16xi64>
  %e = tensor.empty() : tensor<1x16x16x64xf32>
  %r = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%e : tensor<1x16x16x64xf32>) {
  ^bb0(%out: f32):
    %n = linalg.index 0 : index
    %h = linalg.index 1 : index
    %w = linalg.index 2 : index
    %c = linalg.index 3 : index
    %ih = tensor.extract %rows[%h] : tensor<16xi64>
    %iw = tensor.extract %rows[%w] : tensor<16xi64>
    %hi = arith.index_cast %ih : i64 to index
    %wi = arith.index_cast %iw : i64 to index
    %v = tensor.extract %x[%n, %hi, %wi, %c] : tensor<1x8x8x64xf32>
    linalg.yield %v : f32
  } -> tensor<1x16x16x64xf32>
  return %r : tensor<1x16x16x64xf32>
}

// Channels first, the innermost loop walks the columns through a table: a
// gather.
func.func @channels_first(%x: tensor<1x64x8x8xf32>) -> tensor<1x64x16x16xf32> {
  %rows = arith.constant dense<[0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7]> : tensor<16xi64>
  %e = tensor.empty() : tensor<1x64x16x16xf32>
  %r = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%e : tensor<1x64x16x16xf32>) {
  ^bb0(%out: f32):
    %n = linalg.index 0 : index
    %c = linalg.index 1 : index
    %h = linalg.index 2 : index
    %w = linalg.index 3 : index
    %ih = tensor.extract %rows[%h] : tensor<16xi64>
    %iw = tensor.extract %rows[%w] : tensor<16xi64>
    %hi = arith.index_cast %ih : i64 to index
    %wi = arith.index_cast %iw : i64 to index
    %v = tensor.extract %x[%n, %c, %hi, %wi] : tensor<1x64x8x8xf32>
    linalg.yield %v : f32
  } -> tensor<1x64x16x16xf32>
  return %r : tensor<1x64x16x16xf32>
}

// The row index comes in as an input's element (a block argument), which
// the vectorizer takes as varying: it would gather.
func.func @index_from_input(%x: tensor<1x8x8x64xf32>, %rows: tensor<16xi64>) -> tensor<1x16x8x64xf32> {
  %e = tensor.empty() : tensor<1x16x8x64xf32>
  %r = linalg.generic {indexing_maps = [#h, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rows : tensor<16xi64>) outs(%e : tensor<1x16x8x64xf32>) {
  ^bb0(%ih: i64, %out: f32):
    %n = linalg.index 0 : index
    %w = linalg.index 2 : index
    %c = linalg.index 3 : index
    %hi = arith.index_cast %ih : i64 to index
    %v = tensor.extract %x[%n, %hi, %w, %c] : tensor<1x8x8x64xf32>
    linalg.yield %v : f32
  } -> tensor<1x16x8x64xf32>
  return %r : tensor<1x16x8x64xf32>
}
