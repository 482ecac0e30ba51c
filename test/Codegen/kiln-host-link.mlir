// RUN: kiln-opt %s -split-input-file -kiln-host-emit-object -kiln-host-link -verify-diagnostics | FileCheck %s
// RUN: not kiln-opt %s -kiln-host-link 2>&1 | FileCheck %s --check-prefix=NOOBJ

// Tests that linking without an object file (kiln-host-emit-object
// did not run) is an error (NOOBJ).
// NOOBJ: error: expected an object file to link (module attribute kiln_plan.object_file, see kiln-host-emit-object)

// Tests that the object file (made here by kiln-host-emit-object) is linked
// into an ELF shared object (64-bit little-endian, e_type 3) that replaces it as the module
// attribute kiln_plan.shared_object.
// CHECK-LABEL: module attributes {kiln_plan.shared_object = "\7FELF\02\01\01\00\00\00\00\00\00\00\00\00\03\00
// CHECK-NOT: kiln_plan.object_file
// CHECK-NOT: llvm.func
module {
  llvm.func @kiln_kernel_0(%buffers: !llvm.ptr, %dims: !llvm.ptr) {
    llvm.return
  }
}
