// RUN: kiln-opt %s --kiln-host-pipeline=targets=host -mlir-disable-threading -mlir-print-ir-after=kiln-host-drop-arg-marks -mlir-print-ir-after=kiln-lower-memref-copies -mlir-print-ir-after=kiln-host-abi-wrappers 2>&1 | FileCheck %s

// Tests that kiln-host-pipeline takes a module of kernel functions (as
// kiln_plan.host_kernels holds it) to a linked shared object: the GPU
// argument marks are dropped first; after bufferization the pad's copy
// into its buffer is a linalg.copy (loops, no runtime library call) and
// the results are out-params; on the LLVM dialect, each kernel in
// kiln_plan.kernels gets its kiln_NAME wrapper and the bf16 add is computed
// in f32 (x86 has no bf16 arithmetic); the object, linked, replaces the
// module's body.
// CHECK-LABEL: IR Dump After HostDropArgMarksPass (kiln-host-drop-arg-marks)
// CHECK:       func.func private @kernel_0(%{{[^:]+}}: tensor<4x8xf32>) -> tensor<6x8xf32> {
// CHECK-NOT:   kiln.tf32_rounded

// CHECK-LABEL: IR Dump After LowerMemrefCopiesPass (kiln-lower-memref-copies)
// CHECK:       func.func private @kernel_0(%[[X:[^:]+]]: memref<4x8xf32>, %[[OUT:[^:]+]]: memref<6x8xf32>) {
// CHECK:         %[[PAD:.+]] = memref.alloc() {{.*}} : memref<6x8xf32>
// CHECK:         %[[IN:.+]] = memref.subview %[[PAD]][1, 0] [4, 8] [1, 1]
// CHECK-NOT:     memref.copy
// CHECK:         linalg.copy ins(%[[X]] : memref<4x8xf32>) outs(%[[IN]] : memref<4x8xf32, strided<[8, 1], offset: 8>>)
// CHECK:         linalg.generic {{.*}} ins(%[[PAD]] : memref<6x8xf32>) outs(%[[OUT]] : memref<6x8xf32>)
// CHECK:       func.func private @kernel_1(%{{[^:]+}}: memref<4x8xbf16>, %{{[^:]+}}: memref<4x8xbf16>, %{{[^:]+}}: memref<4x8xbf16>) {

// CHECK-LABEL: IR Dump After HostAbiWrappersPass (kiln-host-abi-wrappers)
// CHECK:       llvm.func internal @kernel_0(
// CHECK:       llvm.func internal @kernel_1(
// CHECK-NOT:     llvm.fadd %{{.+}}, %{{.+}} : bf16
// CHECK:         llvm.fadd %{{.+}}, %{{.+}} : f32
// CHECK-NOT:     llvm.fptrunc
// CHECK:       llvm.func @kiln_kernel_1(
// CHECK:       llvm.func @kiln_kernel_0(

// CHECK:       module attributes {kiln_plan.shared_object = "\7FELF
// CHECK-NOT:     llvm.func
module attributes {kiln_plan.kernels = [@kernel_1, @kernel_0]} {
  func.func private @kernel_0(%x: tensor<4x8xf32> {kiln.tf32_rounded}) -> tensor<6x8xf32> {
    %pads = kiln.constant dense<[1, 0, 1, 0]> : tensor<4xi64>
    %p = kiln.pad %x, %pads {mode = #kiln.pad_mode<constant>} : (tensor<4x8xf32>, tensor<4xi64>) -> tensor<6x8xf32>
    %r = kiln.relu %p : tensor<6x8xf32>
    return %r : tensor<6x8xf32>
  }
  func.func private @kernel_1(%x: tensor<4x8xbf16>, %y: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
    %s = kiln.add %x, %y : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xbf16>
    return %s : tensor<4x8xbf16>
  }
}
