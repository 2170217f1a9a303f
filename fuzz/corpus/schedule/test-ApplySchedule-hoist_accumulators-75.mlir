tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 32 parallel, 64 reduction] {
  tcl.sched.tile [0, 0, 1]
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}
