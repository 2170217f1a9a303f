"""Writes malformed ONNX models, one per case, that tcl must refuse cleanly.

Usage: malformed_models.py OUT_DIR -> OUT_DIR/<case>.onnx

Each model breaks one rule (found by fuzzing: a crash, or a silent
miscompile).
"""
import sys

import numpy as np
from onnx import helper

from onnx_cases import INT64, const, init, save_model, value

out = sys.argv[1]


def save(case, nodes, inputs, outputs=None, initializers=(), opset=13):
    save_model(out, case, nodes, inputs, outputs, initializers, opset)


x23 = [value("x", [2, 3])]
ints = [value("y", None, INT64)]  # The output of an integer case.
x4 = [value("x", [1, 3, 8, 8])]
weights = [init("w", np.ones((4, 3, 3, 3)))]

# 1. A node with no output.
save("no_output", [helper.make_node("Relu", ["x"], [], name="n")], x23)

# 2. Import-time evaluation with an input missing or left empty.
save("expand_empty_input",
     [const("c", [1.0, 2.0], np.float32),
      helper.make_node("Expand", ["c", ""], ["y"], name="e")], x23)
save("gather_missing_input",
     [const("c", [1, 2, 3]),
      helper.make_node("Gather", ["c"], ["y"], name="g")], x23, ints)

# 4. Negative or huge shapes.
save("constant_of_shape_negative",
     [const("s", [-1]),
      helper.make_node("ConstantOfShape", ["s"], ["y"], name="c")], x23)
save("constant_of_shape_huge",
     [const("s", [2**62]),
      helper.make_node("ConstantOfShape", ["s"], ["y"], name="c")], x23)
save("range_huge",
     [const("a", 0), const("b", 10**18), const("d", 1),
      helper.make_node("Range", ["a", "b", "d"], ["y"], name="r")],
     x23, ints)
save("expand_negative",
     [const("s", [-4, 3]),
      helper.make_node("Expand", ["x", "s"], ["y"], name="e")],
     [value("x", [1, 3])])
save("expand_huge",
     [const("c", [1.0, 2.0, 3.0], np.float32), const("s", [2**20, 2**20, 3]),
      helper.make_node("Expand", ["c", "s"], ["y"], name="e")], x23)
save("input_huge", [helper.make_node("Relu", ["x"], ["y"], name="r")],
     [value("x", [2**62, 4])])

# 5. Axes out of range.
for case, axis in [("flatten_axis_minus3", -3), ("flatten_axis_minus10", -10),
                   ("flatten_axis_huge", 2**40), ("flatten_axis_3", 3)]:
    save(case, [helper.make_node("Flatten", ["x"], ["y"], name="f",
                                 axis=axis)], x23)
save("unsqueeze_axis_5",
     [const("axes", [5]),
      helper.make_node("Unsqueeze", ["x", "axes"], ["y"], name="u")], x23)
save("unsqueeze_axis_twice",
     [const("axes", [0, -4]),
      helper.make_node("Unsqueeze", ["x", "axes"], ["y"], name="u")], x23)

# 6. Window attributes out of range.
save("conv_strides_0",
     [helper.make_node("Conv", ["x", "w"], ["y"], name="c", strides=[0, 0])],
     x4, initializers=weights)
save("maxpool_strides_negative",
     [helper.make_node("MaxPool", ["x"], ["y"], name="p", kernel_shape=[2, 2],
                       strides=[-1, 1])], x4)
save("averagepool_strides_0",
     [helper.make_node("AveragePool", ["x"], ["y"], name="p",
                       kernel_shape=[2, 2], strides=[1, 0])], x4)
save("conv_pads_negative",
     [helper.make_node("Conv", ["x", "w"], ["y"], name="c",
                       pads=[0, -1, 0, 0])], x4, initializers=weights)

# 7. Window ranks that disagree.
save("conv_input_2d",
     [helper.make_node("Conv", ["x", "w"], ["y"], name="c")], x23,
     initializers=weights)
save("conv_weights_5d",
     [helper.make_node("Conv", ["x", "w"], ["y"], name="c")], x4,
     initializers=[init("w", np.ones((4, 3, 3, 3, 3)))])
# ... where the rank is known only through the nodes before: a Reshape to
# 2-D, a Gather that drops a dimension, a MatMul of a vector.
save("reshape_then_conv",
     [helper.make_node("Reshape", ["x", "s"], ["r"], name="r"),
      helper.make_node("Conv", ["r", "w"], ["y"], name="c")], x4,
     initializers=weights + [init("s", [3, 64], np.int64)])
save("gather_then_pool",
     [helper.make_node("Gather", ["x", "i"], ["g"], name="g", axis=0),
      helper.make_node("MaxPool", ["g"], ["y"], name="p",
                       kernel_shape=[2, 2])], x4,
     initializers=[init("i", 0, np.int64)])
save("matmul_then_conv",
     [helper.make_node("MatMul", ["x", "v"], ["m"], name="m"),
      helper.make_node("Conv", ["m", "w"], ["y"], name="c")], x4,
     initializers=weights + [init("v", np.ones(8))])

# 8. Undefined integer division at import time.
save("div_overflow",
     [const("a", [-2**63]), const("b", [-1]),
      helper.make_node("Div", ["a", "b"], ["y"], name="d")], x23, ints)
save("div_by_zero",
     [const("a", [5]), const("b", [0]),
      helper.make_node("Div", ["a", "b"], ["y"], name="d")], x23, ints)
# int64 overflow in a shape computation at import time.
for op in ("Add", "Sub", "Mul"):
    operand = {"Add": [2**62, 2**62], "Sub": [-2**63, 1],
               "Mul": [2**32, 2**32]}[op]
    save(f"{op.lower()}_overflow",
         [const("a", [operand[0]]), const("b", [operand[1]]),
          helper.make_node(op, ["a", "b"], ["y"], name="o")], x23, ints)
save("neg_overflow",
     [const("a", [-2**63]), helper.make_node("Neg", ["a"], ["y"], name="o")],
     x23, ints)

# 9. An input that nothing defines (ONNX shape inference dereferences its
# type).
save("maxunpool_undefined_indices",
     [helper.make_node("MaxUnpool", ["x", "i"], ["y"], name="u",
                       kernel_shape=[2, 2], strides=[2, 2])], x4)

# 10. A required attribute left out (ONNX shape inference reads it).
scan_body = helper.make_graph(
    [helper.make_node("Add", ["s", "n"], ["s2"]),
     helper.make_node("Identity", ["s2"], ["o"])], "body",
    [value("s", [3]), value("n", [3])], [value("s2", [3]), value("o", [3])])
save("scan_without_num_scan_inputs",
     [helper.make_node("Scan", ["x", "x"], ["y", "z"], name="scan",
                       body=scan_body)], [value("x", [2, 3])],
     outputs=[value("y", None), value("z", None)])

# 11. A LayerNormalization axis below -rank, with the Mean and InvStdDev
# outputs (ONNX shape inference indexes by it).
save("layernorm_axis_minus5",
     [helper.make_node("LayerNormalization", ["x", "w"], ["y", "m", "s"],
                       name="n", axis=-5)], [value("x", [2, 3]),
                                             value("w", [3])], opset=17)

# Invalid models that used to compile.
save("concat_mismatch",
     [helper.make_node("Concat", ["x", "z"], ["y"], name="c", axis=0)],
     [value("x", [2, 3]), value("z", [2, 5])])
save("batchnorm_scale_5",
     [helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"],
                       name="bn")], x4,
     initializers=[init("s", np.ones(5)), init("b", np.zeros(3)),
                   init("m", np.zeros(3)), init("v", np.ones(3))])
save("conv_kernel_mismatch",
     [helper.make_node("Conv", ["x", "w"], ["y"], name="c",
                       kernel_shape=[5, 5])], x4, initializers=weights)
save("squeeze_axis_out_of_range",
     [const("axes", [3]),
      helper.make_node("Squeeze", ["x", "axes"], ["y"], name="s")],
     [value("x", [2, 1, 3])])
save("duplicate_output",
     [helper.make_node("Relu", ["x"], ["y"], name="a"),
      helper.make_node("Sigmoid", ["x"], ["y"], name="b")], x23)
save("add_one_input", [helper.make_node("Add", ["x"], ["y"], name="a")], x23)
save("slice_duplicate_axes",
     [const("starts", [0, 1]), const("ends", [2, 3]), const("axes", [1, -1]),
      helper.make_node("Slice", ["x", "starts", "ends", "axes"], ["y"],
                       name="s")], [value("x", [4, 4])])
# Inputs of a type the operator's schema does not take, or of two types for
# one type parameter (found by tcl-fuzz-onnx: an int64 bias of a float
# LayerNormalization became an arith.addf of an i64, IR that does not
# verify).
save("layernorm_int64_bias",
     [helper.make_node("LayerNormalization", ["x", "w", "b"], ["y"],
                       name="n", axis=-1)],
     [value("x", [2, 3]), value("w", [3]), value("b", [3], INT64)],
     opset=17)
save("add_float_int64",
     [helper.make_node("Add", ["x", "z"], ["y"], name="a")],
     [value("x", [2, 3]), value("z", [2, 3], INT64)])
