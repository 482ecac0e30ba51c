// RUN: not kiln-opt %s -kiln-host-emit-object=cpu=nosuchcpu 2>&1 | FileCheck %s

// Tests that a CPU LLVM does not know is an error naming it (LLVM itself
// only warns, then fails in instruction selection).
// CHECK: error: unknown host CPU 'nosuchcpu' for x86_64-{{.*}}: pass an LLVM CPU name (llc -mcpu=help lists them) or none for a portable baseline
module {
  llvm.func @kiln_kernel_0(%buffers: !llvm.ptr, %dims: !llvm.ptr) {
    llvm.return
  }
}
