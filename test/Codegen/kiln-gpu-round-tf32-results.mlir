// RUN: kiln-opt %s -split-input-file -verify-diagnostics -kiln-gpu-round-tf32-results | FileCheck %s
// RUN: kiln-opt %s -split-input-file -verify-diagnostics -kiln-gpu-round-tf32-results -linalg-fuse-elementwise-ops | FileCheck %s --check-prefix=FUSED

// Tests that the results listed in kiln_plan.round_tf32_results go through
// an elementwise generic that rounds f32 to tf32 (add half an ulp of tf32,
// 0x1000, to the bits, clear the low 13) before they are returned; the
// other result is returned as it is. After elementwise fusion (FUSED) the
// rounding is in the producer's body: one generic, no second pass over the
// result.
// CHECK-LABEL: func.func private @kernel_0
// CHECK-SAME:    (%[[X:.+]]: tensor<4x8xf32>)
// CHECK:         %[[R:.+]] = linalg.generic {{.+}} ins(%[[X]] : tensor<4x8xf32>)
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<4x8xf32>
// CHECK:         %[[T:.+]] = linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}], iterator_types = ["parallel", "parallel"]} ins(%[[R]] : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[BITS:.+]] = arith.bitcast %[[IN]] : f32 to i32
// CHECK-NEXT:      %[[HALF:.+]] = arith.constant 4096 : i32
// CHECK-NEXT:      %[[ADD:.+]] = arith.addi %[[BITS]], %[[HALF]] : i32
// CHECK-NEXT:      %[[MASK:.+]] = arith.constant -8192 : i32
// CHECK-NEXT:      %[[AND:.+]] = arith.andi %[[ADD]], %[[MASK]] : i32
// CHECK-NEXT:      %[[F:.+]] = arith.bitcast %[[AND]] : i32 to f32
// CHECK-NEXT:      linalg.yield %[[F]] : f32
// CHECK:         return %[[T]], %[[X]]
// FUSED-LABEL: func.func private @kernel_0
// FUSED:         linalg.generic
// FUSED:           arith.maximumf
// FUSED:           arith.bitcast
// FUSED:           arith.andi
// FUSED-NOT:     linalg.generic
// FUSED:         return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func private @kernel_0(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) attributes {kiln_plan.round_tf32_results = array<i64: 0>} {
  %e = tensor.empty() : tensor<4x8xf32>
  %z = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %z : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %r, %x : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Tests that a function without the attribute is left alone.
// CHECK-LABEL: func.func private @plain
// CHECK-NOT:     arith.bitcast
// CHECK:         return
func.func private @plain(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}

// -----

// Tests that a listed result that is not a static f32 tensor is an error (the
// attribute promises a tf32-rounded result the pass cannot give).
// expected-error @+1 {{can round only static f32 tensors to tf32, result 0 is 'tensor<4x8xf16>'}}
func.func private @half(%x: tensor<4x8xf16>) -> tensor<4x8xf16> attributes {kiln_plan.round_tf32_results = array<i64: 0>} {
  return %x : tensor<4x8xf16>
}
