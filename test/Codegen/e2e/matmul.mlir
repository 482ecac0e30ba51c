// RUN: kiln-opt %s -kiln-convert-graph-to-linalg \
// RUN:   -one-shot-bufferize="bufferize-function-boundaries" \
// RUN:   -convert-linalg-to-loops -convert-scf-to-cf -expand-strided-metadata \
// RUN:   -lower-affine -finalize-memref-to-llvm -convert-math-to-funcs \
// RUN:   -convert-math-to-llvm -convert-math-to-libm -convert-to-llvm \
// RUN:   -reconcile-unrealized-casts \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | FileCheck %s


// Tests that kiln.matmul and kiln.gemm lowered by kiln-convert-graph-to-linalg
// compute numpy.matmul / ONNX Gemm: 2-D (linalg.matmul), equal batch
// (linalg.batch_matmul), broadcast batch dims (a generic), a 1-D operand
// (promotion), a dynamic M, and gemm with both transposes, alpha, beta and a
// broadcast C.
//
// Inputs are small integers (numpy RandomState(11)); expected values are
// numpy's matmul of the same arrays. All products and sums are small integers
// (or halves for gemm), exact in f32, so the CHECKs compare exactly.

func.func @matmul_2d(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %r = kiln.matmul %a, %b : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}

func.func @matmul_batch(%a: tensor<2x3x4xf32>, %b: tensor<2x4x2xf32>) -> tensor<2x3x2xf32> {
  %r = kiln.matmul %a, %b : (tensor<2x3x4xf32>, tensor<2x4x2xf32>) -> tensor<2x3x2xf32>
  return %r : tensor<2x3x2xf32>
}

func.func @matmul_broadcast(%a: tensor<2x1x3x4xf32>, %b: tensor<3x4x2xf32>) -> tensor<2x3x3x2xf32> {
  %r = kiln.matmul %a, %b : (tensor<2x1x3x4xf32>, tensor<3x4x2xf32>) -> tensor<2x3x3x2xf32>
  return %r : tensor<2x3x3x2xf32>
}

func.func @matmul_vector(%a: tensor<2x3x4xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  %r = kiln.matmul %a, %b : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

func.func @matmul_dynamic(%a: tensor<?x4xf32>, %b: tensor<4x3xf32>) -> tensor<?x3xf32> {
  %r = kiln.matmul %a, %b : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

func.func @gemm(%a: tensor<4x3xf32>, %b: tensor<5x4xf32>, %c: tensor<5xf32>) -> tensor<3x5xf32> {
  %r = kiln.gemm %a, %b, %c {alpha = 5.000000e-01 : f32, beta = 2.000000e+00 : f32, trans_a = true, trans_b = true} : (tensor<4x3xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI64(tensor<*xi64>)

func.func @main() {
  %matmul_2d_a = arith.constant dense<[[-2.0, -3.0, 0.0, -2.0], [2.0, 1.0, -2.0, -1.0], [-3.0, 2.0, 1.0, -3.0]]> : tensor<3x4xf32>
  %matmul_2d_b = arith.constant dense<[[2.0, -3.0, 2.0, 1.0, 2.0], [1.0, -1.0, 1.0, -2.0, -1.0], [2.0, 2.0, 1.0, -2.0, 0.0], [-3.0, -3.0, -2.0, 0.0, 3.0]]> : tensor<4x5xf32>
  %matmul_2d_r = call @matmul_2d(%matmul_2d_a, %matmul_2d_b) : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %matmul_2d_r_u = tensor.cast %matmul_2d_r : tensor<3x5xf32> to tensor<*xf32>
  call @printMemrefF32(%matmul_2d_r_u) : (tensor<*xf32>) -> ()
  %matmul_batch_a = arith.constant dense<[[[0.0, -1.0, -1.0, -3.0], [2.0, -3.0, 0.0, 3.0], [-2.0, 0.0, -1.0, -2.0]], [[0.0, 1.0, 2.0, 3.0], [-3.0, -3.0, -3.0, 0.0], [-3.0, 2.0, 2.0, -1.0]]]> : tensor<2x3x4xf32>
  %matmul_batch_b = arith.constant dense<[[[0.0, 0.0], [-2.0, -3.0], [0.0, -3.0], [-2.0, 1.0]], [[-3.0, -1.0], [-3.0, 3.0], [0.0, -2.0], [2.0, -1.0]]]> : tensor<2x4x2xf32>
  %matmul_batch_r = call @matmul_batch(%matmul_batch_a, %matmul_batch_b) : (tensor<2x3x4xf32>, tensor<2x4x2xf32>) -> tensor<2x3x2xf32>
  %matmul_batch_r_u = tensor.cast %matmul_batch_r : tensor<2x3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%matmul_batch_r_u) : (tensor<*xf32>) -> ()
  %matmul_broadcast_a = arith.constant dense<[[[[3.0, 0.0, -2.0, 0.0], [-1.0, 2.0, -3.0, -1.0], [3.0, -3.0, 1.0, -3.0]]], [[[-3.0, 1.0, -2.0, -2.0], [-2.0, 1.0, 0.0, -1.0], [-3.0, 0.0, -3.0, 1.0]]]]> : tensor<2x1x3x4xf32>
  %matmul_broadcast_b = arith.constant dense<[[[-1.0, -1.0], [0.0, 2.0], [-3.0, 3.0], [-1.0, 3.0]], [[1.0, 3.0], [1.0, 1.0], [1.0, 2.0], [-2.0, -2.0]], [[1.0, -1.0], [2.0, 3.0], [1.0, -1.0], [-2.0, -2.0]]]> : tensor<3x4x2xf32>
  %matmul_broadcast_r = call @matmul_broadcast(%matmul_broadcast_a, %matmul_broadcast_b) : (tensor<2x1x3x4xf32>, tensor<3x4x2xf32>) -> tensor<2x3x3x2xf32>
  %matmul_broadcast_r_u = tensor.cast %matmul_broadcast_r : tensor<2x3x3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%matmul_broadcast_r_u) : (tensor<*xf32>) -> ()
  %matmul_vector_a = arith.constant dense<[[[3.0, 1.0, -1.0, 3.0], [0.0, 2.0, 0.0, 0.0], [-2.0, 3.0, 1.0, -3.0]], [[-2.0, -1.0, -2.0, 1.0], [-3.0, 2.0, 2.0, 0.0], [2.0, 1.0, -1.0, 2.0]]]> : tensor<2x3x4xf32>
  %matmul_vector_b = arith.constant dense<[2.0, -1.0, -3.0, -2.0]> : tensor<4xf32>
  %matmul_vector_r = call @matmul_vector(%matmul_vector_a, %matmul_vector_b) : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  %matmul_vector_r_u = tensor.cast %matmul_vector_r : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%matmul_vector_r_u) : (tensor<*xf32>) -> ()
  %matmul_dynamic_a = arith.constant dense<[[-3.0, 2.0, 0.0, 1.0], [1.0, -1.0, 3.0, -1.0], [1.0, 1.0, -1.0, 1.0], [-2.0, -2.0, 2.0, 1.0], [-2.0, 0.0, 0.0, 3.0]]> : tensor<5x4xf32>
  %matmul_dynamic_a_d = tensor.cast %matmul_dynamic_a : tensor<5x4xf32> to tensor<?x4xf32>
  %matmul_dynamic_b = arith.constant dense<[[3.0, -1.0, 0.0], [0.0, -1.0, -3.0], [-2.0, 0.0, 3.0], [-1.0, 0.0, -3.0]]> : tensor<4x3xf32>
  %matmul_dynamic_r = call @matmul_dynamic(%matmul_dynamic_a_d, %matmul_dynamic_b) : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  %matmul_dynamic_r_s = tensor.cast %matmul_dynamic_r : tensor<?x3xf32> to tensor<5x3xf32>
  %matmul_dynamic_r_s_u = tensor.cast %matmul_dynamic_r_s : tensor<5x3xf32> to tensor<*xf32>
  call @printMemrefF32(%matmul_dynamic_r_s_u) : (tensor<*xf32>) -> ()
  %gemm_a = arith.constant dense<[[-3.0, 0.0, 0.0], [-1.0, -2.0, 2.0], [-1.0, 1.0, 2.0], [2.0, -1.0, 3.0]]> : tensor<4x3xf32>
  %gemm_b = arith.constant dense<[[0.0, -2.0, -1.0, -1.0], [0.0, -2.0, -2.0, 1.0], [3.0, 0.0, 2.0, 0.0], [3.0, -2.0, -3.0, -2.0], [0.0, -3.0, 3.0, 1.0]]> : tensor<5x4xf32>
  %gemm_c = arith.constant dense<[-1.0, 3.0, -2.0, 3.0, 3.0]> : tensor<5xf32>
  %gemm_r = call @gemm(%gemm_a, %gemm_b, %gemm_c) : (tensor<4x3xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %gemm_r_u = tensor.cast %gemm_r : tensor<3x5xf32> to tensor<*xf32>
  call @printMemrefF32(%gemm_r_u) : (tensor<*xf32>) -> ()
  return
}

// @matmul_2d: linalg.matmul
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [3, 5] strides = {{.*}} data =
// CHECK-NEXT: [-1, 15, -3, 4, -7]
// CHECK-NEXT: [4, -8, 5, 4, 0]
// CHECK-NEXT: [7, 18, 3, -9, -17]
// @matmul_batch: linalg.batch_matmul
// CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 3, 2] strides = {{.*}} data =
// CHECK-NEXT: [8, 3]
// CHECK-NEXT: [0, 12]
// CHECK-NEXT: [4, 1]
// CHECK-NEXT: [3, -4]
// CHECK-NEXT: [18, 0]
// CHECK-NEXT: [1, 6]
// @matmul_broadcast: broadcast batch dims, generic
// CHECK: rank = 4 offset = {{[0-9]+}} sizes = [2, 3, 3, 2] strides = {{.*}} data =
// CHECK-NEXT: [3, -9]
// CHECK-NEXT: [11, -7]
// CHECK-NEXT: [-3, -15]
// CHECK-NEXT: [1, 5]
// CHECK-NEXT: [0, -5]
// CHECK-NEXT: [7, 14]
// CHECK-NEXT: [1, -1]
// CHECK-NEXT: [2, 12]
// CHECK-NEXT: [4, -7]
// CHECK-NEXT: [11, -7]
// CHECK-NEXT: [3, 1]
// CHECK-NEXT: [11, -3]
// CHECK-NEXT: [0, -8]
// CHECK-NEXT: [1, -3]
// CHECK-NEXT: [-8, -17]
// CHECK-NEXT: [1, 12]
// CHECK-NEXT: [2, 7]
// CHECK-NEXT: [-8, 4]
// @matmul_vector: 1-D rhs promoted to [K, 1]
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 3] strides = {{.*}} data =
// CHECK-NEXT: [2, -2, -4]
// CHECK-NEXT: [1, -14, 2]
// @matmul_dynamic: dynamic M
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [5, 3] strides = {{.*}} data =
// CHECK-NEXT: [-10, 1, -9]
// CHECK-NEXT: [-2, 0, 15]
// CHECK-NEXT: [4, -2, -9]
// CHECK-NEXT: [-11, 4, 9]
// CHECK-NEXT: [-9, 2, -9]
// @gemm: alpha * A^T B^T + beta * C
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [3, 5] strides = {{.*}} data =
// CHECK-NEXT: [-1.5, 9, -9.5, 2, 7]
// CHECK-NEXT: [0, 6.5, -3, 7.5, 10]
// CHECK-NEXT: [-6.5, 3.5, -2, -2, 7.5]
