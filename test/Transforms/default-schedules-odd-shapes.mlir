// Convolutions and matmuls whose maps, rows and channel counts the usual
// register tile (8 columns or rows x 2 vectors) does not divide get the
// tile of whole vectors that costs the fewest FMA issue slots over the whole
// output, its remainder tiles (peeled, static) included, with enough
// accumulators to hide the multiply-adds' latency and no more than the
// registers hold. Before, such a tile fell back to one column of one
// channel (scalar code, 25-50x slower: SqueezeNet's 1000-channel classifier
// at 13x13), then to tiles that divide the extents (8 lanes for 1000
// channels: 0.7x the vendor library).
// RUN: tcl-opt %s "--tcl-default-schedules=target=x86-avx512" | FileCheck %s
// RUN: tcl-opt %s "--tcl-default-schedules=target=x86-avx2" | FileCheck %s --check-prefix=AVX2

// 13 columns of 2 vectors (26 accumulators of 32 registers), the last 8 of
// the 1000 channels a peeled tile of half a vector. (The weights, 2 MB, do
// not stay in L2 while the input does: the channel tiles come before the
// rows, default-schedules-sweeps.mlir.)
// CHECK-LABEL: tcl.sched.schedule task "default_0" {{.*}} loops [1 parallel, 13 parallel, 13 parallel, 1000 parallel, 1 reduction, 1 reduction, 512 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 0, 0, 32, 0, 0, 0]
//  CHECK-NEXT:   tcl.sched.tile [0, 1, 0, 0, 0, 0, 1]
// CHECK-LABEL: tcl.sched.schedule task "default_1" {{.*}} loops [1 parallel, 13 parallel, 13 parallel, 1024 parallel, 1 reduction, 1 reduction, 512 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 0, 0, 32, 0, 0, 0]
//  CHECK-NEXT:   tcl.sched.tile [0, 1, 0, 0, 0, 0, 1]
// 7 columns of 2 vectors; 440 = 13 x 32 + 24 leaves a peeled tile of 24
// channels, split into 16 + 8 (tcl.split_vector_remainders). (Before the
// split, only power-of-two remainders were allowed: 7 columns of one
// vector, 440 = 27 x 16 + 8, ran 20% slower.)
// CHECK-LABEL: tcl.sched.schedule task "default_2" {{.*}} loops [1 parallel, 7 parallel, 7 parallel, 440 parallel, 1 reduction, 1 reduction, 440 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 1, 0, 32, 0, 0, 1]

// Matmuls: 100 rows in 50-row cache tiles of 10 x 2 vectors (2 x 8
// vectors cost as many FMA slots but ran 2.3x slower on Zen 5: tiles of
// more than 2 vectors must save a tenth); 24 columns in 16 rows of one
// vector and a peeled half vector. (A and B stay in L2 together: the cache
// tiles take all of k, default-schedules-panels.mlir.)
// CHECK-LABEL: tcl.sched.schedule task "default_3" anchor "linalg.matmul" {{.*}} loops [100 parallel, 256 parallel, 256 reduction]
//  CHECK-NEXT:   tcl.sched.tile [50, 0, 0]
//  CHECK-NEXT:   tcl.sched.tile [10, 32, 1]
// CHECK-LABEL: tcl.sched.schedule task "default_4" anchor "linalg.matmul" {{.*}} loops [256 parallel, 24 parallel, 256 reduction]
//  CHECK-NEXT:   tcl.sched.tile [64, 0, 0]
//  CHECK-NEXT:   tcl.sched.tile [16, 16, 1]

// Large weights (3x3x512 input channels for each 48-channel tile: 0.9 MB,
// strided by the 512 output channels): a channel tile and 64 input channels
// whose weights stay in cache over all output positions come first. (48
// channels: 7 columns of 2 vectors would keep only 14 accumulators; 7 x 4
// vectors, their weights and a broadcast do not fit the registers.)
// CHECK-LABEL: tcl.sched.schedule task "default_5" {{.*}} loops [1 parallel, 7 parallel, 7 parallel, 512 parallel, 3 reduction, 3 reduction, 512 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 0, 0, 48, 0, 0, 64]
//  CHECK-NEXT:   tcl.sched.tile [0, 1, 0, 0, 1, 1, 1]

// A matrix-vector product (one row): the usual 1 x 2 vectors keep two
// accumulators, latency-bound; one row of 8 vectors.
// CHECK-LABEL: tcl.sched.schedule task "default_6" anchor "linalg.matmul" {{.*}} loops [1 parallel, 1024 parallel, 512 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 256, 128]
//  CHECK-NEXT:   tcl.sched.tile [0, 128, 1]

// With an epilogue and one thread, the level that fuses it takes tiles
// that divide the domain (fused ops are vectorized only then): 200 of the
// 1000 columns (6 x 32 + 8), and all 169 rows, since B (2 MB) goes in
// panels of 128 columns outside the rows (default-schedules-panels.mlir).
// CHECK-LABEL: tcl.sched.schedule task "classifier" anchor "linalg.matmul" {{.*}} loops [169 parallel, 1000 parallel, 512 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 200, 0]
//  CHECK-NEXT:   tcl.sched.fuse_epilogue
//  CHECK-NEXT:   tcl.sched.tile [0, 128, 0]
//  CHECK-NEXT:   tcl.sched.tile [13, 32, 1]

// A 14-column map: the usual 8 columns become 7 (a divisor), 14
// accumulators of 2 vectors, fewer than the latency needs; all 14 columns
// (28 accumulators) come before wider channel tiles (7 x 4 vectors ran
// 25-35% slower). With AVX2's 16 registers 7 x 2 vectors are enough
// (below).
// CHECK-LABEL: tcl.sched.schedule task "default_7" {{.*}} loops [1 parallel, 14 parallel, 14 parallel, 256 parallel, 3 reduction, 3 reduction, 256 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 0, 0, 32, 0, 0, 64]
//  CHECK-NEXT:   tcl.sched.tile [0, 1, 0, 0, 1, 1, 1]

// A depthwise convolution on a 14-column map: 7 columns x 2 vectors become
// all 14 columns x 1 vector (as many accumulators, each input vector serves
// twice the outputs: 68 -> 83 GFLOP/s for 576 channels on Zen 5); on a
// 56-column map the usual 8 columns stay. AVX2's 16 registers do not hold
// 14 accumulators beside the window's weights: 7 x 2 vectors stay there.
// With AVX-512 the accumulators stay in registers across the kernel rows
// (hoisted; with the 3 weights of a kernel row and an input vector they fit
// the 32 registers); AVX2's 16 registers do not hold 7 x 2 vectors and 6
// more, so they are loaded and stored for each kernel row there.
// CHECK-LABEL: tcl.sched.schedule task "default_8" anchor "linalg.depthwise_conv_2d_nhwc_hwc" {{.*}} loops [1 parallel, 14 parallel, 14 parallel, 576 parallel, 3 reduction, 3 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 1, 0, 16, 1, 0]
//  CHECK-NEXT:   tcl.sched.decompose
//  CHECK-NEXT:   tcl.sched.vectorize
//  CHECK-NEXT:   tcl.sched.hoist_accumulators
// CHECK-LABEL: tcl.sched.schedule task "default_9" anchor "linalg.depthwise_conv_2d_nhwc_hwc" {{.*}} loops [1 parallel, 56 parallel, 56 parallel, 144 parallel, 3 reduction, 3 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 1, 8, 16, 1, 0]
//  CHECK-NEXT:   tcl.sched.decompose
//  CHECK-NEXT:   tcl.sched.vectorize
//  CHECK-NEXT:   tcl.sched.hoist_accumulators
// A strided one too: 8 columns x 2 vectors, 3 weights, 1 input vector
// (MobileNetV2's 3x3/2 96 @112: 23 -> 38 GFLOP/s on Zen 4).
// CHECK-LABEL: tcl.sched.schedule task "default_10" anchor "linalg.depthwise_conv_2d_nhwc_hwc" {{.*}} loops [1 parallel, 56 parallel, 56 parallel, 96 parallel, 3 reduction, 3 reduction]
//  CHECK-NEXT:   tcl.sched.tile [0, 1, 8, 32, 1, 0]
//  CHECK-NEXT:   tcl.sched.decompose
//  CHECK-NEXT:   tcl.sched.vectorize
//  CHECK-NEXT:   tcl.sched.hoist_accumulators

// A 1x1 convolution's channel tile widens only while its accumulators
// leave registers for a row of weights and a broadcast: ResNet-18's 1x1/2
// 64->128 @56 takes 7 columns x 2 vectors, not 7 x 4 (which spilled an
// accumulator every step; with accumulators that start from zero, LLVM
// then shuffled it through all the others: 25% slower on Zen 5).
// CHECK-LABEL: tcl.sched.schedule task "default_11" {{.*}} loops [1 parallel, 28 parallel, 28 parallel, 128 parallel, 1 reduction, 1 reduction, 64 reduction]
//       CHECK:   tcl.sched.tile [0, 1, 7, 32, 0, 0, 1]

// AVX2 has 16 registers: 5 columns of 2 vectors (13 = 2 x 5 + 3) for
// 1000 and 1024 channels (one column of 8 vectors for 1024 costs as many
// FMA slots, but ran 1.7x slower, AVX2 code on Zen 5), 7 columns of one
// vector; 8 rows of one vector for 24 columns.
// AVX2-LABEL: tcl.sched.schedule task "default_0"
//  AVX2-NEXT:   tcl.sched.tile [0, 0, 0, 16, 0, 0, 0]
//  AVX2-NEXT:   tcl.sched.tile [0, 1, 5, 0, 0, 0, 1]
// AVX2-LABEL: tcl.sched.schedule task "default_1"
//  AVX2-NEXT:   tcl.sched.tile [0, 0, 0, 16, 0, 0, 0]
//  AVX2-NEXT:   tcl.sched.tile [0, 1, 5, 0, 0, 0, 1]
// AVX2-LABEL: tcl.sched.schedule task "default_2"
//  AVX2-NEXT:   tcl.sched.tile [0, 1, 0, 8, 0, 0, 1]
// AVX2-LABEL: tcl.sched.schedule task "default_4"
//  AVX2-NEXT:   tcl.sched.tile [64, 0, 0]
//  AVX2-NEXT:   tcl.sched.tile [8, 8, 1]
// AVX2-LABEL: tcl.sched.schedule task "default_7"
//  AVX2-NEXT:   tcl.sched.tile [0, 0, 0, 16, 0, 0, 128]
//  AVX2-NEXT:   tcl.sched.tile [0, 1, 7, 0, 1, 1, 1]
// AVX2-LABEL: tcl.sched.schedule task "default_8"
//  AVX2-NEXT:   tcl.sched.tile [0, 1, 7, 16, 1, 0]
//  AVX2-NEXT:   tcl.sched.decompose
//  AVX2-NEXT:   tcl.sched.vectorize
//  AVX2-NEXT: }

func.func @squeezenet_classifier(%x: tensor<1x13x13x512xf32>, %w: tensor<1x1x512x1000xf32>, %o: tensor<1x13x13x1000xf32>) -> tensor<1x13x13x1000xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x13x13x512xf32>, tensor<1x1x512x1000xf32>) outs(%o : tensor<1x13x13x1000xf32>) -> tensor<1x13x13x1000xf32>
  return %0 : tensor<1x13x13x1000xf32>
}

func.func @wide_13x13(%x: tensor<1x13x13x512xf32>, %w: tensor<1x1x512x1024xf32>, %o: tensor<1x13x13x1024xf32>) -> tensor<1x13x13x1024xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x13x13x512xf32>, tensor<1x1x512x1024xf32>) outs(%o : tensor<1x13x13x1024xf32>) -> tensor<1x13x13x1024xf32>
  return %0 : tensor<1x13x13x1024xf32>
}

func.func @regnet_440(%x: tensor<1x7x7x440xf32>, %w: tensor<1x1x440x440xf32>, %o: tensor<1x7x7x440xf32>) -> tensor<1x7x7x440xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x7x7x440xf32>, tensor<1x1x440x440xf32>) outs(%o : tensor<1x7x7x440xf32>) -> tensor<1x7x7x440xf32>
  return %0 : tensor<1x7x7x440xf32>
}

func.func @rows_100(%a: tensor<100x256xf32>, %b: tensor<256x256xf32>, %c: tensor<100x256xf32>) -> tensor<100x256xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<100x256xf32>, tensor<256x256xf32>) outs(%c : tensor<100x256xf32>) -> tensor<100x256xf32>
  return %0 : tensor<100x256xf32>
}

func.func @columns_24(%a: tensor<256x256xf32>, %b: tensor<256x24xf32>, %c: tensor<256x24xf32>) -> tensor<256x24xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x24xf32>) outs(%c : tensor<256x24xf32>) -> tensor<256x24xf32>
  return %0 : tensor<256x24xf32>
}

func.func @resnet_last_stage(%x: tensor<1x9x9x512xf32>, %w: tensor<3x3x512x512xf32>, %o: tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x9x9x512xf32>, tensor<3x3x512x512xf32>) outs(%o : tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32>
  return %0 : tensor<1x7x7x512xf32>
}

func.func @matrix_vector(%a: tensor<1x512xf32>, %b: tensor<512x1024xf32>, %c: tensor<1x1024xf32>) -> tensor<1x1024xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<1x512xf32>, tensor<512x1024xf32>) outs(%c : tensor<1x1024xf32>) -> tensor<1x1024xf32>
  return %0 : tensor<1x1024xf32>
}

func.func @classifier_bias_relu(%a: tensor<169x512xf32>, %b: tensor<512x1000xf32>, %bias: tensor<1000xf32>) -> tensor<169x1000xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<169x1000xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<169x1000xf32>) -> tensor<169x1000xf32>
  %0 = linalg.matmul {tcl.task = "classifier"} ins(%a, %b : tensor<169x512xf32>, tensor<512x1000xf32>) outs(%o : tensor<169x1000xf32>) -> tensor<169x1000xf32>
  %1 = linalg.generic {tcl.epilogue = "classifier", indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%0, %bias : tensor<169x1000xf32>, tensor<1000xf32>) outs(%e : tensor<169x1000xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<169x1000xf32>
  return %1 : tensor<169x1000xf32>
}

func.func @resnet_third_stage(%x: tensor<1x16x16x256xf32>, %w: tensor<3x3x256x256xf32>, %o: tensor<1x14x14x256xf32>) -> tensor<1x14x14x256xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x16x256xf32>, tensor<3x3x256x256xf32>) outs(%o : tensor<1x14x14x256xf32>) -> tensor<1x14x14x256xf32>
  return %0 : tensor<1x14x14x256xf32>
}

func.func @mobilenet_depthwise_14(%x: tensor<1x16x16x576xf32>, %w: tensor<3x3x576xf32>, %o: tensor<1x14x14x576xf32>) -> tensor<1x14x14x576xf32> {
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x16x576xf32>, tensor<3x3x576xf32>) outs(%o : tensor<1x14x14x576xf32>) -> tensor<1x14x14x576xf32>
  return %0 : tensor<1x14x14x576xf32>
}

func.func @mobilenet_depthwise_56(%x: tensor<1x58x58x144xf32>, %w: tensor<3x3x144xf32>, %o: tensor<1x56x56x144xf32>) -> tensor<1x56x56x144xf32> {
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x58x58x144xf32>, tensor<3x3x144xf32>) outs(%o : tensor<1x56x56x144xf32>) -> tensor<1x56x56x144xf32>
  return %0 : tensor<1x56x56x144xf32>
}

func.func @mobilenet_depthwise_stride2(%x: tensor<1x113x113x96xf32>, %w: tensor<3x3x96xf32>, %o: tensor<1x56x56x96xf32>) -> tensor<1x56x56x96xf32> {
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x113x113x96xf32>, tensor<3x3x96xf32>) outs(%o : tensor<1x56x56x96xf32>) -> tensor<1x56x56x96xf32>
  return %0 : tensor<1x56x56x96xf32>
}

func.func @resnet_downsample(%x: tensor<1x55x55x64xf32>, %w: tensor<1x1x64x128xf32>, %o: tensor<1x28x28x128xf32>) -> tensor<1x28x28x128xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x55x55x64xf32>, tensor<1x1x64x128xf32>) outs(%o : tensor<1x28x28x128xf32>) -> tensor<1x28x28x128xf32>
  return %0 : tensor<1x28x28x128xf32>
}
