#!/usr/bin/env bash
# The kernel benchmark: tcl (default, hand and, with --tune, tuned schedules)
# vs oneDNN, with 1 and 2 threads, each thread count in one process. Prints
# markdown tables.
# Usage: bash bench/run.sh [filter] [--tune=N --tuning-db=PATH] [--rounds=N]
#   e.g. bash bench/run.sh "matmul 512"
#        bash bench/run.sh r18 --tune=48 --tuning-db=build/kernels.db
#        bash bench/run.sh --rounds=3   # medians of 3 interleaved rounds
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
build_dir=$(bash scripts/build.sh | tail -n 1)
for threads in 1 2; do
  # oneDNN runs on its own OpenMP runtime, which reads OMP_NUM_THREADS; tcl's
  # kernels carry their thread count in the code.
  OMP_NUM_THREADS=$threads "$build_dir/bin/tcl-bench-kernels" "$threads" "$@"
  echo
done
