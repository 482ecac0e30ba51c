// REQUIRES: onnx
// kiln-export-plan reads what the graph, outlining and host passes made:
// they run first here, into %t/host.mlir.
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-opt %s -pass-pipeline='builtin.module(kiln-graph-pipeline{targets=host},kiln-outline-target-kernels{targets=host},kiln_plan.host_kernels(builtin.module(kiln-host-pipeline{targets=host})))' -o %t/host.mlir
// RUN: kiln-opt %t/host.mlir -kiln-export-plan='targets=host output=%t/model.plan' | FileCheck %s
// RUN: /usr/bin/python3 -c "import numpy as np; np.save('%t/x.npy', np.ones((1, 3, 8, 8), np.float32))"
// RUN: kiln-run %t/model.plan --device host --input x=%t/x.npy | FileCheck %s --check-prefix=OUT

// Tests that the plan is written to `output` and the IR is left as it was:
// @main and its declarations, the host container with its shared object.
// The plan runs on the host: with an input of ones, the 3x3 conv of
// filters of 0.25 (padding 1) sums 27 taps inside the image (6.75) and 12
// in the corners (3), plus biases of +-0.5 and +-1, then the relu: min
// 3 - 1 = 2, max 6.75 + 1 = 7.75, exact in f32.
// CHECK-LABEL: func.func @main
// CHECK:         call @kernel_0
// CHECK:       func.func private @kernel_0(tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
// CHECK:       kiln_plan.host_kernels {
// CHECK-NEXT:    module attributes {kiln_plan.shared_object = "\7FELF
// OUT: y f32 [1, 4, 8, 8]  min 2  max 7.75
func.func @main(%x: tensor<1x3x8x8xf32> {kiln.name = "x"}) -> (tensor<1x4x8x8xf32> {kiln.name = "y"}) {
  %w = kiln.constant dense<0.25> : tensor<4x3x3x3xf32>
  %b = kiln.constant dense<[0.5, -0.5, 1.0, -1.0]> : tensor<4xf32>
  %c = kiln.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %r = kiln.relu %c : tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// Tests the errors: no targets (NOTARGET), an unknown target (UNKNOWN), a
// GPU target without the GPU pipeline's kernels (NOGPU), the host target
// before the host pipeline ran (NOHOST), a plan that cannot be written
// (NOWRITE).
// RUN: not kiln-opt %t/host.mlir -kiln-export-plan 2>&1 | FileCheck %s --check-prefix=NOTARGET
// NOTARGET: error: kiln-export-plan needs the plan's targets
// RUN: not kiln-opt %t/host.mlir -kiln-export-plan=targets=host,sm_12 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: unknown target 'sm_12': use host or one of sm_70,
// RUN: not kiln-opt %t/host.mlir -kiln-export-plan=targets=host,sm_90a 2>&1 | FileCheck %s --check-prefix=NOGPU
// NOGPU: error: expected the GPU kernels (run the GPU pipeline first)
// RUN: not kiln-opt %s -pass-pipeline='builtin.module(kiln-graph-pipeline{targets=host},kiln-outline-target-kernels{targets=host},kiln-export-plan{targets=host})' 2>&1 | FileCheck %s --check-prefix=NOHOST
// NOHOST: error: expected the host kernels' shared object (run the host pipeline first)
// RUN: not kiln-opt %t/host.mlir -kiln-export-plan='targets=host output=%t/no/such/dir/model.plan' 2>&1 | FileCheck %s --check-prefix=NOWRITE
// NOWRITE: error: cannot write plan '{{.*}}model.plan'
