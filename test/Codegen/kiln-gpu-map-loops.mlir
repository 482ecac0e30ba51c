// RUN: kiln-opt %s -split-input-file -kiln-gpu-map-loops -verify-diagnostics | FileCheck %s
// RUN: kiln-opt %s -split-input-file -kiln-gpu-map-loops="block-size=128 min-blocks=1" -verify-diagnostics | FileCheck %s --check-prefix=B128

// Tests that a 2-d parallel loop of 64x1000 iterations is linearized into
// 64000 threads: blocks of 256 (250 blocks < 264 wanted, so 128: 500
// blocks), a bounds guard, and row-major delinearization (the inner dim
// varies fastest across threads).
// CHECK-LABEL: func.func @elementwise
// CHECK-DAG:     %[[C500:.+]] = arith.constant 500 : index
// CHECK-DAG:     %[[C128:.+]] = arith.constant 128 : index
// CHECK:         scf.parallel (%[[BX:.+]]) = (%{{.+}}) to (%[[C500]])
// CHECK:           scf.parallel (%[[TX:.+]]) = (%{{.+}}) to (%[[C128]])
// CHECK:             %[[M:.+]] = arith.muli %[[BX]], %[[C128]]
// CHECK:             %[[L:.+]] = arith.addi %[[M]], %[[TX]]
// CHECK:             %[[IN:.+]] = arith.cmpi ult, %[[L]], %{{.+}}
// CHECK:             scf.if %[[IN]]
// CHECK:               %[[J:.+]] = arith.remui %[[L]], %{{.+}}
// CHECK:               %[[I:.+]] = arith.divui %[[L]], %{{.+}}
// CHECK:               memref.load %{{.+}}[%[[I]], %[[J]]]
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// B128-LABEL: func.func @elementwise
// B128:         arith.constant 500 : index
func.func @elementwise(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c1000 = arith.constant 1000 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c1000) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<64x1000xf32>
    %e = math.exp %v : f32
    memref.store %e, %y[%i, %j] : memref<64x1000xf32>
  }
  return
}

// -----

// Tests that a small loop gets one block of its size rounded up to a warp,
// and that lower bounds and steps are applied after delinearization.
// CHECK-LABEL: func.func @small_strided
// CHECK:         scf.parallel (%{{.+}}) = (%{{.+}}) to (%c1{{(_[0-9]+)?}})
// CHECK:           scf.parallel (%{{.+}}) = (%{{.+}}) to (%c32)
// CHECK:             arith.muli %{{.+}}, %{{.+}} : index
// CHECK:             arith.addi %{{.+}}, %{{.+}} : index
func.func @small_strided(%y: memref<16xf32>) {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c2) to (%c16) step (%c3) {
    memref.store %f, %y[%i] : memref<16xf32>
  }
  return
}

// -----

// Tests that a loop nest over reduction dims only (no parallel loop) runs
// in a one-thread launch, and that a parallel loop nested in a thread runs
// sequentially.
// CHECK-LABEL: func.func @full_reduction
// CHECK:         scf.parallel
// CHECK:           scf.parallel
// CHECK:             scf.for
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_x
// CHECK:         scf.parallel
// CHECK:           scf.parallel
// CHECK:             scf.if
// CHECK:               scf.parallel
// CHECK:               } {mapping = [#gpu.loop_dim_map<processor = sequential
func.func @full_reduction(%x: memref<100xf32>, %s: memref<f32>, %m: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c100 = arith.constant 100 : index
  scf.for %i = %c0 to %c100 step %c1 {
    %v = memref.load %x[%i] : memref<100xf32>
    %a = memref.load %s[] : memref<f32>
    %r = arith.addf %v, %a : f32
    memref.store %r, %s[] : memref<f32>
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.parallel (%j) = (%c0) to (%c8) step (%c1) {
      %z = arith.constant 0.0 : f32
      memref.store %z, %m[%i, %j] : memref<4x8xf32>
    }
  }
  return
}

// -----

// Tests that a parallel loop with dynamic bounds is an error.
func.func @dynamic(%y: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  // expected-error @below {{has dynamic or non-positive bounds: kiln-gpu-map-loops needs static shapes}}
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %f, %y[%i] : memref<?xf32>
  }
  return
}

// -----

// Tests that a short innermost dim filling whole 16-byte rows (8 f16
// channels, as the channels-last stem pads its input) runs inside each
// thread: 64 threads for 64 rows, the body copied per channel with the
// channel a constant, one vector store of the row.
// CHECK-LABEL: func.func @rows_of_eight
// CHECK:         scf.if
// CHECK-COUNT-8:   arith.truncf
// CHECK:           %[[V:.+]] = vector.from_elements {{.*}} : vector<8xf16>
// CHECK:           vector.store %[[V]], %arg1[%{{.+}}, %{{.+}}] {alignment = 16 : i64} : memref<64x8xf16>, vector<8xf16>
// CHECK-NOT:       memref.store
func.func @rows_of_eight(%x: memref<64x8xf32>, %y: memref<64x8xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c8) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<64x8xf32>
    %h = arith.truncf %v : f32 to f16
    memref.store %h, %y[%i, %j] : memref<64x8xf16>
  }
  return
}

// -----

// Tests that rows of a buffer the body also reads, or rows longer than the
// short dim, keep a thread per element.
// CHECK-LABEL: func.func @rows_kept_per_element
// CHECK-NOT:     vector.store
// CHECK:         memref.store
// CHECK-NOT:     vector.store
// CHECK:         memref.store
// CHECK-NOT:     vector.store
func.func @rows_kept_per_element(%x: memref<64x8xf16>, %y: memref<64x16xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c8) step (%c1, %c1) {
    %v = memref.load %x[%i, %c7] : memref<64x8xf16>
    memref.store %v, %x[%i, %j] : memref<64x8xf16>
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c8) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<64x8xf16>
    memref.store %v, %y[%i, %j] : memref<64x16xf16>
  }
  return
}
