#!/usr/bin/env bash
# Sets up, builds and runs every test (unit, lit, model imports) under ctest.
#
#   scripts/test.sh [BUILD_DIR] [ctest args...]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${1:-$ROOT/build}"
shift || true
"$ROOT/scripts/build.sh" "$BUILD_DIR"
cd "$BUILD_DIR"
ctest --output-on-failure "$@"
