// RUN: kiln-opt %s -split-input-file -kiln-gpu-record-launches -verify-diagnostics | FileCheck %s

// Tests that each kernel function becomes a kiln_plan.kernel record of the
// same name: its launches (kernel, grid, block, dynamic shared memory,
// argument numbers), its scratch argument and size, its tensor-map
// arguments and its tactic choice; the functions are gone, dead host-side
// recomputation included, and the kernels' gpu.module stays.
// CHECK-LABEL: kiln_plan.kernel @kernel_0 {
// CHECK-SAME:    launches = [#kiln_plan.launch<kernel = @kiln_kernels::@kernel_0_0, grid = [4, 2, 1], block = [128, 1, 1], shared_memory = 0, args = [0, 2]>, #kiln_plan.launch<kernel = @kiln_kernels::@kernel_0_1, grid = [1, 1, 1], block = [32, 1, 1], shared_memory = 4096, args = [2, 1, 3]>]
// CHECK-SAME:    num_args = 4 : i64
// CHECK-SAME:    scratch_arg = 2 : i64, scratch_bytes = 512 : i64, tensor_map_args = array<i64: 3>
// CHECK-SAME:    tensor_maps = [#kiln_plan.tensor_map<source = 0, offset = 0, element_type = f16, dims = [64, 64], strides = [128], box = [64, 64], swizzle = 3>]
// CHECK-LABEL: kiln_plan.kernel @kernel_1 {
// CHECK-SAME:    choice = #kiln_plan.choice<key = "00000000000000aa", shapes = "64x64x64", variants = [#kiln_plan.variant<function = @kernel_1, tactics = "a">, #kiln_plan.variant<function = @kernel_1__v1, tactics = "b">]>
// CHECK-SAME:    launches = [#kiln_plan.launch<kernel = @kiln_kernels::@kernel_1_0, grid = [1, 1, 1], block = [1, 1, 1], shared_memory = 0, args = [0]>]
// CHECK-SAME:    scratch_arg = -1 : i64, scratch_bytes = 0 : i64, tensor_map_args = array<i64>, tensor_maps = []
// CHECK-LABEL: kiln_plan.kernel @kernel_1__v1 {
// CHECK-NOT:     choice
// CHECK-SAME:    launches = [#kiln_plan.launch<kernel = @kiln_kernels::@kernel_1__v1_0,
// CHECK-NOT:   func.func
// CHECK:       gpu.module @kiln_kernels
module attributes {gpu.container_module, kiln_plan.kernels = [@kernel_0, @kernel_1]} {
  func.func @kernel_0(%x: memref<64x64xf16>, %y: memref<4xf32>, %s: memref<512xi8> {kiln.scratch}, %map: memref<128xi8> {kiln_plan.tensor_map = #kiln_plan.tensor_map<source = 0, offset = 0, element_type = f16, dims = [64, 64], strides = [128], box = [64, 64], swizzle = 3>}) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %smem = arith.constant 4096 : i32
    %dead = memref.subview %x[0, 0] [4, 4] [1, 1] : memref<64x64xf16> to memref<4x4xf16, strided<[64, 1]>>
    gpu.launch_func @kiln_kernels::@kernel_0_0 blocks in (%c4, %c2, %c1) threads in (%c128, %c1, %c1) args(%x : memref<64x64xf16>, %s : memref<512xi8>)
    gpu.launch_func @kiln_kernels::@kernel_0_1 blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) dynamic_shared_memory_size %smem args(%s : memref<512xi8>, %y : memref<4xf32>, %map : memref<128xi8>)
    return
  }
  func.func @kernel_1(%x: memref<4xf32>) attributes {kiln_plan.choice = #kiln_plan.choice<key = "00000000000000aa", shapes = "64x64x64", variants = [#kiln_plan.variant<function = @kernel_1, tactics = "a">, #kiln_plan.variant<function = @kernel_1__v1, tactics = "b">]>} {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kiln_kernels::@kernel_1_0 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    return
  }
  func.func @kernel_1__v1(%x: memref<4xf32>) attributes {kiln.tactic_variant = 1 : i64} {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kiln_kernels::@kernel_1__v1_0 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    return
  }
  gpu.module @kiln_kernels {
    gpu.func @kernel_0_0(%x: memref<64x64xf16>, %s: memref<512xi8>) kernel {
      gpu.return
    }
    gpu.func @kernel_0_1(%s: memref<512xi8>, %y: memref<4xf32>, %map: memref<128xi8>) kernel {
      gpu.return
    }
    gpu.func @kernel_1_0(%x: memref<4xf32>) kernel {
      gpu.return
    }
    gpu.func @kernel_1__v1_0(%x: memref<4xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// Tests that an op left on the host side, outside every launch, is an
// error.
module attributes {gpu.container_module, kiln_plan.kernels = [@kernel_0]} {
  func.func @kernel_0(%x: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    %f = arith.constant 0.0 : f32
    // expected-error @+1 {{'linalg.fill' op was left outside every GPU kernel}}
    linalg.fill ins(%f : f32) outs(%x : memref<4xf32>)
    gpu.launch_func @kiln_kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    return
  }
  gpu.module @kiln_kernels {
    gpu.func @k(%x: memref<4xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// Tests that a launch whose grid is no constant is an error.
module attributes {gpu.container_module, kiln_plan.kernels = [@kernel_0]} {
  func.func @kernel_0(%x: memref<4xf32>, %n: memref<index>) {
    %c1 = arith.constant 1 : index
    %g = memref.load %n[] : memref<index>
    // expected-error @+1 {{'gpu.launch_func' op has a grid size that is not a positive constant}}
    gpu.launch_func @kiln_kernels::@k blocks in (%g, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    return
  }
  gpu.module @kiln_kernels {
    gpu.func @k(%x: memref<4xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// Tests that a launch passing its kernel a value that is no argument of the
// kernel function (a view made on the host side) is an error.
module attributes {gpu.container_module, kiln_plan.kernels = [@kernel_0]} {
  func.func @kernel_0(%x: memref<8xf32>) {
    %c1 = arith.constant 1 : index
    %v = memref.subview %x[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
    // expected-error @+1 {{'gpu.launch_func' op passes a value that is not an argument of @kernel_0 to its kernel}}
    gpu.launch_func @kiln_kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%v : memref<4xf32, strided<[1]>>)
    return
  }
  gpu.module @kiln_kernels {
    gpu.func @k(%x: memref<4xf32, strided<[1]>>) kernel {
      gpu.return
    }
  }
}
