#!/usr/bin/env bash
# Collects the cost-model dataset: programs of every task of the three test
# models plus random tasks, measured on each CPU platform of this host, into
# one tuning database. Resumable: rerun it and it continues where it stopped
# (the database counts what is measured). Measuring pauses while other
# processes load the machine (tcl-tuning-db collect --max-foreign-load).
#
# It fills the quota in stages (all platforms to the first quota, then all
# to the next), so a collection stopped early still covers every platform.
#
# Records are named with this host's machine (x86-avx512/1t@znver4): a slice
# from a new host is new platforms, e.g. 150 tasks x 40 programs:
#   RANDOM_TASKS=150 STAGES="20 40" bash scripts/collect-dataset.sh host.db
#
# Usage: bash scripts/collect-dataset.sh [database] [build dir]
# Environment: PLATFORMS (space-separated, default the four below),
#   RANDOM_TASKS (400), STAGES (programs per task after each stage,
#   default "20 40 80": 391 tasks x 80 = 31,280 programs a platform), SEED (1),
#   COST_MODEL and SAMPLER (the search's share of each batch: random and
#   topk by default; e.g. xgboost and rdu).
set -euo pipefail
cd "$(dirname "$0")/.."
database=${1:-dataset-work/collect.db}
build_dir=${2:-build}
platforms=${PLATFORMS:-"x86-avx512/1t x86-avx2/1t x86-sse42/1t x86-avx512/2t"}
random_tasks=${RANDOM_TASKS:-400}
stages=${STAGES:-"20 40 80"}
seed=${SEED:-1}
cost_model=${COST_MODEL:-random}
sampler=${SAMPLER:-topk}

mkdir -p "$(dirname "$database")" "$build_dir/models/graphs"
graphs=()
for model in resnet18 mobilenet_v2 bert_encoder; do
  if [ ! -f "$build_dir/models/$model/model.onnx" ]; then
    /usr/bin/python3 models/generate.py "$build_dir/models" "$model" >/dev/null
  fi
  graph=$build_dir/models/graphs/$model.mlir
  "$build_dir/bin/tcl-compile" "$build_dir/models/$model/model.onnx" \
    --emit=graph -o "$graph"
  graphs+=("$graph")
done

for programs in $stages; do
  for platform in $platforms; do
    echo "== $platform, $programs programs per task ($(date -u +%FT%TZ))"
    "$build_dir/bin/tcl-tuning-db" "$database" collect "${graphs[@]}" \
      --platform="$platform" --random-tasks="$random_tasks" \
      --programs-per-task="$programs" --seed="$seed" \
      --cost-model="$cost_model" --sampler="$sampler"
  done
done
