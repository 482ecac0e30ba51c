// RUN: kiln-opt %s -split-input-file -kiln-promote-results-to-out-params -verify-diagnostics | FileCheck %s

// Tests that a fresh buffer a kernel returns becomes an out-param: the
// allocation is gone and its writer writes the new trailing argument.
// CHECK-LABEL: func.func private @kernel_0
// CHECK-SAME:    (%[[X:.+]]: memref<4x8xf32>, %[[OUT:.+]]: memref<4x8xf32>) {
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.copy ins(%[[X]] : memref<4x8xf32>) outs(%[[OUT]] : memref<4x8xf32>)
// CHECK-NEXT:    return{{$}}
func.func private @kernel_0(%x: memref<4x8xf32>) -> memref<4x8xf32> {
  %a = memref.alloc() : memref<4x8xf32>
  linalg.copy ins(%x : memref<4x8xf32>) outs(%a : memref<4x8xf32>)
  return %a : memref<4x8xf32>
}

// -----

// Tests that a buffer returned twice is copied for the repeat, so that each
// result gets an out-param of its own: the writer writes the first, and
// the second is a copy of it.
// CHECK-LABEL: func.func private @kernel_0
// CHECK-SAME:    (%[[X:.+]]: memref<4xf32>, %[[O0:.+]]: memref<4xf32>, %[[O1:.+]]: memref<4xf32>) {
// CHECK:         linalg.copy ins(%[[X]] : memref<4xf32>) outs(%[[O0]] : memref<4xf32>)
// CHECK:         memref.copy %[[O0]], %[[O1]]
// CHECK-NEXT:    return{{$}}
func.func private @kernel_0(%x: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  linalg.copy ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
  return %a, %a : memref<4xf32>, memref<4xf32>
}

// -----

// Tests that a result that is a reshaped view of a fresh buffer makes that
// buffer the inverse view of its out-param: the writer writes the
// out-param through an expand_shape, and neither the allocation nor the
// copy into the out-param remains.
// CHECK-LABEL: func.func private @kernel_0
// CHECK-SAME:    (%[[X:.+]]: memref<2x3x4xf32>, %[[OUT:.+]]: memref<6x4xf32>) {
// CHECK-NOT:     memref.alloc
// CHECK:         %[[V:.+]] = memref.expand_shape %[[OUT]] {{\[}}[0, 1], [2]] output_shape [2, 3, 4] : memref<6x4xf32> into memref<2x3x4xf32>
// CHECK:         linalg.copy ins(%[[X]] : memref<2x3x4xf32>) outs(%[[V]] : memref<2x3x4xf32>)
// CHECK-NOT:     memref.copy
// CHECK:         return{{$}}
func.func private @kernel_0(%x: memref<2x3x4xf32>) -> memref<6x4xf32> {
  %a = memref.alloc() : memref<2x3x4xf32>
  linalg.copy ins(%x : memref<2x3x4xf32>) outs(%a : memref<2x3x4xf32>)
  %c = memref.collapse_shape %a [[0, 1], [2]] : memref<2x3x4xf32> into memref<6x4xf32>
  return %c : memref<6x4xf32>
}

// -----

// Tests that each #kiln_plan.into_slice gets the out-param its result
// became: the arguments before promotion plus the result number.
// CHECK-LABEL: func.func private @kernel_0
// CHECK-SAME:    (%{{.+}}: memref<4xf32>, %{{.+}}: memref<4xf32>, %{{.+}}: memref<4xf32>, %{{.+}}: memref<4xf32>)
// CHECK-SAME:    kiln_plan.into_slices = [#kiln_plan.into_slice<result = 1, shape = [8], offsets = [4], out_param = 3>]
func.func private @kernel_0(%x: memref<4xf32>, %y: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) attributes {kiln_plan.into_slices = [#kiln_plan.into_slice<result = 1, shape = [8], offsets = [4]>]} {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  linalg.copy ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
  linalg.copy ins(%y : memref<4xf32>) outs(%b : memref<4xf32>)
  return %a, %b : memref<4xf32>, memref<4xf32>
}

// -----

// Tests that an entry of kiln_plan.into_slices that is no
// #kiln_plan.into_slice is an error.
// expected-error @+1 {{'func.func' op expected #kiln_plan.into_slice in kiln_plan.into_slices, got 3 : i64}}
func.func private @kernel_0(%x: memref<4xf32>) -> memref<4xf32> attributes {kiln_plan.into_slices = [3]} {
  %a = memref.alloc() : memref<4xf32>
  linalg.copy ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
  return %a : memref<4xf32>
}
