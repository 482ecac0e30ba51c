// RUN: kiln-opt %s -split-input-file -kiln-outline-target-kernels=targets=host -verify-diagnostics | FileCheck %s --check-prefix=HOST
// RUN: kiln-opt %s -split-input-file -kiln-outline-target-kernels=targets=sm_90a,host,sm_80 -verify-diagnostics | FileCheck %s --check-prefix=BOTH
// RUN: kiln-opt %s -split-input-file -kiln-outline-target-kernels=targets=sm_90a,host,sm_80 -verify-diagnostics --mlir-print-op-generic | kiln-opt -split-input-file | FileCheck %s --check-prefix=BOTH
// RUN: not kiln-opt %s -split-input-file -kiln-outline-target-kernels=targets=host,sm_91 2>&1 | FileCheck %s --check-prefix=BAD

// Tests that an unknown target is an error listing the known ones (BAD).
// BAD: error: unknown target 'sm_91': use host or one of sm_70,

// Tests that the kernel functions @main calls are copied into the targets'
// containers (one for host, one for all GPU targets, in their order), in
// module order, each container's module listing them in call order; the
// elided concat's function is no kernel, and the top-level kernel
// functions become declarations. The printed IR parses again.
// HOST-LABEL: func.func @main
// HOST:         call @kernel_1(
// HOST:         call @kernel_0(
// HOST:         call @kernel_2({{.+}}) {kiln_plan.elided_concat}
// HOST:       func.func private @kernel_0(tensor<2x3xf32>) -> tensor<2x3xf32>
// HOST:       func.func private @kernel_1(tensor<2x3xf32>) -> tensor<2x3xf32>
// HOST:       func.func private @kernel_2(tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
// HOST:       kiln_plan.host_kernels {
// HOST-NEXT:    module attributes {kiln_plan.kernels = [@kernel_1, @kernel_0]} {
// HOST-NEXT:      func.func private @kernel_0(%{{.+}}: tensor<2x3xf32>) -> tensor<2x3xf32> {
// HOST-NEXT:        kiln.exp
// HOST:           func.func private @kernel_1(%{{.+}}: tensor<2x3xf32>) -> tensor<2x3xf32> {
// HOST-NEXT:        kiln.relu
// HOST-NOT:       kiln.concat
// HOST-NOT:     kiln_plan.gpu_kernels

// BOTH-LABEL: func.func @main
// BOTH:       kiln_plan.host_kernels {
// BOTH-NEXT:    module attributes {kiln_plan.kernels = [@kernel_1, @kernel_0]} {
// BOTH:       kiln_plan.gpu_kernels targets(["sm_90a", "sm_80"]) {
// BOTH-NEXT:    module attributes {kiln_plan.kernels = [@kernel_1, @kernel_0]} {
// BOTH-NEXT:      func.func private @kernel_0(
// BOTH:           func.func private @kernel_1(
func.func @main(%x: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %a = call @kernel_1(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = call @kernel_0(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = call @kernel_2(%a, %b) {kiln_plan.elided_concat} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %c : tensor<4x3xf32>
}
func.func private @kernel_0(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = kiln.exp %x : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
func.func private @kernel_1(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = kiln.relu %x : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
func.func private @kernel_2(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %c = kiln.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %c : tensor<4x3xf32>
}

// -----

// Tests that an op of @main that is neither a call, a constant nor a static
// view is an error: kernel formation must have placed it.
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'kiln.relu' op was not placed in a kernel}}
  %r = kiln.relu %x : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// Tests that a module without @main is an error.
// expected-error @+1 {{expected a func.func @main (the imported graph)}}
module {
}
