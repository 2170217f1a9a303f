tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [64 parallel, 64 parallel, 64 reduction] {
  tcl.sched.tile [8, 32, 1]
  tcl.sched.vectorize
}
