// RUN: kiln-opt %s -split-input-file -kiln-host-abi-wrappers -verify-diagnostics | FileCheck %s

// Tests that each kernel in kiln_plan.kernels gets a wrapper
// kiln_NAME(ptr buffers, ptr dims) that loads one pointer per argument of
// NAME from `buffers` and calls it, in call order; NAME becomes internal
// and the module attribute goes (LLVM IR has no use for it). A kernel over
// empty tensors, left a func.func that only returns, becomes an llvm.func
// of pointers that returns.
// CHECK:       module {
// CHECK-LABEL: llvm.func internal @kernel_0(%{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr)
// CHECK-LABEL: llvm.func internal @kernel_1(%{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr) {
// CHECK-NEXT:    llvm.return
// CHECK-LABEL: llvm.func @kiln_kernel_1(
// CHECK-SAME:    %[[BUFS:.+]]: !llvm.ptr, %{{.+}}: !llvm.ptr) {
// CHECK-NEXT:    %[[S0:.+]] = llvm.getelementptr %[[BUFS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[P0:.+]] = llvm.load %[[S0]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[S1:.+]] = llvm.getelementptr %[[BUFS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[P1:.+]] = llvm.load %[[S1]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[S2:.+]] = llvm.getelementptr %[[BUFS]][2] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[P2:.+]] = llvm.load %[[S2]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    llvm.call @kernel_1(%[[P0]], %[[P1]], %[[P2]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:    llvm.return
// CHECK-LABEL: llvm.func @kiln_kernel_0(
// CHECK-SAME:    %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr) {
// CHECK:         llvm.call @kernel_0(
// CHECK-NOT:   kiln_plan.kernels
module attributes {kiln_plan.kernels = [@kernel_1, @kernel_0]} {
  llvm.func @kernel_0(%x: !llvm.ptr, %y: !llvm.ptr) {
    %0 = llvm.load %x : !llvm.ptr -> f32
    llvm.store %0, %y : f32, !llvm.ptr
    llvm.return
  }
  func.func @kernel_1(%x: memref<0xf32>, %y: memref<0x4xf32>, %z: memref<0xf32>) {
    llvm.return
  }
}

// -----

// Tests that a module without kiln_plan.kernels is an error.
// expected-error @+1 {{expected the kernel functions in call order (module attribute kiln_plan.kernels, see kiln-outline-target-kernels)}}
module {
  llvm.func @kernel_0() {
    llvm.return
  }
}

// -----

// Tests that a listed kernel that was not lowered is an error.
// expected-error @+1 {{lowered kernel @kernel_1 is missing}}
module attributes {kiln_plan.kernels = [@kernel_0, @kernel_1]} {
  llvm.func @kernel_0() {
    llvm.return
  }
}

// -----

// Tests that a kernel with an argument that is no pointer (not the
// bare-pointer convention) is an error.
module attributes {kiln_plan.kernels = [@kernel_0]} {
  // expected-error @+1 {{'llvm.func' op expected only pointer arguments after bare-pointer lowering, got 'i64'}}
  llvm.func @kernel_0(%p: !llvm.ptr, %n: i64) {
    llvm.return
  }
}
