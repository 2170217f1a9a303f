// Applying one schedule ends with canonicalization, which can fold away
// another task's anchor (here a generic that only copies its input). The
// other schedule then has nothing to do: no error.
// RUN: tcl-opt %s --tcl-apply-schedule | FileCheck %s

// CHECK-LABEL: func.func @two_tasks
//       CHECK:   scf.for
//       CHECK:     linalg.matmul
//   CHECK-NOT:   linalg.generic
//   CHECK-NOT:   tcl.sched
#id = affine_map<(i, j) -> (i, j)>
func.func @two_tasks(%a: tensor<16x16xf32>, %c: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %0 = linalg.matmul {tcl.task = "mm"} ins(%a, %a : tensor<16x16xf32>, tensor<16x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  %1 = linalg.generic {tcl.task = "copy", indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%a : tensor<16x16xf32>) outs(%c : tensor<16x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<16x16xf32>
  return %0, %1 : tensor<16x16xf32>, tensor<16x16xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [16 parallel, 16 parallel, 16 reduction] {
  tcl.sched.tile [8, 0, 0]
}
tcl.sched.schedule task "copy" anchor "linalg.generic" target "x86-avx512"
    loops [16 parallel, 16 parallel] {
  tcl.sched.tile [8, 0]
}
