// tcl-compile --emit=ptx compiles for an NVIDIA GPU: each task a kernel with
// its epilogue fused (a matmul with bias and ReLU, a softmax's row
// reductions and elementwise parts, an NCHW convolution), all in one PTX
// module that ptxas assembles for its architecture (where a CUDA toolkit is
// found; these machines have one even without a GPU).
// RUN: tcl-compile %s --target=nvptx-sm90 --emit=ptx -o %t.sm90.ptx
// RUN: FileCheck %s < %t.sm90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.sm90.ptx -o %t.sm90.cubin %}
// RUN: tcl-compile %s --target=nvptx-sm80 --emit=ptx -o %t.sm80.ptx
// RUN: FileCheck %s --check-prefix=SM80 < %t.sm80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin %}
// RUN: not tcl-compile %s --target=x86-avx512 --emit=ptx 2>&1 | FileCheck %s --check-prefix=CPU
// A shared library for the GPU: generic x86-64 host code that launches the
// kernels through tcl's CUDA runtime, found beside the library first; its C
// API refuses to run where there is no CUDA driver.
// RUN: tcl-compile %s --target=nvptx-sm90 --entry=softmax -o %t.so
// RUN: llvm-readelf -d %t.so | FileCheck %s --check-prefix=LINKED
// RUN: llvm-nm -D %t.so | FileCheck %s --check-prefix=SYMBOLS
// RUN: %if !cuda-driver %{ not tcl-run %s --entry=softmax --target=nvptx-sm90 --library=%t.so 2>&1 | FileCheck %s --check-prefix=NODRIVER %}
// RUN: %if cuda-driver %{ tcl-run %s --entry=softmax --target=nvptx-sm90 --library=%t.so | FileCheck %s --check-prefix=RAN %}
// Tuning measures, which tcl cannot do on a GPU yet: a clear refusal, and no
// database is created.
// RUN: rm -f %t.db && not tcl-compile %s --target=nvptx-sm90 --emit=ptx --tune --tuning-db=%t.db -o %t.tuned.ptx 2>&1 | FileCheck %s --check-prefix=TUNE
// RUN: not ls %t.db

// CHECK: .target sm_90
// The matmul (multiply-adds contracted into FMAs, as nvcc does), its bias
// and ReLU in one kernel (max.NaN.f32 is the ReLU).
// CHECK: .entry mm_bias_relu_kernel(
// CHECK:   fma.rn.f32
// CHECK:   max.NaN.f32
// CHECK: }
// CHECK: .entry softmax_kernel(
// CHECK: .entry conv_nchw_kernel(
// A reduction to a scalar has no parallel loop for blocks: its default
// schedule is empty, and it runs in a kernel of one thread.
// CHECK: .entry sum_all_kernel{{.*}}(
// SM80: .target sm_80
// LINKED: NEEDED{{.*}}libtcl_cuda_runtime.so
// LINKED: RUNPATH{{.*}}$ORIGIN:
// SYMBOLS: U mgpuLaunchKernel
// SYMBOLS: U mgpuModuleLoadJIT
// SYMBOLS: T tcl_model_run
// NODRIVER: cannot run nvptx-sm90 code here: no CUDA driver: cannot load libcuda.so.1
// RAN: check: max relative error {{.*}}: ok
// CPU: tcl-compile: --emit=ptx needs a GPU target; x86-avx512 is a CPU
// TUNE: tcl-compile: cannot tune here: nvptx-sm90 is a GPU platform: tcl does not measure GPU code yet (tcl-compile compiles it; its libraries and tcl-run run it on a CUDA device)

#id2 = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
func.func @mm_bias_relu(%a: tensor<256x128xf32>, %b: tensor<128x96xf32>, %bias: tensor<96xf32>) -> tensor<256x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x96xf32>) -> tensor<256x96xf32>
  %m = linalg.matmul ins(%a, %b : tensor<256x128xf32>, tensor<128x96xf32>) outs(%f : tensor<256x96xf32>) -> tensor<256x96xf32>
  %r = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<256x96xf32>, tensor<96xf32>) outs(%e : tensor<256x96xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %relu = arith.maximumf %s, %zero : f32
    linalg.yield %relu : f32
  } -> tensor<256x96xf32>
  return %r : tensor<256x96xf32>
}

func.func @softmax(%x: tensor<32x1000xf32>) -> tensor<32x1000xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %re = tensor.empty() : tensor<32xf32>
  %mf = linalg.fill ins(%ninf : f32) outs(%re : tensor<32xf32>) -> tensor<32xf32>
  %max = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<32x1000xf32>) outs(%mf : tensor<32xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %m = arith.maximumf %v, %acc : f32
    linalg.yield %m : f32
  } -> tensor<32xf32>
  %e = tensor.empty() : tensor<32x1000xf32>
  %exp = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<32x1000xf32>, tensor<32xf32>) outs(%e : tensor<32x1000xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %d = arith.subf %v, %m : f32
    %ex = math.exp %d : f32
    linalg.yield %ex : f32
  } -> tensor<32x1000xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%re : tensor<32xf32>) -> tensor<32xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<32x1000xf32>) outs(%sf : tensor<32xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %y = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<32x1000xf32>, tensor<32xf32>) outs(%e : tensor<32x1000xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %q = arith.divf %v, %s : f32
    linalg.yield %q : f32
  } -> tensor<32x1000xf32>
  return %y : tensor<32x1000xf32>
}

func.func @conv_nchw(%in: tensor<2x16x18x18xf32>, %w: tensor<32x16x3x3xf32>) -> tensor<2x32x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x32x16x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x32x16x16xf32>) -> tensor<2x32x16x16xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : tensor<2x16x18x18xf32>, tensor<32x16x3x3xf32>) outs(%f : tensor<2x32x16x16xf32>) -> tensor<2x32x16x16xf32>
  return %c : tensor<2x32x16x16xf32>
}

func.func @sum_all(%x: tensor<1000xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
      ins(%x : tensor<1000xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}
