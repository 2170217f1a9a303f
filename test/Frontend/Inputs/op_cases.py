"""Writes ONNX node tests for cases that libonnx-testdata does not cover in
types tcl compiles: integer and bool results inside a graph (cast to float
before the graph's output), float versions of tests it has only in double
or int64, and operators newer than its opset 17.

Usage: op_cases.py OUT_DIR -> OUT_DIR/test_<case>/{model.onnx,
test_data_set_0/{input,output}_N.pb}, the layout tcl-onnx-conformance reads.
"""
import math
import sys

import numpy as np
from onnx import helper, numpy_helper

from onnx_cases import FLOAT, INT64, write_node_test

out = sys.argv[1]
rng = np.random.default_rng(19)


def case(name, nodes, inputs, outputs, opset=17):
    """inputs: [(name, array)]; outputs: [(name, array)] (float32)."""
    write_node_test(out, name, nodes, inputs, outputs, opset=opset)


def node(op, ins, outs, **attrs):
    return helper.make_node(op, ins, outs, **attrs)


def to_float(i, o):
    return node("Cast", [i], [o], to=FLOAT)


def f32(a):
    return np.asarray(a, np.float32)


# ArgMax/ArgMin on values with ties: the first index, or the last with
# select_last_index; the i64 result cast to float.
x = f32(rng.integers(0, 3, (3, 4, 5)))
for op, fn in (("ArgMax", np.argmax), ("ArgMin", np.argmin)):
    lower = op.lower()
    case(f"{lower}_ties_cast",
         [node(op, ["x"], ["i"], axis=1), to_float("i", "y")],
         [("x", x)], [("y", f32(np.expand_dims(fn(x, 1), 1)))])
    last = x.shape[2] - 1 - fn(x[:, :, ::-1], 2)
    case(f"{lower}_last_index_cast",
         [node(op, ["x"], ["i"], axis=-1, keepdims=0, select_last_index=1),
          to_float("i", "y")],
         [("x", x)], [("y", f32(last))])

# A NaN is the maximum, at its first index (as in numpy).
xn = f32(rng.standard_normal((2, 5)))
xn[0, 1] = xn[0, 3] = np.nan
case("argmax_nan_cast",
     [node("ArgMax", ["x"], ["i"], axis=1, keepdims=0), to_float("i", "y")],
     [("x", xn)], [("y", f32(np.argmax(xn, 1)))])

# Mod on integers computed at run time: Python's sign (fmod=0) and C's
# (fmod=1); a zero divisor gives 0 as in numpy.
a = f32([-7, 7, -7, 7, 5, -4, 9, 3])
b = np.array([3, -3, -3, 3, 0, 2, -4, 5], np.int64)
for fmod in (0, 1):
    with np.errstate(divide="ignore"):
        want = np.fmod(a.astype(np.int64), np.where(b == 0, 1, b)) if fmod \
            else np.mod(a.astype(np.int64), b)
    want = np.where(b == 0, 0, want)
    case(f"mod_int_fmod{fmod}_cast",
         [node("Cast", ["a"], ["ai"], to=INT64),
          node("Mod", ["ai", "b"], ["m"], fmod=fmod), to_float("m", "y")],
         [("a", a), ("b", b)], [("y", f32(want))])

# Not, And, Or, Xor on masks computed at run time.
p, q = f32(rng.standard_normal((3, 4))), f32(rng.standard_normal((4,)))
mp, mq = p > 0, q > 0
case("logical_cast",
     [node("Constant", [], ["zero"],
           value=numpy_helper.from_array(f32(0), "zero")),
      node("Greater", ["p", "zero"], ["mp"]),
      node("Greater", ["q", "zero"], ["mq"]),
      node("And", ["mp", "mq"], ["and"]), node("Or", ["mp", "mq"], ["or"]),
      node("Xor", ["mp", "mq"], ["xor"]), node("Not", ["mp"], ["not"]),
      to_float("and", "y_and"), to_float("or", "y_or"),
      to_float("xor", "y_xor"), to_float("not", "y_not")],
     [("p", p), ("q", q)],
     [("y_and", f32(mp & mq)), ("y_or", f32(mp | mq)),
      ("y_xor", f32(mp ^ mq)), ("y_not", f32(~mp))])

# Integer reductions at run time.
v = f32(rng.integers(-3, 4, (2, 3, 4)))
vi = v.astype(np.int64)
for op, fn in (("ReduceSum", np.sum), ("ReduceProd", np.prod),
               ("ReduceMax", np.max), ("ReduceMin", np.min)):
    nodes = [node("Cast", ["v"], ["vi"], to=INT64)]
    if op == "ReduceSum":
        nodes += [node("Constant", [], ["axes"], value=numpy_helper.from_array(
            np.array([0, 2], np.int64), "axes")),
            node(op, ["vi", "axes"], ["r"], keepdims=0)]
    else:
        nodes += [node(op, ["vi"], ["r"], axes=[0, 2], keepdims=0)]
    case(f"{op.lower()}_int_cast", nodes + [to_float("r", "y")], [("v", v)],
         [("y", f32(fn(vi, axis=(0, 2))))])

# Dropout's mask (all true at inference).
d = f32(rng.standard_normal((2, 3)))
case("dropout_mask_cast",
     [node("Dropout", ["d"], ["y", "mask"]), to_float("mask", "m")],
     [("d", d)], [("y", d), ("m", f32(np.ones_like(d)))])

# Trilu on floats, k an input bound at compile time.
t = f32(rng.standard_normal((2, 4, 5)))
for upper, k in ((1, 1), (0, -1), (1, -2), (0, 0)):
    keep = np.triu(t, k) if upper else np.tril(t, k)
    case(f"trilu_upper{upper}_k{k}_float",
         [node("Trilu", ["t", "k"], ["y"], upper=upper)],
         [("t", t), ("k", np.array(k, np.int64))], [("y", keep)])

# CumSum on floats (the node tests are double).
c = f32(rng.standard_normal((3, 4)))
for exclusive in (0, 1):
    for reverse in (0, 1):
        for axis in (0, -1):
            s = np.flip(c, axis) if reverse else c
            s = np.cumsum(s, axis)
            if exclusive:
                s = s - (np.flip(c, axis) if reverse else c)
            s = np.flip(s, axis) if reverse else s
            case(f"cumsum_excl{exclusive}_rev{reverse}_axis{axis % 2}_float",
                 [node("CumSum", ["c", "axis"], ["y"], exclusive=exclusive,
                       reverse=reverse)],
                 [("c", c), ("axis", np.array(axis, np.int64))], [("y", f32(s))])

# ReduceLogSumExp on floats, with a large value that would overflow exp.
e = f32(rng.standard_normal((3, 4, 2)))
e[0, 0, 0] = 100.0
for axes, keep in (([1], 1), (None, 0)):
    m = np.max(e.astype(np.float64), axis=tuple(axes) if axes else None,
               keepdims=True)
    want = np.log(np.sum(np.exp(e - m), axis=tuple(axes) if axes else None,
                         keepdims=True)) + m
    if not keep:
        want = want.reshape(())
    attrs = {"axes": axes} if axes else {}
    case(f"reduce_log_sum_exp_{'axis1' if axes else 'all'}_float",
         [node("ReduceLogSumExp", ["e"], ["y"], keepdims=keep, **attrs)],
         [("e", e)], [("y", f32(want))])

# Pad on floats in each mode; negative pads crop.
g = f32(rng.standard_normal((2, 3, 4)))
for mode, pads in (("reflect", [0, 2, 1, 0, 1, 3]), ("edge", [1, 0, 2, 0, 3, 1]),
                   ("wrap", [0, 1, 2, 0, 2, 3])):
    width = list(zip(pads[:3], pads[3:]))
    case(f"pad_{mode}_float",
         [node("Pad", ["g", "pads"], ["y"], mode=mode)],
         [("g", g), ("pads", np.array(pads, np.int64))],
         [("y", np.pad(g, width, mode={"edge": "edge", "reflect": "reflect",
                                       "wrap": "wrap"}[mode]))])
case("pad_constant_crop_float",
     [node("Constant", [], ["value"],
           value=numpy_helper.from_array(f32(1.5), "value")),
      node("Pad", ["g", "pads", "value"], ["y"])],
     [("g", g), ("pads", np.array([0, -1, 2, 1, 1, -1], np.int64))],
     [("y", np.pad(g[:, 1:, :3], [(0, 1), (0, 1), (2, 0)],
                   constant_values=1.5))])

# Gelu (opset 20) and Mish (opset 18).
h = f32(rng.standard_normal((3, 5)) * 3)
erf = np.vectorize(math.erf)
case("gelu_float", [node("Gelu", ["h"], ["y"])], [("h", h)],
     [("y", f32(0.5 * h * (1 + erf(h / math.sqrt(2)))))], opset=20)
case("gelu_tanh_float", [node("Gelu", ["h"], ["y"], approximate="tanh")],
     [("h", h)],
     [("y", f32(0.5 * h * (1 + np.tanh(math.sqrt(2 / math.pi) *
                                       (h + 0.044715 * h ** 3)))))],
     opset=20)
case("mish_float", [node("Mish", ["h"], ["y"])], [("h", h)],
     [("y", f32(h * np.tanh(np.log1p(np.exp(h)))))], opset=18)

# GroupNormalization: scale and bias per channel (opset 21) or per group
# (opset 18).
n = f32(rng.standard_normal((2, 6, 3, 2)))
grouped = n.reshape(2, 3, -1)
standard = ((grouped - grouped.mean(2, keepdims=True)) /
            np.sqrt(grouped.var(2, keepdims=True) + 1e-5))
for opset, count in ((21, 6), (18, 3)):
    scale, bias = f32(rng.standard_normal(count)), f32(rng.standard_normal(count))
    if opset == 21:
        want = standard.reshape(n.shape) * scale.reshape(6, 1, 1) + \
            bias.reshape(6, 1, 1)
    else:
        want = (standard * scale.reshape(3, 1) +
                bias.reshape(3, 1)).reshape(n.shape)
    case(f"group_normalization_opset{opset}_float",
         [node("GroupNormalization", ["n", "scale", "bias"], ["y"],
               num_groups=3)],
         [("n", n), ("scale", scale), ("bias", bias)], [("y", f32(want))],
         opset=opset)

# LpNormalization, L1 and L2.
l = f32(rng.standard_normal((3, 4)))
for p, axis in ((1, 0), (2, -1)):
    norm = np.sum(np.abs(l) ** p, axis=axis, keepdims=True) ** (1 / p)
    case(f"lp_normalization_p{p}_float",
         [node("LpNormalization", ["l"], ["y"], p=p, axis=axis)], [("l", l)],
         [("y", f32(l / norm))])

# Tile in three dimensions.
case("tile_3d_float", [node("Tile", ["g", "repeats"], ["y"])],
     [("g", g), ("repeats", np.array([2, 1, 3], np.int64))],
     [("y", np.tile(g, (2, 1, 3)))])

# Resize with constant scales (the node tests pass them at run time) against
# PyTorch's interpolate: bilinear with half_pixel and align_corners, nearest
# with asymmetric floor.
import torch  # noqa: E402

r = f32(rng.standard_normal((1, 2, 3, 4)))
rt = torch.from_numpy(r)
for name, attrs, scales, sizes, want in (
        ("linear_half_pixel_scales", {"mode": "linear"}, [1, 1, 2, 2], None,
         torch.nn.functional.interpolate(rt, scale_factor=2, mode="bilinear",
                                         align_corners=False)),
        ("linear_align_corners_sizes",
         {"mode": "linear", "coordinate_transformation_mode": "align_corners"},
         None, [1, 2, 5, 7],
         torch.nn.functional.interpolate(rt, size=(5, 7), mode="bilinear",
                                         align_corners=True)),
        ("nearest_asymmetric_floor_scales",
         {"mode": "nearest", "coordinate_transformation_mode": "asymmetric",
          "nearest_mode": "floor"}, [1, 1, 2, 3], None,
         torch.nn.functional.interpolate(rt, scale_factor=(2, 3),
                                         mode="nearest"))):
    extra = [node("Constant", [], ["scales"], value=numpy_helper.from_array(
        f32(scales), "scales"))] if scales else \
        [node("Constant", [], ["sizes"], value=numpy_helper.from_array(
            np.array(sizes, np.int64), "sizes"))]
    ins = ["r", "", "scales"] if scales else ["r", "", "", "sizes"]
    case(f"resize_{name}_float", extra + [node("Resize", ins, ["y"], **attrs)],
         [("r", r)], [("y", want.numpy())])

# ConvTranspose with what the node tests leave out (constant weights, groups,
# bias, output_padding, 1-D with dilation), against PyTorch.
ct_x = f32(rng.standard_normal((1, 4, 5, 5)))
ct_w = f32(rng.standard_normal((4, 3, 3, 3)))
ct_b = f32(rng.standard_normal(6))
ct_want = torch.nn.functional.conv_transpose2d(
    torch.from_numpy(ct_x), torch.from_numpy(ct_w), torch.from_numpy(ct_b),
    stride=2, padding=1, output_padding=1, groups=2).numpy()
ct_attrs = {"strides": [2, 2], "pads": [1, 1, 1, 1],
            "output_padding": [1, 1], "group": 2}
case("convtranspose_groups2_bias_const",
     [node("Constant", [], ["w"], value=numpy_helper.from_array(ct_w, "w")),
      node("Constant", [], ["b"], value=numpy_helper.from_array(ct_b, "b")),
      node("ConvTranspose", ["x", "w", "b"], ["y"], **ct_attrs)],
     [("x", ct_x)], [("y", ct_want)])
case("convtranspose_groups2_bias_runtime",
     [node("ConvTranspose", ["x", "w", "b"], ["y"], **ct_attrs)],
     [("x", ct_x), ("w", ct_w), ("b", ct_b)], [("y", ct_want)])
ct1_x = f32(rng.standard_normal((1, 2, 6)))
ct1_w = f32(rng.standard_normal((2, 3, 3)))
case("convtranspose_1d_dilated_const",
     [node("Constant", [], ["w"], value=numpy_helper.from_array(ct1_w, "w")),
      node("ConvTranspose", ["x", "w"], ["y"], strides=[3], dilations=[2])],
     [("x", ct1_x)],
     [("y", torch.nn.functional.conv_transpose1d(
         torch.from_numpy(ct1_x), torch.from_numpy(ct1_w), stride=3,
         dilation=2).numpy())])

# 3x3 stride-1 convolutions with constant filters, which tcl computes by
# Winograd's algorithm (tcl-winograd-convolutions): F(4x4, 3x3) on an 8x8
# map with a bias and ReLU (fused into the output transform), F(2x2, 3x3) on
# a 6x6 map with a batch of 2; against PyTorch's direct convolution.
for name, x_shape, w_shape in (("f4x4_bias_relu", (1, 16, 8, 8), (24, 16, 3, 3)),
                               ("f2x2_batch2", (2, 16, 6, 6), (40, 16, 3, 3))):
    wg_x = f32(rng.standard_normal(x_shape))
    wg_w = f32(rng.standard_normal(w_shape) / 12)
    wg_b = f32(rng.standard_normal(w_shape[0]))
    wg_want = torch.relu(torch.nn.functional.conv2d(
        torch.from_numpy(wg_x), torch.from_numpy(wg_w), torch.from_numpy(wg_b),
        padding=1)).numpy()
    case(f"conv_winograd_{name}_const",
         [node("Constant", [], ["w"], value=numpy_helper.from_array(wg_w, "w")),
          node("Constant", [], ["b"], value=numpy_helper.from_array(wg_b, "b")),
          node("Conv", ["x", "w", "b"], ["c"], kernel_shape=[3, 3],
               pads=[1, 1, 1, 1]),
          node("Relu", ["c"], ["y"])],
         [("x", wg_x)], [("y", wg_want)])

# Gemm with constant weights stored transposed (transB=1, as a classifier's
# are): imported as a plain matmul on the weights transposed at import time.
gemm_a = f32(rng.standard_normal((3, 5)))
gemm_b = f32(rng.standard_normal((4, 5)))
gemm_c = f32(rng.standard_normal((4,)))
case("gemm_const_transposed_b",
     [node("Constant", [], ["b"], value=numpy_helper.from_array(gemm_b, "b")),
      node("Constant", [], ["c"], value=numpy_helper.from_array(gemm_c, "c")),
      node("Gemm", ["a", "b", "c"], ["y"], transB=1, alpha=0.5, beta=2.0)],
     [("a", gemm_a)], [("y", f32(0.5 * gemm_a @ gemm_b.T + 2.0 * gemm_c))])
