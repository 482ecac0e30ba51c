// RUN: kiln-opt %s -split-input-file -kiln-clone-tactic-variants=candidates=3 | FileCheck %s
// RUN: kiln-opt %s -split-input-file -kiln-clone-tactic-variants | FileCheck %s --check-prefix=DEFAULT
// RUN: not kiln-opt %s -split-input-file -kiln-clone-tactic-variants=candidates=9 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not kiln-opt %s -split-input-file -kiln-clone-tactic-variants=candidates=1 2>&1 | FileCheck %s --check-prefix=BAD1

// Tests that a kernel function with a tensor-core anchor (a matmul on
// buffers) gets candidates - 1 clones NAME__vK marked kiln.tactic_variant =
// K, placed after it, and a #kiln_plan.choice listing itself and them with
// its timing-cache key (16 hex digits) and, until the tactics ran, no
// tactics or shapes. A function without an anchor (a copy), one the
// timing cache decided (kiln.tactic_force) and a declaration get none.
// Default: 4 candidates (DEFAULT).
// CHECK-LABEL: func.func private @kernel_0(
// CHECK-SAME:    kiln_plan.choice = #kiln_plan.choice<key = {{"[0-9a-f]{16}"}}, shapes = "", variants = [#kiln_plan.variant<function = @kernel_0, tactics = "">, #kiln_plan.variant<function = @kernel_0__v1, tactics = "">, #kiln_plan.variant<function = @kernel_0__v2, tactics = "">]>
// CHECK-NEXT:    linalg.matmul
// CHECK-LABEL: func.func private @kernel_0__v1(
// CHECK-SAME:    %{{.+}}: memref<64x64xf16>, %{{.+}}: memref<64x64xf16>, %{{.+}}: memref<64x64xf32>) attributes {kiln.tactic_variant = 1 : i64} {
// CHECK-NEXT:    linalg.matmul
// CHECK-LABEL: func.func private @kernel_0__v2(
// CHECK-SAME:    attributes {kiln.tactic_variant = 2 : i64} {
// CHECK-NEXT:    linalg.matmul
// CHECK-NOT:   @kernel_0__v3
// CHECK-LABEL: func.func private @kernel_1(
// CHECK-NOT:     kiln_plan.choice
// CHECK-LABEL: func.func private @kernel_2(
// CHECK-SAME:    attributes {kiln.tactic_force = "mma.sync 64x64x32 ring 4"} {
// CHECK-NOT:   @kernel_1__v1
// CHECK-NOT:   @kernel_2__v1
// CHECK-NOT:   @kernel_3__v1

// DEFAULT-LABEL: func.func private @kernel_0(
// DEFAULT-SAME:    variants = [#kiln_plan.variant<function = @kernel_0, tactics = "">, #kiln_plan.variant<function = @kernel_0__v1, tactics = "">, #kiln_plan.variant<function = @kernel_0__v2, tactics = "">, #kiln_plan.variant<function = @kernel_0__v3, tactics = "">]>
// DEFAULT:       func.func private @kernel_0__v3(
// DEFAULT-NOT:   @kernel_0__v4

// Tests that candidates outside 2 to 8 are an error (BAD, BAD1).
// BAD: error: kiln-clone-tactic-variants: candidates must be 2 to 8, got 9
// BAD1: error: kiln-clone-tactic-variants: candidates must be 2 to 8, got 1
func.func private @kernel_0(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  return
}
func.func private @kernel_1(%a: memref<64x64xf16>, %c: memref<64x64xf16>) {
  linalg.copy ins(%a : memref<64x64xf16>) outs(%c : memref<64x64xf16>)
  return
}
func.func private @kernel_2(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) attributes {kiln.tactic_force = "mma.sync 64x64x32 ring 4"} {
  linalg.matmul ins(%a, %b : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  return
}
func.func private @kernel_3(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>)

// -----

// Tests that a region's key depends on its IR only, not on its name: two
// functions with the same body get the same key, one with another shape a
// different one.
// CHECK-LABEL: func.func private @kernel_0(
// CHECK-SAME:    #kiln_plan.choice<key = "[[KEY:[0-9a-f]{16}]]"
// CHECK-LABEL: func.func private @kernel_7(
// CHECK-SAME:    #kiln_plan.choice<key = "[[KEY]]"
// CHECK-LABEL: func.func private @kernel_8(
// CHECK-NOT:     #kiln_plan.choice<key = "[[KEY]]"
// CHECK-SAME:    #kiln_plan.choice<key = {{"[0-9a-f]{16}"}}
func.func private @kernel_0(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  return
}
func.func private @kernel_7(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  return
}
func.func private @kernel_8(%a: memref<64x128xf16>, %b: memref<128x64xf16>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x128xf16>, memref<128x64xf16>) outs(%c : memref<64x64xf32>)
  return
}
