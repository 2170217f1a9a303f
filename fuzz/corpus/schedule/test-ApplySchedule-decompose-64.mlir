tcl.sched.schedule task "pool" anchor "linalg.pooling_nhwc_max" target "x86-avx512"
    loops [1 parallel, 8 parallel, 8 parallel, 32 parallel, 2 reduction, 2 reduction] {
  tcl.sched.tile [1, 1, 4, 32, 1, 0]
  tcl.sched.decompose
  tcl.sched.vectorize
}
