// RUN: kiln-opt %s -kiln-convert-graph-to-linalg \
// RUN:   -one-shot-bufferize="bufferize-function-boundaries" \
// RUN:   -convert-linalg-to-loops -convert-scf-to-cf -expand-strided-metadata \
// RUN:   -lower-affine -finalize-memref-to-llvm -convert-math-to-funcs \
// RUN:   -convert-math-to-llvm -convert-math-to-libm -convert-to-llvm \
// RUN:   -reconcile-unrealized-casts \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | FileCheck %s


// Tests that the reductions lowered by kiln-convert-graph-to-linalg compute
// ONNX's results: reduce_mean (kept and dropped dims, dynamic reduced dim),
// sum, max, min, prod, l1, l2, sum_square, log_sum, a stable log_sum_exp,
// arg_max / arg_min with both tie rules, cumsum (forward, reverse exclusive)
// and topk (values and indices, largest and smallest).
//
// Expected values: numpy (mean, sum, max, min, prod, abs, sqrt, log, argmax on
// reversed rows for the last-index rule, cumsum, a stable argsort for topk)
// on small integers from numpy RandomState(2). Integer-valued results
// and indices are exact; means, roots and logarithms are printed as
// round(y * 1e3): f32 error (~1e-6 relative, values below 1000) stays well
// below the quantum, and the generator checked that no expected value lies
// within 0.02 quanta of a rounding boundary.

func.func @reduce_mean_keepdims(%x: tensor<2x3x4xf32>) -> tensor<2x1x1xf32> {
  %r = kiln.reduce_mean %x {axes = array<i64: 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  return %r : tensor<2x1x1xf32>
}

func.func @reduce_mean_axis0(%x: tensor<2x3x4xf32>) -> tensor<3x4xf32> {
  %r = kiln.reduce_mean %x {axes = array<i64: 0>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

func.func @reduce_mean_dynamic(%x: tensor<?x3x?xf32>) -> tensor<?x3xf32> {
  %r = kiln.reduce_mean %x {axes = array<i64: 2>, keepdims = false} : (tensor<?x3x?xf32>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

func.func @reduce_sum_all(%x: tensor<2x3x4xf32>) -> tensor<f32> {
  %r = kiln.reduce_sum %x {axes = array<i64: 0, 1, 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<f32>
  return %r : tensor<f32>
}

func.func @reduce_max(%x: tensor<2x3x4xf32>) -> tensor<2x1x4xf32> {
  %r = kiln.reduce_max %x {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  return %r : tensor<2x1x4xf32>
}

func.func @reduce_min(%x: tensor<2x3x4xf32>) -> tensor<2x3xf32> {
  %r = kiln.reduce_min %x {axes = array<i64: 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

func.func @reduce_prod(%y: tensor<3x4xf32>) -> tensor<3xf32> {
  %r = kiln.reduce_prod %y {axes = array<i64: 1>, keepdims = false} : (tensor<3x4xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

func.func @reduce_l1(%x: tensor<2x3x4xf32>) -> tensor<3x4xf32> {
  %r = kiln.reduce_l1 %x {axes = array<i64: 0>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

func.func @reduce_l2(%x: tensor<2x3x4xf32>) -> tensor<2x3xf32> {
  %r = kiln.reduce_l2 %x {axes = array<i64: 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

func.func @reduce_sum_square(%x: tensor<2x3x4xf32>) -> tensor<2x3xf32> {
  %r = kiln.reduce_sum_square %x {axes = array<i64: 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

func.func @reduce_log_sum(%z: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
  %r = kiln.reduce_log_sum %z {axes = array<i64: 1>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

func.func @reduce_log_sum_exp(%w: tensor<2x3x4xf32>) -> tensor<2x3xf32> {
  %l = kiln.reduce_log_sum_exp %w {axes = array<i64: 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  %c = kiln.constant dense<1.000000e+02> : tensor<f32>
  %r = kiln.sub %l, %c : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

func.func @arg_max_first(%t: tensor<3x4xf32>) -> tensor<3xi64> {
  %r = kiln.arg_max %t {axis = 1 : i64, keepdims = false} : (tensor<3x4xf32>) -> tensor<3xi64>
  return %r : tensor<3xi64>
}

func.func @arg_max_last(%t: tensor<3x4xf32>) -> tensor<3x1xi64> {
  %r = kiln.arg_max %t {axis = 1 : i64, select_last_index = true} : (tensor<3x4xf32>) -> tensor<3x1xi64>
  return %r : tensor<3x1xi64>
}

func.func @arg_min(%t: tensor<3x4xf32>) -> tensor<4xi64> {
  %r = kiln.arg_min %t {axis = 0 : i64, keepdims = false} : (tensor<3x4xf32>) -> tensor<4xi64>
  return %r : tensor<4xi64>
}

func.func @cumsum(%c: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %r = kiln.cumsum %c {axis = 1 : i64} : tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

func.func @cumsum_reverse_exclusive(%c: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %r = kiln.cumsum %c {axis = 1 : i64, exclusive = true, reverse = true} : tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

func.func @topk_values(%k: tensor<2x6xf32>) -> tensor<2x3xf32> {
  %r, %i = kiln.topk %k {axis = 1 : i64, k = 3 : i64} : (tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  return %r : tensor<2x3xf32>
}

func.func @topk_indices(%k: tensor<2x6xf32>) -> tensor<2x3xi64> {
  %v, %r = kiln.topk %k {axis = 1 : i64, k = 3 : i64} : (tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  return %r : tensor<2x3xi64>
}

func.func @topk_smallest_indices(%k: tensor<2x6xf32>) -> tensor<1x6xi64> {
  %v, %r = kiln.topk %k {axis = 0 : i64, k = 1 : i64, largest = false} : (tensor<2x6xf32>) -> (tensor<1x6xf32>, tensor<1x6xi64>)
  return %r : tensor<1x6xi64>
}

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI64(tensor<*xi64>)

// Prints round(x * 1e3): see the tolerance note above.
func.func @scale_round_2x1x1(%t: tensor<2x1x1xf32>) -> tensor<2x1x1xf32> {
  %c = kiln.constant dense<1.0e3> : tensor<f32>
  %m = kiln.mul %t, %c : (tensor<2x1x1xf32>, tensor<f32>) -> tensor<2x1x1xf32>
  %r = kiln.round %m : tensor<2x1x1xf32>
  return %r : tensor<2x1x1xf32>
}

// Prints round(x * 1e3): see the tolerance note above.
func.func @scale_round_2x3(%t: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = kiln.constant dense<1.0e3> : tensor<f32>
  %m = kiln.mul %t, %c : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %r = kiln.round %m : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// Prints round(x * 1e3): see the tolerance note above.
func.func @scale_round_2x4(%t: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %c = kiln.constant dense<1.0e3> : tensor<f32>
  %m = kiln.mul %t, %c : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %r = kiln.round %m : tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

func.func @main() {
  %reduce_mean_keepdims_x = arith.constant dense<[[[-1.0, 6.0, 4.0, -1.0], [2.0, 9.0, 2.0, -1.0], [-2.0, -7.0, 8.0, 2.0]], [[6.0, -4.0, -2.0, -6.0], [-3.0, -5.0, 1.0, 2.0], [-2.0, -3.0, 1.0, -8.0]]]> : tensor<2x3x4xf32>
  %reduce_mean_keepdims_r = call @reduce_mean_keepdims(%reduce_mean_keepdims_x) : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  %reduce_mean_keepdims_r_q = call @scale_round_2x1x1(%reduce_mean_keepdims_r) : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %reduce_mean_keepdims_r_q_u = tensor.cast %reduce_mean_keepdims_r_q : tensor<2x1x1xf32> to tensor<*xf32>
  call @printMemrefF32(%reduce_mean_keepdims_r_q_u) : (tensor<*xf32>) -> ()
  %reduce_mean_axis0_x = arith.constant dense<[[[-1.0, 6.0, 4.0, -1.0], [2.0, 9.0, 2.0, -1.0], [-2.0, -7.0, 8.0, 2.0]], [[6.0, -4.0, -2.0, -6.0], [-3.0, -5.0, 1.0, 2.0], [-2.0, -3.0, 1.0, -8.0]]]> : tensor<2x3x4xf32>
  %reduce_mean_axis0_r = call @reduce_mean_axis0(%reduce_mean_axis0_x) : (tensor<2x3x4xf32>) -> tensor<3x4xf32>
  %reduce_mean_axis0_r_u = tensor.cast %reduce_mean_axis0_r : tensor<3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%reduce_mean_axis0_r_u) : (tensor<*xf32>) -> ()
  %reduce_mean_dynamic_x = arith.constant dense<[[[-1.0, 6.0, 4.0, -1.0], [2.0, 9.0, 2.0, -1.0], [-2.0, -7.0, 8.0, 2.0]], [[6.0, -4.0, -2.0, -6.0], [-3.0, -5.0, 1.0, 2.0], [-2.0, -3.0, 1.0, -8.0]]]> : tensor<2x3x4xf32>
  %reduce_mean_dynamic_x_d = tensor.cast %reduce_mean_dynamic_x : tensor<2x3x4xf32> to tensor<?x3x?xf32>
  %reduce_mean_dynamic_r = call @reduce_mean_dynamic(%reduce_mean_dynamic_x_d) : (tensor<?x3x?xf32>) -> tensor<?x3xf32>
  %reduce_mean_dynamic_r_s = tensor.cast %reduce_mean_dynamic_r : tensor<?x3xf32> to tensor<2x3xf32>
  %reduce_mean_dynamic_r_s_q = call @scale_round_2x3(%reduce_mean_dynamic_r_s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %reduce_mean_dynamic_r_s_q_u = tensor.cast %reduce_mean_dynamic_r_s_q : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%reduce_mean_dynamic_r_s_q_u) : (tensor<*xf32>) -> ()
  %reduce_sum_all_x = arith.constant dense<[[[-1.0, 6.0, 4.0, -1.0], [2.0, 9.0, 2.0, -1.0], [-2.0, -7.0, 8.0, 2.0]], [[6.0, -4.0, -2.0, -6.0], [-3.0, -5.0, 1.0, 2.0], [-2.0, -3.0, 1.0, -8.0]]]> : tensor<2x3x4xf32>
  %reduce_sum_all_r = call @reduce_sum_all(%reduce_sum_all_x) : (tensor<2x3x4xf32>) -> tensor<f32>
  %reduce_sum_all_r_u = tensor.cast %reduce_sum_all_r : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%reduce_sum_all_r_u) : (tensor<*xf32>) -> ()
  %reduce_max_x = arith.constant dense<[[[-1.0, 6.0, 4.0, -1.0], [2.0, 9.0, 2.0, -1.0], [-2.0, -7.0, 8.0, 2.0]], [[6.0, -4.0, -2.0, -6.0], [-3.0, -5.0, 1.0, 2.0], [-2.0, -3.0, 1.0, -8.0]]]> : tensor<2x3x4xf32>
  %reduce_max_r = call @reduce_max(%reduce_max_x) : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %reduce_max_r_u = tensor.cast %reduce_max_r : tensor<2x1x4xf32> to tensor<*xf32>
  call @printMemrefF32(%reduce_max_r_u) : (tensor<*xf32>) -> ()
  %reduce_min_x = arith.constant dense<[[[-1.0, 6.0, 4.0, -1.0], [2.0, 9.0, 2.0, -1.0], [-2.0, -7.0, 8.0, 2.0]], [[6.0, -4.0, -2.0, -6.0], [-3.0, -5.0, 1.0, 2.0], [-2.0, -3.0, 1.0, -8.0]]]> : tensor<2x3x4xf32>
  %reduce_min_r = call @reduce_min(%reduce_min_x) : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  %reduce_min_r_u = tensor.cast %reduce_min_r : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%reduce_min_r_u) : (tensor<*xf32>) -> ()
  %reduce_prod_y = arith.constant dense<[[0.0, 2.0, 1.0, -2.0], [2.0, 1.0, -1.0, 0.0], [-2.0, 2.0, 2.0, 0.0]]> : tensor<3x4xf32>
  %reduce_prod_r = call @reduce_prod(%reduce_prod_y) : (tensor<3x4xf32>) -> tensor<3xf32>
  %reduce_prod_r_u = tensor.cast %reduce_prod_r : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%reduce_prod_r_u) : (tensor<*xf32>) -> ()
  %reduce_l1_x = arith.constant dense<[[[-1.0, 6.0, 4.0, -1.0], [2.0, 9.0, 2.0, -1.0], [-2.0, -7.0, 8.0, 2.0]], [[6.0, -4.0, -2.0, -6.0], [-3.0, -5.0, 1.0, 2.0], [-2.0, -3.0, 1.0, -8.0]]]> : tensor<2x3x4xf32>
  %reduce_l1_r = call @reduce_l1(%reduce_l1_x) : (tensor<2x3x4xf32>) -> tensor<3x4xf32>
  %reduce_l1_r_u = tensor.cast %reduce_l1_r : tensor<3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%reduce_l1_r_u) : (tensor<*xf32>) -> ()
  %reduce_l2_x = arith.constant dense<[[[-1.0, 6.0, 4.0, -1.0], [2.0, 9.0, 2.0, -1.0], [-2.0, -7.0, 8.0, 2.0]], [[6.0, -4.0, -2.0, -6.0], [-3.0, -5.0, 1.0, 2.0], [-2.0, -3.0, 1.0, -8.0]]]> : tensor<2x3x4xf32>
  %reduce_l2_r = call @reduce_l2(%reduce_l2_x) : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  %reduce_l2_r_q = call @scale_round_2x3(%reduce_l2_r) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %reduce_l2_r_q_u = tensor.cast %reduce_l2_r_q : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%reduce_l2_r_q_u) : (tensor<*xf32>) -> ()
  %reduce_sum_square_x = arith.constant dense<[[[-1.0, 6.0, 4.0, -1.0], [2.0, 9.0, 2.0, -1.0], [-2.0, -7.0, 8.0, 2.0]], [[6.0, -4.0, -2.0, -6.0], [-3.0, -5.0, 1.0, 2.0], [-2.0, -3.0, 1.0, -8.0]]]> : tensor<2x3x4xf32>
  %reduce_sum_square_r = call @reduce_sum_square(%reduce_sum_square_x) : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  %reduce_sum_square_r_u = tensor.cast %reduce_sum_square_r : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%reduce_sum_square_r_u) : (tensor<*xf32>) -> ()
  %reduce_log_sum_z = arith.constant dense<[[[2.0, 7.0, 5.0, 2.0], [3.0, 10.0, 3.0, 2.0], [3.0, 8.0, 9.0, 3.0]], [[7.0, 5.0, 3.0, 7.0], [4.0, 6.0, 2.0, 3.0], [3.0, 4.0, 2.0, 9.0]]]> : tensor<2x3x4xf32>
  %reduce_log_sum_r = call @reduce_log_sum(%reduce_log_sum_z) : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %reduce_log_sum_r_q = call @scale_round_2x4(%reduce_log_sum_r) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %reduce_log_sum_r_q_u = tensor.cast %reduce_log_sum_r_q : tensor<2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%reduce_log_sum_r_q_u) : (tensor<*xf32>) -> ()
  %reduce_log_sum_exp_w = arith.constant dense<[[[99.0, 106.0, 104.0, 99.0], [102.0, 109.0, 102.0, 99.0], [98.0, 93.0, 108.0, 102.0]], [[106.0, 96.0, 98.0, 94.0], [97.0, 95.0, 101.0, 102.0], [98.0, 97.0, 101.0, 92.0]]]> : tensor<2x3x4xf32>
  %reduce_log_sum_exp_r = call @reduce_log_sum_exp(%reduce_log_sum_exp_w) : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  %reduce_log_sum_exp_r_q = call @scale_round_2x3(%reduce_log_sum_exp_r) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %reduce_log_sum_exp_r_q_u = tensor.cast %reduce_log_sum_exp_r_q : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%reduce_log_sum_exp_r_q_u) : (tensor<*xf32>) -> ()
  %arg_max_first_t = arith.constant dense<[[3.0, 1.0, 3.0, -2.0], [0.0, 0.0, -1.0, 5.0], [-4.0, 7.0, 7.0, 7.0]]> : tensor<3x4xf32>
  %arg_max_first_r = call @arg_max_first(%arg_max_first_t) : (tensor<3x4xf32>) -> tensor<3xi64>
  %arg_max_first_r_u = tensor.cast %arg_max_first_r : tensor<3xi64> to tensor<*xi64>
  call @printMemrefI64(%arg_max_first_r_u) : (tensor<*xi64>) -> ()
  %arg_max_last_t = arith.constant dense<[[3.0, 1.0, 3.0, -2.0], [0.0, 0.0, -1.0, 5.0], [-4.0, 7.0, 7.0, 7.0]]> : tensor<3x4xf32>
  %arg_max_last_r = call @arg_max_last(%arg_max_last_t) : (tensor<3x4xf32>) -> tensor<3x1xi64>
  %arg_max_last_r_u = tensor.cast %arg_max_last_r : tensor<3x1xi64> to tensor<*xi64>
  call @printMemrefI64(%arg_max_last_r_u) : (tensor<*xi64>) -> ()
  %arg_min_t = arith.constant dense<[[3.0, 1.0, 3.0, -2.0], [0.0, 0.0, -1.0, 5.0], [-4.0, 7.0, 7.0, 7.0]]> : tensor<3x4xf32>
  %arg_min_r = call @arg_min(%arg_min_t) : (tensor<3x4xf32>) -> tensor<4xi64>
  %arg_min_r_u = tensor.cast %arg_min_r : tensor<4xi64> to tensor<*xi64>
  call @printMemrefI64(%arg_min_r_u) : (tensor<*xi64>) -> ()
  %cumsum_c = arith.constant dense<[[-1.0, 5.0, -4.0, 2.0, 3.0], [-3.0, 5.0, 4.0, 3.0, 2.0]]> : tensor<2x5xf32>
  %cumsum_r = call @cumsum(%cumsum_c) : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %cumsum_r_u = tensor.cast %cumsum_r : tensor<2x5xf32> to tensor<*xf32>
  call @printMemrefF32(%cumsum_r_u) : (tensor<*xf32>) -> ()
  %cumsum_reverse_exclusive_c = arith.constant dense<[[-1.0, 5.0, -4.0, 2.0, 3.0], [-3.0, 5.0, 4.0, 3.0, 2.0]]> : tensor<2x5xf32>
  %cumsum_reverse_exclusive_r = call @cumsum_reverse_exclusive(%cumsum_reverse_exclusive_c) : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %cumsum_reverse_exclusive_r_u = tensor.cast %cumsum_reverse_exclusive_r : tensor<2x5xf32> to tensor<*xf32>
  call @printMemrefF32(%cumsum_reverse_exclusive_r_u) : (tensor<*xf32>) -> ()
  %topk_values_k = arith.constant dense<[[4.0, 9.0, 1.0, 9.0, -3.0, 4.0], [0.5, -1.0, 2.0, 2.0, 8.0, -6.0]]> : tensor<2x6xf32>
  %topk_values_r = call @topk_values(%topk_values_k) : (tensor<2x6xf32>) -> tensor<2x3xf32>
  %topk_values_r_u = tensor.cast %topk_values_r : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%topk_values_r_u) : (tensor<*xf32>) -> ()
  %topk_indices_k = arith.constant dense<[[4.0, 9.0, 1.0, 9.0, -3.0, 4.0], [0.5, -1.0, 2.0, 2.0, 8.0, -6.0]]> : tensor<2x6xf32>
  %topk_indices_r = call @topk_indices(%topk_indices_k) : (tensor<2x6xf32>) -> tensor<2x3xi64>
  %topk_indices_r_u = tensor.cast %topk_indices_r : tensor<2x3xi64> to tensor<*xi64>
  call @printMemrefI64(%topk_indices_r_u) : (tensor<*xi64>) -> ()
  %topk_smallest_indices_k = arith.constant dense<[[4.0, 9.0, 1.0, 9.0, -3.0, 4.0], [0.5, -1.0, 2.0, 2.0, 8.0, -6.0]]> : tensor<2x6xf32>
  %topk_smallest_indices_r = call @topk_smallest_indices(%topk_smallest_indices_k) : (tensor<2x6xf32>) -> tensor<1x6xi64>
  %topk_smallest_indices_r_u = tensor.cast %topk_smallest_indices_r : tensor<1x6xi64> to tensor<*xi64>
  call @printMemrefI64(%topk_smallest_indices_r_u) : (tensor<*xi64>) -> ()
  return
}

// @reduce_mean_keepdims: axes [1, 2], keepdims (x 1e3, rounded)
// CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 1, 1] strides = {{.*}} data =
// CHECK-NEXT: [1750]
// CHECK-NEXT: [-1917]
// @reduce_mean_axis0: axis 0, dims dropped (halves are exact)
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [3, 4] strides = {{.*}} data =
// CHECK-NEXT: [2.5, 1, 1, -3.5]
// CHECK-NEXT: [-0.5, 2, 1.5, 0.5]
// CHECK-NEXT: [-2, -5, 4.5, -3]
// @reduce_mean_dynamic: dynamic reduced dim: the count comes from tensor.dim (x 1e3, rounded)
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 3] strides = {{.*}} data =
// CHECK-NEXT: [2000, 3000, 250]
// CHECK-NEXT: [-1500, -1250, -3000]
// @reduce_sum_all
// CHECK: rank = 0 offset = {{[0-9]+}} sizes = [] strides = {{.*}} data =
// CHECK-NEXT: [-2]
// @reduce_max
// CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 1, 4] strides = {{.*}} data =
// CHECK-NEXT: [2, 9, 8, 2]
// CHECK-NEXT: [6, -3, 1, 2]
// @reduce_min
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 3] strides = {{.*}} data =
// CHECK-NEXT: [-1, -1, -7]
// CHECK-NEXT: [-6, -5, -8]
// @reduce_prod
// CHECK: rank = 1 offset = {{[0-9]+}} sizes = [3] strides = {{.*}} data =
// CHECK-NEXT: [-0, -0, -0]
// @reduce_l1
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [3, 4] strides = {{.*}} data =
// CHECK-NEXT: [7, 10, 6, 7]
// CHECK-NEXT: [5, 14, 3, 3]
// CHECK-NEXT: [4, 10, 9, 10]
// @reduce_l2 (x 1e3, rounded)
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 3] strides = {{.*}} data =
// CHECK-NEXT: [7348, 9487, 11000]
// CHECK-NEXT: [9592, 6245, 8832]
// @reduce_sum_square
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 3] strides = {{.*}} data =
// CHECK-NEXT: [54, 90, 121]
// CHECK-NEXT: [92, 39, 78]
// @reduce_log_sum (x 1e3, rounded)
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 4] strides = {{.*}} data =
// CHECK-NEXT: [2079, 3219, 2833, 1946]
// CHECK-NEXT: [2639, 2708, 1946, 2944]
// @reduce_log_sum_exp: inputs near 100 (exp overflows f32 without the max); prints lse - 100 (x 1e3, rounded)
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 3] strides = {{.*}} data =
// CHECK-NEXT: [6129, 9002, 8003]
// CHECK-NEXT: [6000, 2319, 1066]
// @arg_max_first: ties: first index
// CHECK: rank = 1 offset = {{[0-9]+}} sizes = [3] strides = {{.*}} data =
// CHECK-NEXT: [0, 3, 1]
// @arg_max_last: ties: last index, keepdims
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [3, 1] strides = {{.*}} data =
// CHECK-NEXT: [2]
// CHECK-NEXT: [3]
// CHECK-NEXT: [3]
// @arg_min
// CHECK: rank = 1 offset = {{[0-9]+}} sizes = [4] strides = {{.*}} data =
// CHECK-NEXT: [2, 1, 1, 0]
// @cumsum
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 5] strides = {{.*}} data =
// CHECK-NEXT: [-1, 4, 0, 2, 5]
// CHECK-NEXT: [-3, 2, 6, 9, 11]
// @cumsum_reverse_exclusive
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 5] strides = {{.*}} data =
// CHECK-NEXT: [6, 1, 5, 3, 0]
// CHECK-NEXT: [14, 9, 5, 2, 0]
// @topk_values: largest 3, sorted, ties by lower index
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 3] strides = {{.*}} data =
// CHECK-NEXT: [9, 9, 4]
// CHECK-NEXT: [8, 2, 2]
// @topk_indices
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 3] strides = {{.*}} data =
// CHECK-NEXT: [1, 3, 0]
// CHECK-NEXT: [4, 2, 3]
// @topk_smallest_indices: smallest along axis 0
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [1, 6] strides = {{.*}} data =
// CHECK-NEXT: [1, 1, 0, 1, 0, 1]
