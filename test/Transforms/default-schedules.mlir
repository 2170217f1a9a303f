// tcl-default-schedules gives every schedulable op without a schedule the
// default schedule of its op class; scheduled tasks are left alone.
// RUN: tcl-opt %s "--tcl-default-schedules=target=x86-avx512" | FileCheck %s
// RUN: tcl-opt %s "--tcl-default-schedules=target=x86-avx512 num-threads=2" | FileCheck %s --check-prefix=THREADS
// RUN: tcl-opt %s "--tcl-default-schedules=target=x86-sse42" | FileCheck %s --check-prefix=SSE
// RUN: tcl-opt %s "--tcl-default-schedules=target=x86-avx2" | FileCheck %s --check-prefix=AVX2
// By default the target is the host's: a host limited to SSE4.2 gets SSE code.
// RUN: env TCL_HOST_ISA=x86-sse42 tcl-opt %s --tcl-default-schedules | FileCheck %s --check-prefix=SSE
// RUN: not tcl-opt %s "--tcl-default-schedules=target=x86-avx1024" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// GPU targets get a block level and a thread level for every op class, the
// innermost parallel loop onto threads x, register tiles of 4 x 4 for
// convolutions, one output a thread for the others. A matmul's register
// tile is vectorized and kept in registers across k (step by step); its
// tiles shrink from 8 x 8 outputs a thread and 16 x 16 threads until the
// grid has 128 blocks (a 512^3 matmul: 4 x 4 and 16 x 8 threads).
// RUN: tcl-opt %s "--tcl-default-schedules=target=nvptx-sm90" | FileCheck %s --check-prefix=GPU

// CHECK: linalg.matmul {tcl.task = "default_0"}
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}}tcl.task = "default_1"
// CHECK: linalg.matmul {tcl.task = "mine"}
// CHECK: linalg.generic {{.*}}tcl.task = "default_2"
// CHECK-NOT: linalg.fill {{.*}}tcl.task

// CHECK-LABEL: tcl.sched.schedule task "mine"
//  CHECK-NEXT:   tcl.sched.tile [4, 4, 0]
//  CHECK-NEXT: }

// (Its B, 1 MB with rows 2 KB apart, is packed: default-schedules-packing.mlir.)
// CHECK-LABEL: tcl.sched.schedule task "default_0" anchor "linalg.matmul" target "x86-avx512" loops [512 parallel, 512 parallel, 512 reduction]
//  CHECK-NEXT:   tcl.sched.tile [64, 256, 256]
//  CHECK-NEXT:   tcl.sched.interchange [1, 2, 0]
//  CHECK-NEXT:   tcl.sched.pad [1] hoist 1
//  CHECK-NEXT:   tcl.sched.tile [8, 32, 1]
//  CHECK-NEXT:   tcl.sched.vectorize
//  CHECK-NEXT:   tcl.sched.hoist_accumulators
//  CHECK-NEXT:   tcl.sched.unroll level 1 dim 2 by 4
// ResNet-18's 3x3 64->64 at 56x56: 14 of the 56 columns (the most up to 16
// that divide them and fit the registers: 28 accumulators, 2 weight
// vectors, a broadcast) of 2 vectors.
// AVX2's 16 registers hold no more than the usual 8 columns of 2 vectors.
// CHECK-LABEL: tcl.sched.schedule task "default_1" anchor "linalg.conv_2d_nhwc_hwcf"
//  CHECK-NEXT:   tcl.sched.tile [0, 1, 14, 32, 1, 1, 1]
// AVX2-LABEL: tcl.sched.schedule task "default_1" anchor "linalg.conv_2d_nhwc_hwcf"
//  AVX2-NEXT:   tcl.sched.tile [0, 1, 8, 16, 1, 1, 1]
//  CHECK-NEXT:   tcl.sched.decompose
//  CHECK-NEXT:   tcl.sched.vectorize
//  CHECK-NEXT:   tcl.sched.hoist_accumulators
// CHECK-LABEL: tcl.sched.schedule task "default_2" anchor "linalg.generic" target "x86-avx512" loops [128 parallel, 768 reduction]
//  CHECK-NEXT:   tcl.sched.tile [1, 0]
//  CHECK-NEXT:   tcl.sched.vectorize

// THREADS-LABEL: tcl.sched.schedule task "default_0"
//  THREADS-NEXT:   tcl.sched.tile [256, 0, 0]
//  THREADS-NEXT:   tcl.sched.parallelize
// THREADS-LABEL: tcl.sched.schedule task "default_1"
//  THREADS-NEXT:   tcl.sched.tile [0, 28, 0, 0, 0, 0, 0]
//  THREADS-NEXT:   tcl.sched.parallelize

// SSE-LABEL: tcl.sched.schedule task "default_0" anchor "linalg.matmul" target "x86-sse42"
//  SSE-NEXT:   tcl.sched.tile [64, 64, 128]
//  SSE-NEXT:   tcl.sched.interchange [1, 2, 0]
//  SSE-NEXT:   tcl.sched.pad [1] hoist 1
//  SSE-NEXT:   tcl.sched.tile [8, 8, 1]

// GPU-LABEL: tcl.sched.schedule task "default_0" anchor "linalg.matmul" target "nvptx-sm90"
//  GPU-NEXT:   tcl.sched.tile [32, 64, 0]
//  GPU-NEXT:   tcl.sched.parallelize blocks
//  GPU-NEXT:   tcl.sched.tile [4, 4, 0]
//  GPU-NEXT:   tcl.sched.parallelize threads
//  GPU-NEXT:   tcl.sched.tile [0, 0, 1]
//  GPU-NEXT:   tcl.sched.vectorize
//  GPU-NEXT:   tcl.sched.hoist_accumulators
//  GPU-NEXT: }
// GPU-LABEL: tcl.sched.schedule task "default_1" anchor "linalg.conv_2d_nhwc_hwcf"
//  GPU-NEXT:   tcl.sched.tile [0, 1, 56, 64, 0, 0, 0]
//  GPU-NEXT:   tcl.sched.parallelize blocks
//  GPU-NEXT:   tcl.sched.tile [0, 0, 4, 4, 0, 0, 0]
//  GPU-NEXT:   tcl.sched.parallelize threads
// GPU-LABEL: tcl.sched.schedule task "default_2" anchor "linalg.generic" target "nvptx-sm90" loops [128 parallel, 768 reduction]
//  GPU-NEXT:   tcl.sched.tile [64, 0]
//  GPU-NEXT:   tcl.sched.parallelize blocks
//  GPU-NEXT:   tcl.sched.tile [1, 0]
//  GPU-NEXT:   tcl.sched.parallelize threads

// UNKNOWN: tcl-default-schedules: unknown target 'x86-avx1024' (known: x86-avx512, x86-avx2, x86-sse42, nvptx-sm90, nvptx-sm80)

func.func @f(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>, %c: tensor<512x512xf32>,
             %in: tensor<1x58x58x64xf32>, %w: tensor<3x3x64x64xf32>, %out: tensor<1x56x56x64xf32>,
             %x: tensor<128x768xf32>, %y: tensor<128xf32>, %s: tensor<8x8xf32>)
    -> (tensor<512x512xf32>, tensor<1x56x56x64xf32>, tensor<128xf32>, tensor<8x8xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<512x512xf32>, tensor<512x512xf32>) outs(%c : tensor<512x512xf32>) -> tensor<512x512xf32>
  %1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x58x58x64xf32>, tensor<3x3x64x64xf32>) outs(%out : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  %2 = linalg.matmul {tcl.task = "mine"} ins(%s, %s : tensor<8x8xf32>, tensor<8x8xf32>) outs(%s : tensor<8x8xf32>) -> tensor<8x8xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
    ins(%x : tensor<128x768xf32>) outs(%y : tensor<128xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %sum = arith.addf %v, %acc : f32
    linalg.yield %sum : f32
  } -> tensor<128xf32>
  %zero = arith.constant 0.0 : f32
  %4 = linalg.fill ins(%zero : f32) outs(%2 : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0, %1, %3, %4 : tensor<512x512xf32>, tensor<1x56x56x64xf32>, tensor<128xf32>, tensor<8x8xf32>
}
tcl.sched.schedule task "mine" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [4, 4, 0]
}
