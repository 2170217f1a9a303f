// The printed form of a schedule is what the tuning database stores: it must
// parse back to the same schedule, in the custom and in the generic form.
// RUN: tcl-opt %s | tcl-opt | FileCheck %s
// RUN: tcl-opt %s --mlir-print-op-generic | tcl-opt | FileCheck %s
// RUN: tcl-opt %s > %t.1.mlir && tcl-opt %t.1.mlir > %t.2.mlir && diff %t.1.mlir %t.2.mlir

// CHECK-LABEL: tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512" loops [256 parallel, 256 parallel, 256 reduction] {
// CHECK-NEXT:    tcl.sched.tile [64, 128, 0]
// CHECK-NEXT:    tcl.sched.interchange [1, 0, 2]
// CHECK-NEXT:    tcl.sched.tile [8, 32, 1]
// CHECK-NEXT:    tcl.sched.pad [0, 1] hoist 2
// CHECK-NEXT:    tcl.sched.vectorize
// CHECK-NEXT:    tcl.sched.hoist_accumulators
// CHECK-NEXT:    tcl.sched.unroll level 1 dim 2 by 4
// CHECK-NEXT:  }
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [256 parallel, 256 parallel, 256 reduction] {
  tcl.sched.tile [64, 128, 0]
  tcl.sched.interchange [1, 0, 2]
  tcl.sched.tile [8, 32, 1]
  tcl.sched.pad [0, 1] hoist 2
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
  tcl.sched.unroll level 1 dim 2 by 4
}

// CHECK-LABEL: tcl.sched.schedule task "conv" anchor "linalg.conv_2d_nhwc_hwcf" target "x86-avx2" loops [1 parallel, 56 parallel, 56 parallel, 64 parallel, 3 reduction, 3 reduction, 64 reduction] {
// CHECK-NEXT:    tcl.sched.tile [1, 8, 0, 64, 0, 0, 0]
// CHECK-NEXT:    tcl.sched.parallelize
// CHECK-NEXT:    tcl.sched.tile [0, 1, 8, 32, 1, 0, 0]
// CHECK-NEXT:    tcl.sched.decompose
// CHECK-NEXT:    tcl.sched.vectorize
tcl.sched.schedule task "conv" anchor "linalg.conv_2d_nhwc_hwcf" target "x86-avx2"
    loops [1 parallel, 56 parallel, 56 parallel, 64 parallel, 3 reduction, 3 reduction, 64 reduction] {
  tcl.sched.tile [1, 8, 0, 64, 0, 0, 0]
  tcl.sched.parallelize
  tcl.sched.tile [0, 1, 8, 32, 1, 0, 0]
  tcl.sched.decompose
  tcl.sched.vectorize
}

// CHECK-LABEL: tcl.sched.schedule task "mm_relu" anchor "linalg.matmul" target "x86-sse42" loops [128 parallel, 512 parallel, 256 reduction] {
// CHECK-NEXT:    tcl.sched.tile [32, 128, 0]
// CHECK-NEXT:    tcl.sched.fuse_epilogue
// CHECK-NEXT:    tcl.sched.split_reduction by 4
tcl.sched.schedule task "mm_relu" anchor "linalg.matmul" target "x86-sse42"
    loops [128 parallel, 512 parallel, 256 reduction] {
  tcl.sched.tile [32, 128, 0]
  tcl.sched.fuse_epilogue
  tcl.sched.split_reduction by 4
}

// Dynamic extents print as '?'; an empty schedule is valid (naive loops).
// CHECK-LABEL: tcl.sched.schedule task "dyn" anchor "linalg.generic" target "x86-avx512" loops [? parallel, 64 reduction] {
// CHECK-NEXT:  }
tcl.sched.schedule task "dyn" anchor "linalg.generic" target "x86-avx512"
    loops [? parallel, 64 reduction] {
}
