tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [30 parallel, 48 parallel, 20 reduction] {
  tcl.sched.tile [16, 32, 0]
  tcl.sched.fuse_epilogue
  tcl.sched.tile [0, 0, 8]
  tcl.sched.tile [8, 16, 1]
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
  tcl.sched.unroll level 2 dim 2 by 4
}
