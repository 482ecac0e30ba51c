// RUN: kiln-opt %s -split-input-file -kiln-lower-memref-copies | FileCheck %s

// Tests that memref.copy becomes linalg.copy of the same buffers, strided
// views included, in every function of the module.
// CHECK-LABEL: func.func @copies
// CHECK-SAME:    (%[[A:.+]]: memref<4x8xf32>, %[[B:.+]]: memref<8x8xf32>)
// CHECK:         %[[S:.+]] = memref.subview %[[B]][4, 0] [4, 8] [1, 1]
// CHECK-NOT:     memref.copy
// CHECK:         linalg.copy ins(%[[A]] : memref<4x8xf32>) outs(%[[S]] : memref<4x8xf32, strided<[8, 1], offset: 32>>)
// CHECK:         linalg.copy ins(%[[S]] : memref<4x8xf32, strided<[8, 1], offset: 32>>) outs(%[[A]] : memref<4x8xf32>)
// CHECK-LABEL: func.func @other
// CHECK-NOT:     memref.copy
// CHECK:         linalg.copy ins(%{{.+}} : memref<2xi32>) outs(%{{.+}} : memref<2xi32>)
func.func @copies(%a: memref<4x8xf32>, %b: memref<8x8xf32>) {
  %s = memref.subview %b[4, 0] [4, 8] [1, 1] : memref<8x8xf32> to memref<4x8xf32, strided<[8, 1], offset: 32>>
  memref.copy %a, %s : memref<4x8xf32> to memref<4x8xf32, strided<[8, 1], offset: 32>>
  memref.copy %s, %a : memref<4x8xf32, strided<[8, 1], offset: 32>> to memref<4x8xf32>
  return
}
func.func @other(%a: memref<2xi32>, %b: memref<2xi32>) {
  memref.copy %a, %b : memref<2xi32> to memref<2xi32>
  return
}
