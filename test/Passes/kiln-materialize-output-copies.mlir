// RUN: kiln-opt %s -split-input-file -kiln-materialize-output-copies | FileCheck %s

// Tests that outputs that are no kernel result of their own get a copy
// kernel each, called right before the return, numbered after the existing
// kernels: a graph input, a weight, a view of a kernel result, and a kernel
// result returned a second time (its first return keeps the result).
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:.+]]: tensor<2x3xf32>)
// CHECK:         %[[W:.+]] = kiln.constant dense<1.000000e+00> : tensor<2x3xf32>
// CHECK:         %[[R:.+]] = call @kernel_0(%[[X]])
// CHECK:         %[[V:.+]] = kiln.reshape %[[R]]
// CHECK:         %[[C0:.+]] = call @kernel_1(%[[X]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[C1:.+]] = call @kernel_2(%[[W]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[C2:.+]] = call @kernel_3(%[[V]]) : (tensor<3x2xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    %[[C3:.+]] = call @kernel_4(%[[R]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    return %[[C0]], %[[C1]], %[[R]], %[[C2]], %[[C3]]
// CHECK-LABEL: func.func private @kernel_1
// CHECK-SAME:    (%[[A:.+]]: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<2x3xf32>
// CHECK:         %[[COPY:.+]] = linalg.copy ins(%[[A]] : tensor<2x3xf32>) outs(%[[E]] : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:         return %[[COPY]]
// CHECK-LABEL: func.func private @kernel_2
// CHECK:         linalg.copy
// CHECK-LABEL: func.func private @kernel_3
// CHECK-SAME:    (%{{.+}}: tensor<3x2xf32>) -> tensor<3x2xf32>
// CHECK:         linalg.copy
// CHECK-LABEL: func.func private @kernel_4
// CHECK:         linalg.copy
// CHECK-LABEL: func.func private @kernel_0
func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x3xf32>) {
  %w = kiln.constant dense<1.0> : tensor<2x3xf32>
  %r = call @kernel_0(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = kiln.constant dense<[3, 2]> : tensor<2xi64>
  %v = kiln.reshape %r, %s : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  return %x, %w, %r, %v, %r : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x3xf32>
}
func.func private @kernel_0(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = kiln.relu %x : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// Tests that a graph whose outputs are all kernel results of their own is
// left alone.
// CHECK-LABEL: func.func @main
// CHECK:         %[[A:.+]] = call @kernel_0
// CHECK:         %[[B:.+]] = call @kernel_1
// CHECK-NEXT:    return %[[A]], %[[B]]
// CHECK-NOT:     linalg.copy
// CHECK-NOT:     @kernel_2
func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %a = call @kernel_0(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = call @kernel_1(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %a, %b : tensor<2x3xf32>, tensor<2x3xf32>
}
func.func private @kernel_0(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = kiln.relu %x : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
func.func private @kernel_1(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = kiln.exp %x : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
