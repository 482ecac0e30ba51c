// RUN: kiln-opt %s -kiln-convert-graph-to-linalg \
// RUN:   -one-shot-bufferize="bufferize-function-boundaries" \
// RUN:   -convert-linalg-to-loops -convert-scf-to-cf -expand-strided-metadata \
// RUN:   -lower-affine -finalize-memref-to-llvm -convert-math-to-funcs \
// RUN:   -convert-math-to-llvm -convert-math-to-libm -convert-to-llvm \
// RUN:   -reconcile-unrealized-casts \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | FileCheck %s

// Tests that kiln.conv and kiln.conv_transpose lowered by
// kiln-convert-graph-to-linalg compute the right numbers: (A) zero padding,
// stride 2 and a bias (linalg.conv_2d_nchw_fchw), (B) two groups with
// asymmetric pads (linalg.conv_2d_ngchw_gfchw), (C) depthwise with dilation 2
// (linalg.depthwise_conv_2d_nchw_chw), (D) a grouped transposed conv with
// stride 2, pads 1, output_padding 1 and a bias.
//
// Inputs are small integers (numpy RandomState(7)); the expected values come
// from direct-loop numpy references of ONNX Conv and ConvTranspose (the
// latter in its scatter form) and are exact: every product and sum of small
// integers and halves is exact in f32, so the CHECKs compare exactly.

func.func @conv_padded_strided(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x3x3x3xf32> {
  %0 = kiln.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x3x3xf32>
  return %0 : tensor<1x3x3x3xf32>
}

func.func @conv_grouped(%x: tensor<1x4x4x4xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %0 = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 1, 1, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  return %0 : tensor<1x4x3x3xf32>
}

func.func @conv_depthwise_dilated(%x: tensor<1x3x5x5xf32>, %w: tensor<3x1x2x2xf32>) -> tensor<1x3x3x3xf32> {
  %0 = kiln.conv %x, %w {dilations = array<i64: 2, 2>, group = 3 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x5x5xf32>, tensor<3x1x2x2xf32>) -> tensor<1x3x3x3xf32>
  return %0 : tensor<1x3x3x3xf32>
}

func.func @conv_transpose(%x: tensor<1x4x3x3xf32>, %w: tensor<4x1x3x3xf32>, %b: tensor<2xf32>) -> tensor<1x2x6x6xf32> {
  %0 = kiln.conv_transpose %x, %w, %b {dilations = array<i64: 1, 1>, group = 2 : i64, output_padding = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x3x3xf32>, tensor<4x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x6x6xf32>
  return %0 : tensor<1x2x6x6xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %xa = arith.constant dense<[[[[1.0, -2.0, 3.0, 0.0, 0.0], [1.0, -2.0, 3.0, -3.0, -2.0], [3.0, -1.0, -1.0, -3.0, 3.0], [1.0, -3.0, 1.0, -3.0, 0.0], [-1.0, 3.0, 0.0, 1.0, 1.0]], [[2.0, -3.0, -3.0, 2.0, -3.0], [0.0, 2.0, -3.0, -1.0, -3.0], [-2.0, 3.0, 3.0, 1.0, 3.0], [-2.0, 0.0, 0.0, -3.0, 0.0], [-3.0, -2.0, -3.0, -3.0, 3.0]]]]> : tensor<1x2x5x5xf32>
  %wa = arith.constant dense<[[[[2.0, 2.0, 2.0], [0.0, -1.0, 1.0], [-2.0, 2.0, -2.0]], [[2.0, 1.0, -1.0], [1.0, 1.0, 1.0], [-1.0, 1.0, 1.0]]], [[[2.0, 1.0, -1.0], [1.0, -1.0, -1.0], [-1.0, 0.0, 1.0]], [[0.0, 0.0, 1.0], [1.0, 0.0, -2.0], [2.0, 1.0, -1.0]]], [[[-1.0, 2.0, 1.0], [2.0, 2.0, 2.0], [1.0, 1.0, -2.0]], [[2.0, 1.0, -2.0], [0.0, 0.0, 1.0], [0.0, 1.0, 2.0]]]]> : tensor<3x2x3x3xf32>
  %ba = arith.constant dense<[1.0, -1.0, 0.5]> : tensor<3xf32>
  %xb = arith.constant dense<[[[[2.0, -2.0, 2.0, 1.0], [-1.0, 0.0, 2.0, 2.0], [-1.0, -1.0, 0.0, -2.0], [2.0, 0.0, 2.0, -2.0]], [[0.0, 1.0, 0.0, 2.0], [-1.0, 0.0, -1.0, -1.0], [2.0, -1.0, -2.0, 2.0], [-1.0, 2.0, 1.0, 2.0]], [[-1.0, 1.0, -2.0, -1.0], [1.0, 2.0, -2.0, 1.0], [-1.0, 2.0, 2.0, 2.0], [0.0, -1.0, 1.0, 1.0]], [[0.0, 2.0, -2.0, 1.0], [-2.0, -1.0, -2.0, 2.0], [1.0, -1.0, 0.0, -2.0], [0.0, -2.0, 0.0, -1.0]]]]> : tensor<1x4x4x4xf32>
  %wb = arith.constant dense<[[[[-1.0, 1.0, -1.0], [-2.0, -2.0, -1.0], [-1.0, -1.0, 1.0]], [[0.0, -2.0, 0.0], [0.0, 2.0, 0.0], [1.0, 2.0, -2.0]]], [[[-1.0, 2.0, -1.0], [2.0, 1.0, 0.0], [2.0, -1.0, -2.0]], [[0.0, 2.0, -2.0], [-2.0, 2.0, -1.0], [-2.0, 0.0, -2.0]]], [[[1.0, -2.0, -1.0], [1.0, 0.0, -2.0], [-2.0, 2.0, 2.0]], [[1.0, -1.0, 0.0], [2.0, -2.0, 2.0], [0.0, 0.0, -2.0]]], [[[1.0, -1.0, -2.0], [1.0, -1.0, 0.0], [-2.0, -1.0, 1.0]], [[1.0, 2.0, 1.0], [-1.0, 2.0, 1.0], [2.0, -2.0, -1.0]]]]> : tensor<4x2x3x3xf32>
  %xc = arith.constant dense<[[[[-4.0, -3.0, 4.0, 0.0, -3.0], [2.0, 4.0, 1.0, -2.0, 0.0], [3.0, 0.0, -3.0, -2.0, 4.0], [1.0, -2.0, 2.0, -2.0, 1.0], [3.0, 3.0, 1.0, 1.0, 2.0]], [[-4.0, 2.0, 0.0, 2.0, -2.0], [2.0, 4.0, 3.0, -4.0, 1.0], [4.0, 3.0, 3.0, 2.0, -2.0], [1.0, 2.0, -3.0, -1.0, 0.0], [-4.0, -1.0, 1.0, 2.0, 0.0]], [[-4.0, 0.0, -3.0, 1.0, -2.0], [0.0, 4.0, 3.0, 1.0, 3.0], [1.0, -1.0, 3.0, 2.0, -2.0], [-1.0, -3.0, -3.0, 4.0, 0.0], [-2.0, -3.0, 3.0, -4.0, 4.0]]]]> : tensor<1x3x5x5xf32>
  %wc = arith.constant dense<[[[[-2.0, 2.0], [-1.0, 0.0]]], [[[1.0, 2.0], [-2.0, 0.0]]], [[[-1.0, 1.0], [-1.0, -2.0]]]]> : tensor<3x1x2x2xf32>
  %xd = arith.constant dense<[[[[-1.0, 1.0, 1.0], [1.0, 0.0, 2.0], [0.0, -2.0, 0.0]], [[2.0, -1.0, -2.0], [0.0, -2.0, 0.0], [0.0, 2.0, 1.0]], [[-1.0, 2.0, 2.0], [-1.0, -1.0, -1.0], [2.0, -2.0, 2.0]], [[0.0, 2.0, 1.0], [1.0, 0.0, 2.0], [1.0, 0.0, 2.0]]]]> : tensor<1x4x3x3xf32>
  %wd = arith.constant dense<[[[[-1.0, -2.0, 1.0], [0.0, 0.0, -2.0], [-1.0, 1.0, 0.0]]], [[[0.0, 0.0, 2.0], [1.0, 2.0, -2.0], [0.0, 0.0, -2.0]]], [[[0.0, -2.0, 0.0], [-2.0, 2.0, -2.0], [2.0, -1.0, 2.0]]], [[[2.0, -1.0, -2.0], [-1.0, -2.0, 0.0], [0.0, -2.0, 0.0]]]]> : tensor<4x1x3x3xf32>
  %bd = arith.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %ya = call @conv_padded_strided(%xa, %wa, %ba) : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x3x3xf32>
  %ua = tensor.cast %ya : tensor<1x3x3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%ua) : (tensor<*xf32>) -> ()
  %yb = call @conv_grouped(%xb, %wb) : (tensor<1x4x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  %ub = tensor.cast %yb : tensor<1x4x3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%ub) : (tensor<*xf32>) -> ()
  %yc = call @conv_depthwise_dilated(%xc, %wc) : (tensor<1x3x5x5xf32>, tensor<3x1x2x2xf32>) -> tensor<1x3x3x3xf32>
  %uc = tensor.cast %yc : tensor<1x3x3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%uc) : (tensor<*xf32>) -> ()
  %yd = call @conv_transpose(%xd, %wd, %bd) : (tensor<1x4x3x3xf32>, tensor<4x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x6x6xf32>
  %ud = tensor.cast %yd : tensor<1x2x6x6xf32> to tensor<*xf32>
  call @printMemrefF32(%ud) : (tensor<*xf32>) -> ()
  return
}

// (A) padded, strided, bias
// CHECK: rank = 4 offset = {{[0-9]+}} sizes = [1, 3, 3, 3] strides = {{.*}} data =
// CHECK-NEXT: [5, 4, 0]
// CHECK-NEXT: [0, 15, -4]
// CHECK-NEXT: [-6, -13, -12]
// CHECK-NEXT: [2, -12, -1]
// CHECK-NEXT: [-9, 7, -17]
// CHECK-NEXT: [5, 0, -10]
// CHECK-NEXT: [4.5, 6.5, -7.5]
// CHECK-NEXT: [8.5, -2.5, -8.5]
// CHECK-NEXT: [-0.5, 13.5, 1.5]
// (B) grouped
// CHECK: rank = 4 offset = {{[0-9]+}} sizes = [1, 4, 3, 3] strides = {{.*}} data =
// CHECK-NEXT: [10, -2, -15]
// CHECK-NEXT: [0, 2, -2]
// CHECK-NEXT: [-10, 0, 7]
// CHECK-NEXT: [6, -6, 2]
// CHECK-NEXT: [-6, -6, -10]
// CHECK-NEXT: [3, 10, -7]
// CHECK-NEXT: [3, 6, 24]
// CHECK-NEXT: [-8, -3, 6]
// CHECK-NEXT: [-3, -3, -14]
// CHECK-NEXT: [-3, 7, 3]
// CHECK-NEXT: [-7, -3, -3]
// CHECK-NEXT: [-4, -11, -8]
// (C) depthwise, dilated
// CHECK: rank = 4 offset = {{[0-9]+}} sizes = [1, 3, 3, 3] strides = {{.*}} data =
// CHECK-NEXT: [13, 6, -11]
// CHECK-NEXT: [-3, -10, -4]
// CHECK-NEXT: [-15, -7, 13]
// CHECK-NEXT: [-12, 0, -10]
// CHECK-NEXT: [6, -8, 11]
// CHECK-NEXT: [18, 9, -3]
// CHECK-NEXT: [-6, -2, 2]
// CHECK-NEXT: [10, -8, 3]
// CHECK-NEXT: [-2, 14, -16]
// (D) transposed, grouped, bias
// CHECK: rank = 4 offset = {{[0-9]+}} sizes = [1, 2, 6, 6] strides = {{.*}} data =
// CHECK-NEXT: [4.5, -2.5, -1.5, -1.5, -3.5, 2.5]
// CHECK-NEXT: [-2.5, -3.5, 1.5, -4.5, -2.5, 6.5]
// CHECK-NEXT: [0.5, -3.5, -3.5, 4.5, 0.5, -3.5]
// CHECK-NEXT: [1.5, 2.5, 4.5, 4.5, 2.5, 2.5]
// CHECK-NEXT: [0.5, 2.5, 4.5, 1.5, 2.5, -1.5]
// CHECK-NEXT: [0.5, 2.5, -1.5, -3.5, 0.5, -1.5]
// CHECK-NEXT: [-2.5, -4.5, -0.5, -9.5, 1.5, -4.5]
// CHECK-NEXT: [1.5, -0.5, -4.5, 11.5, -4.5, -0.5]
// CHECK-NEXT: [-4.5, 3.5, -2.5, 1.5, -6.5, 1.5]
// CHECK-NEXT: [-6.5, -6.5, 4.5, -0.5, -9.5, -6.5]
// CHECK-NEXT: [1.5, -0.5, -4.5, -2.5, -0.5, -4.5]
// CHECK-NEXT: [-4.5, -0.5, 1.5, -0.5, -6.5, 3.5]
