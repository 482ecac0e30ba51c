// RUN: kiln-opt %s -kiln-convert-graph-to-linalg \
// RUN:   -one-shot-bufferize="bufferize-function-boundaries" \
// RUN:   -convert-linalg-to-loops -convert-scf-to-cf -expand-strided-metadata \
// RUN:   -lower-affine -finalize-memref-to-llvm -convert-math-to-funcs \
// RUN:   -convert-math-to-llvm -convert-math-to-libm -convert-to-llvm \
// RUN:   -reconcile-unrealized-casts \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | FileCheck %s


// Tests that kiln.softmax and kiln.log_softmax lowered by
// kiln-convert-graph-to-linalg are numerically stable (max-subtracted: inputs
// near 1000 would overflow exp in f32 otherwise) and right along a middle axis
// and with dynamic dims.
//
// Expected values: numpy in float64, softmax = exp(x - max) / sum(exp(x - max)),
// log_softmax = (x - max) - log(sum(exp(x - max))), inputs with at most two
// decimals (numpy RandomState(3)). Results are printed as round(y * 1e3): f32
// exp/log are within a few ulps (~1e-6 relative here, values below 10 in
// magnitude), far below the 1e-3 quantum, and the generator checked that no
// expected value lies within 0.02 quanta of a rounding boundary.

func.func @softmax_large(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %r = kiln.softmax %x {axis = 1 : i64} : tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

func.func @softmax_middle_axis(%x: tensor<2x3x2xf32>) -> tensor<2x3x2xf32> {
  %r = kiln.softmax %x {axis = 1 : i64} : tensor<2x3x2xf32>
  return %r : tensor<2x3x2xf32>
}

func.func @log_softmax(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %r = kiln.log_softmax %x {axis = 0 : i64} : tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

func.func @softmax_dynamic(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = kiln.softmax %x {axis = 1 : i64} : tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI64(tensor<*xi64>)

// Prints round(x * 1e3): see the tolerance note above.
func.func @scale_round_2x4(%t: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %c = kiln.constant dense<1.0e3> : tensor<f32>
  %m = kiln.mul %t, %c : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %r = kiln.round %m : tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// Prints round(x * 1e3): see the tolerance note above.
func.func @scale_round_2x3x2(%t: tensor<2x3x2xf32>) -> tensor<2x3x2xf32> {
  %c = kiln.constant dense<1.0e3> : tensor<f32>
  %m = kiln.mul %t, %c : (tensor<2x3x2xf32>, tensor<f32>) -> tensor<2x3x2xf32>
  %r = kiln.round %m : tensor<2x3x2xf32>
  return %r : tensor<2x3x2xf32>
}

// Prints round(x * 1e3): see the tolerance note above.
func.func @scale_round_3x2(%t: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %c = kiln.constant dense<1.0e3> : tensor<f32>
  %m = kiln.mul %t, %c : (tensor<3x2xf32>, tensor<f32>) -> tensor<3x2xf32>
  %r = kiln.round %m : tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

// Prints round(x * 1e3): see the tolerance note above.
func.func @scale_round_3x4(%t: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %c = kiln.constant dense<1.0e3> : tensor<f32>
  %m = kiln.mul %t, %c : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %r = kiln.round %m : tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

func.func @main() {
  %softmax_large_x = arith.constant dense<[[1000.0, 1001.0, 1002.0, 999.25], [-3.0, 0.25, 1.75, -0.75]]> : tensor<2x4xf32>
  %softmax_large_r = call @softmax_large(%softmax_large_x) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %softmax_large_r_q = call @scale_round_2x4(%softmax_large_r) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %softmax_large_r_q_u = tensor.cast %softmax_large_r_q : tensor<2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%softmax_large_r_q_u) : (tensor<*xf32>) -> ()
  %softmax_middle_axis_x = arith.constant dense<[[[0.2, 0.83], [-0.84, 0.04], [1.57, 1.59]], [[-1.5, -1.17], [-1.79, -0.24], [-1.88, -0.17]]]> : tensor<2x3x2xf32>
  %softmax_middle_axis_r = call @softmax_middle_axis(%softmax_middle_axis_x) : (tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  %softmax_middle_axis_r_q = call @scale_round_2x3x2(%softmax_middle_axis_r) : (tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  %softmax_middle_axis_r_q_u = tensor.cast %softmax_middle_axis_r_q : tensor<2x3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%softmax_middle_axis_r_q_u) : (tensor<*xf32>) -> ()
  %log_softmax_x = arith.constant dense<[[500.0, -2.0], [501.0, 0.5], [499.25, 1.0]]> : tensor<3x2xf32>
  %log_softmax_r = call @log_softmax(%log_softmax_x) : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %log_softmax_r_q = call @scale_round_3x2(%log_softmax_r) : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %log_softmax_r_q_u = tensor.cast %log_softmax_r_q : tensor<3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%log_softmax_r_q_u) : (tensor<*xf32>) -> ()
  %softmax_dynamic_x = arith.constant dense<[[0.6, -0.89, 0.71, 0.36], [-1.9, 0.24, -0.96, -0.34], [-0.87, 0.77, -0.24, -1.37]]> : tensor<3x4xf32>
  %softmax_dynamic_x_d = tensor.cast %softmax_dynamic_x : tensor<3x4xf32> to tensor<?x?xf32>
  %softmax_dynamic_r = call @softmax_dynamic(%softmax_dynamic_x_d) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %softmax_dynamic_r_s = tensor.cast %softmax_dynamic_r : tensor<?x?xf32> to tensor<3x4xf32>
  %softmax_dynamic_r_s_q = call @scale_round_3x4(%softmax_dynamic_r_s) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %softmax_dynamic_r_s_q_u = tensor.cast %softmax_dynamic_r_s_q : tensor<3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%softmax_dynamic_r_s_q_u) : (tensor<*xf32>) -> ()
  return
}

// @softmax_large: values near 1000: exp would overflow without the max subtraction (x 1e3, rounded)
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 4] strides = {{.*}} data =
// CHECK-NEXT: [86, 235, 638, 41]
// CHECK-NEXT: [7, 170, 761, 62]
// @softmax_middle_axis: axis 1 of 3 (x 1e3, rounded)
// CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 3, 2] strides = {{.*}} data =
// CHECK-NEXT: [189, 278]
// CHECK-NEXT: [67, 126]
// CHECK-NEXT: [744, 595]
// CHECK-NEXT: [411, 160]
// CHECK-NEXT: [308, 405]
// CHECK-NEXT: [281, 435]
// @log_softmax: axis 0, large values (x 1e3, rounded)
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [3, 2] strides = {{.*}} data =
// CHECK-NEXT: [-1433, -3505]
// CHECK-NEXT: [-433, -1005]
// CHECK-NEXT: [-2183, -505]
// @softmax_dynamic: dynamic dims (x 1e3, rounded)
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [3, 4] strides = {{.*}} data =
// CHECK-NEXT: [320, 72, 357, 251]
// CHECK-NEXT: [59, 505, 152, 283]
// CHECK-NEXT: [116, 597, 217, 70]
