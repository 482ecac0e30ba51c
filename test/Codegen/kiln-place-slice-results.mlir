// RUN: kiln-opt %s -split-input-file -kiln-place-slice-results -verify-diagnostics | FileCheck %s

// Tests that a result placed in a slice of a bigger buffer is written there
// in place: its out-param becomes the whole buffer, the kernel writes a
// subview at the slice's offsets.
// CHECK-LABEL: func.func private @kernel_0
// CHECK-SAME:    (%[[X:.+]]: memref<4x3xf32>, %[[OUT:.+]]: memref<8x3xf32>)
// CHECK-NEXT:    %[[S:.+]] = memref.subview %[[OUT]][4, 0] [4, 3] [1, 1] : memref<8x3xf32> to memref<4x3xf32, strided<[3, 1], offset: 12>>
// CHECK-NEXT:    linalg.copy ins(%[[X]] : memref<4x3xf32>) outs(%[[S]] : memref<4x3xf32, strided<[3, 1], offset: 12>>)
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     memref.copy
func.func private @kernel_0(%x: memref<4x3xf32>, %out: memref<4x3xf32>) attributes {kiln_plan.into_slices = [#kiln_plan.into_slice<result = 0, shape = [8, 3], offsets = [4, 0], out_param = 1>]} {
  linalg.copy ins(%x : memref<4x3xf32>) outs(%out : memref<4x3xf32>)
  return
}

// -----

// Tests that the views of the out-param are retyped as strided when they
// can be (a collapse of a contiguous slice), so that the result is still
// written in place through them.
// CHECK-LABEL: func.func private @kernel_0
// CHECK-SAME:    (%[[X:.+]]: memref<12xf32>, %[[OUT:.+]]: memref<8x3xf32>)
// CHECK-NEXT:    %[[S:.+]] = memref.subview %[[OUT]][4, 0] [4, 3] [1, 1] : memref<8x3xf32> to memref<4x3xf32, strided<[3, 1], offset: 12>>
// CHECK-NEXT:    %[[C:.+]] = memref.collapse_shape %[[S]] {{\[}}[0, 1]] : memref<4x3xf32, strided<[3, 1], offset: 12>> into memref<12xf32, strided<[1], offset: 12>>
// CHECK-NEXT:    linalg.copy ins(%[[X]] : memref<12xf32>) outs(%[[C]] : memref<12xf32, strided<[1], offset: 12>>)
// CHECK-NOT:     memref.copy
func.func private @kernel_0(%x: memref<12xf32>, %out: memref<4x3xf32>) attributes {kiln_plan.into_slices = [#kiln_plan.into_slice<result = 0, shape = [8, 3], offsets = [4, 0], out_param = 1>]} {
  %c = memref.collapse_shape %out [[0, 1]] : memref<4x3xf32> into memref<12xf32>
  linalg.copy ins(%x : memref<12xf32>) outs(%c : memref<12xf32>)
  return
}

// -----

// Tests that a result falls back to a copy where a view of its out-param
// cannot become strided: a slice along the inner dim is not contiguous,
// so the collapse of the out-param cannot follow it; the kernel computes
// the result into a buffer of its own and copies it into the slice before
// it returns.
// CHECK-LABEL: func.func private @kernel_0
// CHECK-SAME:    (%[[X:.+]]: memref<12xf32>, %[[OUT:.+]]: memref<4x6xf32>)
// CHECK-NEXT:    %[[OWN:.+]] = memref.alloc() : memref<4x3xf32>
// CHECK-NEXT:    %[[S:.+]] = memref.subview %[[OUT]][0, 3] [4, 3] [1, 1] : memref<4x6xf32> to memref<4x3xf32, strided<[6, 1], offset: 3>>
// CHECK-NEXT:    %[[C:.+]] = memref.collapse_shape %[[OWN]] {{\[}}[0, 1]] : memref<4x3xf32> into memref<12xf32>
// CHECK-NEXT:    linalg.copy ins(%[[X]] : memref<12xf32>) outs(%[[C]] : memref<12xf32>)
// CHECK-NEXT:    memref.copy %[[OWN]], %[[S]] : memref<4x3xf32> to memref<4x3xf32, strided<[6, 1], offset: 3>>
// CHECK-NEXT:    return
func.func private @kernel_0(%x: memref<12xf32>, %out: memref<4x3xf32>) attributes {kiln_plan.into_slices = [#kiln_plan.into_slice<result = 0, shape = [4, 6], offsets = [0, 3], out_param = 1>]} {
  %c = memref.collapse_shape %out [[0, 1]] : memref<4x3xf32> into memref<12xf32>
  linalg.copy ins(%x : memref<12xf32>) outs(%c : memref<12xf32>)
  return
}

// -----

// Tests that a slice without its out-param (before
// kiln-promote-results-to-out-params) is an error.
// expected-error @+1 {{'func.func' op expected #kiln_plan.into_slice with its out-param (run kiln-promote-results-to-out-params first)}}
func.func private @kernel_0(%x: memref<4x3xf32>, %out: memref<4x3xf32>) attributes {kiln_plan.into_slices = [#kiln_plan.into_slice<result = 0, shape = [8, 3], offsets = [4, 0]>]} {
  linalg.copy ins(%x : memref<4x3xf32>) outs(%out : memref<4x3xf32>)
  return
}
