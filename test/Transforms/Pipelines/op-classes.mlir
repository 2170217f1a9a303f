// Every op class lowers, with its default schedule, to nothing but the LLVM
// (and OpenMP) dialects on every CPU platform, with 1 and 2 threads, and to
// a kernel of its own in PTX on every GPU platform (exp from libdevice where
// a CUDA toolkit is found; ptxas assembles the PTX in
// test/tcl-compile/gpu-ptx.mlir).
// RUN: tcl-opt %s --tcl-lower-to-llvm="target=x86-avx512" | FileCheck %s
// RUN: tcl-opt %s --tcl-lower-to-llvm="target=x86-avx2" | FileCheck %s
// RUN: tcl-opt %s --tcl-lower-to-llvm="target=x86-sse42" | FileCheck %s
// RUN: tcl-opt %s --tcl-lower-to-llvm="target=x86-avx512 num-threads=2" | FileCheck %s
// RUN: tcl-opt %s --tcl-lower-to-llvm="target=x86-sse42 num-threads=2" | FileCheck %s
// Emulated (tcl-emulate-gpu-loops), a GPU target's schedules lower to the
// host's LLVM dialect.
// RUN: tcl-opt %s --tcl-lower-to-llvm="target=nvptx-sm90 emulate-gpu=1" | FileCheck %s
// RUN: tcl-opt %s --tcl-lower-to-nvvm="target=nvptx-sm90" | FileCheck %s --check-prefix=GPU
// RUN: tcl-opt %s --tcl-lower-to-nvvm="target=nvptx-sm80" | FileCheck %s --check-prefix=GPU

// CHECK-NOT: {{linalg|vector|scf|memref|tensor|bufferization|affine|tcl}}.
// CHECK: llvm.func @_mlir_ciface_matmul(
// CHECK: llvm.func @_mlir_ciface_batch_matmul(
// CHECK: llvm.func @_mlir_ciface_batch_matmul_heads(
// CHECK: llvm.func @_mlir_ciface_conv(
// CHECK: llvm.func @_mlir_ciface_depthwise(
// CHECK: llvm.func @_mlir_ciface_pool(
// CHECK: llvm.func @_mlir_ciface_softmax_sum(
// CHECK: llvm.func @_mlir_ciface_elementwise(
// CHECK-NOT: {{linalg|vector|scf|memref|tensor|bufferization|affine|tcl}}.

// GPU-NOT: {{linalg|vector|scf|memref|tensor|bufferization|affine|tcl}}.
// GPU: llvm.func @matmul(
// GPU:   gpu.launch_func {{.*}}@tcl_kernels::@matmul_kernel
// GPU: llvm.func @batch_matmul(
// GPU:   gpu.launch_func {{.*}}@tcl_kernels::@batch_matmul_kernel
// GPU: llvm.func @batch_matmul_heads(
// GPU:   gpu.launch_func {{.*}}@tcl_kernels::@batch_matmul_heads_kernel
// GPU: llvm.func @conv(
// GPU:   gpu.launch_func {{.*}}@tcl_kernels::@conv_kernel
// GPU: llvm.func @depthwise(
// GPU:   gpu.launch_func {{.*}}@tcl_kernels::@depthwise_kernel
// GPU: llvm.func @pool(
// GPU:   gpu.launch_func {{.*}}@tcl_kernels::@pool_kernel
// GPU: llvm.func @softmax_sum(
// GPU:   gpu.launch_func {{.*}}@tcl_kernels::@softmax_sum_kernel
// GPU: llvm.func @elementwise(
// GPU:   gpu.launch_func {{.*}}@tcl_kernels::@elementwise_kernel
// GPU-NOT: {{linalg|vector|scf|memref|tensor|bufferization|affine|tcl}}.
// GPU: gpu.binary @tcl_kernels
// GPU-SAME: .entry matmul_kernel(
// GPU-SAME: .entry batch_matmul_kernel(
// GPU-SAME: .entry batch_matmul_heads_kernel(
// GPU-SAME: .entry conv_kernel(
// GPU-SAME: .entry depthwise_kernel(
// GPU-SAME: .entry pool_kernel(
// GPU-SAME: .entry softmax_sum_kernel(
// GPU-SAME: .entry elementwise_kernel(

func.func @matmul(%a: tensor<64x48xf32>, %b: tensor<48x96xf32>, %c: tensor<64x96xf32>) -> tensor<64x96xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x48xf32>, tensor<48x96xf32>) outs(%c : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %0 : tensor<64x96xf32>
}
func.func @batch_matmul(%a: tensor<2x16x24xf32>, %b: tensor<2x24x32xf32>, %c: tensor<2x16x32xf32>) -> tensor<2x16x32xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<2x16x24xf32>, tensor<2x24x32xf32>) outs(%c : tensor<2x16x32xf32>) -> tensor<2x16x32xf32>
  return %0 : tensor<2x16x32xf32>
}
// tcl's batch matmul that reads [S, H, D] queries and writes [S, H, D].
func.func @batch_matmul_heads(%a: tensor<16x2x24xf32>, %b: tensor<2x24x32xf32>, %c: tensor<16x2x32xf32>) -> tensor<16x2x32xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (m, b, k)>, affine_map<(b, m, n, k) -> (b, k, n)>, affine_map<(b, m, n, k) -> (m, b, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
    ins(%a, %b : tensor<16x2x24xf32>, tensor<2x24x32xf32>) outs(%c : tensor<16x2x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x2x32xf32>
  return %0 : tensor<16x2x32xf32>
}
func.func @conv(%in: tensor<1x10x10x8xf32>, %w: tensor<3x3x8x16xf32>, %out: tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x10x10x8xf32>, tensor<3x3x8x16xf32>) outs(%out : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  return %0 : tensor<1x8x8x16xf32>
}
func.func @depthwise(%in: tensor<1x10x10x16xf32>, %w: tensor<3x3x16xf32>, %out: tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32> {
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x10x10x16xf32>, tensor<3x3x16xf32>) outs(%out : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  return %0 : tensor<1x8x8x16xf32>
}
func.func @pool(%in: tensor<1x8x8x16xf32>, %win: tensor<2x2xf32>, %out: tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> {
  %0 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%in, %win : tensor<1x8x8x16xf32>, tensor<2x2xf32>) outs(%out : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  return %0 : tensor<1x4x4x16xf32>
}
func.func @softmax_sum(%x: tensor<8x64xf32>, %o: tensor<8xf32>) -> tensor<8xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
    ins(%x : tensor<8x64xf32>) outs(%o : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %e = math.exp %a : f32
    %s = arith.addf %e, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
func.func @elementwise(%x: tensor<8x64xf32>, %y: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = linalg.add ins(%x, %y : tensor<8x64xf32>, tensor<8x64xf32>) outs(%x : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}
