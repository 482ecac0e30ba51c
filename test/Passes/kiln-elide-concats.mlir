// RUN: kiln-opt %s -split-input-file -kiln-elide-concats | FileCheck %s

// Tests that a concat kernel whose inputs are single-use results of kernels
// called once is elided: each producer writes its result into its slice
// of the concat's buffer (#kiln_plan.into_slice, offsets along the axis),
// and the concat's call is marked kiln_plan.elided_concat.
// CHECK-LABEL: func.func @main
// CHECK:         %[[A:.+]] = call @kernel_0(
// CHECK:         %[[B:.+]] = call @kernel_1(
// CHECK:         %[[C:.+]] = call @kernel_2(%[[A]], %[[B]]) {kiln_plan.elided_concat}
// CHECK:         return %[[C]]
// CHECK-LABEL: func.func private @kernel_0
// CHECK-SAME:    kiln_plan.into_slices = [#kiln_plan.into_slice<result = 0, shape = [1, 6, 4, 4], offsets = [0, 0, 0, 0]>]
// CHECK-LABEL: func.func private @kernel_1
// CHECK-SAME:    kiln_plan.into_slices = [#kiln_plan.into_slice<result = 0, shape = [1, 6, 4, 4], offsets = [0, 2, 0, 0]>]
// CHECK-LABEL: func.func private @kernel_2
// CHECK-NOT:     kiln_plan.into_slices
// CHECK:         kiln.concat
func.func @main(%x: tensor<1x2x4x4xf32>) -> tensor<1x6x4x4xf32> {
  %a = call @kernel_0(%x) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %b = call @kernel_1(%x) : (tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32>
  %c = call @kernel_2(%a, %b) : (tensor<1x2x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x6x4x4xf32>
  return %c : tensor<1x6x4x4xf32>
}
func.func private @kernel_0(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %r = kiln.relu %x : tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}
func.func private @kernel_1(%x: tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %w = kiln.constant dense<0.5> : tensor<4x2x1x1xf32>
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x4x4xf32>
  return %c : tensor<1x4x4x4xf32>
}
func.func private @kernel_2(%a: tensor<1x2x4x4xf32>, %b: tensor<1x4x4x4xf32>) -> tensor<1x6x4x4xf32> {
  %c = kiln.concat %a, %b {axis = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x6x4x4xf32>
  return %c : tensor<1x6x4x4xf32>
}

// -----

// Tests that a producer with several results lists the one the concat
// reads by its number, and that one function producing two inputs of the
// concat gets a slice for each.
// CHECK-LABEL: func.func @main
// CHECK:         call @kernel_1(%{{.+}}, %{{.+}}) {kiln_plan.elided_concat}
// CHECK-LABEL: func.func private @kernel_0
// CHECK-SAME:    kiln_plan.into_slices = [#kiln_plan.into_slice<result = 1, shape = [8, 3], offsets = [0, 0]>, #kiln_plan.into_slice<result = 0, shape = [8, 3], offsets = [4, 0]>]
func.func @main(%x: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<8x3xf32>) {
  %a:3 = call @kernel_0(%x) : (tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>)
  %c = call @kernel_1(%a#1, %a#0) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  return %a#2, %c : tensor<4x3xf32>, tensor<8x3xf32>
}
func.func private @kernel_0(%x: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) {
  %r = kiln.relu %x : tensor<4x3xf32>
  %e = kiln.exp %x : tensor<4x3xf32>
  %t = kiln.tanh %x : tensor<4x3xf32>
  return %r, %e, %t : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>
}
func.func private @kernel_1(%a: tensor<4x3xf32>, %b: tensor<4x3xf32>) -> tensor<8x3xf32> {
  %c = kiln.concat %a, %b {axis = 0 : i64} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  return %c : tensor<8x3xf32>
}

// -----

// Tests that a concat stays when an input has another reader, comes from a
// kernel called twice, is a graph input, or when the concat kernel does
// not read its arguments in order.
// CHECK-LABEL: func.func @main
// CHECK-NOT:     kiln_plan.elided_concat
// CHECK-NOT:     kiln_plan.into_slices
func.func @main(%x: tensor<4x3xf32>) -> (tensor<8x3xf32>, tensor<4x3xf32>, tensor<8x3xf32>, tensor<8x3xf32>, tensor<8x3xf32>) {
  // %a is read twice.
  %a = call @kernel_0(%x) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %b = call @kernel_1(%x) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %c = call @kernel_3(%a, %b) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  // kernel_2 is called twice.
  %d = call @kernel_2(%x) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %e = call @kernel_2(%x) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %f = call @kernel_3(%d, %e) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  // A graph input.
  %g = call @kernel_4(%x) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %h = call @kernel_3(%g, %x) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  // The arguments swapped.
  %i = call @kernel_5(%x) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %j = call @kernel_6(%x) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %k = call @kernel_7(%i, %j) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  return %c, %a, %f, %h, %k : tensor<8x3xf32>, tensor<4x3xf32>, tensor<8x3xf32>, tensor<8x3xf32>, tensor<8x3xf32>
}
func.func private @kernel_0(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = kiln.relu %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
func.func private @kernel_1(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = kiln.exp %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
func.func private @kernel_2(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = kiln.tanh %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
func.func private @kernel_3(%a: tensor<4x3xf32>, %b: tensor<4x3xf32>) -> tensor<8x3xf32> {
  %c = kiln.concat %a, %b {axis = 0 : i64} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  return %c : tensor<8x3xf32>
}
func.func private @kernel_4(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = kiln.sigmoid %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
func.func private @kernel_5(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = kiln.neg %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
func.func private @kernel_6(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = kiln.abs %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
func.func private @kernel_7(%a: tensor<4x3xf32>, %b: tensor<4x3xf32>) -> tensor<8x3xf32> {
  %c = kiln.concat %b, %a {axis = 0 : i64} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  return %c : tensor<8x3xf32>
}

// -----

// Tests that a concat kernel called twice is not elided: its producers can
// write into only one of the two calls' buffers, so both calls still run.
// CHECK-LABEL: func.func @main
// CHECK-NOT:     kiln_plan.elided_concat
// CHECK-LABEL: func.func private @kernel_0
// CHECK-NOT:     kiln_plan.into_slices
// CHECK-LABEL: func.func private @kernel_1
func.func @main(%x: tensor<4x3xf32>) -> (tensor<8x3xf32>, tensor<8x3xf32>) {
  %a = call @kernel_0(%x) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %b = call @kernel_0(%a) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %c = call @kernel_1(%a, %x) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  %d = call @kernel_1(%b, %x) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  return %c, %d : tensor<8x3xf32>, tensor<8x3xf32>
}
func.func private @kernel_0(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = kiln.relu %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
func.func private @kernel_1(%a: tensor<4x3xf32>, %b: tensor<4x3xf32>) -> tensor<8x3xf32> {
  %c = kiln.concat %a, %b {axis = 0 : i64} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  return %c : tensor<8x3xf32>
}
