// A convolution whose weights do not stay in the L2 cache (over 1 MB) while
// its input does (at most 1 MB) sweeps the input once per band of output
// channels instead of the weights once per band of rows: with one thread,
// a band of channels whose weights fit half of L2 (dividing the channels:
// a fused epilogue's level) takes the rows' band's place; with two, the
// threads split the channels where that balances as well as the rows (each
// reads its share of the weights); then a level of the register tile's
// channels comes before the rows. SqueezeNet's 1x1 512->1000 at 13x13 ran
// 1.9x faster with one thread and 2.1x with two, ResNet-18's 3x3 256->256 at
// 14x14 1.2x with one (Intel Xeon).
// RUN: tcl-opt %s "--tcl-default-schedules=target=x86-avx512" | FileCheck %s
// RUN: tcl-opt %s "--tcl-default-schedules=target=x86-avx512 num-threads=2" | FileCheck %s --check-prefix=TWO
// REQUIRES: tcl-run
// RUN: tcl-run %s --entry=classifier --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tcl-run %s --entry=classifier --num-threads=2 --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tcl-run %s --entry=conv14 --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tcl-run %s --entry=conv14 --num-threads=2 --repeats=1 | FileCheck %s --check-prefix=EXEC
// EXEC-NOT: WRONG
// EXEC: check: max relative error {{.*}}: ok

// 1000 channels (2 MB of weights, 512 x 2 KB): bands of 200 (6 x 32 + 8),
// register tiles of 32 channels over the 13 rows.
// CHECK-LABEL: tcl.sched.schedule task "classifier" {{.*}} loops [1 parallel, 13 parallel, 13 parallel, 1000 parallel, 1 reduction, 1 reduction, 512 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 0, 0, 200, 0, 0, 0]
//  CHECK-NEXT:   tcl.sched.fuse_epilogue
//  CHECK-NEXT:   tcl.sched.tile [0, 0, 0, 32, 0, 0, 0]
//  CHECK-NEXT:   tcl.sched.tile [0, 1, 0, 0, 0, 0, 1]
// TWO-LABEL: tcl.sched.schedule task "classifier" {{.*}} loops [1 parallel, 13 parallel, 13 parallel, 1000 parallel, 1 reduction, 1 reduction, 512 reduction]
//  TWO-NEXT:   tcl.sched.tile [0, 0, 0, 500, 0, 0, 0]
//  TWO-NEXT:   tcl.sched.parallelize
//  TWO-NEXT:   tcl.sched.fuse_epilogue
//  TWO-NEXT:   tcl.sched.tile [0, 0, 0, 32, 0, 0, 0]
//  TWO-NEXT:   tcl.sched.tile [0, 1, 0, 0, 0, 0, 1]

// 3x3 256->256 at 14x14 (2.4 MB of weights, 9 KB a channel): bands of 32
// channels, in them slices of 64 input channels (their weights stay in
// cache), then the register tiles of all 14 columns.
// CHECK-LABEL: tcl.sched.schedule task "conv14" {{.*}} loops [1 parallel, 14 parallel, 14 parallel, 256 parallel, 3 reduction, 3 reduction, 256 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 0, 0, 32, 0, 0, 0]
//  CHECK-NEXT:   tcl.sched.tile [0, 0, 0, 0, 0, 0, 64]
//  CHECK-NEXT:   tcl.sched.tile [0, 1, 0, 0, 1, 1, 1]
// Two threads: 7 rows or 128 channels each balance alike; the channels.
// TWO-LABEL: tcl.sched.schedule task "conv14" {{.*}} loops [1 parallel, 14 parallel, 14 parallel, 256 parallel, 3 reduction, 3 reduction, 256 reduction]
//  TWO-NEXT:   tcl.sched.tile [0, 0, 0, 128, 0, 0, 0]
//  TWO-NEXT:   tcl.sched.parallelize
//  TWO-NEXT:   tcl.sched.tile [0, 0, 0, 32, 0, 0, 64]

// The same at 56x56: its input (3.2 MB) does not stay in L2 either; bands
// of 8 rows as before.
// CHECK-LABEL: tcl.sched.schedule task "conv56" {{.*}} loops [1 parallel, 56 parallel, 56 parallel, 256 parallel, 3 reduction, 3 reduction, 256 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 8, 0, 0, 0, 0, 0]
// TWO-LABEL: tcl.sched.schedule task "conv56" {{.*}} loops [1 parallel, 56 parallel, 56 parallel, 256 parallel, 3 reduction, 3 reduction, 256 reduction]
//  TWO-NEXT:   tcl.sched.tile [0, 28, 0, 0, 0, 0, 0]

func.func @classifier(%x: tensor<1x13x13x512xf32>, %w: tensor<1x1x512x1000xf32>, %bias: tensor<1000xf32>) -> tensor<1x13x13x1000xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x13x13x1000xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x13x13x1000xf32>) -> tensor<1x13x13x1000xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {tcl.task = "classifier", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x13x13x512xf32>, tensor<1x1x512x1000xf32>) outs(%f : tensor<1x13x13x1000xf32>) -> tensor<1x13x13x1000xf32>
  %1 = linalg.generic {tcl.epilogue = "classifier",
                       indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%0, %bias : tensor<1x13x13x1000xf32>, tensor<1000xf32>) outs(%e : tensor<1x13x13x1000xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x13x13x1000xf32>
  return %1 : tensor<1x13x13x1000xf32>
}

func.func @conv14(%x: tensor<1x16x16x256xf32>, %w: tensor<3x3x256x256xf32>) -> tensor<1x14x14x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x14x14x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x14x14x256xf32>) -> tensor<1x14x14x256xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {tcl.task = "conv14", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x16x16x256xf32>, tensor<3x3x256x256xf32>) outs(%f : tensor<1x14x14x256xf32>) -> tensor<1x14x14x256xf32>
  return %0 : tensor<1x14x14x256xf32>
}

func.func @conv56(%x: tensor<1x58x58x256xf32>, %w: tensor<3x3x256x256xf32>) -> tensor<1x56x56x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x56x56x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x56x56x256xf32>) -> tensor<1x56x56x256xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {tcl.task = "conv56", dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x58x58x256xf32>, tensor<3x3x256x256xf32>) outs(%f : tensor<1x56x56x256xf32>) -> tensor<1x56x56x256xf32>
  return %0 : tensor<1x56x56x256xf32>
}
