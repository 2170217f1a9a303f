// The default matmul schedule packs B per cache panel (loops n, k, m; the
// B panel padded and hoisted out of the row loop) where B exceeds 2 MiB and
// enough rows reuse each panel: 256, or 64 where B exceeds 4 MiB. Unpacked,
// a large B is read with rows kilobytes apart for every row tile (BERT's
// 128x3072x768 ran at 96 GFLOP/s unpacked, 160 packed on a Zen 5 core).
// So is a B of 1 to 2 MiB whose rows lie a multiple of 2 KB apart (a cache
// tile of its rows folds onto a few L1 sets), used by 256 rows or more.
// Packed, the loops go n, k, m: a thread's panel of C (its rows x 256
// columns) is loaded and stored once per cache tile of k, so the tile is
// deeper where that panel is larger: 256 from 512 KB, 512 from 1 MB (2048^3
// ran 18% faster at 512 than at 128 on an Intel Xeon).
// RUN: tcl-opt %s "--tcl-default-schedules=target=x86-avx512" | FileCheck %s
// RUN: tcl-opt %s "--tcl-default-schedules=target=x86-avx512 num-threads=2" | FileCheck %s --check-prefix=TWO
// REQUIRES: tcl-run
// RUN: tcl-run %s --entry=square512 --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tcl-run %s --entry=square512 --num-threads=2 --repeats=1 | FileCheck %s --check-prefix=EXEC
// EXEC-NOT: WRONG
// EXEC: check: max relative error {{.*}}: ok

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
// (The 128-row ones keep depth 128 at either thread count.)
// TWO-LABEL: tcl.sched.schedule task "default_0" {{.*}} loops [128 parallel, 3072 parallel, 768 reduction]
//  TWO:          tcl.sched.tile [64, {{[0-9]+}}, 128]
//  TWO-NEXT:     tcl.sched.interchange [1, 2, 0]
// 512^3 (B 1 MB, rows 2 KB apart): packed, C panel 512 KB: depth 256; with
// two threads (256 rows each, C panel 256 KB) 128.
// CHECK-LABEL: tcl.sched.schedule task "default_5" {{.*}} loops [512 parallel, 512 parallel, 512 reduction]
//  CHECK-NEXT:   tcl.sched.tile [64, 256, 256]
//  CHECK-NEXT:   tcl.sched.interchange [1, 2, 0]
//  CHECK-NEXT:   tcl.sched.pad [1] hoist 1
// TWO-LABEL: tcl.sched.schedule task "default_5" {{.*}} loops [512 parallel, 512 parallel, 512 reduction]
//  TWO-NEXT:   tcl.sched.tile [256, 0, 0]
//  TWO-NEXT:   tcl.sched.parallelize
//  TWO-NEXT:   tcl.sched.tile [64, 256, 128]
//  TWO-NEXT:   tcl.sched.interchange [1, 2, 0]
//  TWO-NEXT:   tcl.sched.pad [1] hoist 1
// 1024^3: C panel 1 MB: depth 512; two threads' 512 KB: 256.
// CHECK-LABEL: tcl.sched.schedule task "default_6" {{.*}} loops [1024 parallel, 1024 parallel, 1024 reduction]
//  CHECK-NEXT:   tcl.sched.tile [64, 256, 512]
//  CHECK-NEXT:   tcl.sched.interchange [1, 2, 0]
// TWO-LABEL: tcl.sched.schedule task "default_6" {{.*}} loops [1024 parallel, 1024 parallel, 1024 reduction]
//  TWO-NEXT:   tcl.sched.tile [512, 0, 0]
//  TWO-NEXT:   tcl.sched.parallelize
//  TWO-NEXT:   tcl.sched.tile [64, 256, 256]
//  TWO-NEXT:   tcl.sched.interchange [1, 2, 0]
// B of 1.3 MB whose rows are 2.5 KB apart: in place, in panels of its
// columns (default-schedules-panels.mlir).
// CHECK-LABEL: tcl.sched.schedule task "default_7" {{.*}} loops [512 parallel, 640 parallel, 512 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 128, 0]
//  CHECK-NEXT:   tcl.sched.tile [8, 32, 1]

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

func.func @square512(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x512xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<512x512xf32>) -> tensor<512x512xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<512x512xf32>, tensor<512x512xf32>) outs(%c : tensor<512x512xf32>) -> tensor<512x512xf32>
  return %0 : tensor<512x512xf32>
}

func.func @square1024(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}

func.func @rows2560(%a: tensor<512x512xf32>, %b: tensor<512x640xf32>) -> tensor<512x640xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x640xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<512x640xf32>) -> tensor<512x640xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<512x512xf32>, tensor<512x640xf32>) outs(%c : tensor<512x640xf32>) -> tensor<512x640xf32>
  return %0 : tensor<512x640xf32>
}
