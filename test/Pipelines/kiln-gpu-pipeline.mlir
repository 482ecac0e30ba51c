// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-gpu-pipeline=targets=sm_80,sm_90a -mlir-disable-threading -mlir-print-ir-after=kiln-gpu-assign-scratch -mlir-print-ir-after=kiln-gpu-merge-modules 2>&1 | FileCheck %s

// Tests that kiln-gpu-pipeline takes a module of kernel functions (as
// kiln_plan.gpu_kernels holds it) for two GPU targets to launch records
// and binaries: the f16 matmul + relu becomes an mma.sync kernel with its
// epilogue fused (wgmma needs every target to be sm_90a); the softmax over
// rows of 64 one warp-per-row launch; the softmax over rows of 8, left to
// the generic path, keeps its row statistics in a scratch argument
// (kiln.scratch); outlined kernels are merged into gpu.module @kiln_kernels
// in call order; each kernel function is replaced by its kiln_plan.kernel
// record (the scratch argument and size included), next to a gpu.binary
// with PTX and a cubin for each target.
// CHECK-LABEL: IR Dump After GpuAssignScratchPass (kiln-gpu-assign-scratch)
// CHECK-NEXT:  func.func private @kernel_0({{.*}}) attributes {kiln.gemm_shapes = "64x64x32", kiln.tactics = "mma.sync
// CHECK:         } {kiln.tactic = "mma.sync {{.*}} + fused epilogue"}
// CHECK-LABEL: IR Dump After GpuAssignScratchPass (kiln-gpu-assign-scratch)
// CHECK-NEXT:  func.func private @kernel_1(%{{[^:]+}}: memref<16x64xf32>, %{{[^:]+}}: memref<16x64xf32>) {
// CHECK:         } {kiln.tactic = "warp row fusion of {{[0-9]+}} ops"}
// CHECK-LABEL: IR Dump After GpuAssignScratchPass (kiln-gpu-assign-scratch)
// CHECK-NEXT:  func.func private @kernel_2(%{{[^:]+}}: memref<4x8xf32>, %{{[^:]+}}: memref<4x8xf32>, %[[S:[^:]+]]: memref<[[BYTES:[0-9]+]]xi8> {kiln.scratch}) {
// CHECK-NOT:     memref.alloc
// CHECK:         memref.view %[[S]][%{{.+}}][] : memref<[[BYTES]]xi8> to memref<4xf32>

// CHECK-LABEL: IR Dump After GpuMergeModulesPass (kiln-gpu-merge-modules)
// CHECK:         gpu.launch_func  @kiln_kernels::@kernel_0_0
// CHECK:         gpu.launch_func  @kiln_kernels::@kernel_1_0
// CHECK:         gpu.launch_func  @kiln_kernels::@kernel_2_0
// CHECK:       gpu.module @kiln_kernels {
// CHECK:         gpu.func @kernel_0_0(
// CHECK:         gpu.func @kernel_1_0(
// CHECK:         gpu.func @kernel_2_0(
// CHECK-NOT:   gpu.module

// CHECK:       module attributes {gpu.container_module, kiln_plan.kernels = [@kernel_0, @kernel_1, @kernel_2]} {
// CHECK-NEXT:    kiln_plan.kernel @kernel_0 {launches = [#kiln_plan.launch<kernel = @kiln_kernels::@kernel_0_0, {{.*}}, args = [0, 1, 2]>], num_args = 3 : i64, scratch_arg = -1 : i64, scratch_bytes = 0 : i64
// CHECK-NEXT:    kiln_plan.kernel @kernel_1 {launches = [#kiln_plan.launch<kernel = @kiln_kernels::@kernel_1_0, {{.*}}, args = [0, 1]>], num_args = 2 : i64, scratch_arg = -1 : i64
// CHECK-NEXT:    kiln_plan.kernel @kernel_2 {launches = [#kiln_plan.launch<kernel = @kiln_kernels::@kernel_2_0, {{.*}}], num_args = 3 : i64, scratch_arg = 2 : i64, scratch_bytes = [[BYTES]] : i64
// CHECK-NEXT:    gpu.binary @kiln_kernels
// CHECK-SAME:      chip = "sm_80"
// CHECK-SAME:      bin = "\7FELF
// CHECK-SAME:      chip = "sm_90a"
// CHECK-SAME:      bin = "\7FELF
// CHECK-NOT:     func.func
module attributes {kiln_plan.kernels = [@kernel_0, @kernel_1, @kernel_2]} {
  func.func private @kernel_0(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) -> tensor<64x64xf16> {
    %m = kiln.matmul %a, %b : (tensor<64x32xf16>, tensor<32x64xf16>) -> tensor<64x64xf16>
    %r = kiln.relu %m : tensor<64x64xf16>
    return %r : tensor<64x64xf16>
  }
  func.func private @kernel_1(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
    %s = kiln.softmax %x {axis = 1 : i64} : tensor<16x64xf32>
    return %s : tensor<16x64xf32>
  }
  func.func private @kernel_2(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %s = kiln.softmax %x {axis = 1 : i64} : tensor<4x8xf32>
    return %s : tensor<4x8xf32>
  }
}
