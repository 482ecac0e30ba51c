// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-opt %s --kiln-compile='targets=host plan-output=%t/block.plan' -mlir-print-ir-after=kiln-form-kernels -mlir-print-ir-after=kiln-outline-target-kernels -mlir-print-ir-after=kiln-promote-results-to-out-params -mlir-print-ir-after=kiln-host-abi-wrappers -mlir-print-ir-after=kiln-host-link -o %t/final.mlir 2>&1 | FileCheck %s
// RUN: FileCheck %s --input-file=%t/final.mlir --check-prefix=FINAL
// RUN: kiln-run %t/block.plan --device host | FileCheck %s --check-prefix=RUN-PLAN

// Tests that kiln-compile for the host takes a residual conv block (conv +
// bias + relu, conv + bias, the residual add of the first relu, relu) to a
// plan: two kernels (each conv with its bias, the add and the relus fused
// into it), copied into the host container, bufferized with their results
// as out-params, wrapped with the plan's calling convention and linked into
// a shared object that replaces the module's body; @main keeps the steps,
// and the plan runs on the host.
// CHECK-LABEL: IR Dump After FormKernelsPass (kiln-form-kernels)
// CHECK:       func.func @main(%[[X:[^:]+]]: tensor<1x8x16x16xf32> {kiln.name = "x"})
// CHECK-DAG:     %[[W0:.+]] = kiln.constant dense<1.250000e-01> : tensor<8x8x3x3xf32>
// CHECK-DAG:     %[[W1:.+]] = kiln.constant dense<-6.250000e-02> : tensor<8x8x3x3xf32>
// CHECK:         %[[K0:.+]] = call @kernel_0(%[[X]], %[[W0]])
// CHECK:         %[[K1:.+]] = call @kernel_1(%[[K0]], %[[W1]])
// CHECK:         return %[[K1]]
// CHECK:       func.func private @kernel_0(
// CHECK:         kiln.conv
// CHECK-NEXT:    kiln.relu
// CHECK-NEXT:    return
// CHECK:       func.func private @kernel_1(
// CHECK:         kiln.conv
// CHECK-NEXT:    kiln.add
// CHECK-NEXT:    kiln.relu
// CHECK-NEXT:    return

// CHECK-LABEL: IR Dump After OutlineTargetKernelsPass (kiln-outline-target-kernels)
// CHECK:       func.func private @kernel_0(tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
// CHECK:       kiln_plan.host_kernels {
// CHECK-NEXT:    module attributes {kiln_plan.kernels = [@kernel_0, @kernel_1]} {
// CHECK-NOT:   kiln_plan.gpu_kernels

// CHECK-LABEL: IR Dump After PromoteResultsToOutParamsPass (kiln-promote-results-to-out-params)
// CHECK:       func.func private @kernel_0(%{{[^:]+}}: memref<1x8x16x16xf32>, %{{[^:]+}}: memref<8x8x3x3xf32>, %[[OUT:[^:]+]]: memref<1x8x16x16xf32>) {
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}} outs(%[[OUT]] : memref<1x8x16x16xf32>)
// CHECK-NEXT:    linalg.generic {{.*}} outs(%[[OUT]] : memref<1x8x16x16xf32>)
// CHECK:           arith.addf
// CHECK-NEXT:      arith.maximumf
// CHECK:         return{{$}}

// CHECK-LABEL: IR Dump After HostAbiWrappersPass (kiln-host-abi-wrappers)
// CHECK:       llvm.func internal @kernel_0(
// CHECK:       llvm.func @kiln_kernel_0(
// CHECK:       llvm.func @kiln_kernel_1(

// CHECK-LABEL: IR Dump After HostLinkPass (kiln-host-link)
// CHECK-NEXT:  module attributes {kiln_plan.shared_object = "\7FELF

// FINAL-LABEL: func.func @main
// FINAL:         call @kernel_0
// FINAL:         call @kernel_1
// FINAL:       kiln_plan.host_kernels {
// FINAL-NEXT:    module attributes {kiln_plan.shared_object = "\7FELF
// FINAL-NOT:     func.func
// RUN-PLAN: targets host; running on host
// RUN-PLAN: y f32 [1, 8, 16, 16]
func.func @main(%x: tensor<1x8x16x16xf32> {kiln.name = "x"}) -> (tensor<1x8x16x16xf32> {kiln.name = "y"}) {
  %w0 = kiln.constant dense<0.125> : tensor<8x8x3x3xf32>
  %b0 = kiln.constant dense<0.5> : tensor<8xf32>
  %w1 = kiln.constant dense<-0.0625> : tensor<8x8x3x3xf32>
  %b1 = kiln.constant dense<0.25> : tensor<8xf32>
  %c0 = kiln.conv %x, %w0, %b0 {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32>
  %r0 = kiln.relu %c0 : tensor<1x8x16x16xf32>
  %c1 = kiln.conv %r0, %w1, %b1 {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32>
  %s = kiln.add %c1, %r0 : (tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %y = kiln.relu %s : tensor<1x8x16x16xf32>
  return %y : tensor<1x8x16x16xf32>
}
