// tf32 (kilnc --precision tf32): f32 contractions and convs run on the
// tensor cores as mma.sync m16n8k8 with f32 accumulators; each fragment
// element is rounded to tf32 first (to nearest, ties away from zero, as
// cvt.rna: add 0x1000, clear the low 13 bits). Without the option, f32 ops
// stay on the generic path (strict fp32).
// RUN: kiln-opt %s -split-input-file -kiln-gpu-tensor-core="tf32=1 split-k=1" | FileCheck %s
// RUN: kiln-opt %s -split-input-file -kiln-gpu-tensor-core="tf32=1 split-k=1 mma-stages=2" | FileCheck %s --check-prefix=REGS
// RUN: kiln-opt %s -split-input-file -kiln-gpu-tensor-core="split-k=1" | FileCheck %s --check-prefix=F32

// Tests that for a matmul whose bias + ReLU bufferization ran in place on the
// f32 result (the consumer reads and writes %c) the kernel stores the
// consumer's value into %c and the generic disappears. A (contiguous along K)
// is staged [m][k] and read with ldmatrix of 32-bit elements, each 8x8 b16
// matrix an 8x4 f32 one; B (contiguous along N) is staged [k][n], read element
// by element (ldmatrix.trans moves 16-bit halves). Rows of 32 f32 move as
// 16-byte cp.async copies of 4 elements, into a ring in dynamic shared memory.
// CHECK-LABEL: func.func @matmul_bias_relu
// CHECK-NOT:     linalg.
// CHECK:         gpu.launch
// CHECK:           gpu.dynamic_shared_memory
// CHECK:           nvgpu.device_async_copy %arg0[{{.*}}], %{{.+}}[{{.*}}], 4
// CHECK:           scf.for
// CHECK:             nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} {{.*}} -> vector<4x1xf32>
// CHECK:             memref.load %{{.+}}[{{.*}}] : memref<4x32x{{[0-9]+}}xf32, #gpu.address_space<workgroup>>
// CHECK:             arith.addi %{{.+}}, %c4096_i32
// CHECK:             arith.andi %{{.+}}, %c-8192_i32
// CHECK:             nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 8], tf32Enabled} : (vector<4x1xf32>, vector<2x1xf32>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK:           memref.load %arg2[
// CHECK:           arith.addf
// CHECK:           arith.maximumf
// CHECK:           memref.store {{.*}}, %arg3[
// CHECK:           gpu.terminator
// CHECK-NEXT:    } {kiln.tactic = "mma.sync {{[0-9]+}}x{{[0-9]+}}x32 ring 4 + fused epilogue"}
// CHECK-NEXT:    return
// Register staging (mma-stages=2): f32 slices of a large tile can pass the
// 48 KB of static shared memory, so the two buffers are dynamic too.
// REGS-LABEL: func.func @matmul_bias_relu
// REGS:         gpu.launch
// REGS-NOT:       workgroup(
// REGS:           gpu.dynamic_shared_memory
// REGS:           vector.load %arg0[{{.*}}] {{.*}}: memref<128x64xf32>, vector<8xf32>
// REGS:           nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 8], tf32Enabled}
// REGS:         } {kiln.tactic = "mma.sync {{[0-9]+}}x{{[0-9]+}}x32 + fused epilogue"}
// F32-LABEL: func.func @matmul_bias_relu
// F32-NOT:     gpu.launch
// F32:         linalg.generic
// F32:         linalg.generic
func.func @matmul_bias_relu(%a: memref<128x64xf32>, %b: memref<64x96xf32>,
                            %bias: memref<96xf32>, %c: memref<128x96xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<128x96xf32>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                   affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
    ins(%a, %b : memref<128x64xf32>, memref<64x96xf32>) outs(%c : memref<128x96xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>,
                                   affine_map<(m, n) -> (n)>,
                                   affine_map<(m, n) -> (m, n)>],
                  iterator_types = ["parallel", "parallel"]}
    ins(%c, %bias : memref<128x96xf32>, memref<96xf32>) outs(%c : memref<128x96xf32>) {
  ^bb0(%v: f32, %bv: f32, %o: f32):
    %s = arith.addf %v, %bv : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Tests that an in-place consumer that reads the result through a permutation
// stays a separate op, since in the epilogue it would race (one thread's store
// overwriting another's input): the kernel stores the plain product.
// CHECK-LABEL: func.func @in_place_transposed
// CHECK:         gpu.launch
// CHECK:           nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 8], tf32Enabled}
// CHECK:         } {kiln.tactic = "mma.sync {{[0-9]+}}x{{[0-9]+}}x32 ring 4"}
// CHECK:         linalg.generic
func.func @in_place_transposed(%a: memref<64x64xf32>, %b: memref<64x64xf32>,
                               %c: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>)
                outs(%c : memref<64x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (n, m)>,
                                   affine_map<(m, n) -> (m, n)>],
                  iterator_types = ["parallel", "parallel"]}
    ins(%c : memref<64x64xf32>) outs(%c : memref<64x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Tests that f32 attention scores are stored scaled straight away when the
// product is dead after the scale: bufferization put the product in the
// kernel's output argument %p (which the softmax's exponentials overwrite whole
// later) and the scaled scores in a fresh buffer; the kernel stores the scaled
// scores straight away, the fill, the scale generic and the view of %p
// disappear.
// CHECK-LABEL: func.func @scores_in_output_argument
// CHECK:         gpu.launch
// CHECK:           nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 8], tf32Enabled}
// CHECK:           arith.mulf
// CHECK:           memref.store {{.*}}, %[[S:.+]][
// CHECK:         } {kiln.tactic = "mma.sync {{.*}} + fused epilogue"}
// CHECK-NOT:     linalg.fill
// CHECK:         linalg.generic {{.*}} ins(%[[S]] : memref<64x64xf32>) outs(%arg2 : memref<64x64xf32>)
func.func @scores_in_output_argument(%q: memref<64x64xf32>, %k: memref<64x64xf32>,
                                     %p: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.125 : f32
  linalg.fill ins(%zero : f32) outs(%p : memref<64x64xf32>)
  linalg.matmul ins(%q, %k : memref<64x64xf32>, memref<64x64xf32>)
                outs(%p : memref<64x64xf32>)
  %s = memref.alloc() : memref<64x64xf32>
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>,
                                   affine_map<(m, n) -> (m, n)>],
                  iterator_types = ["parallel", "parallel"]}
    ins(%p : memref<64x64xf32>) outs(%s : memref<64x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.mulf %v, %scale : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>,
                                   affine_map<(m, n) -> (m, n)>],
                  iterator_types = ["parallel", "parallel"]}
    ins(%s : memref<64x64xf32>) outs(%p : memref<64x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Tests that without the later overwrite the product is the kernel's output
// (the caller reads %p), so the kernel must store it; the scale stays a
// separate op.
// CHECK-LABEL: func.func @product_is_an_output
// CHECK:         gpu.launch
// CHECK:         } {kiln.tactic = "mma.sync {{[0-9]+}}x{{[0-9]+}}x32 ring 4"}
// CHECK:         linalg.generic
func.func @product_is_an_output(%q: memref<64x64xf32>, %k: memref<64x64xf32>,
                                %p: memref<64x64xf32>, %out: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.125 : f32
  linalg.fill ins(%zero : f32) outs(%p : memref<64x64xf32>)
  linalg.matmul ins(%q, %k : memref<64x64xf32>, memref<64x64xf32>)
                outs(%p : memref<64x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>,
                                   affine_map<(m, n) -> (m, n)>],
                  iterator_types = ["parallel", "parallel"]}
    ins(%p : memref<64x64xf32>) outs(%out : memref<64x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.mulf %v, %scale : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Tests that with wgmma=auto (sm_90a), a tf32 GEMM whose operands are both
// contiguous along K (tf32 wgmma has no transpose bit) runs on the Hopper
// kernel: 128-byte stage rows of 32 f32, 16-byte cp.async of 4 elements, 4
// wgmma m64nNk8 per K step. The MMA would truncate each f32 to tf32: once a
// step's copies have landed, every thread rounds its own chunks in shared
// memory (add 0x1000, clear the low 13 bits) before the fence and barrier that
// hand the stage to the MMAs. B contiguous along N stays on mma.sync.
// RUN: kiln-opt %s -split-input-file -kiln-gpu-tensor-core="tf32=1 wgmma=auto tma=false" | FileCheck %s --check-prefix=WGMMA
// WGMMA-LABEL: func.func @wgmma_k_major
// WGMMA:         gpu.launch
// WGMMA:           nvgpu.device_async_copy %arg0[{{.*}}], %{{.+}}[{{.*}}], 4 {bypassL1} : memref<2048x1024xf32> to memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>
// WGMMA:           nvgpu.device_async_copy %arg1[{{.*}}], %{{.+}}[{{.*}}], 4 {bypassL1} : memref<2048x1024xf32> to memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>
// WGMMA:           nvvm.cp.async.wait.group
// WGMMA:           vector.load %{{.+}}[{{.*}}] {{.*}}: memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// WGMMA-COUNT-4:   arith.andi %{{.+}}, %c-8192_i32
// WGMMA:           vector.store
// WGMMA:           nvvm.fence.proxy
// WGMMA-NEXT:      gpu.barrier
// WGMMA-COUNT-4:   nvvm.wgmma.mma_async {{.*}} k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
// WGMMA:         } {kiln.tactic = "wgmma {{.*}}"}
// WGMMA-LABEL: func.func @wgmma_n_major
// WGMMA:         } {kiln.tactic = "mma.sync {{.*}}"}
func.func @wgmma_k_major(%a: memref<2048x1024xf32>, %b: memref<2048x1024xf32>,
                         %c: memref<2048x2048xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<2048x2048xf32>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                   affine_map<(m, n, k) -> (n, k)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
    ins(%a, %b : memref<2048x1024xf32>, memref<2048x1024xf32>) outs(%c : memref<2048x2048xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
func.func @wgmma_n_major(%a: memref<2048x1024xf32>, %b: memref<1024x2048xf32>,
                         %c: memref<2048x2048xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<2048x2048xf32>)
  linalg.matmul ins(%a, %b : memref<2048x1024xf32>, memref<1024x2048xf32>)
                outs(%c : memref<2048x2048xf32>)
  return
}

// -----

// Tests that a weight kilnc rounded to tf32 at build time (argument attribute
// kiln.tf32_rounded) is not rounded again: the wgmma kernel rounds only A's
// chunks in shared memory (4 per thread: 128 rows of 8 chunks over 256
// threads), the mma.sync kernel only A's fragments.
// RUN: kiln-opt %s -split-input-file -kiln-gpu-tensor-core="tf32=1 wgmma=auto tma=false" | FileCheck %s --check-prefix=ROUNDED
// RUN: kiln-opt %s -split-input-file -kiln-gpu-tensor-core="tf32=1" | FileCheck %s --check-prefix=ROUNDED-MMA
// ROUNDED-LABEL: func.func @rounded_weight
// ROUNDED:         gpu.launch
// ROUNDED:           nvvm.cp.async.wait.group
// ROUNDED-COUNT-16:  arith.andi %{{.+}}, %c-8192_i32
// ROUNDED-NOT:       arith.andi %{{.+}}, %c-8192_i32
// ROUNDED:           nvvm.fence.proxy
// ROUNDED:         } {kiln.tactic = "wgmma 128x256{{.*}}"}
// ROUNDED-MMA-LABEL: func.func @rounded_weight
// ROUNDED-MMA-COUNT-8: arith.andi %{{.+}}, %c-8192_i32
// ROUNDED-MMA-NOT:     arith.andi %{{.+}}, %c-8192_i32
// ROUNDED-MMA:         nvgpu.mma.sync
func.func @rounded_weight(%a: memref<2048x1024xf32>,
                          %b: memref<2048x1024xf32> {kiln.tf32_rounded},
                          %c: memref<2048x2048xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<2048x2048xf32>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                   affine_map<(m, n, k) -> (n, k)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
    ins(%a, %b : memref<2048x1024xf32>, memref<2048x1024xf32>) outs(%c : memref<2048x2048xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Tests that a conv whose image and filter are both marked kiln.tf32_rounded
// (an activation its producing kernel rounded, a weight rounded at build time)
// rounds nothing: neither the wgmma kernel's landed chunks nor (with wgmma off)
// the mma.sync fragments.
// RUN: kiln-opt %s -split-input-file -kiln-gpu-tensor-core="tf32=1 wgmma=auto" | FileCheck %s --check-prefix=CONV-ROUNDED
// RUN: kiln-opt %s -split-input-file -kiln-gpu-tensor-core="tf32=1" | FileCheck %s --check-prefix=CONV-ROUNDED
// CONV-ROUNDED-LABEL: func.func @conv_rounded
// CONV-ROUNDED-NOT:     arith.andi %{{.+}}, %c-8192_i32
// CONV-ROUNDED:         } {kiln.tactic = "{{(wgmma|mma.sync)}} {{.*}}"}
func.func @conv_rounded(%x: memref<32x30x30x64xf32> {kiln.tf32_rounded},
                        %w: memref<128x3x3x64xf32> {kiln.tf32_rounded},
                        %y: memref<32x28x28x128xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<32x28x28x128xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<32x30x30x64xf32>, memref<128x3x3x64xf32>) outs(%y : memref<32x28x28x128xf32>)
  return
}
