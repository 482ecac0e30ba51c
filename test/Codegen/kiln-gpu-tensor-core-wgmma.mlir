// The sm_90a wgmma tactic of kiln-gpu-tensor-core (option `wgmma`).
// RUN: kiln-opt %s -split-input-file -kiln-gpu-tensor-core="wgmma=auto tma=false" | FileCheck %s
// RUN: kiln-opt %s -split-input-file -kiln-gpu-tensor-core="wgmma=64x128x4 tma=false" | FileCheck %s --check-prefix=FORCED
// RUN: kiln-opt %s -split-input-file -kiln-gpu-tensor-core | FileCheck %s --check-prefix=OFF
// RUN: not kiln-opt %s -split-input-file -kiln-gpu-tensor-core="wgmma=96x128x3" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: bad wgmma tile '96x128x3': use off, auto or MxNxS

// Tests that a 2560x2048x1024 matmul (320 tiles of 128x128: 2.4 waves on 132
// SMs, against 160 tiles of 128x256 in 2 waves, each tile 0.8 as fast), A
// contiguous along K, B along N, with a rounding + bias epilogue: one launch of
// 2 warpgroups with dynamic shared memory for a 5-stage ring (3 steps of loads
// ahead). Each K step waits for its cp.async group, fences the generic proxy
// against the async one, issues 4 wgmma m64n128k16 (A K-major: row; B N-major:
// transposed, row), the cp.async of step + 3, and leaves its MMAs in flight
// (wait_group 1). The CTAs are persistent (132, one per SM, for 320 tiles):
// after a tile's MMAs, the first steps of its next tile are issued before the
// epilogue.
// CHECK-LABEL: func.func @big
// CHECK-NOT:     linalg.
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %c132{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}) threads({{.*}}) in ({{.*}} = %c256, {{.*}}) dynamic_shared_memory_size %c164928_i32
// CHECK:           gpu.dynamic_shared_memory
// CHECK:           memref.extract_aligned_pointer_as_index
// CHECK:           nvgpu.device_async_copy %arg0[{{.*}}], %view[{{.*}}], 8 {bypassL1} : memref<2560x1024xf16> to memref<81920xf16, #gpu.address_space<workgroup>>
// CHECK:           nvgpu.device_async_copy %arg1[{{.*}}], %view[{{.*}}], 8 {bypassL1} : memref<1024x2048xf16> to memref<81920xf16, #gpu.address_space<workgroup>>
// CHECK:           nvvm.cp.async.commit.group
// CHECK:           scf.for %[[TILE:[^ ]*]] = %{{.*}} to %c320_i32{{.*}} step %c132_i32
// CHECK:           scf.for
// CHECK:             nvvm.cp.async.wait.group 2
// CHECK-NEXT:        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:        gpu.barrier
// CHECK:             nvvm.wgmma.fence.aligned
// CHECK-COUNT-4:     nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK:             nvvm.wgmma.commit.group.sync.aligned
// CHECK:             scf.if
// CHECK:               nvgpu.device_async_copy
// CHECK:             nvvm.cp.async.commit.group
// CHECK-NEXT:        nvvm.wgmma.wait.group.sync.aligned 1
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT:      gpu.barrier
// CHECK:           %[[NEXT:.*]] = arith.addi %[[TILE]], %c132_i32
// CHECK:           arith.cmpi ult, %[[NEXT]], %c320_i32
// CHECK:           nvgpu.device_async_copy
// CHECK:           nvvm.cp.async.commit.group
// The epilogue is staged in the 2 stages the next tile's loads leave free:
// 64 of the 128 columns at a time, rows padded to 72 floats, written as the
// fragments' pairs; then each thread finishes 8 columns of one row with
// 16-byte loads of the bias and 16-byte stores of the output.
// CHECK:           memref.view {{.*}} to memref<9216xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-16:  vector.store {{.*}} {alignment = 8 : i64} : memref<9216xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK-NEXT:      gpu.barrier
// CHECK:           vector.load {{.*}} {alignment = 16 : i64} : memref<9216xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK:           vector.load %arg2[{{.*}}] {alignment = 16 : i64} : memref<2048xf16>, vector<8xf16>
// CHECK:           arith.truncf
// CHECK:           vector.store {{.*}}, %arg3[{{.*}}] {alignment = 16 : i64} : memref<2560x2048xf16>, vector<8xf16>
// CHECK:           gpu.barrier
// CHECK-COUNT-16:  vector.store {{.*}} : memref<9216xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK:           vector.store {{.*}}, %arg3[{{.*}}] {alignment = 16 : i64} : memref<2560x2048xf16>, vector<8xf16>
// CHECK-NOT:       memref.store
// CHECK:         {{^ *\}$}}
// CHECK-NEXT:    nvvm.cp.async.wait.group 0
// CHECK-NEXT:    gpu.terminator
// CHECK-NEXT:    } {kiln.tactic = "wgmma 128x128x64 5 stages + fused epilogue"}
// OFF-LABEL: func.func @big
// OFF:         kiln.tactic = "mma.sync
func.func @big(%a: memref<2560x1024xf16>, %b: memref<1024x2048xf16>, %bias: memref<2048xf16>, %y: memref<2560x2048xf16>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<2560x2048xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<2560x2048xf32>)
  linalg.matmul ins(%a, %b : memref<2560x1024xf16>, memref<1024x2048xf16>) outs(%acc : memref<2560x2048xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
    ins(%acc, %bias : memref<2560x2048xf32>, memref<2048xf16>) outs(%y : memref<2560x2048xf16>) {
  ^bb0(%x: f32, %c: f16, %o: f16):
    %t = arith.truncf %x : f32 to f16
    %s = arith.addf %t, %c : f16
    linalg.yield %s : f16
  }
  return
}

// -----

// Tests that when 6 tiles cannot fill the GPU the cost model keeps mma.sync
// with split-K; a forced tile still gets wgmma.
// CHECK-LABEL: func.func @small
// CHECK:         kiln.tactic = "mma.sync {{.*}} split-k
// FORCED-LABEL: func.func @small
// FORCED:         kiln.tactic = "wgmma 64x128x64 4 stages"
func.func @small(%a: memref<128x768xf16>, %b: memref<768x768xf16>, %c: memref<128x768xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<128x768xf32>)
  linalg.matmul ins(%a, %b : memref<128x768xf16>, memref<768x768xf16>) outs(%c : memref<128x768xf32>)
  return
}

// -----

// Tests that in a bf16 batched GEMM, B contiguous along K (K-major: col), M =
// 200 and K = 96 not multiples of the tile, rows past M and K past 96 are
// zero-filled (source size 0), and rows and columns past C are not stored (the
// staged epilogue's 8-column vectors are wholly in or out, as 72 % 8 == 0).
// FORCED-LABEL: func.func @bf16_transposed
// FORCED:         gpu.launch blocks({{.*}}) in ({{.*}} = %c12, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}})
// FORCED:           arith.cmpi ult, {{.*}}, %c200_i32
// FORCED:           %[[SIZE:.*]] = arith.select {{.*}}, %c8{{.*}}, %c0
// FORCED:           nvgpu.device_async_copy %arg0[{{.*}}], %view[{{.*}}], 8, %[[SIZE]] {bypassL1} : memref<3x200x96xbf16>
// FORCED:           nvvm.wgmma.mma_async {{.*}} A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// FORCED:           arith.cmpi ult, {{.*}}, %c72_i32
// FORCED:           scf.if
// FORCED:             vector.store {{.*}}, %arg2[{{.*}}] {alignment = 16 : i64} : memref<3x200x72xf32>, vector<8xf32>
// FORCED:         kiln.tactic = "wgmma 64x128x64 4 stages"
func.func @bf16_transposed(%a: memref<3x200x96xbf16>, %b: memref<3x72x96xbf16>, %c: memref<3x200x72xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<3x200x72xf32>)
  linalg.generic {indexing_maps = [affine_map<(p, i, j, k) -> (p, i, k)>, affine_map<(p, i, j, k) -> (p, j, k)>, affine_map<(p, i, j, k) -> (p, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
    ins(%a, %b : memref<3x200x96xbf16>, memref<3x72x96xbf16>) outs(%c : memref<3x200x72xf32>) {
  ^bb0(%x: bf16, %w: bf16, %o: f32):
    %xe = arith.extf %x : bf16 to f32
    %we = arith.extf %w : bf16 to f32
    %m = arith.mulf %xe, %we : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Tests that with K = 12, not a multiple of 8, there are no 16-byte loads, so
// no wgmma even when forced (mma.sync with scalar loads).
// FORCED-LABEL: func.func @no_vectors
// FORCED-NOT:     nvvm.wgmma
// FORCED:         kiln.tactic = "mma.sync
func.func @no_vectors(%a: memref<4096x12xf16>, %b: memref<12x4096xf16>, %c: memref<4096x4096xf32>) {
  linalg.matmul ins(%a, %b : memref<4096x12xf16>, memref<12x4096xf16>) outs(%c : memref<4096x4096xf32>)
  return
}

// -----

// Tests that a short-K GEMM (256: 4 steps) whose epilogue adds a residual as
// large as C (ResNet-50 b64's layer3 expansion conv as a matmul): the 3-stage
// 128x128 ring, two CTAs per SM overlapping each other's epilogues, rather than
// the 128x256 tile the area rule ties with it. Without the residual (only a
// bias), the 128x256 tile.
// CHECK-LABEL: func.func @residual_epilogue
// CHECK:         kiln.tactic = "wgmma 128x128x64 3 stages + fused epilogue"
// CHECK-LABEL: func.func @bias_epilogue
// CHECK:         kiln.tactic = "wgmma 128x256x64 4 stages + fused epilogue"
func.func @residual_epilogue(%a: memref<12544x256xf16>, %b: memref<256x1024xf16>, %r: memref<12544x1024xf16>, %y: memref<12544x1024xf16>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<12544x1024xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<12544x1024xf32>)
  linalg.matmul ins(%a, %b : memref<12544x256xf16>, memref<256x1024xf16>) outs(%acc : memref<12544x1024xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
    ins(%acc, %r : memref<12544x1024xf32>, memref<12544x1024xf16>) outs(%y : memref<12544x1024xf16>) {
  ^bb0(%x: f32, %c: f16, %o: f16):
    %t = arith.truncf %x : f32 to f16
    %s = arith.addf %t, %c : f16
    linalg.yield %s : f16
  }
  return
}
func.func @bias_epilogue(%a: memref<12544x256xf16>, %b: memref<256x1024xf16>, %bias: memref<1024xf16>, %y: memref<12544x1024xf16>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<12544x1024xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<12544x1024xf32>)
  linalg.matmul ins(%a, %b : memref<12544x256xf16>, memref<256x1024xf16>) outs(%acc : memref<12544x1024xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
    ins(%acc, %bias : memref<12544x1024xf32>, memref<1024xf16>) outs(%y : memref<12544x1024xf16>) {
  ^bb0(%x: f32, %c: f16, %o: f16):
    %t = arith.truncf %x : f32 to f16
    %s = arith.addf %t, %c : f16
    linalg.yield %s : f16
  }
  return
}
