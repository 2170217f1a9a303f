#!/usr/bin/env bash
# Runs tcl's libFuzzer targets (fuzz/), built in the sanitized build
# (TCL_SANITIZE=1 bash scripts/build.sh tcl-fuzz-onnx tcl-fuzz-schedule).
#
#   scripts/fuzz.sh BUILD_DIR check
#       CI (scripts/test.sh): every target for a fixed number of runs from
#       its seeds and regression inputs with -seed=1, so the work done does
#       not depend on the machine's speed. Fails on any finding.
#   scripts/fuzz.sh BUILD_DIR TARGET [SECONDS] [libFuzzer flags...]
#       A campaign: TARGET (onnx or schedule) for SECONDS (default 3600),
#       growing the corpus in BUILD_DIR/fuzzing/corpus-TARGET, which later
#       campaigns continue. Findings land in BUILD_DIR/fuzzing/.
#
# Seeds: the ONNX backend node tests' models (libonnx-testdata) for onnx,
# fuzz/corpus/schedule (schedules of the fuzzer's payload, and every schedule
# of test/ and examples/) for schedule. fuzz/regressions/TARGET holds the
# inputs of findings fixed since: seeds as well, so each run replays them.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=$1
mode=$2
work=$build_dir/fuzzing
# UBSan's reports say where, as ASan's do.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
mkdir -p "$work"

# The runs each target does in CI, seeds included: about 30 s in all on two
# idle cores (onnx about 600 inputs a second, schedule 4000).
declare -A check_runs=([onnx]=10000 [schedule]=50000)

seeds() {
  local target=$1
  if [ "$target" = onnx ]; then
    # One file per model (libFuzzer reads directories recursively, and the
    # node tests' directories also hold their tensors).
    if [ ! -d "$work/seeds-onnx" ]; then
      mkdir -p "$work/seeds-onnx.tmp"
      for model in /usr/share/libonnx-testdata/data/node/*/model.onnx; do
        cp "$model" "$work/seeds-onnx.tmp/$(basename "$(dirname "$model")").onnx"
      done
      mv "$work/seeds-onnx.tmp" "$work/seeds-onnx"
    fi
    echo "$work/seeds-onnx"
  else
    echo "fuzz/corpus/$target"
  fi
  echo "fuzz/regressions/$target"
}

flags() {
  local target=$1
  # A finding also when one input takes 30 s or allocates 2 GiB; leaks are
  # findings too (LeakSanitizer after each input that allocated more than it
  # freed).
  echo -timeout=30 -rss_limit_mb=4096 -malloc_limit_mb=2048 \
    -artifact_prefix="$work/$target-" -print_final_stats=1
  if [ -f "fuzz/$target.dict" ]; then
    echo -dict="fuzz/$target.dict"
  fi
}

if [ "$mode" = check ]; then
  status=0
  for target in onnx schedule; do
    # A fresh corpus directory each time: what a run adds must not change
    # the next run's work.
    rm -rf "$work/check-$target"
    mkdir -p "$work/check-$target"
    echo "-- tcl-fuzz-$target: ${check_runs[$target]} runs"
    # shellcheck disable=SC2046
    if ! "$build_dir/bin/tcl-fuzz-$target" $(flags "$target") -seed=1 \
      -runs="${check_runs[$target]}" "$work/check-$target" \
      $(seeds "$target") >"$work/check-$target.log" 2>&1; then
      tail -n 60 "$work/check-$target.log"
      status=1
    fi
    grep -E "^stat::number_of_executed_units|^INFO: seed corpus|DONE" \
      "$work/check-$target.log" || true
  done
  exit $status
fi

target=$mode
seconds=${3:-3600}
shift $(($# < 3 ? $# : 3))
mkdir -p "$work/corpus-$target"
# shellcheck disable=SC2046
exec "$build_dir/bin/tcl-fuzz-$target" $(flags "$target") \
  -max_total_time="$seconds" "$@" "$work/corpus-$target" $(seeds "$target")
