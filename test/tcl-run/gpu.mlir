// tcl-run runs a function on an NVIDIA GPU (--target=nvptx-sm90): its
// default GPU schedules, the kernels' PTX loaded by tcl's CUDA runtime, the
// buffers copied to the device and back, the result compared with plain
// loops on this host's CPU. Without a CUDA driver it says so and fails.
// RUN: %if cuda-driver %{ tcl-run %s --entry=mm_bias --target=nvptx-sm90 --repeats=2 | FileCheck %s %}
// RUN: %if !cuda-driver %{ not tcl-run %s --entry=mm_bias --target=nvptx-sm90 2>&1 | FileCheck %s --check-prefix=NODRIVER %}

// CHECK: check: max relative error {{.*}}: ok
// NODRIVER: tcl-run: cannot run nvptx-sm90 code here: no CUDA driver: cannot load libcuda.so.1

func.func @mm_bias(%a: tensor<96x64xf32>, %b: tensor<64x80xf32>, %bias: tensor<80xf32>) -> tensor<96x80xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<96x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<96x80xf32>) -> tensor<96x80xf32>
  %m = linalg.matmul ins(%a, %b : tensor<96x64xf32>, tensor<64x80xf32>) outs(%f : tensor<96x80xf32>) -> tensor<96x80xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<96x80xf32>, tensor<80xf32>) outs(%e : tensor<96x80xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<96x80xf32>
  return %r : tensor<96x80xf32>
}
