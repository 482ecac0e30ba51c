// RUN: kiln-opt %s --kiln-graph-pipeline='targets=sm_90a precision=tf32' | FileCheck %s
// RUN: kiln-opt %s --kiln-graph-pipeline='targets=host precision=tf32' | FileCheck %s --check-prefix=HOST --implicit-check-not=tf32 --implicit-check-not=channels_last --implicit-check-not=kiln.transpose
// RUN: not kiln-opt %s --kiln-graph-pipeline='targets=host,host' 2>&1 | FileCheck %s --check-prefix=TWICE

// Tests that kiln-graph-pipeline for sm_90a in tf32 runs the convs
// channels-last (transposes at the graph's edges, kernels of their own)
// with their filters rounded to tf32 at build time (0.1 becomes
// 0.0999755859) and marked, forms one kernel per conv (its relu fused),
// marks the kernels' weight arguments kiln.tf32_rounded, and makes the
// first conv's kernel round its result, which only the second conv reads,
// where it is produced (kiln_plan.round_tf32_results) and the reading
// argument rounded. For the host (HOST) tf32 changes nothing: NCHW, no
// marks. A target given twice is refused (TWICE).
// CHECK-LABEL: func.func @main(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x8x8x8xf32> {kiln.name = "x"})
// CHECK:         %[[T:.+]] = call @kernel_0(%[[X]])
// CHECK:         %[[W0:.+]] = kiln.constant {kiln.tf32_rounded} dense<0.0999755859> : tensor<8x3x3x8xf32>
// CHECK:         %[[A:.+]] = call @kernel_1(%[[T]], %[[W0]])
// CHECK:         %[[W1:.+]] = kiln.constant {kiln.tf32_rounded} dense<0.199951172> : tensor<8x3x3x8xf32>
// CHECK:         %[[B:.+]] = call @kernel_2(%[[A]], %[[W1]])
// CHECK:         %[[Y:.+]] = call @kernel_3(%[[B]])
// CHECK:         return %[[Y]]
// CHECK:       func.func private @kernel_0(
// CHECK-NEXT:    kiln.transpose %{{.+}} {perm = array<i64: 0, 2, 3, 1>}
// CHECK:       func.func private @kernel_1(%{{[^:]+}}: tensor<1x8x8x8xf32>, %{{[^:]+}}: tensor<8x3x3x8xf32> {kiln.tf32_rounded}) -> tensor<1x8x8x8xf32> attributes {kiln_plan.round_tf32_results = array<i64: 0>} {
// CHECK-NEXT:    kiln.conv {{.*}}channels_last = true
// CHECK-NEXT:    kiln.relu
// CHECK:       func.func private @kernel_2(%{{[^:]+}}: tensor<1x8x8x8xf32> {kiln.tf32_rounded}, %{{[^:]+}}: tensor<8x3x3x8xf32> {kiln.tf32_rounded}) -> tensor<1x8x8x8xf32> {
// CHECK-NEXT:    kiln.conv {{.*}}channels_last = true
// CHECK:       func.func private @kernel_3(
// CHECK-NEXT:    kiln.transpose %{{.+}} {perm = array<i64: 0, 3, 1, 2>}

// HOST-LABEL: func.func @main(
// HOST:         %[[A:.+]] = call @kernel_0(
// HOST:         %[[B:.+]] = call @kernel_1(%[[A]],
// HOST-NEXT:    return %[[B]]

// TWICE: kiln pipeline options: target 'host' is given twice
func.func @main(%x: tensor<1x8x8x8xf32> {kiln.name = "x"}) -> (tensor<1x8x8x8xf32> {kiln.name = "y"}) {
  %w0 = kiln.constant dense<0.1> : tensor<8x8x3x3xf32>
  %w1 = kiln.constant dense<0.2> : tensor<8x8x3x3xf32>
  %c0 = kiln.conv %x, %w0 {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  %r0 = kiln.relu %c0 : tensor<1x8x8x8xf32>
  %c1 = kiln.conv %r0, %w1 {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  return %c1 : tensor<1x8x8x8xf32>
}
