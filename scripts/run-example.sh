#!/usr/bin/env bash
# tcl's main job: compile an ONNX model (ResNet-18, exported from PyTorch
# with seeded weights) to a shared library and run it on the exported input,
# checking the output against PyTorch's and timing it. Then compile a
# scheduled kernel (matmul + bias + ReLU, examples/matmul.mlir) with 1 and 2
# threads, and a kernel with no schedule, which gets the default one.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
build_dir=$(bash scripts/build.sh | tail -n 1)
bin=$build_dir/bin
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== ResNet-18: ONNX -> tcl-compile -> model.so -> tcl-run (vs PyTorch)"
bash scripts/e2e-models.sh "$build_dir" resnet18 | grep -v "^e2e models"

example=examples/matmul.mlir
echo
echo "== The schedule ($example)"
sed -n '/^tcl.sched.schedule/,/^}/p' "$example"
for threads in 1 2; do
  echo
  echo "== tcl-compile $example --num-threads=$threads -o matmul.so; tcl-run"
  "$bin/tcl-compile" "$example" --num-threads="$threads" -o "$out/matmul.so"
  "$bin/tcl-run" "$example" --entry=matmul_bias_relu --num-threads="$threads" \
    --library="$out/matmul.so"
done

example=examples/conv.mlir
echo
echo "== No schedule: $example becomes a task (conv + its ReLU epilogue) with the default schedule"
# The platform tcl-compile picks for it: this host's (its --help names it).
host=$("$bin/tcl-compile" --help | sed -n "s/.*this host's, \(x86-[a-z0-9]*\)).*/\1/p")
"$bin/tcl-opt" "$example" --tcl-extract-tasks --tcl-default-schedules="target=$host" | sed -n '/^  tcl.sched.schedule/,/^  }/p'
"$bin/tcl-compile" "$example" -o "$out/conv.so"
"$bin/tcl-run" "$example" --entry=conv_relu --library="$out/conv.so"
