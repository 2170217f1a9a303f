tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx2"
    loops [72 parallel, 96 parallel, 64 reduction] {
  tcl.sched.tile [24, 48, 0]
  tcl.sched.parallelize
  tcl.sched.fuse_epilogue
  tcl.sched.tile [8, 16, 1]
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}
