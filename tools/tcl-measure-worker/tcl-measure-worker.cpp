//===- tcl-measure-worker.cpp - Isolated candidate measurement ------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Started by tcl::Measurer with a socket on stdin/stdout; compiles, checks
// and times candidates until the socket closes (see tcl/Runtime/Measure.h).
//
//===----------------------------------------------------------------------===//

#include "tcl/Runtime/Measure.h"

#include <unistd.h>

int main() { return mlir::tcl::runMeasureWorker(STDIN_FILENO); }
