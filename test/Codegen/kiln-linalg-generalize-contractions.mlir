// RUN: kiln-opt %s -split-input-file -kiln-linalg-generalize-contractions | FileCheck %s
// RUN: kiln-opt %s -split-input-file -kiln-linalg-generalize-contractions -linalg-fuse-elementwise-ops -canonicalize | FileCheck %s --check-prefix=FUSED

// Tests that transposes and batch matmuls become generics (the fill stays
// named), and that the fusion then folds the reshapes and the transposes of
// attention's Q K^T into one contraction reading the sliced projection in
// place.
// CHECK-LABEL: func.func @qk
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]
// CHECK:         linalg.fill
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-NOT:     linalg.transpose
// CHECK-NOT:     linalg.batch_matmul

// FUSED-DAG:     #[[MQ:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d2, d0, d1, d4)>
// FUSED-DAG:     #[[MK:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d3, d0, d1, d4)>
// FUSED-DAG:     #[[MO:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// FUSED-LABEL: func.func @qk
// FUSED:         %[[Q:.+]] = tensor.extract_slice %arg0[0, 0, 0] [16, 2, 64] [1, 1, 1]
// FUSED:         %[[K:.+]] = tensor.extract_slice %arg0[0, 0, 64] [16, 2, 64] [1, 1, 1]
// FUSED:         %[[QE:.+]] = tensor.expand_shape %[[Q]] {{\[}}[0], [1], [2, 3]] output_shape [16, 2, 4, 16]
// FUSED:         %[[KE:.+]] = tensor.expand_shape %[[K]] {{\[}}[0], [1], [2, 3]] output_shape [16, 2, 4, 16]
// FUSED:         %[[F:.+]] = linalg.fill
// FUSED:         %[[R:.+]] = linalg.generic {indexing_maps = [#[[MQ]], #[[MK]], #[[MO]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[QE]], %[[KE]] : {{.*}}) outs(%[[F]] : tensor<2x4x16x16xf32>)
// FUSED:           arith.extf
// FUSED:           arith.extf
// FUSED:           arith.mulf
// FUSED:           arith.addf
// FUSED:         tensor.collapse_shape %[[R]] {{\[}}[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
// FUSED-NOT:     linalg.generic
func.func @qk(%qkv: tensor<16x2x192xf16>) -> tensor<8x16x16xf32> {
  %q = tensor.extract_slice %qkv[0, 0, 0] [16, 2, 64] [1, 1, 1] : tensor<16x2x192xf16> to tensor<16x2x64xf16>
  %k = tensor.extract_slice %qkv[0, 0, 64] [16, 2, 64] [1, 1, 1] : tensor<16x2x192xf16> to tensor<16x2x64xf16>
  %qe = tensor.expand_shape %q [[0], [1], [2, 3]] output_shape [16, 2, 4, 16] : tensor<16x2x64xf16> into tensor<16x2x4x16xf16>
  %qr = tensor.collapse_shape %qe [[0], [1, 2], [3]] : tensor<16x2x4x16xf16> into tensor<16x8x16xf16>
  %ke = tensor.expand_shape %k [[0], [1], [2, 3]] output_shape [16, 2, 4, 16] : tensor<16x2x64xf16> into tensor<16x2x4x16xf16>
  %kr = tensor.collapse_shape %ke [[0], [1, 2], [3]] : tensor<16x2x4x16xf16> into tensor<16x8x16xf16>
  %e0 = tensor.empty() : tensor<8x16x16xf16>
  %qt = linalg.transpose ins(%qr : tensor<16x8x16xf16>) outs(%e0 : tensor<8x16x16xf16>) permutation = [1, 0, 2]
  %e1 = tensor.empty() : tensor<8x16x16xf16>
  %kt = linalg.transpose ins(%kr : tensor<16x8x16xf16>) outs(%e1 : tensor<8x16x16xf16>) permutation = [1, 2, 0]
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x16x16xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e2 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %r = linalg.batch_matmul ins(%qt, %kt : tensor<8x16x16xf16>, tensor<8x16x16xf16>) outs(%acc : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  return %r : tensor<8x16x16xf32>
}

// -----

// Tests that in a function with a contraction, an operand broadcast along a
// unit dim (an attention mask [8, 1, 16]) is read through a collapse_shape
// without that dim and a projected map.
// CHECK-DAG:     #[[MM:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @mask
// FUSED-LABEL: func.func @mask
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK:         %[[C:.+]] = tensor.collapse_shape %arg2 {{\[}}[0, 1], [2]] : tensor<8x1x16xf16> into tensor<8x16xf16>
// CHECK:         linalg.generic {indexing_maps = [#{{.+}}, #[[MM]], #{{.+}}], {{.*}} ins(%{{.+}}, %[[C]] : tensor<8x16x16xf32>, tensor<8x16xf16>)
func.func @mask(%a: tensor<8x16x4xf16>, %b: tensor<8x4x16xf16>, %m: tensor<8x1x16xf16>) -> tensor<8x16x16xf16> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16x16xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<8x16x4xf16>, tensor<8x4x16xf16>) outs(%acc : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %o = tensor.empty() : tensor<8x16x16xf16>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, 0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%r, %m : tensor<8x16x16xf32>, tensor<8x1x16xf16>) outs(%o : tensor<8x16x16xf16>) {
  ^bb0(%x: f32, %y: f16, %out: f16):
    %t = arith.truncf %x : f32 to f16
    %v = arith.addf %t, %y : f16
    linalg.yield %v : f16
  } -> tensor<8x16x16xf16>
  return %s : tensor<8x16x16xf16>
}

// -----

// Tests that without a contraction, broadcasts keep their maps, and that
// fills and convolutions stay named.
// CHECK-LABEL: func.func @no_contraction
// CHECK:         linalg.fill
// CHECK:         linalg.conv_2d_nchw_fchw
// CHECK:         linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}, #{{.+}}]
// CHECK-NOT:     tensor.collapse_shape
func.func @no_contraction(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>, %b: tensor<1x3x1x1xf32>) -> tensor<1x3x3x3xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3x3x3xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  %c = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) outs(%acc : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (0, d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %b : tensor<1x3x3x3xf32>, tensor<1x3x1x1xf32>) outs(%e : tensor<1x3x3x3xf32>) {
  ^bb0(%p: f32, %q: f32, %out: f32):
    %v = arith.addf %p, %q : f32
    linalg.yield %v : f32
  } -> tensor<1x3x3x3xf32>
  return %s : tensor<1x3x3x3xf32>
}
