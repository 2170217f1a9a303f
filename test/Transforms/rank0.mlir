// A rank-0 op (a scalar computation on 0-d tensors, e.g. from a graph input
// of shape []) has no loop to schedule: tcl-default-schedules leaves it
// alone, even when it is tagged as a task, and it lowers to plain code.
// REQUIRES: tcl-run
// RUN: tcl-opt %s "--tcl-default-schedules=target=x86-avx512" | FileCheck %s --check-prefix=DEFAULT
// RUN: tcl-opt %s --tcl-extract-tasks | FileCheck %s --check-prefix=TASKS
// RUN: tcl-opt %s --tcl-lower-to-llvm="target=x86-avx512" | FileCheck %s
// RUN: tcl-opt %s --tcl-lower-to-llvm="target=x86-avx512 num-threads=2" | FileCheck %s
// RUN: tcl-run %s --entry=relu --target=x86-sse42 | FileCheck %s --check-prefix=EXEC

// DEFAULT-NOT: tcl.sched.schedule
// DEFAULT: linalg.generic
// DEFAULT-NOT: tcl.task = "default
// DEFAULT-NOT: tcl.sched.schedule
// TASKS-LABEL: func.func @relu
// TASKS-NOT: tcl.task
// TASKS: return

// CHECK-LABEL: llvm.func @relu
// CHECK: llvm.intr.maximum
// CHECK-LABEL: llvm.func @_mlir_ciface_relu
// CHECK-LABEL: llvm.func @tagged
// CHECK-NOT: linalg.
// CHECK-NOT: tcl.sched

// EXEC: kernel @relu (JIT), x86-sse42, 1 thread(s)
// EXEC-NEXT: check: max relative error {{.*}} against plain loops: ok

func.func @relu(%x: tensor<f32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<f32>
  %y = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%x : tensor<f32>) outs(%empty : tensor<f32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %y : tensor<f32>
}

func.func @tagged(%x: tensor<f32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<f32>
  %y = linalg.generic {tcl.task = "scalar", indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%x : tensor<f32>) outs(%empty : tensor<f32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %y : tensor<f32>
}
