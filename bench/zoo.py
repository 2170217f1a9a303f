#!/usr/bin/python3
"""Model zoo: which models tcl compiles, and whether they match PyTorch.

For each model of models/generate.py's ZOO (torchvision CNNs and transformer
blocks at small inputs, seeded weights, opset 17): exports it with an ONNX
test data set into WORK_DIR/<name> (kept: delete it to export again),
compiles it with tcl-compile (1 thread), runs the library on the test data
with tcl-run and prints a table: ONNX nodes, tcl-compile seconds, the max
relative error against PyTorch (|got - want| / (1 + |want|), as tcl-run
checks it, within 1e-3) and the status:

  ok                          within the tolerance (", but vacuous" where
                              PyTorch's outputs are all below 1e-2)
  WRONG                       beyond it
  unsupported: <error>        tcl-compile refused the model (naming the node)
  compile error: <error>      tcl-compile failed otherwise
  crash: <signal>: <error>    tcl-compile or tcl-run died on a signal
  timeout (> N s)             tcl-compile or tcl-run ran past --timeout
  run error: <error>          tcl-run failed otherwise
  export error: <error>       PyTorch could not export the model

Usage: /usr/bin/python3 bench/zoo.py [--build-dir build] [--work-dir DIR]
           [--filter REGEX] [--timeout SECONDS]
"""

import argparse
import contextlib
import os
import re
import signal
import subprocess
import sys
import time

import numpy
import onnx
import onnx.numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models"))
import generate  # noqa: E402

# Outputs all smaller than this make the check prove little.
VACUOUS = 1e-2


def first_line(text):
    """The first non-empty line of a tool's error output, trimmed."""
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line[:200]
    return "(no output)"


def crash(returncode, stderr):
    name = signal.Signals(-returncode).name
    # An LLVM assertion or fatal error says what, before the stack dump.
    lines = [line for line in stderr.splitlines()
             if "Assertion" in line or "error" in line.lower()]
    return f"crash: {name}: {first_line(lines[0]) if lines else first_line(stderr)}"


def run_tool(command, timeout):
    """(returncode or None on a timeout, stdout, stderr, seconds)."""
    start = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", "", time.perf_counter() - start
    return (done.returncode, done.stdout, done.stderr,
            time.perf_counter() - start)


def describe_inputs(graph):
    """The graph inputs' shapes, e.g. "1x3x64x64" or "1x32 int64"."""
    initializers = {tensor.name for tensor in graph.initializer}
    described = []
    for value in graph.input:
        if value.name in initializers:
            continue
        tensor = value.type.tensor_type
        shape = "x".join(str(dim.dim_value or dim.dim_param or "?")
                         for dim in tensor.shape.dim)
        if tensor.elem_type != onnx.TensorProto.FLOAT:
            shape += " " + onnx.TensorProto.DataType.Name(tensor.elem_type).lower()
        described.append(shape)
    return ", ".join(described)


def output_scale(data):
    """The largest magnitude among PyTorch's outputs in a test data set."""
    scale = 0.0
    for index in range(len(os.listdir(data))):
        path = os.path.join(data, f"output_{index}.pb")
        if not os.path.exists(path):
            break
        values = onnx.numpy_helper.to_array(onnx.load_tensor(path))
        scale = max(scale, float(numpy.abs(values).max(initial=0)))
    return scale


def check(name, build, work, timeout):
    """(inputs, ONNX nodes, compile seconds, max relative error, status)."""
    directory = os.path.join(work, name)
    onnx_path = os.path.join(directory, "model.onnx")
    if not os.path.exists(onnx_path):
        try:
            with contextlib.redirect_stdout(sys.stderr):
                generate.export(name, work)
        except Exception as error:  # noqa: BLE001 -- reported in the table
            return "-", None, None, None, \
                f"export error: {first_line(str(error))}"
    graph = onnx.load(onnx_path, load_external_data=False).graph
    nodes = len(graph.node)
    inputs = describe_inputs(graph)
    library = os.path.join(directory, "model.so")
    if os.path.exists(library):
        os.remove(library)
    code, _, stderr, seconds = run_tool(
        [os.path.join(build, "bin", "tcl-compile"), onnx_path,
         "--num-threads=1", "-o", library], timeout)
    if code is None:
        return inputs, nodes, seconds, None, f"timeout (> {timeout} s)"
    if code < 0:
        return inputs, nodes, seconds, None, crash(code, stderr)
    if code != 0:
        kind = "unsupported" if "unsupported" in stderr else "compile error"
        return inputs, nodes, seconds, None, f"{kind}: {first_line(stderr)}"
    code, stdout, stderr, _ = run_tool(
        [os.path.join(build, "bin", "tcl-run"), onnx_path,
         f"--library={library}", "--num-threads=1",
         f"--test-data={directory}/test_data_set_0", "--repeats=1"], timeout)
    if code is None:
        return inputs, nodes, seconds, None, f"timeout (> {timeout} s)"
    if code < 0:
        return inputs, nodes, seconds, None, crash(code, stderr)
    error = re.search(r"max relative error (\S+)", stdout)
    error = float(error.group(1)) if error else None
    if code == 0 and output_scale(f"{directory}/test_data_set_0") < VACUOUS:
        # The error is relative to 1 + |want|: near-zero outputs pass anyway.
        return inputs, nodes, seconds, error, \
            f"ok, but vacuous: PyTorch's outputs are all below {VACUOUS}"
    if code == 0:
        return inputs, nodes, seconds, error, "ok"
    if code == 3:
        return inputs, nodes, seconds, error, "WRONG"
    return inputs, nodes, seconds, error, f"run error: {first_line(stderr)}"


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default="build")
    parser.add_argument("--work-dir",
                        help="where the models go (default: BUILD_DIR/zoo)")
    parser.add_argument("--filter", default="",
                        help="only the models whose name matches this regex")
    parser.add_argument("--timeout", type=float, default=300,
                        help="seconds tcl-compile and tcl-run may each take")
    args = parser.parse_args()
    work = args.work_dir or os.path.join(args.build_dir, "zoo")
    names = [name for name in generate.ZOO if re.search(args.filter, name)]
    if not names:
        sys.exit(f"no model matches '{args.filter}'; known: "
                 f"{', '.join(generate.ZOO)}")

    with open("/proc/cpuinfo") as cpuinfo:
        cpu = re.search(r"model name\s*:\s*(.*)", cpuinfo.read())
    print(f"Model zoo vs PyTorch, batch 1, f32, 1 thread, ONNX opset "
          f"{generate.ZOO_OPSET}; tolerance 1e-3; "
          f"host: {cpu.group(1) if cpu else 'unknown CPU'}\n")
    print("| model | input | ONNX nodes | tcl-compile (s) | "
          "max rel. error | status |")
    print("| --- | --- | ---: | ---: | ---: | --- |")
    failed = 0
    for name in names:
        inputs, nodes, seconds, error, status = check(
            name, args.build_dir, work, args.timeout)
        failed += status != "ok"
        print(f"| {name} | {inputs} | {nodes if nodes is not None else '-'} | "
              f"{f'{seconds:.1f}' if seconds is not None else '-'} | "
              f"{f'{error:.1e}' if error is not None else '-'} | "
              f"{status.replace('|', '/')} |", flush=True)
    print(f"\n{len(names) - failed} of {len(names)} compile and match PyTorch")


if __name__ == "__main__":
    main()
