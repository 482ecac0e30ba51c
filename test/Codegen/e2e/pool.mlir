// RUN: kiln-opt %s -kiln-convert-graph-to-linalg \
// RUN:   -one-shot-bufferize="bufferize-function-boundaries" \
// RUN:   -convert-linalg-to-loops -convert-scf-to-cf -expand-strided-metadata \
// RUN:   -lower-affine -finalize-memref-to-llvm -convert-math-to-funcs \
// RUN:   -convert-math-to-llvm -convert-math-to-libm -convert-to-llvm \
// RUN:   -reconcile-unrealized-casts \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | FileCheck %s


// Tests that kiln.max_pool and kiln.avg_pool lowered by
// kiln-convert-graph-to-linalg compute ONNX MaxPool / AveragePool: -inf
// padding, ceil_mode (extra end padding), 1-D with dilation, and the average's
// divisor with and without count_include_pad, for partial ceil_mode windows
// for dynamic shapes (with and without pads), and 3-D max pooling.
//
// Inputs are small integers (numpy RandomState(5)); expected values come from a
// numpy loop over every window (positions outside the input skipped; the
// inclusive average counts positions inside the explicit pads only, as ONNX
// Runtime and PyTorch do). Maxima are exact. Averages are printed as
// round(avg * 1e3): f32 rounding (~1e-6 relative on values below 10) stays far
// below the 1e-3 quantum and the generator checked that no expected value lies
// within 0.02 quanta of a rounding boundary, so the comparison is exact.

func.func @max_pool_padded(%x: tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32> {
  %r = kiln.max_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32>
  return %r : tensor<1x2x3x3xf32>
}

func.func @max_pool_ceil(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  %r = kiln.max_pool %x {ceil_mode = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  return %r : tensor<1x1x3x3xf32>
}

func.func @max_pool_1d_dilated(%x: tensor<1x2x7xf32>) -> tensor<1x2x4xf32> {
  %r = kiln.max_pool %x {dilations = array<i64: 2>, kernel_shape = array<i64: 3>, pads = array<i64: 1, 0>, strides = array<i64: 1>} : (tensor<1x2x7xf32>) -> tensor<1x2x4xf32>
  return %r : tensor<1x2x4xf32>
}

func.func @avg_pool_exclude_pad(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %r = kiln.avg_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  return %r : tensor<1x2x3x3xf32>
}

func.func @avg_pool_include_pad(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %r = kiln.avg_pool %x {count_include_pad = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  return %r : tensor<1x2x3x3xf32>
}

func.func @avg_pool_ceil(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  %r = kiln.avg_pool %x {ceil_mode = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  return %r : tensor<1x1x3x3xf32>
}

func.func @avg_pool_dynamic(%x: tensor<?x3x?x?xf32>) -> tensor<?x3x?x?xf32> {
  %r = kiln.avg_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<?x3x?x?xf32>) -> tensor<?x3x?x?xf32>
  return %r : tensor<?x3x?x?xf32>
}

func.func @avg_pool_dynamic_padded(%x: tensor<1x2x?x?xf32>) -> tensor<1x2x?x?xf32> {
  %r = kiln.avg_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 0, 0, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x?x?xf32>) -> tensor<1x2x?x?xf32>
  return %r : tensor<1x2x?x?xf32>
}

func.func @max_pool_3d(%x: tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32> {
  %r = kiln.max_pool %x {dilations = array<i64: 1, 1, 1>, kernel_shape = array<i64: 2, 2, 2>, pads = array<i64: 0, 0, 0, 1, 1, 1>, strides = array<i64: 2, 2, 2>} : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32>
  return %r : tensor<1x2x2x2x2xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI64(tensor<*xi64>)

// Prints round(x * 1e3): see the tolerance note above.
func.func @scale_round_1x2x3x3(%t: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %c = kiln.constant dense<1.0e3> : tensor<f32>
  %m = kiln.mul %t, %c : (tensor<1x2x3x3xf32>, tensor<f32>) -> tensor<1x2x3x3xf32>
  %r = kiln.round %m : tensor<1x2x3x3xf32>
  return %r : tensor<1x2x3x3xf32>
}

// Prints round(x * 1e3): see the tolerance note above.
func.func @scale_round_1x1x3x3(%t: tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32> {
  %c = kiln.constant dense<1.0e3> : tensor<f32>
  %m = kiln.mul %t, %c : (tensor<1x1x3x3xf32>, tensor<f32>) -> tensor<1x1x3x3xf32>
  %r = kiln.round %m : tensor<1x1x3x3xf32>
  return %r : tensor<1x1x3x3xf32>
}

// Prints round(x * 1e3): see the tolerance note above.
func.func @scale_round_2x3x2x2(%t: tensor<2x3x2x2xf32>) -> tensor<2x3x2x2xf32> {
  %c = kiln.constant dense<1.0e3> : tensor<f32>
  %m = kiln.mul %t, %c : (tensor<2x3x2x2xf32>, tensor<f32>) -> tensor<2x3x2x2xf32>
  %r = kiln.round %m : tensor<2x3x2x2xf32>
  return %r : tensor<2x3x2x2xf32>
}

// Prints round(x * 1e3): see the tolerance note above.
func.func @scale_round_1x2x2x2(%t: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %c = kiln.constant dense<1.0e3> : tensor<f32>
  %m = kiln.mul %t, %c : (tensor<1x2x2x2xf32>, tensor<f32>) -> tensor<1x2x2x2xf32>
  %r = kiln.round %m : tensor<1x2x2x2xf32>
  return %r : tensor<1x2x2x2xf32>
}

func.func @main() {
  %max_pool_padded_x = arith.constant dense<[[[[-6.0, 5.0, 6.0, -3.0, 7.0, 0.0], [-1.0, -5.0, -2.0, 7.0, 7.0, -2.0], [3.0, 6.0, 8.0, -2.0, 7.0, 3.0], [4.0, 2.0, -8.0, 6.0, 9.0, 0.0], [1.0, 0.0, 0.0, -8.0, 9.0, -2.0], [7.0, 5.0, -4.0, -9.0, 7.0, -5.0]], [[5.0, -5.0, 0.0, -7.0, -5.0, -3.0], [0.0, 9.0, 8.0, -2.0, -5.0, 3.0], [4.0, 2.0, 2.0, -6.0, -8.0, -6.0], [5.0, -8.0, -2.0, 7.0, 5.0, 0.0], [-3.0, 6.0, 7.0, -4.0, -7.0, 4.0], [4.0, 2.0, -1.0, -9.0, 3.0, 3.0]]]]> : tensor<1x2x6x6xf32>
  %max_pool_padded_r = call @max_pool_padded(%max_pool_padded_x) : (tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32>
  %max_pool_padded_r_u = tensor.cast %max_pool_padded_r : tensor<1x2x3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%max_pool_padded_r_u) : (tensor<*xf32>) -> ()
  %max_pool_ceil_x = arith.constant dense<[[[[-4.0, 5.0, 6.0, 9.0, -9.0], [-2.0, -2.0, 7.0, -9.0, -1.0], [3.0, -4.0, 2.0, -4.0, 0.0], [-4.0, 9.0, -8.0, 6.0, -3.0], [-6.0, 6.0, 8.0, -1.0, -9.0]]]]> : tensor<1x1x5x5xf32>
  %max_pool_ceil_r = call @max_pool_ceil(%max_pool_ceil_x) : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  %max_pool_ceil_r_u = tensor.cast %max_pool_ceil_r : tensor<1x1x3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%max_pool_ceil_r_u) : (tensor<*xf32>) -> ()
  %max_pool_1d_dilated_x = arith.constant dense<[[[9.0, 4.0, 6.0, 9.0, 8.0, 2.0, 8.0], [-5.0, 9.0, -5.0, 0.0, -9.0, 1.0, 6.0]]]> : tensor<1x2x7xf32>
  %max_pool_1d_dilated_r = call @max_pool_1d_dilated(%max_pool_1d_dilated_x) : (tensor<1x2x7xf32>) -> tensor<1x2x4xf32>
  %max_pool_1d_dilated_r_u = tensor.cast %max_pool_1d_dilated_r : tensor<1x2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%max_pool_1d_dilated_r_u) : (tensor<*xf32>) -> ()
  %avg_pool_exclude_pad_x = arith.constant dense<[[[[-3.0, 0.0, 5.0, -7.0, -9.0], [-1.0, -1.0, -2.0, 3.0, -1.0], [1.0, -1.0, -9.0, 6.0, 5.0], [-4.0, -6.0, 2.0, 2.0, -5.0], [-9.0, -7.0, -7.0, 8.0, -8.0]], [[4.0, -8.0, 9.0, -9.0, 4.0], [0.0, -8.0, 0.0, -9.0, -1.0], [-2.0, -5.0, 6.0, 8.0, -5.0], [9.0, -8.0, -4.0, -5.0, 9.0], [-7.0, 4.0, -8.0, 9.0, -6.0]]]]> : tensor<1x2x5x5xf32>
  %avg_pool_exclude_pad_r = call @avg_pool_exclude_pad(%avg_pool_exclude_pad_x) : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  %avg_pool_exclude_pad_r_q = call @scale_round_1x2x3x3(%avg_pool_exclude_pad_r) : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %avg_pool_exclude_pad_r_q_u = tensor.cast %avg_pool_exclude_pad_r_q : tensor<1x2x3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%avg_pool_exclude_pad_r_q_u) : (tensor<*xf32>) -> ()
  %avg_pool_include_pad_x = arith.constant dense<[[[[-3.0, 0.0, 5.0, -7.0, -9.0], [-1.0, -1.0, -2.0, 3.0, -1.0], [1.0, -1.0, -9.0, 6.0, 5.0], [-4.0, -6.0, 2.0, 2.0, -5.0], [-9.0, -7.0, -7.0, 8.0, -8.0]], [[4.0, -8.0, 9.0, -9.0, 4.0], [0.0, -8.0, 0.0, -9.0, -1.0], [-2.0, -5.0, 6.0, 8.0, -5.0], [9.0, -8.0, -4.0, -5.0, 9.0], [-7.0, 4.0, -8.0, 9.0, -6.0]]]]> : tensor<1x2x5x5xf32>
  %avg_pool_include_pad_r = call @avg_pool_include_pad(%avg_pool_include_pad_x) : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  %avg_pool_include_pad_r_q = call @scale_round_1x2x3x3(%avg_pool_include_pad_r) : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %avg_pool_include_pad_r_q_u = tensor.cast %avg_pool_include_pad_r_q : tensor<1x2x3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%avg_pool_include_pad_r_q_u) : (tensor<*xf32>) -> ()
  %avg_pool_ceil_x = arith.constant dense<[[[[-8.0, 9.0, 0.0, -9.0, 8.0], [-7.0, 5.0, -1.0, 1.0, -4.0], [6.0, 5.0, -4.0, 8.0, 8.0], [-9.0, -1.0, 5.0, -9.0, 4.0], [-4.0, 0.0, 2.0, -6.0, 7.0]]]]> : tensor<1x1x5x5xf32>
  %avg_pool_ceil_r = call @avg_pool_ceil(%avg_pool_ceil_x) : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  %avg_pool_ceil_r_q = call @scale_round_1x1x3x3(%avg_pool_ceil_r) : (tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  %avg_pool_ceil_r_q_u = tensor.cast %avg_pool_ceil_r_q : tensor<1x1x3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%avg_pool_ceil_r_q_u) : (tensor<*xf32>) -> ()
  %avg_pool_dynamic_x = arith.constant dense<[[[[-6.0, -6.0, -7.0, -3.0], [9.0, 6.0, -2.0, -9.0], [-6.0, -4.0, -8.0, -3.0], [-2.0, -6.0, 5.0, 0.0]], [[-2.0, -2.0, -3.0, 5.0], [-5.0, 1.0, 1.0, -5.0], [-9.0, 7.0, 8.0, -4.0], [-6.0, 6.0, 8.0, 7.0]], [[2.0, -1.0, 1.0, 0.0], [5.0, -2.0, 0.0, 7.0], [3.0, 6.0, -2.0, 6.0], [4.0, 8.0, -6.0, 5.0]]], [[[4.0, 8.0, 7.0, -9.0], [9.0, 5.0, 5.0, -7.0], [-1.0, 8.0, -1.0, 1.0], [-3.0, 0.0, -8.0, 9.0]], [[5.0, -4.0, 3.0, 8.0], [4.0, 6.0, -3.0, 3.0], [-8.0, -4.0, 8.0, 2.0], [4.0, 1.0, 7.0, 2.0]], [[-1.0, 1.0, -2.0, -6.0], [3.0, -5.0, -9.0, 4.0], [3.0, 4.0, 1.0, -8.0], [-4.0, -8.0, -9.0, 3.0]]]]> : tensor<2x3x4x4xf32>
  %avg_pool_dynamic_x_d = tensor.cast %avg_pool_dynamic_x : tensor<2x3x4x4xf32> to tensor<?x3x?x?xf32>
  %avg_pool_dynamic_r = call @avg_pool_dynamic(%avg_pool_dynamic_x_d) : (tensor<?x3x?x?xf32>) -> tensor<?x3x?x?xf32>
  %avg_pool_dynamic_r_s = tensor.cast %avg_pool_dynamic_r : tensor<?x3x?x?xf32> to tensor<2x3x2x2xf32>
  %avg_pool_dynamic_r_s_q = call @scale_round_2x3x2x2(%avg_pool_dynamic_r_s) : (tensor<2x3x2x2xf32>) -> tensor<2x3x2x2xf32>
  %avg_pool_dynamic_r_s_q_u = tensor.cast %avg_pool_dynamic_r_s_q : tensor<2x3x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%avg_pool_dynamic_r_s_q_u) : (tensor<*xf32>) -> ()
  %avg_pool_dynamic_padded_x = arith.constant dense<[[[[-5.0, -9.0, -1.0, -4.0, 9.0], [3.0, 4.0, -3.0, 4.0, 5.0], [-7.0, 3.0, -3.0, 6.0, -4.0], [8.0, 4.0, 6.0, 7.0, 9.0], [-2.0, -4.0, 5.0, 9.0, -5.0]], [[-5.0, -6.0, 0.0, 6.0, -9.0], [-1.0, 1.0, 8.0, -9.0, -5.0], [5.0, -4.0, 4.0, 0.0, 0.0], [-4.0, 4.0, -8.0, 9.0, -9.0], [-6.0, 5.0, 4.0, -3.0, 4.0]]]]> : tensor<1x2x5x5xf32>
  %avg_pool_dynamic_padded_x_d = tensor.cast %avg_pool_dynamic_padded_x : tensor<1x2x5x5xf32> to tensor<1x2x?x?xf32>
  %avg_pool_dynamic_padded_r = call @avg_pool_dynamic_padded(%avg_pool_dynamic_padded_x_d) : (tensor<1x2x?x?xf32>) -> tensor<1x2x?x?xf32>
  %avg_pool_dynamic_padded_r_s = tensor.cast %avg_pool_dynamic_padded_r : tensor<1x2x?x?xf32> to tensor<1x2x2x2xf32>
  %avg_pool_dynamic_padded_r_s_q = call @scale_round_1x2x2x2(%avg_pool_dynamic_padded_r_s) : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %avg_pool_dynamic_padded_r_s_q_u = tensor.cast %avg_pool_dynamic_padded_r_s_q : tensor<1x2x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%avg_pool_dynamic_padded_r_s_q_u) : (tensor<*xf32>) -> ()
  %max_pool_3d_x = arith.constant dense<[[[[[-6.0, -6.0, -2.0, 2.0], [-8.0, -1.0, 6.0, 4.0], [5.0, 9.0, 3.0, -7.0], [-7.0, -7.0, 4.0, -8.0]], [[-9.0, -8.0, -3.0, 5.0], [8.0, -9.0, 8.0, -4.0], [-3.0, 0.0, 3.0, 6.0], [7.0, -3.0, 6.0, 8.0]], [[-3.0, 2.0, -5.0, 4.0], [8.0, 7.0, -3.0, 0.0], [9.0, -3.0, 4.0, 4.0], [-7.0, -6.0, -4.0, -3.0]], [[9.0, 2.0, 1.0, -8.0], [6.0, -3.0, 7.0, 6.0], [-3.0, -2.0, 0.0, 4.0], [1.0, -9.0, 5.0, 5.0]]], [[[-4.0, -8.0, 7.0, 7.0], [-6.0, 4.0, 7.0, 2.0], [-8.0, -8.0, 0.0, 9.0], [7.0, -8.0, -4.0, 5.0]], [[1.0, -8.0, 9.0, 1.0], [-3.0, -7.0, 1.0, 9.0], [-4.0, 2.0, 3.0, -2.0], [9.0, 6.0, 6.0, -5.0]], [[6.0, -9.0, 8.0, -9.0], [6.0, -3.0, -5.0, 8.0], [3.0, 8.0, -2.0, -5.0], [-7.0, 2.0, 9.0, -7.0]], [[-9.0, 6.0, -2.0, 3.0], [-7.0, -9.0, 2.0, 1.0], [-4.0, -9.0, 3.0, -2.0], [-8.0, -2.0, -5.0, 8.0]]]]]> : tensor<1x2x4x4x4xf32>
  %max_pool_3d_r = call @max_pool_3d(%max_pool_3d_x) : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32>
  %max_pool_3d_r_u = tensor.cast %max_pool_3d_r : tensor<1x2x2x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%max_pool_3d_r_u) : (tensor<*xf32>) -> ()
  return
}

// @max_pool_padded: 3x3, stride 2, pads 1 (padding never wins)
// CHECK: rank = 4 offset = {{[0-9]+}} sizes = [1, 2, 3, 3] strides = {{.*}} data =
// CHECK-NEXT: [5, 7, 7]
// CHECK-NEXT: [6, 8, 9]
// CHECK-NEXT: [7, 6, 9]
// CHECK-NEXT: [9, 9, 3]
// CHECK-NEXT: [9, 9, 7]
// CHECK-NEXT: [6, 7, 7]
// @max_pool_ceil: ceil_mode: partial last windows
// CHECK: rank = 4 offset = {{[0-9]+}} sizes = [1, 1, 3, 3] strides = {{.*}} data =
// CHECK-NEXT: [5, 9, -1]
// CHECK-NEXT: [9, 6, 0]
// CHECK-NEXT: [6, 8, -9]
// @max_pool_1d_dilated: 1-D, dilation 2 (linalg.pooling_ncw_max)
// CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 2, 4] strides = {{.*}} data =
// CHECK-NEXT: [9, 9, 9, 8]
// CHECK-NEXT: [9, -5, 9, 6]
// @avg_pool_exclude_pad: count_include_pad = false: corner windows divide by 4, edges by 6 (x 1e3, rounded)
// CHECK: rank = 4 offset = {{[0-9]+}} sizes = [1, 2, 3, 3] strides = {{.*}} data =
// CHECK-NEXT: [-1250, -333, -3500]
// CHECK-NEXT: [-2000, -667, 1667]
// CHECK-NEXT: [-6500, -1333, -750]
// CHECK-NEXT: [-3000, -4167, -3750]
// CHECK-NEXT: [-2333, -2778, -500]
// CHECK-NEXT: [-500, -2000, 1750]
// @avg_pool_include_pad: count_include_pad = true: every window divides by 9 (x 1e3, rounded)
// CHECK: rank = 4 offset = {{[0-9]+}} sizes = [1, 2, 3, 3] strides = {{.*}} data =
// CHECK-NEXT: [-556, -222, -1556]
// CHECK-NEXT: [-1333, -667, 1111]
// CHECK-NEXT: [-2889, -889, -333]
// CHECK-NEXT: [-1333, -2778, -1667]
// CHECK-NEXT: [-1556, -2778, -333]
// CHECK-NEXT: [-222, -1333, 778]
// @avg_pool_ceil: ceil_mode: the partial windows divide by the elements they cover (x 1e3, rounded)
// CHECK: rank = 4 offset = {{[0-9]+}} sizes = [1, 1, 3, 3] strides = {{.*}} data =
// CHECK-NEXT: [-250, -2250, 2000]
// CHECK-NEXT: [250, 0, 6000]
// CHECK-NEXT: [-2000, -2000, 7000]
// @avg_pool_dynamic: dynamic batch and spatial dims (x 1e3, rounded)
// CHECK: rank = 4 offset = {{[0-9]+}} sizes = [2, 3, 2, 2] strides = {{.*}} data =
// CHECK-NEXT: [750, -5250]
// CHECK-NEXT: [-4500, -1500]
// CHECK-NEXT: [-2000, -500]
// CHECK-NEXT: [-500, 4750]
// CHECK-NEXT: [1000, 2000]
// CHECK-NEXT: [5250, 750]
// CHECK-NEXT: [6500, -1000]
// CHECK-NEXT: [1000, 250]
// CHECK-NEXT: [2750, 2750]
// CHECK-NEXT: [-1750, 4750]
// CHECK-NEXT: [-500, -3250]
// CHECK-NEXT: [-1250, -3250]
// @avg_pool_dynamic_padded: dynamic spatial dims with pads: divisors computed at run time (x 1e3, rounded)
// CHECK: rank = 4 offset = {{[0-9]+}} sizes = [1, 2, 2, 2] strides = {{.*}} data =
// CHECK-NEXT: [-1833, 1667]
// CHECK-NEXT: [1667, 3000]
// CHECK-NEXT: [-500, -1500]
// CHECK-NEXT: [556, -1111]
// @max_pool_3d: 3-D (a generic)
// CHECK: rank = 5 offset = {{[0-9]+}} sizes = [1, 2, 2, 2, 2] strides = {{.*}} data =
// CHECK-NEXT: [8, 8]
// CHECK-NEXT: [9, 8]
// CHECK-NEXT: [9, 7]
// CHECK-NEXT: [9, 5]
// CHECK-NEXT: [4, 9]
// CHECK-NEXT: [9, 9]
// CHECK-NEXT: [6, 8]
// CHECK-NEXT: [8, 9]
