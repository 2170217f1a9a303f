tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [1024 parallel, 1024 parallel, 1024 reduction] {
  tcl.sched.tile [64, 64, 64]
  tcl.sched.vectorize
}
