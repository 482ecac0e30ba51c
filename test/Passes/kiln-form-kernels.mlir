// RUN: kiln-opt %s -split-input-file -kiln-form-kernels | FileCheck %s

// Tests that conv + bias add + relu become one kernel: the weight (more than
// 64 elements) is an argument, the small bias constant is cloned in.
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:.+]]: tensor<1x3x8x8xf32>)
// CHECK:         %[[W:.+]] = kiln.constant dense<5.000000e-01> : tensor<4x3x3x3xf32>
// CHECK-NOT:     kiln.conv
// CHECK-NOT:     kiln.relu
// CHECK:         %[[K:.+]] = call @kernel_0(%[[X]], %[[W]]) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
// CHECK:         return %[[K]]
// CHECK-LABEL: func.func private @kernel_0
// CHECK-SAME:    (%[[KX:.+]]: tensor<1x3x8x8xf32>, %[[KW:.+]]: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
// CHECK:         %[[B:.+]] = kiln.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK:         %[[C:.+]] = kiln.conv %[[KX]], %[[KW]]
// CHECK:         %[[RB:.+]] = kiln.constant dense<1.000000e+00> : tensor<1x4x1x1xf32>
// CHECK:         %[[A:.+]] = kiln.add %[[C]], %[[RB]]
// CHECK:         %[[R:.+]] = kiln.relu %[[A]]
// CHECK:         return %[[R]]
func.func @main(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x6x6xf32> {
  %w = kiln.constant dense<0.5> : tensor<4x3x3x3xf32>
  %b = kiln.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %rb = kiln.constant dense<1.0> : tensor<1x4x1x1xf32>
  %c = kiln.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %a = kiln.add %c, %rb : (tensor<1x4x6x6xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %r = kiln.relu %a : tensor<1x4x6x6xf32>
  return %r : tensor<1x4x6x6xf32>
}

// -----

// Tests that a static reshape stays in @main as a view, and that elementwise
// ops reading the chain's values more than once join it as a DAG (the add
// reads the exp again, and the mul's other operand is an argument): one
// kernel.
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:.+]]: tensor<2x3x4xf32>, %[[Y:.+]]: tensor<6x4xf32>)
// CHECK:         %[[S:.+]] = kiln.constant dense<[6, 4]> : tensor<2xi64>
// CHECK:         %[[V:.+]] = kiln.reshape %[[X]], %[[S]]
// CHECK:         %[[T:.+]] = call @kernel_0(%[[V]], %[[Y]]) : (tensor<6x4xf32>, tensor<6x4xf32>) -> tensor<6x4xf32>
// CHECK:         return %[[T]]
// CHECK-LABEL: func.func private @kernel_0
// CHECK:         kiln.exp
// CHECK-NEXT:    kiln.mul
// CHECK-NEXT:    kiln.add
// CHECK-NEXT:    kiln.tanh
// CHECK-NEXT:    return
func.func @main(%x: tensor<2x3x4xf32>, %y: tensor<6x4xf32>) -> tensor<6x4xf32> {
  %s = kiln.constant dense<[6, 4]> : tensor<2xi64>
  %v = kiln.reshape %x, %s : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  %e = kiln.exp %v : tensor<6x4xf32>
  %m = kiln.mul %e, %y : (tensor<6x4xf32>, tensor<6x4xf32>) -> tensor<6x4xf32>
  %t0 = kiln.add %m, %e : (tensor<6x4xf32>, tensor<6x4xf32>) -> tensor<6x4xf32>
  %t = kiln.tanh %t0 : tensor<6x4xf32>
  return %t : tensor<6x4xf32>
}

// -----

// Tests that the DAG stops at the first later reader of a kernel's values
// that cannot join (a matmul reads the exp): the exp kernel returns it, and
// the matmul's kernel takes the mul (which reads the matmul twice) and the
// add whose other operand is that earlier kernel's activation.
// CHECK-LABEL: func.func @main
// CHECK:         %[[E:.+]] = call @kernel_0(%{{.+}}) : (tensor<6x4xf32>) -> tensor<6x4xf32>
// CHECK:         %[[T:.+]] = call @kernel_1(%[[E]], %{{.+}})
// CHECK:         return %[[T]]
// CHECK-LABEL: func.func private @kernel_0
// CHECK:         kiln.exp
// CHECK-NEXT:    return
// CHECK-LABEL: func.func private @kernel_1
// CHECK:         kiln.matmul
// CHECK-NEXT:    kiln.mul
// CHECK-NEXT:    kiln.add
// CHECK-NEXT:    kiln.tanh
// CHECK-NEXT:    return
func.func @main(%x: tensor<6x4xf32>, %w: tensor<4x4xf32>) -> tensor<6x4xf32> {
  %e = kiln.exp %x : tensor<6x4xf32>
  %p = kiln.matmul %e, %w : (tensor<6x4xf32>, tensor<4x4xf32>) -> tensor<6x4xf32>
  %m = kiln.mul %p, %p : (tensor<6x4xf32>, tensor<6x4xf32>) -> tensor<6x4xf32>
  %t0 = kiln.add %m, %e : (tensor<6x4xf32>, tensor<6x4xf32>) -> tensor<6x4xf32>
  %t = kiln.tanh %t0 : tensor<6x4xf32>
  return %t : tensor<6x4xf32>
}

// -----

// Tests that matmuls take their operand prologues: the slice -> reshape ->
// transpose chains of attention's packed projection join the matmul's kernel
// (the weights stay arguments and the slice bounds are cloned in), as does the
// transpose + reshape before the output gemm; a transpose with a second reader
// and a reshape alone (a view) stay outside.
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[QKV:.+]]: tensor<16x2x192xf32>, %[[A:.+]]: tensor<8x16x16xf32>, %[[W:.+]]: tensor<64x64xf32>, %[[X:.+]]: tensor<4x6xf32>)
// CHECK:         %[[S:.+]] = call @kernel_0(%[[QKV]])
// CHECK:         %[[O:.+]] = call @kernel_1(%[[A]], %[[W]])
// CHECK:         %[[T:.+]] = call @kernel_2(%[[X]])
// CHECK:         %[[V:.+]] = kiln.reshape %[[X]]
// CHECK:         call @kernel_3(%[[T]], %[[V]])
// CHECK:         call @kernel_4(%[[T]])
// CHECK-LABEL: func.func private @kernel_0
// CHECK-SAME:    (%{{.+}}: tensor<16x2x192xf32>) -> tensor<8x16x16xf32>
// CHECK:         kiln.slice
// CHECK:         kiln.slice
// CHECK:         kiln.reshape
// CHECK-NEXT:    kiln.transpose
// CHECK:         kiln.reshape
// CHECK-NEXT:    kiln.transpose
// CHECK-NEXT:    kiln.matmul
// CHECK-NEXT:    return
// CHECK-LABEL: func.func private @kernel_1
// CHECK:         kiln.transpose
// CHECK:         kiln.reshape
// CHECK:         kiln.gemm
// CHECK-NEXT:    return
// CHECK-LABEL: func.func private @kernel_2
// CHECK:         kiln.transpose
// CHECK-NEXT:    return
func.func @main(%qkv: tensor<16x2x192xf32>, %a: tensor<8x16x16xf32>, %w: tensor<64x64xf32>, %x: tensor<4x6xf32>) -> (tensor<8x16x16xf32>, tensor<32x64xf32>, tensor<6x6xf32>, tensor<6x6xf32>) {
  %s0 = kiln.constant dense<0> : tensor<1xi64>
  %s1 = kiln.constant dense<64> : tensor<1xi64>
  %s2 = kiln.constant dense<128> : tensor<1xi64>
  %ax = kiln.constant dense<2> : tensor<1xi64>
  %st = kiln.constant dense<1> : tensor<1xi64>
  %shape = kiln.constant dense<[16, 8, 16]> : tensor<3xi64>
  %q = kiln.slice %qkv, %s0, %s1, %ax, %st : (tensor<16x2x192xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<16x2x64xf32>
  %k = kiln.slice %qkv, %s1, %s2, %ax, %st : (tensor<16x2x192xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<16x2x64xf32>
  %qr = kiln.reshape %q, %shape : (tensor<16x2x64xf32>, tensor<3xi64>) -> tensor<16x8x16xf32>
  %qt = kiln.transpose %qr {perm = array<i64: 1, 0, 2>} : (tensor<16x8x16xf32>) -> tensor<8x16x16xf32>
  %kr = kiln.reshape %k, %shape : (tensor<16x2x64xf32>, tensor<3xi64>) -> tensor<16x8x16xf32>
  %kt = kiln.transpose %kr {perm = array<i64: 1, 2, 0>} : (tensor<16x8x16xf32>) -> tensor<8x16x16xf32>
  %scores = kiln.matmul %qt, %kt : (tensor<8x16x16xf32>, tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %at = kiln.transpose %a {perm = array<i64: 1, 0, 2>} : (tensor<8x16x16xf32>) -> tensor<16x8x16xf32>
  %flat = kiln.constant dense<[32, 64]> : tensor<2xi64>
  %ar = kiln.reshape %at, %flat : (tensor<16x8x16xf32>, tensor<2xi64>) -> tensor<32x64xf32>
  %o = kiln.gemm %ar, %w {trans_b = true} : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
  %xt = kiln.transpose %x {perm = array<i64: 1, 0>} : (tensor<4x6xf32>) -> tensor<6x4xf32>
  %s46 = kiln.constant dense<[4, 6]> : tensor<2xi64>
  %xv = kiln.reshape %x, %s46 : (tensor<4x6xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  %m1 = kiln.matmul %xt, %xv : (tensor<6x4xf32>, tensor<4x6xf32>) -> tensor<6x6xf32>
  %xx = kiln.constant dense<1.0> : tensor<4x6xf32>
  %m2 = kiln.matmul %xt, %xx : (tensor<6x4xf32>, tensor<4x6xf32>) -> tensor<6x6xf32>
  return %scores, %o, %m1, %m2 : tensor<8x16x16xf32>, tensor<32x64xf32>, tensor<6x6xf32>, tensor<6x6xf32>
}

// -----

// Tests that a gemm's consumer chain passes static reshapes and a
// transpose (attention's output projection back to [B, S, E]) before the
// residual add: one kernel, whose epilogue writes the result permuted.
// CHECK-LABEL: func.func @main
// CHECK:         %[[K:.+]] = call @kernel_0(%arg0, %arg1, %arg2)
// CHECK-NEXT:    return %[[K]]
// CHECK-LABEL: func.func private @kernel_0
// CHECK:         kiln.gemm
// CHECK-NEXT:    kiln.constant
// CHECK-NEXT:    kiln.reshape
// CHECK-NEXT:    kiln.transpose
// CHECK-NEXT:    kiln.add
// CHECK-NEXT:    return
func.func @main(%x: tensor<32x64xf32>, %w: tensor<64x64xf32>, %r: tensor<2x16x64xf32>) -> tensor<2x16x64xf32> {
  %g = kiln.gemm %x, %w {trans_b = true} : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
  %s = kiln.constant dense<[16, 2, 64]> : tensor<3xi64>
  %v = kiln.reshape %g, %s : (tensor<32x64xf32>, tensor<3xi64>) -> tensor<16x2x64xf32>
  %t = kiln.transpose %v {perm = array<i64: 1, 0, 2>} : (tensor<16x2x64xf32>) -> tensor<2x16x64xf32>
  %a = kiln.add %r, %t : (tensor<2x16x64xf32>, tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  return %a : tensor<2x16x64xf32>
}

// -----

// Tests that a pad takes its prologue: the channels-last stem's input cast and
// NCHW -> NHWC transpose join the channel pad's kernel (one pass from the f32
// input); a transpose with a second reader stays outside, and so does a cast
// under it.
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:.+]]: tensor<2x3x4x5xf32>, %[[Y:.+]]: tensor<2x3x4x5xf16>)
// CHECK:         %[[P:.+]] = call @kernel_0(%[[X]])
// CHECK:         %[[T:.+]] = call @kernel_1(%[[Y]])
// CHECK:         call @kernel_2(%[[T]])
// CHECK-LABEL: func.func private @kernel_0
// CHECK-SAME:    (%{{.+}}: tensor<2x3x4x5xf32>) -> tensor<2x4x5x8xf16>
// CHECK:         kiln.cast
// CHECK-NEXT:    kiln.transpose
// CHECK:         kiln.pad
// CHECK-NEXT:    return
// CHECK-LABEL: func.func private @kernel_1
// CHECK:         kiln.transpose
// CHECK-NEXT:    return
// CHECK-LABEL: func.func private @kernel_2
// CHECK-NOT:     kiln.transpose
// CHECK:         kiln.pad
func.func @main(%x: tensor<2x3x4x5xf32>, %y: tensor<2x3x4x5xf16>) -> (tensor<2x4x5x8xf16>, tensor<2x4x5x8xf16>, tensor<2x4x5x3xf16>) {
  %pads = kiln.constant dense<[0, 0, 0, 0, 0, 0, 0, 5]> : tensor<8xi64>
  %c = kiln.cast %x : tensor<2x3x4x5xf32> -> tensor<2x3x4x5xf16>
  %t = kiln.transpose %c {perm = array<i64: 0, 2, 3, 1>} : (tensor<2x3x4x5xf16>) -> tensor<2x4x5x3xf16>
  %p = kiln.pad %t, %pads : (tensor<2x4x5x3xf16>, tensor<8xi64>) -> tensor<2x4x5x8xf16>
  %u = kiln.transpose %y {perm = array<i64: 0, 2, 3, 1>} : (tensor<2x3x4x5xf16>) -> tensor<2x4x5x3xf16>
  %q = kiln.pad %u, %pads : (tensor<2x4x5x3xf16>, tensor<8xi64>) -> tensor<2x4x5x8xf16>
  return %p, %q, %u : tensor<2x4x5x8xf16>, tensor<2x4x5x8xf16>, tensor<2x4x5x3xf16>
}

// -----

// Tests that static slices read in place join their reader's kernel: a
// conv takes the slice of its image, and the add that joins the second
// conv's kernel (as its epilogue) takes the slice it reads, so that the
// sibling-conv output is never copied. A slice that @main returns stays a
// kernel of its own.
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:.+]]: tensor<1x4x4x48xf32>
// CHECK:         %[[A:.+]] = call @kernel_0(%[[X]], %{{.+}}) : (tensor<1x4x4x48xf32>, tensor<16x3x3x16xf32>) -> tensor<1x4x4x16xf32>
// CHECK:         %[[B:.+]] = call @kernel_1(%[[A]], %{{.+}}, %[[X]]) : (tensor<1x4x4x16xf32>, tensor<32x1x1x16xf32>, tensor<1x4x4x48xf32>) -> tensor<1x4x4x32xf32>
// CHECK:         %[[S:.+]] = call @kernel_2(%[[X]]) : (tensor<1x4x4x48xf32>) -> tensor<1x4x4x16xf32>
// CHECK-LABEL: func.func private @kernel_0
// CHECK:         %[[I:.+]] = kiln.slice %arg0,
// CHECK:         kiln.conv %[[I]], %arg1
// CHECK-LABEL: func.func private @kernel_1
// CHECK:         %[[C:.+]] = kiln.conv %arg0, %arg1
// CHECK:         %[[D:.+]] = kiln.slice %arg2,
// CHECK:         kiln.add %[[C]], %[[D]]
// CHECK-LABEL: func.func private @kernel_2
// CHECK:         kiln.slice %arg0,
func.func @main(%x: tensor<1x4x4x48xf32>, %w2: tensor<16x3x3x16xf32>, %w3: tensor<32x1x1x16xf32>) -> (tensor<1x4x4x32xf32>, tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>) {
  %one = kiln.constant dense<1> : tensor<1xi64>
  %axis = kiln.constant dense<3> : tensor<1xi64>
  %c0 = kiln.constant dense<0> : tensor<1xi64>
  %c16 = kiln.constant dense<16> : tensor<1xi64>
  %c48 = kiln.constant dense<48> : tensor<1xi64>
  %r = kiln.slice %x, %c0, %c16, %axis, %one : (tensor<1x4x4x48xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x4x4x16xf32>
  %d = kiln.slice %x, %c16, %c48, %axis, %one : (tensor<1x4x4x48xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x4x4x32xf32>
  %a = kiln.conv %r, %w2 {channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x16xf32>, tensor<16x3x3x16xf32>) -> tensor<1x4x4x16xf32>
  %b = kiln.conv %a, %w3 {channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x16xf32>, tensor<32x1x1x16xf32>) -> tensor<1x4x4x32xf32>
  %sum = kiln.add %b, %d : (tensor<1x4x4x32xf32>, tensor<1x4x4x32xf32>) -> tensor<1x4x4x32xf32>
  %s = kiln.slice %x, %c0, %c16, %axis, %one : (tensor<1x4x4x48xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x4x4x16xf32>
  return %sum, %s, %a : tensor<1x4x4x32xf32>, tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>
}
