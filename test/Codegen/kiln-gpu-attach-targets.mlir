// RUN: kiln-opt %s -split-input-file -kiln-gpu-attach-targets=targets=sm_90a,sm_80,sm_100a -verify-diagnostics | FileCheck %s
// RUN: not kiln-opt %s -split-input-file -kiln-gpu-attach-targets=targets=sm_90a,sm_42 2>&1 | FileCheck %s --check-prefix=BAD

// Tests that gpu.module @kiln_kernels gets one #nvvm.target per GPU target
// in the order given, at O3, with the PTX ISA each architecture is built
// with (+ptx80 up to sm_90a, newer for Blackwell); other gpu.modules get
// none.
// CHECK-LABEL: gpu.module @kiln_kernels [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">, #nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">, #nvvm.target<O = 3, chip = "sm_100a", features = "+ptx86">] {
// CHECK:        gpu.module @other {
module attributes {gpu.container_module} {
  gpu.module @kiln_kernels {
  }
  gpu.module @other {
  }
}

// -----

// Tests that a module without the merged gpu.module is an error.
// expected-error @+1 {{expected gpu.module @kiln_kernels (see kiln-gpu-merge-modules)}}
module attributes {gpu.container_module} {
  gpu.module @kernel_0_kernel {
  }
}

// Tests that an unknown target is an error listing the known ones (BAD).
// BAD: error: unknown GPU target 'sm_42': use one of sm_70,
