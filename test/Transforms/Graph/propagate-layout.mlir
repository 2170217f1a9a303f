// RUN: tcl-opt %s --tcl-propagate-layout --canonicalize | FileCheck %s

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chan = affine_map<(d0, d1, d2, d3) -> (d1)>
#hw = affine_map<(d0, d1, d2, d3) -> (d0, d1)>

// Conv -> transpose to NCHW -> bias (per channel, NCHW) -> ReLU -> residual
// add of another NCHW view -> transpose back to NHWC for the next conv: the
// transposes move below the elementwise ops and cancel; only the one that
// leaves the function stays.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x8x16xf32>, %[[Y:.*]]: tensor<1x8x8x16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK: %[[BIAS:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[B]] : tensor<1x8x8x16xf32>, tensor<16xf32>)
// CHECK: %[[RELU:.*]] = linalg.generic {{.*}} ins(%[[BIAS]] : tensor<1x8x8x16xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[RELU]], %[[Y]] : tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[NCHW:.*]] = linalg.transpose ins(%[[SUM]] : tensor<1x8x8x16xf32>) {{.*}} permutation = [0, 3, 1, 2]
// CHECK-NOT: linalg.transpose
// CHECK: return %[[SUM]], %[[NCHW]]
func.func @chain(%x: tensor<1x8x8x16xf32>, %y: tensor<1x8x8x16xf32>,
                 %b: tensor<16xf32>) -> (tensor<1x8x8x16xf32>, tensor<1x16x8x8xf32>) {
  %e0 = tensor.empty() : tensor<1x16x8x8xf32>
  %xt = linalg.transpose ins(%x : tensor<1x8x8x16xf32>) outs(%e0 : tensor<1x16x8x8xf32>) permutation = [0, 3, 1, 2]
  %yt = linalg.transpose ins(%y : tensor<1x8x8x16xf32>) outs(%e0 : tensor<1x16x8x8xf32>) permutation = [0, 3, 1, 2]
  %bias = linalg.generic {indexing_maps = [#id, #chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xt, %b : tensor<1x16x8x8xf32>, tensor<16xf32>) outs(%e0 : tensor<1x16x8x8xf32>) {
  ^bb0(%in: f32, %c: f32, %out: f32):
    %s = arith.addf %in, %c : f32
    linalg.yield %s : f32
  } -> tensor<1x16x8x8xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : tensor<1x16x8x8xf32>) outs(%e0 : tensor<1x16x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %zero = arith.constant 0.0 : f32
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x16x8x8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%relu, %yt : tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) outs(%e0 : tensor<1x16x8x8xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<1x16x8x8xf32>
  %e1 = tensor.empty() : tensor<1x8x8x16xf32>
  %back = linalg.transpose ins(%sum : tensor<1x16x8x8xf32>) outs(%e1 : tensor<1x8x8x16xf32>) permutation = [0, 2, 3, 1]
  return %back, %sum : tensor<1x8x8x16xf32>, tensor<1x16x8x8xf32>
}

// A reduction over H and W (GlobalAveragePool) reads the NHWC source
// directly: no transpose is left.
// CHECK-LABEL: func.func @reduction
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "reduction", "reduction", "parallel"]} ins(%{{.*}} : tensor<1x8x8x16xf32>) outs(%{{.*}} : tensor<1x16xf32>)
func.func @reduction(%x: tensor<1x8x8x16xf32>) -> tensor<1x16xf32> {
  %e0 = tensor.empty() : tensor<1x16x8x8xf32>
  %xt = linalg.transpose ins(%x : tensor<1x8x8x16xf32>) outs(%e0 : tensor<1x16x8x8xf32>) permutation = [0, 3, 1, 2]
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<1x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x16xf32>) -> tensor<1x16xf32>
  %sum = linalg.generic {indexing_maps = [#id, #hw], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%xt : tensor<1x16x8x8xf32>) outs(%init : tensor<1x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1x16xf32>
  return %sum : tensor<1x16xf32>
}

// Inputs through different permutations: nothing moves.
// CHECK-LABEL: func.func @mixed
// CHECK-COUNT-2: linalg.transpose
// CHECK: linalg.generic
func.func @mixed(%x: tensor<2x3x4x5xf32>, %y: tensor<2x4x5x3xf32>) -> tensor<2x5x3x4xf32> {
  %e0 = tensor.empty() : tensor<2x5x3x4xf32>
  %xt = linalg.transpose ins(%x : tensor<2x3x4x5xf32>) outs(%e0 : tensor<2x5x3x4xf32>) permutation = [0, 3, 1, 2]
  %yt = linalg.transpose ins(%y : tensor<2x4x5x3xf32>) outs(%e0 : tensor<2x5x3x4xf32>) permutation = [0, 2, 3, 1]
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xt, %yt : tensor<2x5x3x4xf32>, tensor<2x5x3x4xf32>) outs(%e0 : tensor<2x5x3x4xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<2x5x3x4xf32>
  return %sum : tensor<2x5x3x4xf32>
}

// A concatenation over channels (NCHW dim 1) of two channels-last results,
// between two channels-last consumers: it is built in NHWC (dim 3) and no
// transpose is left.
// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.*]]: tensor<1x8x8x16xf32>, %[[B:.*]]: tensor<1x8x8x8xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x8x8x24xf32>
// CHECK: %[[I0:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0, 0, 0] [1, 8, 8, 16] [1, 1, 1, 1]
// CHECK: %[[I1:.*]] = tensor.insert_slice %[[B]] into %[[I0]][0, 0, 0, 16] [1, 8, 8, 8] [1, 1, 1, 1]
// CHECK-NOT: linalg.transpose
// CHECK: return %[[I1]]
func.func @concat(%a: tensor<1x8x8x16xf32>, %b: tensor<1x8x8x8xf32>) -> tensor<1x8x8x24xf32> {
  %ea = tensor.empty() : tensor<1x16x8x8xf32>
  %at = linalg.transpose ins(%a : tensor<1x8x8x16xf32>) outs(%ea : tensor<1x16x8x8xf32>) permutation = [0, 3, 1, 2]
  %eb = tensor.empty() : tensor<1x8x8x8xf32>
  %bt = linalg.transpose ins(%b : tensor<1x8x8x8xf32>) outs(%eb : tensor<1x8x8x8xf32>) permutation = [0, 3, 1, 2]
  %e = tensor.empty() : tensor<1x24x8x8xf32>
  %i0 = tensor.insert_slice %at into %e[0, 0, 0, 0] [1, 16, 8, 8] [1, 1, 1, 1] : tensor<1x16x8x8xf32> into tensor<1x24x8x8xf32>
  %i1 = tensor.insert_slice %bt into %i0[0, 16, 0, 0] [1, 8, 8, 8] [1, 1, 1, 1] : tensor<1x8x8x8xf32> into tensor<1x24x8x8xf32>
  %eo = tensor.empty() : tensor<1x8x8x24xf32>
  %back = linalg.transpose ins(%i1 : tensor<1x24x8x8xf32>) outs(%eo : tensor<1x8x8x24xf32>) permutation = [0, 2, 3, 1]
  return %back : tensor<1x8x8x24xf32>
}

// A part that is not a transpose (an NCHW argument) is transposed to NHWC
// on its own: one transpose of 8 channels instead of two of 24.
// CHECK-LABEL: func.func @concat_nchw_part
// CHECK-SAME: (%[[A:.*]]: tensor<1x8x8x16xf32>, %[[B:.*]]: tensor<1x8x8x8xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[I0:.*]] = tensor.insert_slice %[[A]] into %{{.*}}[0, 0, 0, 0] [1, 8, 8, 16] [1, 1, 1, 1]
// CHECK: %[[BT:.*]] = linalg.transpose ins(%[[B]] : tensor<1x8x8x8xf32>) {{.*}} permutation = [0, 2, 3, 1]
// CHECK: %[[I1:.*]] = tensor.insert_slice %[[BT]] into %[[I0]][0, 0, 0, 16] [1, 8, 8, 8] [1, 1, 1, 1]
// CHECK-NOT: linalg.transpose
// CHECK: return %[[I1]]
func.func @concat_nchw_part(%a: tensor<1x8x8x16xf32>, %b: tensor<1x8x8x8xf32>) -> tensor<1x8x8x24xf32> {
  %ea = tensor.empty() : tensor<1x16x8x8xf32>
  %at = linalg.transpose ins(%a : tensor<1x8x8x16xf32>) outs(%ea : tensor<1x16x8x8xf32>) permutation = [0, 3, 1, 2]
  %e = tensor.empty() : tensor<1x24x8x8xf32>
  %i0 = tensor.insert_slice %at into %e[0, 0, 0, 0] [1, 16, 8, 8] [1, 1, 1, 1] : tensor<1x16x8x8xf32> into tensor<1x24x8x8xf32>
  %i1 = tensor.insert_slice %b into %i0[0, 16, 0, 0] [1, 8, 8, 8] [1, 1, 1, 1] : tensor<1x8x8x8xf32> into tensor<1x24x8x8xf32>
  %eo = tensor.empty() : tensor<1x8x8x24xf32>
  %back = linalg.transpose ins(%i1 : tensor<1x24x8x8xf32>) outs(%eo : tensor<1x8x8x24xf32>) permutation = [0, 2, 3, 1]
  return %back : tensor<1x8x8x24xf32>
}

// A nearest-neighbour Resize (a gather through tensor.extract) of an NCHW
// view of a channels-last result, read by a channels-last consumer: it
// reads the NHWC source and writes NHWC, its loops (and their linalg.index)
// permuted; no transpose is left.
// CHECK-LABEL: func.func @resize
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x4x3xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x8x8x3xf32>)
// CHECK: %[[N:.*]] = linalg.index 0
// CHECK: %[[C:.*]] = linalg.index 3
// CHECK: %[[H:.*]] = linalg.index 1
// CHECK: %[[W:.*]] = linalg.index 2
// CHECK: %[[H2:.*]] = arith.divui %[[H]]
// CHECK: %[[W2:.*]] = arith.divui %[[W]]
// CHECK: tensor.extract %[[X]][%[[N]], %[[H2]], %[[W2]], %[[C]]] : tensor<1x4x4x3xf32>
// CHECK-NOT: linalg.transpose
func.func @resize(%x: tensor<1x4x4x3xf32>) -> tensor<1x8x8x3xf32> {
  %ex = tensor.empty() : tensor<1x3x4x4xf32>
  %xt = linalg.transpose ins(%x : tensor<1x4x4x3xf32>) outs(%ex : tensor<1x3x4x4xf32>) permutation = [0, 3, 1, 2]
  %e = tensor.empty() : tensor<1x3x8x8xf32>
  %two = arith.constant 2 : index
  %up = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%e : tensor<1x3x8x8xf32>) {
  ^bb0(%out: f32):
    %n = linalg.index 0 : index
    %c = linalg.index 1 : index
    %h = linalg.index 2 : index
    %w = linalg.index 3 : index
    %h2 = arith.divui %h, %two : index
    %w2 = arith.divui %w, %two : index
    %v = tensor.extract %xt[%n, %c, %h2, %w2] : tensor<1x3x4x4xf32>
    linalg.yield %v : f32
  } -> tensor<1x3x8x8xf32>
  %eo = tensor.empty() : tensor<1x8x8x3xf32>
  %back = linalg.transpose ins(%up : tensor<1x3x8x8xf32>) outs(%eo : tensor<1x8x8x3xf32>) permutation = [0, 2, 3, 1]
  return %back : tensor<1x8x8x3xf32>
}

// A 1-D convolution's causal padding between two channels-last 1-D
// convolutions (each a 2-D one with H = 1): NWC -> NCW (a transpose and a
// collapse of H), pad W, NCW -> NWC (an expand of H and a transpose). The
// transposes move through the reshapes and the pad and cancel: the padding
// is of the channels-last view. The importer's reshapes (through a flat
// vector) compose first.
// CHECK-LABEL: func.func @conv1d_padding
// CHECK-SAME: (%[[X:.*]]: tensor<1x1x64x16xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[NWC:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1, 2], [3]] : tensor<1x1x64x16xf32> into tensor<1x64x16xf32>
// CHECK: %[[P:.*]] = tensor.pad %[[NWC]] low[0, 2, 0] high[0, 0, 0]
// CHECK: %[[NHWC:.*]] = tensor.expand_shape %[[P]] {{\[}}[0], [1, 2], [3]] output_shape [1, 1, 66, 16]
// CHECK-NOT: linalg.transpose
// CHECK: return %[[NHWC]]
func.func @conv1d_padding(%x: tensor<1x1x64x16xf32>) -> tensor<1x1x66x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x16x1x64xf32>
  %t = linalg.transpose ins(%x : tensor<1x1x64x16xf32>) outs(%e0 : tensor<1x16x1x64xf32>) permutation = [0, 3, 1, 2]
  %flat = tensor.collapse_shape %t [[0, 1, 2, 3]] : tensor<1x16x1x64xf32> into tensor<1024xf32>
  %ncw = tensor.expand_shape %flat [[0, 1, 2]] output_shape [1, 16, 64] : tensor<1024xf32> into tensor<1x16x64xf32>
  %p = tensor.pad %ncw low[0, 0, 2] high[0, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %zero : f32
  } : tensor<1x16x64xf32> to tensor<1x16x66xf32>
  %nchw = tensor.expand_shape %p [[0], [1], [2, 3]] output_shape [1, 16, 1, 66] : tensor<1x16x66xf32> into tensor<1x16x1x66xf32>
  %e1 = tensor.empty() : tensor<1x1x66x16xf32>
  %back = linalg.transpose ins(%nchw : tensor<1x16x1x66xf32>) outs(%e1 : tensor<1x1x66x16xf32>) permutation = [0, 2, 3, 1]
  return %back : tensor<1x1x66x16xf32>
}

// A pad that a convolution reads keeps its place next to it (its tiles
// fold the padding): the transpose stays above the pad.
// CHECK-LABEL: func.func @padded_convolution_input
// CHECK: %[[T:.*]] = linalg.transpose
// CHECK: tensor.pad %[[T]]
func.func @padded_convolution_input(%x: tensor<1x3x8x8xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x8x8x3xf32>
  %t = linalg.transpose ins(%x : tensor<1x3x8x8xf32>) outs(%e0 : tensor<1x8x8x3xf32>) permutation = [0, 2, 3, 1]
  %p = tensor.pad %t low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x3xf32> to tensor<1x10x10x3xf32>
  %e1 = tensor.empty() : tensor<1x8x8x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %c = linalg.conv_2d_nhwc_hwcf ins(%p, %w : tensor<1x10x10x3xf32>, tensor<3x3x3x4xf32>) outs(%f : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  return %c : tensor<1x8x8x4xf32>
}

// A transpose that moves only unit dims (a batch-second encoder's input
// and output) is a reshape; one that reorders the others stays.
// CHECK-LABEL: func.func @unit_dims
//  CHECK-SAME: (%[[X:.*]]: tensor<1x32x128xf32>, %[[Y:.*]]: tensor<1x32x128xf32>)
//       CHECK:   %[[C:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<1x32x128xf32> into tensor<32x128xf32>
//       CHECK:   %[[E:.*]] = tensor.expand_shape %[[C]] {{\[}}[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf32> into tensor<32x1x128xf32>
//       CHECK:   %[[T:.*]] = linalg.transpose ins(%[[Y]] : tensor<1x32x128xf32>) outs(%{{.*}} : tensor<128x1x32xf32>) permutation = [2, 0, 1]
//       CHECK:   return %[[E]], %[[T]]
func.func @unit_dims(%x: tensor<1x32x128xf32>, %y: tensor<1x32x128xf32>) -> (tensor<32x1x128xf32>, tensor<128x1x32xf32>) {
  %e = tensor.empty() : tensor<32x1x128xf32>
  %t = linalg.transpose ins(%x : tensor<1x32x128xf32>) outs(%e : tensor<32x1x128xf32>) permutation = [1, 0, 2]
  %e2 = tensor.empty() : tensor<128x1x32xf32>
  %t2 = linalg.transpose ins(%y : tensor<1x32x128xf32>) outs(%e2 : tensor<128x1x32xf32>) permutation = [2, 0, 1]
  return %t, %t2 : tensor<32x1x128xf32>, tensor<128x1x32xf32>
}

// The importer's reshape of one head's slice of a fused QKV projection
// through a flat vector (32x1x128 -> 4096 -> 32x4x32) goes through the
// finest shape both sides share, and the unit dim is dropped by the slice:
// views of the projection, where the flat vector was a copy.
// CHECK-LABEL: func.func @head_slice_reshape
// CHECK: %[[SLICE:.*]] = tensor.extract_slice %{{.*}}[0, 0, 128] [32, 1, 128] [1, 1, 1] : tensor<32x1x384xf32> to tensor<32x128xf32>
// CHECK: %[[HEADS:.*]] = tensor.expand_shape %[[SLICE]] {{\[\[}}0], [1, 2]] output_shape [32, 4, 32] : tensor<32x128xf32> into tensor<32x4x32xf32>
// CHECK: return %[[HEADS]]
func.func @head_slice_reshape(%qkv: tensor<32x384xf32>) -> tensor<32x4x32xf32> {
  %x = tensor.expand_shape %qkv [[0], [1, 2]] output_shape [32, 1, 384] : tensor<32x384xf32> into tensor<32x1x384xf32>
  %k = tensor.extract_slice %x[0, 0, 128] [32, 1, 128] [1, 1, 1] : tensor<32x1x384xf32> to tensor<32x1x128xf32>
  %flat = tensor.collapse_shape %k [[0, 1, 2]] : tensor<32x1x128xf32> into tensor<4096xf32>
  %heads = tensor.expand_shape %flat [[0, 1, 2]] output_shape [32, 4, 32] : tensor<4096xf32> into tensor<32x4x32xf32>
  return %heads : tensor<32x4x32xf32>
}

// Reshapes that share no shape finer than the flat vector stay.
// CHECK-LABEL: func.func @reshape_without_common_shape
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<6x4xf32> into tensor<24xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [8, 3]
func.func @reshape_without_common_shape(%x: tensor<6x4xf32>) -> tensor<8x3xf32> {
  %flat = tensor.collapse_shape %x [[0, 1]] : tensor<6x4xf32> into tensor<24xf32>
  %y = tensor.expand_shape %flat [[0, 1]] output_shape [8, 3] : tensor<24xf32> into tensor<8x3xf32>
  return %y : tensor<8x3xf32>
}

// A flatten through a flat vector (1x512x1x1 -> 512 -> 1x512) is one
// collapse.
// CHECK-LABEL: func.func @flatten
// CHECK-NEXT: %[[R:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2, 3]] : tensor<1x512x1x1xf32> into tensor<1x512xf32>
// CHECK-NEXT: return %[[R]]
func.func @flatten(%x: tensor<1x512x1x1xf32>) -> tensor<1x512xf32> {
  %flat = tensor.collapse_shape %x [[0, 1, 2, 3]] : tensor<1x512x1x1xf32> into tensor<512xf32>
  %y = tensor.expand_shape %flat [[0, 1]] output_shape [1, 512] : tensor<512xf32> into tensor<1x512xf32>
  return %y : tensor<1x512xf32>
}
