// tcl-compile applies the schedules of a .mlir file for one target.
// RUN: tcl-compile %s --emit=mlir --target=x86-avx512 | FileCheck %s
// RUN: tcl-compile %s --emit=mlir -o %t.mlir && FileCheck %s < %t.mlir
// RUN: not tcl-compile %s --emit=mlir --target=x86-avx2 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: not tcl-compile %s --target=x86-avx1024 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tcl-compile %s.missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not tcl-compile %s --emit=so -o %t.so 2>&1 | FileCheck %s --check-prefix=NOCODEGEN

// CHECK-LABEL: func.func @mm
//       CHECK:   scf.forall
//       CHECK:     scf.for
//   CHECK-NOT: tcl.sched

// MISMATCH: error: schedule for task 'mm' targets x86-avx512 but tcl-compile was asked for --target=x86-avx2
// UNKNOWN: tcl-compile: unknown target 'x86-avx1024'; known targets: x86-avx512 x86-avx2 x86-sse42 nvptx-sm90
// MISSING: tcl-compile: cannot open input file
// NOCODEGEN: --emit=llvm|obj|so needs the x86 code generation pipeline

func.func @mm(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [64 parallel, 64 parallel, 64 reduction] {
  tcl.sched.tile [32, 32, 0]
  tcl.sched.parallelize
  tcl.sched.tile [8, 16, 1]
}
