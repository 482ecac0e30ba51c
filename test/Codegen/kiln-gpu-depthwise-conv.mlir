// RUN: kiln-opt %s -split-input-file -kiln-gpu-depthwise-conv | FileCheck %s

// Tests that a 3x3 depthwise conv over a zero-padded copy of a 1x28x28x32 f16
// image (the conv lowering's pad fill and copy, the f32 accumulator's zero
// fill, the conv, and the bias + hard-swish epilogue after it: five launches
// on the generic path) becomes one launch: a thread per pixel and 8 channels
// (28 * 28 * 4 = 3136 threads, 13 blocks of 256), a 16-byte image load per
// tap at coordinates clamped into the image (taps in the padding selected
// away), the filter's 8 channels loaded per tap, the sums in f32, then the
// epilogue's bias loads, its body, and one 16-byte store into the output.
// The padded buffer, the accumulator, the fills, the copy and the epilogue
// are gone.
// CHECK-LABEL: func.func @padded_with_epilogue
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     linalg
// CHECK:         %[[C13:.+]] = arith.constant 13 : index
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %[[C13]], {{.*}}) threads({{.*}}) in ({{.*}} = %{{.+}}, {{.*}})
// CHECK-COUNT-9:   vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<1x28x28x32xf16>, vector<8xf16>
// CHECK-NOT:       vector.load
// CHECK:           memref.load %arg2[
// CHECK:           arith.minimumf
// CHECK:           vector.store {{.*}}, %arg3[{{.*}}] {alignment = 16 : i64} : memref<1x28x28x32xf16>, vector<8xf16>
// CHECK:         } {kiln.tactic = "depthwise conv, 8 channels"}
// CHECK-NOT:     linalg
func.func @padded_with_epilogue(%arg0: memref<1x28x28x32xf16>, %arg1: memref<32x3x3x1xf16>, %arg2: memref<32xf16>, %arg3: memref<1x28x28x32xf16>) {
  %cst = arith.constant 1.000000e+00 : f16
  %cst_0 = arith.constant 1.666260e-01 : f16
  %cst_1 = arith.constant 5.000000e-01 : f16
  %cst_2 = arith.constant 0.000000e+00 : f32
  %cst_3 = arith.constant 0.000000e+00 : f16
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x30x30x32xf16>
  linalg.map outs(%alloc : memref<1x30x30x32xf16>)
    (%init: f16) {
      linalg.yield %cst_3 : f16
    }
  %subview = memref.subview %alloc[0, 1, 1, 0] [1, 28, 28, 32] [1, 1, 1, 1] : memref<1x30x30x32xf16> to memref<1x28x28x32xf16, strided<[28800, 960, 32, 1], offset: 992>>
  linalg.copy ins(%arg0 : memref<1x28x28x32xf16>) outs(%subview : memref<1x28x28x32xf16, strided<[28800, 960, 32, 1], offset: 992>>)
  %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<1x28x28x32xf32>
  linalg.fill ins(%cst_2 : f32) outs(%alloc_4 : memref<1x28x28x32xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 + d4, d2 + d5, d3)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d4, d5, 0)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%alloc, %arg1 : memref<1x30x30x32xf16>, memref<32x3x3x1xf16>) outs(%alloc_4 : memref<1x28x28x32xf32>) {
  ^bb0(%in: f16, %in_5: f16, %out: f32):
    %0 = arith.extf %in : f16 to f32
    %1 = arith.extf %in_5 : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%alloc_4, %arg2 : memref<1x28x28x32xf32>, memref<32xf16>) outs(%arg3 : memref<1x28x28x32xf16>) {
  ^bb0(%in: f32, %in_5: f16, %out: f16):
    %0 = arith.truncf %in : f32 to f16
    %1 = arith.addf %0, %in_5 : f16
    %2 = arith.mulf %1, %cst_0 : f16
    %3 = arith.addf %2, %cst_1 : f16
    %4 = arith.maximumf %3, %cst_3 : f16
    %5 = arith.minimumf %4, %cst : f16
    %6 = arith.mulf %1, %5 : f16
    linalg.yield %6 : f16
  }
  return
}

// -----

// Tests a stride-2, dilation-2 depthwise conv over 20 channels (not whole
// 16-byte vectors: a thread per channel) into an accumulator that is a
// function argument, not filled: each sum starts from the accumulator's value
// and is stored back; nothing else changes. 2 x 2 outputs x 20 channels = 80
// threads, one block.
// CHECK-LABEL: func.func @strided_dilated_scalar
// CHECK:         gpu.launch
// CHECK-NOT:       vector.load
// CHECK:           memref.load %arg2[
// CHECK-COUNT-9:   memref.load %arg0[
// CHECK:           memref.store {{.*}}, %arg2[
// CHECK:         } {kiln.tactic = "depthwise conv"}
// CHECK-NOT:     linalg.generic
func.func @strided_dilated_scalar(%arg0: memref<2x7x7x20xf32>, %arg1: memref<20x3x3x1xf32>, %arg2: memref<2x2x2x20xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d4 * 2, d2 * 2 + d5 * 2, d3)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d4, d5, 0)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%arg0, %arg1 : memref<2x7x7x20xf32>, memref<20x3x3x1xf32>) outs(%arg2 : memref<2x2x2x20xf32>) {
  ^bb0(%in: f32, %in_5: f32, %out: f32):
    %2 = arith.mulf %in, %in_5 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

// Tests that a conv that also sums over input channels (a third reduction
// dim: not depthwise) and a depthwise body that is no multiply-add stay.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     gpu.launch
// CHECK:         linalg.generic
// CHECK:         linalg.generic
func.func @left_alone(%x: memref<1x9x9x8xf32>, %w: memref<4x3x3x8xf32>, %y: memref<1x7x7x4xf32>, %dw: memref<8x3x3x1xf32>, %z: memref<1x7x7x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, h, w, f, i, j, c) -> (n, h + i, w + j, c)>, affine_map<(n, h, w, f, i, j, c) -> (f, i, j, c)>, affine_map<(n, h, w, f, i, j, c) -> (n, h, w, f)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x9x9x8xf32>, memref<4x3x3x8xf32>) outs(%y : memref<1x7x7x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 + d4, d2 + d5, d3)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d4, d5, 0)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %dw : memref<1x9x9x8xf32>, memref<8x3x3x1xf32>) outs(%z : memref<1x7x7x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.maximumf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  return
}
