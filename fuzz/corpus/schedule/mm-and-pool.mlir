tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx2"
    loops [30 parallel, 48 parallel, 20 reduction] {
  tcl.sched.tile [16, 16, 0]
  tcl.sched.fuse_epilogue
  tcl.sched.tile [4, 16, 1]
  tcl.sched.vectorize
}
tcl.sched.schedule task "pool" anchor "linalg.pooling_nhwc_max" target "x86-sse42"
    loops [1 parallel, 4 parallel, 4 parallel, 16 parallel, 2 reduction, 2 reduction] {
  tcl.sched.tile [1, 2, 2, 8, 0, 0]
  tcl.sched.parallelize
}
