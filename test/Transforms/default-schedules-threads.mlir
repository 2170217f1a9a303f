// How two threads split a matmul: tiles that divide the extent, the count
// that balances the threads best, and register tiles as wide as without
// the split.
// RUN: tcl-opt %s "--tcl-default-schedules=target=x86-avx512 num-threads=2" | FileCheck %s

// 169 rows (a 13x13 map) have no divisor up to 4 x 2 tiles: 13 tiles of 13
// (7 + 6, 93% balanced), not the columns.
// CHECK-LABEL: tcl.sched.schedule task "default_0" anchor "linalg.matmul" target "x86-avx512" loops [169 parallel, 1000 parallel, 512 reduction]
//  CHECK-NEXT:   tcl.sched.tile [13, 0, 0]
//  CHECK-NEXT:   tcl.sched.parallelize
// One row: the 1000 columns in five tiles of 200 (6 x 32 + 8), not in
// halves of 500, which leave 20 lanes over (15 x 32 + 20); its register
// tiles take 8 vectors a row (one row keeps few accumulators), the 72 left
// of each tile a peeled tile split into 64 + 8.
// CHECK-LABEL: tcl.sched.schedule task "default_1" anchor "linalg.matmul" target "x86-avx512" loops [1 parallel, 1000 parallel, 512 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 200, 0]
//  CHECK-NEXT:   tcl.sched.parallelize
//  CHECK:        tcl.sched.tile [0, 128, 1]
func.func @f(%a: tensor<169x512xf32>, %b: tensor<512x1000xf32>, %c: tensor<169x1000xf32>,
             %x: tensor<1x512xf32>, %y: tensor<1x1000xf32>)
    -> (tensor<169x1000xf32>, tensor<1x1000xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<169x512xf32>, tensor<512x1000xf32>) outs(%c : tensor<169x1000xf32>) -> tensor<169x1000xf32>
  %1 = linalg.matmul ins(%x, %b : tensor<1x512xf32>, tensor<512x1000xf32>) outs(%y : tensor<1x1000xf32>) -> tensor<1x1000xf32>
  return %0, %1 : tensor<169x1000xf32>, tensor<1x1000xf32>
}
