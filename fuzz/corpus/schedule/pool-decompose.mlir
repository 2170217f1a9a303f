tcl.sched.schedule task "pool" anchor "linalg.pooling_nhwc_max" target "x86-sse42"
    loops [1 parallel, 4 parallel, 4 parallel, 16 parallel, 2 reduction, 2 reduction] {
  tcl.sched.tile [1, 1, 4, 16, 1, 0]
  tcl.sched.decompose
  tcl.sched.vectorize
}
