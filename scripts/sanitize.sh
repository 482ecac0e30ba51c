#!/usr/bin/env bash
# The plan library, runtime, kiln-run and kiln-refit under ASan and UBSan,
# and the ONNX importer over its fuzz corpus:
#
#   scripts/sanitize.sh [WORK_DIR]      (default: build-sanitize/)
#
# 1. a runtime-only build (-DKILN_BUILD_COMPILER=OFF) with gcc and
#    -fsanitize=address,undefined -fno-sanitize-recover=all in WORK_DIR/asan,
#    and the plan, runtime, refit and tool gtests (ctest) in it;
# 2. the plan fuzzer (clang, libFuzzer) in WORK_DIR/fuzz over a copy of
#    test/fuzz/plan-corpus and test/fuzz/plan-regressions for
#    KILN_FUZZ_SECONDS (default 60);
# 3. test/fuzz/mutate_plan.py: KILN_MUTANTS (default 1000) mutants of the
#    corpus' host plans run by the sanitized kiln-run;
# 4. the ONNX importer's fuzzer (clang, libFuzzer, ASan/UBSan; WORK_DIR/import)
#    over its kept regressions, its seed corpus (test/fuzz/make_corpus.sh) and
#    every libonnx-testdata model, then fuzzing for KILN_FUZZ_SECONDS.
# Any sanitizer report, fuzzer finding, crash or hang fails the script.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${1:-$ROOT/build-sanitize}"
FUZZ_SECONDS="${KILN_FUZZ_SECONDS:-60}"
MUTANTS="${KILN_MUTANTS:-1000}"
JOBS="${KILN_JOBS:-2}"
LAUNCHER=()
if command -v ccache >/dev/null; then
  LAUNCHER=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
start=$SECONDS
step() { echo "sanitize: $* ($((SECONDS - start)) s)"; }
# Quiet builds; the log's tail on failure.
build() {
  local dir="$1"
  shift
  ninja -C "$dir" -j "$JOBS" "$@" >"$dir/ninja.log" 2>&1 ||
    { tail -n 40 "$dir/ninja.log"; echo "sanitize: build failed" >&2; exit 1; }
}

# Abort on the first report, with the report on stderr; leaks count too.
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

step "configuring the ASan/UBSan runtime build in $WORK/asan"
# -O1 -g1, as the importer build below: half the build time of RelWithDebInfo
# (the JSON and option-parsing templates dominate it), line numbers kept.
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -O1 -g1"
if [[ ! -f "$WORK/asan/build.ninja" ]]; then
  cmake -G Ninja -S "$ROOT" -B "$WORK/asan" -DCMAKE_BUILD_TYPE=None \
    -DKILN_BUILD_COMPILER=OFF "${LAUNCHER[@]}" \
    "-DCMAKE_C_FLAGS=$SAN" "-DCMAKE_CXX_FLAGS=$SAN" \
    "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined" \
    "-DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=address,undefined" >/dev/null
fi
step "building the runtime, kiln-run, kiln-refit and their tests"
# Not -Werror: gcc 12's -Wmaybe-uninitialized misfires inside libstdc++
# (std::regex) under -fsanitize; the normal build keeps the code warning-free.
build "$WORK/asan" kiln-run kiln-refit kiln-plan-tests kiln-runtime-tests \
  kiln-runtime-c-test kiln-refit-tests kiln-tool-tests kiln-plan-fuzz-replay \
  kiln-make-plan-corpus
step "running the plan, runtime, refit and tool tests"
# The GPU tests (not built here) run on GPU machines: test/gpu.
(cd "$WORK/asan" && ctest --output-on-failure -j "$JOBS" \
  -R '^(plan|runtime|refit|tools)\.' -E '^runtime\.gpu$')

step "building the plan fuzzer (clang, libFuzzer) in $WORK/fuzz"
FUZZ="-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer"
if [[ ! -f "$WORK/fuzz/build.ninja" ]]; then
  cmake -G Ninja -S "$ROOT" -B "$WORK/fuzz" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ "${LAUNCHER[@]}" \
    -DKILN_BUILD_COMPILER=OFF -DKILN_ENABLE_FUZZER=ON -DKILN_BUILD_TESTS=OFF \
    "-DCMAKE_C_FLAGS=$FUZZ" "-DCMAKE_CXX_FLAGS=$FUZZ" >/dev/null
fi
build "$WORK/fuzz" kiln-fuzz-plan
step "fuzzing the plan reader for $FUZZ_SECONDS s"
corpus="$WORK/fuzz/plan-corpus"
rm -rf "$corpus" && mkdir -p "$corpus" "$WORK/fuzz/findings"
cp "$ROOT"/test/fuzz/plan-corpus/* "$corpus/"
# First the kept regressions on their own, then fuzzing from the seeds.
"$WORK/fuzz/bin/kiln-fuzz-plan" -runs=0 "$ROOT/test/fuzz/plan-regressions" \
  2>"$WORK/fuzz/regressions.log" ||
  { tail -n 40 "$WORK/fuzz/regressions.log"; exit 1; }
if ! "$WORK/fuzz/bin/kiln-fuzz-plan" -max_total_time="$FUZZ_SECONDS" \
     -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
     -artifact_prefix="$WORK/fuzz/findings/" "$corpus" \
     2>"$WORK/fuzz/fuzz.log"; then
  tail -n 60 "$WORK/fuzz/fuzz.log"
  echo "sanitize: the plan fuzzer found a failure: $WORK/fuzz/findings/" \
       "(minimize it and add it to test/fuzz/plan-regressions)" >&2
  exit 1
fi
grep -E '^stat::number_of_executed_units' "$WORK/fuzz/fuzz.log" || true

step "running $MUTANTS plan mutants through the sanitized kiln-run"
/usr/bin/python3 "$ROOT/test/fuzz/mutate_plan.py" \
  "$ROOT"/test/fuzz/plan-corpus/host-*.plan \
  --kiln-run "$WORK/asan/bin/kiln-run" --count "$MUTANTS" \
  --keep "$WORK/mutate-failures"
step "configuring the importer fuzzer build (clang, libFuzzer) in $WORK/import"
# kiln's importer and graph dialect instrumented (-O1 -g1: a third of
# RelWithDebInfo's build time, with line numbers in the reports); the
# prebuilt libMLIR, libonnx and libprotobuf are not.
IMPORT_FLAGS="$FUZZ -O1 -g1 -Wno-c++11-narrowing"
if [[ ! -f "$WORK/import/build.ninja" ]]; then
  cmake -G Ninja -S "$ROOT" -B "$WORK/import" -DCMAKE_BUILD_TYPE=None \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ "${LAUNCHER[@]}" \
    -DKILN_ENABLE_FUZZER=ON -DKILN_BUILD_TESTS=OFF \
    "-DCMAKE_C_FLAGS=$IMPORT_FLAGS" "-DCMAKE_CXX_FLAGS=$IMPORT_FLAGS" >/dev/null
fi
build "$WORK/import" kiln-fuzz-import
step "replaying the importer's seed corpus, regressions and libonnx-testdata models"
import_corpus="$WORK/import/corpus"
rm -rf "$import_corpus" && mkdir -p "$import_corpus" "$WORK/import/findings"
"$ROOT/test/fuzz/make_corpus.sh" "$import_corpus" >"$WORK/import/corpus.log" 2>&1 ||
  { tail -n 20 "$WORK/import/corpus.log"; exit 1; }
if [[ -d /usr/share/libonnx-testdata/data ]]; then
  while IFS= read -r m; do
    rel="${m#/usr/share/libonnx-testdata/data/}"
    cp "$m" "$import_corpus/testdata_${rel//\//_}"
  done < <(find /usr/share/libonnx-testdata/data -name model.onnx)
fi
fuzz_import=("$WORK/import/bin/kiln-fuzz-import" -rss_limit_mb=2048 -timeout=10
             -dict="$ROOT/test/fuzz/onnx.dict" -artifact_prefix="$WORK/import/findings/")
"${fuzz_import[@]}" -runs=0 "$ROOT/test/fuzz/regressions" 2>"$WORK/import/regressions.log" ||
  { tail -n 40 "$WORK/import/regressions.log"; exit 1; }
"${fuzz_import[@]}" -runs=0 "$import_corpus" 2>"$WORK/import/replay.log" ||
  { tail -n 60 "$WORK/import/replay.log"
    echo "sanitize: an importer corpus input failed under ASan/UBSan" >&2; exit 1; }
grep -E 'INITED|DONE' "$WORK/import/replay.log" | tail -n 1 || true
step "fuzzing the importer for $FUZZ_SECONDS s"
if ! "${fuzz_import[@]}" -max_total_time="$FUZZ_SECONDS" -print_final_stats=1 \
     "$import_corpus" 2>"$WORK/import/fuzz.log"; then
  tail -n 60 "$WORK/import/fuzz.log"
  echo "sanitize: the importer fuzzer found a failure: $WORK/import/findings/" \
       "(minimize it and add it to test/fuzz/regressions with a lit check)" >&2
  exit 1
fi
grep -E '^stat::number_of_executed_units' "$WORK/import/fuzz.log" || true
step "done"
