// RUN: kiln-opt %s -split-input-file -kiln-mark-tf32-rounded-weights | FileCheck %s

// Tests that a kernel argument @main binds to a weight marked
// kiln.tf32_rounded gets the mark; the unmarked weight, the graph input and
// the other kernel's argument that is no weight stay unmarked.
// CHECK-LABEL: func.func @main
// CHECK:         %[[W:.+]] = kiln.constant {kiln.tf32_rounded} dense<5.000000e-01> : tensor<4x4x1x1xf32>
// CHECK:         %[[B:.+]] = kiln.constant dense<1.000000e+00> : tensor<4x4x1x1xf32>
// CHECK:         %[[A:.+]] = call @kernel_0(%{{.+}}, %[[W]], %[[B]])
// CHECK:         call @kernel_1(%[[A]], %[[B]])
// CHECK-LABEL: func.func private @kernel_0
// CHECK-SAME:    (%{{[^:]+}}: tensor<1x4x8x8xf32>, %{{[^:]+}}: tensor<4x4x1x1xf32> {kiln.tf32_rounded}, %{{[^:]+}}: tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32> {
// CHECK-LABEL: func.func private @kernel_1
// CHECK-SAME:    (%{{[^:]+}}: tensor<1x4x8x8xf32>, %{{[^:]+}}: tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32> {
func.func @main(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = kiln.constant {kiln.tf32_rounded} dense<0.5> : tensor<4x4x1x1xf32>
  %b = kiln.constant dense<1.0> : tensor<4x4x1x1xf32>
  %a = call @kernel_0(%x, %w, %b) : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %c = call @kernel_1(%a, %b) : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  return %c : tensor<1x4x8x8xf32>
}
func.func private @kernel_0(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x1x1xf32>, %b: tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32> {
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %d = kiln.conv %c, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  return %d : tensor<1x4x8x8xf32>
}
func.func private @kernel_1(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32> {
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  return %c : tensor<1x4x8x8xf32>
}

// -----

// Tests that one rounded weight passed to two kernels marks the argument of
// each.
// CHECK-LABEL: func.func @main
// CHECK-LABEL: func.func private @kernel_0
// CHECK-SAME:    (%{{[^:]+}}: tensor<4x8xf32>, %{{[^:]+}}: tensor<8x8xf32> {kiln.tf32_rounded})
// CHECK-LABEL: func.func private @kernel_1
// CHECK-SAME:    (%{{[^:]+}}: tensor<4x8xf32>, %{{[^:]+}}: tensor<8x8xf32> {kiln.tf32_rounded})
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %w = kiln.constant {kiln.tf32_rounded} dense<0.5> : tensor<8x8xf32>
  %a = call @kernel_0(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %b = call @kernel_1(%a, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}
func.func private @kernel_0(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %m = kiln.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %m : tensor<4x8xf32>
}
func.func private @kernel_1(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %m = kiln.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %m : tensor<4x8xf32>
}
