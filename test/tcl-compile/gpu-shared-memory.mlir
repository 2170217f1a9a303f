// A GPU schedule's `pad [0, 1]` after a level of reduction steps inside the
// thread level: at each step of 16, the block's 256 threads copy the
// block's 128 x 16 tile of A (transposed) and 16 x 128 tile of B into
// shared memory (rows padded by 4 floats, 16-byte aligned), wait at a
// barrier, then each reads its 8 x 8 tile's column of A and row of B there
// with 128-bit loads; the accumulators stay in registers across all steps.
// Run on this host (--emulate-gpu), the schedules compute what plain loops
// compute (a bias epilogue; a batch matmul).
// RUN: tcl-compile %s --target=nvptx-sm90 --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: tcl-run %s --entry=mm_bias --target=nvptx-sm90 --emulate-gpu --repeats=1 | FileCheck %s --check-prefix=EMULATED
// RUN: tcl-run %s --entry=bmm --target=nvptx-sm90 --emulate-gpu --repeats=1 | FileCheck %s --check-prefix=EMULATED

// CHECK-LABEL: .entry mm_bias_kernel(
// CHECK: .shared .align 16 .b8 {{.*}}[8448];
// CHECK: .shared .align 16 .b8 {{.*}}[8448];
// CHECK: st.shared.f32
// CHECK: st.shared.f32
// CHECK: bar.sync
// CHECK-COUNT-4: ld.shared.v4.f32
// CHECK-COUNT-64: fma.rn.f32
// CHECK: bar.sync
// CHECK-LABEL: .entry bmm_kernel(
// CHECK: bar.sync
// CHECK: ld.shared.v4.f32
// EMULATED-NOT: WRONG
// EMULATED: check: max relative error {{.*}} against plain loops: ok

func.func @mm_bias(%a: tensor<256x128xf32>, %b: tensor<128x256xf32>, %bias: tensor<256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %m = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<256x128xf32>, tensor<128x256xf32>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<256x256xf32>, tensor<256xf32>) outs(%e : tensor<256x256xf32>) attrs = {tcl.epilogue = "mm"} {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "nvptx-sm90"
    loops [256 parallel, 256 parallel, 128 reduction] {
  tcl.sched.tile [128, 128, 0]
  tcl.sched.parallelize blocks
  tcl.sched.fuse_epilogue
  tcl.sched.tile [8, 8, 0]
  tcl.sched.parallelize threads
  tcl.sched.tile [0, 0, 16]
  tcl.sched.pad [0, 1]
  tcl.sched.tile [0, 0, 1]
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}

func.func @bmm(%a: tensor<4x128x64xf32>, %b: tensor<4x64x96xf32>) -> tensor<4x128x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x128x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x128x96xf32>) -> tensor<4x128x96xf32>
  %m = linalg.batch_matmul {tcl.task = "bmm"} ins(%a, %b : tensor<4x128x64xf32>, tensor<4x64x96xf32>) outs(%f : tensor<4x128x96xf32>) -> tensor<4x128x96xf32>
  return %m : tensor<4x128x96xf32>
}
tcl.sched.schedule task "bmm" anchor "linalg.batch_matmul" target "nvptx-sm90"
    loops [4 parallel, 128 parallel, 96 parallel, 64 reduction] {
  tcl.sched.tile [1, 64, 32, 0]
  tcl.sched.parallelize blocks
  tcl.sched.tile [0, 4, 4, 0]
  tcl.sched.parallelize threads
  tcl.sched.tile [0, 0, 0, 8]
  tcl.sched.pad [0, 1]
  tcl.sched.tile [0, 0, 0, 1]
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}
