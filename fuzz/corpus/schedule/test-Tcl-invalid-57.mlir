tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
  %zero = arith.constant 0 : index
}
