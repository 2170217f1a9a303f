#!/usr/bin/env bash
# End-to-end models: exports ResNet-18, MobileNetV2, a BERT-style encoder and
# RegNet-Y-400MF (grouped convolutions of 8 channels a group; seeded random
# weights) with PyTorch, and four small models of the zoo
# (bench/zoo.py) that compile in seconds: a small GPT on int64 token ids,
# torch.nn.TransformerEncoderLayer, a UNet (Resize, skip concatenations) and
# a Conv1d sequence model; compiles each with tcl-compile to a shared library
# and runs it on the exported input, checking the output against PyTorch's;
# compiles each for an NVIDIA GPU too (--target=nvptx-sm90 --emit=ptx) and,
# where a CUDA toolkit has ptxas, assembles the PTX for sm_90; and runs the
# GPU schedules on this host's CPU (tcl-run --emulate-gpu) against the
# exported output.
# Models are cached in <build>/models (exported again when
# models/generate.py is newer).
# Usage: bash scripts/e2e-models.sh [build dir] [model ...]  (any model of
# models/generate.py or its zoo)
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
shift || true
models=("$@")
[ ${#models[@]} -gt 0 ] ||
  models=(resnet18 mobilenet_v2 bert_encoder regnet_y_400mf gpt
    transformer_encoder_layer unet tcn)
cache=$build_dir/models
ptxas=
for root in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda; do
  if [ -n "$root" ] && [ -x "$root/bin/ptxas" ]; then
    ptxas=$root/bin/ptxas
    break
  fi
done

failed=0
for model in "${models[@]}"; do
  # Exported again when models/generate.py changed since (a cached export
  # of an older generate.py, e.g. before BatchNorm calibration, would check
  # outputs that prove nothing).
  if [ ! -f "$cache/$model/model.onnx" ] ||
      [ models/generate.py -nt "$cache/$model/model.onnx" ]; then
    /usr/bin/python3 models/generate.py "$cache" "$model" >/dev/null
  fi
  echo "== $model"
  "$build_dir/bin/tcl-compile" "$cache/$model/model.onnx" -o "$cache/$model/model.so"
  if ! "$build_dir/bin/tcl-run" "$cache/$model/model.onnx" \
      --library="$cache/$model/model.so" \
      --test-data="$cache/$model/test_data_set_0" --repeats=3; then
    failed=$((failed + 1))
    continue
  fi
  if ! "$build_dir/bin/tcl-compile" "$cache/$model/model.onnx" \
      --target=nvptx-sm90 --emit=ptx -o "$cache/$model/model.ptx" ||
      { [ -n "$ptxas" ] && ! "$ptxas" -arch=sm_90 "$cache/$model/model.ptx" \
        -o "$cache/$model/model.cubin"; }; then
    echo "$model: the GPU build failed"
    failed=$((failed + 1))
    continue
  fi
  echo "$model: $(grep -c '^.visible .entry' "$cache/$model/model.ptx") GPU" \
    "kernels${ptxas:+, assembled by ptxas for sm_90}"
  # What the GPU schedules compute, checked on this host's CPU.
  if ! "$build_dir/bin/tcl-run" "$cache/$model/model.onnx" \
      --target=nvptx-sm90 --emulate-gpu \
      --test-data="$cache/$model/test_data_set_0" --repeats=1; then
    echo "$model: the GPU schedules, emulated on this host, computed wrong"
    failed=$((failed + 1))
    continue
  fi
done
echo "e2e models: $((${#models[@]} - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
