// The cache is written here from the region key kiln-clone-tactic-variants
// reports for @kernel_0 (the first #kiln_plan.choice), with an entry per
// target: what kiln-tune --timing-cache would write after measuring it.
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-opt %s -kiln-clone-tactic-variants | grep -o -m 1 'key = "[0-9a-f]*"' | sed -e 's/key = "\(.*\)"/{"kiln_timing_cache": 1, "entries": [{"target": "sm_90a", "key": "\1", "best": "wgmma 128x64x64 3 stages"}, {"target": "sm_80", "key": "\1", "best": "mma.sync 64x64x32 ring 4"}, {"target": "sm_90a", "key": "0123456789abcdef", "best": "none"}]}/' > %t/cache.json
// RUN: kiln-opt %s -kiln-apply-timing-cache="path=%t/cache.json target=sm_90a" | FileCheck %s
// RUN: kiln-opt %s -kiln-apply-timing-cache="path=%t/cache.json target=sm_80" | FileCheck %s --check-prefix=SM80
// RUN: kiln-opt %s -kiln-apply-timing-cache="path=%t/cache.json target=sm_100a" | FileCheck %s --check-prefix=NONE

// Tests that the region whose key the cache has for the target gets
// kiln.tactic_force with the entry's best tactic, and the other regions
// (another shape: another key; no tensor-core anchor) get nothing; with
// another target that entry's tactic (SM80); with a target the cache has no
// entry for, nothing (NONE).
// CHECK-LABEL: func.func private @kernel_0(
// CHECK-SAME:    attributes {kiln.tactic_force = "wgmma 128x64x64 3 stages"}
// CHECK-LABEL: func.func private @kernel_1(
// CHECK-NOT:     kiln.tactic_force
// CHECK-LABEL: func.func private @kernel_2(
// CHECK-NOT:     kiln.tactic_force
// SM80-LABEL: func.func private @kernel_0(
// SM80-SAME:    attributes {kiln.tactic_force = "mma.sync 64x64x32 ring 4"}
// SM80-NOT:     kiln.tactic_force
// NONE-NOT:   kiln.tactic_force

// Tests that a file that is no kiln timing cache, one that is no JSON, an
// entry without its fields, a missing file and no path at all are errors.
// RUN: echo '{"entries": []}' > %t/other.json
// RUN: not kiln-opt %s -kiln-apply-timing-cache="path=%t/other.json target=sm_90a" 2>&1 | FileCheck %s --check-prefix=NOTCACHE
// NOTCACHE: error: '{{.*}}other.json' is not a kiln timing cache (version 1): write it with kiln-tune --timing-cache
// RUN: echo '{"kiln_timing_cache": 2, "entries": []}' > %t/v2.json
// RUN: not kiln-opt %s -kiln-apply-timing-cache="path=%t/v2.json target=sm_90a" 2>&1 | FileCheck %s --check-prefix=V2
// V2: error: '{{.*}}v2.json' is not a kiln timing cache (version 1)
// RUN: echo 'entries' > %t/text.json
// RUN: not kiln-opt %s -kiln-apply-timing-cache="path=%t/text.json target=sm_90a" 2>&1 | FileCheck %s --check-prefix=TEXT
// TEXT: error: timing cache '{{.*}}text.json' is not valid JSON:
// RUN: echo '{"kiln_timing_cache": 1, "entries": [{"target": "sm_90a", "key": "0123456789abcdef"}]}' > %t/partial.json
// RUN: not kiln-opt %s -kiln-apply-timing-cache="path=%t/partial.json target=sm_90a" 2>&1 | FileCheck %s --check-prefix=PARTIAL
// PARTIAL: error: timing cache '{{.*}}partial.json' has an entry without target, key or best
// RUN: not kiln-opt %s -kiln-apply-timing-cache="path=%t/missing.json target=sm_90a" 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: cannot read timing cache '{{.*}}missing.json': No such file or directory
// RUN: not kiln-opt %s -kiln-apply-timing-cache 2>&1 | FileCheck %s --check-prefix=NOPATH
// NOPATH: error: kiln-apply-timing-cache needs a cache: path=FILE
func.func private @kernel_0(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  return
}
func.func private @kernel_1(%a: memref<64x128xf16>, %b: memref<128x64xf16>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x128xf16>, memref<128x64xf16>) outs(%c : memref<64x64xf32>)
  return
}
func.func private @kernel_2(%a: memref<64x64xf16>, %c: memref<64x64xf16>) {
  linalg.copy ins(%a : memref<64x64xf16>) outs(%c : memref<64x64xf16>)
  return
}
