tcl.sched.schedule task "conv" anchor "linalg.conv_2d_nhwc_hwcf" target "x86-avx512"
    loops [1 parallel, 8 parallel, 8 parallel, 16 parallel, 3 reduction, 3 reduction, 8 reduction] {
  tcl.sched.tile [0, 3, 0, 0, 0, 0, 0]
  tcl.sched.tile [1, 1, 5, 16, 1, 1, 3]
  tcl.sched.decompose
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}
