tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [100 parallel, 200 parallel, 256 reduction] {
  tcl.sched.tile [32, 64, 64]
  tcl.sched.pad [0, 1] hoist 1
}
