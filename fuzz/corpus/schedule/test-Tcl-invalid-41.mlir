tcl.sched.schedule task "t" anchor "linalg.conv_2d_nhwc_hwcf" target "x86-avx512"
    loops [1 parallel, 8 parallel, 8 parallel, 16 parallel, 3 reduction, 3 reduction, 8 reduction] {
  tcl.sched.tile [1, 4, 4, 16, 0, 0, 0]
  tcl.sched.pad [2] hoist 1
}
