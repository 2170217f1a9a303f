tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  tcl.sched.tile [4, 4, 4]
  tcl.sched.pad [0]
  tcl.sched.pad [1]
}
