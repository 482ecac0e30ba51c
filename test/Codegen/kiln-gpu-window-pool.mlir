// RUN: kiln-opt %s -split-input-file -kiln-gpu-window-pool | FileCheck %s

// Tests that ResNet's 3x3 / 2 max pool, channels-last f16 with 64 channels,
// padded by 1, runs as one kernel: the pad buffer (filled with -inf, the image
// copied into its middle), the output's -inf fill and the pool become one
// launch of a thread per output pixel and 8 channels (2 * 4 * 4 * 8 = 256
// threads): 9 taps of 16-byte loads of the image itself, those in the padding
// replaced by -inf (bounds checked in unsigned arithmetic), a 16-byte store.
// CHECK-LABEL: func.func @padded
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     linalg.
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c256
// CHECK:           arith.cmpi ult, {{.*}}, %c256_i32
// CHECK-COUNT-9:   vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<2x8x8x64xf16>, vector<8xf16>
// CHECK:           vector.store {{.*}}, %arg1[{{.*}}] {alignment = 16 : i64} : memref<2x4x4x64xf16>, vector<8xf16>
// CHECK:         } {kiln.tactic = "window max pool, 8 channels"}
// CHECK-NOT:     linalg.
func.func @padded(%x: memref<2x8x8x64xf16>, %y: memref<2x4x4x64xf16>) {
  %ninf = arith.constant 0xFC00 : f16
  %padded = memref.alloc() : memref<2x10x10x64xf16>
  linalg.fill ins(%ninf : f16) outs(%padded : memref<2x10x10x64xf16>)
  %mid = memref.subview %padded[0, 1, 1, 0] [2, 8, 8, 64] [1, 1, 1, 1] : memref<2x10x10x64xf16> to memref<2x8x8x64xf16, strided<[6400, 640, 64, 1], offset: 704>>
  linalg.copy ins(%x : memref<2x8x8x64xf16>) outs(%mid : memref<2x8x8x64xf16, strided<[6400, 640, 64, 1], offset: 704>>)
  linalg.fill ins(%ninf : f16) outs(%y : memref<2x4x4x64xf16>)
  %window = memref.alloc() : memref<3x3xf16>
  linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%padded, %window : memref<2x10x10x64xf16>, memref<3x3xf16>) outs(%y : memref<2x4x4x64xf16>)
  return
}

// -----

// Tests that a pool of three f32 channels, no padding, gets a thread per output
// element with scalar loads.
// CHECK-LABEL: func.func @scalar
// CHECK:         gpu.launch
// CHECK-COUNT-4:   memref.load %arg0
// CHECK:           memref.store {{.*}}, %arg1
// CHECK:         } {kiln.tactic = "window max pool"}
func.func @scalar(%x: memref<1x4x4x3xf32>, %y: memref<1x2x2x3xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%ninf : f32) outs(%y : memref<1x2x2x3xf32>)
  %window = memref.alloc() : memref<2x2xf32>
  linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %window : memref<1x4x4x3xf32>, memref<2x2xf32>) outs(%y : memref<1x2x2x3xf32>)
  return
}

// -----

// Tests that an output that was not filled with the lowest value (an
// accumulating pool) stays with the generic path.
// CHECK-LABEL: func.func @accumulating
// CHECK-NOT:     gpu.launch
// CHECK:         linalg.pooling_nhwc_max
func.func @accumulating(%x: memref<1x4x4x8xf16>, %y: memref<1x2x2x8xf16>) {
  %zero = arith.constant 0.0 : f16
  linalg.fill ins(%zero : f16) outs(%y : memref<1x2x2x8xf16>)
  %window = memref.alloc() : memref<2x2xf16>
  linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %window : memref<1x4x4x8xf16>, memref<2x2xf16>) outs(%y : memref<1x2x2x8xf16>)
  return
}
