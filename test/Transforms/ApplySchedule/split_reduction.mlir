// split_reduction splits K into `factor` parallel partial sums and a combining
// reduction; the partial sums can then run in parallel.
// RUN: tcl-opt %s --tcl-apply-schedule | FileCheck %s

// CHECK-LABEL: func.func @mm
//       CHECK:   tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [16, 4, 256]
//       CHECK:   scf.forall (%{{.*}}) in (4) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<16x16x4xf32>)
//       CHECK:     scf.for %{{.*}} = %c0 to %c256 step %c1
//       CHECK:       linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins(%{{.*}} : tensor<16x16x4xf32>) outs(%{{.*}} : tensor<16x16xf32>)
func.func @mm(%a: tensor<16x1024xf32>, %b: tensor<1024x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %0 = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<16x1024xf32>, tensor<1024x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [16 parallel, 16 parallel, 1024 reduction] {
  tcl.sched.split_reduction by 4
  tcl.sched.tile [0, 0, 1, 0]
  tcl.sched.parallelize
  tcl.sched.tile [0, 0, 0, 1]
}

// With a fill of the output, the fill initializes the combining op: it stays
// outside the partial sums' threads (fusing it there failed to apply).
// CHECK-LABEL: func.func @mm_fill
//       CHECK:   linalg.fill {{.*}} -> tensor<16x16xf32>
//       CHECK:   scf.forall (%{{.*}}) in (4)
//       CHECK:   scf.forall.in_parallel
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
func.func @mm_fill(%a: tensor<16x1024xf32>, %b: tensor<1024x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %0 = linalg.matmul {tcl.task = "mm2"} ins(%a, %b : tensor<16x1024xf32>, tensor<1024x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}
tcl.sched.schedule task "mm2" anchor "linalg.matmul" target "x86-avx512"
    loops [16 parallel, 16 parallel, 1024 reduction] {
  tcl.sched.split_reduction by 4
  tcl.sched.tile [0, 0, 1, 0]
  tcl.sched.parallelize
  tcl.sched.tile [0, 0, 0, 1]
}
