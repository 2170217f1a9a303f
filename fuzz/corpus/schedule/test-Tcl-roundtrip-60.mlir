tcl.sched.schedule task "mm_relu" anchor "linalg.matmul" target "x86-sse42"
    loops [128 parallel, 512 parallel, 256 reduction] {
  tcl.sched.tile [32, 128, 0]
  tcl.sched.fuse_epilogue
  tcl.sched.split_reduction by 4
}
