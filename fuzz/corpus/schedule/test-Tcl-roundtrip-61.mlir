tcl.sched.schedule task "dyn" anchor "linalg.generic" target "x86-avx512"
    loops [? parallel, 64 reduction] {
}
