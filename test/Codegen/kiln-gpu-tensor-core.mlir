// The cost model's tile and split-K choice is a heuristic; the checks pin
// split-K (1: one launch per op; 3: partial sums and a reduction launch)
// and the register-staged pipeline (mma-stages=2; the cp.async ring that
// operands with 16-byte addresses get by default:
// kiln-gpu-tensor-core-mma-stages.mlir).
// RUN: kiln-opt %s -split-input-file -kiln-gpu-tensor-core="split-k=1 mma-stages=2" | FileCheck %s
// RUN: kiln-opt %s -split-input-file -kiln-gpu-tensor-core="min-sm=75" | FileCheck %s --check-prefix=SM75
// RUN: kiln-opt %s -split-input-file -kiln-gpu-tensor-core="split-k=3 mma-stages=2" | FileCheck %s --check-prefix=SPLIT

// Tests that for a 3x3 conv, stride 1, whose input is a zero-padded copy and
// whose f32 result only feeds a rounding + bias + ReLU generic, one launch of
// the mma.sync kernel reads the unpadded image with bounds checks, applies the
// generic's body in its epilogue, and the pad buffer, fill, copy, f32 buffer
// and generic all disappear. The image (contiguous along pixels, M) is staged
// [k][m] and read with ldmatrix.trans; the filter (contiguous along K) [n][k].
// CHECK-LABEL: func.func @conv_bias_relu
// CHECK-NOT:     linalg.
// CHECK-NOT:     memref.alloc
// CHECK:         gpu.launch
// CHECK-SAME:      workgroup(%[[SA:arg[0-9]+]] : memref<2x32x{{[0-9]+}}xf16, #gpu.address_space<workgroup>>, %[[SB:arg[0-9]+]] : memref<2x{{[0-9]+}}x40xf16, #gpu.address_space<workgroup>>)
// CHECK:           memref.load %arg0[
// CHECK:           scf.for
// CHECK:             memref.store {{.*}}, %[[SA]]
// CHECK:             gpu.barrier
// CHECK:             nvgpu.ldmatrix %[[SA]]{{.*}} {numTiles = 4 : i32, transpose = true} {{.*}} -> vector<4x2xf16>
// CHECK:             nvgpu.ldmatrix %[[SB]]{{.*}} {numTiles = 2 : i32, transpose = false} {{.*}} -> vector<2x2xf16>
// CHECK:             nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK:           scf.if
// CHECK:             memref.load %arg2[
// CHECK:             arith.truncf
// CHECK:             arith.addf
// CHECK:             arith.maximumf
// CHECK:             memref.store {{.*}}, %arg3[
// CHECK:           gpu.terminator
// CHECK-NEXT:    } {kiln.tactic = "mma.sync {{[0-9]+}}x{{[0-9]+}}x32 + fused epilogue"}
// CHECK-NEXT:    return
// SM75-LABEL: func.func @conv_bias_relu
// SM75-NOT:     gpu.launch
// SM75:         linalg.conv_2d_nchw_fchw
func.func @conv_bias_relu(%x: memref<1x16x14x14xf16>, %w: memref<32x16x3x3xf16>,
                          %bias: memref<32xf16>, %y: memref<1x32x14x14xf16>) {
  %zero16 = arith.constant 0.0 : f16
  %zero = arith.constant 0.0 : f32
  %pad = memref.alloc() : memref<1x16x16x16xf16>
  linalg.fill ins(%zero16 : f16) outs(%pad : memref<1x16x16x16xf16>)
  %inner = memref.subview %pad[0, 0, 1, 1] [1, 16, 14, 14] [1, 1, 1, 1]
      : memref<1x16x16x16xf16> to memref<1x16x14x14xf16, strided<[4096, 256, 16, 1], offset: 17>>
  linalg.copy ins(%x : memref<1x16x14x14xf16>)
              outs(%inner : memref<1x16x14x14xf16, strided<[4096, 256, 16, 1], offset: 17>>)
  %acc = memref.alloc() : memref<1x32x14x14xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x32x14x14xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%pad, %w : memref<1x16x16x16xf16>, memref<32x16x3x3xf16>)
    outs(%acc : memref<1x32x14x14xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> (c)>,
                                   affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%acc, %bias : memref<1x32x14x14xf32>, memref<32xf16>) outs(%y : memref<1x32x14x14xf16>) {
  ^bb0(%a: f32, %b: f16, %o: f16):
    %t = arith.truncf %a : f32 to f16
    %s = arith.addf %t, %b : f16
    %r = arith.maximumf %s, %zero16 : f16
    linalg.yield %r : f16
  }
  return
}

// -----

// Tests that a matmul whose output was not zero-filled accumulates onto it;
// with a forced split-K of 3, partial sums go to a scratch buffer and a second
// launch adds them in a fixed order.
// CHECK-LABEL: func.func @matmul_accumulate
// CHECK:         gpu.launch
// CHECK-SAME:      workgroup({{.*}} : memref<2x{{[0-9]+}}x40xf16, {{.*}}, {{.*}} : memref<2x32x{{[0-9]+}}xf16,
// CHECK:           nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK:           nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = true}
// CHECK:           nvgpu.mma.sync
// CHECK:           %[[OLD:.+]] = memref.load %arg2[
// CHECK:           %[[NEW:.+]] = arith.addf %[[OLD]], %{{.+}} : f32
// CHECK:           memref.store %[[NEW]], %arg2[
// CHECK:         } {kiln.tactic = "mma.sync {{[0-9]+}}x{{[0-9]+}}x32"}
// SPLIT-LABEL: func.func @matmul_accumulate
// SPLIT:         %[[P:.+]] = memref.alloc() : memref<3x1x100x72xf32>
// SPLIT:         gpu.launch
// SPLIT:           nvgpu.mma.sync
// SPLIT:           memref.store {{.*}}, %[[P]][
// SPLIT:         } {kiln.tactic = "mma.sync {{.*}} split-k 3"}
// SPLIT:         gpu.launch
// SPLIT-COUNT-3:   memref.load %[[P]][
// SPLIT:           memref.store {{.*}}, %arg2[
func.func @matmul_accumulate(%a: memref<100x256xf16>, %b: memref<256x72xf16>,
                             %c: memref<100x72xf32>) {
  linalg.matmul ins(%a, %b : memref<100x256xf16>, memref<256x72xf16>)
                outs(%c : memref<100x72xf32>)
  return
}

// -----

// Tests that for a transposed, batched contraction written as a generic (B[b,
// n, k]) batch, M, N and K come from the maps; B's contiguous index is k, so
// its slices move as 16-byte vectors (8 x f16) into [n][k] shared rows.
// CHECK-LABEL: func.func @batched_transposed
// CHECK:         %[[C12:.+]] = arith.constant 12 : index
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}}, {{.*}}, %{{[a-z0-9]+}} = %[[C12]])
// CHECK:           vector.load %arg1[{{.*}}] {alignment = 16 : i64} : memref<12x48x32xf16>, vector<8xf16>
// CHECK:           scf.for
// CHECK:             vector.store {{.*}} {alignment = 16 : i64} : memref<2x{{[0-9]+}}x40xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK:             nvgpu.mma.sync
// CHECK:         } {kiln.tactic
func.func @batched_transposed(%a: memref<12x64x32xf16>, %b: memref<12x48x32xf16>,
                              %c: memref<12x64x48xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<12x64x48xf32>)
  linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                                   affine_map<(b, m, n, k) -> (b, n, k)>,
                                   affine_map<(b, m, n, k) -> (b, m, n)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
    ins(%a, %b : memref<12x64x32xf16>, memref<12x48x32xf16>) outs(%c : memref<12x64x48xf32>) {
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

// Tests that bf16 operands take the same kernel with nvvm.mma.sync (MLIR 22's
// nvgpu lowering cannot type bf16): each fragment row of two bf16 is packed
// into one i32 register. f32 matmuls stay with the generic kernels.
// CHECK-LABEL: func.func @bf16_and_f32
// CHECK:         gpu.launch
// CHECK:           nvgpu.ldmatrix {{.*}} -> vector<4x2xbf16>
// CHECK:           vector.bitcast {{.*}} : vector<2xbf16> to vector<1xi32>
// CHECK:           nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK:         } {kiln.tactic
// CHECK-NOT:     gpu.launch
// CHECK:         linalg.matmul ins({{.*}} : memref<64x64xf32>, memref<64x64xf32>)
func.func @bf16_and_f32(%a: memref<64x64xbf16>, %b: memref<64x64xbf16>, %c: memref<64x64xf32>,
                        %d: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x64xbf16>, memref<64x64xbf16>) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%c, %c : memref<64x64xf32>, memref<64x64xf32>) outs(%d : memref<64x64xf32>)
  return
}

// -----

// Tests that a consumer that reads the f32 result through a permutation (a
// transpose after a batched matmul, [b, s, n] read as [s, b, n]) still runs in
// the epilogue: each element is stored at its permuted place in the consumer's
// output; and bufferization's later reuse of the dead f32 buffer (a
// whole-buffer write that does not read it) does not keep it alive.
// CHECK-LABEL: func.func @permuted_epilogue
// CHECK:         gpu.launch
// CHECK:           nvgpu.mma.sync
// CHECK:           arith.truncf
// CHECK:           memref.store {{.*}}, %arg2[{{.*}}] : memref<16x2x64xf16>
// CHECK:         } {kiln.tactic = "mma.sync {{.*}} + fused epilogue"}
// CHECK-NEXT:    linalg.generic
// CHECK-SAME:      outs(%{{.+}} : memref<2x16x64xf32>)
// CHECK-NOT:     linalg.generic
func.func @permuted_epilogue(%a: memref<2x16x32xf16>, %b: memref<2x32x64xf16>, %y: memref<16x2x64xf16>, %z: memref<2x16x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %acc = memref.alloc() : memref<2x16x64xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<2x16x64xf32>)
  linalg.batch_matmul ins(%a, %b : memref<2x16x32xf16>, memref<2x32x64xf16>) outs(%acc : memref<2x16x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(s, b, n) -> (b, s, n)>, affine_map<(s, b, n) -> (s, b, n)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
    ins(%acc : memref<2x16x64xf32>) outs(%y : memref<16x2x64xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  // The dead buffer, reused for another result.
  linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
    outs(%acc : memref<2x16x64xf32>) {
  ^bb0(%o: f32):
    linalg.yield %one : f32
  }
  memref.copy %acc, %z : memref<2x16x64xf32> to memref<2x16x64xf32>
  return
}
