// A tile whose vector dimension (the output's innermost loop) is not a
// power of two is split into power-of-two pieces before it is vectorized
// (tcl.split_vector_remainders): 56 columns in register tiles of 32 leave a
// peeled remainder of 24 = 16 + 8 (one reduction step runs both), and a
// convolution's 56 channels split into 32 + 16 + 8. No vector of 24, 48
// or 56 lanes is left for LLVM to widen and shuffle.
// RUN: tcl-opt %s --tcl-apply-schedule | FileCheck %s
// RUN: tcl-opt %s --tcl-apply-schedule | FileCheck %s --check-prefix=NONE
// NONE-NOT: vector<{{[0-9x]*}}x24xf32>
// NONE-NOT: vector<{{[0-9x]*}}x48xf32>
// NONE-NOT: vector<{{[0-9x]*}}x56xf32>

// CHECK-LABEL: func.func @matmul_remainder
//       CHECK:   scf.for
//       CHECK:     vector.contract {{.*}} vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
//       CHECK:   scf.for
//   CHECK-NOT:   scf.for
//       CHECK:     vector.contract {{.*}} vector<8x1xf32>, vector<1x16xf32> into vector<8x16xf32>
//   CHECK-NOT:   scf.for
//       CHECK:     vector.contract {{.*}} vector<8x1xf32>, vector<1x8xf32> into vector<8x8xf32>
//       CHECK:   return
func.func @matmul_remainder(%a: tensor<8x4xf32>, %b: tensor<4x56xf32>, %c: tensor<8x56xf32>) -> tensor<8x56xf32> {
  %0 = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<8x4xf32>, tensor<4x56xf32>) outs(%c : tensor<8x56xf32>) -> tensor<8x56xf32>
  return %0 : tensor<8x56xf32>
}
tcl.sched.schedule task "mm" anchor "linalg.matmul" target "x86-avx512"
    loops [8 parallel, 56 parallel, 4 reduction] {
  tcl.sched.tile [8, 32, 1]
  tcl.sched.vectorize
}

// CHECK-LABEL: func.func @conv_channels
//       CHECK:   scf.for
//       CHECK:     scf.for
//   CHECK-NOT:     scf.for
//       CHECK:       vector.contract {{.*}} into vector<1x4x32xf32>
//   CHECK-NOT:     scf.for
//       CHECK:       vector.contract {{.*}} into vector<1x4x16xf32>
//   CHECK-NOT:     scf.for
//       CHECK:       vector.contract {{.*}} into vector<1x4x8xf32>
//       CHECK:   return
func.func @conv_channels(%x: tensor<1x4x4x8xf32>, %w: tensor<1x1x8x56xf32>, %o: tensor<1x4x4x56xf32>) -> tensor<1x4x4x56xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {tcl.task = "conv", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x4x8xf32>, tensor<1x1x8x56xf32>) outs(%o : tensor<1x4x4x56xf32>) -> tensor<1x4x4x56xf32>
  return %0 : tensor<1x4x4x56xf32>
}
tcl.sched.schedule task "conv" anchor "linalg.conv_2d_nhwc_hwcf" target "x86-avx512"
    loops [1 parallel, 4 parallel, 4 parallel, 56 parallel, 1 reduction, 1 reduction, 8 reduction] {
  tcl.sched.tile [0, 1, 0, 0, 1, 1, 1]
  tcl.sched.decompose
  tcl.sched.vectorize
}
