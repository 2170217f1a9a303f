#!/usr/bin/env bash
# tcl's main job, as far as the project reaches today: apply a hand-written
# schedule to a matmul + bias + ReLU and show the loop nest it produces, and
# the upstream transform-dialect program the schedule lowers to.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
build_dir=$(bash scripts/build.sh | tail -n 1)
example=examples/matmul.mlir

echo "== The schedule ($example)"
sed -n '/^tcl.sched.schedule/,/^}/p' "$example"
echo
echo "== It lowers to this transform-dialect sequence"
"$build_dir/bin/tcl-opt" "$example" --tcl-apply-schedule=emit-transform |
  sed -n '/transform.named_sequence/,/^  }/p'
echo
echo "== Applied: the scheduled loop nest (tcl-compile --emit=mlir)"
"$build_dir/bin/tcl-compile" "$example" --emit=mlir --target=x86-avx512
