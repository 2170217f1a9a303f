#!/usr/bin/env bash
# Prepares the GPU check (scripts/gpu-check.sh) here, where tcl's toolchain
# is: the machines lent with a GPU have CUDA and PyTorch but no LLVM/MLIR,
# so tcl compiles there-runnable code here. Into KIT (git ignores
# /gpu-kit/): for each model, its library for an NVIDIA H200
# (tcl-compile --target=nvptx-sm90 --emit=so, default GPU schedules) with
# tcl's CUDA runtime beside it, its exported input and PyTorch's output as
# raw bytes (input_0.bin, output_0.bin); a 2048^3 GEMM (its data made
# there) and a 3x3 convolution (the same), each under its default
# schedule and under candidate schedules beside it; and bench/gpu/run-model.c compiled, which runs them through
# the C API (kernels timed with CUDA events too). The kit must stay under the device tool's
# 64 MiB with the working tree: ResNet-18 (47 MB of weights) does not fit
# beside the others.
# Usage: bash scripts/gpu-kit.sh [build dir] [kit dir] [model ...]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
kit=${2:-gpu-kit}
shift 2 || shift $# || true
models=("$@")
[ ${#models[@]} -gt 0 ] ||
  models=(bert_encoder gpt transformer_encoder_layer unet tcn mobilenet_v2)
cache=$build_dir/models
rm -rf "$kit"
mkdir -p "$kit"
cc -O2 -Wall -o "$kit/run-model" bench/gpu/run-model.c -ldl -lm

# Raw bytes of an ONNX test data set's tensors (Debian's python3-onnx).
to_raw() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import glob, os, sys
import onnx
from onnx import numpy_helper
source, target = sys.argv[1:]
for path in sorted(glob.glob(os.path.join(source, "*.pb"))):
    tensor = onnx.TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    name = os.path.basename(path)[:-3] + ".bin"
    numpy_helper.to_array(tensor).tofile(os.path.join(target, name))
PY
}

for model in "${models[@]}"; do
  if [ ! -f "$cache/$model/model.onnx" ] ||
      [ models/generate.py -nt "$cache/$model/model.onnx" ]; then
    /usr/bin/python3 models/generate.py "$cache" "$model" >/dev/null
  fi
  mkdir -p "$kit/$model"
  "$build_dir/bin/tcl-compile" "$cache/$model/model.onnx" \
    --target=nvptx-sm90 -o "$kit/$model/model.so"
  rm -f "$kit/$model/model.h"
  cp "$build_dir/lib/libtcl_cuda_runtime.so" "$kit/$model/"
  to_raw "$cache/$model/test_data_set_0" "$kit/$model"
  echo "$model: $(du -sh "$kit/$model" | cut -f1)"
done

# One kernel of FUNCTION (an MLIR function on tensors, its op tagged as
# task TASK) into DIR, under the default schedule or, with primitives
# after LOOPS, under `tcl.sched.schedule task TASK anchor ANCHOR ... loops
# LOOPS { tcl.sched.<primitive> ... }`.
# Usage: kernel_kit DIR ENTRY FUNCTION TASK ANCHOR LOOPS [primitive ...]
kernel_kit() {
  local dir=$1 entry=$2 function=$3 task=$4 anchor=$5 loops=$6
  shift 6
  mkdir -p "$dir"
  {
    echo "$function"
    if [ $# -gt 0 ]; then
      echo "tcl.sched.schedule task \"$task\" anchor \"$anchor\" target \"nvptx-sm90\""
      echo "    loops [$loops] {"
      printf '  tcl.sched.%s\n' "$@"
      echo '}'
    fi
  } >"$dir/$entry.mlir"
  "$build_dir/bin/tcl-compile" "$dir/$entry.mlir" --entry="$entry" \
    --target=nvptx-sm90 -o "$dir/model.so"
  rm -f "$dir/model.h"
  cp "$build_dir/lib/libtcl_cuda_runtime.so" "$dir/"
}
blocks="parallelize blocks" threads="parallelize threads"

# A GEMM, 2048 x 2048 x 2048 (its data, 48 MB, is made there by
# gpu-check.sh with NumPy; cuBLAS runs it there too, through PyTorch),
# under its default schedule (gemm_2048) and the candidates for it
# (gemm_2048_<name>, their data copied there from gemm_2048's), measured
# side by side in one run.
gemm_kit() {
  kernel_kit "$kit/gemm_2048$1" gemm "$(
    cat <<'MLIR'
func.func @gemm(%a: tensor<2048x2048xf32>, %b: tensor<2048x2048xf32>) -> tensor<2048x2048xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2048x2048xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %c = linalg.matmul {tcl.task = "mm"} ins(%a, %b : tensor<2048x2048xf32>, tensor<2048x2048xf32>) outs(%f : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  return %c : tensor<2048x2048xf32>
}
MLIR
  )" mm linalg.matmul \
    "2048 parallel, 2048 parallel, 2048 reduction" "${@:2}"
}
registers=(vectorize hoist_accumulators)
gemm_kit ""
gemm_kit _scalar_4x4 "tile [16, 256, 0]" "$blocks" "tile [4, 4, 0]" \
  "$threads"
for k in 1 2 4; do
  gemm_kit "_128x128_8x8_k$k" "tile [128, 128, 0]" "$blocks" \
    "tile [8, 8, 0]" "$threads" "tile [0, 0, $k]" "${registers[@]}"
done
gemm_kit _64x64_4x4_k4 "tile [64, 64, 0]" "$blocks" "tile [4, 4, 0]" \
  "$threads" "tile [0, 0, 4]" "${registers[@]}"
gemm_kit _128x64_8x4_k4 "tile [128, 64, 0]" "$blocks" "tile [8, 4, 0]" \
  "$threads" "tile [0, 0, 4]" "${registers[@]}"
# The block's tiles of A and B in shared memory, steps of 8 or 16 along k
# (pad on a GPU: tcl-promote-gpu-operands), the register tile as above.
for step in 8 16; do
  gemm_kit "_128x128_8x8_shared_k$step" "tile [128, 128, 0]" "$blocks" \
    "tile [8, 8, 0]" "$threads" "tile [0, 0, $step]" "pad [0, 1]" \
    "tile [0, 0, 1]" "${registers[@]}"
done
gemm_kit _64x64_4x4_shared_k16 "tile [64, 64, 0]" "$blocks" \
  "tile [4, 4, 0]" "$threads" "tile [0, 0, 16]" "pad [0, 1]" \
  "tile [0, 0, 1]" "${registers[@]}"

# A convolution, ResNet's 3x3 128->128 at 56x56 (NHWC, its input padded
# already; data made there with PyTorch's reference), under its default
# schedule and candidates that keep a register tile of outputs across the
# reduction (conv_56_<name>).
conv_kit() {
  kernel_kit "$kit/conv_56$1" conv "$(
    cat <<'MLIR'
func.func @conv(%x: tensor<1x58x58x128xf32>, %w: tensor<3x3x128x128xf32>) -> tensor<1x56x56x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x56x56x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x56x56x128xf32>) -> tensor<1x56x56x128xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tcl.task = "conv"} ins(%x, %w : tensor<1x58x58x128xf32>, tensor<3x3x128x128xf32>) outs(%f : tensor<1x56x56x128xf32>) -> tensor<1x56x56x128xf32>
  return %c : tensor<1x56x56x128xf32>
}
MLIR
  )" conv linalg.conv_2d_nhwc_hwcf "1 parallel, 56 parallel, 56 parallel, \
128 parallel, 3 reduction, 3 reduction, 128 reduction" "${@:2}"
}
conv_kit ""
window=(decompose vectorize hoist_accumulators)
for tile in "4, 8" "8, 8" "4, 16"; do
  conv_kit "_${tile/, /x}" "tile [0, 1, 56, 64, 0, 0, 0]" "$blocks" \
    "tile [0, 1, $tile, 0, 0, 0]" "$threads" "tile [0, 0, 0, 0, 1, 1, 1]" \
    "${window[@]}"
done
echo "kit: $(du -sh "$kit" | cut -f1) in $kit"
