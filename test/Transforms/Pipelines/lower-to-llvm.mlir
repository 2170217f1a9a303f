// tcl-lower-to-llvm takes scheduled linalg on tensors to the LLVM dialect:
// register tiles become FMAs on whole vectors, parallel tile levels OpenMP
// regions, and every function gets the platform's target attributes and a
// C interface wrapper whose last argument is the result buffer.
// RUN: tcl-opt %s "--tcl-lower-to-llvm=target=x86-avx512" | FileCheck %s
// RUN: tcl-opt %s "--tcl-lower-to-llvm=target=x86-avx512 num-threads=2" | FileCheck %s --check-prefix=THREADS
// RUN: tcl-opt %s "--tcl-lower-to-llvm=target=x86-avx2" | FileCheck %s --check-prefix=AVX2
// By default the target is the host's: a host limited to AVX2 gets AVX2 code.
// RUN: env TCL_HOST_ISA=x86-avx2 tcl-opt %s --tcl-lower-to-llvm | FileCheck %s --check-prefix=AVX2
// RUN: not tcl-opt %s "--tcl-lower-to-llvm=target=nvptx-sm90" 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: not tcl-opt %s "--tcl-lower-to-llvm=target=x86-avx1024" 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// Each loop nest is a function of its own (tcl-outline-loop-nests): the copy
// of %c into the result, then the matmul.
// CHECK-LABEL: llvm.func internal @mm.nest0(
//  CHECK-SAME:   no_inline
// The register tile prefetches the next tile's accumulators for writing
// (tcl-prefetch-next-tiles), then runs its FMAs.
// CHECK-LABEL: llvm.func internal @mm.mm(
//  CHECK-SAME:   no_inline
//       CHECK:   "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 3 : i32, rw = 1 : i32}>
//       CHECK:   llvm.intr.fmuladd({{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
//   CHECK-NOT:   {{linalg|vector|scf|memref|tensor|bufferization|affine}}.
// CHECK-LABEL: llvm.func @mm(
//       CHECK:   llvm.call @mm.nest0(
//       CHECK:   llvm.call @mm.mm(
//   CHECK-NOT:   {{linalg|vector|scf|memref|tensor|bufferization|affine}}.
//       CHECK: llvm.func @_mlir_ciface_mm(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
//  CHECK-SAME:   passthrough = {{\[\["prefer-vector-width", "512"\], \["min-legal-vector-width", "512"\]\]}}
//  CHECK-SAME:   target_cpu = "x86-64-v4"

// THREADS: omp.parallel num_threads(
// THREADS:   omp.wsloop

// AVX2: passthrough = {{\[\["prefer-vector-width", "256"\], \["min-legal-vector-width", "256"\]\]}}
// AVX2-SAME: target_cpu = "x86-64-v3"

// GPU: tcl-lower-to-llvm: 'nvptx-sm90' is a GPU target; tcl-lower-to-nvvm lowers for GPUs

func.func @mm(%a: tensor<128x64xf32>, %b: tensor<64x128xf32>, %c: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %0 = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<128x64xf32>, tensor<64x128xf32>) outs(%c : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %0 : tensor<128x128xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [128 parallel, 128 parallel, 64 reduction] {
  tcl.sched.tile [64, 128, 0]
  tcl.sched.parallelize
  tcl.sched.tile [8, 32, 1]
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}

// UNKNOWN: tcl-lower-to-llvm: unknown target 'x86-avx1024' (known: x86-avx512, x86-avx2, x86-sse42, nvptx-sm90, nvptx-sm80)
