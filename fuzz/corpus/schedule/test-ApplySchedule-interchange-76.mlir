tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [32 parallel, 128 parallel, 64 reduction] {
  tcl.sched.tile [4, 16, 8]
  tcl.sched.interchange [1, 2, 0]
}
