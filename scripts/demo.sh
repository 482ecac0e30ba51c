#!/usr/bin/env bash
# Sets up and builds kiln, then shows it end to end on a small CNN trained on
# Fashion-MNIST (examples/fashion-mnist, model.onnx checked in): the coverage
# report `kilnc check` prints before a build, the model in kiln's graph
# dialect, the compiled host plan with kilnc's build report, the plan's
# accuracy on the 10 000 test images compared with PyTorch's, and the same
# for an INT8 plan calibrated on 500 training images.
#
#   scripts/demo.sh [BUILD_DIR]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${1:-$ROOT/build}"
"$ROOT/scripts/build.sh" "$BUILD_DIR"
BIN="$BUILD_DIR/bin"
EXAMPLE="$ROOT/examples/fashion-mnist"
MODEL="$EXAMPLE/model.onnx"
PY=/usr/bin/python3   # Debian's python3 (numpy, onnx); the one first on PATH may lack them
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
exec 2>&1   # reports (stderr) in order with the rest when piped

echo
echo "== 1. kilnc check: which ops and opsets of the model kiln supports"
"$BIN/kilnc" check "$MODEL"

echo
echo "== 2. kilnc --emit=graph: the model in kiln's graph dialect"
"$BIN/kilnc" "$MODEL" --emit=graph --elide-weights -q -o "$OUT/model.mlir"
echo "   op counts:"
grep -o "kiln\.[a-z_]*" "$OUT/model.mlir" | grep -vE "kiln\.(name|onnx|source)$" \
  | sort | uniq -c | sort -rn | sed 's/^/   /'
echo "   excerpt:"
grep -m 4 -E "kiln\.(conv|max_pool|gemm)" "$OUT/model.mlir" | cut -c1-150 | sed 's/^/   /'

echo
echo "== 3. kilnc -o model.plan --target host: compile to a plan (build report)"
"$BIN/kilnc" "$MODEL" -o "$OUT/model.plan" --target host --json > "$OUT/report.json"   # text on stderr

echo
echo "== 4. eval.py: the plan on the Fashion-MNIST test set, via kiln-run"
status=0
"$PY" "$EXAMPLE/eval.py" "$OUT/model.plan" --kiln-run "$BIN/kiln-run" || status=$?

echo
echo "== 5. what kilnc did"
"$PY" - "$MODEL" "$OUT/report.json" <<'PYEOF'
import collections, json, sys
import onnx
model, rep = onnx.load(sys.argv[1]), json.load(open(sys.argv[2]))
ops = collections.Counter(n.op_type for n in model.graph.node)
mb = lambda b: f"{b / 1e6:.2f} MB"
print(f"   {sum(ops.values())} ONNX nodes ({', '.join(f'{c} {t}' for t, c in sorted(ops.items()))}; "
      f"PyTorch's export already folded BatchNorm into the convolutions)")
print(f"   -> {rep['kernels']} host kernels: {rep['fused_ops']} elementwise ops fused into their producers, "
      f"{rep['views']} static reshape(s) turned into views (no copy), {rep['output_copies']} output copies")
print(f"   memory: weights {rep['weight_bytes'] / 1e3:.1f} kB in {rep['weights']} tensors; activations "
      f"{mb(rep['arena_bytes'])} with buffer reuse vs {mb(rep['arena_bytes_without_reuse'])} without "
      f"({100 * (1 - rep['arena_bytes'] / rep['arena_bytes_without_reuse']):.0f}% saved)")
slow = max(rep["stages"], key=lambda s: s["seconds"])
print(f"   plan: {rep['plan_bytes'] / 1e3:.1f} kB (host module {rep['host_module_bytes'] / 1e3:.1f} kB), "
      f"built in {rep['total_seconds']:.2f} s, mostly '{slow['name']}' ({slow['seconds']:.2f} s)")
PYEOF
echo
echo "== 6. INT8: calibrated on 500 training images, the same test set next to fp32"
"$PY" "$EXAMPLE/calib.py" --out "$OUT/calib"
"$BIN/kilnc" "$MODEL" -o "$OUT/int8.plan" --target host --precision int8 --calib "$OUT/calib" \
  --calib-cache "$OUT/int8-calibration.json" 2>&1 | grep -A 7 "int8 layers"
"$PY" "$EXAMPLE/eval.py" "$OUT/int8.plan" --kiln-run "$BIN/kiln-run" --tolerance 0.5 \
  | grep -E "^kiln accuracy|^PyTorch accuracy" | sed 's/^/   int8: /' || status=$?

echo
echo "The plan above runs on the host CPU (--target host). kilnc builds GPU plans here too, without a"
echo "GPU (--target sm_70 ... sm_120a; it needs the CUDA toolkit's ptxas), for example"
echo "  kilnc examples/fashion-mnist/model.onnx -o model.plan --target sm_90a --precision fp16"
echo "and 'kiln-run model.plan --device gpu' runs such a plan where an NVIDIA GPU and its driver are present."
exit "$status"
