// RUN: kiln-opt %s -split-input-file -kiln-linalg-parallel-first | FileCheck %s

// Tests that a reduction over the middle dim, iterators [parallel,
// reduction, parallel], is interchanged to [parallel, parallel, reduction]
// with the indexing maps permuted accordingly.
// CHECK-DAG:   #[[IN:.+]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-DAG:   #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @reduce_middle
// CHECK:         linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]}
func.func @reduce_middle(%x: memref<2x3x4xf32>, %y: memref<2x4xf32>) {
  linalg.generic {
      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
                       affine_map<(d0, d1, d2) -> (d0, d2)>],
      iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : memref<2x3x4xf32>) outs(%y : memref<2x4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Tests that a named reduction in the wrong order is generalized first.
// CHECK-LABEL: func.func @named_reduce
// CHECK-NOT:     linalg.reduce
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
func.func @named_reduce(%x: tensor<5x6xf32>, %init: tensor<6xf32>) -> tensor<6xf32> {
  %r = linalg.reduce ins(%x : tensor<5x6xf32>) outs(%init : tensor<6xf32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r : tensor<6xf32>
}

// -----

// Tests that ops already parallel-first (matmul, conv, an innermost
// reduction) are left as they are.
// CHECK-LABEL: func.func @already_ordered
// CHECK:         linalg.matmul
// CHECK:         linalg.conv_2d_nchw_fchw
// CHECK:         linalg.reduce
func.func @already_ordered(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>,
                           %x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %y: memref<1x4x6x6xf32>,
                           %r: memref<4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  linalg.conv_2d_nchw_fchw ins(%x, %w : memref<1x3x8x8xf32>, memref<4x3x3x3xf32>) outs(%y : memref<1x4x6x6xf32>)
  linalg.reduce ins(%a : memref<4x8xf32>) outs(%r : memref<4xf32>) dimensions = [1]
    (%p: f32, %q: f32) {
      %s = arith.addf %p, %q : f32
      linalg.yield %s : f32
    }
  return
}
