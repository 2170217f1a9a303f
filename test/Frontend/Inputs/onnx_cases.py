"""What the scripts in this directory share to write ONNX models: value
infos, Constant nodes and initializers, a model file per case, and node
tests in the layout tcl-onnx-conformance reads (OUT/test_<name>/model.onnx,
test_data_set_0/{input,output}_N.pb).

The ONNX checker refuses many of the malformed cases, so it is not called:
models are serialized as they are.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FLOAT, INT64 = TensorProto.FLOAT, TensorProto.INT64


def value(name, shape, dtype=FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


def const(name, values, dtype=np.int64):
    return helper.make_node(
        "Constant", [], [name],
        value=numpy_helper.from_array(np.array(values, dtype=dtype), name))


def init(name, values, dtype=np.float32):
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)


def make_model(name, nodes, inputs, outputs, initializers=(), opset=13):
    graph = helper.make_graph(nodes, name, inputs, outputs,
                              initializer=list(initializers))
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def save_model(out, name, nodes, inputs, outputs=None, initializers=(),
               opset=13):
    """Writes OUT/<name>.onnx; the output is `y` of unknown type by default."""
    os.makedirs(out, exist_ok=True)
    model = make_model(name, nodes, inputs, outputs or [value("y", None)],
                       initializers, opset)
    with open(os.path.join(out, name + ".onnx"), "wb") as f:
        f.write(model.SerializeToString())


def type_of(array):
    return onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.asarray(array).dtype]


def write_node_test(out, name, nodes, inputs, outputs, initializers=(),
                    opset=17):
    """inputs, outputs: [(name, array)], each declared with its array's
    element type and shape; initializers: [(name, array)]."""
    model = make_model(
        name, nodes,
        [value(n, a.shape, type_of(a)) for n, a in inputs],
        [value(n, np.asarray(a).shape, type_of(a)) for n, a in outputs],
        [numpy_helper.from_array(np.asarray(a), n) for n, a in initializers],
        opset)
    directory = os.path.join(out, "test_" + name)
    data = os.path.join(directory, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    onnx.save(model, os.path.join(directory, "model.onnx"))
    for kind, values in (("input", inputs), ("output", outputs)):
        for i, (n, a) in enumerate(values):
            tensor = numpy_helper.from_array(np.asarray(a), n)
            with open(os.path.join(data, f"{kind}_{i}.pb"), "wb") as f:
                f.write(tensor.SerializeToString())
