tcl.sched.schedule task "nohoist" anchor "linalg.matmul" target "x86-avx512"
    loops [64 parallel, 64 parallel, 64 reduction] {
  tcl.sched.tile [16, 64, 0]
  tcl.sched.pad [0]
}
