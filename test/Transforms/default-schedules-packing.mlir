// The default matmul schedule packs B per cache panel (loops n, k, m; the
// B panel padded and hoisted out of the row loop) where B exceeds 2 MiB and
// enough rows reuse each panel: 256, or 64 where B exceeds 4 MiB. Unpacked,
// a large B is read with rows kilobytes apart for every row tile (BERT's
// 128x3072x768 ran at 96 GFLOP/s unpacked, 160 packed on a Zen 5 core).
// RUN: tcl-opt %s "--tcl-default-schedules=target=x86-avx512" | FileCheck %s

// BERT's feed-forward: 128 rows, B 768x3072 (9.4 MB): packed.
// CHECK-LABEL: tcl.sched.schedule task "default_0" {{.*}} loops [128 parallel, 3072 parallel, 768 reduction]
//  CHECK-NEXT:   tcl.sched.tile [64, 256, 128]
//  CHECK-NEXT:   tcl.sched.interchange [1, 2, 0]
//  CHECK-NEXT:   tcl.sched.pad [1] hoist 1
//  CHECK-NEXT:   tcl.sched.tile [8, 32, 1]
// 128 rows, B 768x768 (2.4 MB): kept in place (packing ran 2-9% slower),
// in panels of 128 columns outside the rows (default-schedules-panels.mlir).
// CHECK-LABEL: tcl.sched.schedule task "default_1" {{.*}} loops [128 parallel, 768 parallel, 768 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 128, 0]
//  CHECK-NEXT:   tcl.sched.tile [8, 32, 1]
// 64 rows, B 1024x4096 (16 MB): packed.
// CHECK-LABEL: tcl.sched.schedule task "default_2" {{.*}} loops [64 parallel, 4096 parallel, 1024 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 256, 128]
//  CHECK-NEXT:   tcl.sched.interchange [1, 2, 0]
//  CHECK-NEXT:   tcl.sched.pad [1] hoist 1
// 32 rows: too few to pay for the copy; no panels either (B's rows are
// 16 KB apart).
// CHECK-LABEL: tcl.sched.schedule task "default_3" {{.*}} loops [32 parallel, 4096 parallel, 1024 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 256, 128]
//  CHECK-NEXT:   tcl.sched.tile [8, 32, 1]
// 256 rows, B 2.4 MB: packed.
// CHECK-LABEL: tcl.sched.schedule task "default_4" {{.*}} loops [256 parallel, 768 parallel, 768 reduction]
//  CHECK-NEXT:   tcl.sched.tile [64, 256, 128]
//  CHECK-NEXT:   tcl.sched.interchange [1, 2, 0]

func.func @bert_ffn(%a: tensor<128x768xf32>, %b: tensor<768x3072xf32>) -> tensor<128x3072xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x3072xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<128x768xf32>, tensor<768x3072xf32>) outs(%c : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  return %0 : tensor<128x3072xf32>
}

func.func @bert_proj(%a: tensor<128x768xf32>, %b: tensor<768x768xf32>) -> tensor<128x768xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x768xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<128x768xf32>) -> tensor<128x768xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<128x768xf32>, tensor<768x768xf32>) outs(%c : tensor<128x768xf32>) -> tensor<128x768xf32>
  return %0 : tensor<128x768xf32>
}

func.func @rows64(%a: tensor<64x1024xf32>, %b: tensor<1024x4096xf32>) -> tensor<64x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x4096xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x4096xf32>) -> tensor<64x4096xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<64x1024xf32>, tensor<1024x4096xf32>) outs(%c : tensor<64x4096xf32>) -> tensor<64x4096xf32>
  return %0 : tensor<64x4096xf32>
}

func.func @rows32(%a: tensor<32x1024xf32>, %b: tensor<1024x4096xf32>) -> tensor<32x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x4096xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x4096xf32>) -> tensor<32x4096xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<32x1024xf32>, tensor<1024x4096xf32>) outs(%c : tensor<32x4096xf32>) -> tensor<32x4096xf32>
  return %0 : tensor<32x4096xf32>
}

func.func @rows256(%a: tensor<256x768xf32>, %b: tensor<768x768xf32>) -> tensor<256x768xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x768xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<256x768xf32>) -> tensor<256x768xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<256x768xf32>, tensor<768x768xf32>) outs(%c : tensor<256x768xf32>) -> tensor<256x768xf32>
  return %0 : tensor<256x768xf32>
}
