tcl.sched.schedule task "partial" anchor "linalg.matmul" target "x86-avx512"
    loops [100 parallel, 32 parallel, 64 reduction] {
  tcl.sched.tile [8, 32, 1]
  tcl.sched.vectorize
}
