// How two threads split a matmul: tiles that divide the extent, the count
// that balances the threads best, and register tiles as wide as without
// the split.
// RUN: tcl-opt %s "--tcl-default-schedules=target=x86-avx512 num-threads=2" | FileCheck %s

// 169 rows (a 13x13 map) have no divisor up to 4 x 2 tiles (13 tiles of 13
// would balance 7 + 6), and B (2 MB, not packed) does not stay in L2 while
// A does: B in column panels (default-schedules-panels.mlir), the columns
// in halves of 500 (each thread reads half of B), panels of 128 in them.
// CHECK-LABEL: tcl.sched.schedule task "default_0" anchor "linalg.matmul" target "x86-avx512" loops [169 parallel, 1000 parallel, 512 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 500, 0]
//  CHECK-NEXT:   tcl.sched.parallelize
//  CHECK-NEXT:   tcl.sched.tile [0, 128, 0]
//  CHECK-NEXT:   tcl.sched.tile [13, 32, 1]
// One row: the same halves of B; its register tiles take 8 vectors a row
// (one row keeps few accumulators), a whole panel.
// CHECK-LABEL: tcl.sched.schedule task "default_1" anchor "linalg.matmul" target "x86-avx512" loops [1 parallel, 1000 parallel, 512 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 500, 0]
//  CHECK-NEXT:   tcl.sched.parallelize
//  CHECK-NEXT:   tcl.sched.tile [0, 128, 0]
//  CHECK-NEXT:   tcl.sched.tile [0, 0, 1]
// 128 rows and 768 columns balance alike in halves; B (2.4 MB) in panels:
// the columns, on the tie.
// CHECK-LABEL: tcl.sched.schedule task "default_2" anchor "linalg.matmul" target "x86-avx512" loops [128 parallel, 768 parallel, 768 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 384, 0]
//  CHECK-NEXT:   tcl.sched.parallelize
//  CHECK-NEXT:   tcl.sched.tile [0, 128, 0]
//  CHECK-NEXT:   tcl.sched.tile [8, 32, 1]
// With a B of 9.4 MB each thread would pack all of it: the columns.
// CHECK-LABEL: tcl.sched.schedule task "default_3" anchor "linalg.matmul" target "x86-avx512" loops [128 parallel, 768 parallel, 3072 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 384, 0]
//  CHECK-NEXT:   tcl.sched.parallelize
// Column halves of 512 hold whole cache tiles (2 x 256): the columns, the
// larger extent.
// CHECK-LABEL: tcl.sched.schedule task "default_4" anchor "linalg.matmul" target "x86-avx512" loops [128 parallel, 1024 parallel, 512 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 512, 0]
//  CHECK-NEXT:   tcl.sched.parallelize
func.func @f(%a: tensor<169x512xf32>, %b: tensor<512x1000xf32>, %c: tensor<169x1000xf32>,
             %x: tensor<1x512xf32>, %y: tensor<1x1000xf32>,
             %p: tensor<128x768xf32>, %q: tensor<768x768xf32>, %r: tensor<128x768xf32>,
             %s: tensor<128x3072xf32>, %t: tensor<3072x768xf32>,
             %u: tensor<128x512xf32>, %v: tensor<512x1024xf32>, %z: tensor<128x1024xf32>)
    -> (tensor<169x1000xf32>, tensor<1x1000xf32>, tensor<128x768xf32>,
        tensor<128x768xf32>, tensor<128x1024xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<169x512xf32>, tensor<512x1000xf32>) outs(%c : tensor<169x1000xf32>) -> tensor<169x1000xf32>
  %1 = linalg.matmul ins(%x, %b : tensor<1x512xf32>, tensor<512x1000xf32>) outs(%y : tensor<1x1000xf32>) -> tensor<1x1000xf32>
  %2 = linalg.matmul ins(%p, %q : tensor<128x768xf32>, tensor<768x768xf32>) outs(%r : tensor<128x768xf32>) -> tensor<128x768xf32>
  %3 = linalg.matmul ins(%s, %t : tensor<128x3072xf32>, tensor<3072x768xf32>) outs(%r : tensor<128x768xf32>) -> tensor<128x768xf32>
  %4 = linalg.matmul ins(%u, %v : tensor<128x512xf32>, tensor<512x1024xf32>) outs(%z : tensor<128x1024xf32>) -> tensor<128x1024xf32>
  return %0, %1, %2, %3, %4 : tensor<169x1000xf32>, tensor<1x1000xf32>, tensor<128x768xf32>, tensor<128x768xf32>, tensor<128x1024xf32>
}

// 49 rows (a 1x1 convolution at 7x7) in 7 tiles of 7 (4 + 3 a thread: the
// 440 columns' halves of 220 leave remainders that do not vectorize well).
// A thread's register tile covers all 7 rows of its tile: 7 x 2 vectors
// keep 14 accumulators, fewer than the latency needs, so 7 x 3 vectors
// (21; 49x440x440 ran 11% faster), its cache tiles 240 columns (5 x 48).
// CHECK-LABEL: tcl.sched.schedule task "default_5" anchor "linalg.matmul" target "x86-avx512" loops [49 parallel, 440 parallel, 440 reduction]
//  CHECK-NEXT:   tcl.sched.tile [7, 0, 0]
//  CHECK-NEXT:   tcl.sched.parallelize
//  CHECK-NEXT:   tcl.sched.tile [0, 240, 0]
//  CHECK-NEXT:   tcl.sched.tile [0, 48, 1]
func.func @rows7(%a: tensor<49x440xf32>, %b: tensor<440x440xf32>, %c: tensor<49x440xf32>) -> tensor<49x440xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<49x440xf32>, tensor<440x440xf32>) outs(%c : tensor<49x440xf32>) -> tensor<49x440xf32>
  return %0 : tensor<49x440xf32>
}
