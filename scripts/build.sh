#!/usr/bin/env bash
# Installs the Debian packages kiln needs (only the missing ones; quiet when
# all are there) and builds everything into BUILD_DIR (default: build/).
# Tools land in BUILD_DIR/bin.
#
#   scripts/build.sh [BUILD_DIR]
#
# Environment: KILN_CMAKE_ARGS adds CMake arguments (e.g. -DKILN_ENABLE_FUZZER=ON).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${1:-$ROOT/build}"

PACKAGES=(
  # toolchain (clang and its libFuzzer for the plan fuzzer, scripts/sanitize.sh)
  cmake ninja-build g++ lld clang libclang-rt-14-dev
  # LLVM/MLIR 22 (libMLIR.so, TableGen, lit, FileCheck)
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  # ONNX, protobuf, plans, unit tests
  libonnx-dev libprotobuf-dev protobuf-compiler libflatbuffers-dev
  flatbuffers-compiler libgtest-dev
  # the runtime's tools: JSON reports and timing caches, options, SHA-256
  nlohmann-json3-dev libcxxopts-dev libssl-dev
  # kiln-serve (REST, gRPC) and its tests' gRPC client
  libcpp-httplib-dev libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev pkg-config
  python3-grpcio
  # the Python package (python/)
  pybind11-dev python3-dev
  # test data and model generators (Debian's Python, not the one on PATH)
  python3-onnx python3-numpy python3-torch python3-torchvision
  libonnx-testdata dataset-fashion-mnist
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "kiln: installing missing Debian packages: ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  log="$(mktemp)"
  if ! { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
         $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
    tail -n 30 "$log"
    echo "kiln: package installation failed (log: $log)" >&2
    exit 1
  fi
  rm -f "$log"
fi

if [[ ! -f "$BUILD_DIR/build.ninja" ]]; then
  cmake -G Ninja -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release \
    ${KILN_CMAKE_ARGS:-} >/dev/null
fi
echo "kiln: building in $BUILD_DIR"
ninja -C "$BUILD_DIR"
echo "kiln: tools in $BUILD_DIR/bin: $(ls "$BUILD_DIR/bin" | tr '\n' ' ')"
