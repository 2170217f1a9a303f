tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [256 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [64, 0, 0]
  tcl.sched.tile [128, 0, 0]
}
