// TMA loads in the sm_90a wgmma tactic of kiln-gpu-tensor-core (option
// `tma`, on by default): operands that are plain strided tensors in kernel
// arguments get a `memref<128xi8>` tensor-map argument (`kiln_plan.tensor_map`:
// what the runtime encodes with cuTensorMapEncodeTiled) and are copied a
// box at a time by thread 0 (cp.async.bulk.tensor into the 128-byte
// swizzled ring), each stage's arrival tracked by an mbarrier armed with
// the bytes to expect; the others keep 16-byte cp.async.
// RUN: kiln-opt %s -split-input-file -kiln-gpu-tensor-core="wgmma=auto" | FileCheck %s
// RUN: kiln-opt %s -split-input-file -kiln-gpu-tensor-core="wgmma=auto tma=false" | FileCheck %s --check-prefix=OFF
// OFF-NOT: kiln_plan.tensor_map
// OFF-NOT: cp.async.bulk.tensor
// OFF-NOT: mbarrier

// Tests that A (2560x1024, K contiguous) is one box of 64 K by 128 rows per
// stage; B (1024x2048, N contiguous) two boxes of 64 N by 64 K rows (8 KB
// blocks). Thread 0 initializes an mbarrier per stage (5) for one arrival; the
// prologue arms stage p with the 32 KB of its boxes and issues them; each K
// step waits for its stage's phase (no cp.async group left to wait for).
// CHECK-LABEL: func.func @matmul
// CHECK-SAME:    %arg3: memref<128xi8> {kiln_plan.tensor_map = #kiln_plan.tensor_map<source = 0, offset = 0, element_type = f16, dims = [1024, 2560], strides = [2048], box = [64, 128], swizzle = 3>}
// CHECK-SAME:    %arg4: memref<128xi8> {kiln_plan.tensor_map = #kiln_plan.tensor_map<source = 1, offset = 0, element_type = f16, dims = [2048, 1024], strides = [4096], box = [64, 64], swizzle = 3>}
// CHECK:         gpu.launch {{.*}} dynamic_shared_memory_size %c164928_i32
// CHECK-NOT:       nvgpu.device_async_copy
// CHECK:           memref.extract_aligned_pointer_as_index %arg3
// CHECK:           llvm.inttoptr {{.*}} to !llvm.ptr
// CHECK:           memref.extract_aligned_pointer_as_index %arg4
// CHECK:           scf.if
// CHECK-COUNT-5:     nvvm.mbarrier.init {{.*}}, %c1_i32{{.*}} : !llvm.ptr<3>, i32
// CHECK-NEXT:        nvvm.fence.mbarrier.init
// CHECK:           gpu.barrier
// CHECK:           nvvm.mbarrier.arrive.expect_tx {{.*}}, %c32768_i32 : !llvm.ptr<3>, i32
// CHECK-COUNT-3:   nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} box[{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK:           scf.for
// CHECK:           scf.for
// CHECK-NOT:         nvvm.cp.async.wait.group
// CHECK:             nvvm.mbarrier.try_wait.parity
// CHECK-NEXT:        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:        gpu.barrier
// CHECK-COUNT-4:     nvvm.wgmma.mma_async
// CHECK:             scf.if
// CHECK:               scf.if
// CHECK:                 nvvm.mbarrier.arrive.expect_tx
// CHECK-COUNT-3:         nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT:       nvgpu.device_async_copy
// CHECK:         } {kiln.tactic = "wgmma 128x128x64 5 stages, TMA A, B"}
func.func @matmul(%a: memref<2560x1024xf16>, %b: memref<1024x2048xf16>,
                  %c: memref<2560x2048xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<2560x2048xf32>)
  linalg.matmul ins(%a, %b : memref<2560x1024xf16>, memref<1024x2048xf16>)
                outs(%c : memref<2560x2048xf32>)
  return
}


// -----

// Tests that a 3x3 conv's image, an im2col gather, takes cp.async (and its
// wait) for A, TMA for the filter rows [128, 3*3*128] (16 KB per stage).
// CHECK-LABEL: func.func @conv3x3
// CHECK-SAME:    %arg3: memref<128xi8> {kiln_plan.tensor_map = #kiln_plan.tensor_map<source = 1, offset = 0, element_type = f16, dims = [1152, 128], strides = [2304], box = [64, 128], swizzle = 3>})
// CHECK:           nvgpu.device_async_copy %arg0
// CHECK:           nvvm.mbarrier.arrive.expect_tx {{.*}}, %c16384_i32{{.*}} : !llvm.ptr<3>, i32
// CHECK:           nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK:             nvvm.cp.async.wait.group 2
// CHECK:             nvvm.mbarrier.try_wait.parity
// CHECK:         } {kiln.tactic = "wgmma 128x128x64 5 stages, TMA B"}
func.func @conv3x3(%x: memref<64x28x28x128xf16>, %w: memref<128x3x3x128xf16>,
                   %y: memref<64x26x26x128xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<64x26x26x128xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<64x28x28x128xf16>, memref<128x3x3x128xf16>) outs(%y : memref<64x26x26x128xf32>)
  return
}


// -----

// Tests that a pointwise conv's image is a [64*28*28, 256] matrix: TMA for
// both.
// CHECK-LABEL: func.func @pointwise
// CHECK-SAME:    %arg3: memref<128xi8> {kiln_plan.tensor_map = #kiln_plan.tensor_map<source = 0, offset = 0, element_type = f16, dims = [256, 50176], strides = [512], box = [64, 128], swizzle = 3>}
// CHECK-SAME:    %arg4: memref<128xi8> {kiln_plan.tensor_map = #kiln_plan.tensor_map<source = 1, offset = 0, element_type = f16, dims = [256, 128], strides = [512], box = [64, 128], swizzle = 3>})
// CHECK-NOT:       nvgpu.device_async_copy
// CHECK:         } {kiln.tactic = "wgmma 128x128x64 4 stages, TMA A, B"}
func.func @pointwise(%x: memref<64x28x28x256xf16>, %w: memref<128x1x1x256xf16>,
                     %y: memref<64x28x28x128xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<64x28x28x128xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<64x28x28x256xf16>, memref<128x1x1x256xf16>) outs(%y : memref<64x28x28x128xf32>)
  return
}


// -----

// Tests that batched operands get a third dim (the batch, box 1) and
// coordinate.
// CHECK-LABEL: func.func @batched
// CHECK-SAME:    {kiln_plan.tensor_map = #kiln_plan.tensor_map<source = 0, offset = 0, element_type = f16, dims = [64, 512, 48], strides = [128, 65536], box = [64, 128, 1], swizzle = 3>}
// CHECK-SAME:    {kiln_plan.tensor_map = #kiln_plan.tensor_map<source = 1, offset = 0, element_type = f16, dims = [64, 512, 48], strides = [128, 65536], box = [64, 128, 1], swizzle = 3>})
// CHECK:           nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} box[{{[^,]+}}, {{[^,]+}}, {{[^,]+}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK:         } {kiln.tactic = "wgmma 128x128x64 3 stages, TMA A, B"}
func.func @batched(%a: memref<48x512x64xf16>, %b: memref<48x512x64xf16>,
                   %c: memref<48x512x512xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<48x512x512xf32>)
  linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                                   affine_map<(b, m, n, k) -> (b, n, k)>,
                                   affine_map<(b, m, n, k) -> (b, m, n)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
    ins(%a, %b : memref<48x512x64xf16>, memref<48x512x64xf16>) outs(%c : memref<48x512x512xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xe = arith.extf %x : f16 to f32
    %ye = arith.extf %y : f16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}


// -----

// Tests that a column slice of an argument is a tensor at a byte offset (1024
// f16 in, rows 4096 bytes apart); an intermediate buffer (no kernel argument)
// keeps cp.async.
// CHECK-LABEL: func.func @slice
// CHECK-SAME:    %arg3: memref<128xi8> {kiln_plan.tensor_map = #kiln_plan.tensor_map<source = 0, offset = 2048, element_type = f16, dims = [1024, 2560], strides = [4096], box = [64, 128], swizzle = 3>})
// CHECK:           nvgpu.device_async_copy %alloc
// CHECK:         } {kiln.tactic = "wgmma 128x128x64 5 stages, TMA A"}
func.func @slice(%a: memref<2560x2048xf16>, %b: memref<1024x2048xf16>,
                 %c: memref<2560x2048xf32>) {
  %zero = arith.constant 0.0 : f32
  %s = memref.subview %a[0, 1024] [2560, 1024] [1, 1] : memref<2560x2048xf16> to memref<2560x1024xf16, strided<[2048, 1], offset: 1024>>
  %t = memref.alloc() : memref<1024x2048xf16>
  memref.copy %b, %t : memref<1024x2048xf16> to memref<1024x2048xf16>
  linalg.fill ins(%zero : f32) outs(%c : memref<2560x2048xf32>)
  linalg.matmul ins(%s, %t : memref<2560x1024xf16, strided<[2048, 1], offset: 1024>>, memref<1024x2048xf16>)
                outs(%c : memref<2560x2048xf32>)
  return
}

// -----

// RUN: kiln-opt %s -split-input-file -kiln-gpu-tensor-core="wgmma=auto tf32=1" | FileCheck %s --check-prefix=TF32
// Tests that with tf32 the chunks TMA brought in are rounded in shared memory
// once the stage's phase completed, before the fence and barrier that hand it
// to the MMAs; boxes of 32 f32 (128 bytes) of K.
// TF32-LABEL: func.func @tf32
// TF32-SAME:    {kiln_plan.tensor_map = #kiln_plan.tensor_map<source = {{[0-9]+}}, offset = 0, element_type = f32, dims = [1024, 2048], strides = [{{[0-9]+}}], box = [32, 128]
// TF32:             nvvm.mbarrier.try_wait.parity
// TF32-COUNT-4:     arith.andi %{{.+}}, %c-8192_i32
// TF32:             nvvm.fence.proxy
// TF32-NEXT:        gpu.barrier
// TF32:             nvvm.wgmma.mma_async {{.*}} A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
func.func @tf32(%a: memref<2048x1024xf32>, %b: memref<2048x1024xf32>,
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
