module {
func.func @deep0(%input: tensor<1x9x9x384xf32>, %filter: tensor<3x3x384x384xf32>) -> tensor<1x7x7x384xf32> {
  %fill = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x7x7x384xf32>
  %init = linalg.fill ins(%fill : f32) outs(%empty : tensor<1x7x7x384xf32>) -> tensor<1x7x7x384xf32>
  %result = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%input, %filter : tensor<1x9x9x384xf32>, tensor<3x3x384x384xf32>) outs(%init : tensor<1x7x7x384xf32>) -> tensor<1x7x7x384xf32>
  return %result : tensor<1x7x7x384xf32>
}
func.func @deep1(%input: tensor<1x9x9x512xf32>, %filter: tensor<3x3x512x384xf32>, %bias: tensor<384xf32>) -> tensor<1x7x7x384xf32> {
  %fill = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x7x7x384xf32>
  %init = linalg.fill ins(%fill : f32) outs(%empty : tensor<1x7x7x384xf32>) -> tensor<1x7x7x384xf32>
  %result = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%input, %filter : tensor<1x9x9x512xf32>, tensor<3x3x512x384xf32>) outs(%init : tensor<1x7x7x384xf32>) -> tensor<1x7x7x384xf32>
  %out = tensor.empty() : tensor<1x7x7x384xf32>
  %final = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%result, %bias : tensor<1x7x7x384xf32>, tensor<384xf32>) outs(%out : tensor<1x7x7x384xf32>) {
  ^bb0(%x: f32, %channel: f32, %o: f32):
    %sum = arith.addf %x, %channel : f32
    linalg.yield %sum : f32
  } -> tensor<1x7x7x384xf32>
  return %final : tensor<1x7x7x384xf32>
}
func.func @deep2(%input: tensor<1x9x9x384xf32>, %filter: tensor<3x3x384x512xf32>, %bias: tensor<512xf32>) -> tensor<1x7x7x512xf32> {
  %fill = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x7x7x512xf32>
  %init = linalg.fill ins(%fill : f32) outs(%empty : tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32>
  %result = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%input, %filter : tensor<1x9x9x384xf32>, tensor<3x3x384x512xf32>) outs(%init : tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32>
  %out = tensor.empty() : tensor<1x7x7x512xf32>
  %final = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%result, %bias : tensor<1x7x7x512xf32>, tensor<512xf32>) outs(%out : tensor<1x7x7x512xf32>) {
  ^bb0(%x: f32, %channel: f32, %o: f32):
    %sum = arith.addf %x, %channel : f32
    %zero = arith.constant 0.0 : f32
    %relu = arith.maximumf %sum, %zero : f32
    linalg.yield %relu : f32
  } -> tensor<1x7x7x512xf32>
  return %final : tensor<1x7x7x512xf32>
}
func.func @deep3(%input: tensor<1x15x15x512xf32>, %filter: tensor<3x3x512x512xf32>) -> tensor<1x7x7x512xf32> {
  %fill = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x7x7x512xf32>
  %init = linalg.fill ins(%fill : f32) outs(%empty : tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32>
  %result = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%input, %filter : tensor<1x15x15x512xf32>, tensor<3x3x512x512xf32>) outs(%init : tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32>
  return %result : tensor<1x7x7x512xf32>
}
func.func @deep4(%input: tensor<1x9x9x256xf32>, %filter: tensor<3x3x256x384xf32>, %bias: tensor<384xf32>) -> tensor<1x7x7x384xf32> {
  %fill = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x7x7x384xf32>
  %init = linalg.fill ins(%fill : f32) outs(%empty : tensor<1x7x7x384xf32>) -> tensor<1x7x7x384xf32>
  %result = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%input, %filter : tensor<1x9x9x256xf32>, tensor<3x3x256x384xf32>) outs(%init : tensor<1x7x7x384xf32>) -> tensor<1x7x7x384xf32>
  %out = tensor.empty() : tensor<1x7x7x384xf32>
  %final = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%result, %bias : tensor<1x7x7x384xf32>, tensor<384xf32>) outs(%out : tensor<1x7x7x384xf32>) {
  ^bb0(%x: f32, %channel: f32, %o: f32):
    %sum = arith.addf %x, %channel : f32
    linalg.yield %sum : f32
  } -> tensor<1x7x7x384xf32>
  return %final : tensor<1x7x7x384xf32>
}
func.func @deep5(%input: tensor<1x9x9x640xf32>, %filter: tensor<3x3x640x512xf32>, %bias: tensor<512xf32>) -> tensor<1x7x7x512xf32> {
  %fill = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x7x7x512xf32>
  %init = linalg.fill ins(%fill : f32) outs(%empty : tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32>
  %result = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%input, %filter : tensor<1x9x9x640xf32>, tensor<3x3x640x512xf32>) outs(%init : tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32>
  %out = tensor.empty() : tensor<1x7x7x512xf32>
  %final = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%result, %bias : tensor<1x7x7x512xf32>, tensor<512xf32>) outs(%out : tensor<1x7x7x512xf32>) {
  ^bb0(%x: f32, %channel: f32, %o: f32):
    %sum = arith.addf %x, %channel : f32
    %zero = arith.constant 0.0 : f32
    %relu = arith.maximumf %sum, %zero : f32
    linalg.yield %relu : f32
  } -> tensor<1x7x7x512xf32>
  return %final : tensor<1x7x7x512xf32>
}
func.func @deep6(%input: tensor<1x7x7x1024xf32>, %filter: tensor<1x1x1024x1024xf32>) -> tensor<1x7x7x1024xf32> {
  %fill = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x7x7x1024xf32>
  %init = linalg.fill ins(%fill : f32) outs(%empty : tensor<1x7x7x1024xf32>) -> tensor<1x7x7x1024xf32>
  %result = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%input, %filter : tensor<1x7x7x1024xf32>, tensor<1x1x1024x1024xf32>) outs(%init : tensor<1x7x7x1024xf32>) -> tensor<1x7x7x1024xf32>
  return %result : tensor<1x7x7x1024xf32>
}
func.func @deep7(%input: tensor<1x7x7x2048xf32>, %filter: tensor<1x1x2048x512xf32>, %bias: tensor<512xf32>) -> tensor<1x7x7x512xf32> {
  %fill = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x7x7x512xf32>
  %init = linalg.fill ins(%fill : f32) outs(%empty : tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32>
  %result = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%input, %filter : tensor<1x7x7x2048xf32>, tensor<1x1x2048x512xf32>) outs(%init : tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32>
  %out = tensor.empty() : tensor<1x7x7x512xf32>
  %final = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%result, %bias : tensor<1x7x7x512xf32>, tensor<512xf32>) outs(%out : tensor<1x7x7x512xf32>) {
  ^bb0(%x: f32, %channel: f32, %o: f32):
    %sum = arith.addf %x, %channel : f32
    linalg.yield %sum : f32
  } -> tensor<1x7x7x512xf32>
  return %final : tensor<1x7x7x512xf32>
}
func.func @deep8(%input: tensor<1x16x16x256xf32>, %filter: tensor<3x3x256x320xf32>, %bias: tensor<320xf32>) -> tensor<1x14x14x320xf32> {
  %fill = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x14x14x320xf32>
  %init = linalg.fill ins(%fill : f32) outs(%empty : tensor<1x14x14x320xf32>) -> tensor<1x14x14x320xf32>
  %result = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%input, %filter : tensor<1x16x16x256xf32>, tensor<3x3x256x320xf32>) outs(%init : tensor<1x14x14x320xf32>) -> tensor<1x14x14x320xf32>
  %out = tensor.empty() : tensor<1x14x14x320xf32>
  %final = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%result, %bias : tensor<1x14x14x320xf32>, tensor<320xf32>) outs(%out : tensor<1x14x14x320xf32>) {
  ^bb0(%x: f32, %channel: f32, %o: f32):
    %sum = arith.addf %x, %channel : f32
    %zero = arith.constant 0.0 : f32
    %relu = arith.maximumf %sum, %zero : f32
    linalg.yield %relu : f32
  } -> tensor<1x14x14x320xf32>
  return %final : tensor<1x14x14x320xf32>
}
func.func @deep9(%input: tensor<1x6x6x512xf32>, %filter: tensor<3x3x512x768xf32>) -> tensor<1x4x4x768xf32> {
  %fill = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x4x4x768xf32>
  %init = linalg.fill ins(%fill : f32) outs(%empty : tensor<1x4x4x768xf32>) -> tensor<1x4x4x768xf32>
  %result = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%input, %filter : tensor<1x6x6x512xf32>, tensor<3x3x512x768xf32>) outs(%init : tensor<1x4x4x768xf32>) -> tensor<1x4x4x768xf32>
  return %result : tensor<1x4x4x768xf32>
}
func.func @deep10(%input: tensor<1x11x11x256xf32>, %filter: tensor<5x5x256x256xf32>, %bias: tensor<256xf32>) -> tensor<1x7x7x256xf32> {
  %fill = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x7x7x256xf32>
  %init = linalg.fill ins(%fill : f32) outs(%empty : tensor<1x7x7x256xf32>) -> tensor<1x7x7x256xf32>
  %result = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%input, %filter : tensor<1x11x11x256xf32>, tensor<5x5x256x256xf32>) outs(%init : tensor<1x7x7x256xf32>) -> tensor<1x7x7x256xf32>
  %out = tensor.empty() : tensor<1x7x7x256xf32>
  %final = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%result, %bias : tensor<1x7x7x256xf32>, tensor<256xf32>) outs(%out : tensor<1x7x7x256xf32>) {
  ^bb0(%x: f32, %channel: f32, %o: f32):
    %sum = arith.addf %x, %channel : f32
    linalg.yield %sum : f32
  } -> tensor<1x7x7x256xf32>
  return %final : tensor<1x7x7x256xf32>
}
func.func @deep11(%input: tensor<1x9x9x768xf32>, %filter: tensor<3x3x768x256xf32>, %bias: tensor<256xf32>) -> tensor<1x7x7x256xf32> {
  %fill = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x7x7x256xf32>
  %init = linalg.fill ins(%fill : f32) outs(%empty : tensor<1x7x7x256xf32>) -> tensor<1x7x7x256xf32>
  %result = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%input, %filter : tensor<1x9x9x768xf32>, tensor<3x3x768x256xf32>) outs(%init : tensor<1x7x7x256xf32>) -> tensor<1x7x7x256xf32>
  %out = tensor.empty() : tensor<1x7x7x256xf32>
  %final = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%result, %bias : tensor<1x7x7x256xf32>, tensor<256xf32>) outs(%out : tensor<1x7x7x256xf32>) {
  ^bb0(%x: f32, %channel: f32, %o: f32):
    %sum = arith.addf %x, %channel : f32
    %zero = arith.constant 0.0 : f32
    %relu = arith.maximumf %sum, %zero : f32
    linalg.yield %relu : f32
  } -> tensor<1x7x7x256xf32>
  return %final : tensor<1x7x7x256xf32>
}
func.func @deep12(%input: tensor<1x15x15x512xf32>, %filter: tensor<3x3x512x256xf32>) -> tensor<1x7x7x256xf32> {
  %fill = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x7x7x256xf32>
  %init = linalg.fill ins(%fill : f32) outs(%empty : tensor<1x7x7x256xf32>) -> tensor<1x7x7x256xf32>
  %result = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%input, %filter : tensor<1x15x15x512xf32>, tensor<3x3x512x256xf32>) outs(%init : tensor<1x7x7x256xf32>) -> tensor<1x7x7x256xf32>
  return %result : tensor<1x7x7x256xf32>
}
func.func @deep13(%input: tensor<1x9x9x512xf32>, %filter: tensor<3x3x512x256xf32>, %bias: tensor<256xf32>) -> tensor<1x7x7x256xf32> {
  %fill = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x7x7x256xf32>
  %init = linalg.fill ins(%fill : f32) outs(%empty : tensor<1x7x7x256xf32>) -> tensor<1x7x7x256xf32>
  %result = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%input, %filter : tensor<1x9x9x512xf32>, tensor<3x3x512x256xf32>) outs(%init : tensor<1x7x7x256xf32>) -> tensor<1x7x7x256xf32>
  %out = tensor.empty() : tensor<1x7x7x256xf32>
  %final = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%result, %bias : tensor<1x7x7x256xf32>, tensor<256xf32>) outs(%out : tensor<1x7x7x256xf32>) {
  ^bb0(%x: f32, %channel: f32, %o: f32):
    %sum = arith.addf %x, %channel : f32
    linalg.yield %sum : f32
  } -> tensor<1x7x7x256xf32>
  return %final : tensor<1x7x7x256xf32>
}
}
