#!/usr/bin/env bash
# Installs what tcl needs, builds it and runs all tests: the lit/FileCheck
# suite and the GoogleTest unit tests. Exits non-zero on any failure.
# TCL_SANITIZE=1 runs the same tests on an ASan+UBSan build.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
build_dir=$(bash scripts/build.sh | tail -n 1)

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
status=0
echo "== lit tests"
python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv "$build_dir/test" || status=1
echo "== ONNX node tests (libonnx-testdata)"
"$build_dir/bin/tcl-onnx-conformance" --check | tail -n 1 || status=1
echo "== end-to-end models (ResNet-18, MobileNetV2, BERT-style encoder, four zoo models vs PyTorch)"
bash scripts/e2e-models.sh "$build_dir" || status=1
echo "== unit tests"
# (lit and the ONNX node tests also run under ctest; they ran above.) In
# parallel: no test depends on the machine being otherwise idle.
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" \
  -E "^(lit|onnx-conformance)$" || status=1
exit $status
