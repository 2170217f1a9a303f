tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.split_reduction by 2
  tcl.sched.tile [4, 4, 0, 0]
  tcl.sched.fuse_epilogue
}
