tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [128 parallel, 128 parallel, 64 reduction] {
  tcl.sched.tile [64, 128, 0]
  tcl.sched.parallelize
  tcl.sched.tile [8, 32, 1]
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}
