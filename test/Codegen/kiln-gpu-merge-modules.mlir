// RUN: kiln-opt %s -split-input-file -kiln-gpu-merge-modules -verify-diagnostics | FileCheck %s

// Tests that every outlined kernel moves into gpu.module @kiln_kernels,
// renamed <kernel function>_<k> in launch order, kernel functions in call
// order (kiln_plan.kernels), then each region's tactic variants; the
// launches point at the new names, a constant both kernels use is kept
// once, and the outlined modules are gone.
// CHECK-LABEL: func.func @kernel_0
// CHECK:         gpu.launch_func @kiln_kernels::@kernel_0_0 blocks
// CHECK:         gpu.launch_func @kiln_kernels::@kernel_0_1 blocks
// CHECK-LABEL: func.func @kernel_1
// CHECK:         gpu.launch_func @kiln_kernels::@kernel_1_0 blocks
// CHECK-LABEL: func.func @kernel_1__v1
// CHECK:         gpu.launch_func @kiln_kernels::@kernel_1__v1_0 blocks
// CHECK-NOT:   gpu.module @kernel_0_kernel
// CHECK:       gpu.module @kiln_kernels {
// CHECK-NEXT:    gpu.func @kernel_1_0(
// CHECK:         gpu.func @kernel_0_0(
// CHECK:           memref.get_global @cst
// CHECK:         gpu.func @kernel_0_1(
// CHECK:         gpu.func @kernel_1__v1_0(
// CHECK:           memref.get_global @cst
// CHECK:         memref.global "private" constant @cst
// CHECK-NOT:     memref.global
// CHECK-NOT:   gpu.module
module attributes {gpu.container_module, kiln_plan.kernels = [@kernel_1, @kernel_0]} {
  func.func @kernel_0(%x: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernel_0_kernel::@kernel_0_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    gpu.launch_func @kernel_0_kernel_0::@kernel_0_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    return
  }
  func.func @kernel_1(%x: memref<4xf32>) attributes {kiln_plan.choice = #kiln_plan.choice<key = "00000000000000aa", shapes = "", variants = [#kiln_plan.variant<function = @kernel_1, tactics = "a">, #kiln_plan.variant<function = @kernel_1__v1, tactics = "b">]>} {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernel_1_kernel::@kernel_1_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    return
  }
  func.func @kernel_1__v1(%x: memref<4xf32>) attributes {kiln.tactic_variant = 1 : i64} {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernel_1__v1_kernel::@kernel_1__v1_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    return
  }
  gpu.module @kernel_0_kernel {
    memref.global "private" constant @cst : memref<4xf32> = dense<1.0>
    gpu.func @kernel_0_kernel(%x: memref<4xf32>) kernel {
      %g = memref.get_global @cst : memref<4xf32>
      gpu.return
    }
  }
  gpu.module @kernel_0_kernel_0 {
    gpu.func @kernel_0_kernel(%x: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @kernel_1_kernel {
    gpu.func @kernel_1_kernel(%x: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @kernel_1__v1_kernel {
    memref.global "private" constant @cst : memref<4xf32> = dense<1.0>
    gpu.func @kernel_1__v1_kernel(%x: memref<4xf32>) kernel {
      %g = memref.get_global @cst : memref<4xf32>
      gpu.return
    }
  }
}

// -----

// Tests that a module without kiln_plan.kernels is an error.
// expected-error @+1 {{expected the kernel functions in call order (module attribute kiln_plan.kernels, see kiln-outline-target-kernels)}}
module attributes {gpu.container_module} {
}

// -----

// Tests that a listed kernel function that is missing is an error.
// expected-error @+1 {{kernel function @kernel_3 is missing}}
module attributes {gpu.container_module, kiln_plan.kernels = [@kernel_3]} {
}
