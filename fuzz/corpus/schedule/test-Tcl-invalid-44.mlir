tcl.sched.schedule task "u" anchor "linalg.matmul" target "x86-avx512"
    loops [64 parallel, 64 parallel, 64 reduction] {
  tcl.sched.tile [16, 16, 16]
  tcl.sched.pad [0, 1, 2]
}
