tcl.sched.schedule task "copy" anchor "linalg.generic" target "x86-avx512"
    loops [16 parallel, 16 parallel] {
  tcl.sched.tile [8, 0]
}
