// A 256x256x256 f32 matmul with bias + ReLU, and a hand schedule for it:
// cache tiles fused with the epilogue and run in parallel, 4x32 register
// tiles vectorized with the accumulator kept in registers over k (16 ymm
// registers with AVX2, which every x86-64 host of the last decade has; the
// code also runs on AVX-512 hosts).
func.func @matmul_bias_relu(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>,
                            %bias: tensor<256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<256x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<256x256xf32>) -> tensor<256x256xf32>
  %mm = linalg.matmul {tcl.task = "matmul_256"}
      ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>)
      outs(%init : tensor<256x256xf32>) -> tensor<256x256xf32>
  %out = linalg.generic {tcl.epilogue = "matmul_256",
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<256x256xf32>, tensor<256xf32>)
      outs(%empty : tensor<256x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %sum = arith.addf %x, %y : f32
    %relu = arith.maximumf %sum, %zero : f32
    linalg.yield %relu : f32
  } -> tensor<256x256xf32>
  return %out : tensor<256x256xf32>
}

tcl.sched.schedule task "matmul_256" anchor "linalg.matmul" target "x86-avx2"
    loops [256 parallel, 256 parallel, 256 reduction] {
  tcl.sched.tile [64, 128, 0]
  tcl.sched.parallelize
  tcl.sched.fuse_epilogue
  tcl.sched.tile [4, 32, 1]
  tcl.sched.vectorize
  tcl.sched.hoist_accumulators
  tcl.sched.unroll level 1 dim 2 by 4
}
