#!/bin/bash
# Bundles kiln-serve, kiln-refit, kiln-run and kiln-serve-load with the
# shared libraries they load beyond glibc (gRPC++, protobuf, cpp-httplib,
# abseil, OpenSSL, ...) into one folder, for a GPU machine that can run
# Debian 12 binaries (glibc 2.36 or newer) but has none of those packages:
#
#   scripts/bundle_serve.sh [BUILD_DIR (default build-rt)] [OUT (default .device/kiln-serve)]
#   OUT/kiln-serve --model-repository REPO ...      (on the GPU machine)
#
# OUT/kiln-serve, OUT/kiln-refit, OUT/kiln-run and OUT/kiln-serve-load are
# launchers that run the binaries under OUT/bin with OUT/lib on the library
# path. The CUDA driver is the GPU machine's own (dlopen'ed at run time),
# never bundled.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build-rt}
OUT=${2:-$ROOT/.device/kiln-serve}
rm -rf "$OUT"
mkdir -p "$OUT/bin" "$OUT/lib"
for tool in kiln-serve kiln-refit kiln-run kiln-serve-load; do
  [ -x "$BUILD/bin/$tool" ] || { echo "bundle_serve.sh: no $BUILD/bin/$tool" >&2; exit 1; }
  cp "$BUILD/bin/$tool" "$OUT/bin/"
  # glibc's own libraries stay the machine's: they must match its loader.
  ldd "$BUILD/bin/$tool" | awk '$3 ~ /^\// {print $3}' |
    grep -vE '/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*)\.so' |
    while read -r lib; do cp -L "$lib" "$OUT/lib/"; done
  cat > "$OUT/$tool" <<LAUNCH
#!/bin/sh
here=\$(cd "\$(dirname "\$0")" && pwd)
LD_LIBRARY_PATH="\$here/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "\$here/bin/$tool" "\$@"
LAUNCH
  chmod +x "$OUT/$tool"
done
echo "bundle_serve.sh: $OUT ($(du -sh "$OUT" | cut -f1)): $(ls "$OUT/lib" | wc -l) libraries"
