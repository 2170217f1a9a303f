tcl.sched.schedule task "partial" anchor "linalg.matmul" target "x86-avx512"
    loops [100 parallel, 64 parallel, 64 reduction] {
  tcl.sched.tile [32, 0, 0]
}
