// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s
// RUN: kiln-opt %s -split-input-file --mlir-print-op-generic | kiln-opt -split-input-file | FileCheck %s

// Round trip of the kiln_plan ops and attributes through the custom and the
// generic form.

// Tests that kiln_plan.host_kernels and kiln_plan.gpu_kernels round-trip
// with their module, its kiln_plan.kernels and the GPU targets.
// CHECK-LABEL: module {
// CHECK:         kiln_plan.host_kernels {
// CHECK-NEXT:      module attributes {kiln_plan.kernels = [@kernel_1, @kernel_0]} {
// CHECK-NEXT:        func.func private @kernel_0(
// CHECK:         kiln_plan.gpu_kernels targets(["sm_90a", "sm_80"]) {
// CHECK-NEXT:      module attributes {kiln_plan.kernels = [@kernel_0]} {
// CHECK-NEXT:        func.func private @kernel_0(
module {
  kiln_plan.host_kernels {
    module attributes {kiln_plan.kernels = [@kernel_1, @kernel_0]} {
      func.func private @kernel_0(%x: tensor<4xf32>) -> tensor<4xf32> {
        return %x : tensor<4xf32>
      }
      func.func private @kernel_1(%x: tensor<4xf32>) -> tensor<4xf32> {
        return %x : tensor<4xf32>
      }
    }
  }
  kiln_plan.gpu_kernels targets(["sm_90a", "sm_80"]) {
    module attributes {kiln_plan.kernels = [@kernel_0]} {
      func.func private @kernel_0(%x: tensor<4xf32>) -> tensor<4xf32> {
        return %x : tensor<4xf32>
      }
    }
  }
}

// -----

// Tests that the containers keep their discardable attributes.
// CHECK-LABEL: kiln_plan.host_kernels attributes {note = "kept"} {
// CHECK-NEXT:    module {
kiln_plan.host_kernels attributes {note = "kept"} {
  module {
  }
}

// -----

// Tests that kiln_plan.kernel round-trips its launches, scratch, tensor
// maps and tactic choice.
// CHECK-LABEL: kiln_plan.kernel @kernel_3 {
// CHECK-SAME:    choice = #kiln_plan.choice<key = "0123456789abcdef", shapes = "128x64x256", variants = [#kiln_plan.variant<function = @kernel_3, tactics = "wgmma 128x64x64 3 stages">, #kiln_plan.variant<function = @kernel_3__v1, tactics = "mma.sync 64x64x32 ring 4">]>
// CHECK-SAME:    launches = [#kiln_plan.launch<kernel = @kiln_kernels::@kernel_3_0, grid = [49, 1, 1], block = [256, 1, 1], shared_memory = 0, args = [0, 1, 2]>, #kiln_plan.launch<kernel = @kiln_kernels::@kernel_3_1, grid = [2, 3, 4], block = [32, 4, 1], shared_memory = 98304, args = [3, 4, 2]>]
// CHECK-SAME:    num_args = 5 : i64, scratch_arg = 3 : i64, scratch_bytes = 1024 : i64, tensor_map_args = array<i64: 4>
// CHECK-SAME:    tensor_maps = [#kiln_plan.tensor_map<source = 0, offset = 256, element_type = bf16, dims = [64, 128], strides = [256], box = [64, 64], swizzle = 3>]}
// CHECK-LABEL: kiln_plan.kernel @kernel_4 {
// CHECK-SAME:    launches = [], num_args = 0 : i64, scratch_arg = -1 : i64, scratch_bytes = 0 : i64, tensor_map_args = array<i64>, tensor_maps = []}
kiln_plan.kernel @kernel_3 {num_args = 5 : i64,
    launches = [#kiln_plan.launch<kernel = @kiln_kernels::@kernel_3_0, grid = [49, 1, 1], block = [256, 1, 1], shared_memory = 0, args = [0, 1, 2]>,
                #kiln_plan.launch<kernel = @kiln_kernels::@kernel_3_1, grid = [2, 3, 4], block = [32, 4, 1], shared_memory = 98304, args = [3, 4, 2]>],
    scratch_arg = 3 : i64, scratch_bytes = 1024 : i64,
    tensor_map_args = array<i64: 4>,
    tensor_maps = [#kiln_plan.tensor_map<source = 0, offset = 256, element_type = bf16, dims = [64, 128], strides = [256], box = [64, 64], swizzle = 3>],
    choice = #kiln_plan.choice<key = "0123456789abcdef", shapes = "128x64x256", variants = [#kiln_plan.variant<function = @kernel_3, tactics = "wgmma 128x64x64 3 stages">, #kiln_plan.variant<function = @kernel_3__v1, tactics = "mma.sync 64x64x32 ring 4">]>}
kiln_plan.kernel @kernel_4 {num_args = 0 : i64, launches = [], scratch_arg = -1 : i64, scratch_bytes = 0 : i64, tensor_map_args = array<i64>, tensor_maps = []}

// -----

// Tests that #kiln_plan.into_slice round-trips, out_param defaulting to -1
// (not printed) and set.
// CHECK-LABEL: func.func private @kernel_0()
// CHECK-SAME:    kiln_plan.into_slices = [#kiln_plan.into_slice<result = 0, shape = [1, 6, 4, 4], offsets = [0, 2, 0, 0]>, #kiln_plan.into_slice<result = 1, shape = [8, 3], offsets = [4, 0], out_param = 3>]
func.func private @kernel_0() attributes {kiln_plan.into_slices = [#kiln_plan.into_slice<result = 0, shape = [1, 6, 4, 4], offsets = [0, 2, 0, 0]>, #kiln_plan.into_slice<result = 1, shape = [8, 3], offsets = [4, 0], out_param = 3>]}
