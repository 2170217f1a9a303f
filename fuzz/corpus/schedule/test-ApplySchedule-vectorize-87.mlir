tcl.sched.schedule task "rowsum" anchor "linalg.generic" target "x86-avx512"
    loops [64 parallel, 64 reduction] {
  tcl.sched.tile [16, 0]
  tcl.sched.vectorize
}
