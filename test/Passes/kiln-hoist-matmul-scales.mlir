// RUN: kiln-opt %s -split-input-file -kiln-hoist-matmul-scales | FileCheck %s

// Tests that attention's query scaling moves after Q K^T: the matmul reads
// the unscaled queries and the division by the scalar follows it.
// CHECK-LABEL: func.func @query_scale
// CHECK-SAME:    (%[[Q:.+]]: tensor<24x128x64xf16>, %[[K:.+]]: tensor<24x64x128xf16>)
// CHECK:         %[[C:.+]] = kiln.constant dense<8.000000e+00> : tensor<f16>
// CHECK-NEXT:    %[[P:.+]] = kiln.matmul %[[Q]], %[[K]]
// CHECK-NEXT:    %[[S:.+]] = kiln.div %[[P]], %[[C]] : (tensor<24x128x128xf16>, tensor<f16>) -> tensor<24x128x128xf16>
// CHECK-NEXT:    return %[[S]]
func.func @query_scale(%q: tensor<24x128x64xf16>, %k: tensor<24x64x128xf16>) -> tensor<24x128x128xf16> {
  %c = kiln.constant dense<8.0> : tensor<f16>
  %d = kiln.div %q, %c : (tensor<24x128x64xf16>, tensor<f16>) -> tensor<24x128x64xf16>
  %s = kiln.matmul %d, %k : (tensor<24x128x64xf16>, tensor<24x64x128xf16>) -> tensor<24x128x128xf16>
  return %s : tensor<24x128x128xf16>
}

// -----

// Tests that factors on both operands (a multiplication with the constant
// first, of rank 1 and one element) both move, in operand order.
// CHECK-LABEL: func.func @both_operands
// CHECK:         %[[P:.+]] = kiln.matmul %arg0, %arg1
// CHECK-NEXT:    %[[M:.+]] = kiln.mul %[[P]], %{{.+}} : (tensor<4x6xf32>, tensor<1xf32>) -> tensor<4x6xf32>
// CHECK-NEXT:    %[[D:.+]] = kiln.div %[[M]], %{{.+}} : (tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xf32>
// CHECK-NEXT:    return %[[D]]
func.func @both_operands(%x: tensor<4x5xf32>, %y: tensor<5x6xf32>) -> tensor<4x6xf32> {
  %a = kiln.constant dense<0.5> : tensor<1xf32>
  %b = kiln.constant dense<3.0> : tensor<f32>
  %xs = kiln.mul %a, %x : (tensor<1xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  %ys = kiln.div %y, %b : (tensor<5x6xf32>, tensor<f32>) -> tensor<5x6xf32>
  %p = kiln.matmul %xs, %ys : (tensor<4x5xf32>, tensor<5x6xf32>) -> tensor<4x6xf32>
  return %p : tensor<4x6xf32>
}

// -----

// Tests that these scalings stay: a scaled value read twice, a zero factor, a
// per-column factor (not one element), a constant divided by the operand, and
// an integer matmul.
// CHECK-LABEL: func.func @kept
// CHECK:         kiln.mul %arg0, %{{.+}}
// CHECK-NEXT:    kiln.matmul
// CHECK-NEXT:    kiln.matmul
// CHECK-NEXT:    kiln.add
// CHECK:         kiln.mul %arg0, %{{.+}} : (tensor<4x5xf32>, tensor<f32>)
// CHECK-NEXT:    kiln.matmul
// CHECK:         kiln.mul %arg0, %{{.+}} : (tensor<4x5xf32>, tensor<5xf32>)
// CHECK-NEXT:    kiln.matmul
// CHECK:         kiln.div %{{.+}}, %arg0
// CHECK-NEXT:    kiln.matmul
// CHECK:         kiln.mul %arg2, %{{.+}} : (tensor<4x5xi32>, tensor<i32>)
// CHECK-NEXT:    kiln.matmul
func.func @kept(%x: tensor<4x5xf32>, %y: tensor<5x4xf32>, %i: tensor<4x5xi32>, %j: tensor<5x4xi32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xi32>) {
  %c = kiln.constant dense<2.0> : tensor<f32>
  %z = kiln.constant dense<0.0> : tensor<f32>
  %v = kiln.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf32>
  %ci = kiln.constant dense<2> : tensor<i32>
  %x2 = kiln.mul %x, %c : (tensor<4x5xf32>, tensor<f32>) -> tensor<4x5xf32>
  %p0 = kiln.matmul %x2, %y : (tensor<4x5xf32>, tensor<5x4xf32>) -> tensor<4x4xf32>
  %p5 = kiln.matmul %x2, %y : (tensor<4x5xf32>, tensor<5x4xf32>) -> tensor<4x4xf32>
  %q0 = kiln.add %p0, %p5 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %x3 = kiln.mul %x, %z : (tensor<4x5xf32>, tensor<f32>) -> tensor<4x5xf32>
  %p1 = kiln.matmul %x3, %y : (tensor<4x5xf32>, tensor<5x4xf32>) -> tensor<4x4xf32>
  %x4 = kiln.mul %x, %v : (tensor<4x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  %p2 = kiln.matmul %x4, %y : (tensor<4x5xf32>, tensor<5x4xf32>) -> tensor<4x4xf32>
  %x5 = kiln.div %c, %x : (tensor<f32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  %p3 = kiln.matmul %x5, %y : (tensor<4x5xf32>, tensor<5x4xf32>) -> tensor<4x4xf32>
  %i2 = kiln.mul %i, %ci : (tensor<4x5xi32>, tensor<i32>) -> tensor<4x5xi32>
  %p4 = kiln.matmul %i2, %j : (tensor<4x5xi32>, tensor<5x4xi32>) -> tensor<4x4xi32>
  return %q0, %p1, %p2, %p3, %p4 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xi32>
}
