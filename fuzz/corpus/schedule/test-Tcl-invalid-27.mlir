tcl.sched.schedule task "t" anchor "linalg.generic" target "x86-avx512"
    loops [64 parallel, ? reduction] {
  tcl.sched.tile [8, 0]
  tcl.sched.vectorize
}
