tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx2"
    loops [30 parallel, 48 parallel, 20 reduction] {
  tcl.sched.tile [6, 16, 5]
  tcl.sched.interchange [1, 0, 2]
  tcl.sched.tile [2, 8, 1]
  tcl.sched.vectorize
}
