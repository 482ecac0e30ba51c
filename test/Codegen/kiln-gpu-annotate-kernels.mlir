// RUN: kiln-opt %s -split-input-file -kiln-gpu-annotate-kernels -verify-diagnostics | FileCheck %s

// Tests that workgroup attributions are aligned to 16 bytes (an alignment
// already there is kept), and that a launch in clusters compiles its
// cluster shape into its kernel (nvvm.cluster_dim); a kernel launched
// without clusters gets none.
// CHECK-LABEL: gpu.module @kernels
// CHECK:         gpu.func @clustered(%{{.+}}: memref<64xf32>) workgroup(%{{.+}} : memref<32xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.+}} : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 64 : i64}) kernel attributes {nvvm.cluster_dim = array<i32: 2, 1, 1>}
// CHECK:         gpu.func @plain(%{{.+}}: memref<64xf32>) kernel {
module attributes {gpu.container_module} {
  func.func @kernel_0(%x: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    gpu.launch_func @kernels::@clustered clusters in (%c2, %c1, %c1) blocks in (%c4, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<64xf32>)
    gpu.launch_func @kernels::@plain blocks in (%c4, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<64xf32>)
    return
  }
  gpu.module @kernels {
    gpu.func @clustered(%x: memref<64xf32>) workgroup(%a : memref<32xf16, #gpu.address_space<workgroup>>, %b : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 64 : i64}) kernel {
      gpu.return
    }
    gpu.func @plain(%x: memref<64xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// Tests that a cluster shape that does not divide its grid is an error.
module attributes {gpu.container_module} {
  func.func @kernel_0(%x: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    // expected-error @+1 {{'gpu.launch_func' op has a cluster shape that is not a constant divisor of its grid}}
    gpu.launch_func @kernels::@clustered clusters in (%c3, %c1, %c1) blocks in (%c4, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<64xf32>)
    return
  }
  gpu.module @kernels {
    gpu.func @clustered(%x: memref<64xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// Tests that a cluster shape that is no constant is an error.
module attributes {gpu.container_module} {
  func.func @kernel_0(%x: memref<64xf32>, %n: index) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    // expected-error @+1 {{'gpu.launch_func' op has a cluster shape that is not a constant divisor of its grid}}
    gpu.launch_func @kernels::@clustered clusters in (%n, %c1, %c1) blocks in (%c4, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<64xf32>)
    return
  }
  gpu.module @kernels {
    gpu.func @clustered(%x: memref<64xf32>) kernel {
      gpu.return
    }
  }
}
