// The functions of register-tile-fill.mlir, whose register tiles start
// from zero accumulators (and whose fill stays whole where a cache tile
// splits the reduction), compute what plain loops do.
// REQUIRES: tcl-run
// RUN: tcl-run %S/register-tile-fill.mlir --entry=dw --repeats=1 | FileCheck %s
// RUN: tcl-run %S/register-tile-fill.mlir --entry=mm --repeats=1 | FileCheck %s

// CHECK: check: max relative error {{.*}}: ok
