// RUN: kiln-opt %s -split-input-file -kiln-gpu-assign-scratch -verify-diagnostics | FileCheck %s

// Tests that a kernel function's allocations become views into one new
// trailing argument marked kiln.scratch, at 256-byte aligned offsets (128
// bytes at 0, 6 bytes at 256, a scalar at 512: 513 bytes in all), and that
// deallocations are erased.
// CHECK-LABEL: func.func private @kernel_0
// CHECK-SAME:    (%[[X:.+]]: memref<4x8xf32>, %[[Y:.+]]: memref<3xf16>, %[[S:.+]]: memref<513xi8> {kiln.scratch})
// CHECK-NOT:     memref.alloc
// CHECK:         %[[O0:.+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[A:.+]] = memref.view %[[S]][%[[O0]]][] : memref<513xi8> to memref<4x8xf32>
// CHECK:         %[[O1:.+]] = arith.constant 256 : index
// CHECK-NEXT:    %[[B:.+]] = memref.view %[[S]][%[[O1]]][] : memref<513xi8> to memref<3xf16>
// CHECK:         %[[O2:.+]] = arith.constant 512 : index
// CHECK-NEXT:    %[[C:.+]] = memref.view %[[S]][%[[O2]]][] : memref<513xi8> to memref<i8>
// CHECK:         linalg.copy ins(%[[X]] : memref<4x8xf32>) outs(%[[A]] : memref<4x8xf32>)
// CHECK:         linalg.copy ins(%[[Y]] : memref<3xf16>) outs(%[[B]] : memref<3xf16>)
// CHECK:         memref.store %{{.+}}, %[[C]][] : memref<i8>
// CHECK-NOT:     memref.dealloc
// CHECK:         return
func.func private @kernel_0(%x: memref<4x8xf32>, %y: memref<3xf16>) {
  %a = memref.alloc() : memref<4x8xf32>
  %b = memref.alloc() : memref<3xf16>
  %c = memref.alloc() : memref<i8>
  linalg.copy ins(%x : memref<4x8xf32>) outs(%a : memref<4x8xf32>)
  linalg.copy ins(%y : memref<3xf16>) outs(%b : memref<3xf16>)
  %z = arith.constant 0 : i8
  memref.store %z, %c[] : memref<i8>
  memref.dealloc %a : memref<4x8xf32>
  memref.dealloc %b : memref<3xf16>
  memref.dealloc %c : memref<i8>
  return
}

// -----

// Tests that a function without allocations and a declaration are left
// alone: no scratch argument.
// CHECK-LABEL: func.func private @kernel_0
// CHECK-SAME:    (%{{.+}}: memref<4xf32>, %{{.+}}: memref<4xf32>) {
// CHECK-NOT:     kiln.scratch
func.func private @kernel_0(%x: memref<4xf32>, %y: memref<4xf32>) {
  linalg.copy ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
  return
}
func.func private @kernel_1(memref<4xf32>)

// -----

// Tests that a stack allocation is an error.
func.func private @kernel_0(%x: memref<4xf32>) {
  // expected-error @+1 {{'memref.alloca' op stack allocations are not supported in GPU kernels}}
  %a = memref.alloca() : memref<4xf32>
  linalg.copy ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
  return
}

// -----

// Tests that a dynamically shaped allocation is an error.
func.func private @kernel_0(%n: index) {
  // expected-error @+1 {{'memref.alloc' op needs a statically shaped, identity-layout buffer of scalars to become GPU scratch memory, got 'memref<?xf32>'}}
  %a = memref.alloc(%n) : memref<?xf32>
  return
}
