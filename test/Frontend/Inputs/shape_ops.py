"""Writes an ONNX model that computes shapes and masks, with reference data.

Usage: shape_ops.py OUT_DIR -> OUT_DIR/model.onnx, OUT_DIR/test_data_set_0/

  s = Shape(x); n = Gather(s, 0); t = Concat(Unsqueeze(n), [-1])
  r = Reshape(x, t)                        # [2, 12], target computed
  m = Greater(r, 0)                        # bool mask at run time
  a = Where(m, r, Neg(r))                  # |r|
  f = Cast(m, FLOAT)
  y = Expand(a * f, ConstantOfShape([3]) * [3, 1, 1] ...)   # [3, 2, 12]
  z = Slice(r, starts=[11], ends=[-13], axes=[1], steps=[-2])  # reversed
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(os.path.join(out, "test_data_set_0"), exist_ok=True)

def const(name, values, dtype):
    return helper.make_node(
        "Constant", [], [name],
        value=numpy_helper.from_array(np.array(values, dtype=dtype), name))

nodes = [
    helper.make_node("Shape", ["x"], ["s"]),
    const("zero_index", 0, np.int64),
    helper.make_node("Gather", ["s", "zero_index"], ["n"], axis=0),
    const("axes0", [0], np.int64),
    helper.make_node("Unsqueeze", ["n", "axes0"], ["u"]),
    const("minus_one", [-1], np.int64),
    helper.make_node("Concat", ["u", "minus_one"], ["t"], axis=0),
    helper.make_node("Reshape", ["x", "t"], ["r"]),
    const("zero", 0.0, np.float32),
    helper.make_node("Greater", ["r", "zero"], ["m"]),
    helper.make_node("Neg", ["r"], ["neg"]),
    helper.make_node("Where", ["m", "r", "neg"], ["a"]),
    helper.make_node("Cast", ["m"], ["f"], to=TensorProto.FLOAT),
    helper.make_node("Mul", ["a", "f"], ["af"]),
    const("three", [1], np.int64),
    helper.make_node("ConstantOfShape", ["three"], ["ones"],
                     value=numpy_helper.from_array(np.array([3], np.int64))),
    helper.make_node("Shape", ["r"], ["rs"]),
    helper.make_node("Concat", ["ones", "rs"], ["target"], axis=0),
    helper.make_node("Expand", ["af", "target"], ["y"]),
    const("starts", [11], np.int64),
    const("ends", [-13], np.int64),
    const("axes1", [1], np.int64),
    const("steps", [-2], np.int64),
    helper.make_node("Slice", ["r", "starts", "ends", "axes1", "steps"],
                     ["z"]),
]
graph = helper.make_graph(
    nodes, "shape_ops",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
     helper.make_tensor_value_info("z", TensorProto.FLOAT, None)])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.save(model, os.path.join(out, "model.onnx"))

x = np.random.default_rng(7).standard_normal((2, 3, 4)).astype(np.float32)
r = x.reshape(2, -1)
y = np.broadcast_to(np.abs(r) * (r > 0), (3, 2, 12)).astype(np.float32)
z = r[:, 11::-2]
for name, array in [("input_0", x), ("output_0", y), ("output_1", z)]:
    onnx.save_tensor(numpy_helper.from_array(np.ascontiguousarray(array)),
                     os.path.join(out, "test_data_set_0", name + ".pb"))
