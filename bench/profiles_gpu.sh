#!/bin/bash
# A plan with several optimization profiles against static plans on a GPU:
# outputs (bit-identical expected: each profile is compiled for its shapes
# like the static plan of that shape) and p50 latency per batch size,
# alternating plans over two rounds. Needs the runtime-only build (no MLIR)
# and a python3 with numpy and onnx.
#
#   bench/profiles_gpu.sh DIR [--build-dir build-rt] [--input NAME] [--batches "1 8 32"]
#
# DIR holds, for ResNet-50 (as made on the compiler machine):
#   resnet50_op17.skeleton.onnx + resnet50_op17.recipe.json
#       scripts/export_models.py --models resnet50 --dynamic-batch --portable-weights
#   resnet50_dyn.stripped.plan   kilnc ... --strip-weights --profile input=1x3x224x224 ... (one per batch)
#   resnet50_bB.stripped.plan    kilnc ... --strip-weights --input-shape input=Bx3x224x224 (each batch)
# The weights are regenerated here from the recipe and refitted into the plans.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=${1:?usage: bench/profiles_gpu.sh DIR [--build-dir B] [--input NAME] [--batches LIST]}
shift
BUILD=$ROOT/build-rt INPUT=input BATCHES="1 8 32"
while [ $# -gt 0 ]; do
  case $1 in
    --build-dir) BUILD=$2; shift 2 ;;
    --input) INPUT=$2; shift 2 ;;
    --batches) BATCHES=$2; shift 2 ;;
    *) echo "profiles_gpu.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
B=$BUILD/bin
T=$(mktemp -d /tmp/kiln-profiles.XXXXXX)
python3 "$ROOT/scripts/portable_weights.py" regen "$DIR/resnet50_op17.skeleton.onnx" \
  --recipe "$DIR/resnet50_op17.recipe.json" -o "$T/model.onnx"
"$B/kiln-refit" "$DIR/resnet50_dyn.stripped.plan" --weights-from "$T/model.onnx" -o "$T/dyn.plan"
for b in $BATCHES; do
  "$B/kiln-refit" "$DIR/resnet50_b$b.stripped.plan" --weights-from "$T/model.onnx" -o "$T/b$b.plan"
  python3 -c "import numpy as np; np.save('$T/x$b.npy', np.random.RandomState($b).uniform(-1, 1, ($b, 3, 224, 224)).astype(np.float32))"
  "$B/kiln-run" "$T/dyn.plan" --device gpu --input "$INPUT=$T/x$b.npy" --output-dir "$T/dyn_$b" >/dev/null
  "$B/kiln-run" "$T/b$b.plan" --device gpu --input "$INPUT=$T/x$b.npy" --output-dir "$T/st_$b" >/dev/null
done
python3 - "$T" $BATCHES <<'PY'
import sys, onnx, numpy as np
from onnx import numpy_helper
t = sys.argv[1]
def rd(p):
    x = onnx.TensorProto(); x.ParseFromString(open(p, "rb").read()); return numpy_helper.to_array(x)
for b in sys.argv[2:]:
    a, s = rd("%s/dyn_%s/output_0.pb" % (t, b)), rd("%s/st_%s/output_0.pb" % (t, b))
    print("batch %s: profile plan vs static plan max |diff| %.3g, bit-identical %s" % (b, abs(a - s).max(), bool((a == s).all())))
PY
p50() { python3 -c "import json,sys; print(json.load(sys.stdin)['latency_ms']['p50'])"; }
for rep in 1 2; do
  k=0
  for b in $BATCHES; do
    d=$("$B/kiln-run" "$T/dyn.plan" --device gpu --profile-index $k --bench --iterations 300 --json | p50)
    s=$("$B/kiln-run" "$T/b$b.plan" --device gpu --bench --iterations 300 --json | p50)
    echo "round $rep batch $b: profile plan p50 $d ms, static plan p50 $s ms"
    k=$((k + 1))
  done
done
rm -rf "$T"
