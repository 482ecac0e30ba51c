// RUN: kiln-opt %s -split-input-file -kiln-fuse-sibling-matmuls | FileCheck %s

// Tests that three matmuls of one input with constant [K, N] weights of one
// type, each read only by a bias add, become one matmul of x as [L, K] against
// the stacked weights [3, K, N], the stacked biases [3, 1, N] added after it,
// and each old result a slice of that, reshaped back. The stacked constants
// carry kiln.stack_parts (a plan stores the parts as separate buffers, back to
// back).
// CHECK-LABEL: func.func @qkv
// CHECK-SAME:    (%[[X:.+]]: tensor<2x4x8xf32>)
// CHECK:         %[[X2:.+]] = kiln.reshape %[[X]], %{{.+}} : (tensor<2x4x8xf32>, tensor<2xi64>) -> tensor<8x8xf32>
// (Printed as hex: wq's 0.5 first, wv's 7.0 last.)
// CHECK:         %[[W:.+]] = kiln.constant {kiln.stack_parts = 3 : i64} dense<"0x0000003F{{[0-9A-F]*}}0000E040"> : tensor<3x8x6xf32>
// CHECK:         %[[Y:.+]] = kiln.matmul %[[X2]], %[[W]] : (tensor<8x8xf32>, tensor<3x8x6xf32>) -> tensor<3x8x6xf32>
// CHECK:         %[[B:.+]] = kiln.constant {kiln.stack_parts = 3 : i64} dense<{{\[\[\[}}1.000000e+00, 1.000000e+00{{.*}}1.500000e+00]], {{\[\[}}2.000000e+00{{.*}}2.500000e+00]], {{\[\[}}3.000000e+00{{.*}}3.500000e+00]]]> : tensor<3x1x6xf32>
// CHECK:         %[[Z:.+]] = kiln.add %[[Y]], %[[B]] : (tensor<3x8x6xf32>, tensor<3x1x6xf32>) -> tensor<3x8x6xf32>
// CHECK-COUNT-3: kiln.slice %[[Z]], {{.*}} -> tensor<1x8x6xf32>
// CHECK-NOT:     kiln.matmul
// CHECK:         return
func.func @qkv(%x: tensor<2x4x8xf32>) -> (tensor<2x4x6xf32>, tensor<2x4x6xf32>, tensor<2x4x6xf32>) {
  %wq = kiln.constant dense<[[0.5, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]]> : tensor<8x6xf32>
  %wk = kiln.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]]> : tensor<8x6xf32>
  %wv = kiln.constant dense<[[6.0, 5.0, 4.0, 3.0, 2.0, 1.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0, 2.0, 3.0, 4.0, 5.0, 7.0]]> : tensor<8x6xf32>
  %bq = kiln.constant dense<[1.0, 1.0, 1.0, 1.0, 1.0, 1.5]> : tensor<6xf32>
  %bk = kiln.constant dense<[2.0, 2.0, 2.0, 2.0, 2.0, 2.5]> : tensor<6xf32>
  %bv = kiln.constant dense<[3.0, 3.0, 3.0, 3.0, 3.0, 3.5]> : tensor<6xf32>
  %q = kiln.matmul %x, %wq : (tensor<2x4x8xf32>, tensor<8x6xf32>) -> tensor<2x4x6xf32>
  %qb = kiln.add %q, %bq : (tensor<2x4x6xf32>, tensor<6xf32>) -> tensor<2x4x6xf32>
  %k = kiln.matmul %x, %wk : (tensor<2x4x8xf32>, tensor<8x6xf32>) -> tensor<2x4x6xf32>
  %kb = kiln.add %bk, %k : (tensor<6xf32>, tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  %v = kiln.matmul %x, %wv : (tensor<2x4x8xf32>, tensor<8x6xf32>) -> tensor<2x4x6xf32>
  %vb = kiln.add %v, %bv : (tensor<2x4x6xf32>, tensor<6xf32>) -> tensor<2x4x6xf32>
  return %qb, %kb, %vb : tensor<2x4x6xf32>, tensor<2x4x6xf32>, tensor<2x4x6xf32>
}

// -----

// Tests that a matmul whose weight has another type, or is no constant, stays
// alone. Of the two that fuse, one has no bias add: no bias folds, each slice
// replaces a matmul.
// CHECK-LABEL: func.func @mixed
// CHECK:         %[[Y:.+]] = kiln.matmul %{{.+}}, %{{.+}} : (tensor<4x8xf32>, tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
// CHECK-NOT:     kiln.add %[[Y]]
// CHECK:         kiln.slice %[[Y]]
// CHECK:         kiln.slice %[[Y]]
// CHECK:         kiln.matmul %{{.+}}, %{{.+}} : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
// CHECK:         kiln.matmul %{{.+}}, %{{.+}} : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
func.func @mixed(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x2xf32>, tensor<4x4xf32>) {
  %w1 = kiln.constant dense<[[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 5.0]]> : tensor<8x4xf32>
  %w2 = kiln.constant dense<[[4.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 5.0]]> : tensor<8x4xf32>
  %w3 = kiln.constant dense<[[1.0, 2.0], [1.0, 2.0], [1.0, 2.0], [1.0, 2.0], [1.0, 2.0], [1.0, 2.0], [1.0, 2.0], [1.0, 3.0]]> : tensor<8x2xf32>
  %b = kiln.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %a = kiln.matmul %x, %w1 : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %ab = kiln.add %a, %b : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  %c = kiln.matmul %x, %w2 : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %d = kiln.matmul %x, %w3 : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %e = kiln.matmul %x, %w : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return %ab, %c, %d, %e : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x2xf32>, tensor<4x4xf32>
}

// -----

// Tests that two matmuls reading one weight constant fuse like any siblings
// (the stack holds it twice); the old constant goes once.
// CHECK-LABEL: func.func @shared_weight
// CHECK:         %[[W:.+]] = kiln.constant {kiln.stack_parts = 2 : i64} {{.*}} : tensor<2x8x4xf32>
// CHECK:         kiln.matmul %{{.+}}, %[[W]] : (tensor<4x8xf32>, tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
// CHECK-NOT:     tensor<8x4xf32>
// CHECK:         return
func.func @shared_weight(%x: tensor<4x8xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %w = kiln.constant dense<[[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 5.0]]> : tensor<8x4xf32>
  %a = kiln.matmul %x, %w : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %b = kiln.matmul %x, %w : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return %a, %b : tensor<4x4xf32>, tensor<4x4xf32>
}
