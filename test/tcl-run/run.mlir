// End to end: a scheduled kernel and a default-scheduled one, JIT-compiled
// and through tcl-compile's shared library, each checked against plain loops.
// The tools compile for the schedules' platform (x86-avx2, which the hosts of
// CI have) when --target is not given.
// RUN: tcl-run %s --entry=mm_bias_relu --repeats=2 | FileCheck %s --check-prefix=JIT
// RUN: tcl-run %s --entry=mm_bias_relu --repeats=2 --num-threads=2 | FileCheck %s --check-prefix=JIT2
// RUN: tcl-compile %s -o %t.so
// RUN: tcl-run %s --entry=mm_bias_relu --repeats=2 --library=%t.so | FileCheck %s --check-prefix=AOT
// RUN: tcl-run %s --entry=softmax_rows --repeats=2 --target=x86-sse42 | FileCheck %s --check-prefix=SOFTMAX
// RUN: not tcl-run %s --entry=missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not tcl-run %s --entry=mm_bias_relu --library=%t.missing.so 2>&1 | FileCheck %s --check-prefix=NOLIB
// Code the host cannot execute is refused, JIT-compiled or from a library
// (TCL_HOST_ISA stands in for a CPU without AVX2).
// RUN: not env TCL_HOST_ISA=x86-sse42 tcl-run %s --entry=mm_bias_relu 2>&1 | FileCheck %s --check-prefix=NOTHERE
// RUN: not env TCL_HOST_ISA=x86-sse42 tcl-run %s --entry=mm_bias_relu --library=%t.so 2>&1 | FileCheck %s --check-prefix=NOTHERE-SO

// JIT: kernel @mm_bias_relu (JIT), x86-avx2, 1 thread(s)
// JIT-NEXT: check: max relative error {{.*}} against plain loops: ok
// JIT2: kernel @mm_bias_relu (JIT), x86-avx2, 2 thread(s)
// JIT2-NEXT: check: max relative error {{.*}} against plain loops: ok
// AOT: kernel @mm_bias_relu (shared library {{.*}}.so), x86-avx2, 1 thread(s)
// AOT-NEXT: check: max relative error {{.*}} against plain loops: ok
// SOFTMAX: kernel @softmax_rows (JIT), x86-sse42, 1 thread(s)
// SOFTMAX-NEXT: check: max relative error {{.*}} against plain loops: ok
// MISSING: tcl-run: no function @missing
// NOLIB: tcl-run: cannot load
// NOTHERE: tcl-run: code for platform 'x86-avx2' cannot run on this host: TCL_HOST_ISA=x86-sse42 limits this host to that platform's ISA (it runs x86-sse42)
// NOTHERE-SO: tcl-run: {{.*}}.so: code for platform 'x86-avx2' cannot run on this host

func.func @mm_bias_relu(%a: tensor<72x64xf32>, %b: tensor<64x96xf32>, %bias: tensor<96xf32>) -> tensor<72x96xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<72x96xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<72x96xf32>) -> tensor<72x96xf32>
  %mm = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<72x64xf32>, tensor<64x96xf32>) outs(%init : tensor<72x96xf32>) -> tensor<72x96xf32>
  %out = linalg.generic {tcl.epilogue = "mm",
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<72x96xf32>, tensor<96xf32>) outs(%empty : tensor<72x96xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<72x96xf32>
  return %out : tensor<72x96xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx2"
    loops [72 parallel, 96 parallel, 64 reduction] {
  tcl.sched.tile [24, 48, 0]
  tcl.sched.parallelize
  tcl.sched.fuse_epilogue
  tcl.sched.tile [8, 16, 1]
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
}

// Softmax over rows, as an importer would produce it: max, exp-sum, divide.
func.func @softmax_rows(%x: tensor<16x100xf32>) -> tensor<16x100xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %rows = tensor.empty() : tensor<16xf32>
  %full = tensor.empty() : tensor<16x100xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%rows : tensor<16xf32>) -> tensor<16xf32>
  %max = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x100xf32>) outs(%minit : tensor<16xf32>) {
  ^bb0(%v: f32, %m: f32):
    %r = arith.maximumf %v, %m : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%rows : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x, %max : tensor<16x100xf32>, tensor<16xf32>) outs(%sinit : tensor<16xf32>) {
  ^bb0(%v: f32, %m: f32, %s: f32):
    %d = arith.subf %v, %m : f32
    %e = math.exp %d : f32
    %r = arith.addf %e, %s : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max, %sum : tensor<16x100xf32>, tensor<16xf32>, tensor<16xf32>) outs(%full : tensor<16x100xf32>) {
  ^bb0(%v: f32, %m: f32, %s: f32, %o: f32):
    %d = arith.subf %v, %m : f32
    %e = math.exp %d : f32
    %r = arith.divf %e, %s : f32
    linalg.yield %r : f32
  } -> tensor<16x100xf32>
  return %y : tensor<16x100xf32>
}
