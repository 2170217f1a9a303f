tcl.sched.schedule task "twice" anchor "linalg.matmul" target "x86-avx512"
    loops [32 parallel, 32 parallel, 32 reduction] {
  tcl.sched.tile [16, 0, 0]
}
