# -*- Python -*-
# lit configuration of tcl's FileCheck tests.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "tcl"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tcl_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tools = ["tcl-opt", "tcl-compile", "tcl-run", "tcl-tuning-db", "tcl-cost-model",
         "tcl-onnx-conformance", "tcl-bench-kernels"]
llvm_config.add_tool_substitutions(tools, [config.tcl_tools_dir])
# Each tool the build has is a feature, so that a build of some tools only
# (the sanitized one CI runs, scripts/test.sh) skips the tests of the others.
for tool in tools:
    if os.path.exists(os.path.join(config.tcl_tools_dir, tool)):
        config.available_features.add(tool)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# ONNX backend node tests (Debian's libonnx-testdata).
config.substitutions.append(
    ("%onnx_node_tests", "/usr/share/libonnx-testdata/data/node"))
config.substitutions.append(("%tcl_src_root", config.tcl_src_root))
# Debian's Python, which has python3-onnx and numpy (not a user's pyenv).
config.substitutions.append(("%system_python", "/usr/bin/python3"))

# ptxas from the CUDA toolkit assembles the PTX of GPU targets (there is one
# on these machines even without a GPU): `%if ptxas %{ %ptxas ... %}`.
cuda_roots = [os.environ.get(name) for name in ("CUDA_HOME", "CUDA_PATH")]
for root in [r for r in cuda_roots if r] + ["/usr/local/cuda"]:
    ptxas = os.path.join(root, "bin", "ptxas")
    if os.path.exists(ptxas):
        config.available_features.add("ptxas")
        config.substitutions.append(("%ptxas", ptxas))
        break

# A CUDA driver (libcuda.so.1) on this machine: tests that run GPU code
# need one; tests of the refusal without one need none.
try:
    import ctypes
    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
except OSError:
    pass
