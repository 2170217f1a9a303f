tcl.sched.schedule task "conv" anchor "linalg.conv_2d_nhwc_hwcf" target "x86-avx2"
    loops [1 parallel, 56 parallel, 56 parallel, 64 parallel, 3 reduction, 3 reduction, 64 reduction] {
  tcl.sched.tile [1, 8, 0, 64, 0, 0, 0]
  tcl.sched.parallelize
  tcl.sched.tile [0, 1, 8, 32, 1, 0, 0]
  tcl.sched.decompose
  tcl.sched.vectorize
}
