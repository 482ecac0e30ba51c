// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-opt %s --kiln-compile='targets=sm_90a precision=fp16 plan-output=%t/attention.plan' -mlir-disable-threading -mlir-print-ir-after=kiln-fuse-sibling-matmuls -mlir-print-ir-after=kiln-hoist-matmul-scales -mlir-print-ir-after=kiln-elide-concats -mlir-print-ir-after=kiln-gpu-row-fuse -mlir-print-ir-after=kiln-gpu-annotate-kernels -mlir-print-ir-after=kiln-gpu-record-launches -mlir-elide-elementsattrs-if-larger=16 -o %t/final.mlir 2>&1 | FileCheck %s
// RUN: FileCheck %s --input-file=%t/final.mlir --check-prefix=FINAL
// RUN: test -s %t/attention.plan

// Tests that kiln-compile for sm_90a in fp16 takes a single-head attention
// block (the query, key and value projections of one input, the query
// scaled by 1/sqrt(16), Q K^T, softmax, times V) through its key steps: the
// three projections as one batched matmul of the stacked weights, the
// scale moved after Q K^T, the slices of the stacked result, the reshapes
// and K's transpose read in place by the scores' kernel, which also takes
// the scale (its epilogue) and the softmax (a warp per row); P V in a
// kernel of its own, split along K in a thread-block cluster whose shape
// is compiled into the kernel; the launches recorded per kernel function.
// CHECK-LABEL: IR Dump After FuseSiblingMatmulsPass (kiln-fuse-sibling-matmuls)
// CHECK:         %[[X2:.+]] = kiln.reshape %{{.+}}, %{{.+}} : (tensor<1x128x16xf16>, tensor<2xi64>) -> tensor<128x16xf16>
// CHECK:         %[[W:.+]] = kiln.constant {kiln.stack_parts = 3 : i64} dense_resource<__elided__> : tensor<3x16x16xf16>
// CHECK:         %[[QKV:.+]] = kiln.matmul %[[X2]], %[[W]] : (tensor<128x16xf16>, tensor<3x16x16xf16>) -> tensor<3x128x16xf16>
// CHECK-COUNT-3: kiln.slice %[[QKV]]
// CHECK-NOT:     kiln.matmul %{{.+}}, %{{.+}} : (tensor<1x128x16xf16>, tensor<16x16xf16>)

// CHECK-LABEL: IR Dump After HoistMatmulScalesPass (kiln-hoist-matmul-scales)
// CHECK:         %[[S:.+]] = kiln.matmul %{{.+}}, %{{.+}} : (tensor<1x128x16xf16>, tensor<1x16x128xf16>) -> tensor<1x128x128xf16>
// CHECK-NEXT:    %[[D:.+]] = kiln.div %[[S]], %{{.+}} : (tensor<1x128x128xf16>, tensor<f16>) -> tensor<1x128x128xf16>
// CHECK-NEXT:    kiln.softmax %[[D]] {axis = 2 : i64}

// CHECK-LABEL: IR Dump After ElideConcatsPass (kiln-elide-concats)
// CHECK:       func.func @main(
// CHECK:         %[[P:.+]] = call @kernel_1(
// CHECK-NEXT:    %[[A:.+]] = call @kernel_2(%[[P]]) : (tensor<3x128x16xf16>) -> tensor<1x128x128xf16>
// CHECK-NEXT:    call @kernel_3(%[[P]], %[[A]])
// CHECK:       func.func private @kernel_1(
// CHECK-NEXT:    kiln.matmul
// CHECK-NEXT:    return
// CHECK:       func.func private @kernel_2(
// CHECK:         kiln.slice
// CHECK:         kiln.slice
// CHECK:         kiln.transpose
// CHECK-NEXT:    kiln.matmul
// CHECK-NEXT:    kiln.constant
// CHECK-NEXT:    kiln.div
// CHECK-NEXT:    kiln.softmax
// CHECK-NEXT:    return
// CHECK:       func.func private @kernel_3(
// CHECK:         kiln.slice
// CHECK:         kiln.matmul
// CHECK-NEXT:    return

// CHECK-LABEL: IR Dump After GpuRowFusePass (kiln-gpu-row-fuse)
// CHECK-NEXT:  func.func private @kernel_0(
// CHECK-LABEL: IR Dump After GpuRowFusePass (kiln-gpu-row-fuse)
// CHECK-NEXT:  func.func private @kernel_1({{.*}}) attributes {kiln.gemm_shapes = "128x48x16", kiln.tactics = "mma.sync
// CHECK-LABEL: IR Dump After GpuRowFusePass (kiln-gpu-row-fuse)
// CHECK-NEXT:  func.func private @kernel_2({{.*}}) attributes {kiln.gemm_shapes = "128x128x16", kiln.tactics =
// CHECK-NOT:     linalg.
// CHECK:         } {kiln.tactic = "{{.*}} + fused epilogue"}
// CHECK-NOT:     linalg.
// CHECK:         } {kiln.tactic = "warp row fusion of 6 ops"}
// CHECK-NEXT:    return
// CHECK-LABEL: IR Dump After GpuRowFusePass (kiln-gpu-row-fuse)
// CHECK-NEXT:  func.func private @kernel_3({{.*}}) attributes {kiln.gemm_shapes = "128x16x128", kiln.tactics = "{{.*}} cluster"}

// CHECK-LABEL: IR Dump After GpuAnnotateKernelsPass (kiln-gpu-annotate-kernels)
// CHECK:         gpu.module @kernel_3_kernel {
// CHECK-NEXT:      gpu.func @kernel_3_kernel({{.*}}) kernel attributes {{{.*}}nvvm.cluster_dim = array<i32: {{[0-9, ]+}}>}

// CHECK-LABEL: IR Dump After GpuRecordLaunchesPass (kiln-gpu-record-launches)
// CHECK:         kiln_plan.kernel @kernel_2 {launches = [#kiln_plan.launch<kernel = @kiln_kernels::@kernel_2_0, {{.*}}, args = [0, 1]>, #kiln_plan.launch<kernel = @kiln_kernels::@kernel_2_1, {{.*}}, args = [1]>], num_args = 2 : i64

// FINAL-LABEL: func.func @main
// FINAL:       kiln_plan.gpu_kernels targets(["sm_90a"]) {
// FINAL:         gpu.binary @kiln_kernels
// FINAL-SAME:      chip = "sm_90a"
// FINAL-SAME:      bin = "\7FELF
func.func @main(%x: tensor<1x128x16xf32> {kiln.name = "x"}) -> (tensor<1x128x16xf32> {kiln.name = "y"}) {
  %wq = kiln.constant dense<[[-0.1875, -0.09375, 0.0, 0.09375, 0.1875, -0.125, -0.03125, 0.0625, 0.15625, -0.15625, -0.0625, 0.03125, 0.125, -0.1875, -0.09375, 0.0], [0.09375, 0.1875, -0.125, -0.03125, 0.0625, 0.15625, -0.15625, -0.0625, 0.03125, 0.125, -0.1875, -0.09375, 0.0, 0.09375, 0.1875, -0.125], [-0.03125, 0.0625, 0.15625, -0.15625, -0.0625, 0.03125, 0.125, -0.1875, -0.09375, 0.0, 0.09375, 0.1875, -0.125, -0.03125, 0.0625, 0.15625], [-0.15625, -0.0625, 0.03125, 0.125, -0.1875, -0.09375, 0.0, 0.09375, 0.1875, -0.125, -0.03125, 0.0625, 0.15625, -0.15625, -0.0625, 0.03125], [0.125, -0.1875, -0.09375, 0.0, 0.09375, 0.1875, -0.125, -0.03125, 0.0625, 0.15625, -0.15625, -0.0625, 0.03125, 0.125, -0.1875, -0.09375], [0.0, 0.09375, 0.1875, -0.125, -0.03125, 0.0625, 0.15625, -0.15625, -0.0625, 0.03125, 0.125, -0.1875, -0.09375, 0.0, 0.09375, 0.1875], [-0.125, -0.03125, 0.0625, 0.15625, -0.15625, -0.0625, 0.03125, 0.125, -0.1875, -0.09375, 0.0, 0.09375, 0.1875, -0.125, -0.03125, 0.0625], [0.15625, -0.15625, -0.0625, 0.03125, 0.125, -0.1875, -0.09375, 0.0, 0.09375, 0.1875, -0.125, -0.03125, 0.0625, 0.15625, -0.15625, -0.0625], [0.03125, 0.125, -0.1875, -0.09375, 0.0, 0.09375, 0.1875, -0.125, -0.03125, 0.0625, 0.15625, -0.15625, -0.0625, 0.03125, 0.125, -0.1875], [-0.09375, 0.0, 0.09375, 0.1875, -0.125, -0.03125, 0.0625, 0.15625, -0.15625, -0.0625, 0.03125, 0.125, -0.1875, -0.09375, 0.0, 0.09375], [0.1875, -0.125, -0.03125, 0.0625, 0.15625, -0.15625, -0.0625, 0.03125, 0.125, -0.1875, -0.09375, 0.0, 0.09375, 0.1875, -0.125, -0.03125], [0.0625, 0.15625, -0.15625, -0.0625, 0.03125, 0.125, -0.1875, -0.09375, 0.0, 0.09375, 0.1875, -0.125, -0.03125, 0.0625, 0.15625, -0.15625], [-0.0625, 0.03125, 0.125, -0.1875, -0.09375, 0.0, 0.09375, 0.1875, -0.125, -0.03125, 0.0625, 0.15625, -0.15625, -0.0625, 0.03125, 0.125], [-0.1875, -0.09375, 0.0, 0.09375, 0.1875, -0.125, -0.03125, 0.0625, 0.15625, -0.15625, -0.0625, 0.03125, 0.125, -0.1875, -0.09375, 0.0], [0.09375, 0.1875, -0.125, -0.03125, 0.0625, 0.15625, -0.15625, -0.0625, 0.03125, 0.125, -0.1875, -0.09375, 0.0, 0.09375, 0.1875, -0.125], [-0.03125, 0.0625, 0.15625, -0.15625, -0.0625, 0.03125, 0.125, -0.1875, -0.09375, 0.0, 0.09375, 0.1875, -0.125, -0.03125, 0.0625, 0.15625]]> : tensor<16x16xf32>
  %wk = kiln.constant dense<[[-0.1875, -0.03125, 0.125, -0.125, 0.03125, 0.1875, -0.0625, 0.09375, -0.15625, 0.0, 0.15625, -0.09375, 0.0625, -0.1875, -0.03125, 0.125], [-0.125, 0.03125, 0.1875, -0.0625, 0.09375, -0.15625, 0.0, 0.15625, -0.09375, 0.0625, -0.1875, -0.03125, 0.125, -0.125, 0.03125, 0.1875], [-0.0625, 0.09375, -0.15625, 0.0, 0.15625, -0.09375, 0.0625, -0.1875, -0.03125, 0.125, -0.125, 0.03125, 0.1875, -0.0625, 0.09375, -0.15625], [0.0, 0.15625, -0.09375, 0.0625, -0.1875, -0.03125, 0.125, -0.125, 0.03125, 0.1875, -0.0625, 0.09375, -0.15625, 0.0, 0.15625, -0.09375], [0.0625, -0.1875, -0.03125, 0.125, -0.125, 0.03125, 0.1875, -0.0625, 0.09375, -0.15625, 0.0, 0.15625, -0.09375, 0.0625, -0.1875, -0.03125], [0.125, -0.125, 0.03125, 0.1875, -0.0625, 0.09375, -0.15625, 0.0, 0.15625, -0.09375, 0.0625, -0.1875, -0.03125, 0.125, -0.125, 0.03125], [0.1875, -0.0625, 0.09375, -0.15625, 0.0, 0.15625, -0.09375, 0.0625, -0.1875, -0.03125, 0.125, -0.125, 0.03125, 0.1875, -0.0625, 0.09375], [-0.15625, 0.0, 0.15625, -0.09375, 0.0625, -0.1875, -0.03125, 0.125, -0.125, 0.03125, 0.1875, -0.0625, 0.09375, -0.15625, 0.0, 0.15625], [-0.09375, 0.0625, -0.1875, -0.03125, 0.125, -0.125, 0.03125, 0.1875, -0.0625, 0.09375, -0.15625, 0.0, 0.15625, -0.09375, 0.0625, -0.1875], [-0.03125, 0.125, -0.125, 0.03125, 0.1875, -0.0625, 0.09375, -0.15625, 0.0, 0.15625, -0.09375, 0.0625, -0.1875, -0.03125, 0.125, -0.125], [0.03125, 0.1875, -0.0625, 0.09375, -0.15625, 0.0, 0.15625, -0.09375, 0.0625, -0.1875, -0.03125, 0.125, -0.125, 0.03125, 0.1875, -0.0625], [0.09375, -0.15625, 0.0, 0.15625, -0.09375, 0.0625, -0.1875, -0.03125, 0.125, -0.125, 0.03125, 0.1875, -0.0625, 0.09375, -0.15625, 0.0], [0.15625, -0.09375, 0.0625, -0.1875, -0.03125, 0.125, -0.125, 0.03125, 0.1875, -0.0625, 0.09375, -0.15625, 0.0, 0.15625, -0.09375, 0.0625], [-0.1875, -0.03125, 0.125, -0.125, 0.03125, 0.1875, -0.0625, 0.09375, -0.15625, 0.0, 0.15625, -0.09375, 0.0625, -0.1875, -0.03125, 0.125], [-0.125, 0.03125, 0.1875, -0.0625, 0.09375, -0.15625, 0.0, 0.15625, -0.09375, 0.0625, -0.1875, -0.03125, 0.125, -0.125, 0.03125, 0.1875], [-0.0625, 0.09375, -0.15625, 0.0, 0.15625, -0.09375, 0.0625, -0.1875, -0.03125, 0.125, -0.125, 0.03125, 0.1875, -0.0625, 0.09375, -0.15625]]> : tensor<16x16xf32>
  %wv = kiln.constant dense<[[-0.1875, 0.03125, -0.15625, 0.0625, -0.125, 0.09375, -0.09375, 0.125, -0.0625, 0.15625, -0.03125, 0.1875, 0.0, -0.1875, 0.03125, -0.15625], [0.0625, -0.125, 0.09375, -0.09375, 0.125, -0.0625, 0.15625, -0.03125, 0.1875, 0.0, -0.1875, 0.03125, -0.15625, 0.0625, -0.125, 0.09375], [-0.09375, 0.125, -0.0625, 0.15625, -0.03125, 0.1875, 0.0, -0.1875, 0.03125, -0.15625, 0.0625, -0.125, 0.09375, -0.09375, 0.125, -0.0625], [0.15625, -0.03125, 0.1875, 0.0, -0.1875, 0.03125, -0.15625, 0.0625, -0.125, 0.09375, -0.09375, 0.125, -0.0625, 0.15625, -0.03125, 0.1875], [0.0, -0.1875, 0.03125, -0.15625, 0.0625, -0.125, 0.09375, -0.09375, 0.125, -0.0625, 0.15625, -0.03125, 0.1875, 0.0, -0.1875, 0.03125], [-0.15625, 0.0625, -0.125, 0.09375, -0.09375, 0.125, -0.0625, 0.15625, -0.03125, 0.1875, 0.0, -0.1875, 0.03125, -0.15625, 0.0625, -0.125], [0.09375, -0.09375, 0.125, -0.0625, 0.15625, -0.03125, 0.1875, 0.0, -0.1875, 0.03125, -0.15625, 0.0625, -0.125, 0.09375, -0.09375, 0.125], [-0.0625, 0.15625, -0.03125, 0.1875, 0.0, -0.1875, 0.03125, -0.15625, 0.0625, -0.125, 0.09375, -0.09375, 0.125, -0.0625, 0.15625, -0.03125], [0.1875, 0.0, -0.1875, 0.03125, -0.15625, 0.0625, -0.125, 0.09375, -0.09375, 0.125, -0.0625, 0.15625, -0.03125, 0.1875, 0.0, -0.1875], [0.03125, -0.15625, 0.0625, -0.125, 0.09375, -0.09375, 0.125, -0.0625, 0.15625, -0.03125, 0.1875, 0.0, -0.1875, 0.03125, -0.15625, 0.0625], [-0.125, 0.09375, -0.09375, 0.125, -0.0625, 0.15625, -0.03125, 0.1875, 0.0, -0.1875, 0.03125, -0.15625, 0.0625, -0.125, 0.09375, -0.09375], [0.125, -0.0625, 0.15625, -0.03125, 0.1875, 0.0, -0.1875, 0.03125, -0.15625, 0.0625, -0.125, 0.09375, -0.09375, 0.125, -0.0625, 0.15625], [-0.03125, 0.1875, 0.0, -0.1875, 0.03125, -0.15625, 0.0625, -0.125, 0.09375, -0.09375, 0.125, -0.0625, 0.15625, -0.03125, 0.1875, 0.0], [-0.1875, 0.03125, -0.15625, 0.0625, -0.125, 0.09375, -0.09375, 0.125, -0.0625, 0.15625, -0.03125, 0.1875, 0.0, -0.1875, 0.03125, -0.15625], [0.0625, -0.125, 0.09375, -0.09375, 0.125, -0.0625, 0.15625, -0.03125, 0.1875, 0.0, -0.1875, 0.03125, -0.15625, 0.0625, -0.125, 0.09375], [-0.09375, 0.125, -0.0625, 0.15625, -0.03125, 0.1875, 0.0, -0.1875, 0.03125, -0.15625, 0.0625, -0.125, 0.09375, -0.09375, 0.125, -0.0625]]> : tensor<16x16xf32>
  %scale = kiln.constant dense<4.0> : tensor<f32>
  %q = kiln.matmul %x, %wq : (tensor<1x128x16xf32>, tensor<16x16xf32>) -> tensor<1x128x16xf32>
  %k = kiln.matmul %x, %wk : (tensor<1x128x16xf32>, tensor<16x16xf32>) -> tensor<1x128x16xf32>
  %v = kiln.matmul %x, %wv : (tensor<1x128x16xf32>, tensor<16x16xf32>) -> tensor<1x128x16xf32>
  %qs = kiln.div %q, %scale : (tensor<1x128x16xf32>, tensor<f32>) -> tensor<1x128x16xf32>
  %kt = kiln.transpose %k {perm = array<i64: 0, 2, 1>} : (tensor<1x128x16xf32>) -> tensor<1x16x128xf32>
  %s = kiln.matmul %qs, %kt : (tensor<1x128x16xf32>, tensor<1x16x128xf32>) -> tensor<1x128x128xf32>
  %p = kiln.softmax %s {axis = 2 : i64} : tensor<1x128x128xf32>
  %o = kiln.matmul %p, %v : (tensor<1x128x128xf32>, tensor<1x128x16xf32>) -> tensor<1x128x16xf32>
  return %o : tensor<1x128x16xf32>
}
