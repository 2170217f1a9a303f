tcl.sched.schedule task "t" anchor "linalg.pooling_nhwc_max" target "x86-avx512"
    loops [1 parallel, 56 parallel, 56 parallel, 64 parallel, 3 reduction, 3 reduction] {
  tcl.sched.tile [1, 1, 8, 32, 1, 0]
  tcl.sched.decompose
  tcl.sched.decompose
}
