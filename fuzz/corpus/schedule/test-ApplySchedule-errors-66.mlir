tcl.sched.schedule task "missing" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 8 parallel, 8 reduction] {
}
