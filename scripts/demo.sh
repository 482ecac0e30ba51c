#!/usr/bin/env bash
# Sets up and builds kiln, then shows its front end on a bundled model: the
# coverage report `kilnc check` prints before a build, and the model imported
# into kiln's graph dialect.
#
#   scripts/demo.sh [BUILD_DIR]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${1:-$ROOT/build}"
"$ROOT/scripts/build.sh" "$BUILD_DIR"
BIN="$BUILD_DIR/bin"
MODEL="$ROOT/test/Import/models/light/light_inception_v1.onnx"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT

echo
echo "== 1. kilnc check: which ops and opsets of the model kiln supports"
"$BIN/kilnc" check "$MODEL"

echo
echo "== 2. kilnc --emit=graph: the model in kiln's graph dialect"
"$BIN/kilnc" "$MODEL" --emit=graph -o "$OUT/model.mlir"
echo "   wrote $(wc -l < "$OUT/model.mlir") lines; op counts:"
grep -o "kiln\.[a-z_]*" "$OUT/model.mlir" | sort | uniq -c | sort -rn | sed 's/^/   /'
echo "   excerpt:"
grep -m 12 -E "kiln\.(conv|relu|max_pool|lrn|concat|reduce_mean|gemm|softmax)" "$OUT/model.mlir" \
  | cut -c1-150 | sed 's/^/   /'

echo
echo "== 3. kiln-opt: the same IR through MLIR's canonicalizer"
"$BIN/kiln-opt" "$OUT/model.mlir" -canonicalize -o "$OUT/canon.mlir"
echo "   $(grep -c "kiln\." "$OUT/canon.mlir") kiln ops after -canonicalize (verified)"
echo
echo "Compiling to a runnable plan (kilnc -o model.plan) is not implemented yet."
