// tcl-extract-tasks: anchors become tasks, their elementwise consumer chains
// their epilogues; identical workloads share a task.
// REQUIRES: tcl-compile
// RUN: tcl-opt %s --tcl-extract-tasks | FileCheck %s
// RUN: tcl-compile %s --dump-tasks | FileCheck %s --check-prefix=DUMP

// CHECK-LABEL: func.func @model
// CHECK: linalg.conv_2d_nchw_fchw {{.*}}tcl.task = "conv_2d_nchw_fchw_0"
// CHECK: linalg.generic {{.*}}tcl.epilogue = "conv_2d_nchw_fchw_0"
// CHECK: linalg.generic {{.*}}tcl.epilogue = "conv_2d_nchw_fchw_0"
// The same convolution with the same epilogue: the same task.
// CHECK: linalg.conv_2d_nchw_fchw {{.*}}tcl.task = "conv_2d_nchw_fchw_0"
// CHECK: linalg.generic {{.*}}tcl.epilogue = "conv_2d_nchw_fchw_0"
// CHECK: linalg.generic {{.*}}tcl.epilogue = "conv_2d_nchw_fchw_0"
// An elementwise op that is not the only user of its input starts a task.
// CHECK: linalg.generic {{.*}}tcl.task = "generic_0"
// CHECK: linalg.matmul {tcl.task = "matmul_0"}
// CHECK-NOT: tcl.epilogue = "matmul_0"

// A residual add continues the chain: it reads the chain's value through an
// identity map, the other operand comes from outside the task.
// CHECK-LABEL: func.func @residual
// CHECK: linalg.matmul {tcl.task = "matmul_1"}
// CHECK: linalg.generic {{.*}}tcl.epilogue = "matmul_1"
// CHECK: linalg.generic {{.*}}tcl.epilogue = "matmul_1"

// DUMP: | task | anchor | weight | epilogue ops | MFLOP | workload key |
// DUMP: | conv_2d_nchw_fchw_0 | linalg.conv_2d_nchw_fchw | 2 | 2 | 0.074 | linalg.conv_2d_nchw_fchw(tensor<1x8x10x10xf32>, tensor<8x8x3x3xf32>, tensor<1x8x8x8xf32>) dilations=dense<1> : tensor<2xi64> strides=dense<1> : tensor<2xi64> |
// DUMP: | generic_0 | linalg.generic | 1 | 0 | 0.001 |
// DUMP: | matmul_0 | linalg.matmul | 1 | 0 | 0.524 |
// DUMP: | matmul_1 | linalg.matmul | 1 | 2 | 0.524 |
// DUMP: 4 tasks, 0.001 GFLOP in all

#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>
func.func @model(%x: tensor<1x8x10x10xf32>, %w: tensor<8x8x3x3xf32>, %bias: tensor<8xf32>,
                 %a: tensor<64x64xf32>)
    -> (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>, tensor<1x8x10x10xf32>, tensor<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x8x10x10xf32>, tensor<8x8x3x3xf32>) outs(%init : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %b0 = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%c0, %bias : tensor<1x8x8x8xf32>, tensor<8xf32>) outs(%e : tensor<1x8x8x8xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x8x8x8xf32>
  %r0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%b0 : tensor<1x8x8x8xf32>) outs(%e : tensor<1x8x8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x8xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x8x10x10xf32>, tensor<8x8x3x3xf32>) outs(%init : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %b1 = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%c1, %bias : tensor<1x8x8x8xf32>, tensor<8xf32>) outs(%e : tensor<1x8x8x8xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x8x8x8xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%b1 : tensor<1x8x8x8xf32>) outs(%e : tensor<1x8x8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x8xf32>
  %neg = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%x : tensor<1x8x10x10xf32>) outs(%x : tensor<1x8x10x10xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  } -> tensor<1x8x10x10xf32>
  %ez = tensor.empty() : tensor<64x64xf32>
  %mm = linalg.matmul ins(%a, %a : tensor<64x64xf32>, tensor<64x64xf32>) outs(%ez : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r0, %r1, %neg, %mm : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>, tensor<1x8x10x10xf32>, tensor<64x64xf32>
}

#id2 = affine_map<(i, j) -> (i, j)>
func.func @residual(%a: tensor<64x64xf32>, %skip: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %ez = tensor.empty() : tensor<64x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%ez : tensor<64x64xf32>) -> tensor<64x64xf32>
  %mm = linalg.matmul ins(%a, %skip : tensor<64x64xf32>, tensor<64x64xf32>) outs(%init : tensor<64x64xf32>) -> tensor<64x64xf32>
  %relu = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
    ins(%mm : tensor<64x64xf32>) outs(%ez : tensor<64x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<64x64xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
    ins(%relu, %skip : tensor<64x64xf32>, tensor<64x64xf32>) outs(%ez : tensor<64x64xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %s = arith.addf %u, %v : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %sum : tensor<64x64xf32>
}
