// RUN: kiln-opt %s -kiln-convert-graph-to-linalg \
// RUN:   -one-shot-bufferize="bufferize-function-boundaries" \
// RUN:   -convert-linalg-to-loops -convert-scf-to-cf -expand-strided-metadata \
// RUN:   -lower-affine -finalize-memref-to-llvm -convert-math-to-funcs \
// RUN:   -convert-math-to-llvm -convert-math-to-libm -convert-to-llvm \
// RUN:   -reconcile-unrealized-casts \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | FileCheck %s


// Tests that kiln.gather and kiln.gather_elements lowered by
// kiln-convert-graph-to-linalg (generics reading the input with tensor.extract)
// pick the right elements, including negative indices, i32 indices and
// dynamic dims.
//
// Expected values: numpy.take / numpy.take_along_axis on the same arrays
// (negative indices normalized as ONNX does); the values are copied, so the
// CHECKs are exact.

func.func @gather_axis1(%x: tensor<3x4xf32>, %i: tensor<2x2xi64>) -> tensor<3x2x2xf32> {
  %r = kiln.gather %x, %i {axis = 1 : i64} : (tensor<3x4xf32>, tensor<2x2xi64>) -> tensor<3x2x2xf32>
  return %r : tensor<3x2x2xf32>
}

func.func @gather_axis0(%x: tensor<4x2x3xf32>, %i: tensor<3xi32>) -> tensor<3x2x3xf32> {
  %r = kiln.gather %x, %i {axis = 0 : i64} : (tensor<4x2x3xf32>, tensor<3xi32>) -> tensor<3x2x3xf32>
  return %r : tensor<3x2x3xf32>
}

func.func @gather_dynamic(%x: tensor<?x2x3xf32>, %i: tensor<?xi32>) -> tensor<?x2x3xf32> {
  %r = kiln.gather %x, %i {axis = 0 : i64} : (tensor<?x2x3xf32>, tensor<?xi32>) -> tensor<?x2x3xf32>
  return %r : tensor<?x2x3xf32>
}

func.func @gather_elements(%x: tensor<3x3xf32>, %i: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %r = kiln.gather_elements %x, %i {axis = 0 : i64} : (tensor<3x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI64(tensor<*xi64>)

func.func @main() {
  %gather_axis1_x = arith.constant dense<[[-4.0, -2.5, -1.0, 0.5], [2.0, 3.5, 5.0, 6.5], [8.0, 9.5, 11.0, 12.5]]> : tensor<3x4xf32>
  %gather_axis1_i = arith.constant dense<[[0, -1], [2, 1]]> : tensor<2x2xi64>
  %gather_axis1_r = call @gather_axis1(%gather_axis1_x, %gather_axis1_i) : (tensor<3x4xf32>, tensor<2x2xi64>) -> tensor<3x2x2xf32>
  %gather_axis1_r_u = tensor.cast %gather_axis1_r : tensor<3x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%gather_axis1_r_u) : (tensor<*xf32>) -> ()
  %gather_axis0_x = arith.constant dense<[[[0.0, 6.0, -5.0], [7.0, 7.0, -6.0]], [[-7.0, 8.0, 1.0], [-1.0, 5.0, 3.0]], [[0.0, 7.0, 5.0], [-5.0, -3.0, 3.0]], [[0.0, -4.0, -3.0], [-4.0, 9.0, -3.0]]]> : tensor<4x2x3xf32>
  %gather_axis0_i = arith.constant dense<[3, 0, -2]> : tensor<3xi32>
  %gather_axis0_r = call @gather_axis0(%gather_axis0_x, %gather_axis0_i) : (tensor<4x2x3xf32>, tensor<3xi32>) -> tensor<3x2x3xf32>
  %gather_axis0_r_u = tensor.cast %gather_axis0_r : tensor<3x2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%gather_axis0_r_u) : (tensor<*xf32>) -> ()
  %gather_dynamic_x = arith.constant dense<[[[0.0, 6.0, -5.0], [7.0, 7.0, -6.0]], [[-7.0, 8.0, 1.0], [-1.0, 5.0, 3.0]], [[0.0, 7.0, 5.0], [-5.0, -3.0, 3.0]], [[0.0, -4.0, -3.0], [-4.0, 9.0, -3.0]]]> : tensor<4x2x3xf32>
  %gather_dynamic_x_d = tensor.cast %gather_dynamic_x : tensor<4x2x3xf32> to tensor<?x2x3xf32>
  %gather_dynamic_i = arith.constant dense<[3, 0, -2]> : tensor<3xi32>
  %gather_dynamic_i_d = tensor.cast %gather_dynamic_i : tensor<3xi32> to tensor<?xi32>
  %gather_dynamic_r = call @gather_dynamic(%gather_dynamic_x_d, %gather_dynamic_i_d) : (tensor<?x2x3xf32>, tensor<?xi32>) -> tensor<?x2x3xf32>
  %gather_dynamic_r_s = tensor.cast %gather_dynamic_r : tensor<?x2x3xf32> to tensor<3x2x3xf32>
  %gather_dynamic_r_s_u = tensor.cast %gather_dynamic_r_s : tensor<3x2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%gather_dynamic_r_s_u) : (tensor<*xf32>) -> ()
  %gather_elements_x = arith.constant dense<[[9.0, 3.0, -7.0], [7.0, -4.0, 7.0], [-6.0, 7.0, -8.0]]> : tensor<3x3xf32>
  %gather_elements_i = arith.constant dense<[[2, 0, -1], [1, 1, 0]]> : tensor<2x3xi64>
  %gather_elements_r = call @gather_elements(%gather_elements_x, %gather_elements_i) : (tensor<3x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  %gather_elements_r_u = tensor.cast %gather_elements_r : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%gather_elements_r_u) : (tensor<*xf32>) -> ()
  return
}

// @gather_axis1: [3,4] by [2,2] indices on axis 1, -1 counts from the end
// CHECK: rank = 3 offset = {{[0-9]+}} sizes = [3, 2, 2] strides = {{.*}} data =
// CHECK-NEXT: [-4, 0.5]
// CHECK-NEXT: [-1, -2.5]
// CHECK-NEXT: [2, 6.5]
// CHECK-NEXT: [5, 3.5]
// CHECK-NEXT: [8, 12.5]
// CHECK-NEXT: [11, 9.5]
// @gather_axis0: i32 indices on axis 0
// CHECK: rank = 3 offset = {{[0-9]+}} sizes = [3, 2, 3] strides = {{.*}} data =
// CHECK-NEXT: [0, -4, -3]
// CHECK-NEXT: [-4, 9, -3]
// CHECK-NEXT: [0, 6, -5]
// CHECK-NEXT: [7, 7, -6]
// CHECK-NEXT: [0, 7, 5]
// CHECK-NEXT: [-5, -3, 3]
// @gather_dynamic: dynamic input and index dims
// CHECK: rank = 3 offset = {{[0-9]+}} sizes = [3, 2, 3] strides = {{.*}} data =
// CHECK-NEXT: [0, -4, -3]
// CHECK-NEXT: [-4, 9, -3]
// CHECK-NEXT: [0, 6, -5]
// CHECK-NEXT: [7, 7, -6]
// CHECK-NEXT: [0, 7, 5]
// CHECK-NEXT: [-5, -3, 3]
// @gather_elements: out[i][j] = x[idx[i][j]][j]
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 3] strides = {{.*}} data =
// CHECK-NEXT: [-6, 3, -8]
// CHECK-NEXT: [7, -4, -7]
