"""Writes an ONNX CNN block with reference data (PyTorch), unfolded BatchNorm.

Usage: conv_block.py OUT_DIR -> OUT_DIR/model.onnx, OUT_DIR/test_data_set_0/

  x [1,4,10,10] -> Conv(4->8, 3x3, pad 1, bias) -> BatchNormalization -> Relu
    -> Conv(8->8, 3x3, pad 1, group 2) -> Add(residual from the Relu)
    -> MaxPool(3x3, stride 2, ceil_mode) -> y
"""
import os
import sys

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(os.path.join(out, "test_data_set_0"), exist_ok=True)
rng = np.random.default_rng(3)

def rand(*shape):
    return rng.standard_normal(shape).astype(np.float32)

w1, b1, w2 = rand(8, 4, 3, 3), rand(8), rand(8, 4, 3, 3)
scale, shift, mean = rand(8), rand(8), rand(8)
var = (rng.random(8) + 0.5).astype(np.float32)
inits = [numpy_helper.from_array(a, n) for a, n in
         [(w1, "w1"), (b1, "b1"), (w2, "w2"), (scale, "scale"),
          (shift, "shift"), (mean, "mean"), (var, "var")]]
nodes = [
    helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
    helper.make_node("BatchNormalization",
                     ["c1", "scale", "shift", "mean", "var"], ["bn"]),
    helper.make_node("Relu", ["bn"], ["r"]),
    helper.make_node("Conv", ["r", "w2"], ["c2"], pads=[1, 1, 1, 1], group=2),
    helper.make_node("Add", ["c2", "r"], ["s"]),
    helper.make_node("MaxPool", ["s"], ["y"], kernel_shape=[3, 3],
                     strides=[2, 2], ceil_mode=1),
]
graph = helper.make_graph(
    nodes, "conv_block",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 10, 10])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.save(model, os.path.join(out, "model.onnx"))

t = torch.from_numpy
x = rand(1, 4, 10, 10)
F = torch.nn.functional
with torch.no_grad():
    c1 = F.conv2d(t(x), t(w1), t(b1), padding=1)
    r = F.relu(F.batch_norm(c1, t(mean), t(var), t(scale), t(shift)))
    s = F.conv2d(r, t(w2), padding=1, groups=2) + r
    y = F.max_pool2d(s, 3, 2, ceil_mode=True).numpy()
for name, array in [("input_0", x), ("output_0", y)]:
    onnx.save_tensor(numpy_helper.from_array(array),
                     os.path.join(out, "test_data_set_0", name + ".pb"))
