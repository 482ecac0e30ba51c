// The mma.sync kernel's pipeline: operands whose slices move 16 bytes at a
// time go through a ring of shared stages filled by cp.async, stages - 1
// K steps ahead of the MMAs (default 4); operands without 16-byte
// addresses keep registers and two shared buffers, as does mma-stages=2.
// RUN: kiln-opt %s -split-input-file -kiln-gpu-tensor-core="split-k=1" | FileCheck %s
// RUN: kiln-opt %s -split-input-file -kiln-gpu-tensor-core="split-k=1 mma-stages=3" | FileCheck %s --check-prefix=S3
// RUN: kiln-opt %s -split-input-file -kiln-gpu-tensor-core="split-k=1 mma-stages=2" | FileCheck %s --check-prefix=REGS
// RUN: not kiln-opt %s -split-input-file -kiln-gpu-tensor-core="mma-stages=9" 2>&1 | FileCheck %s --check-prefix=BAD

// Tests that operands both contiguous along K move by 16-byte cp.async into a
// 4-stage ring in dynamic shared memory (A's stages, then B's); 3 steps issued
// before the loop, each step waits for its group (2 may stay pending), refills
// the stage the previous step read and runs its MMAs; nothing is pending at the
// end.
// CHECK-LABEL: func.func @ring
// CHECK:         gpu.launch blocks
// CHECK-SAME:      dynamic_shared_memory_size
// CHECK-NOT:       workgroup(
// CHECK:           %[[RAW:.+]] = gpu.dynamic_shared_memory
// CHECK:           memref.view %[[RAW]]{{.*}} to memref<4x{{[0-9]+}}x40xf16, #gpu.address_space<workgroup>>
// CHECK:           memref.view %[[RAW]]{{.*}} to memref<4x{{[0-9]+}}x40xf16, #gpu.address_space<workgroup>>
// CHECK:           nvgpu.device_async_copy {{.*}} {bypassL1}
// CHECK:           nvvm.cp.async.commit.group
// CHECK:           nvvm.cp.async.commit.group
// CHECK:           nvvm.cp.async.commit.group
// CHECK:           scf.for
// CHECK:             nvvm.cp.async.wait.group 2
// CHECK-NEXT:        gpu.barrier
// CHECK:             scf.if
// CHECK:               nvgpu.device_async_copy
// CHECK:             nvvm.cp.async.commit.group
// CHECK:             nvgpu.ldmatrix
// CHECK:             nvgpu.mma.sync
// CHECK:           nvvm.cp.async.wait.group 0
// CHECK:         } {kiln.tactic = "mma.sync {{[0-9]+}}x{{[0-9]+}}x32 ring 4"}
// S3-LABEL: func.func @ring
// S3:           memref<3x{{[0-9]+}}x40xf16, #gpu.address_space<workgroup>>
// S3:           scf.for
// S3:             nvvm.cp.async.wait.group 1
// S3:         } {kiln.tactic = "mma.sync {{[0-9]+}}x{{[0-9]+}}x32 ring 3"}
// REGS-LABEL: func.func @ring
// REGS:         gpu.launch blocks
// REGS-SAME:      workgroup(
// REGS-NOT:       nvgpu.device_async_copy
// REGS:         } {kiln.tactic = "mma.sync {{[0-9]+}}x{{[0-9]+}}x32"}
// BAD: mma-stages must be 2 (register double buffering) to 8, got 9
func.func @ring(%a: memref<128x256xf16>, %b: memref<72x256xf16>,
                %c: memref<128x72xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<128x72xf32>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                   affine_map<(m, n, k) -> (n, k)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
    ins(%a, %b : memref<128x256xf16>, memref<72x256xf16>) outs(%c : memref<128x72xf32>) {
  ^bb0(%x: f16, %y: f16, %o: f32):
    %xe = arith.extf %x : f16 to f32
    %ye = arith.extf %y : f16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Tests that with K = 33, no multiple of 8, there are no 16-byte addresses, so
// registers and two shared buffers even with the default ring.
// CHECK-LABEL: func.func @scalar_operands
// CHECK:         gpu.launch blocks
// CHECK-SAME:      workgroup(
// CHECK-NOT:       nvgpu.device_async_copy
// CHECK:         } {kiln.tactic = "mma.sync {{[0-9]+}}x{{[0-9]+}}x32"}
func.func @scalar_operands(%a: memref<64x33xf16>, %b: memref<33x64xf16>,
                           %c: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%a, %b : memref<64x33xf16>, memref<33x64xf16>)
                outs(%c : memref<64x64xf32>)
  return
}
