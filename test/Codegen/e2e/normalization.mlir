// RUN: kiln-opt %s -kiln-convert-graph-to-linalg \
// RUN:   -one-shot-bufferize="bufferize-function-boundaries" \
// RUN:   -convert-linalg-to-loops -convert-scf-to-cf -expand-strided-metadata \
// RUN:   -lower-affine -finalize-memref-to-llvm -convert-math-to-funcs \
// RUN:   -convert-math-to-llvm -convert-math-to-libm -convert-to-llvm \
// RUN:   -reconcile-unrealized-casts \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | FileCheck %s


// Tests that the normalizations lowered by kiln-convert-graph-to-linalg
// compute ONNX's formulas: layer_norm over one and two trailing dims (with and
// without bias, static and dynamic), inference batch_norm, instance_norm and
// lrn.
//
// Expected values: numpy in float64 with inputs of two decimals (numpy
// RandomState(18)): layer_norm (x - mean) / sqrt(var + eps) * scale + bias over
// dims [axis, rank) with the biased variance; batch_norm
// scale * (x - mean) / sqrt(var + eps) + bias per channel; instance_norm the
// same with statistics over the spatial dims; lrn
// x / (bias + alpha / size * sum of squares over the channel window)^beta.
// Results are printed as round(y * 1e3): f32 statistics and rsqrt are within
// ~1e-6 relative on values below 10, far below the 1e-3 quantum, and the
// generator checked that no expected value lies within 0.02 quanta of a
// rounding boundary.

func.func @layer_norm_last(%x: tensor<2x2x4xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x2x4xf32> {
  %r = kiln.layer_norm %x, %s, %b {axis = 2 : i64, epsilon = 9.99999974E-6 : f32} : (tensor<2x2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x2x4xf32>
  return %r : tensor<2x2x4xf32>
}

func.func @layer_norm_two_dims(%x: tensor<2x3x2xf32>, %s: tensor<3x2xf32>) -> tensor<2x3x2xf32> {
  %r = kiln.layer_norm %x, %s {axis = 1 : i64, epsilon = 1.000000e-03 : f32} : (tensor<2x3x2xf32>, tensor<3x2xf32>) -> tensor<2x3x2xf32>
  return %r : tensor<2x3x2xf32>
}

func.func @layer_norm_dynamic(%x: tensor<?x4xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<?x4xf32> {
  %r = kiln.layer_norm %x, %s, %b {axis = 1 : i64, epsilon = 9.99999974E-6 : f32} : (tensor<?x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

func.func @batch_norm(%x: tensor<1x2x2x3xf32>, %s: tensor<2xf32>, %b: tensor<2xf32>, %m: tensor<2xf32>, %v: tensor<2xf32>) -> tensor<1x2x2x3xf32> {
  %r = kiln.batch_norm %x, %s, %b, %m, %v {epsilon = 9.99999974E-6 : f32} : (tensor<1x2x2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x3xf32>
  return %r : tensor<1x2x2x3xf32>
}

func.func @instance_norm(%x: tensor<2x2x3x2xf32>, %s: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2x2x3x2xf32> {
  %r = kiln.instance_norm %x, %s, %b {epsilon = 9.99999974E-6 : f32} : (tensor<2x2x3x2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2x3x2xf32>
  return %r : tensor<2x2x3x2xf32>
}

func.func @lrn(%x: tensor<1x5x2x1xf32>) -> tensor<1x5x2x1xf32> {
  %r = kiln.lrn %x {alpha = 5.000000e-01 : f32, beta = 7.500000e-01 : f32, bias = 2.000000e+00 : f32, size = 3 : i64} : tensor<1x5x2x1xf32>
  return %r : tensor<1x5x2x1xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI64(tensor<*xi64>)

// Prints round(x * 1e3): see the tolerance note above.
func.func @scale_round_2x2x4(%t: tensor<2x2x4xf32>) -> tensor<2x2x4xf32> {
  %c = kiln.constant dense<1.0e3> : tensor<f32>
  %m = kiln.mul %t, %c : (tensor<2x2x4xf32>, tensor<f32>) -> tensor<2x2x4xf32>
  %r = kiln.round %m : tensor<2x2x4xf32>
  return %r : tensor<2x2x4xf32>
}

// Prints round(x * 1e3): see the tolerance note above.
func.func @scale_round_2x3x2(%t: tensor<2x3x2xf32>) -> tensor<2x3x2xf32> {
  %c = kiln.constant dense<1.0e3> : tensor<f32>
  %m = kiln.mul %t, %c : (tensor<2x3x2xf32>, tensor<f32>) -> tensor<2x3x2xf32>
  %r = kiln.round %m : tensor<2x3x2xf32>
  return %r : tensor<2x3x2xf32>
}

// Prints round(x * 1e3): see the tolerance note above.
func.func @scale_round_3x4(%t: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %c = kiln.constant dense<1.0e3> : tensor<f32>
  %m = kiln.mul %t, %c : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %r = kiln.round %m : tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// Prints round(x * 1e3): see the tolerance note above.
func.func @scale_round_1x2x2x3(%t: tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32> {
  %c = kiln.constant dense<1.0e3> : tensor<f32>
  %m = kiln.mul %t, %c : (tensor<1x2x2x3xf32>, tensor<f32>) -> tensor<1x2x2x3xf32>
  %r = kiln.round %m : tensor<1x2x2x3xf32>
  return %r : tensor<1x2x2x3xf32>
}

// Prints round(x * 1e3): see the tolerance note above.
func.func @scale_round_2x2x3x2(%t: tensor<2x2x3x2xf32>) -> tensor<2x2x3x2xf32> {
  %c = kiln.constant dense<1.0e3> : tensor<f32>
  %m = kiln.mul %t, %c : (tensor<2x2x3x2xf32>, tensor<f32>) -> tensor<2x2x3x2xf32>
  %r = kiln.round %m : tensor<2x2x3x2xf32>
  return %r : tensor<2x2x3x2xf32>
}

// Prints round(x * 1e3): see the tolerance note above.
func.func @scale_round_1x5x2x1(%t: tensor<1x5x2x1xf32>) -> tensor<1x5x2x1xf32> {
  %c = kiln.constant dense<1.0e3> : tensor<f32>
  %m = kiln.mul %t, %c : (tensor<1x5x2x1xf32>, tensor<f32>) -> tensor<1x5x2x1xf32>
  %r = kiln.round %m : tensor<1x5x2x1xf32>
  return %r : tensor<1x5x2x1xf32>
}

func.func @main() {
  %layer_norm_last_x = arith.constant dense<[[[0.6, 0.02, 1.51, -1.27], [1.41, 1.0, 0.66, 1.95]], [[-0.97, -1.89, 0.54, 1.39], [0.94, -1.92, -1.55, -0.81]]]> : tensor<2x2x4xf32>
  %layer_norm_last_s = arith.constant dense<[0.75, 1.45, -1.21, 0.63]> : tensor<4xf32>
  %layer_norm_last_b = arith.constant dense<[0.8, -0.59, 1.16, 1.26]> : tensor<4xf32>
  %layer_norm_last_r = call @layer_norm_last(%layer_norm_last_x, %layer_norm_last_s, %layer_norm_last_b) : (tensor<2x2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x2x4xf32>
  %layer_norm_last_r_q = call @scale_round_2x2x4(%layer_norm_last_r) : (tensor<2x2x4xf32>) -> tensor<2x2x4xf32>
  %layer_norm_last_r_q_u = tensor.cast %layer_norm_last_r_q : tensor<2x2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%layer_norm_last_r_q_u) : (tensor<*xf32>) -> ()
  %layer_norm_two_dims_x = arith.constant dense<[[[-1.21, 1.8], [-0.09, 0.67], [-1.15, 1.23]], [[-0.72, -0.82], [-0.79, 1.31], [0.21, -1.23]]]> : tensor<2x3x2xf32>
  %layer_norm_two_dims_s = arith.constant dense<[[0.86, 0.56], [0.13, 0.29], [-1.95, 0.78]]> : tensor<3x2xf32>
  %layer_norm_two_dims_r = call @layer_norm_two_dims(%layer_norm_two_dims_x, %layer_norm_two_dims_s) : (tensor<2x3x2xf32>, tensor<3x2xf32>) -> tensor<2x3x2xf32>
  %layer_norm_two_dims_r_q = call @scale_round_2x3x2(%layer_norm_two_dims_r) : (tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  %layer_norm_two_dims_r_q_u = tensor.cast %layer_norm_two_dims_r_q : tensor<2x3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%layer_norm_two_dims_r_q_u) : (tensor<*xf32>) -> ()
  %layer_norm_dynamic_x = arith.constant dense<[[0.14, -1.68, -1.95, -0.89], [1.99, -1.1, -1.58, -1.93], [-0.63, 1.23, -1.13, 1.74]]> : tensor<3x4xf32>
  %layer_norm_dynamic_x_d = tensor.cast %layer_norm_dynamic_x : tensor<3x4xf32> to tensor<?x4xf32>
  %layer_norm_dynamic_s = arith.constant dense<[1.95, -1.96, 1.14, 0.74]> : tensor<4xf32>
  %layer_norm_dynamic_b = arith.constant dense<[0.06, -0.92, 0.66, 1.11]> : tensor<4xf32>
  %layer_norm_dynamic_r = call @layer_norm_dynamic(%layer_norm_dynamic_x_d, %layer_norm_dynamic_s, %layer_norm_dynamic_b) : (tensor<?x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %layer_norm_dynamic_r_s = tensor.cast %layer_norm_dynamic_r : tensor<?x4xf32> to tensor<3x4xf32>
  %layer_norm_dynamic_r_s_q = call @scale_round_3x4(%layer_norm_dynamic_r_s) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %layer_norm_dynamic_r_s_q_u = tensor.cast %layer_norm_dynamic_r_s_q : tensor<3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%layer_norm_dynamic_r_s_q_u) : (tensor<*xf32>) -> ()
  %batch_norm_x = arith.constant dense<[[[[-0.1, 1.95, -0.02], [0.69, -0.28, -0.96]], [[1.78, 0.75, 0.64], [-1.86, 1.62, -0.33]]]]> : tensor<1x2x2x3xf32>
  %batch_norm_s = arith.constant dense<[-0.1, -1.46]> : tensor<2xf32>
  %batch_norm_b = arith.constant dense<[-0.55, -0.7]> : tensor<2xf32>
  %batch_norm_m = arith.constant dense<[-1.41, 1.18]> : tensor<2xf32>
  %batch_norm_v = arith.constant dense<[0.59, 2.08]> : tensor<2xf32>
  %batch_norm_r = call @batch_norm(%batch_norm_x, %batch_norm_s, %batch_norm_b, %batch_norm_m, %batch_norm_v) : (tensor<1x2x2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x3xf32>
  %batch_norm_r_q = call @scale_round_1x2x2x3(%batch_norm_r) : (tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32>
  %batch_norm_r_q_u = tensor.cast %batch_norm_r_q : tensor<1x2x2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%batch_norm_r_q_u) : (tensor<*xf32>) -> ()
  %instance_norm_x = arith.constant dense<[[[[1.18, 0.52], [-1.73, 1.15], [-0.48, -0.12]], [[-1.68, -1.39], [-0.49, -0.59], [-1.81, -1.05]]], [[[-1.21, -0.45], [1.34, 1.1], [1.21, -1.23]], [[0.63, 0.15], [-0.1, 0.59], [-0.05, 0.16]]]]> : tensor<2x2x3x2xf32>
  %instance_norm_s = arith.constant dense<[1.68, -0.18]> : tensor<2xf32>
  %instance_norm_b = arith.constant dense<[0.55, 0.41]> : tensor<2xf32>
  %instance_norm_r = call @instance_norm(%instance_norm_x, %instance_norm_s, %instance_norm_b) : (tensor<2x2x3x2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2x3x2xf32>
  %instance_norm_r_q = call @scale_round_2x2x3x2(%instance_norm_r) : (tensor<2x2x3x2xf32>) -> tensor<2x2x3x2xf32>
  %instance_norm_r_q_u = tensor.cast %instance_norm_r_q : tensor<2x2x3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%instance_norm_r_q_u) : (tensor<*xf32>) -> ()
  %lrn_x = arith.constant dense<[[[[-0.97], [1.04]], [[0.16], [-0.83]], [[1.47], [-1.95]], [[-0.83], [1.96]], [[-0.06], [0.34]]]]> : tensor<1x5x2x1xf32>
  %lrn_r = call @lrn(%lrn_x) : (tensor<1x5x2x1xf32>) -> tensor<1x5x2x1xf32>
  %lrn_r_q = call @scale_round_1x5x2x1(%lrn_r) : (tensor<1x5x2x1xf32>) -> tensor<1x5x2x1xf32>
  %lrn_r_q_u = tensor.cast %lrn_r_q : tensor<1x5x2x1xf32> to tensor<*xf32>
  call @printMemrefF32(%lrn_r_q_u) : (tensor<*xf32>) -> ()
  return
}

// @layer_norm_last: axis 2, scale and bias [4] (x 1e3, rounded)
// CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 2, 4] strides = {{.*}} data =
// CHECK-NEXT: [1086, -870, -394, 332]
// CHECK-NEXT: [1042, -1358, 2656, 2170]
// CHECK-NEXT: [367, -2472, 428, 2061]
// CHECK-NEXT: [2010, -2020, 1947, 1274]
// @layer_norm_two_dims: axis 1 (two normalized dims), no bias, eps 1e-3 (x 1e3, rounded)
// CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 3, 2] strides = {{.*}} data =
// CHECK-NEXT: [-1074, 785]
// CHECK-NEXT: [-34, 118]
// CHECK-NEXT: [2332, 702]
// CHECK-NEXT: [-382, -314]
// CHECK-NEXT: [-68, 559]
// CHECK-NEXT: [-1252, -811]
// @layer_norm_dynamic: dynamic rows (x 1e3, rounded)
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [3, 4] strides = {{.*}} data =
// CHECK-NEXT: [3024, 491, -540, 1297]
// CHECK-NEXT: [3376, -359, -18, 503]
// CHECK-NEXT: [-1444, -2423, -691, 1990]
// @batch_norm: inference batch norm (x 1e3, rounded)
// CHECK: rank = 4 offset = {{[0-9]+}} sizes = [1, 2, 2, 3] strides = {{.*}} data =
// CHECK-NEXT: [-721, -987, -731]
// CHECK-NEXT: [-823, -697, -609]
// CHECK-NEXT: [-1307, -265, -153]
// CHECK-NEXT: [2377, -1145, 829]
// @instance_norm: statistics per (n, c) (x 1e3, rounded)
// CHECK: rank = 4 offset = {{[0-9]+}} sizes = [2, 2, 3, 2] strides = {{.*}} data =
// CHECK-NEXT: [2360, 1267]
// CHECK-NEXT: [-2458, 2310]
// CHECK-NEXT: [-388, 208]
// CHECK-NEXT: [592, 489]
// CHECK-NEXT: [168, 204]
// CHECK-NEXT: [639, 368]
// CHECK-NEXT: [-1451, -313]
// CHECK-NEXT: [2367, 2007]
// CHECK-NEXT: [2172, -1481]
// CHECK-NEXT: [158, 460]
// CHECK-NEXT: [618, 183]
// CHECK-NEXT: [587, 454]
// @lrn: size 3 window over channels (x 1e3, rounded)
// CHECK: rank = 4 offset = {{[0-9]+}} sizes = [1, 5, 2, 1] strides = {{.*}} data =
// CHECK-NEXT: [-544]
// CHECK-NEXT: [558]
// CHECK-NEXT: [80]
// CHECK-NEXT: [-371]
// CHECK-NEXT: [744]
// CHECK-NEXT: [-781]
// CHECK-NEXT: [-421]
// CHECK-NEXT: [802]
// CHECK-NEXT: [-34]
// CHECK-NEXT: [163]
