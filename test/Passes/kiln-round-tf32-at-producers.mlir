// RUN: kiln-opt %s -split-input-file -kiln-round-tf32-at-producers | FileCheck %s

// Tests that a conv kernel's result that only the next conv kernel reads
// (as its image) is rounded where it is produced: the producer lists the
// result in kiln_plan.round_tf32_results and the reader's argument is
// marked kiln.tf32_rounded. The last conv's result is a graph output: not
// rounded.
// CHECK-LABEL: func.func @main
// CHECK-LABEL: func.func private @kernel_0
// CHECK-SAME:    attributes {kiln_plan.round_tf32_results = array<i64: 0>}
// CHECK-LABEL: func.func private @kernel_1
// CHECK-SAME:    (%{{.+}}: tensor<1x4x8x8xf32> {kiln.tf32_rounded}, %{{[^:]+}}: tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32> {
func.func @main(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w0 = kiln.constant dense<5.000000e-01> : tensor<4x4x1x1xf32>
  %w1 = kiln.constant dense<2.500000e-01> : tensor<4x4x1x1xf32>
  %a = call @kernel_0(%x, %w0) : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %b = call @kernel_1(%a, %w1) : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  return %b : tensor<1x4x8x8xf32>
}
func.func private @kernel_0(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32> {
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %r = kiln.relu %c : tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}
func.func private @kernel_1(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32> {
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  return %c : tensor<1x4x8x8xf32>
}

// -----

// Tests that the readers may reach the value through @main's views (a
// static reshape) and, inside their kernels, through a transpose and a
// zero pad before a matmul: still only tensor cores read it, so it is
// rounded by its producer, a matmul kernel.
// CHECK-LABEL: func.func @main
// CHECK-LABEL: func.func private @kernel_0
// CHECK-SAME:    attributes {kiln_plan.round_tf32_results = array<i64: 0>}
// CHECK-LABEL: func.func private @kernel_1
// CHECK-SAME:    (%{{.+}}: tensor<8x4xf32> {kiln.tf32_rounded}, %{{[^:]+}}: tensor<8x8xf32>)
func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %p = call @kernel_0(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %s = kiln.constant dense<[8, 4]> : tensor<2xi64>
  %v = kiln.reshape %p, %s : (tensor<4x8xf32>, tensor<2xi64>) -> tensor<8x4xf32>
  %q = call @kernel_1(%v, %w) : (tensor<8x4xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %q : tensor<8x8xf32>
}
func.func private @kernel_0(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %m = kiln.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %m : tensor<4x8xf32>
}
func.func private @kernel_1(%v: tensor<8x4xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %t = kiln.transpose %v {perm = array<i64: 1, 0>} : (tensor<8x4xf32>) -> tensor<4x8xf32>
  %pads = kiln.constant dense<[0, 0, 4, 0]> : tensor<4xi64>
  %z = kiln.pad %t, %pads {mode = #kiln.pad_mode<constant>} : (tensor<4x8xf32>, tensor<4xi64>) -> tensor<8x8xf32>
  %m = kiln.matmul %z, %w : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %m : tensor<8x8xf32>
}

// -----

// Tests that nothing is rounded when a reader is no tensor-core op (a relu
// kernel reads the conv's result), when the producer holds no conv or
// matmul (a relu kernel feeding a conv), when the reader kernel is called
// twice, or when the result is not f32.
// CHECK-LABEL: func.func @main
// CHECK-NOT:     kiln_plan.round_tf32_results
// CHECK-NOT:     kiln.tf32_rounded
func.func @main(%x: tensor<1x4x8x8xf32>, %h: tensor<4x8xf16>, %wh: tensor<8x8xf16>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<4x8xf16>) {
  %w = kiln.constant dense<5.000000e-01> : tensor<4x4x1x1xf32>
  // conv -> relu kernel
  %a = call @kernel_0(%x, %w) : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %b = call @kernel_1(%a) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  // relu kernel -> conv
  %c = call @kernel_2(%x) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %d = call @kernel_3(%c, %w) : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  // conv -> a conv kernel called twice
  %e = call @kernel_4(%x, %w) : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %f = call @kernel_5(%e, %w) : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %g = call @kernel_5(%f, %w) : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  // f16 matmul -> matmul
  %m = call @kernel_6(%h, %wh) : (tensor<4x8xf16>, tensor<8x8xf16>) -> tensor<4x8xf16>
  %n = call @kernel_7(%m, %wh) : (tensor<4x8xf16>, tensor<8x8xf16>) -> tensor<4x8xf16>
  return %b, %d, %g, %n : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<4x8xf16>
}
func.func private @kernel_0(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32> {
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  return %c : tensor<1x4x8x8xf32>
}
func.func private @kernel_1(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %r = kiln.relu %x : tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}
func.func private @kernel_2(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %r = kiln.relu %x : tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}
func.func private @kernel_3(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32> {
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  return %c : tensor<1x4x8x8xf32>
}
func.func private @kernel_4(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32> {
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  return %c : tensor<1x4x8x8xf32>
}
func.func private @kernel_5(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32> {
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  return %c : tensor<1x4x8x8xf32>
}
func.func private @kernel_6(%x: tensor<4x8xf16>, %w: tensor<8x8xf16>) -> tensor<4x8xf16> {
  %m = kiln.matmul %x, %w : (tensor<4x8xf16>, tensor<8x8xf16>) -> tensor<4x8xf16>
  return %m : tensor<4x8xf16>
}
func.func private @kernel_7(%x: tensor<4x8xf16>, %w: tensor<8x8xf16>) -> tensor<4x8xf16> {
  %m = kiln.matmul %x, %w : (tensor<4x8xf16>, tensor<8x8xf16>) -> tensor<4x8xf16>
  return %m : tensor<4x8xf16>
}
