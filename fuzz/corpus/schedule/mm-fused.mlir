tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx2"
    loops [30 parallel, 48 parallel, 20 reduction] {
  tcl.sched.tile [10, 16, 0]
  tcl.sched.parallelize
  tcl.sched.fuse_epilogue
  tcl.sched.tile [2, 8, 1]
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
  tcl.sched.unroll level 1 dim 2 by 4
}
