// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-opt %s --kiln-compile='targets=host plan-output=%t/concat.plan' -mlir-disable-threading -mlir-print-ir-after=kiln-elide-concats -mlir-print-ir-after=kiln-outline-target-kernels -mlir-print-ir-after=kiln-place-slice-results -o /dev/null 2>&1 | FileCheck %s
// RUN: kiln-run %t/concat.plan --device host | FileCheck %s --check-prefix=RUN-PLAN
// RUN: kiln-opt %s --kiln-compile='targets=host concat-in-place=false' -mlir-print-ir-after=kiln-outline-target-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=COPY

// Tests that kiln-compile for the host elides a concat of three convs'
// results along the channels (an Inception-like block read by a 1x1 conv):
// each producer gets the slice of the concat's buffer it writes
// (#kiln_plan.into_slice, offsets 0, 2 and 6 along axis 1), the concat's
// call is marked elided and its function is no kernel of the host module;
// after bufferization each producer's out-param is the whole [1, 8, 8, 8]
// buffer, written through a subview at its offset. The plan runs. With
// concat-in-place=false (COPY) the concat is a kernel of its own.
// CHECK-LABEL: IR Dump After ElideConcatsPass (kiln-elide-concats)
// CHECK:       func.func @main(
// CHECK:         %[[A:.+]] = call @kernel_0(
// CHECK:         %[[B:.+]] = call @kernel_1(
// CHECK:         %[[C:.+]] = call @kernel_2(
// CHECK:         %[[CAT:.+]] = call @kernel_3(%[[A]], %[[B]], %[[C]]) {kiln_plan.elided_concat}
// CHECK:         call @kernel_4(%[[CAT]])
// CHECK:       func.func private @kernel_0({{.*}}) -> tensor<1x2x8x8xf32> attributes {kiln_plan.into_slices = [#kiln_plan.into_slice<result = 0, shape = [1, 8, 8, 8], offsets = [0, 0, 0, 0]>]}
// CHECK:       func.func private @kernel_1({{.*}}) -> tensor<1x4x8x8xf32> attributes {kiln_plan.into_slices = [#kiln_plan.into_slice<result = 0, shape = [1, 8, 8, 8], offsets = [0, 2, 0, 0]>]}
// CHECK:       func.func private @kernel_2({{.*}}) -> tensor<1x2x8x8xf32> attributes {kiln_plan.into_slices = [#kiln_plan.into_slice<result = 0, shape = [1, 8, 8, 8], offsets = [0, 6, 0, 0]>]}
// CHECK:       func.func private @kernel_3(
// CHECK-NEXT:    kiln.concat

// CHECK-LABEL: IR Dump After OutlineTargetKernelsPass (kiln-outline-target-kernels)
// CHECK:         module attributes {kiln_plan.kernels = [@kernel_0, @kernel_1, @kernel_2, @kernel_4]} {
// CHECK-NOT:       kiln.concat

// CHECK-LABEL: IR Dump After PlaceSliceResultsPass (kiln-place-slice-results)
// CHECK:       func.func private @kernel_0(%{{[^:]+}}: memref<1x4x8x8xf32>, %[[O0:[^:]+]]: memref<1x8x8x8xf32>) attributes {kiln_plan.into_slices = [#kiln_plan.into_slice<result = 0, shape = [1, 8, 8, 8], offsets = [0, 0, 0, 0], out_param = 1>]}
// CHECK-NEXT:    %[[S0:.+]] = memref.subview %[[O0]][0, 0, 0, 0] [1, 2, 8, 8] [1, 1, 1, 1] : memref<1x8x8x8xf32> to memref<1x2x8x8xf32, strided<[512, 64, 8, 1]>>
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}} outs(%[[S0]] :
// CHECK:       func.func private @kernel_1(%{{[^:]+}}: memref<1x4x8x8xf32>, %{{[^:]+}}: memref<4x4x3x3xf32>, %[[O1:[^:]+]]: memref<1x8x8x8xf32>)
// CHECK-NEXT:    %[[S1:.+]] = memref.subview %[[O1]][0, 2, 0, 0] [1, 4, 8, 8] [1, 1, 1, 1] : memref<1x8x8x8xf32> to memref<1x4x8x8xf32, strided<[512, 64, 8, 1], offset: 128>>
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}} outs(%[[S1]] :
// CHECK:       func.func private @kernel_2(%{{[^:]+}}: memref<1x4x8x8xf32>, %[[O2:[^:]+]]: memref<1x8x8x8xf32>)
// CHECK-NEXT:    %[[S2:.+]] = memref.subview %[[O2]][0, 6, 0, 0] [1, 2, 8, 8] [1, 1, 1, 1] : memref<1x8x8x8xf32> to memref<1x2x8x8xf32, strided<[512, 64, 8, 1], offset: 384>>
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}} outs(%[[S2]] :
// CHECK-NOT:     memref.copy
// CHECK:       func.func private @kernel_4(

// RUN-PLAN: y f32 [1, 8, 8, 8]

// COPY-LABEL: IR Dump After OutlineTargetKernelsPass (kiln-outline-target-kernels)
// COPY-NOT:     kiln_plan.elided_concat
// COPY:         module attributes {kiln_plan.kernels = [@kernel_0, @kernel_1, @kernel_2, @kernel_3, @kernel_4]} {
// COPY:           kiln.concat
func.func @main(%x: tensor<1x4x8x8xf32> {kiln.name = "x"}) -> (tensor<1x8x8x8xf32> {kiln.name = "y"}) {
  %w0 = kiln.constant dense<0.25> : tensor<2x4x1x1xf32>
  %w1 = kiln.constant dense<0.5> : tensor<4x4x3x3xf32>
  %w2 = kiln.constant dense<-0.5> : tensor<2x4x1x1xf32>
  %w3 = kiln.constant dense<0.125> : tensor<8x8x1x1xf32>
  %a = kiln.conv %x, %w0 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<2x4x1x1xf32>) -> tensor<1x2x8x8xf32>
  %ra = kiln.relu %a : tensor<1x2x8x8xf32>
  %b = kiln.conv %x, %w1 {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %rb = kiln.relu %b : tensor<1x4x8x8xf32>
  %c = kiln.conv %x, %w2 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<2x4x1x1xf32>) -> tensor<1x2x8x8xf32>
  %rc = kiln.sigmoid %c : tensor<1x2x8x8xf32>
  %cat = kiln.concat %ra, %rb, %rc {axis = 1 : i64} : (tensor<1x2x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x8x8x8xf32>
  %y = kiln.conv %cat, %w3 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}
