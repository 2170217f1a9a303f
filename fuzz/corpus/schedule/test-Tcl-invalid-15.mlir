tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [4, 4, 0]
  tcl.sched.parallelize
  tcl.sched.interchange [1, 0, 2]
}
