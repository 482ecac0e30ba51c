#!/bin/bash
# kiln-serve on a GPU: C concurrent batch-1 clients against a model served
# without batching (its batch-1 plan, one request per execution) and with
# dynamic batching (batch plans 1, 8, 32 merged up to 32 rows), printing both
# throughputs. Needs only the runtime-only build (no MLIR):
#
#   cmake -G Ninja -S . -B build-rt -DKILN_BUILD_COMPILER=OFF && ninja -C build-rt
#   bench/serve_gpu.sh --plans DIR [--refit-from MODEL.onnx] [--model resnet50]
#                      [--build-dir build-rt] [--requests 4000] [--concurrency 32]
#                      [--processes 4] [--protocol rest|grpc] [--delay-us 2000]
#                      [--instances 2] [--serve PATH] [--python PYTHON]
#                      [--profile-plan FILE] [--max-scaled-error E]
#                      [--load-tool PATH] [--preferred "16 24 32"]
#
# --load-tool: drive the load with kiln-serve-load (C++, REST with binary
# tensors, one process, --concurrency threads) instead of serve_load.py
# processes: Python clients cost about a millisecond per image-sized
# request and cap the measurement at a few thousand requests/s.
#
# --max-scaled-error E: a response passes when max|got - ref| <= E * max|ref|
# (fp16 plans: batched executions use other tactics than the batch-1
# reference); default: rtol = atol = 1e-3.
# --preferred: the batching models' preferred_batch_sizes (a batch that
# reaches one runs without waiting out the queue delay).
# --profile-plan: also serve FILE, one plan with a profile per batch size
# (kilnc --profile 'x=1x...' --profile 'x=8x...' ...; .stripped.plan with
# --refit-from), as <model>_profiles batching up to 32 rows, and run the
# same clients against it.
#
# --serve: the kiln-serve to run (default BUILD/bin/kiln-serve; or the
# launcher of a bundle made by scripts/bundle_serve.sh on a Debian 12 build
# machine, for GPU machines without cpp-httplib/gRPC++). --python: a Python 3
# with numpy (default /usr/bin/python3 when it has numpy, else python3);
# --protocol grpc needs its grpcio and protoc.
#
# DIR holds <model>_b1, _b8 and _b32 as .plan, or as .stripped.plan (kilnc
# --strip-weights) with --refit-from the ONNX model (any batch: the weights
# are the same) to complete them here with kiln-refit. Made on the compiler
# machine with:
#   bench/prepare.sh --cases "resnet50:1 resnet50:8 resnet50:32" --strip always --out DIR
# (then carry DIR and .device/bench-work/resnet50_b1.onnx).
#
# The clients run as --processes load generators (bench/serve_load.py, one
# Python process each, --concurrency/--processes clients apiece) so that the
# client is not the bottleneck. Every response is checked against the
# batch-1 plan's output for the same input (--rtol/--atol 1e-3: different
# plans of one model may order their sums differently). Exit 0 when both
# runs had no error.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PLANS="" REFIT="" MODEL=resnet50 BUILD=$ROOT/build-rt
REQUESTS=4000 CONC=32 PROCS=4 PROTO=rest DELAY=2000 INSTANCES=2 SERVE="" PY=""
PROFPLAN="" CHECK="--rtol 1e-3 --atol 1e-3" LOADTOOL="" MAXERR=1e-3 PREFERRED=""
while [ $# -gt 0 ]; do
  case $1 in
    --plans) PLANS=$2; shift 2 ;;
    --refit-from) REFIT=$2; shift 2 ;;
    --model) MODEL=$2; shift 2 ;;
    --build-dir) BUILD=$2; shift 2 ;;
    --requests) REQUESTS=$2; shift 2 ;;
    --concurrency) CONC=$2; shift 2 ;;
    --processes) PROCS=$2; shift 2 ;;
    --protocol) PROTO=$2; shift 2 ;;
    --delay-us) DELAY=$2; shift 2 ;;
    --instances) INSTANCES=$2; shift 2 ;;
    --serve) SERVE=$2; shift 2 ;;
    --python) PY=$2; shift 2 ;;
    --profile-plan) PROFPLAN=$2; shift 2 ;;
    --max-scaled-error) CHECK="--max-scaled-error $2"; MAXERR=$2; shift 2 ;;
    --load-tool) LOADTOOL=$2; shift 2 ;;
    --preferred) PREFERRED=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "serve_gpu.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ -n "$PLANS" ] || { echo "serve_gpu.sh: --plans DIR is required" >&2; exit 2; }
[ -n "$SERVE" ] || SERVE=$BUILD/bin/kiln-serve
[ -x "$SERVE" ] || { echo "serve_gpu.sh: no $SERVE (build it first, or --serve)" >&2; exit 2; }
REFIT_TOOL=$(dirname "$SERVE")/kiln-refit
if [ -z "$PY" ]; then
  PY=python3
  /usr/bin/python3 -c "import numpy" 2>/dev/null && PY=/usr/bin/python3
fi
"$PY" -c "import numpy" || { echo "serve_gpu.sh: $PY has no numpy (--python)" >&2; exit 2; }
if [ $((CONC % PROCS)) -ne 0 ]; then
  echo "serve_gpu.sh: --concurrency must be a multiple of --processes" >&2; exit 2
fi

PREFJSON=""
[ -z "$PREFERRED" ] || PREFJSON=" \"preferred_batch_sizes\": [$(echo $PREFERRED | tr ' ' ',')],"
WORK=$(mktemp -d /tmp/kiln-serve-gpu.XXXXXX)
REPO=$WORK/repo
mkdir -p "$REPO/$MODEL/1" "$REPO/${MODEL}_batched/1"
# Without b8 and b32 plans only the batch-1 model (and --profile-plan) run.
BATCHED=1
for b in 8 32; do
  [ -f "$PLANS/${MODEL}_b$b.plan" ] || [ -f "$PLANS/${MODEL}_b$b.stripped.plan" ] || BATCHED=""
done
for b in 1 ${BATCHED:+8 32}; do
  dst=$REPO/${MODEL}_batched/1/b$b.plan
  if [ -f "$PLANS/${MODEL}_b$b.plan" ]; then
    ln -s "$(realpath "$PLANS/${MODEL}_b$b.plan")" "$dst"
  elif [ -f "$PLANS/${MODEL}_b$b.stripped.plan" ]; then
    [ -n "$REFIT" ] || { echo "serve_gpu.sh: ${MODEL}_b$b.stripped.plan needs --refit-from MODEL.onnx" >&2; exit 2; }
    echo "== kiln-refit ${MODEL}_b$b.stripped.plan"
    "$REFIT_TOOL" "$PLANS/${MODEL}_b$b.stripped.plan" --weights-from "$REFIT" -o "$dst"
  else
    echo "serve_gpu.sh: no $PLANS/${MODEL}_b$b.plan or .stripped.plan" >&2; exit 2
  fi
done
[ -z "$BATCHED" ] || ln -s "$(realpath "$REPO/${MODEL}_batched/1/b1.plan")" "$REPO/$MODEL/1/model.plan"
cat > "$REPO/$MODEL/config.json" <<EOF
{"instance_count": $INSTANCES}
EOF
if [ -n "$BATCHED" ]; then
cat > "$REPO/${MODEL}_batched/config.json" <<EOF
{"max_batch_size": 32, "max_queue_delay_microseconds": $DELAY,$PREFJSON
 "instance_count": $INSTANCES,
 "batch_plans": {"1": "b1.plan", "8": "b8.plan", "32": "b32.plan"}}
EOF
else
  mv "$REPO/${MODEL}_batched/1/b1.plan" "$REPO/$MODEL/1/model.plan"
  rm -rf "$REPO/${MODEL}_batched"
fi

if [ -n "$PROFPLAN" ]; then
  mkdir -p "$REPO/${MODEL}_profiles/1"
  dst=$REPO/${MODEL}_profiles/1/model.plan
  case $PROFPLAN in
    *.stripped.plan)
      [ -n "$REFIT" ] || { echo "serve_gpu.sh: $PROFPLAN needs --refit-from MODEL.onnx" >&2; exit 2; }
      echo "== kiln-refit $PROFPLAN"
      "$REFIT_TOOL" "$PROFPLAN" --weights-from "$REFIT" -o "$dst" ;;
    *) ln -s "$(realpath "$PROFPLAN")" "$dst" ;;
  esac
  cat > "$REPO/${MODEL}_profiles/config.json" <<EOF
{"max_batch_size": 32, "max_queue_delay_microseconds": $DELAY,$PREFJSON
 "instance_count": $INSTANCES}
EOF
fi

port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
HTTP=$(port); GRPC=$(port); METRICS=$(port)
"$SERVE" --model-repository "$REPO" --device gpu --http-port "$HTTP" \
  --grpc-port "$GRPC" --metrics-port "$METRICS" >"$WORK/serve.log" 2>&1 &
SERVER=$!
trap 'kill -TERM $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 300); do
  "$PY" -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$HTTP/v2/health/ready', timeout=2)" 2>/dev/null && break
  kill -0 $SERVER 2>/dev/null || { cat "$WORK/serve.log"; exit 1; }
  sleep 0.2
done
cat "$WORK/serve.log"
URL=localhost:$GRPC; [ "$PROTO" = rest ] && URL=localhost:$HTTP

# run NAME [extra serve_load args]: PROCS load generators at once; prints the
# combined requests/s and latency percentiles.
run() {
  local name=$1; shift
  if [ -n "$LOADTOOL" ]; then
    local ref=$name
    [ "${1:-}" = --reference-model ] && ref=$2
    "$LOADTOOL" --url "127.0.0.1:$HTTP" --model "$name" --reference-model "$ref" \
      --requests "$REQUESTS" --concurrency "$CONC" --max-scaled-error "$MAXERR"
    return $?
  fi
  local pids=() i
  for i in $(seq "$PROCS"); do
    "$PY" "$ROOT/bench/serve_load.py" --model "$name" --protocol "$PROTO" \
      --url "$URL" --requests $((REQUESTS / PROCS)) --concurrency $((CONC / PROCS)) \
      --seed "$i" $CHECK --warmup 5 --json \
      --latencies "$WORK/$name.$i.npy" "$@" >"$WORK/$name.$i.json" &
    pids+=($!)
  done
  local rc=0
  for i in "${pids[@]}"; do wait "$i" || rc=1; done
  "$PY" - "$WORK" "$name" "$PROCS" <<'EOF'
import json, sys, numpy as np
work, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
reps = [json.load(open("%s/%s.%d.json" % (work, name, i))) for i in range(1, n + 1)]
lat = np.concatenate([np.load("%s/%s.%d.npy" % (work, name, i)) for i in range(1, n + 1)])
wall = max(r["seconds"] for r in reps)
print("%-20s %6d requests, %d clients: %8.1f req/s, p50 %.2f ms, p99 %.2f ms, %d errors, "
      "max scaled error %.2g"
      % (name, len(lat), sum(r["concurrency"] for r in reps), len(lat) / wall,
         np.percentile(lat, 50), np.percentile(lat, 99), sum(r["errors"] for r in reps),
         max(r["max_scaled_error"] for r in reps)))
EOF
  return $rc
}
echo "== $CONC concurrent batch-1 clients ($PROTO), $REQUESTS requests each run"
rc=0
run "$MODEL" || rc=1
if [ -n "$BATCHED" ]; then
  run "${MODEL}_batched" --reference-model "$MODEL" || rc=1
fi
if [ -n "$PROFPLAN" ]; then
  run "${MODEL}_profiles" --reference-model "$MODEL" || rc=1
fi
echo "== batching metrics"
"$PY" -c "import urllib.request as u; print(u.urlopen('http://127.0.0.1:$METRICS/metrics').read().decode())" | grep -E "^kiln_inference_(batch_size_(sum|count)|exec_by_plan_total|exec_count_total|(request|queue|compute_(input|infer|output))_duration_seconds_(sum|count))|^kiln_gpu_memory" || true
kill -TERM $SERVER; wait $SERVER || rc=1
trap - EXIT
echo "(server log and per-process reports: $WORK)"
exit $rc
