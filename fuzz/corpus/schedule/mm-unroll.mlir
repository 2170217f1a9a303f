tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx2"
    loops [30 parallel, 48 parallel, 20 reduction] {
  tcl.sched.tile [0, 0, 1]
  tcl.sched.vectorize
  tcl.sched.unroll level 0 dim 2 by 4
}
