#!/usr/bin/env bash
# Model-level oracle: every model below through kilnc (--target host) and kiln-run, compared with
# ONNX Runtime on the CPU (onnxruntime-node, driven by ort_run.js). See README.md.
#
#   run_oracle.sh BIN_DIR MODELS_DIR NODE_MODULES_DIR [WORK_DIR]
#
# BIN_DIR holds kilnc and kiln-run; MODELS_DIR is the models.torchvision output (BUILD_DIR/models, with
# static/*.onnx and static/NAME/test_data_set_0); NODE_MODULES_DIR holds onnxruntime-node.
# Prints one line per model and input set; exits 1 on any mismatch or error.
set -uo pipefail
if [[ $# -lt 3 ]]; then
  echo "usage: $0 BIN_DIR MODELS_DIR NODE_MODULES_DIR [WORK_DIR]" >&2; exit 2
fi
BIN="$(cd "$1" && pwd)"
MODELS="$2"
NODE_MODULES="$(cd "$3" && pwd)"
WORK="${4:-$(mktemp -d)}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PY=/usr/bin/python3
RTOL=1e-3
ATOL=1e-4
mkdir -p "$WORK"

if [[ ! -d "$NODE_MODULES/onnxruntime-node" ]]; then
  echo "FAIL: onnxruntime-node not installed in $NODE_MODULES (npm install failed?)" >&2; exit 1
fi
export NODE_PATH="$NODE_MODULES"

# Light models: two input sets each, the ONNX convention arange(N)/N and seeded uniform [0, 1).
LIGHT=()
for f in "$ROOT"/test/Import/models/light/light_*.onnx; do LIGHT+=("$f"); done
# torchvision / BERT exports with their own test_data_set_0 (seed 0 inputs).
HEAVY=(resnet50_op13 mobilenet_v2_op13 efficientnet_b0_op13 vit_b_16_op17 bert_encoder_op17)
missing=()
for m in "${HEAVY[@]}"; do
  [[ -f "$MODELS/static/$m.onnx" && -f "$MODELS/static/$m/test_data_set_0/input_0.pb" ]] || missing+=("$m")
done
# The model zoo's classification networks (opset 17, batch norms calibrated).
ZOO=(mobilenet_v3_large mobilenet_v3_small shufflenet_v2_x1_0 squeezenet1_1 regnet_y_400mf
     convnext_tiny swin_t densenet121)
for m in "${ZOO[@]}"; do
  [[ -f "$MODELS/zoo/${m}_op17.onnx" ]] || missing+=("zoo/${m}_op17")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "FAIL: missing exported models in $MODELS/static: ${missing[*]}" >&2
  echo "      run the models.torchvision test first, or: $PY $ROOT/scripts/export_models.py --out $MODELS/static" >&2
  exit 1
fi

fail=0
start=$SECONDS

# check NAME MODEL PLAN INPUT_DIR: ORT on INPUT_DIR, kiln-run PLAN on INPUT_DIR, compare.
check() {
  local name="$1" model="$2" plan="$3" in="$4"
  local key="${name//\//.}" t0=$SECONDS
  local ort="$WORK/$key.ort"
  rm -rf "$ort"
  if ! node "$HERE/ort_run.js" "$model" "$in" "$ort" > "$WORK/$key.ort.log" 2>&1; then
    echo "FAIL $name: onnxruntime failed"; cat "$WORK/$key.ort.log"; fail=1; return
  fi
  "$BIN/kiln-run" "$plan" --input-dir "$in" --compare "$ort" --rtol $RTOL --atol $ATOL --json \
      > "$WORK/$key.json" 2> "$WORK/$key.run.log"
  local rc=$?
  if [[ $rc -ne 0 && $rc -ne 1 ]]; then
    echo "FAIL $name: kiln-run exited $rc"; cat "$WORK/$key.run.log"; fail=1; return
  fi
  local line
  line="$("$PY" - "$WORK/$key.json" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
parts = []
for o in r["outputs"]:
    c = o.get("compare") or {}
    parts.append("%s: max_abs %.3g max_rel %.3g mismatches %d/%d" % (
        o["name"], c.get("max_abs_err", float("nan")), c.get("max_rel_err", float("nan")),
        c.get("mismatches", -1), c.get("elements", -1)))
print(("ok  " if r.get("ok") else "FAIL") + " | " + "; ".join(parts))
PYEOF
)"
  [[ $rc -eq 0 && "$line" == ok* ]] || fail=1
  printf '%-4s %-36s %s (%ds)\n' "${line%% *}" "$name" "${line#* | }" $((SECONDS - t0))
}

compile() {
  local model="$1" plan="$2"
  if ! "$BIN/kilnc" "$model" -o "$plan" --target host -q > "$plan.log" 2>&1; then
    echo "FAIL $(basename "$model"): kilnc failed"; cat "$plan.log"; fail=1; return 1
  fi
}

for model in "${LIGHT[@]}"; do
  name="$(basename "$model" .onnx)"
  plan="$WORK/$name.plan"
  compile "$model" "$plan" || continue
  for kind in arange random; do
    in="$WORK/$name.in.$kind"
    mkdir -p "$in"
    "$PY" - "$model" "$in/input_0.pb" "$kind" <<'PYEOF'
import sys, numpy as np, onnx
from onnx import numpy_helper
m = onnx.load(sys.argv[1], load_external_data=False)
inits = {i.name for i in m.graph.initializer}
inp = [i for i in m.graph.input if i.name not in inits][0]
shape = [d.dim_value for d in inp.type.tensor_type.shape.dim]
n = int(np.prod(shape))
if sys.argv[3] == "arange":
    x = (np.arange(n, dtype=np.float32).reshape(shape) / n).astype(np.float32)
else:
    x = np.random.default_rng(0).random(shape, dtype=np.float32)
open(sys.argv[2], "wb").write(numpy_helper.from_array(x, inp.name).SerializeToString())
PYEOF
    check "$name/$kind" "$model" "$plan" "$in"
  done
  rm -f "$plan"
done

for m in "${HEAVY[@]}"; do
  model="$MODELS/static/$m.onnx"
  plan="$WORK/$m.plan"
  compile "$model" "$plan" || continue
  check "$m/test_data_set_0" "$model" "$plan" "$MODELS/static/$m/test_data_set_0"
  rm -f "$plan"
done

for m in "${ZOO[@]}"; do
  model="$MODELS/zoo/${m}_op17.onnx"
  plan="$WORK/$m.plan"
  compile "$model" "$plan" || continue
  check "zoo/$m/test_data_set_0" "$model" "$plan" "$MODELS/zoo/${m}_op17/test_data_set_0"
  rm -f "$plan"
done

# Trained weights (examples/fashion-mnist: the small CNN and ResNet18Narrow) on
# the first 100 Fashion-MNIST test images, when Debian's dataset is there.
if [[ -f /usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz ]]; then
  in="$WORK/fashion-mnist.in"
  mkdir -p "$in"
  "$PY" - "$ROOT/examples/fashion-mnist" "$in/input_0.pb" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
import fmnist
from onnx import numpy_helper
x = fmnist.preprocess(fmnist.load("t10k")[0][:100])
open(sys.argv[2], "wb").write(numpy_helper.from_array(x, "image").SerializeToString())
PYEOF
  for m in model resnet; do
    model="$ROOT/examples/fashion-mnist/$m.onnx"
    plan="$WORK/fashion-mnist-$m.plan"
    compile "$model" "$plan" || continue
    check "fashion-mnist/$m" "$model" "$plan" "$in"
    rm -f "$plan"
  done
else
  echo "FAIL: Debian's dataset-fashion-mnist is not installed (scripts/build.sh installs it)"; fail=1
fi

echo "oracle.ort: rtol $RTOL atol $ATOL, $((SECONDS - start)) s, $([[ $fail -eq 0 ]] && echo ok || echo FAILED)"
exit $fail
