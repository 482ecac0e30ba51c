// RUN: kiln-opt %s -split-input-file -kiln-layout-nhwc="tf32=1" | FileCheck %s
// RUN: kiln-opt %s -split-input-file -kiln-layout-nhwc | FileCheck %s --check-prefix=F32

// Tests that with tf32 (kilnc --precision tf32), where f32 convs run on the
// tensor cores, an f32 RGB stem gets the zero channels and zero-tap
// kiln.derived filter an f16 one gets, so that its loads move 8 channels at a
// time. Without the option an f32 conv (strict fp32, loop-nest kernels) keeps
// its 3 channels.
// CHECK-LABEL: func.func @main
// CHECK:         %[[T:.+]] = kiln.transpose %{{.+}} {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x4xf32>) -> tensor<1x4x4x3xf32>
// CHECK:         %[[W:.+]] = kiln.constant {kiln.derived, kiln.tf32_rounded} dense<{{\[\[\[\[}}0.000000e+00, 1.000000e+00, 2.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]], {{\[\[\[}}1.000000e+01, 1.100000e+01, 1.200000e+01, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]]]> : tensor<2x1x1x8xf32>
// CHECK:         %[[P:.+]] = kiln.pad %[[T]], %{{.+}} : (tensor<1x4x4x3xf32>, tensor<8xi64>) -> tensor<1x4x4x8xf32>
// CHECK:         kiln.conv %[[P]], %[[W]] {channels_last = true, {{.*}}} : (tensor<1x4x4x8xf32>, tensor<2x1x1x8xf32>) -> tensor<1x4x4x2xf32>
// F32-LABEL:     func.func @main
// F32-NOT:       kiln.pad
// F32:           kiln.conv %{{.+}}, %{{.+}} {channels_last = true, {{.*}}} : (tensor<1x4x4x3xf32>, tensor<2x1x1x3xf32>) -> tensor<1x4x4x2xf32>
func.func @main(%x: tensor<1x3x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = kiln.constant dense<[[[[0.0]], [[1.0]], [[2.0]]], [[[10.0]], [[11.0]], [[12.0]]]]> : tensor<2x3x1x1xf32>
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %c : tensor<1x2x4x4xf32>
}

// -----

// Tests that a narrow grouped f32 conv (2 groups of 2 channels and 2 filters)
// runs as the dense conv of group 1 with a block-diagonal kiln.derived filter,
// as f16 ones do; without tf32 it stays grouped.
// CHECK-LABEL: func.func @main
// CHECK:         %[[W:.+]] = kiln.constant {kiln.derived, kiln.tf32_rounded} {{.*}} : tensor<4x1x1x4xf32>
// CHECK:         kiln.conv %{{.+}}, %[[W]] {channels_last = true, {{.*}}} : (tensor<1x3x3x4xf32>, tensor<4x1x1x4xf32>) -> tensor<1x3x3x4xf32>
// F32-LABEL:     func.func @main
// F32:           kiln.conv %{{.+}}, %{{.+}} {channels_last = true, {{.*}}group = 2 : i64{{.*}}} : (tensor<1x3x3x4xf32>, tensor<4x1x1x2xf32>) -> tensor<1x3x3x4xf32>
func.func @main(%x: tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %w = kiln.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]], [[[5.0]], [[6.0]]], [[[7.0]], [[8.0]]]]> : tensor<4x2x1x1xf32>
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x3x3xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x3x3xf32>
  return %c : tensor<1x4x3x3xf32>
}

// -----

// Tests that, since tf32 wgmma reads K-major operands only, a matmul's constant
// [K, N] right-hand side is stored transposed, [N, K] (the model's tensor,
// transposed: stripped from plans and found by kiln-refit), and read
// through a transpose; a gemm's flips trans_b. Weights only tensor-core
// operands read are rounded to tf32 at build time (kiln.tf32_rounded; to
// nearest, ties away from zero: 1 + 3 * 2^-12 becomes 1 + 2^-10).
// Without tf32 nothing moves.
// CHECK-LABEL: func.func @main
// CHECK-DAG:     %[[WT:.+]] = kiln.constant {kiln.tf32_rounded} dense<{{\[\[}}1.000000e+00, 3.000000e+00, 5.000000e+00], [2.000000e+00, 4.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
// CHECK-DAG:     %[[GT:.+]] = kiln.constant {kiln.tf32_rounded} dense<{{\[\[}}1.00097656, 3.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK:         %[[T:.+]] = kiln.transpose %[[WT]] {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK:         %[[M:.+]] = kiln.matmul %{{.+}}, %[[T]] : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
// CHECK:         kiln.gemm %[[M]], %[[GT]] {trans_b = true} : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
// F32-LABEL:     func.func @main
// F32-NOT:       kiln.transpose
// F32:           kiln.gemm %{{.+}}, %{{.+}} : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
func.func @main(%x: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %w = kiln.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %g = kiln.constant dense<[[1.000732421875, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %m = kiln.matmul %x, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %y = kiln.gemm %m, %g : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}
