// Schedules applied first (tcl-apply-schedule), then the pipeline, which
// gives default schedules to what has none: the scheduled tiles keep their
// task's tag, and the partial last tile (28 of 220 channels, after three of
// 64) read as another instance of the task, of another shape ("declares
// loops [1, 1, 1, 64] 'pppp' but the anchor has [1, 1, 1, 28]"). What
// tcl-apply-schedule made gets no default schedule.
// RUN: tcl-opt %s --tcl-apply-schedule --tcl-default-schedules | FileCheck %s --check-prefix=DEFAULTS
// DEFAULTS-NOT: tcl.sched.schedule
// RUN: tcl-opt %s --tcl-apply-schedule "--tcl-lower-to-llvm=target=x86-avx512" | FileCheck %s
// CHECK: llvm.func internal @scale.scale(
// CHECK: llvm.func @scale(

func.func @scale(%s: tensor<1x440x1x1xf32>, %x: tensor<1x7x7x440xf32>) -> tensor<1x7x7x440xf32> {
  %e = tensor.empty() : tensor<1x7x7x440xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s, %x : tensor<1x440x1x1xf32>, tensor<1x7x7x440xf32>) outs(%e : tensor<1x7x7x440xf32>) attrs = {tcl.task = "scale"} {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x7x7x440xf32>
  return %0 : tensor<1x7x7x440xf32>
}
tcl.sched.schedule task "scale" anchor "linalg.generic" target "x86-avx512" loops [1 parallel, 7 parallel, 7 parallel, 440 parallel] {
  tcl.sched.tile [0, 4, 0, 220]
  tcl.sched.tile [0, 1, 1, 64]
}
