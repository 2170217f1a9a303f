#!/usr/bin/env bash
# Installs what tcl needs, builds it and runs all tests: the lit/FileCheck
# suite and the GoogleTest unit tests. Exits non-zero on any failure.
# TCL_SANITIZE=1 runs the same tests on an ASan+UBSan build.
#
# Then the sanitized part (TCL_SKIP_SANITIZED=1 skips it; CI runs it): the
# code that reads outside input (ONNX import, schedules, the JIT and its
# libraries), built with ASan+UBSan in build-asan/, runs its tests, the ONNX
# node tests and the fuzz targets for a fixed number of runs
# (scripts/fuzz.sh). Only those targets: a full sanitized build takes longer
# than the rest of CI together.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each phase's header says when it started (seconds since this script did),
# so a slow CI run shows where its time went.
phase() { echo "== $* [at ${SECONDS}s]"; }

bash scripts/setup.sh
phase "build"
build_dir=$(bash scripts/build.sh | tail -n 1)

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
status=0
phase "lit tests"
python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv "$build_dir/test" || status=1
phase "ONNX node tests (libonnx-testdata)"
"$build_dir/bin/tcl-onnx-conformance" --check | tail -n 1 || status=1
phase "end-to-end models (ResNet-18, MobileNetV2, BERT-style encoder, RegNet-Y-400MF, four zoo models vs PyTorch)"
bash scripts/e2e-models.sh "$build_dir" || status=1
phase "unit tests"
# (lit and the ONNX node tests also run under ctest; they ran above.) In
# parallel: no test depends on the machine being otherwise idle.
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" \
  -E "^(lit|onnx-conformance)$" || status=1

if [ "${TCL_SKIP_SANITIZED:-0}" != "1" ]; then
  asan_dir=$build_dir
  # (With TCL_SANITIZE=1 all the tests above ran sanitized already.)
  if [ "${TCL_SANITIZE:-0}" != "1" ]; then
    phase "sanitized (ASan+UBSan): build of the input-handling code"
    asan_dir=$(TCL_SANITIZE=1 bash scripts/build.sh tcl-opt \
      tcl-onnx-conformance TclCoreUnitTests tcl-fuzz-onnx tcl-fuzz-schedule |
      tail -n 1)
    phase "sanitized: lit tests of the tcl dialect and the transforms"
    python3 /usr/lib/llvm-19/build/utils/lit/lit.py -s \
      "$asan_dir/test/Dialect" "$asan_dir/test/Transforms" || status=1
    phase "sanitized: ONNX node tests"
    "$asan_dir/bin/tcl-onnx-conformance" --check | tail -n 1 || status=1
    phase "sanitized: unit tests (Frontend, Target, Transforms, Kernel)"
    "$asan_dir/bin/TclCoreUnitTests" --gtest_brief=1 || status=1
  fi
  phase "sanitized: fuzz targets, fixed budget"
  bash scripts/fuzz.sh "$asan_dir" check || status=1
fi
phase "done, exit status $status"
exit $status
