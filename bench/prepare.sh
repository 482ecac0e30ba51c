#!/bin/sh
# Builds what bench/side_by_side.py needs on the GPU machine, here (MLIR, no GPU):
#   exports the benchmark models with scripts/export_models.py (static shapes, opset 17) and
#   compiles each case with `kilnc --target sm_90a` into OUT (default .device/bench, git-ignored):
#     OUT/<model>_b<batch>.plan            a plan with its weights (small enough to carry), or
#     OUT/<model>_b<batch>.stripped.plan   a weight-stripped plan (kilnc --strip-weights), when the
#                                          full one is over --max-plan-mb and kilnc can strip;
#                                          side_by_side.py --refit-from DIR refits it on the GPU
#     OUT/<model>_b<batch>.data/           the exported reference inputs/outputs (input_K.pb,
#                                          output_K.pb) when under --max-data-mb: checked there
#   ONNX exports and plans too big to carry stay in WORK (default .device/bench-work).
#
# usage: bench/prepare.sh [--build-dir build] [--out .device/bench] [--work .device/bench-work]
#                         [--cases "mobilenet_v2:1 resnet50:1 ..."] [--target sm_90a]
#                         [--max-plan-mb 40] [--max-data-mb 2] [--strip auto|always|never]
#                         [--skip-big] [--python /usr/bin/python3]
#   --strip auto: strip the cases whose ONNX file is over --max-plan-mb; --skip-big: without
#   --strip-weights in kilnc, do not even compile those (else they are compiled, to check and time
#   the build, and kept in WORK).
# Default cases: resnet50:1 resnet50:64 mobilenet_v2:1 vit_b_16:1 bert_encoder:1 bert_encoder:32
# (bert_encoder at sequence length 128). Prints each file's size and the total to carry.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build
OUT=$ROOT/.device/bench
WORK=$ROOT/.device/bench-work
CASES="resnet50:1 resnet50:64 mobilenet_v2:1 vit_b_16:1 bert_encoder:1 bert_encoder:32"
TARGET=sm_90a
MAX_PLAN_MB=40
MAX_DATA_MB=2
STRIP=auto
SKIP_BIG=no
PY=/usr/bin/python3
while [ $# -gt 0 ]; do
  case $1 in
    --build-dir) BUILD=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --cases) CASES=$2; shift 2 ;;
    --target) TARGET=$2; shift 2 ;;
    --max-plan-mb) MAX_PLAN_MB=$2; shift 2 ;;
    --max-data-mb) MAX_DATA_MB=$2; shift 2 ;;
    --strip) STRIP=$2; shift 2 ;;
    --python) PY=$2; shift 2 ;;
    --skip-big) SKIP_BIG=yes; shift ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "prepare.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
KILNC=$BUILD/bin/kilnc
[ -x "$KILNC" ] || { echo "prepare.sh: $KILNC is not built" >&2; exit 2; }
CAN_STRIP=no
if "$KILNC" --help 2>/dev/null | grep -q -- '--strip-weights'; then CAN_STRIP=yes; fi
mkdir -p "$OUT" "$WORK"
size() { stat -c %s "$1"; }
mbs() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
FAILED=""

for c in $CASES; do
  m=${c%%:*}; b=${c##*:}; k=${m}_b$b
  onnx=$WORK/onnx/b$b/${m}_op17.onnx
  rm -f "$OUT/$k.plan" "$OUT/$k.stripped.plan"; rm -rf "$OUT/$k.data"
  if [ ! -f "$onnx" ]; then
    echo "== export $m batch $b"
    if ! "$PY" "$ROOT/scripts/export_models.py" --out "$WORK/onnx/b$b" --models "$m" \
        --batch "$b" --seq 128 --opset 17 >"$WORK/export_$k.log" 2>&1; then
      echo "   FAILED (see $WORK/export_$k.log)"; FAILED="$FAILED $k"; continue
    fi
  fi
  ln -sf "onnx/b$b/${m}_op17.onnx" "$WORK/$k.onnx"  # name side_by_side --refit-from looks for
  osize=$(size "$onnx")
  big=no  # the plan is about as big as the ONNX file (fp32 weights)
  if [ "$STRIP" = always ] || { [ "$STRIP" = auto ] && [ "$osize" -gt $((MAX_PLAN_MB * 1000000)) ]; }; then
    big=yes
  fi
  if [ $big = yes ] && [ "$CAN_STRIP" = yes ]; then
    echo "== kilnc $k ($(mbs "$osize") ONNX) --target $TARGET --strip-weights"
    if ! "$KILNC" "$onnx" -o "$OUT/$k.stripped.plan" --target "$TARGET" --strip-weights \
        >"$WORK/kilnc_$k.log" 2>&1; then
      echo "   FAILED: $(grep -m1 -i error "$WORK/kilnc_$k.log" || tail -1 "$WORK/kilnc_$k.log")"
      FAILED="$FAILED $k"; continue
    fi
    grep -E 'built|plan file|GPU launches' "$WORK/kilnc_$k.log" | sed 's/^/   /'
    echo "   -> $k.stripped.plan $(mbs "$(size "$OUT/$k.stripped.plan")") (refit on the GPU machine: side_by_side.py --refit-from)"
  elif [ $big = yes ] && [ "$SKIP_BIG" = yes ]; then
    echo "== $k: skipped ($(mbs "$osize") ONNX, too big to carry, and this kilnc has no --strip-weights)"
    continue
  else
    echo "== kilnc $k ($(mbs "$osize") ONNX) --target $TARGET"
    plan=$WORK/$k.plan
    if ! "$KILNC" "$onnx" -o "$plan" --target "$TARGET" >"$WORK/kilnc_$k.log" 2>&1; then
      echo "   FAILED: $(grep -m1 -i error "$WORK/kilnc_$k.log" || tail -1 "$WORK/kilnc_$k.log")"
      FAILED="$FAILED $k"; continue
    fi
    grep -E 'built|plan file|GPU launches' "$WORK/kilnc_$k.log" | sed 's/^/   /'
    psize=$(size "$plan")
    if [ "$psize" -gt $((MAX_PLAN_MB * 1000000)) ]; then
      echo "   -> full plan $(mbs "$psize") is over $MAX_PLAN_MB MB and this kilnc has no --strip-weights:"
      echo "      kept in $WORK only (side_by_side.py will say 'no plan')"
    else
      cp "$plan" "$OUT/$k.plan"
      echo "   -> $k.plan $(mbs "$psize")"
    fi
  fi
  data=$WORK/onnx/b$b/${m}_op17/test_data_set_0
  if [ -d "$data" ]; then
    dsize=$(du -sb "$data" | cut -f1)
    if [ "$dsize" -le $((MAX_DATA_MB * 1000000)) ]; then
      mkdir -p "$OUT/$k.data" && cp "$data"/*.pb "$OUT/$k.data/"
      echo "   -> $k.data/ $(mbs "$dsize") reference inputs/outputs"
    fi
  fi
done

echo
echo "to carry: $OUT"
ls -la "$OUT" | tail -n +4 | awk '{ printf "  %12d  %s\n", $5, $9 }'
total=$(du -sb "$OUT" | cut -f1)
echo "total $(mbs "$total")$( [ "$total" -gt 50000000 ] && echo '  -- WARNING: over 50 MB, too big to carry with the tree in one call')"
if [ -n "$FAILED" ]; then echo "FAILED:$FAILED"; exit 1; fi
