// Tests that grouped channels-last convs (linalg.conv_2d_nhwgc_gfhwc, from
// kilnc's channels-last lowering) run as one implicit GEMM per group (the
// GEMM's batch), K = taps x the group's channels. The zero-padded image (a [N,
// H, W, G, C/G] buffer: fill, copy of the source into its interior) is not
// built: 16-byte cp.async loads read the source directly, predicated off in the
// padding; the filter is read as [G, M/G, KH*KW*C/G] rows; bias + ReLU run in
// the epilogue.
// RUN: kiln-opt %s -kiln-gpu-tensor-core="split-k=1" | FileCheck %s

// CHECK-LABEL: func.func @grouped
// CHECK-SAME:    kiln.tactics = "mma.sync {{[0-9]+}}x{{[0-9]+}}x32 ring 4"
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     linalg.
// CHECK:         %[[SRC:.+]] = memref.expand_shape %arg0 {{\[}}[0], [1], [2], [3, 4]] output_shape [1, 14, 14, 2, 32]
// CHECK:         gpu.launch blocks(%{{.+}}, %{{.+}}, %{{.+}}) in (%{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}, %[[GZ:.+]] = %c2)
// CHECK:           memref.collapse_shape %{{.+}} {{\[}}[0], [1], [2, 3, 4]] : memref<2x64x3x3x32xf16> into memref<2x64x288xf16>
// CHECK:           nvgpu.device_async_copy %[[SRC]][%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}], %{{.+}}, 8, %{{.+}} {bypassL1} : memref<1x14x14x2x32xf16> to
// CHECK:           nvgpu.mma.sync
// CHECK:           arith.maximumf
// CHECK:         } {kiln.tactic = "mma.sync {{[0-9]+}}x{{[0-9]+}}x32 ring 4 + fused epilogue"}
// CHECK-NOT:     linalg.
func.func @grouped(%arg0: memref<1x14x14x64xf16>, %arg1: memref<128x3x3x32xf16>, %arg2: memref<128xf16>, %arg3: memref<1x14x14x128xf16>) {
  %cst = arith.constant 0.000000e+00 : f16
  %cst_0 = arith.constant 0.000000e+00 : f32
  %expand_shape = memref.expand_shape %arg0 [[0], [1], [2], [3, 4]] output_shape [1, 14, 14, 2, 32] : memref<1x14x14x64xf16> into memref<1x14x14x2x32xf16>
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x16x16x2x32xf16>
  linalg.map outs(%alloc : memref<1x16x16x2x32xf16>)
    (%init: f16) {
      linalg.yield %cst : f16
    }
  %subview = memref.subview %alloc[0, 1, 1, 0, 0] [1, 14, 14, 2, 32] [1, 1, 1, 1, 1] : memref<1x16x16x2x32xf16> to memref<1x14x14x2x32xf16, strided<[16384, 1024, 64, 32, 1], offset: 1088>>
  linalg.copy ins(%expand_shape : memref<1x14x14x2x32xf16>) outs(%subview : memref<1x14x14x2x32xf16, strided<[16384, 1024, 64, 32, 1], offset: 1088>>)
  %expand_shape_1 = memref.expand_shape %arg1 [[0, 1], [2], [3], [4]] output_shape [2, 64, 3, 3, 32] : memref<128x3x3x32xf16> into memref<2x64x3x3x32xf16>
  %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<1x14x14x2x64xf32>
  linalg.fill ins(%cst_0 : f32) outs(%alloc_2 : memref<1x14x14x2x64xf32>)
  %expand_shape_3 = memref.expand_shape %arg2 [[0, 1]] output_shape [2, 64] : memref<128xf16> into memref<2x64xf16>
  %expand_shape_4 = memref.expand_shape %arg3 [[0], [1], [2], [3, 4]] output_shape [1, 14, 14, 2, 64] : memref<1x14x14x128xf16> into memref<1x14x14x2x64xf16>
  linalg.conv_2d_nhwgc_gfhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%alloc, %expand_shape_1 : memref<1x16x16x2x32xf16>, memref<2x64x3x3x32xf16>) outs(%alloc_2 : memref<1x14x14x2x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%alloc_2, %expand_shape_3 : memref<1x14x14x2x64xf32>, memref<2x64xf16>) outs(%expand_shape_4 : memref<1x14x14x2x64xf16>) {
  ^bb0(%in: f32, %in_5: f16, %out: f16):
    %0 = arith.truncf %in : f32 to f16
    %1 = arith.addf %0, %in_5 : f16
    %2 = arith.maximumf %1, %cst : f16
    linalg.yield %2 : f16
  }
  return
}
