//===- ForeignLoad.h - A busy process outside the test's group --*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The load monitor counts processes outside its own process group as
// foreign load. Tests make such load with a child that leaves the group and
// spins; it is left unreaped until the monitor has read it, because once
// reaped its time counts as the parent's own (its children's totals).
//
//===----------------------------------------------------------------------===//

#ifndef TCL_UNITTESTS_SUPPORT_FOREIGNLOAD_H
#define TCL_UNITTESTS_SUPPORT_FOREIGNLOAD_H

#include <chrono>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

namespace mlir::tcl::test {

/// Starts a child in a process group of its own that keeps a core busy for
/// `duration`; returns once it has exited, not yet reaped (-1: fork failed).
inline pid_t spinInOtherProcessGroup(std::chrono::milliseconds duration) {
  pid_t child = fork();
  if (child != 0) {
    siginfo_t info;
    if (child > 0 && waitid(P_PID, child, &info, WEXITED | WNOWAIT) != 0)
      return -1;
    return child;
  }
  setpgid(0, 0);
  auto start = std::chrono::steady_clock::now();
  volatile double sink = 0;
  while (std::chrono::steady_clock::now() - start < duration)
    sink = sink + 1;
  _exit(0);
}

/// Reaps a child of spinInOtherProcessGroup.
inline void reap(pid_t child) {
  int status = 0;
  waitpid(child, &status, 0);
}

} // namespace mlir::tcl::test

#endif // TCL_UNITTESTS_SUPPORT_FOREIGNLOAD_H
