func.func @f(%x: tensor<1x28x28x32xf32>, %w: tensor<3x3x32xf32>) -> tensor<1x28x28x32xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%n: index, %h: index, %w_: index, %c: index):
    tensor.yield %zero : f32
  } : tensor<1x28x28x32xf32> to tensor<1x30x30x32xf32>
  %e = tensor.empty() : tensor<1x28x28x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x28x28x32xf32>) -> tensor<1x28x28x32xf32>
  %y = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%padded, %w : tensor<1x30x30x32xf32>, tensor<3x3x32xf32>) outs(%init : tensor<1x28x28x32xf32>) -> tensor<1x28x28x32xf32>
  return %y : tensor<1x28x28x32xf32>
}
