// RUN: kiln-opt %s -split-input-file -kiln-gpu-sink-into-launches | FileCheck %s

// Tests that the side-effect-free ops a launch uses are recomputed inside
// it, with what they depend on down to the function's arguments: the
// subview of an argument (upstream's sinking stops at the argument the
// view is taken of), the index math of its offset, the constants, and a
// load of an argument that nothing stores to. The load of a buffer the
// function writes stays outside.
// CHECK-LABEL: func.func @kernel_0
// CHECK-SAME:    (%[[X:.+]]: memref<8x8xf32>, %[[Y:.+]]: memref<4x8xf32>, %[[N:.+]]: memref<index>, %[[W:.+]]: memref<f32>)
// CHECK:         %[[WV:.+]] = memref.load %[[W]][]
// CHECK:         gpu.launch blocks(%[[BX:[^,]+]], %{{[^,]+}}, %{{[^)]+}}) in
// CHECK-DAG:       %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:       %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG:       %[[NV:.+]] = memref.load %[[N]][] : memref<index>
// CHECK-DAG:       %[[OFF:.+]] = arith.addi %[[NV]], %[[C2]] : index
// CHECK-DAG:       %[[S:.+]] = memref.subview %[[X]][%[[OFF]], 0] [4, 8] [1, 1]
// CHECK:           %[[V:.+]] = memref.load %[[S]][%[[BX]], %[[C0]]]
// CHECK:           %[[M:.+]] = arith.mulf %[[V]], %[[WV]] : f32
// CHECK:           memref.store %[[M]], %[[Y]][%[[BX]], %[[C0]]]
// CHECK:           gpu.terminator
func.func @kernel_0(%x: memref<8x8xf32>, %y: memref<4x8xf32>, %n: memref<index>, %w: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 2.0 : f32
  memref.store %f, %w[] : memref<f32>
  %wv = memref.load %w[] : memref<f32>
  %nv = memref.load %n[] : memref<index>
  %off = arith.addi %nv, %c2 : index
  %s = memref.subview %x[%off, 0] [4, 8] [1, 1] : memref<8x8xf32> to memref<4x8xf32, strided<[8, 1], offset: ?>>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %s[%bx, %c0] : memref<4x8xf32, strided<[8, 1], offset: ?>>
    %m = arith.mulf %v, %wv : f32
    memref.store %m, %y[%bx, %c0] : memref<4x8xf32>
    gpu.terminator
  }
  return
}
