// A ResNet-style 3x3 convolution (NHWC, 64 -> 64 channels on a 56x56 image,
// input already padded) with ReLU, and no schedule: tcl-compile gives the
// convolution its default schedule.
func.func @conv_relu(%input: tensor<1x58x58x64xf32>, %filter: tensor<3x3x64x64xf32>)
    -> tensor<1x56x56x64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x56x56x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  %conv = linalg.conv_2d_nhwc_hwcf
      {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%input, %filter : tensor<1x58x58x64xf32>, tensor<3x3x64x64xf32>)
      outs(%init : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>,
                       affine_map<(n, h, w, c) -> (n, h, w, c)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv : tensor<1x56x56x64xf32>) outs(%empty : tensor<1x56x56x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x56x56x64xf32>
  return %relu : tensor<1x56x56x64xf32>
}
