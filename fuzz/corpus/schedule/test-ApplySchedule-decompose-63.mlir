tcl.sched.schedule task "dw" anchor "linalg.depthwise_conv_2d_nhwc_hwc" target "x86-avx512"
    loops [1 parallel, 16 parallel, 16 parallel, 32 parallel, 3 reduction, 3 reduction] {
  tcl.sched.tile [1, 1, 8, 16, 1, 0]
  tcl.sched.decompose
}
