// On a GPU target, the block level becomes an scf.forall mapped onto
// gpu.block ids and the thread level one mapped onto gpu.thread ids, the
// innermost loop onto x. What the block level fused (the epilogue, the fill
// of the output) is fused into the thread level too, so that each thread
// computes its own elements from start to end.
// RUN: tcl-opt %s -split-input-file --tcl-apply-schedule -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @mm_bias
//       CHECK:   scf.forall (%{{.*}}, %{{.*}}) in (2, 1)
//       CHECK:     scf.forall (%{{.*}}, %{{.*}}) in (16, 16)
//       CHECK:       linalg.fill {{.*}} -> tensor<4x4xf32>
//       CHECK:       scf.for
//       CHECK:         linalg.matmul {{.*}} -> tensor<4x4xf32>
//       CHECK:       linalg.add {{.*}} -> tensor<4x4xf32>
//       CHECK:     } {mapping = [#gpu.thread<y>, #gpu.thread<x>]{{.*}}}
//   CHECK-NOT:     linalg.
//       CHECK:   } {mapping = [#gpu.block<y>, #gpu.block<x>]{{.*}}}
func.func @mm_bias(%a: tensor<128x256xf32>, %b: tensor<256x64xf32>, %bias: tensor<128x64xf32>) -> tensor<128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x64xf32>) -> tensor<128x64xf32>
  %m = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<128x256xf32>, tensor<256x64xf32>) outs(%f : tensor<128x64xf32>) -> tensor<128x64xf32>
  %r = linalg.add {tcl.epilogue = "mm"} ins(%m, %bias : tensor<128x64xf32>, tensor<128x64xf32>) outs(%e : tensor<128x64xf32>) -> tensor<128x64xf32>
  return %r : tensor<128x64xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "nvptx-sm90"
    loops [128 parallel, 64 parallel, 256 reduction] {
  tcl.sched.tile [64, 64, 0]
  tcl.sched.parallelize blocks
  tcl.sched.fuse_epilogue
  tcl.sched.tile [4, 4, 0]
  tcl.sched.parallelize threads
  tcl.sched.tile [0, 0, 32]
}

// -----

// Without an epilogue, the fill alone follows the anchor into both levels;
// three loops map onto z, y, x.
// CHECK-LABEL: func.func @conv
//       CHECK:   scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) in (54, 1, 1)
//   CHECK-NOT:     linalg.fill
//       CHECK:     scf.forall (%{{.*}}, %{{.*}}) in (18, 8)
//       CHECK:       linalg.fill {{.*}} -> tensor<1x1x3x4xf32>
//       CHECK:       linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<1x1x3x4xf32>
//       CHECK:     } {mapping = [#gpu.thread<y>, #gpu.thread<x>]{{.*}}}
//       CHECK:   } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]{{.*}}}
func.func @conv(%x: tensor<1x56x56x64xf32>, %w: tensor<3x3x64x32xf32>) -> tensor<1x54x54x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x54x54x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x54x54x32xf32>) -> tensor<1x54x54x32xf32>
  %c = linalg.conv_2d_nhwc_hwcf {tcl.task = "conv", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x56x56x64xf32>, tensor<3x3x64x32xf32>) outs(%f : tensor<1x54x54x32xf32>) -> tensor<1x54x54x32xf32>
  return %c : tensor<1x54x54x32xf32>
}
tcl.sched.schedule task "conv" anchor "linalg.conv_2d_nhwc_hwcf" target "nvptx-sm90"
    loops [1 parallel, 54 parallel, 54 parallel, 32 parallel, 3 reduction, 3 reduction, 64 reduction] {
  tcl.sched.tile [0, 1, 54, 32, 0, 0, 0]
  tcl.sched.parallelize blocks
  tcl.sched.tile [0, 0, 3, 4, 0, 0, 0]
  tcl.sched.parallelize threads
}

// -----

func.func @cpu_loops_on_gpu(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
// expected-error @below {{targets GPU 'nvptx-sm90' but maps no tile level onto blocks (tcl.sched.parallelize blocks): the kernel would not run on the GPU}}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "nvptx-sm90"
    loops [64 parallel, 64 parallel, 64 reduction] {
  tcl.sched.tile [32, 32, 0]
  tcl.sched.parallelize
}

// -----

func.func @gpu_loops_on_cpu(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
// expected-error @below {{maps loops onto GPU blocks or threads but targets CPU 'x86-avx512'}}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [64 parallel, 64 parallel, 64 reduction] {
  tcl.sched.tile [32, 32, 0]
  tcl.sched.parallelize blocks
}
