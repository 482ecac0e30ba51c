// REQUIRES: ptxas
// The PTX comes from the steps before kiln-gpu-ptxas in kiln-gpu-pipeline,
// run here in the RUN line: targets attached, NVVM, gpu-module-to-binary.
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-opt %s -pass-pipeline='builtin.module(kiln-gpu-attach-targets{targets=sm_90a,sm_80},gpu.module(convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=1}),reconcile-unrealized-casts,gpu-module-to-binary{format=isa},kiln-gpu-ptxas)' | FileCheck %s

// Tests that each target's PTX object of gpu.binary @kiln_kernels is
// followed by a `bin` object of the same target: the cubin ptxas made from
// it (an ELF file).
// CHECK-LABEL: gpu.binary @kiln_kernels
// CHECK-SAME:   #gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">
// CHECK-SAME:   assembly = "{{[^"]*}}.target sm_90a
// CHECK-SAME:   #gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">
// CHECK-SAME:   bin = "\7FELF
// CHECK-SAME:   #gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">
// CHECK-SAME:   assembly = "{{[^"]*}}.target sm_80
// CHECK-SAME:   #gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">
// CHECK-SAME:   bin = "\7FELF
// CHECK-NOT:  gpu.module

// Tests that a ptxas that cannot be run (MISSING) and one that fails
// (FAILS; its exit status and output are in the error) are errors.
// RUN: not kiln-opt %s -pass-pipeline='builtin.module(kiln-gpu-attach-targets{targets=sm_90a},gpu.module(convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=1}),reconcile-unrealized-casts,gpu-module-to-binary{format=isa},kiln-gpu-ptxas{ptxas=%t/none})' 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: cannot find ptxas (CUDA toolkit) to build cubins for sm_90a: install the CUDA toolkit, set CUDA_HOME, or pass --cuda-path
// RUN: echo '#!/bin/sh' > %t/ptxas
// RUN: echo 'echo "ptxas fatal : something is wrong"; exit 3' >> %t/ptxas
// RUN: chmod +x %t/ptxas
// RUN: not kiln-opt %s -pass-pipeline='builtin.module(kiln-gpu-attach-targets{targets=sm_90a},gpu.module(convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=1}),reconcile-unrealized-casts,gpu-module-to-binary{format=isa},kiln-gpu-ptxas{ptxas=%t/ptxas})' 2>&1 | FileCheck %s --check-prefix=FAILS
// FAILS: error: ptxas for sm_90a failed (exit 3): ptxas fatal : something is wrong

// Tests that a module without gpu.binary @kiln_kernels is an error (NOBIN).
// RUN: not kiln-opt %s -kiln-gpu-ptxas 2>&1 | FileCheck %s --check-prefix=NOBIN
// NOBIN: error: expected gpu.binary @kiln_kernels (see gpu-module-to-binary)
module attributes {gpu.container_module} {
  gpu.module @kiln_kernels {
    gpu.func @kernel_0_0(%x: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<4xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %x[%c0] : memref<4xf32>
      gpu.return
    }
  }
}
