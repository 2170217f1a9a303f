tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [128 parallel, 512 parallel, 256 reduction] {
  tcl.sched.tile [32, 128, 0]
  tcl.sched.fuse_epilogue
  tcl.sched.tile [8, 32, 1]
  tcl.sched.vectorize
}
