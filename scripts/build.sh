#!/usr/bin/env bash
# Configures and builds tcl (Release; with TCL_SANITIZE=1 an ASan+UBSan build
# in build-asan/, which also holds the fuzz targets). Builds everything, or
# only the targets named as arguments. Prints the build directory on the
# last line.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${TCL_SANITIZE:-0}" = "1" ]; then
  build_dir=${TCL_BUILD_DIR:-build-asan}
  # -O1 with line tables only: reports keep file:line stack traces, and the
  # MLIR-heavy sources compile about a quarter faster than at -O2 -g.
  extra=(-DTCL_ENABLE_SANITIZERS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG"
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG")
else
  build_dir=${TCL_BUILD_DIR:-build}
  extra=(-DCMAKE_BUILD_TYPE=Release)
fi

if [ ! -f "$build_dir/build.ninja" ]; then
  cmake -G Ninja -S . -B "$build_dir" "${extra[@]}" >/dev/null
fi
targets=()
for target in "$@"; do
  targets+=(--target "$target")
done
cmake --build "$build_dir" "${targets[@]}" -j "$(nproc)" -- --quiet >&2
echo "$build_dir"
