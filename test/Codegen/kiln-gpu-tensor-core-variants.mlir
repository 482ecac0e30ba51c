// Tactic variants (kilnc --tactics all, --timing-cache): a kernel function
// asks for the N-th candidate of its GEMMs (`kiln.tactic_variant`; 0 is the
// cost model's choice, then the other wgmma tiles and mma.sync tiles by
// estimated cost, alternately) or for tactics by name (`kiln.tactic_force`);
// the pass records what it used (`kiln.tactics`) and each GEMM's shape
// (`kiln.gemm_shapes`, for kiln-tune's report), marks a variant past the
// last candidate `kiln.tactic_void` and a forced tactic that is no
// candidate `kiln.tactic_stale` (the cost model's choice is used then).
// RUN: kiln-opt %s -split-input-file -kiln-gpu-tensor-core="wgmma=auto" | FileCheck %s

// Tests that a function without kiln.tactic_variant gets the cost model's
// choice, recorded with its GEMM's shape.
// CHECK-LABEL: func.func @choice
// CHECK-SAME:    kiln.gemm_shapes = "1024x1024x512"
// CHECK-SAME:    kiln.tactics = "wgmma 64x128x64 5 stages"
// CHECK:       } {kiln.tactic = "wgmma 64x128x64 5 stages, TMA A, B"}
func.func @choice(%a: memref<1024x512xf16>, %b: memref<512x1024xf16>,
                  %c: memref<1024x1024xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<1024x1024xf32>)
  linalg.matmul ins(%a, %b : memref<1024x512xf16>, memref<512x1024xf16>)
                outs(%c : memref<1024x1024xf32>)
  return
}

// -----

// Tests that variant 1 is the next candidate by estimated cost, an mma.sync
// tile after the cost model's wgmma one.
// CHECK-LABEL: func.func @second
// CHECK-SAME:    kiln.tactics = "mma.sync 128x64x32 ring 4"
// CHECK-NOT:     kiln.tactic_void
// CHECK:       } {kiln.tactic = "mma.sync 128x64x32 ring 4"}
func.func @second(%a: memref<1024x512xf16>, %b: memref<512x1024xf16>,
                  %c: memref<1024x1024xf32>)
    attributes {kiln.tactic_variant = 1 : i64} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<1024x1024xf32>)
  linalg.matmul ins(%a, %b : memref<1024x512xf16>, memref<512x1024xf16>)
                outs(%c : memref<1024x1024xf32>)
  return
}

// -----

// Tests that variant 2 is the next wgmma tile.
// CHECK-LABEL: func.func @third
// CHECK-SAME:    kiln.tactics = "wgmma 128x64x64 5 stages"
func.func @third(%a: memref<1024x512xf16>, %b: memref<512x1024xf16>,
                 %c: memref<1024x1024xf32>)
    attributes {kiln.tactic_variant = 2 : i64} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<1024x1024xf32>)
  linalg.matmul ins(%a, %b : memref<1024x512xf16>, memref<512x1024xf16>)
                outs(%c : memref<1024x1024xf32>)
  return
}

// -----

// Tests that a variant past the last candidate is still lowered (the cost
// model's choice), marked void for the compiler to drop.
// CHECK-LABEL: func.func @past
// CHECK-SAME:    kiln.tactic_void
// CHECK:       } {kiln.tactic = "wgmma 64x128x64 5 stages, TMA A, B"}
func.func @past(%a: memref<1024x512xf16>, %b: memref<512x1024xf16>,
                %c: memref<1024x1024xf32>)
    attributes {kiln.tactic_variant = 1000 : i64} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<1024x1024xf32>)
  linalg.matmul ins(%a, %b : memref<1024x512xf16>, memref<512x1024xf16>)
                outs(%c : memref<1024x1024xf32>)
  return
}

// -----

// Tests that without a GEMM every variant but 0 is void.
// CHECK-LABEL: func.func @nothing
// CHECK-SAME:    kiln.tactic_void
func.func @nothing(%a: memref<16xf32>) attributes {kiln.tactic_variant = 1 : i64} {
  return
}

// -----

// Tests that a tactic forced by name (kiln.tactic_force, from a timing
// cache) is used when it is a candidate, and not marked stale.
// CHECK-LABEL: func.func @forced
// CHECK-SAME:    kiln.tactics = "mma.sync 64x64x32 ring 4"
// CHECK-NOT:     kiln.tactic_stale
// CHECK:       } {kiln.tactic = "mma.sync 64x64x32 ring 4"}
func.func @forced(%a: memref<1024x512xf16>, %b: memref<512x1024xf16>,
                  %c: memref<1024x1024xf32>)
    attributes {kiln.tactic_force = "mma.sync 64x64x32 ring 4"} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<1024x1024xf32>)
  linalg.matmul ins(%a, %b : memref<1024x512xf16>, memref<512x1024xf16>)
                outs(%c : memref<1024x1024xf32>)
  return
}

// -----

// Tests that a forced tactic that is no candidate is marked
// kiln.tactic_stale and the cost model's choice is used.
// CHECK-LABEL: func.func @stale
// CHECK-SAME:    kiln.tactic_stale
// CHECK-SAME:    kiln.tactics = "wgmma 64x128x64 5 stages"
func.func @stale(%a: memref<1024x512xf16>, %b: memref<512x1024xf16>,
                 %c: memref<1024x1024xf32>)
    attributes {kiln.tactic_force = "mma.sync 999x1x32"} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<1024x1024xf32>)
  linalg.matmul ins(%a, %b : memref<1024x512xf16>, memref<512x1024xf16>)
                outs(%c : memref<1024x1024xf32>)
  return
}

// -----

// Tests that the forced tactics of two GEMMs apply in order.
// CHECK-LABEL: func.func @two
// CHECK-SAME:    kiln.gemm_shapes = "1024x1024x512; 1024x1024x512"
// CHECK-SAME:    kiln.tactics = "mma.sync 64x64x32 ring 4; wgmma 128x64x64 5 stages"
// CHECK:       } {kiln.tactic = "mma.sync 64x64x32 ring 4"}
// CHECK:       } {kiln.tactic = "wgmma 128x64x64 5 stages, TMA A, B"}
func.func @two(%a: memref<1024x512xf16>, %b: memref<512x1024xf16>,
               %c: memref<1024x1024xf32>, %d: memref<1024x1024xf32>)
    attributes {kiln.tactic_force = "mma.sync 64x64x32 ring 4;wgmma 128x64x64 5 stages"} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<1024x1024xf32>)
  linalg.matmul ins(%a, %b : memref<1024x512xf16>, memref<512x1024xf16>)
                outs(%c : memref<1024x1024xf32>)
  linalg.fill ins(%zero : f32) outs(%d : memref<1024x1024xf32>)
  linalg.matmul ins(%a, %b : memref<1024x512xf16>, memref<512x1024xf16>)
                outs(%d : memref<1024x1024xf32>)
  return
}
