// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-opt %s --kiln-compile='targets=sm_90a precision=fp16 plan-output=%t/block.plan' -mlir-disable-threading -mlir-print-ir-after=kiln-convert-precision -mlir-print-ir-after=kiln-layout-nhwc -mlir-print-ir-after=kiln-elide-concats -mlir-print-ir-after=kiln-gpu-tensor-core -mlir-print-ir-after=kiln-gpu-record-launches -mlir-elide-elementsattrs-if-larger=16 -o %t/final.mlir 2>&1 | FileCheck %s
// RUN: FileCheck %s --input-file=%t/final.mlir --check-prefix=FINAL
// RUN: test -s %t/block.plan

// Tests that kiln-compile for sm_90a in fp16 takes the residual conv block
// (conv + bias + relu, conv + bias + the residual add + relu) through its
// key steps: the computation in f16 with casts at the graph's f32 edges;
// the convs channels-last with their filters packed OHWI and transposes
// left at the edges only; one kernel per conv, the bias, residual add and
// relus fused into it; each conv an mma.sync tensor-core kernel with its
// epilogue fused; each kernel function read back as a kiln_plan.kernel
// record of its launches; PTX and a cubin for sm_90a in the final IR.
// CHECK-LABEL: IR Dump After ConvertPrecisionPass (kiln-convert-precision)
// CHECK:         %[[H:.+]] = kiln.cast %{{.+}} : tensor<1x8x16x16xf32> -> tensor<1x8x16x16xf16>
// CHECK:         kiln.conv %[[H]], {{.*}} : (tensor<1x8x16x16xf16>, tensor<8x8x3x3xf16>, tensor<8xf16>) -> tensor<1x8x16x16xf16>
// CHECK:         %[[O:.+]] = kiln.cast %{{.+}} : tensor<1x8x16x16xf16> -> tensor<1x8x16x16xf32>
// CHECK-NEXT:    return %[[O]]

// CHECK-LABEL: IR Dump After LayoutNhwcPass (kiln-layout-nhwc)
// CHECK:         %[[T:.+]] = kiln.transpose %{{.+}} {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x8x16x16xf16>) -> tensor<1x16x16x8xf16>
// CHECK:         %[[C0:.+]] = kiln.conv %[[T]], %{{.+}}, %{{.+}} {channels_last = true, {{.*}}} : (tensor<1x16x16x8xf16>, tensor<8x3x3x8xf16>, tensor<8xf16>) -> tensor<1x16x16x8xf16>
// CHECK:         %[[R0:.+]] = kiln.relu %[[C0]] : tensor<1x16x16x8xf16>
// CHECK:         %[[C1:.+]] = kiln.conv %[[R0]], %{{.+}}, %{{.+}} {channels_last = true, {{.*}} -> tensor<1x16x16x8xf16>
// CHECK:         kiln.add %[[C1]], %[[R0]] : (tensor<1x16x16x8xf16>, tensor<1x16x16x8xf16>) -> tensor<1x16x16x8xf16>
// CHECK:         kiln.transpose %{{.+}} {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NOT:     kiln.transpose

// CHECK-LABEL: IR Dump After ElideConcatsPass (kiln-elide-concats)
// CHECK:       func.func @main(
// CHECK:         %[[A:.+]] = call @kernel_2(
// CHECK:         call @kernel_3(%[[A]], %{{.+}})
// CHECK:       func.func private @kernel_2(
// CHECK:         kiln.conv
// CHECK-NEXT:    kiln.relu
// CHECK-NEXT:    return
// CHECK:       func.func private @kernel_3(%[[I:[^:]+]]: tensor<1x16x16x8xf16>,
// CHECK:         %[[C:.+]] = kiln.conv %[[I]]
// CHECK-NEXT:    %[[S:.+]] = kiln.add %[[C]], %[[I]]
// CHECK-NEXT:    kiln.relu %[[S]]
// CHECK-NEXT:    return

// CHECK-LABEL: IR Dump After GpuTensorCorePass (kiln-gpu-tensor-core)
// CHECK-NEXT:  func.func private @kernel_0(
// CHECK-NOT:     kiln.tactics
// CHECK-LABEL: IR Dump After GpuTensorCorePass (kiln-gpu-tensor-core)
// CHECK-NEXT:  func.func private @kernel_1(
// CHECK-LABEL: IR Dump After GpuTensorCorePass (kiln-gpu-tensor-core)
// CHECK-NEXT:  func.func private @kernel_2({{.*}}) attributes {kiln.gemm_shapes = "256x8x72", kiln.tactics = "mma.sync
// CHECK-NOT:     linalg.conv
// CHECK:         gpu.launch
// CHECK:         } {kiln.tactic = "mma.sync {{.*}} + fused epilogue"}
// CHECK-LABEL: IR Dump After GpuTensorCorePass (kiln-gpu-tensor-core)
// CHECK-NEXT:  func.func private @kernel_3({{.*}}) attributes {kiln.gemm_shapes = "256x8x72", kiln.tactics = "mma.sync
// CHECK:         } {kiln.tactic = "mma.sync {{.*}} + fused epilogue"}

// CHECK-LABEL: IR Dump After GpuRecordLaunchesPass (kiln-gpu-record-launches)
// CHECK-NEXT:  module attributes {gpu.container_module, kiln_plan.kernels = [@kernel_0, @kernel_1, @kernel_2, @kernel_3, @kernel_4, @kernel_5]} {
// CHECK:         kiln_plan.kernel @kernel_2 {launches = [#kiln_plan.launch<kernel = @kiln_kernels::@kernel_2_0, grid = [{{[0-9]+}}, 1, 1], block = [{{[0-9]+}}, 1, 1], shared_memory = {{[1-9][0-9]*}}, args = [0, 1, 2]>], num_args = 3 : i64
// CHECK-NOT:     func.func
// CHECK:         gpu.module @kiln_kernels {
// CHECK:           gpu.func @kernel_2_0(

// FINAL-LABEL: func.func @main
// FINAL:       kiln_plan.gpu_kernels targets(["sm_90a"]) {
// FINAL:         kiln_plan.kernel @kernel_0
// FINAL:         kiln_plan.kernel @kernel_5
// FINAL:         gpu.binary @kiln_kernels
// FINAL-SAME:      #gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">
// FINAL-SAME:      assembly = "{{[^"]*}}.target sm_90a
// FINAL-SAME:      bin = "\7FELF
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
