tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 12 reduction] {
  tcl.sched.split_reduction by 8
}
