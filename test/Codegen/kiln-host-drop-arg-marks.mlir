// RUN: kiln-opt %s -split-input-file -kiln-host-drop-arg-marks | FileCheck %s

// Tests that the kiln.* and kiln_plan.* argument attributes of kernel
// functions are dropped and other argument attributes are kept, in nested
// modules too (the host container's).
// CHECK-LABEL: func.func private @kernel_0
// CHECK-SAME:    (%{{[^:]+}}: tensor<4x8xf32>, %{{[^:]+}}: tensor<8x8xf32>, %{{[^:]+}}: tensor<8xf32> {llvm.noalias}) -> tensor<4x8xf32>
// CHECK-NOT:     kiln.tf32_rounded
// CHECK-NOT:     kiln_plan.tensor_map
// CHECK-NOT:     kiln.scratch
// CHECK-LABEL: func.func private @kernel_1
// CHECK-SAME:    (%{{[^:]+}}: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NOT:     kiln.
func.func private @kernel_0(%x: tensor<4x8xf32> {kiln.tf32_rounded}, %w: tensor<8x8xf32> {kiln_plan.tensor_map = #kiln_plan.tensor_map<source = 0, offset = 0, element_type = f32, dims = [8, 8], strides = [32], box = [8, 8], swizzle = 3>}, %b: tensor<8xf32> {kiln.scratch, llvm.noalias}) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}
module {
  func.func private @kernel_1(%x: tensor<4xf32> {kiln.tf32_rounded}) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}
