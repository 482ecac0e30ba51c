// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the kiln_plan ops.

// Tests that a kernel container must hold exactly one builtin.module.
// expected-error @+1 {{'kiln_plan.host_kernels' op expected its body to hold exactly one builtin.module}}
kiln_plan.host_kernels {
  func.func private @kernel_0()
}

// -----

// Tests that a kernel container holds nothing next to its module.
// expected-error @+1 {{'kiln_plan.gpu_kernels' op expected its body to hold exactly one builtin.module}}
kiln_plan.gpu_kernels targets(["sm_90a"]) {
  builtin.module {
  }
  builtin.module {
  }
}

// -----

// Tests that an empty kernel container is refused.
// expected-error @+1 {{'kiln_plan.host_kernels' op expected its body to hold exactly one builtin.module}}
kiln_plan.host_kernels {
}

// -----

// Tests that the GPU container needs a target.
// expected-error @+1 {{'kiln_plan.gpu_kernels' op expected at least one GPU target}}
kiln_plan.gpu_kernels targets([]) {
  builtin.module {
  }
}

// -----

// Tests that grid and block sizes are 3-D.
// expected-error @+1 {{'kiln_plan.kernel' op expected 3-D grid and block sizes in #kiln_plan.launch<kernel = @kiln_kernels::@k, grid = [4, 1], block = [32, 1, 1], shared_memory = 0, args = [0]>}}
kiln_plan.kernel @kernel_0 {num_args = 1 : i64, launches = [#kiln_plan.launch<kernel = @kiln_kernels::@k, grid = [4, 1], block = [32, 1, 1], shared_memory = 0, args = [0]>], scratch_arg = -1 : i64, scratch_bytes = 0 : i64, tensor_map_args = array<i64>, tensor_maps = []}

// -----

// Tests that grid and block sizes are positive.
// expected-error @+1 {{'kiln_plan.kernel' op expected positive 32-bit grid and block sizes in}}
kiln_plan.kernel @kernel_0 {num_args = 1 : i64, launches = [#kiln_plan.launch<kernel = @kiln_kernels::@k, grid = [4, 1, 1], block = [0, 1, 1], shared_memory = 0, args = [0]>], scratch_arg = -1 : i64, scratch_bytes = 0 : i64, tensor_map_args = array<i64>, tensor_maps = []}

// -----

// Tests that grid sizes fit 32 bits.
// expected-error @+1 {{'kiln_plan.kernel' op expected positive 32-bit grid and block sizes in}}
kiln_plan.kernel @kernel_0 {num_args = 1 : i64, launches = [#kiln_plan.launch<kernel = @kiln_kernels::@k, grid = [2147483648, 1, 1], block = [32, 1, 1], shared_memory = 0, args = [0]>], scratch_arg = -1 : i64, scratch_bytes = 0 : i64, tensor_map_args = array<i64>, tensor_maps = []}

// -----

// Tests that the shared memory size is not negative.
// expected-error @+1 {{'kiln_plan.kernel' op expected a 32-bit shared memory size in}}
kiln_plan.kernel @kernel_0 {num_args = 1 : i64, launches = [#kiln_plan.launch<kernel = @kiln_kernels::@k, grid = [1, 1, 1], block = [32, 1, 1], shared_memory = -1, args = [0]>], scratch_arg = -1 : i64, scratch_bytes = 0 : i64, tensor_map_args = array<i64>, tensor_maps = []}

// -----

// Tests that the shared memory size fits 32 bits.
// expected-error @+1 {{'kiln_plan.kernel' op expected a 32-bit shared memory size in}}
kiln_plan.kernel @kernel_0 {num_args = 1 : i64, launches = [#kiln_plan.launch<kernel = @kiln_kernels::@k, grid = [1, 1, 1], block = [32, 1, 1], shared_memory = 4294967296, args = [0]>], scratch_arg = -1 : i64, scratch_bytes = 0 : i64, tensor_map_args = array<i64>, tensor_maps = []}

// -----

// Tests that a launch's arguments are arguments of the kernel function.
// expected-error @+1 {{'kiln_plan.kernel' op launch argument 2 is not an argument of the kernel function (2 arguments)}}
kiln_plan.kernel @kernel_0 {num_args = 2 : i64, launches = [#kiln_plan.launch<kernel = @kiln_kernels::@k, grid = [1, 1, 1], block = [32, 1, 1], shared_memory = 0, args = [0, 2]>], scratch_arg = -1 : i64, scratch_bytes = 0 : i64, tensor_map_args = array<i64>, tensor_maps = []}

// -----

// Tests that a negative launch argument is refused.
// expected-error @+1 {{'kiln_plan.kernel' op launch argument -1 is not an argument of the kernel function (2 arguments)}}
kiln_plan.kernel @kernel_0 {num_args = 2 : i64, launches = [#kiln_plan.launch<kernel = @kiln_kernels::@k, grid = [1, 1, 1], block = [32, 1, 1], shared_memory = 0, args = [-1]>], scratch_arg = -1 : i64, scratch_bytes = 0 : i64, tensor_map_args = array<i64>, tensor_maps = []}

// -----

// Tests that the scratch argument is an argument (or -1).
// expected-error @+1 {{'kiln_plan.kernel' op scratch argument 5 is not an argument of the kernel function (2 arguments)}}
kiln_plan.kernel @kernel_0 {num_args = 2 : i64, launches = [], scratch_arg = 5 : i64, scratch_bytes = 256 : i64, tensor_map_args = array<i64>, tensor_maps = []}

// -----

// Tests that the scratch size is not negative.
// expected-error @+1 {{'kiln_plan.kernel' op expected a non-negative scratch size}}
kiln_plan.kernel @kernel_0 {num_args = 2 : i64, launches = [], scratch_arg = 1 : i64, scratch_bytes = -256 : i64, tensor_map_args = array<i64>, tensor_maps = []}

// -----

// Tests that there is one tensor map per tensor map argument.
// expected-error @+1 {{'kiln_plan.kernel' op expected one tensor map per tensor map argument, got 2 arguments and 1 maps}}
kiln_plan.kernel @kernel_0 {num_args = 3 : i64, launches = [], scratch_arg = -1 : i64, scratch_bytes = 0 : i64, tensor_map_args = array<i64: 1, 2>, tensor_maps = [#kiln_plan.tensor_map<source = 0, offset = 0, element_type = f16, dims = [64, 64], strides = [128], box = [64, 64], swizzle = 3>]}

// -----

// Tests that a tensor map argument is an argument.
// expected-error @+1 {{'kiln_plan.kernel' op tensor map argument 3 is not an argument of the kernel function (3 arguments)}}
kiln_plan.kernel @kernel_0 {num_args = 3 : i64, launches = [], scratch_arg = -1 : i64, scratch_bytes = 0 : i64, tensor_map_args = array<i64: 3>, tensor_maps = [#kiln_plan.tensor_map<source = 0, offset = 0, element_type = f16, dims = [64, 64], strides = [128], box = [64, 64], swizzle = 3>]}

// -----

// Tests that a tensor map's source is an argument.
// expected-error @+1 {{'kiln_plan.kernel' op tensor map source 7 is not an argument of the kernel function (3 arguments)}}
kiln_plan.kernel @kernel_0 {num_args = 3 : i64, launches = [], scratch_arg = -1 : i64, scratch_bytes = 0 : i64, tensor_map_args = array<i64: 2>, tensor_maps = [#kiln_plan.tensor_map<source = 7, offset = 0, element_type = f16, dims = [64, 64], strides = [128], box = [64, 64], swizzle = 3>]}

// -----

// Tests that launches hold #kiln_plan.launch attributes only.
// expected-error @+1 {{'kiln_plan.kernel' op attribute 'launches' failed to satisfy constraint: launches}}
kiln_plan.kernel @kernel_0 {num_args = 1 : i64, launches = [1 : i64], scratch_arg = -1 : i64, scratch_bytes = 0 : i64, tensor_map_args = array<i64>, tensor_maps = []}

// -----

// Tests that a kernel record needs its attributes.
// expected-error @+1 {{'kiln_plan.kernel' op requires attribute 'launches'}}
kiln_plan.kernel @kernel_0 {num_args = 1 : i64, scratch_arg = -1 : i64, scratch_bytes = 0 : i64, tensor_map_args = array<i64>, tensor_maps = []}

// -----

// Tests that an attribute parameter without a default is required.
// expected-error @+1 {{struct is missing required parameter: offsets}}
func.func private @kernel_0() attributes {kiln_plan.into_slices = [#kiln_plan.into_slice<result = 0, shape = [8, 3]>]}
