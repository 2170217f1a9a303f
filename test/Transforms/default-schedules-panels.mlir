// A matmul whose B does not stay in the L2 cache (over 1 MB) and is not
// packed, while A does (at most 1 MB), loops over panels of B's columns
// (128, all of k) outside its rows: each panel stays in L2 while every row
// uses it, the accumulators stay in registers through the whole reduction.
// Row tiles each read all of B from L3 before (SqueezeNet's classifier,
// 169x1000x512: 1.9x faster with two threads). Two threads split the
// columns where that balances as well as the rows: each reads half of B.
// RUN: tcl-opt %s "--tcl-default-schedules=target=x86-avx512" | FileCheck %s
// RUN: tcl-opt %s "--tcl-default-schedules=target=x86-avx512 num-threads=2" | FileCheck %s --check-prefix=TWO
// REQUIRES: tcl-run
// RUN: tcl-run %s --entry=biased --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tcl-run %s --entry=biased --num-threads=2 --repeats=1 | FileCheck %s --check-prefix=EXEC
// EXEC-NOT: WRONG
// EXEC: check: max relative error {{.*}}: ok

// CHECK-LABEL: tcl.sched.schedule task "default_0" {{.*}} loops [169 parallel, 1000 parallel, 512 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 128, 0]
//  CHECK-NEXT:   tcl.sched.tile [13, 32, 1]
//  CHECK-NEXT:   tcl.sched.vectorize
//  CHECK-NEXT:   tcl.sched.hoist_accumulators
//  CHECK-NEXT:   tcl.sched.unroll level 1 dim 2 by 4
// TWO-LABEL: tcl.sched.schedule task "default_0" {{.*}} loops [169 parallel, 1000 parallel, 512 reduction]
//  TWO-NEXT:   tcl.sched.tile [0, 500, 0]
//  TWO-NEXT:   tcl.sched.parallelize
//  TWO-NEXT:   tcl.sched.tile [0, 128, 0]
//  TWO-NEXT:   tcl.sched.tile [13, 32, 1]

// B of 1 MB stays in L2, no panels; its rows 2 KB apart, it is packed
// (default-schedules-packing.mlir). With two threads, each thread's A (512 KB) and half of B (512 KB) stay
// in L2 together: its cache tiles take all of k (the accumulators stay in
// registers through the whole reduction; 256x256x256 ran 10% faster).
// CHECK-LABEL: tcl.sched.schedule task "default_1" {{.*}} loops [256 parallel, 512 parallel, 512 reduction]
//  CHECK-NEXT:   tcl.sched.tile [64, 256, 128]
//  CHECK-NEXT:   tcl.sched.interchange [1, 2, 0]
// TWO-LABEL: tcl.sched.schedule task "default_1" {{.*}} loops [256 parallel, 512 parallel, 512 reduction]
//  TWO-NEXT:   tcl.sched.tile [0, 256, 0]
//  TWO-NEXT:   tcl.sched.parallelize
//  TWO-NEXT:   tcl.sched.tile [64, 0, 0]

// A of 1.5 MB (128 x 3072) does not stay in L2 either: as before.
// CHECK-LABEL: tcl.sched.schedule task "default_2" {{.*}} loops [128 parallel, 768 parallel, 3072 reduction]
//  CHECK-NEXT:   tcl.sched.tile [64, 256, 128]

// B's rows 4 KB apart (1024 columns) fold a panel onto a few cache sets
// (32x4096x1024 ran 2.2x slower in panels): as before.
// CHECK-LABEL: tcl.sched.schedule task "default_3" {{.*}} loops [100 parallel, 1024 parallel, 512 reduction]
//  CHECK-NEXT:   tcl.sched.tile [50, 256, 128]

// With an epilogue, the level that fuses it takes all the rows and 200 of
// the 1000 columns (it must divide them), then the panels.
// CHECK-LABEL: tcl.sched.schedule task "biased" {{.*}} loops [169 parallel, 1000 parallel, 512 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 200, 0]
//  CHECK-NEXT:   tcl.sched.fuse_epilogue
//  CHECK-NEXT:   tcl.sched.tile [0, 128, 0]
//  CHECK-NEXT:   tcl.sched.tile [13, 32, 1]

func.func @f(%a: tensor<169x512xf32>, %b: tensor<512x1000xf32>,
             %c: tensor<256x512xf32>, %d: tensor<512x512xf32>,
             %e: tensor<128x3072xf32>, %g: tensor<3072x768xf32>,
             %h: tensor<100x512xf32>, %i: tensor<512x1024xf32>)
    -> (tensor<169x1000xf32>, tensor<256x512xf32>, tensor<128x768xf32>,
        tensor<100x1024xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<169x1000xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<169x1000xf32>) -> tensor<169x1000xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<169x512xf32>, tensor<512x1000xf32>) outs(%f0 : tensor<169x1000xf32>) -> tensor<169x1000xf32>
  %e1 = tensor.empty() : tensor<256x512xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<256x512xf32>) -> tensor<256x512xf32>
  %1 = linalg.matmul ins(%c, %d : tensor<256x512xf32>, tensor<512x512xf32>) outs(%f1 : tensor<256x512xf32>) -> tensor<256x512xf32>
  %e2 = tensor.empty() : tensor<128x768xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<128x768xf32>) -> tensor<128x768xf32>
  %2 = linalg.matmul ins(%e, %g : tensor<128x3072xf32>, tensor<3072x768xf32>) outs(%f2 : tensor<128x768xf32>) -> tensor<128x768xf32>
  %e3 = tensor.empty() : tensor<100x1024xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<100x1024xf32>) -> tensor<100x1024xf32>
  %3 = linalg.matmul ins(%h, %i : tensor<100x512xf32>, tensor<512x1024xf32>) outs(%f3 : tensor<100x1024xf32>) -> tensor<100x1024xf32>
  return %0, %1, %2, %3 : tensor<169x1000xf32>, tensor<256x512xf32>, tensor<128x768xf32>, tensor<100x1024xf32>
}

// The matmul and its epilogue are one task (tcl.task / tcl.epilogue tags).
func.func @biased(%a: tensor<169x512xf32>, %b: tensor<512x1000xf32>, %bias: tensor<1000xf32>) -> tensor<169x1000xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<169x1000xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<169x1000xf32>) -> tensor<169x1000xf32>
  %0 = linalg.matmul {tcl.task = "biased"} ins(%a, %b : tensor<169x512xf32>, tensor<512x1000xf32>) outs(%f : tensor<169x1000xf32>) -> tensor<169x1000xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"], tcl.epilogue = "biased"}
      ins(%0, %bias : tensor<169x1000xf32>, tensor<1000xf32>) outs(%e : tensor<169x1000xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<169x1000xf32>
  return %1 : tensor<169x1000xf32>
}
