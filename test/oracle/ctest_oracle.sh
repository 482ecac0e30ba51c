#!/usr/bin/env bash
# ctest driver of oracle.ort: installs onnxruntime-node (pinned in package.json / package-lock.json) into
# NPM_DIR once (re-installs when either file changes), then runs run_oracle.sh. Fails, never skips, when
# node/npm are missing or the npm registry cannot be reached.
#
#   ctest_oracle.sh BIN_DIR MODELS_DIR NPM_DIR WORK_DIR
set -uo pipefail
BIN="$1" MODELS="$2" NPM_DIR="$3" WORK="$4"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
for tool in node npm; do
  if ! command -v "$tool" > /dev/null; then
    echo "FAIL oracle.ort: '$tool' not found; install Node.js >= 18 (Debian: apt-get install nodejs npm)" >&2
    exit 1
  fi
done
mkdir -p "$NPM_DIR"
stamp="$NPM_DIR/.installed"
if [[ ! -f "$stamp" || "$HERE/package.json" -nt "$stamp" || "$HERE/package-lock.json" -nt "$stamp" \
      || ! -d "$NPM_DIR/node_modules/onnxruntime-node" ]]; then
  cp "$HERE/package.json" "$HERE/package-lock.json" "$NPM_DIR/"
  echo "oracle.ort: npm ci onnxruntime-node into $NPM_DIR"
  # ONNXRUNTIME_NODE_INSTALL=skip: the package ships the CPU binaries; skip its CUDA download.
  if ! (cd "$NPM_DIR" && ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund --loglevel=error \
          > "$NPM_DIR/npm.log" 2>&1); then
    cat "$NPM_DIR/npm.log" >&2
    echo "FAIL oracle.ort: 'npm ci' of onnxruntime-node failed (is the npm registry reachable?); see above" >&2
    exit 1
  fi
  if ! (cd "$NPM_DIR" && NODE_PATH="$NPM_DIR/node_modules" node -e "require('onnxruntime-node')") 2>&1; then
    echo "FAIL oracle.ort: onnxruntime-node installed but does not load" >&2
    exit 1
  fi
  touch "$stamp"
fi
exec "$HERE/run_oracle.sh" "$BIN" "$MODELS" "$NPM_DIR/node_modules" "$WORK"
