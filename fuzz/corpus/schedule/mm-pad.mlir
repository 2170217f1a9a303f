tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx2"
    loops [30 parallel, 48 parallel, 20 reduction] {
  tcl.sched.tile [8, 16, 4]
  tcl.sched.pad [0, 1] hoist 1
}
