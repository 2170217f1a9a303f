// tcl-run --emulate-gpu runs a GPU target's schedules on this host's CPU
// (each block and thread in turn, tcl-emulate-gpu-loops): the default GPU
// schedule of every op class computes what plain loops compute, on a
// machine without a GPU. It needs a GPU target and the JIT.
// RUN: tcl-run %S/../Transforms/Pipelines/op-classes.mlir --entry=matmul --target=nvptx-sm90 --emulate-gpu --repeats=1 | FileCheck %s
// RUN: tcl-run %S/../Transforms/Pipelines/op-classes.mlir --entry=batch_matmul --target=nvptx-sm90 --emulate-gpu --repeats=1 | FileCheck %s
// RUN: tcl-run %S/../Transforms/Pipelines/op-classes.mlir --entry=batch_matmul_heads --target=nvptx-sm90 --emulate-gpu --repeats=1 | FileCheck %s
// RUN: tcl-run %S/../Transforms/Pipelines/op-classes.mlir --entry=conv --target=nvptx-sm90 --emulate-gpu --repeats=1 | FileCheck %s
// RUN: tcl-run %S/../Transforms/Pipelines/op-classes.mlir --entry=depthwise --target=nvptx-sm90 --emulate-gpu --repeats=1 | FileCheck %s
// RUN: tcl-run %S/../Transforms/Pipelines/op-classes.mlir --entry=pool --target=nvptx-sm90 --emulate-gpu --repeats=1 | FileCheck %s
// RUN: tcl-run %S/../Transforms/Pipelines/op-classes.mlir --entry=softmax_sum --target=nvptx-sm80 --emulate-gpu --repeats=1 | FileCheck %s --check-prefix=SM80
// RUN: tcl-run %S/../Transforms/Pipelines/op-classes.mlir --entry=elementwise --target=nvptx-sm90 --emulate-gpu --repeats=1 | FileCheck %s
// The register-tiled matmuls with a fused GELU, and a batch matmul.
// RUN: tcl-run %S/../tcl-compile/gpu-matmul-registers.mlir --entry=mm_gelu --target=nvptx-sm90 --emulate-gpu --repeats=1 | FileCheck %s
// RUN: tcl-run %S/../tcl-compile/gpu-matmul-registers.mlir --entry=bmm --target=nvptx-sm90 --emulate-gpu --repeats=1 | FileCheck %s
// RUN: not tcl-run %S/../Transforms/Pipelines/op-classes.mlir --entry=matmul --target=x86-avx2 --emulate-gpu 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not tcl-run %S/../Transforms/Pipelines/op-classes.mlir --entry=matmul --target=nvptx-sm90 --emulate-gpu --library=%t.so 2>&1 | FileCheck %s --check-prefix=LIBRARY

// CHECK: nvptx-sm90 emulated on this host, 1 thread(s)
// CHECK-NEXT: check: max relative error {{.*}} against plain loops: ok
// SM80: nvptx-sm80 emulated on this host, 1 thread(s)
// SM80-NEXT: check: max relative error {{.*}} against plain loops: ok
// CPU: tcl-run: --emulate-gpu runs a GPU target's schedules on this host; x86-avx2 is not a GPU target
// LIBRARY: tcl-run: --emulate-gpu compiles the input with the JIT; a --library's code is compiled already
