// A matmul's default GPU schedule keeps each thread's 8 x 8 outputs in
// registers across k: per step a column of A and a row of B (the row in two
// 128-bit loads: the kernels' buffers are known to be 256-byte aligned),
// then 64 FMAs; the epilogue (bias and an erf GELU) is vectorized on the
// same register tile, its erf lowered lane by lane. Constants stay inside
// the kernels (as kernel arguments, LLVM would know no trip count, stride
// or alignment): every argument is a buffer's pointer or a size.
// RUN: tcl-compile %s --target=nvptx-sm90 --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}

// CHECK-LABEL: .entry mm_gelu_kernel(
// CHECK-NOT: .param .f32
// CHECK-NOT: .param .align
// CHECK: )
// CHECK: ld.global.v4.f32
// CHECK-COUNT-64: fma.rn.f32
// CHECK: st.global
// CHECK-NOT: call
// CHECK: }
// CHECK-LABEL: .entry bmm_kernel(
// CHECK-NOT: .param .f32
// CHECK-NOT: .param .align
// CHECK: )
// CHECK: ld.global.v4.f32
// CHECK-COUNT-64: fma.rn.f32

#id2 = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @mm_gelu(%a: tensor<1024x256xf32>, %b: tensor<256x1024xf32>, %bias: tensor<1024xf32>) -> tensor<1024x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %rsqrt2 = arith.constant 0.70710678 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %m = linalg.matmul ins(%a, %b : tensor<1024x256xf32>, tensor<256x1024xf32>) outs(%f : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %r = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<1024x1024xf32>, tensor<1024xf32>) outs(%e : tensor<1024x1024xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %scaled = arith.mulf %s, %rsqrt2 : f32
    %erf = math.erf %scaled : f32
    %erf1 = arith.addf %erf, %one : f32
    %hs = arith.mulf %s, %half : f32
    %gelu = arith.mulf %hs, %erf1 : f32
    linalg.yield %gelu : f32
  } -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}

func.func @bmm(%a: tensor<8x512x64xf32>, %b: tensor<8x64x512xf32>) -> tensor<8x512x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x512x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x512x512xf32>) -> tensor<8x512x512xf32>
  %m = linalg.batch_matmul ins(%a, %b : tensor<8x512x64xf32>, tensor<8x64x512xf32>) outs(%f : tensor<8x512x512xf32>) -> tensor<8x512x512xf32>
  return %m : tensor<8x512x512xf32>
}
