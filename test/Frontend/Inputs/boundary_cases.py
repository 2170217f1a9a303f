"""Writes ONNX tests whose graph inputs or outputs are integers or bools, in
the layout tcl-onnx-conformance reads: token ids into an embedding table
(int64 and int32, with negative ids), a bool mask, an ArgMax result returned
as int64, a uint8 image scaled to float, and a gather by a 2-D id matrix.

Usage: boundary_cases.py OUT_DIR -> OUT_DIR/test_<case>/{model.onnx,
test_data_set_0/{input,output}_N.pb}.
"""
import sys

import numpy as np
import onnx
from onnx import helper

from onnx_cases import write_node_test

out = sys.argv[1]
rng = np.random.default_rng(20)


def case(name, nodes, inputs, outputs, initializers=()):
    """inputs, outputs: [(name, array)], each in its own element type."""
    write_node_test(out, name, nodes, inputs, outputs, initializers)


table = rng.standard_normal((10, 4)).astype(np.float32)
ids = np.array([[0, 3, 9], [-1, 5, 2]], np.int64)
for dtype in (np.int64, np.int32):
    typed = ids.astype(dtype)
    case(f"embedding_{np.dtype(dtype).name}",
         [helper.make_node("Gather", ["table", "ids"], ["y"], axis=0)],
         [("ids", typed)], [("y", table[ids])], [("table", table)])

# Gather along a middle axis by a run-time id vector.
x = rng.standard_normal((2, 5, 3)).astype(np.float32)
picks = np.array([4, 0, -2], np.int64)
case("gather_axis1_runtime",
     [helper.make_node("Gather", ["x", "picks"], ["y"], axis=1)],
     [("x", x), ("picks", picks)], [("y", np.take(x, picks, axis=1))])

# A bool attention-style mask selecting between scores and a fill value.
scores = rng.standard_normal((2, 6)).astype(np.float32)
mask = rng.integers(0, 2, (2, 6)).astype(bool)
fill = np.array(-1e4, np.float32)
case("mask_where",
     [helper.make_node("Where", ["mask", "scores", "fill"], ["y"])],
     [("mask", mask), ("scores", scores)],
     [("y", np.where(mask, scores, fill).astype(np.float32))],
     [("fill", fill)])

# Logits to class ids, returned as int64, and whether each is class 2.
logits = rng.standard_normal((3, 7)).astype(np.float32)
classes = np.argmax(logits, 1).astype(np.int64)
two = np.array(2, np.int64)
case("argmax_int64_out",
     [helper.make_node("ArgMax", ["logits"], ["classes"], axis=1,
                       keepdims=0),
      helper.make_node("Equal", ["classes", "two"], ["is_two"])],
     [("logits", logits)],
     [("classes", classes), ("is_two", classes == 2)], [("two", two)])

# A uint8 image scaled to [0, 1], and the brightest pixel as uint8 again.
image = rng.integers(0, 256, (1, 3, 4, 4)).astype(np.uint8)
scale = np.array(1 / 255, np.float32)
case("uint8_image",
     [helper.make_node("Cast", ["image"], ["f"], to=onnx.TensorProto.FLOAT),
      helper.make_node("Mul", ["f", "scale"], ["y"]),
      helper.make_node("ReduceMax", ["image"], ["brightest"], keepdims=0)],
     [("image", image)],
     [("y", image.astype(np.float32) * scale),
      ("brightest", np.array(image.max(), np.uint8))],
     [("scale", scale)])

# Integer division at run time truncates as ONNX's Div, and never traps: a
# zero divisor gives 0, INT64_MIN / -1 wraps (x86's idiv faults on both).
low = np.iinfo(np.int64).min
dividend = np.array([7, -7, 5, low, 9, low], np.int64)
divisor = np.array([2, 2, 0, -1, -3, 0], np.int64)


def truncated(a, b):
    if b == 0:
        return 0
    q = abs(int(a)) // abs(int(b)) * (1 if (a < 0) == (b < 0) else -1)
    return (q + 2**63) % 2**64 - 2**63  # int64 wraparound


case("int_div_runtime",
     [helper.make_node("Div", ["a", "b"], ["q"])],
     [("a", dividend), ("b", divisor)],
     [("q", np.array([truncated(a, b) for a, b in zip(dividend, divisor)],
                     np.int64))])
