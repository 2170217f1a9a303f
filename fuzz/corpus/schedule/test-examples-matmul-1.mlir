tcl.sched.schedule task "matmul_256" anchor "linalg.matmul" target "x86-avx2"
    loops [256 parallel, 256 parallel, 256 reduction] {
  tcl.sched.tile [64, 128, 0]
  tcl.sched.parallelize
  tcl.sched.fuse_epilogue
  tcl.sched.tile [4, 32, 1]
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
  tcl.sched.unroll level 1 dim 2 by 4
}
