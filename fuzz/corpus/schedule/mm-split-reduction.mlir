tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx2"
    loops [30 parallel, 48 parallel, 20 reduction] {
  tcl.sched.split_reduction by 4
  tcl.sched.tile [0, 0, 1, 0]
  tcl.sched.parallelize
  tcl.sched.tile [0, 0, 0, 1]
}
