// tcl-compile applies the schedules of a .mlir file for one target.
// RUN: tcl-compile %s --emit=mlir --target=x86-avx512 | FileCheck %s
// RUN: tcl-compile %s --emit=mlir -o %t.mlir && FileCheck %s < %t.mlir
// RUN: not tcl-compile %s --emit=mlir --target=x86-avx2 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: not tcl-compile %s --target=x86-avx1024 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tcl-compile %s.missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: tcl-compile %s --emit=llvm -o - | FileCheck %s --check-prefix=LLVM
// RUN: tcl-compile %s --emit=obj -o %t.o && llvm-nm %t.o | FileCheck %s --check-prefix=SYMBOLS
// RUN: tcl-compile %s --emit=so -o %t.so && llvm-nm -D --defined-only %t.so | FileCheck %s --check-prefix=SYMBOLS
// RUN: tcl-compile %s --emit=so --num-threads=2 -o %t2.so && llvm-readelf -d %t2.so | FileCheck %s --check-prefix=OPENMP
// RUN: llvm-readelf -d %t.so | FileCheck %s --check-prefix=NOOPENMP
// RUN: not tcl-compile %s --emit=obj 2>&1 | FileCheck %s --check-prefix=NOOUTPUT
// RUN: not tcl-compile %s --emit=so --target=nvptx-sm90 -o %t.gpu 2>&1 | FileCheck %s --check-prefix=GPU

// CHECK-LABEL: func.func @mm
//       CHECK:   scf.forall
//       CHECK:     scf.for
//   CHECK-NOT: tcl.sched

// MISMATCH: error: schedule for task 'mm' targets x86-avx512 but tcl-compile was asked for --target=x86-avx2
// UNKNOWN: tcl-compile: unknown target 'x86-avx1024'; known targets: x86-avx512 x86-avx2 x86-sse42 nvptx-sm90 nvptx-sm80
// MISSING: tcl-compile: cannot open input file

// The loop nest of task mm is a function of its own, named after the task.
// LLVM: define internal fastcc void @mm.mm(
// LLVM: fmul
// LLVM: define void @mm(
// LLVM: call fastcc void @mm.mm(
// The C interface: inputs a, b, c and the result as an out-parameter.
// LLVM: define void @_mlir_ciface_mm(ptr {{.*}}, ptr {{.*}}, ptr {{.*}}, ptr {{.*}})
// LLVM: attributes #{{[0-9]+}} = {{{.*}}"min-legal-vector-width"="512" "prefer-vector-width"="512" "target-cpu"="x86-64-v4"
// SYMBOLS: T _mlir_ciface_mm
// SYMBOLS: T mm
// OPENMP: NEEDED{{.*}}libomp.so
// NOOPENMP-NOT: libomp
// NOOUTPUT: tcl-compile: --emit=obj|so needs an output file (-o)
// GPU: error: schedule for task 'mm' targets x86-avx512 but tcl-compile was asked for --target=nvptx-sm90

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
