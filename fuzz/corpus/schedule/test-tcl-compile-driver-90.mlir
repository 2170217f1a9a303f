tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [64 parallel, 64 parallel, 64 reduction] {
  tcl.sched.tile [32, 32, 0]
  tcl.sched.parallelize
  tcl.sched.tile [8, 16, 1]
}
