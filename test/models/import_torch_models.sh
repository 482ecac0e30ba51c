#!/usr/bin/env bash
# Exports the torchvision / BERT-style models (seed 0, opsets 13 and 17, plus
# a dynamic-batch opset-17 set and the model zoo's classification networks at
# opset 17) with Debian's python3-torch and checks that
# each one imports into the graph dialect and verifies. ResNet-50 must import
# in under 2 s.
#
#   import_torch_models.sh BIN_DIR WORK_DIR
set -euo pipefail
BIN="$1"
WORK="$2"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PY=/usr/bin/python3
mkdir -p "$WORK"
stamp="$WORK/.exported"
if [[ ! -f "$stamp" || "$ROOT/scripts/kiln_models.py" -nt "$stamp" || "$ROOT/scripts/export_models.py" -nt "$stamp" ]]; then
  "$PY" "$ROOT/scripts/export_models.py" --out "$WORK/static"
  "$PY" "$ROOT/scripts/export_models.py" --out "$WORK/dynamic" --opset 17 --dynamic-batch
  # The model zoo's classification networks (batch norms calibrated), opset 17.
  zoo=$("$PY" -c "import sys; sys.path.insert(0, '$ROOT/scripts'); import kiln_models; print(' '.join(kiln_models.ZOO_VISION_MODELS))")
  "$PY" "$ROOT/scripts/export_models.py" --out "$WORK/zoo" --opset 17 --models $zoo
  touch "$stamp"
fi

fail=0
for f in "$WORK"/static/*.onnx "$WORK"/dynamic/*.onnx "$WORK"/zoo/*.onnx; do
  name="$(basename "$(dirname "$f")")/$(basename "$f")"
  if ! "$BIN/kilnc" check "$f" > "$WORK/check.log" 2>&1; then
    echo "FAIL check  $name"; cat "$WORK/check.log"; fail=1; continue
  fi
  if ! "$BIN/kilnc" "$f" --emit=graph --elide-weights -o "$WORK/out.mlir" 2> "$WORK/import.log"; then
    echo "FAIL import $name"; cat "$WORK/import.log"; fail=1; continue
  fi
  echo "ok    $name: $(cat "$WORK/import.log")"
  if [[ "$name" == static/resnet50_op13.onnx ]]; then
    secs="$(sed -n 's/.* in \([0-9.]*\) s$/\1/p' "$WORK/import.log")"
    if ! awk -v s="$secs" 'BEGIN { exit !(s < 2.0) }'; then
      echo "FAIL ResNet-50 import took $secs s (limit 2 s)"; fail=1
    fi
  fi
done
rm -f "$WORK/out.mlir"
exit $fail
