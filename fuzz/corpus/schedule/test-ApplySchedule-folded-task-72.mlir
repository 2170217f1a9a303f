tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [16 parallel, 16 parallel, 16 reduction] {
  tcl.sched.tile [8, 0, 0]
}
