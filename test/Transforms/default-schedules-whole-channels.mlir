// A convolution with a kernel window whose output channels are more than a
// vector but not whole vectors, at most 4 of them, and whose usual register
// tile would leave a remainder of several pieces, takes all of them in one
// register tile (pickWholeChannelTile): 52 = 16 + 16 + 16 + 4 lanes over 4
// columns, so each broadcast of the input serves every piece.
// pickRegisterTile's 14 x 32 with a 14 x 20 (16 + 4) remainder ran 201
// GFLOP/s against 218-229 on Zen 5 (3x3 52->52 at 28x28, one thread); 44
// channels 172 -> 194, 26 channels 122 -> 153 (with AVX2 76 -> 102).
// REQUIRES: tcl-run
// RUN: tcl-opt %s "--tcl-default-schedules=target=x86-avx512" | FileCheck %s
// RUN: tcl-opt %s "--tcl-default-schedules=target=x86-avx512 num-threads=2" | FileCheck %s --check-prefix=TWO
// RUN: tcl-opt %s "--tcl-default-schedules=target=x86-avx2" | FileCheck %s --check-prefix=AVX2
// RUN: tcl-run %s --entry=channels_52 --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tcl-run %s --entry=channels_44 --num-threads=2 --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tcl-run %s --entry=channels_26 --target=x86-avx2 --repeats=1 | FileCheck %s --check-prefix=EXEC
// EXEC-NOT: WRONG
// EXEC: check: max relative error {{.*}}: ok

// CHECK-LABEL: tcl.sched.schedule task "default_0" {{.*}} loops [1 parallel, 28 parallel, 28 parallel, 52 parallel, 3 reduction, 3 reduction, 52 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 1, 4, 0, 1, 1, 1]
// TWO-LABEL: tcl.sched.schedule task "default_0"
//       TWO:   tcl.sched.tile [0, 1, 4, 0, 1, 1, 1]
// 44 = 32 + 8 + 4 lanes over 4 columns.
// CHECK-LABEL: tcl.sched.schedule task "default_1" {{.*}} loops [1 parallel, 28 parallel, 28 parallel, 44 parallel, 3 reduction, 3 reduction, 44 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 1, 4, 0, 1, 1, 1]
// Whole vectors (64 channels), a 1x1 kernel and 20 channels, whose usual
// tile leaves one piece (16 + a peeled 4; 158 GFLOP/s against 137 in one
// tile of 20), keep their usual tiles.
// CHECK-LABEL: tcl.sched.schedule task "default_2" {{.*}} loops [1 parallel, 28 parallel, 28 parallel, 64 parallel, 3 reduction, 3 reduction, 64 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 1, 14, 32, 1, 1, 1]
// CHECK-LABEL: tcl.sched.schedule task "default_3" {{.*}} loops [1 parallel, 28 parallel, 28 parallel, 52 parallel, 1 reduction, 1 reduction, 52 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 1, 14, 32, 0, 0, 1]
// CHECK-LABEL: tcl.sched.schedule task "default_4" {{.*}} loops [1 parallel, 28 parallel, 28 parallel, 20 parallel, 3 reduction, 3 reduction, 20 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 1, 14, 16, 1, 1, 1]
// 26 = 16 + 8 + 2 lanes (7 columns with AVX-512, 2 columns of 4 vectors with AVX2).
// CHECK-LABEL: tcl.sched.schedule task "default_5" {{.*}} 26 parallel
//  CHECK-NEXT:   tcl.sched.tile [0, 1, 7, 0, 1, 1, 1]
// With AVX2's 8 lanes 52 channels are more than 4 vectors: as before.
// AVX2-LABEL: tcl.sched.schedule task "default_0"
//  AVX2-NEXT:   tcl.sched.tile [0, 1, 10, 8, 1, 1, 1]
// AVX2-LABEL: tcl.sched.schedule task "default_5"
//  AVX2-NEXT:   tcl.sched.tile [0, 1, 2, 0, 1, 1, 1]

func.func @channels_52(%x: tensor<1x30x30x52xf32>, %w: tensor<3x3x52x52xf32>, %o: tensor<1x28x28x52xf32>) -> tensor<1x28x28x52xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x30x30x52xf32>, tensor<3x3x52x52xf32>) outs(%o : tensor<1x28x28x52xf32>) -> tensor<1x28x28x52xf32>
  return %0 : tensor<1x28x28x52xf32>
}

func.func @channels_44(%x: tensor<1x30x30x44xf32>, %w: tensor<3x3x44x44xf32>, %o: tensor<1x28x28x44xf32>) -> tensor<1x28x28x44xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x30x30x44xf32>, tensor<3x3x44x44xf32>) outs(%o : tensor<1x28x28x44xf32>) -> tensor<1x28x28x44xf32>
  return %0 : tensor<1x28x28x44xf32>
}

func.func @channels_64(%x: tensor<1x30x30x64xf32>, %w: tensor<3x3x64x64xf32>, %o: tensor<1x28x28x64xf32>) -> tensor<1x28x28x64xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x30x30x64xf32>, tensor<3x3x64x64xf32>) outs(%o : tensor<1x28x28x64xf32>) -> tensor<1x28x28x64xf32>
  return %0 : tensor<1x28x28x64xf32>
}

func.func @pointwise_52(%x: tensor<1x28x28x52xf32>, %w: tensor<1x1x52x52xf32>, %o: tensor<1x28x28x52xf32>) -> tensor<1x28x28x52xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x28x28x52xf32>, tensor<1x1x52x52xf32>) outs(%o : tensor<1x28x28x52xf32>) -> tensor<1x28x28x52xf32>
  return %0 : tensor<1x28x28x52xf32>
}

func.func @channels_20(%x: tensor<1x30x30x20xf32>, %w: tensor<3x3x20x20xf32>, %o: tensor<1x28x28x20xf32>) -> tensor<1x28x28x20xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x30x30x20xf32>, tensor<3x3x20x20xf32>) outs(%o : tensor<1x28x28x20xf32>) -> tensor<1x28x28x20xf32>
  return %0 : tensor<1x28x28x20xf32>
}

func.func @channels_26(%x: tensor<1x30x30x26xf32>, %w: tensor<3x3x26x26xf32>, %o: tensor<1x28x28x26xf32>) -> tensor<1x28x28x26xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x30x30x26xf32>, tensor<3x3x26x26xf32>) outs(%o : tensor<1x28x28x26xf32>) -> tensor<1x28x28x26xf32>
  return %0 : tensor<1x28x28x26xf32>
}
