tcl.sched.schedule task "scale" anchor "linalg.generic" target "x86-avx512"
    loops [64 parallel, 64 parallel] {
  tcl.sched.tile [16, 16]
  tcl.sched.pad [1] hoist 1
}
