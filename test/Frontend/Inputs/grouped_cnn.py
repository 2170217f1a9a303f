"""Writes two ONNX models with grouped convolutions and reference data.

Usage: grouped_cnn.py OUT_DIR
  OUT_DIR/resnext: a small ResNeXt-style CNN exported from PyTorch (seeded,
    batch 1, 3x32x32 input): a stem, two bottleneck stages whose 3x3
    convolutions have groups of 8 channels (4 and 8 groups, the second with
    stride 2), global average pooling and a linear classifier.
  OUT_DIR/multiplier: one Conv with group = C = 4 and 8 filters (a
    depthwise convolution with channel multiplier 2), stride 2, bias.
  OUT_DIR/batchnorm: Conv (8 -> 8 channels in 2 groups, bias) ->
    BatchNormalization -> Relu, the BatchNorm not folded by an exporter.
Each directory has model.onnx and test_data_set_0/{input_0,output_0}.pb.
"""
import os
import sys

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

nn = torch.nn


def bn(channels):
    norm = nn.BatchNorm2d(channels)
    # Non-trivial statistics, so that the folded BatchNorm matters.
    norm.running_mean.uniform_(-0.5, 0.5)
    norm.running_var.uniform_(0.5, 1.5)
    norm.weight.data.uniform_(0.5, 1.5)
    norm.bias.data.uniform_(-0.5, 0.5)
    return norm


class Bottleneck(nn.Module):
    def __init__(self, cin, width, cout, stride, group_width=8):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(cin, width, 1, bias=False), bn(width), nn.ReLU(),
            nn.Conv2d(width, width, 3, stride, 1, groups=width // group_width,
                      bias=False), bn(width), nn.ReLU(),
            nn.Conv2d(width, cout, 1, bias=False), bn(cout))
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride, bias=False), bn(cout))

    def forward(self, x):
        return torch.relu(self.body(x) + self.shortcut(x))


class ResNeXt(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False),
                                  bn(16), nn.ReLU())
        self.stages = nn.Sequential(Bottleneck(16, 32, 32, 1),
                                    Bottleneck(32, 64, 64, 2))
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        x = self.stages(self.stem(x))
        return self.head(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1),
                                       1))


def save_data(directory, x, y):
    data = os.path.join(directory, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    for name, array in [("input_0", x), ("output_0", y)]:
        onnx.save_tensor(numpy_helper.from_array(array),
                         os.path.join(data, name + ".pb"))


def resnext(directory):
    torch.manual_seed(0)
    with torch.no_grad():
        model = ResNeXt().eval()
        x = torch.randn(1, 3, 32, 32, generator=torch.Generator().manual_seed(1))
        os.makedirs(directory, exist_ok=True)
        torch.onnx.export(model, x, os.path.join(directory, "model.onnx"),
                          opset_version=13, input_names=["input"],
                          output_names=["output"], do_constant_folding=True)
        save_data(directory, x.numpy(), model(x).numpy())


def multiplier(directory):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 4, 9, 9)).astype(np.float32)
    w = rng.standard_normal((8, 1, 3, 3)).astype(np.float32)
    b = rng.standard_normal(8).astype(np.float32)
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], group=4,
                            strides=[2, 2], pads=[1, 1, 1, 1])
    graph = helper.make_graph(
        [node], "multiplier",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 9, 9])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    os.makedirs(directory, exist_ok=True)
    onnx.save(helper.make_model(graph,
                                opset_imports=[helper.make_opsetid("", 17)]),
              os.path.join(directory, "model.onnx"))
    t = torch.from_numpy
    y = torch.nn.functional.conv2d(t(x), t(w), t(b), stride=2, padding=1,
                                   groups=4)
    save_data(directory, x, y.numpy())


def batchnorm(directory):
    rng = np.random.default_rng(6)
    rand = lambda *shape: rng.standard_normal(shape).astype(np.float32)
    x, w, b = rand(1, 8, 6, 6), rand(8, 4, 3, 3), rand(8)
    scale, shift, mean = rand(8), rand(8), rand(8)
    var = (rng.random(8) + 0.5).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], group=2,
                         pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization",
                         ["c", "scale", "shift", "mean", "var"], ["n"]),
        helper.make_node("Relu", ["n"], ["y"]),
    ]
    inits = [numpy_helper.from_array(a, n) for a, n in
             [(w, "w"), (b, "b"), (scale, "scale"), (shift, "shift"),
              (mean, "mean"), (var, "var")]]
    graph = helper.make_graph(
        nodes, "batchnorm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 6, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    os.makedirs(directory, exist_ok=True)
    onnx.save(helper.make_model(graph,
                                opset_imports=[helper.make_opsetid("", 17)]),
              os.path.join(directory, "model.onnx"))
    t = torch.from_numpy
    F = torch.nn.functional
    c = F.conv2d(t(x), t(w), t(b), padding=1, groups=2)
    y = F.relu(F.batch_norm(c, t(mean), t(var), t(scale), t(shift)))
    save_data(directory, x, y.numpy())


torch.set_num_threads(1)
resnext(os.path.join(sys.argv[1], "resnext"))
multiplier(os.path.join(sys.argv[1], "multiplier"))
batchnorm(os.path.join(sys.argv[1], "batchnorm"))
