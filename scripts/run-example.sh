#!/usr/bin/env bash
# tcl's main job, as far as the project reaches today: compile a scheduled
# kernel (matmul + bias + ReLU, examples/matmul.mlir) to a shared library
# and run it, checking its result against plain loops and timing it, with 1
# and 2 threads; then the same for a kernel with no schedule at all, which
# gets tcl's default schedule.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
build_dir=$(bash scripts/build.sh | tail -n 1)
bin=$build_dir/bin
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

example=examples/matmul.mlir
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
"$bin/tcl-opt" "$example" --tcl-extract-tasks --tcl-default-schedules | sed -n '/^  tcl.sched.schedule/,/^  }/p'
"$bin/tcl-compile" "$example" -o "$out/conv.so"
"$bin/tcl-run" "$example" --entry=conv_relu --library="$out/conv.so"
