// RUN: kiln-opt %s -split-input-file -kiln-host-emit-object -verify-diagnostics | FileCheck %s
// RUN: kiln-opt %s -split-input-file -kiln-host-emit-object=cpu=x86-64-v3 -verify-diagnostics | FileCheck %s

// Tests that the LLVM dialect module is compiled to an ELF relocatable
// object (64-bit little-endian, e_type 1) that replaces the module's body as the
// module attribute kiln_plan.object_file, with a portable CPU by default
// and the given one with cpu=.
// CHECK-LABEL: module attributes {kiln_plan.object_file = "\7FELF\02\01\01\00\00\00\00\00\00\00\00\00\01\00
// CHECK-NOT: llvm.func
// CHECK-NOT: llvm.return
module {
  llvm.func @kiln_kernel_0(%buffers: !llvm.ptr, %dims: !llvm.ptr) {
    %p = llvm.load %buffers : !llvm.ptr -> !llvm.ptr
    %c = llvm.mlir.constant(2.0 : f32) : f32
    llvm.store %c, %p : f32, !llvm.ptr
    llvm.return
  }
}

// -----

// Tests that a module LLVM IR translation refuses (a func.func left) is an
// error.
// expected-error @+1 {{cannot translate host kernels to LLVM IR}}
module {
  // expected-error @+1 {{cannot be converted to LLVM IR: missing `LLVMTranslationDialectInterface` registration for dialect for op: func.func}}
  func.func @kernel_0() {
    return
  }
}
