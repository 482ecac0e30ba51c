// RUN: kiln-opt %s -split-input-file -kiln-finalize-tactic-variants -verify-diagnostics | FileCheck %s
// RUN: kiln-opt %s -split-input-file -kiln-clone-tactic-variants=candidates=8 -kiln-gpu-tensor-core=wgmma=auto -kiln-finalize-tactic-variants -verify-diagnostics | FileCheck %s --check-prefix=CHAIN

// Tests that of a region's variants the void one (kiln.tactic_void) and
// the one repeating an earlier variant's tactics are erased, and that the
// choice keeps the others with their tactics and the region's GEMM shapes.
// CHECK-LABEL: func.func private @kernel_0(
// CHECK-SAME:    kiln_plan.choice = #kiln_plan.choice<key = "00000000000000aa", shapes = "64x64x64", variants = [#kiln_plan.variant<function = @kernel_0, tactics = "mma.sync 64x64x32 ring 4">, #kiln_plan.variant<function = @kernel_0__v1, tactics = "wgmma 128x64x64 3 stages">, #kiln_plan.variant<function = @kernel_0__v3, tactics = "mma.sync 128x64x32 ring 4">]>
// CHECK-LABEL: func.func private @kernel_0__v1(
// CHECK-NOT:   @kernel_0__v2(
// CHECK-LABEL: func.func private @kernel_0__v3(
// CHECK-NOT:   @kernel_0__v4(
func.func private @kernel_0() attributes {kiln.gemm_shapes = "64x64x64", kiln.tactics = "mma.sync 64x64x32 ring 4", kiln_plan.choice = #kiln_plan.choice<key = "00000000000000aa", shapes = "", variants = [#kiln_plan.variant<function = @kernel_0, tactics = "">, #kiln_plan.variant<function = @kernel_0__v1, tactics = "">, #kiln_plan.variant<function = @kernel_0__v2, tactics = "">, #kiln_plan.variant<function = @kernel_0__v3, tactics = "">, #kiln_plan.variant<function = @kernel_0__v4, tactics = "">]>} {
  return
}
func.func private @kernel_0__v1() attributes {kiln.gemm_shapes = "64x64x64", kiln.tactic_variant = 1 : i64, kiln.tactics = "wgmma 128x64x64 3 stages"} {
  return
}
func.func private @kernel_0__v2() attributes {kiln.tactic_variant = 2 : i64, kiln.tactic_void} {
  return
}
func.func private @kernel_0__v3() attributes {kiln.gemm_shapes = "64x64x64", kiln.tactic_variant = 3 : i64, kiln.tactics = "mma.sync 128x64x32 ring 4"} {
  return
}
func.func private @kernel_0__v4() attributes {kiln.gemm_shapes = "64x64x64", kiln.tactic_variant = 4 : i64, kiln.tactics = "wgmma 128x64x64 3 stages"} {
  return
}

// -----

// Tests that a choice goes away when only the region itself is left, its
// variants erased.
// CHECK-LABEL: func.func private @kernel_0()
// CHECK-NOT:     kiln_plan.choice
// CHECK-NOT:   @kernel_0__v1
// CHECK-NOT:   @kernel_0__v2
func.func private @kernel_0() attributes {kiln.tactics = "mma.sync 64x64x32 ring 4", kiln_plan.choice = #kiln_plan.choice<key = "00000000000000bb", shapes = "", variants = [#kiln_plan.variant<function = @kernel_0, tactics = "">, #kiln_plan.variant<function = @kernel_0__v1, tactics = "">, #kiln_plan.variant<function = @kernel_0__v2, tactics = "">]>} {
  return
}
func.func private @kernel_0__v1() attributes {kiln.tactic_variant = 1 : i64, kiln.tactics = "mma.sync 64x64x32 ring 4"} {
  return
}
func.func private @kernel_0__v2() attributes {kiln.tactic_variant = 2 : i64, kiln.tactic_void} {
  return
}

// -----

// Tests that a region whose timing-cache tactic is no candidate any more
// (kiln.tactic_stale) gets a warning naming the tactic and the one used.
// CHECK-LABEL: func.func private @kernel_5()
// CHECK-SAME:    kiln.tactic_stale
// expected-warning @+1 {{the timing cache's tactic 'wgmma 64x256x64 4 stages' for kernel kernel_5 is not a candidate here: the cost model's choice (mma.sync 64x64x32 ring 4) is used; re-run kiln-tune}}
func.func private @kernel_5() attributes {kiln.tactic_force = "wgmma 64x256x64 4 stages", kiln.tactic_stale, kiln.tactics = "mma.sync 64x64x32 ring 4"} {
  return
}

// -----

// Tests that a choice listing a function that does not exist is an error.
// expected-error @+1 {{'func.func' op lists a tactic variant that does not exist: @kernel_0__v1}}
func.func private @kernel_0() attributes {kiln.tactics = "mma.sync 64x64x32 ring 4", kiln_plan.choice = #kiln_plan.choice<key = "00000000000000cc", shapes = "", variants = [#kiln_plan.variant<function = @kernel_0, tactics = "">, #kiln_plan.variant<function = @kernel_0__v1, tactics = "">]>} {
  return
}

// -----

// Tests that the variants of a real region (CHAIN; kiln-clone-tactic-variants
// and kiln-gpu-tensor-core run first in the RUN line) are kept when they
// exist and differ, each named with its tactics, the first the cost
// model's, with the region's GEMM shape.
// CHAIN-LABEL: func.func private @region(
// CHAIN-SAME:    kiln.tactics = "[[T0:[^"]+]]"
// CHAIN-SAME:    kiln_plan.choice = #kiln_plan.choice<key = {{"[0-9a-f]{16}"}}, shapes = "64x64x64", variants = [#kiln_plan.variant<function = @region, tactics = "[[T0]]">, #kiln_plan.variant<function = @region__v1, tactics = "[[T1:[^"]+]]">
// CHAIN-LABEL: func.func private @region__v1(
// CHAIN-SAME:    kiln.tactics = "[[T1]]"
func.func private @region(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  return
}
