// RUN: kiln-opt %s -kiln-convert-graph-to-linalg \
// RUN:   -one-shot-bufferize="bufferize-function-boundaries" \
// RUN:   -convert-linalg-to-loops -convert-scf-to-cf -expand-strided-metadata \
// RUN:   -lower-affine -finalize-memref-to-llvm -convert-math-to-funcs \
// RUN:   -convert-math-to-llvm -convert-math-to-libm -convert-to-llvm \
// RUN:   -reconcile-unrealized-casts \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | FileCheck %s


// Tests that elementwise kiln ops lowered by kiln-convert-graph-to-linalg
// compute numpy's results: broadcasting (static, dynamic, rank-0), float
// activations, round half to even, integer semantics (python-style and C
// mod, truncating division, integer pow), unsigned ui8 arithmetic, compare +
// where, and float-to-int casts.
//
// Expected values: numpy (float64 or int64) on the same inputs (small
// integers from numpy RandomState(2) or listed values). Results of
// arithmetic on small integers, clip, round, sign, integer ops and casts are
// exact. Transcendental activations are printed as round(y * 1e3): f32 libm
// results are within a few ulps (~1e-6 relative, values below 100), far below
// the 1e-3 quantum, and the generator checked that no expected value lies
// within 0.02 quanta of a rounding boundary.

func.func @broadcast_add(%a: tensor<2x1x3xf32>, %b: tensor<4x1xf32>) -> tensor<2x4x3xf32> {
  %r = kiln.add %a, %b : (tensor<2x1x3xf32>, tensor<4x1xf32>) -> tensor<2x4x3xf32>
  return %r : tensor<2x4x3xf32>
}

func.func @broadcast_dynamic(%a: tensor<?x3xf32>, %b: tensor<1x3xf32>) -> tensor<?x3xf32> {
  %r = kiln.sub %a, %b : (tensor<?x3xf32>, tensor<1x3xf32>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

func.func @scalar_mul(%a: tensor<?x?xf32>, %s: tensor<f32>) -> tensor<?x?xf32> {
  %r = kiln.mul %a, %s : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @sigmoid(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = kiln.sigmoid %x : tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @gelu(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = kiln.gelu %x : tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @gelu_tanh(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = kiln.gelu %x {approximate = #kiln.gelu_approximation<tanh>} : tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @hard_swish(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = kiln.hard_swish %x : tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @softplus(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = kiln.softplus %x : tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @mish(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = kiln.mish %x : tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @elu(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = kiln.elu %x {alpha = 5.000000e-01 : f32} : tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @leaky_relu(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = kiln.leaky_relu %x {alpha = 1.000000e-01 : f32} : tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @clip(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = kiln.clip %x {max = 2.500000e+00 : f64, min = -1.000000e+00 : f64} : tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @round_half_even(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = kiln.round %x : tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @sign(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = kiln.sign %x : tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @mod_python(%a: tensor<6xi64>, %b: tensor<6xi64>) -> tensor<6xi64> {
  %r = kiln.mod %a, %b : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi64>
  return %r : tensor<6xi64>
}

func.func @mod_fmod(%a: tensor<6xi64>, %b: tensor<6xi64>) -> tensor<6xi64> {
  %r = kiln.mod %a, %b {fmod = true} : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi64>
  return %r : tensor<6xi64>
}

func.func @div_trunc(%a: tensor<6xi64>, %b: tensor<6xi64>) -> tensor<6xi64> {
  %r = kiln.div %a, %b : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi64>
  return %r : tensor<6xi64>
}

func.func @pow_int(%a: tensor<6xi64>, %b: tensor<6xi64>) -> tensor<6xi64> {
  %r = kiln.pow %a, %b : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi64>
  return %r : tensor<6xi64>
}

func.func @unsigned_div_max() -> tensor<4xf32> {
  %a = kiln.constant dense<[200, 250, 7, 129]> : tensor<4xui8>
  %b = kiln.constant dense<[3, 7, 250, 2]> : tensor<4xui8>
  %q = kiln.div %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %m = kiln.max %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %s = kiln.add %q, %m : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %r = kiln.cast %s : tensor<4xui8> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @where_less(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<2x3xf32> {
  %c = kiln.less %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %r = kiln.where %c, %x, %y : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

func.func @cast_to_int(%x: tensor<6xf32>) -> tensor<6xi64> {
  %r = kiln.cast %x : tensor<6xf32> -> tensor<6xi64>
  return %r : tensor<6xi64>
}

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI64(tensor<*xi64>)

// Prints round(x * 1e3): see the tolerance note above.
func.func @scale_round_8(%t: tensor<8xf32>) -> tensor<8xf32> {
  %c = kiln.constant dense<1.0e3> : tensor<f32>
  %m = kiln.mul %t, %c : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %r = kiln.round %m : tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @main() {
  %broadcast_add_a = arith.constant dense<[[[3.0, 3.0, 1.0]], [[-3.0, 3.0, 2.0]]]> : tensor<2x1x3xf32>
  %broadcast_add_b = arith.constant dense<[[-3.0], [-4.0], [0.0], [5.0]]> : tensor<4x1xf32>
  %broadcast_add_r = call @broadcast_add(%broadcast_add_a, %broadcast_add_b) : (tensor<2x1x3xf32>, tensor<4x1xf32>) -> tensor<2x4x3xf32>
  %broadcast_add_r_u = tensor.cast %broadcast_add_r : tensor<2x4x3xf32> to tensor<*xf32>
  call @printMemrefF32(%broadcast_add_r_u) : (tensor<*xf32>) -> ()
  %broadcast_dynamic_a = arith.constant dense<[[-1.0, -1.0, 0.0], [2.0, -2.0, 1.0], [-1.0, 5.0, -2.0]]> : tensor<3x3xf32>
  %broadcast_dynamic_a_d = tensor.cast %broadcast_dynamic_a : tensor<3x3xf32> to tensor<?x3xf32>
  %broadcast_dynamic_b = arith.constant dense<[[2.0, 1.0, 5.0]]> : tensor<1x3xf32>
  %broadcast_dynamic_r = call @broadcast_dynamic(%broadcast_dynamic_a_d, %broadcast_dynamic_b) : (tensor<?x3xf32>, tensor<1x3xf32>) -> tensor<?x3xf32>
  %broadcast_dynamic_r_s = tensor.cast %broadcast_dynamic_r : tensor<?x3xf32> to tensor<3x3xf32>
  %broadcast_dynamic_r_s_u = tensor.cast %broadcast_dynamic_r_s : tensor<3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%broadcast_dynamic_r_s_u) : (tensor<*xf32>) -> ()
  %scalar_mul_a = arith.constant dense<[[-4.0, 5.0, -2.0], [0.0, 3.0, -1.0]]> : tensor<2x3xf32>
  %scalar_mul_a_d = tensor.cast %scalar_mul_a : tensor<2x3xf32> to tensor<?x?xf32>
  %scalar_mul_s = arith.constant dense<0.5> : tensor<f32>
  %scalar_mul_r = call @scalar_mul(%scalar_mul_a_d, %scalar_mul_s) : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %scalar_mul_r_s = tensor.cast %scalar_mul_r : tensor<?x?xf32> to tensor<2x3xf32>
  %scalar_mul_r_s_u = tensor.cast %scalar_mul_r_s : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%scalar_mul_r_s_u) : (tensor<*xf32>) -> ()
  %sigmoid_x = arith.constant dense<[-3.5, -2.5, -1.0, 0.0, 0.75, 3.75, 3.75, 100.0]> : tensor<8xf32>
  %sigmoid_r = call @sigmoid(%sigmoid_x) : (tensor<8xf32>) -> tensor<8xf32>
  %sigmoid_r_q = call @scale_round_8(%sigmoid_r) : (tensor<8xf32>) -> tensor<8xf32>
  %sigmoid_r_q_u = tensor.cast %sigmoid_r_q : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%sigmoid_r_q_u) : (tensor<*xf32>) -> ()
  %gelu_x = arith.constant dense<[-3.5, -2.5, -1.0, 0.0, 0.75, 3.75, 3.75, 100.0]> : tensor<8xf32>
  %gelu_r = call @gelu(%gelu_x) : (tensor<8xf32>) -> tensor<8xf32>
  %gelu_r_q = call @scale_round_8(%gelu_r) : (tensor<8xf32>) -> tensor<8xf32>
  %gelu_r_q_u = tensor.cast %gelu_r_q : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%gelu_r_q_u) : (tensor<*xf32>) -> ()
  %gelu_tanh_x = arith.constant dense<[-3.5, -2.5, -1.0, 0.0, 0.75, 3.75, 3.75, 100.0]> : tensor<8xf32>
  %gelu_tanh_r = call @gelu_tanh(%gelu_tanh_x) : (tensor<8xf32>) -> tensor<8xf32>
  %gelu_tanh_r_q = call @scale_round_8(%gelu_tanh_r) : (tensor<8xf32>) -> tensor<8xf32>
  %gelu_tanh_r_q_u = tensor.cast %gelu_tanh_r_q : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%gelu_tanh_r_q_u) : (tensor<*xf32>) -> ()
  %hard_swish_x = arith.constant dense<[-3.5, -2.5, -1.0, 0.0, 0.75, 3.75, 3.75, 100.0]> : tensor<8xf32>
  %hard_swish_r = call @hard_swish(%hard_swish_x) : (tensor<8xf32>) -> tensor<8xf32>
  %hard_swish_r_q = call @scale_round_8(%hard_swish_r) : (tensor<8xf32>) -> tensor<8xf32>
  %hard_swish_r_q_u = tensor.cast %hard_swish_r_q : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%hard_swish_r_q_u) : (tensor<*xf32>) -> ()
  %softplus_x = arith.constant dense<[-3.5, -2.5, -1.0, 0.0, 0.75, 3.75, 3.75, 100.0]> : tensor<8xf32>
  %softplus_r = call @softplus(%softplus_x) : (tensor<8xf32>) -> tensor<8xf32>
  %softplus_r_q = call @scale_round_8(%softplus_r) : (tensor<8xf32>) -> tensor<8xf32>
  %softplus_r_q_u = tensor.cast %softplus_r_q : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%softplus_r_q_u) : (tensor<*xf32>) -> ()
  %mish_x = arith.constant dense<[-3.5, -2.5, -1.0, 0.0, 0.75, 3.75, 3.75, 100.0]> : tensor<8xf32>
  %mish_r = call @mish(%mish_x) : (tensor<8xf32>) -> tensor<8xf32>
  %mish_r_q = call @scale_round_8(%mish_r) : (tensor<8xf32>) -> tensor<8xf32>
  %mish_r_q_u = tensor.cast %mish_r_q : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%mish_r_q_u) : (tensor<*xf32>) -> ()
  %elu_x = arith.constant dense<[-3.5, -2.5, -1.0, 0.0, 0.75, 3.75, 3.75, 100.0]> : tensor<8xf32>
  %elu_r = call @elu(%elu_x) : (tensor<8xf32>) -> tensor<8xf32>
  %elu_r_q = call @scale_round_8(%elu_r) : (tensor<8xf32>) -> tensor<8xf32>
  %elu_r_q_u = tensor.cast %elu_r_q : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%elu_r_q_u) : (tensor<*xf32>) -> ()
  %leaky_relu_x = arith.constant dense<[-3.5, -2.5, -1.0, 0.0, 0.75, 3.75, 3.75, 100.0]> : tensor<8xf32>
  %leaky_relu_r = call @leaky_relu(%leaky_relu_x) : (tensor<8xf32>) -> tensor<8xf32>
  %leaky_relu_r_q = call @scale_round_8(%leaky_relu_r) : (tensor<8xf32>) -> tensor<8xf32>
  %leaky_relu_r_q_u = tensor.cast %leaky_relu_r_q : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%leaky_relu_r_q_u) : (tensor<*xf32>) -> ()
  %clip_x = arith.constant dense<[-3.5, -2.5, -1.0, 0.0, 0.75, 3.75, 3.75, 100.0]> : tensor<8xf32>
  %clip_r = call @clip(%clip_x) : (tensor<8xf32>) -> tensor<8xf32>
  %clip_r_u = tensor.cast %clip_r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%clip_r_u) : (tensor<*xf32>) -> ()
  %round_half_even_x = arith.constant dense<[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.6, -2.4]> : tensor<8xf32>
  %round_half_even_r = call @round_half_even(%round_half_even_x) : (tensor<8xf32>) -> tensor<8xf32>
  %round_half_even_r_u = tensor.cast %round_half_even_r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%round_half_even_r_u) : (tensor<*xf32>) -> ()
  %sign_x = arith.constant dense<[-3.5, -2.5, -1.0, 0.0, 0.75, 3.75, 3.75, 100.0]> : tensor<8xf32>
  %sign_r = call @sign(%sign_x) : (tensor<8xf32>) -> tensor<8xf32>
  %sign_r_u = tensor.cast %sign_r : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%sign_r_u) : (tensor<*xf32>) -> ()
  %mod_python_a = arith.constant dense<[7, -7, 7, -7, 9, -1]> : tensor<6xi64>
  %mod_python_b = arith.constant dense<[3, 3, -3, -3, 4, 5]> : tensor<6xi64>
  %mod_python_r = call @mod_python(%mod_python_a, %mod_python_b) : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi64>
  %mod_python_r_u = tensor.cast %mod_python_r : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%mod_python_r_u) : (tensor<*xi64>) -> ()
  %mod_fmod_a = arith.constant dense<[7, -7, 7, -7, 9, -1]> : tensor<6xi64>
  %mod_fmod_b = arith.constant dense<[3, 3, -3, -3, 4, 5]> : tensor<6xi64>
  %mod_fmod_r = call @mod_fmod(%mod_fmod_a, %mod_fmod_b) : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi64>
  %mod_fmod_r_u = tensor.cast %mod_fmod_r : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%mod_fmod_r_u) : (tensor<*xi64>) -> ()
  %div_trunc_a = arith.constant dense<[7, -7, 7, -7, 9, -1]> : tensor<6xi64>
  %div_trunc_b = arith.constant dense<[3, 3, -3, -3, 4, 5]> : tensor<6xi64>
  %div_trunc_r = call @div_trunc(%div_trunc_a, %div_trunc_b) : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi64>
  %div_trunc_r_u = tensor.cast %div_trunc_r : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%div_trunc_r_u) : (tensor<*xi64>) -> ()
  %pow_int_a = arith.constant dense<[2, -3, 5, 1, 0, 7]> : tensor<6xi64>
  %pow_int_b = arith.constant dense<[10, 3, 0, 7, 2, 2]> : tensor<6xi64>
  %pow_int_r = call @pow_int(%pow_int_a, %pow_int_b) : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi64>
  %pow_int_r_u = tensor.cast %pow_int_r : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%pow_int_r_u) : (tensor<*xi64>) -> ()
  %unsigned_div_max_r = call @unsigned_div_max() : () -> tensor<4xf32>
  %unsigned_div_max_r_u = tensor.cast %unsigned_div_max_r : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%unsigned_div_max_r_u) : (tensor<*xf32>) -> ()
  %where_less_x = arith.constant dense<[[-3.0, -1.0, 5.0], [-4.0, 2.0, 3.0]]> : tensor<2x3xf32>
  %where_less_y = arith.constant dense<[-3.0, 5.0, 4.0]> : tensor<3xf32>
  %where_less_r = call @where_less(%where_less_x, %where_less_y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %where_less_r_u = tensor.cast %where_less_r : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%where_less_r_u) : (tensor<*xf32>) -> ()
  %cast_to_int_x = arith.constant dense<[-2.75, -0.5, 0.5, 2.99, 1000.0, -7.0]> : tensor<6xf32>
  %cast_to_int_r = call @cast_to_int(%cast_to_int_x) : (tensor<6xf32>) -> tensor<6xi64>
  %cast_to_int_r_u = tensor.cast %cast_to_int_r : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%cast_to_int_r_u) : (tensor<*xi64>) -> ()
  return
}

// @broadcast_add: [2,1,3] + [4,1] -> [2,4,3]
// CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 4, 3] strides = {{.*}} data =
// CHECK-NEXT: [0, 0, -2]
// CHECK-NEXT: [-1, -1, -3]
// CHECK-NEXT: [3, 3, 1]
// CHECK-NEXT: [8, 8, 6]
// CHECK-NEXT: [-6, 0, -1]
// CHECK-NEXT: [-7, -1, -2]
// CHECK-NEXT: [-3, 3, 2]
// CHECK-NEXT: [2, 8, 7]
// @broadcast_dynamic: dynamic rows minus a broadcast row
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [3, 3] strides = {{.*}} data =
// CHECK-NEXT: [-3, -2, -5]
// CHECK-NEXT: [0, -3, -4]
// CHECK-NEXT: [-3, 4, -7]
// @scalar_mul: dynamic by rank-0
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 3] strides = {{.*}} data =
// CHECK-NEXT: [-2, 2.5, -1]
// CHECK-NEXT: [0, 1.5, -0.5]
// @sigmoid (x 1e3, rounded)
// CHECK: rank = 1 offset = {{[0-9]+}} sizes = [8] strides = {{.*}} data =
// CHECK-NEXT: [29, 76, 269, 500, 679, 977, 977, 1000]
// @gelu: exact (erf) (x 1e3, rounded)
// CHECK: rank = 1 offset = {{[0-9]+}} sizes = [8] strides = {{.*}} data =
// CHECK-NEXT: [-1, -16, -159, 0, 580, 3750, 3750, 100000]
// @gelu_tanh (x 1e3, rounded)
// CHECK: rank = 1 offset = {{[0-9]+}} sizes = [8] strides = {{.*}} data =
// CHECK-NEXT: [-1, -15, -159, 0, 580, 3750, 3750, 100000]
// @hard_swish (x 1e3, rounded)
// CHECK: rank = 1 offset = {{[0-9]+}} sizes = [8] strides = {{.*}} data =
// CHECK-NEXT: [-0, -208, -333, 0, 469, 3750, 3750, 100000]
// @softplus: 100 stays 100 (no overflow) (x 1e3, rounded)
// CHECK: rank = 1 offset = {{[0-9]+}} sizes = [8] strides = {{.*}} data =
// CHECK-NEXT: [30, 79, 313, 693, 1137, 3773, 3773, 100000]
// @mish (x 1e3, rounded)
// CHECK: rank = 1 offset = {{[0-9]+}} sizes = [8] strides = {{.*}} data =
// CHECK-NEXT: [-104, -197, -303, 0, 610, 3746, 3746, 100000]
// @elu (x 1e3, rounded)
// CHECK: rank = 1 offset = {{[0-9]+}} sizes = [8] strides = {{.*}} data =
// CHECK-NEXT: [-485, -459, -316, 0, 750, 3750, 3750, 100000]
// @leaky_relu (x 1e3, rounded)
// CHECK: rank = 1 offset = {{[0-9]+}} sizes = [8] strides = {{.*}} data =
// CHECK-NEXT: [-350, -250, -100, 0, 750, 3750, 3750, 100000]
// @clip
// CHECK: rank = 1 offset = {{[0-9]+}} sizes = [8] strides = {{.*}} data =
// CHECK-NEXT: [-1, -1, -1, 0, 0.75, 2.5, 2.5, 2.5]
// @round_half_even: halves to even
// CHECK: rank = 1 offset = {{[0-9]+}} sizes = [8] strides = {{.*}} data =
// CHECK-NEXT: [-2, -2, -0, 0, 2, 2, 3, -2]
// @sign
// CHECK: rank = 1 offset = {{[0-9]+}} sizes = [8] strides = {{.*}} data =
// CHECK-NEXT: [-1, -1, -1, 0, 1, 1, 1, 1]
// @mod_python: result takes the divisor's sign
// CHECK: rank = 1 offset = {{[0-9]+}} sizes = [6] strides = {{.*}} data =
// CHECK-NEXT: [1, 2, -2, -1, 1, 4]
// @mod_fmod: result takes the dividend's sign
// CHECK: rank = 1 offset = {{[0-9]+}} sizes = [6] strides = {{.*}} data =
// CHECK-NEXT: [1, -1, 1, -1, 1, -1]
// @div_trunc: integer division truncates
// CHECK: rank = 1 offset = {{[0-9]+}} sizes = [6] strides = {{.*}} data =
// CHECK-NEXT: [2, -2, -2, 2, 2, 0]
// @pow_int: math.ipowi
// CHECK: rank = 1 offset = {{[0-9]+}} sizes = [6] strides = {{.*}} data =
// CHECK-NEXT: [1024, -27, 1, 1, 0, 49]
// @unsigned_div_max: ui8 div/max read unsigned, cast via uitofp
// CHECK: rank = 1 offset = {{[0-9]+}} sizes = [4] strides = {{.*}} data =
// CHECK-NEXT: [10, 29, 250, 193]
// @where_less: min via less + where
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 3] strides = {{.*}} data =
// CHECK-NEXT: [-3, -1, 4]
// CHECK-NEXT: [-4, 2, 3]
// @cast_to_int: truncation toward zero
// CHECK: rank = 1 offset = {{[0-9]+}} sizes = [6] strides = {{.*}} data =
// CHECK-NEXT: [-2, 0, 0, 2, 1000, -7]
