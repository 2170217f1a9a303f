tcl.sched.schedule task "t" anchor "linalg.matmul" target "x86-avx1024"
    loops [8 parallel, 8 parallel, 8 reduction] {
}
