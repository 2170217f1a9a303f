// Two task anchors whose outputs start from one shared linalg.fill (CSE
// merges identical fills): tcl-unshare-fills, which the pipeline runs
// before applying schedules, gives each a fill of its own, which each then
// fuses into its own threads' loop (each thread zeroes its own tile),
// instead of one fill that no loop can take and that bufferization would
// copy for every user.
// RUN: tcl-opt %s --tcl-unshare-fills --tcl-apply-schedule | FileCheck %s

// CHECK-LABEL: func.func @two_matmuls
//   CHECK-NOT:   linalg.fill
//       CHECK:   scf.forall
//       CHECK:     linalg.fill {{.*}} -> tensor<16x32xf32>
//       CHECK:     linalg.matmul
//       CHECK:   } {{{.*}}tcl.task_nest = "mm"}
//   CHECK-NOT:   linalg.fill {{.*}} -> tensor<32x32xf32>
//       CHECK:   scf.forall
//       CHECK:     linalg.fill {{.*}} -> tensor<16x32xf32>
//       CHECK:     linalg.matmul
func.func @two_matmuls(%a: tensor<32x32xf32>, %b: tensor<32x32xf32>) -> (tensor<32x32xf32>, tensor<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %0 = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<32x32xf32>, tensor<32x32xf32>) outs(%f : tensor<32x32xf32>) -> tensor<32x32xf32>
  %1 = linalg.matmul {tcl.task = "mm"} ins(%b, %a : tensor<32x32xf32>, tensor<32x32xf32>) outs(%f : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %0, %1 : tensor<32x32xf32>, tensor<32x32xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [32 parallel, 32 parallel, 32 reduction] {
  tcl.sched.tile [16, 0, 0]
  tcl.sched.parallelize
}
