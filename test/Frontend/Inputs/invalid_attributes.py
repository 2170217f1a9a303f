"""Writes ONNX models whose nodes have attribute values or inputs tcl
refuses (invalid, or a case it does not support), one per case.

Usage: invalid_attributes.py OUT_DIR -> OUT_DIR/<case>.onnx
"""
import sys

import numpy as np
from onnx import helper

from onnx_cases import FLOAT, INT64, const, save_model, value

out = sys.argv[1]


def save(case, nodes, inputs, opset=13):
    save_model(out, case, nodes, inputs, opset=opset)


def node(op, ins, name, **attrs):
    return helper.make_node(op, ins, ["y"], name=name, **attrs)


x23 = [value("x", [2, 3])]
x4 = [value("x", [1, 6, 2, 2])]

save("gelu_approximate", [node("Gelu", ["x"], "g", approximate="fast")], x23,
     opset=20)
save("pad_mode", [const("pads", [0, 1, 0, 1]),
                  node("Pad", ["x", "pads"], "p", mode="mirror")], x23)
save("pad_reflect_too_wide", [const("pads", [0, 3, 0, 0]),
                              node("Pad", ["x", "pads"], "p", mode="reflect")],
     x23)
save("pad_count", [const("pads", [1, 1, 1]), node("Pad", ["x", "pads"], "p")],
     x23)
save("depth_to_space_mode",
     [node("DepthToSpace", ["x"], "d", blocksize=1, mode="XYZ")], x4)
save("depth_to_space_channels",
     [node("DepthToSpace", ["x"], "d", blocksize=2)], x4)
save("space_to_depth_blocksize",
     [node("SpaceToDepth", ["x"], "s", blocksize=0)], x4)
save("mod_float_fmod0", [node("Mod", ["x", "x"], "m")], x23)
save("lp_normalization_p3", [node("LpNormalization", ["x"], "l", p=3)], x23)
save("reduce_axis_twice", [node("ReduceMax", ["x"], "r", axes=[1, -1])], x23)
save("reduce_l2_noop",
     [node("ReduceL2", ["x"], "r", noop_with_empty_axes=1)], x23, opset=18)
save("argmax_axis", [node("ArgMax", ["x"], "a", axis=2)], x23)
save("tile_repeats_count", [const("r", [2]), node("Tile", ["x", "r"], "t")],
     x23)
save("tile_repeats_zero", [const("r", [0, 1]), node("Tile", ["x", "r"], "t")],
     x23)
save("dropout_training",
     [const("ratio", 0.5, np.float32), const("training", True, np.bool_),
      node("Dropout", ["x", "ratio", "training"], "d")], x23)
save("lrn_size_0", [node("LRN", ["x"], "l", size=0)], x4)
save("group_normalization_groups",
     [const("scale", np.ones(6), np.float32),
      const("bias", np.zeros(6), np.float32),
      node("GroupNormalization", ["x", "scale", "bias"], "g", num_groups=4)],
     x4, opset=21)
save("trilu_rank1", [node("Trilu", ["x"], "t")], [value("x", [3])])
save("cumsum_axis_runtime",
     [const("zero", [0], np.int64),
      helper.make_node("Cast", ["x"], ["xi"], to=INT64),
      helper.make_node("ReduceMin", ["xi"], ["axis"], keepdims=0),
      node("CumSum", ["x", "axis"], "c")], x23)
save("prelu_slope", [const("slope", np.ones(4), np.float32),
                     node("PRelu", ["x", "slope"], "p")], x23)
save("resize_cubic", [const("sizes", [1, 6, 4, 4]),
                      node("Resize", ["x", "", "", "sizes"], "r",
                           mode="cubic")], x4)
save("resize_runtime_scales",
     [helper.make_node("Shape", ["x"], ["s"]),
      helper.make_node("Cast", ["s"], ["sf"], to=FLOAT),
      helper.make_node("Div", ["sf", "sf"], ["ones"]),
      helper.make_node("Add", ["ones", "ones"], ["twos"]),
      helper.make_node("ReduceMax", ["x"], ["m"], keepdims=0),
      helper.make_node("Mul", ["twos", "m"], ["scales"]),
      node("Resize", ["x", "", "scales"], "r")], x4)
