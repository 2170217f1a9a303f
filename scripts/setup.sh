#!/usr/bin/env bash
# Installs every Debian package that tcl's build, tests and benchmarks need.
# Idempotent: when everything is present it only checks and returns.
set -euo pipefail

packages=(
  # Toolchain and build system.
  cmake ninja-build clang-19 lld-19 python3
  # Sanitizer runtimes and libFuzzer: the ASan+UBSan build (build-asan/)
  # with its fuzz targets.
  libclang-rt-19-dev
  # LLVM/MLIR 19 (headers, static libraries, FileCheck/not, lit sources).
  llvm-19-dev llvm-19-tools libmlir-19-dev mlir-19-tools
  # Libraries the LLVM CMake config expects to find.
  zlib1g-dev libzstd-dev libxml2-dev libedit-dev libcurl4-openssl-dev libffi-dev
  # OpenMP runtime for parallel loops; oneDNN, the reference baseline.
  libomp-19-dev libdnnl-dev
  # ONNX import (protobuf, shape inference) and the ONNX node test suite.
  libonnx-dev libprotobuf-dev libonnx-testdata
  # End-to-end test models are exported from PyTorch at test time.
  python3-torch python3-torchvision python3-onnx
  # libtorch's BLAS (the comparison baseline): the OpenMP build of OpenBLAS,
  # not Debian's default reference BLAS (RECIPES.md: 4-5x slower).
  libopenblas0-openmp
  # The tuning database and the XGBoost cost model.
  libsqlite3-dev libxgboost-dev liblzma-dev
  # The learned cost models (Mamba, TLP-style, Tenset-MLP) on libtorch.
  libtorch-dev
  # Unit tests.
  libgtest-dev
)

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  SUDO=sudo
else
  SUDO=
fi
echo "tcl setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q >/dev/null
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
