tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [16 parallel, 16 parallel, 1024 reduction] {
  tcl.sched.split_reduction by 4
  tcl.sched.tile [0, 0, 1, 0]
  tcl.sched.parallelize
  tcl.sched.tile [0, 0, 0, 1]
}
