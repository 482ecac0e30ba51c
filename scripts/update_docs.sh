#!/usr/bin/env bash
# Copies the pass documentation that the build generates from the TableGen
# pass definitions (target kiln-docs: BUILD_DIR/docs/passes/*.md) into
# docs/passes/, which is committed; with --check, only says whether the
# committed copies are current (the ctest docs.passes runs that).
#
#   scripts/update_docs.sh [BUILD_DIR]           build kiln-docs, then copy
#   scripts/update_docs.sh --check [BUILD_DIR]   compare, exit 1 when stale
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CHECK=0
if [ "${1:-}" = "--check" ]; then
  CHECK=1
  shift
fi
case "${1:-}" in
  -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  -*) echo "error: unknown option '$1' (usage: scripts/update_docs.sh [--check] [BUILD_DIR])" >&2; exit 2 ;;
esac
BUILD_DIR="${1:-$ROOT/build}"
GEN="$BUILD_DIR/docs/passes"
DOCS="$ROOT/docs/passes"

if [ "$CHECK" = 0 ]; then
  cmake --build "$BUILD_DIR" --target kiln-docs
fi
shopt -s nullglob
generated=("$GEN"/*.md)
if [ ${#generated[@]} -eq 0 ]; then
  echo "error: no generated pass docs in $GEN: build the target kiln-docs first" \
       "(cmake --build $BUILD_DIR --target kiln-docs; a build with the compiler makes them)" >&2
  exit 2
fi

if [ "$CHECK" = 1 ]; then
  stale=0
  for g in "${generated[@]}"; do
    c="$DOCS/$(basename "$g")"
    if [ ! -f "$c" ]; then
      echo "docs/passes/$(basename "$g") is missing (the build generates it)"
      stale=1
    elif ! cmp -s "$g" "$c"; then
      echo "docs/passes/$(basename "$g") differs from the pass definitions:"
      diff -u "$c" "$g" | head -n 40 || true
      stale=1
    fi
  done
  for c in "$DOCS"/*.md; do
    if [ ! -f "$GEN/$(basename "$c")" ]; then
      echo "docs/passes/$(basename "$c") is no longer generated (its .td file is gone from docs/CMakeLists.txt)"
      stale=1
    fi
  done
  if [ "$stale" = 1 ]; then
    echo "error: the committed pass docs are stale: run scripts/update_docs.sh $BUILD_DIR and commit docs/passes/" >&2
    exit 1
  fi
  echo "docs/passes/ is current (${#generated[@]} files)"
  exit 0
fi

mkdir -p "$DOCS"
for c in "$DOCS"/*.md; do
  [ -f "$GEN/$(basename "$c")" ] || { rm "$c"; echo "removed docs/passes/$(basename "$c")"; }
done
for g in "${generated[@]}"; do
  c="$DOCS/$(basename "$g")"
  if ! cmp -s "$g" "$c" 2>/dev/null; then
    cp "$g" "$c"
    echo "updated docs/passes/$(basename "$g")"
  fi
done
echo "docs/passes/ is current (${#generated[@]} files)"
