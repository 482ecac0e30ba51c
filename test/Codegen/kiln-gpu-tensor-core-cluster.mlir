// Cluster split-K (sm_90+): the CTAs that share a tile of C form one
// thread-block cluster, add their partial sums through distributed shared
// memory and run the epilogue there: one launch, no f32 partials in global
// memory. Without the flag, the same split goes through global partials and
// a second launch; a split of more than 8 (the portable cluster size) does
// too.
// RUN: kiln-opt %s -split-input-file -kiln-gpu-tensor-core="split-k=3 cluster-split-k=1" | FileCheck %s
// RUN: kiln-opt %s -split-input-file -kiln-gpu-tensor-core="split-k=3" | FileCheck %s --check-prefix=GLOBAL
// RUN: kiln-opt %s -split-input-file -kiln-gpu-tensor-core="split-k=12 cluster-split-k=1" | FileCheck %s --check-prefix=BIG
// RUN: kiln-opt %s -split-input-file -kiln-gpu-tensor-core="cluster-split-k=1" | FileCheck %s --check-prefix=AUTO

// Tests that with rows of C contiguous along n each CTA leaves its fragments as
// pairs of f32 in its shared memory, then sums its third of the tile's groups
// of eight over the 3 CTAs (rank order) and accumulates onto C.
// CHECK-LABEL: func.func @matmul_accumulate
// CHECK-NOT:     memref.alloc
// CHECK:         gpu.launch clusters({{.*}}) in ({{%.+}} = %c1{{(_[0-9]+)?}}, {{%.+}} = %c1{{(_[0-9]+)?}}, {{%.+}} = %c3{{(_[0-9]+)?}}) blocks({{.*}}) in ({{%.+}} = %c{{[0-9_]+}}, {{%.+}} = %c{{[0-9_]+}}, {{%.+}} = %c3{{(_[0-9]+)?}}) threads
// CHECK-SAME:      dynamic_shared_memory_size
// CHECK:           nvgpu.mma.sync
// CHECK:           gpu.dynamic_shared_memory
// CHECK:           vector.store {{.*}} : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK:           nvvm.cluster.arrive {aligned}
// CHECK-NEXT:      nvvm.cluster.wait {aligned}
// CHECK:           scf.for
// CHECK:             nvvm.mapa {{.*}}, %c0_i32{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT:        llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr<7> -> vector<4xf32>
// CHECK:             nvvm.mapa {{.*}}, %c1_i32{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT:        llvm.load
// CHECK-NEXT:        arith.addf {{.*}} : vector<4xf32>
// CHECK:             nvvm.mapa {{.*}}, %c2_i32{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT:        llvm.load
// CHECK-NEXT:        arith.addf {{.*}} : vector<4xf32>
// CHECK:             vector.load %arg2[{{.*}} : memref<100x72xf32>, vector<8xf32>
// CHECK:             vector.store {{.*}}, %arg2[
// CHECK:           nvvm.cluster.arrive {aligned}
// CHECK-NEXT:      nvvm.cluster.wait {aligned}
// CHECK-NEXT:      gpu.terminator
// CHECK-NEXT:    } {kiln.tactic = "mma.sync {{[0-9]+}}x{{[0-9]+}}x32{{( ring [0-9])?}} split-k 3 cluster"}
// CHECK-NEXT:    return
// GLOBAL-LABEL: func.func @matmul_accumulate
// GLOBAL:         memref.alloc() : memref<3x1x100x72xf32>
// GLOBAL:         gpu.launch blocks
// GLOBAL-NOT:       nvvm.cluster
// GLOBAL:         } {kiln.tactic = "mma.sync {{.*}} split-k 3"}
// GLOBAL:         gpu.launch blocks
// BIG-LABEL: func.func @matmul_accumulate
// BIG:         memref.alloc() : memref<12x1x100x72xf32>
// BIG:         gpu.launch blocks
// BIG:         } {kiln.tactic = "mma.sync {{.*}} split-k 12"}
// BIG:         gpu.launch blocks
func.func @matmul_accumulate(%a: memref<100x256xf16>, %b: memref<256x72xf16>,
                             %c: memref<100x72xf32>) {
  linalg.matmul ins(%a, %b : memref<100x256xf16>, memref<256x72xf16>)
                outs(%c : memref<100x72xf32>)
  return
}

// -----

// Tests that in an NCHW conv, where C is contiguous along pixels (M), the
// partial sums are staged [n][m] and the groups run along m.
// CHECK-LABEL: func.func @conv_nchw
// CHECK:         gpu.launch clusters
// CHECK:           gpu.dynamic_shared_memory
// CHECK:           memref.store {{.*}} : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>
// CHECK:           nvvm.cluster.arrive {aligned}
// CHECK:           scf.for
// CHECK-COUNT-3:     nvvm.mapa
// CHECK:             arith.truncf
// CHECK:             memref.store {{.*}}, %arg2[
// CHECK:           nvvm.cluster.wait {aligned}
// CHECK:         } {kiln.tactic = "mma.sync {{.*}} split-k 3 cluster + fused epilogue"}
func.func @conv_nchw(%x: memref<1x16x14x14xf16>, %w: memref<32x16x3x3xf16>,
                     %y: memref<1x32x12x12xf16>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<1x32x12x12xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x32x12x12xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x16x14x14xf16>, memref<32x16x3x3xf16>)
    outs(%acc : memref<1x32x12x12xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%acc : memref<1x32x12x12xf32>) outs(%y : memref<1x32x12x12xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  }
  return
}

// -----

// Tests that for a BERT-base FFN down-projection at batch 1 (M = 128 tokens, K
// = 3072), too few tiles to fill 132 SMs, the cost model splits K within
// clusters; the bias epilogue stores 8 columns at a time.
// AUTO-LABEL: func.func @ffn_down
// AUTO:         gpu.launch clusters
// AUTO:           scf.for
// AUTO:             nvvm.mapa
// AUTO:             vector.store {{.*}}, %arg3[{{.*}}] {alignment = 16 : i64} : memref<128x768xf16>, vector<8xf16>
// AUTO:         } {kiln.tactic = "mma.sync {{[0-9]+}}x{{[0-9]+}}x32{{( ring [0-9])?}} split-k {{[2-8]}} cluster + fused epilogue"}
func.func @ffn_down(%a: memref<128x3072xf16>, %b: memref<3072x768xf16>,
                    %bias: memref<768xf16>, %y: memref<128x768xf16>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<128x768xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<128x768xf32>)
  linalg.matmul ins(%a, %b : memref<128x3072xf16>, memref<3072x768xf16>)
                outs(%acc : memref<128x768xf32>)
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>,
                                   affine_map<(m, n) -> (n)>,
                                   affine_map<(m, n) -> (m, n)>],
                  iterator_types = ["parallel", "parallel"]}
    ins(%acc, %bias : memref<128x768xf32>, memref<768xf16>) outs(%y : memref<128x768xf16>) {
  ^bb0(%v: f32, %bv: f16, %o: f16):
    %t = arith.truncf %v : f32 to f16
    %s = arith.addf %t, %bv : f16
    linalg.yield %s : f16
  }
  return
}
