// RUN: kiln-opt %s -kiln-convert-graph-to-linalg \
// RUN:   -one-shot-bufferize="bufferize-function-boundaries" \
// RUN:   -convert-linalg-to-loops -convert-scf-to-cf -expand-strided-metadata \
// RUN:   -lower-affine -finalize-memref-to-llvm -convert-math-to-funcs \
// RUN:   -convert-math-to-llvm -convert-math-to-libm -convert-to-llvm \
// RUN:   -reconcile-unrealized-casts \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | FileCheck %s

// Tests that kiln.gather_nd, kiln.scatter_elements and kiln.scatter_nd
// lowered by kiln-convert-graph-to-linalg (gather: tensor.extract at the
// index tuple; scatters: each output element reduces over the updates that
// target it) compute the ONNX results: batch dims, negative indices,
// duplicate indices with "add" and "mul", last-wins "none", and a scatter
// whose indices cover only part of the input.
//
// Expected values: numpy loops following the reference code of the ONNX
// specification (ScatterElements, ScatterND, GatherND) on the same arrays. Every result is a
// copy, a sum of two or a product of two f32 values that are exact in binary
// or printed to 6 significant digits, so the CHECKs compare printed text.

func.func @gather_nd_batch(%x: tensor<2x2x2xf32>, %i: tensor<2x1xi64>) -> tensor<2x2xf32> {
  %r = kiln.gather_nd %x, %i {batch_dims = 1 : i64} : (tensor<2x2x2xf32>, tensor<2x1xi64>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

func.func @gather_nd_pairs(%x: tensor<3x4xf32>, %i: tensor<2x2x2xi64>) -> tensor<2x2xf32> {
  %r = kiln.gather_nd %x, %i : (tensor<3x4xf32>, tensor<2x2x2xi64>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

func.func @scatter_elements_add(%x: tensor<1x5xf32>, %i: tensor<1x2xi64>, %u: tensor<1x2xf32>) -> tensor<1x5xf32> {
  %r = kiln.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = #kiln.scatter_reduction<add>} : (tensor<1x5xf32>, tensor<1x2xi64>, tensor<1x2xf32>) -> tensor<1x5xf32>
  return %r : tensor<1x5xf32>
}

func.func @scatter_elements_none(%x: tensor<3x3xf32>, %i: tensor<2x3xi32>, %u: tensor<2x3xf32>) -> tensor<3x3xf32> {
  %r = kiln.scatter_elements %x, %i, %u {axis = 0 : i64} : (tensor<3x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>) -> tensor<3x3xf32>
  return %r : tensor<3x3xf32>
}

func.func @scatter_elements_max_partial(%x: tensor<3x4xf32>, %i: tensor<2x2xi64>, %u: tensor<2x2xf32>) -> tensor<3x4xf32> {
  %r = kiln.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = #kiln.scatter_reduction<max>} : (tensor<3x4xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

func.func @scatter_nd_mul(%x: tensor<4x2xf32>, %i: tensor<3x1xi64>, %u: tensor<3x2xf32>) -> tensor<4x2xf32> {
  %r = kiln.scatter_nd %x, %i, %u {reduction = #kiln.scatter_reduction<mul>} : (tensor<4x2xf32>, tensor<3x1xi64>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

func.func @scatter_nd_elements(%x: tensor<2x3xf32>, %i: tensor<2x2xi64>, %u: tensor<2xf32>) -> tensor<2x3xf32> {
  %r = kiln.scatter_nd %x, %i, %u : (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %x0 = arith.constant dense<[[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]]]> : tensor<2x2x2xf32>
  %i0 = arith.constant dense<[[1], [-2]]> : tensor<2x1xi64>
  %r0 = call @gather_nd_batch(%x0, %i0) : (tensor<2x2x2xf32>, tensor<2x1xi64>) -> tensor<2x2xf32>
  %r0u = tensor.cast %r0 : tensor<2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%r0u) : (tensor<*xf32>) -> ()

  %x1 = arith.constant dense<[[-5.0, -4.0, -3.0, -2.0], [-1.0, 0.0, 1.0, 2.0], [3.0, 4.0, 5.0, 6.0]]> : tensor<3x4xf32>
  %i1 = arith.constant dense<[[[2, 3], [0, -1]], [[1, 0], [-3, 2]]]> : tensor<2x2x2xi64>
  %r1 = call @gather_nd_pairs(%x1, %i1) : (tensor<3x4xf32>, tensor<2x2x2xi64>) -> tensor<2x2xf32>
  %r1u = tensor.cast %r1 : tensor<2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%r1u) : (tensor<*xf32>) -> ()

  %x2 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0]]> : tensor<1x5xf32>
  %i2 = arith.constant dense<[[1, 1]]> : tensor<1x2xi64>
  %u2 = arith.constant dense<[[1.5, 2.25]]> : tensor<1x2xf32>
  %r2 = call @scatter_elements_add(%x2, %i2, %u2) : (tensor<1x5xf32>, tensor<1x2xi64>, tensor<1x2xf32>) -> tensor<1x5xf32>
  %r2u = tensor.cast %r2 : tensor<1x5xf32> to tensor<*xf32>
  call @printMemrefF32(%r2u) : (tensor<*xf32>) -> ()

  %x3 = arith.constant dense<0.0> : tensor<3x3xf32>
  %i3 = arith.constant dense<[[1, 0, 2], [0, 2, -2]]> : tensor<2x3xi32>
  %u3 = arith.constant dense<[[1.0, 1.5, 1.25], [2.0, 2.5, 2.25]]> : tensor<2x3xf32>
  %r3 = call @scatter_elements_none(%x3, %i3, %u3) : (tensor<3x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>) -> tensor<3x3xf32>
  %r3u = tensor.cast %r3 : tensor<3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%r3u) : (tensor<*xf32>) -> ()

  %x4 = arith.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]> : tensor<3x4xf32>
  %i4 = arith.constant dense<[[3, 0], [1, 1]]> : tensor<2x2xi64>
  %u4 = arith.constant dense<[[20.0, -1.0], [9.0, 4.0]]> : tensor<2x2xf32>
  %r4 = call @scatter_elements_max_partial(%x4, %i4, %u4) : (tensor<3x4xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<3x4xf32>
  %r4u = tensor.cast %r4 : tensor<3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%r4u) : (tensor<*xf32>) -> ()

  %x5 = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
  %i5 = arith.constant dense<[[0], [2], [-4]]> : tensor<3x1xi64>
  %u5 = arith.constant dense<[[2.0, 3.0], [4.0, 5.0], [10.0, 0.5]]> : tensor<3x2xf32>
  %r5 = call @scatter_nd_mul(%x5, %i5, %u5) : (tensor<4x2xf32>, tensor<3x1xi64>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %r5u = tensor.cast %r5 : tensor<4x2xf32> to tensor<*xf32>
  call @printMemrefF32(%r5u) : (tensor<*xf32>) -> ()

  %x6 = arith.constant dense<0.0> : tensor<2x3xf32>
  %i6 = arith.constant dense<[[1, 2], [0, 0]]> : tensor<2x2xi64>
  %u6 = arith.constant dense<[7.0, -3.0]> : tensor<2xf32>
  %r6 = call @scatter_nd_elements(%x6, %i6, %u6) : (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2xf32>) -> tensor<2x3xf32>
  %r6u = tensor.cast %r6 : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%r6u) : (tensor<*xf32>) -> ()
  return
}

// @gather_nd_batch: out[b] = x[b][i[b]], -2 counts from the end
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 2] strides = {{.*}} data =
// CHECK-NEXT: [2, 3]
// CHECK-NEXT: [4, 5]
// @gather_nd_pairs: (row, col) tuples
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 2] strides = {{.*}} data =
// CHECK-NEXT: [6, -2]
// CHECK-NEXT: [-1, -3]
// @scatter_elements_add: both updates land on element 1: 2 + 1.5 + 2.25
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [1, 5] strides = {{.*}} data =
// CHECK-NEXT: [1, 5.75, 3, 4, 5]
// @scatter_elements_none: along axis 0, -2 is row 1
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [3, 3] strides = {{.*}} data =
// CHECK-NEXT: [2, 1.5, 0]
// CHECK-NEXT: [1, 0, 2.25]
// CHECK-NEXT: [0, 2.5, 1.25]
// @scatter_elements_max_partial: rows 0-1 only; 9 beats 5, -1 loses to 0
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [3, 4] strides = {{.*}} data =
// CHECK-NEXT: [0, 1, 2, 20]
// CHECK-NEXT: [4, 9, 6, 7]
// CHECK-NEXT: [8, 9, 10, 11]
// @scatter_nd_mul: row 0 twice (0 and -4), row 2 once
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [4, 2] strides = {{.*}} data =
// CHECK-NEXT: [20, 3]
// CHECK-NEXT: [3, 4]
// CHECK-NEXT: [20, 30]
// CHECK-NEXT: [7, 8]
// @scatter_nd_elements: full-rank tuples write single elements
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 3] strides = {{.*}} data =
// CHECK-NEXT: [-3, 0, 0]
// CHECK-NEXT: [0, 0, 7]
