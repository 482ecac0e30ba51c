// RUN: kiln-opt %s -split-input-file -canonicalize | FileCheck %s

// Folders and canonicalization patterns of the kiln ops. Most folds exist so
// that shape subgraphs (shape -> gather -> concat -> reshape) disappear.

//===----------------------------------------------------------------------===//
// kiln.shape and kiln.size
//===----------------------------------------------------------------------===//

// Tests that the shape of a static tensor folds to a constant.
// CHECK-LABEL: func.func @shape_static(
// CHECK:         %[[C:.+]] = kiln.constant dense<[2, 3, 4]> : tensor<3xi64>
// CHECK-NOT:     kiln.shape
// CHECK:         return %[[C]]
func.func @shape_static(%arg0: tensor<2x3x4xf32>) -> tensor<3xi64> {
  %0 = kiln.shape %arg0 : (tensor<2x3x4xf32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// Tests that a [start, end) shape range folds when only its dims are static.
// CHECK-LABEL: func.func @shape_range_of_partly_dynamic(
// CHECK:         %[[C:.+]] = kiln.constant dense<[3, 4]> : tensor<2xi64>
// CHECK-NOT:     kiln.shape
// CHECK:         return %[[C]], %[[C]]
func.func @shape_range_of_partly_dynamic(%arg0: tensor<?x3x4xf32>, %arg1: tensor<?x3x4x?xf32>) -> (tensor<2xi64>, tensor<2xi64>) {
  %0 = kiln.shape %arg0 {start = 1 : i64} : (tensor<?x3x4xf32>) -> tensor<2xi64>
  %1 = kiln.shape %arg1 {end = -1 : i64, start = -3 : i64} : (tensor<?x3x4x?xf32>) -> tensor<2xi64>
  return %0, %1 : tensor<2xi64>, tensor<2xi64>
}

// -----

// Tests that the shape of a tensor with a dynamic dim does not fold.
// CHECK-LABEL: func.func @shape_dynamic(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<?x3xf32>
// CHECK:         %[[S:.+]] = kiln.shape %[[X]] : (tensor<?x3xf32>) -> tensor<2xi64>
// CHECK:         return %[[S]]
func.func @shape_dynamic(%arg0: tensor<?x3xf32>) -> tensor<2xi64> {
  %0 = kiln.shape %arg0 : (tensor<?x3xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// Tests that kiln.size folds for static shapes only.
// CHECK-LABEL: func.func @size(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x3x4xf32>, %[[Y:[^:]+]]: tensor<?x3xf32>
// CHECK-DAG:     %[[C:.+]] = kiln.constant dense<24> : tensor<i64>
// CHECK-DAG:     %[[S:.+]] = kiln.size %[[Y]] : (tensor<?x3xf32>) -> tensor<i64>
// CHECK-NOT:     kiln.size %[[X]]
// CHECK:         return %[[C]], %[[S]]
func.func @size(%arg0: tensor<2x3x4xf32>, %arg1: tensor<?x3xf32>) -> (tensor<i64>, tensor<i64>) {
  %0 = kiln.size %arg0 : (tensor<2x3x4xf32>) -> tensor<i64>
  %1 = kiln.size %arg1 : (tensor<?x3xf32>) -> tensor<i64>
  return %0, %1 : tensor<i64>, tensor<i64>
}

// -----

// Tests that gathering static dims from the shape of a partly dynamic tensor
// folds, while gathering a dynamic dim does not.
// CHECK-LABEL: func.func @gather_of_shape(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<?x3x?x5xf32>
// CHECK-DAG:     %[[D1:.+]] = kiln.constant dense<3> : tensor<i64>
// CHECK-DAG:     %[[D31:.+]] = kiln.constant dense<[5, 3]> : tensor<2xi64>
// CHECK-DAG:     %[[I2:.+]] = kiln.constant dense<2> : tensor<i64>
// CHECK-DAG:     %[[S:.+]] = kiln.shape %[[X]] : (tensor<?x3x?x5xf32>) -> tensor<4xi64>
// CHECK:         %[[D2:.+]] = kiln.gather %[[S]], %[[I2]] {axis = 0 : i64} : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
// CHECK:         return %[[D1]], %[[D31]], %[[D2]]
func.func @gather_of_shape(%arg0: tensor<?x3x?x5xf32>) -> (tensor<i64>, tensor<2xi64>, tensor<i64>) {
  %0 = kiln.shape %arg0 : (tensor<?x3x?x5xf32>) -> tensor<4xi64>
  %1 = kiln.constant dense<1> : tensor<i64>
  %2 = kiln.gather %0, %1 {axis = 0 : i64} : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
  %3 = kiln.constant dense<[-1, 1]> : tensor<2xi64>
  %4 = kiln.gather %0, %3 {axis = 0 : i64} : (tensor<4xi64>, tensor<2xi64>) -> tensor<2xi64>
  %5 = kiln.constant dense<2> : tensor<i64>
  %6 = kiln.gather %0, %5 {axis = 0 : i64} : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
  return %2, %4, %6 : tensor<i64>, tensor<2xi64>, tensor<i64>
}

// -----

// Tests that gathering from a shape with a start offset picks the right dim.
// CHECK-LABEL: func.func @gather_of_shape_with_start(
// CHECK:         %[[C:.+]] = kiln.constant dense<5> : tensor<i64>
// CHECK-NOT:     kiln.gather
// CHECK:         return %[[C]]
func.func @gather_of_shape_with_start(%arg0: tensor<?x3x?x5xf32>) -> tensor<i64> {
  %0 = kiln.shape %arg0 {start = 1 : i64} : (tensor<?x3x?x5xf32>) -> tensor<3xi64>
  %1 = kiln.constant dense<-1> : tensor<i64>
  %2 = kiln.gather %0, %1 {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  return %2 : tensor<i64>
}

// -----

// Tests that a dynamic-batch shape subgraph (shape, gather, unsqueeze, mul,
// concat) folds into a constant reshape shape.
// CHECK-LABEL: func.func @shape_subgraph(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<?x3x4xf32>
// CHECK:         %[[SHAPE:.+]] = kiln.constant dense<[-1, 12]> : tensor<2xi64>
// CHECK-NOT:     kiln.shape
// CHECK-NOT:     kiln.gather
// CHECK-NOT:     kiln.concat
// CHECK:         %[[R:.+]] = kiln.reshape %[[X]], %[[SHAPE]] : (tensor<?x3x4xf32>, tensor<2xi64>) -> tensor<?x12xf32>
// CHECK:         return %[[R]]
func.func @shape_subgraph(%arg0: tensor<?x3x4xf32>) -> tensor<?x12xf32> {
  %0 = kiln.shape %arg0 : (tensor<?x3x4xf32>) -> tensor<3xi64>
  %1 = kiln.constant dense<1> : tensor<i64>
  %2 = kiln.gather %0, %1 {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %3 = kiln.constant dense<2> : tensor<i64>
  %4 = kiln.gather %0, %3 {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %5 = kiln.mul %2, %4 : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %6 = kiln.unsqueeze %5 {axes = array<i64: 0>} : (tensor<i64>) -> tensor<1xi64>
  %7 = kiln.constant dense<[-1]> : tensor<1xi64>
  %8 = kiln.concat %7, %6 {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %9 = kiln.reshape %arg0, %8 : (tensor<?x3x4xf32>, tensor<2xi64>) -> tensor<?x12xf32>
  return %9 : tensor<?x12xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Data movement on constants
//===----------------------------------------------------------------------===//

// Tests that kiln.concat of constants folds, along the first and an inner axis.
// CHECK-LABEL: func.func @concat_constants(
// CHECK-DAG:     %[[A:.+]] = kiln.constant dense<[1, 2, 3, 4, 5]> : tensor<5xi64>
// CHECK-DAG:     %[[B:.+]] = kiln.constant dense<{{\[}}[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
// CHECK-NOT:     kiln.concat
// CHECK:         return %[[A]], %[[B]]
func.func @concat_constants() -> (tensor<5xi64>, tensor<2x3xi32>) {
  %0 = kiln.constant dense<[1, 2]> : tensor<2xi64>
  %1 = kiln.constant dense<[3, 4, 5]> : tensor<3xi64>
  %2 = kiln.concat %0, %1 {axis = 0 : i64} : (tensor<2xi64>, tensor<3xi64>) -> tensor<5xi64>
  %3 = kiln.constant dense<[[1], [4]]> : tensor<2x1xi32>
  %4 = kiln.constant dense<[[2, 3], [5, 6]]> : tensor<2x2xi32>
  %5 = kiln.concat %3, %4 {axis = 1 : i64} : (tensor<2x1xi32>, tensor<2x2xi32>) -> tensor<2x3xi32>
  return %2, %5 : tensor<5xi64>, tensor<2x3xi32>
}

// -----

// Tests that a concat of a constant and a foldable shape range folds.
// CHECK-LABEL: func.func @concat_with_shape(
// CHECK:         %[[C:.+]] = kiln.constant dense<[-1, 3, 4]> : tensor<3xi64>
// CHECK-NOT:     kiln.concat
// CHECK:         return %[[C]]
func.func @concat_with_shape(%arg0: tensor<?x3x4xf32>) -> tensor<3xi64> {
  %0 = kiln.shape %arg0 {start = 1 : i64} : (tensor<?x3x4xf32>) -> tensor<2xi64>
  %1 = kiln.constant dense<[-1]> : tensor<1xi64>
  %2 = kiln.concat %1, %0 {axis = 0 : i64} : (tensor<1xi64>, tensor<2xi64>) -> tensor<3xi64>
  return %2 : tensor<3xi64>
}

// -----

// Tests that a single-input kiln.concat folds to its input.
// CHECK-LABEL: func.func @concat_single(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<?x3xf32>
// CHECK-NEXT:    return %[[X]]
func.func @concat_single(%arg0: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = kiln.concat %arg0 {axis = 0 : i64} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// Tests that kiln.slice of a constant folds, with a positive and a negative step.
// CHECK-LABEL: func.func @slice_constants(
// CHECK-DAG:     %[[A:.+]] = kiln.constant dense<{{\[}}[4, 6], [8, 10]]> : tensor<2x2xi64>
// CHECK-DAG:     %[[B:.+]] = kiln.constant dense<[50, 30, 10]> : tensor<3xi64>
// CHECK-NOT:     kiln.slice
// CHECK:         return %[[A]], %[[B]]
func.func @slice_constants() -> (tensor<2x2xi64>, tensor<3xi64>) {
  %0 = kiln.constant dense<[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]> : tensor<3x4xi64>
  %1 = kiln.constant dense<[1, 0]> : tensor<2xi64>
  %2 = kiln.constant dense<[3, 4]> : tensor<2xi64>
  %3 = kiln.constant dense<[0, 1]> : tensor<2xi64>
  %4 = kiln.constant dense<[1, 2]> : tensor<2xi64>
  %5 = kiln.slice %0, %1, %2, %3, %4 : (tensor<3x4xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x2xi64>
  %6 = kiln.constant dense<[10, 20, 30, 40, 50]> : tensor<5xi64>
  %7 = kiln.constant dense<[-1]> : tensor<1xi64>
  %8 = kiln.constant dense<[-9223372036854775807]> : tensor<1xi64>
  %9 = kiln.constant dense<[0]> : tensor<1xi64>
  %10 = kiln.constant dense<[-2]> : tensor<1xi64>
  %11 = kiln.slice %6, %7, %8, %9, %10 : (tensor<5xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  return %5, %11 : tensor<2x2xi64>, tensor<3xi64>
}

// -----

// Tests that a kiln.slice over the whole tensor folds to its input.
// CHECK-LABEL: func.func @slice_full(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<3x4xf32>
// CHECK-NOT:     kiln.slice
// CHECK:         return %[[X]]
func.func @slice_full(%arg0: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = kiln.constant dense<[0]> : tensor<1xi64>
  %1 = kiln.constant dense<[9223372036854775807]> : tensor<1xi64>
  %2 = kiln.constant dense<[1]> : tensor<1xi64>
  %3 = kiln.slice %arg0, %0, %1, %2, %2 : (tensor<3x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x4xf32>
  return %3 : tensor<3x4xf32>
}

// -----

// Tests that kiln.gather of a constant folds, with negative and i32 indices.
// CHECK-LABEL: func.func @gather_constants(
// CHECK-DAG:     %[[A:.+]] = kiln.constant dense<{{\[}}[3.000000e+00, 1.000000e+00], [6.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG:     %[[B:.+]] = kiln.constant dense<[9, 9, 7]> : tensor<3xi64>
// CHECK-NOT:     kiln.gather
// CHECK:         return %[[A]], %[[B]]
func.func @gather_constants() -> (tensor<2x2xf32>, tensor<3xi64>) {
  %0 = kiln.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %1 = kiln.constant dense<[2, -3]> : tensor<2xi64>
  %2 = kiln.gather %0, %1 {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x2xf32>
  %3 = kiln.constant dense<[7, 8, 9]> : tensor<3xi64>
  %4 = kiln.constant dense<[2, 2, 0]> : tensor<3xi32>
  %5 = kiln.gather %3, %4 {axis = 0 : i64} : (tensor<3xi64>, tensor<3xi32>) -> tensor<3xi64>
  return %2, %5 : tensor<2x2xf32>, tensor<3xi64>
}

// -----

// Tests that unsqueeze, squeeze, reshape and flatten of constants fold.
// CHECK-LABEL: func.func @reshape_like_constants(
// CHECK-DAG:     %[[U:.+]] = kiln.constant dense<{{\[}}[1, 2, 3]]> : tensor<1x3xi64>
// CHECK-DAG:     %[[S:.+]] = kiln.constant dense<[1, 2, 3]> : tensor<3xi64>
// CHECK-DAG:     %[[R:.+]] = kiln.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK-DAG:     %[[F:.+]] = kiln.constant dense<{{\[}}[1.000000e+00], [2.000000e+00], [3.000000e+00], [4.000000e+00], [5.000000e+00], [6.000000e+00]]> : tensor<6x1xf32>
// CHECK-NOT:     kiln.unsqueeze
// CHECK-NOT:     kiln.squeeze
// CHECK-NOT:     kiln.reshape
// CHECK-NOT:     kiln.flatten
// CHECK:         return %[[U]], %[[S]], %[[R]], %[[F]]
func.func @reshape_like_constants() -> (tensor<1x3xi64>, tensor<3xi64>, tensor<3x2xf32>, tensor<6x1xf32>) {
  %0 = kiln.constant dense<[1, 2, 3]> : tensor<3xi64>
  %1 = kiln.unsqueeze %0 {axes = array<i64: 0>} : (tensor<3xi64>) -> tensor<1x3xi64>
  %2 = kiln.squeeze %1 {axes = array<i64: 0>} : (tensor<1x3xi64>) -> tensor<3xi64>
  %3 = kiln.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %4 = kiln.constant dense<[3, 2]> : tensor<2xi64>
  %5 = kiln.reshape %3, %4 : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  %6 = kiln.flatten %3 {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<6x1xf32>
  return %1, %2, %5, %6 : tensor<1x3xi64>, tensor<3xi64>, tensor<3x2xf32>, tensor<6x1xf32>
}

// -----

// Tests that kiln.cast of constants folds: integer to float, float to integer
// (toward zero), float to i1 (non-zero is true) and unsigned to float/i64.
// CHECK-LABEL: func.func @cast_constants(
// CHECK-DAG:     %[[A:.+]] = kiln.constant dense<[-2.000000e+00, 0.000000e+00, 7.000000e+00]> : tensor<3xf32>
// CHECK-DAG:     %[[B:.+]] = kiln.constant dense<[-2, 0, 3]> : tensor<3xi32>
// CHECK-DAG:     %[[C:.+]] = kiln.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-DAG:     %[[D:.+]] = kiln.constant dense<[2.550000e+02, 1.000000e+00]> : tensor<2xf16>
// CHECK-DAG:     %[[E:.+]] = kiln.constant dense<[255, 1]> : tensor<2xi64>
// CHECK-NOT:     kiln.cast
// CHECK:         return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]]
func.func @cast_constants() -> (tensor<3xf32>, tensor<3xi32>, tensor<3xi1>, tensor<2xf16>, tensor<2xi64>) {
  %0 = kiln.constant dense<[-2, 0, 7]> : tensor<3xi64>
  %1 = kiln.cast %0 : tensor<3xi64> -> tensor<3xf32>
  %2 = kiln.constant dense<[-2.7, 0.5, 3.9]> : tensor<3xf32>
  %3 = kiln.cast %2 : tensor<3xf32> -> tensor<3xi32>
  %4 = kiln.constant dense<[-2.7, 0.0, 3.9]> : tensor<3xf32>
  %5 = kiln.cast %4 : tensor<3xf32> -> tensor<3xi1>
  %6 = kiln.constant dense<[255, 1]> : tensor<2xui8>
  %7 = kiln.cast %6 : tensor<2xui8> -> tensor<2xf16>
  %8 = kiln.cast %6 : tensor<2xui8> -> tensor<2xi64>
  return %1, %3, %5, %7, %8 : tensor<3xf32>, tensor<3xi32>, tensor<3xi1>, tensor<2xf16>, tensor<2xi64>
}

// -----

// Tests that a kiln.cast to the input type folds away.
// CHECK-LABEL: func.func @cast_identity(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<?x3xf32>
// CHECK-NEXT:    return %[[X]]
func.func @cast_identity(%arg0: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = kiln.cast %arg0 : tensor<?x3xf32> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// Tests that kiln.transpose of constants folds (2-D, 3-D and splat).
// CHECK-LABEL: func.func @transpose_constants(
// CHECK-DAG:     %[[A:.+]] = kiln.constant dense<{{\[}}[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi64>
// CHECK-DAG:     %[[B:.+]] = kiln.constant dense<{{\[}}{{\[}}[0, 3], [6, 9]], {{\[}}[1, 4], [7, 10]], {{\[}}[2, 5], [8, 11]]]> : tensor<3x2x2xi64>
// CHECK-DAG:     %[[C:.+]] = kiln.constant dense<1.500000e+00> : tensor<4x2xf32>
// CHECK-NOT:     kiln.transpose
// CHECK:         return %[[A]], %[[B]], %[[C]]
func.func @transpose_constants() -> (tensor<3x2xi64>, tensor<3x2x2xi64>, tensor<4x2xf32>) {
  %0 = kiln.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %1 = kiln.transpose %0 {perm = array<i64: 1, 0>} : (tensor<2x3xi64>) -> tensor<3x2xi64>
  %2 = kiln.constant dense<[[[0, 1, 2], [3, 4, 5]], [[6, 7, 8], [9, 10, 11]]]> : tensor<2x2x3xi64>
  %3 = kiln.transpose %2 {perm = array<i64: 2, 0, 1>} : (tensor<2x2x3xi64>) -> tensor<3x2x2xi64>
  %4 = kiln.constant dense<1.5> : tensor<2x4xf32>
  %5 = kiln.transpose %4 {perm = array<i64: 1, 0>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
  return %1, %3, %5 : tensor<3x2xi64>, tensor<3x2x2xi64>, tensor<4x2xf32>
}

// -----

// Tests that kiln.expand of constants folds (broadcast values and splats).
// CHECK-LABEL: func.func @expand_constants(
// CHECK-DAG:     %[[A:.+]] = kiln.constant dense<{{\[}}[1, 1, 1], [2, 2, 2]]> : tensor<2x3xi64>
// CHECK-DAG:     %[[B:.+]] = kiln.constant dense<5.000000e-01> : tensor<2x2xf32>
// CHECK-NOT:     kiln.expand
// CHECK:         return %[[A]], %[[B]]
func.func @expand_constants() -> (tensor<2x3xi64>, tensor<2x2xf32>) {
  %0 = kiln.constant dense<[[1], [2]]> : tensor<2x1xi64>
  %1 = kiln.constant dense<[2, 3]> : tensor<2xi64>
  %2 = kiln.expand %0, %1 : (tensor<2x1xi64>, tensor<2xi64>) -> tensor<2x3xi64>
  %3 = kiln.constant dense<0.5> : tensor<f32>
  %4 = kiln.constant dense<[2, 2]> : tensor<2xi64>
  %5 = kiln.expand %3, %4 : (tensor<f32>, tensor<2xi64>) -> tensor<2x2xf32>
  return %2, %5 : tensor<2x3xi64>, tensor<2x2xf32>
}

// -----

// Tests that weights held in dense_resource blobs are never folded.
// CHECK-LABEL: func.func @resource_weights_not_folded(
// CHECK:         kiln.constant dense_resource<blob1> : tensor<2x3xf32>
// CHECK:         kiln.reshape
// CHECK:         kiln.transpose
// CHECK:         kiln.cast
func.func @resource_weights_not_folded() -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x3xf16>) {
  %0 = kiln.constant dense_resource<blob1> : tensor<2x3xf32>
  %1 = kiln.constant dense<[3, 2]> : tensor<2xi64>
  %2 = kiln.reshape %0, %1 : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  %3 = kiln.transpose %0 {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %4 = kiln.cast %0 : tensor<2x3xf32> -> tensor<2x3xf16>
  return %2, %3, %4 : tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x3xf16>
}
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000000803F0000004000004040000080400000A0400000C040"
    }
  }
#-}

// -----

//===----------------------------------------------------------------------===//
// Elementwise arithmetic on constants
//===----------------------------------------------------------------------===//

// Tests that integer arithmetic on constants folds with broadcasting, truncating
// division, Python-style mod and C-style fmod.
// CHECK-LABEL: func.func @arith_int_constants(
// CHECK-DAG:     %[[ADD:.+]] = kiln.constant dense<{{\[}}[11, 21, 31], [12, 22, 32]]> : tensor<2x3xi64>
// CHECK-DAG:     %[[SUB:.+]] = kiln.constant dense<[-10, 10, 2]> : tensor<3xi64>
// CHECK-DAG:     %[[MUL:.+]] = kiln.constant dense<[-21, -21, 24]> : tensor<3xi64>
// CHECK-DAG:     %[[DIV:.+]] = kiln.constant dense<[-2, -2, 1]> : tensor<3xi64>
// CHECK-DAG:     %[[MOD:.+]] = kiln.constant dense<[2, -2, 2]> : tensor<3xi64>
// CHECK-DAG:     %[[FMOD:.+]] = kiln.constant dense<[-1, 1, 2]> : tensor<3xi64>
// CHECK-DAG:     %[[MAX:.+]] = kiln.constant dense<[3, 7, 6]> : tensor<3xi64>
// CHECK-DAG:     %[[MIN:.+]] = kiln.constant dense<[-7, -3, 4]> : tensor<3xi64>
// CHECK-NOT:     kiln.add
// CHECK-NOT:     kiln.sub
// CHECK-NOT:     kiln.mul
// CHECK-NOT:     kiln.div
// CHECK-NOT:     kiln.mod
// CHECK-NOT:     kiln.max
// CHECK-NOT:     kiln.min
// CHECK:         return %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]], %[[MOD]], %[[FMOD]], %[[MAX]], %[[MIN]]
func.func @arith_int_constants() -> (tensor<2x3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) {
  %0 = kiln.constant dense<[[1], [2]]> : tensor<2x1xi64>
  %1 = kiln.constant dense<[10, 20, 30]> : tensor<3xi64>
  %2 = kiln.add %0, %1 : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  %3 = kiln.constant dense<[-7, 7, 6]> : tensor<3xi64>
  %4 = kiln.constant dense<[3, -3, 4]> : tensor<3xi64>
  %5 = kiln.sub %3, %4 : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %6 = kiln.mul %3, %4 : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %7 = kiln.div %3, %4 : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %8 = kiln.mod %3, %4 : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %9 = kiln.mod %3, %4 {fmod = true} : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %10 = kiln.max %3, %4 : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %11 = kiln.min %3, %4 : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  return %2, %5, %6, %7, %8, %9, %10, %11 : tensor<2x3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>
}

// -----

// Tests that integer division by zero is left to run time.
// CHECK-LABEL: func.func @div_by_zero_not_folded(
// CHECK:         %[[D:.+]] = kiln.div
// CHECK:         return %[[D]]
func.func @div_by_zero_not_folded() -> tensor<2xi64> {
  %0 = kiln.constant dense<[4, 5]> : tensor<2xi64>
  %1 = kiln.constant dense<[2, 0]> : tensor<2xi64>
  %2 = kiln.div %0, %1 : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %2 : tensor<2xi64>
}

// -----

// Tests that integer folds wrap around in the element type (signed and unsigned).
// CHECK-LABEL: func.func @int_wraparound(
// CHECK-DAG:     %[[A:.+]] = kiln.constant dense<[-56, 56]> : tensor<2xi8>
// CHECK-DAG:     %[[B:.+]] = kiln.constant dense<[255, 100]> : tensor<2xui8>
// CHECK:         return %[[A]], %[[B]]
func.func @int_wraparound() -> (tensor<2xi8>, tensor<2xui8>) {
  %0 = kiln.constant dense<[100, -100]> : tensor<2xi8>
  %1 = kiln.add %0, %0 : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi8>
  %2 = kiln.constant dense<[1, 200]> : tensor<2xui8>
  %3 = kiln.constant dense<[2, 100]> : tensor<2xui8>
  %4 = kiln.sub %2, %3 : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  return %1, %4 : tensor<2xi8>, tensor<2xui8>
}

// -----

// Tests that ui64 values above INT64_MAX are not folded (folding computes in
// int64, where they would wrap and compare as negative).
// CHECK-LABEL: func.func @ui64_unsigned_order(
// CHECK:         %[[LESS:.+]] = kiln.less
// CHECK:         %[[MAX:.+]] = kiln.max
// CHECK:         return %[[LESS]], %[[MAX]]
func.func @ui64_unsigned_order() -> (tensor<1xi1>, tensor<1xui64>) {
  %0 = kiln.constant dense<[18446744073709551615]> : tensor<1xui64>
  %1 = kiln.constant dense<[1]> : tensor<1xui64>
  %2 = kiln.less %0, %1 : (tensor<1xui64>, tensor<1xui64>) -> tensor<1xi1>
  %3 = kiln.max %0, %1 : (tensor<1xui64>, tensor<1xui64>) -> tensor<1xui64>
  return %2, %3 : tensor<1xi1>, tensor<1xui64>
}

// -----

// Tests that float splats fold whatever their size (mul, pow, div).
// CHECK-LABEL: func.func @float_splats(
// CHECK-DAG:     %[[MUL:.+]] = kiln.constant dense<3.000000e+00> : tensor<2x3xf32>
// CHECK-DAG:     %[[POW:.+]] = kiln.constant dense<2.82842708> : tensor<2x3xf32>
// CHECK-DAG:     %[[DIV:.+]] = kiln.constant dense<7.500000e-01> : tensor<2x3xf32>
// CHECK-DAG:     %[[BIG:.+]] = kiln.constant dense<3.000000e+00> : tensor<1024x1024xf32>
// CHECK-NOT:     kiln.mul
// CHECK-NOT:     kiln.pow
// CHECK-NOT:     kiln.div
// CHECK-NOT:     kiln.add
// CHECK:         return %[[MUL]], %[[POW]], %[[DIV]], %[[BIG]]
func.func @float_splats() -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<1024x1024xf32>) {
  %0 = kiln.constant dense<1.5> : tensor<2x3xf32>
  %1 = kiln.constant dense<2.0> : tensor<3xf32>
  %2 = kiln.mul %0, %1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %3 = kiln.pow %1, %0 : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = kiln.div %0, %1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %5 = kiln.constant dense<1.0> : tensor<1024x1024xf32>
  %6 = kiln.constant dense<2.0> : tensor<f32>
  %7 = kiln.add %5, %6 : (tensor<1024x1024xf32>, tensor<f32>) -> tensor<1024x1024xf32>
  return %2, %3, %4, %7 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<1024x1024xf32>
}

// -----

// Tests that a non-splat elementwise op larger than the fold limit stays.
// CHECK-LABEL: func.func @large_non_splat_not_folded(
// CHECK:         kiln.add
func.func @large_non_splat_not_folded() -> tensor<2x4096xi32> {
  %0 = kiln.constant dense<[[1], [2]]> : tensor<2x1xi32>
  %1 = kiln.constant dense<3> : tensor<4096xi32>
  %2 = kiln.add %0, %1 : (tensor<2x1xi32>, tensor<4096xi32>) -> tensor<2x4096xi32>
  return %2 : tensor<2x4096xi32>
}

// -----

// Tests that comparisons and logical ops on constants fold to i1 constants.
// CHECK-LABEL: func.func @compare_logical_constants(
// CHECK-DAG:     %[[EQ:.+]] = kiln.constant dense<[false, true, false]> : tensor<3xi1>
// CHECK-DAG:     %[[LT:.+]] = kiln.constant dense<[true, false, false]> : tensor<3xi1>
// CHECK-DAG:     %[[GE:.+]] = kiln.constant dense<[false, true, true]> : tensor<3xi1>
// CHECK-DAG:     %[[LE:.+]] = kiln.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-DAG:     %[[OR:.+]] = kiln.constant dense<[true, true, false]> : tensor<3xi1>
// CHECK-DAG:     %[[XOR:.+]] = kiln.constant dense<true> : tensor<3xi1>
// CHECK-NOT:     kiln.equal
// CHECK-NOT:     kiln.less
// CHECK-NOT:     kiln.greater_or_equal
// CHECK-NOT:     kiln.and
// CHECK-NOT:     kiln.or
// CHECK-NOT:     kiln.xor
// CHECK:         return %[[EQ]], %[[LT]], %[[GE]], %[[LE]], %[[EQ]], %[[OR]], %[[XOR]]
func.func @compare_logical_constants() -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) {
  %0 = kiln.constant dense<[1, 2, 3]> : tensor<3xi64>
  %1 = kiln.constant dense<2> : tensor<i64>
  %2 = kiln.equal %0, %1 : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  %3 = kiln.less %0, %1 : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  %4 = kiln.greater_or_equal %0, %1 : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  %5 = kiln.constant dense<[0.5, 2.0, -1.0]> : tensor<3xf32>
  %6 = kiln.constant dense<0.5> : tensor<f32>
  %7 = kiln.less_or_equal %5, %6 : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
  %8 = kiln.and %2, %4 : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %9 = kiln.or %2, %3 : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %10 = kiln.xor %4, %3 : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return %2, %3, %4, %7, %8, %9, %10 : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>
}

// -----

// Tests that the bitwise ops fold on unsigned constants.
// CHECK-LABEL: func.func @bitwise_constants(
// CHECK-DAG:     %[[AND:.+]] = kiln.constant dense<[8, 15]> : tensor<2xui8>
// CHECK-DAG:     %[[OR:.+]] = kiln.constant dense<[14, 255]> : tensor<2xui8>
// CHECK-DAG:     %[[XOR:.+]] = kiln.constant dense<[6, 240]> : tensor<2xui8>
// CHECK:         return %[[AND]], %[[OR]], %[[XOR]]
func.func @bitwise_constants() -> (tensor<2xui8>, tensor<2xui8>, tensor<2xui8>) {
  %0 = kiln.constant dense<[12, 255]> : tensor<2xui8>
  %1 = kiln.constant dense<[10, 15]> : tensor<2xui8>
  %2 = kiln.bitwise_and %0, %1 : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  %3 = kiln.bitwise_or %0, %1 : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  %4 = kiln.bitwise_xor %0, %1 : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  return %2, %3, %4 : tensor<2xui8>, tensor<2xui8>, tensor<2xui8>
}

// -----

// Tests that x + 0, 0 + x, x - 0, x * 1, 1 * x and x / 1 fold to x when the
// constant broadcasts into x's shape.
// CHECK-LABEL: func.func @identity_operands(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<?x4xf32>, %[[Y:[^:]+]]: tensor<3xi32>
// CHECK-NOT:     kiln.add
// CHECK-NOT:     kiln.sub
// CHECK-NOT:     kiln.mul
// CHECK-NOT:     kiln.div
// CHECK:         return %[[X]], %[[X]], %[[X]], %[[X]], %[[Y]], %[[Y]]
func.func @identity_operands(%arg0: tensor<?x4xf32>, %arg1: tensor<3xi32>) -> (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<3xi32>, tensor<3xi32>) {
  %0 = kiln.constant dense<0.0> : tensor<4xf32>
  %1 = kiln.constant dense<1.0> : tensor<f32>
  %2 = kiln.add %arg0, %0 : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %3 = kiln.mul %1, %2 : (tensor<f32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %4 = kiln.sub %3, %0 : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %5 = kiln.constant dense<1.0> : tensor<1x4xf32>
  %6 = kiln.div %4, %5 : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
  %7 = kiln.constant dense<0> : tensor<3xi32>
  %8 = kiln.constant dense<1> : tensor<i32>
  %9 = kiln.add %7, %arg1 : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %10 = kiln.mul %9, %8 : (tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
  return %2, %3, %4, %6, %9, %10 : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<3xi32>, tensor<3xi32>
}

// -----

// Tests that x * 1 stays when broadcasting changes the result type, and that
// 0 - x and x * 2 are not identities.
// CHECK-LABEL: func.func @not_identity_operands(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf32>
// CHECK-DAG:     %[[ONES:.+]] = kiln.constant dense<1.000000e+00> : tensor<2x4xf32>
// CHECK-DAG:     %[[ZERO:.+]] = kiln.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-DAG:     %[[TWO:.+]] = kiln.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK:         %[[A:.+]] = kiln.mul %[[X]], %[[ONES]] : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK:         %[[B:.+]] = kiln.sub %[[ZERO]], %[[X]]
// CHECK:         %[[C:.+]] = kiln.mul %[[X]], %[[TWO]]
// CHECK:         return %[[A]], %[[B]], %[[C]]
func.func @not_identity_operands(%arg0: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = kiln.constant dense<1.0> : tensor<2x4xf32>
  %1 = kiln.mul %arg0, %0 : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = kiln.constant dense<0.0> : tensor<4xf32>
  %3 = kiln.sub %2, %arg0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = kiln.constant dense<2.0> : tensor<4xf32>
  %5 = kiln.mul %arg0, %4 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1, %3, %5 : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests that x + 0 stays when the zero may broadcast a dynamic dim of x, even
// if the declared result type equals x's (x may be 1x4 at run time).
// CHECK-LABEL: func.func @identity_operand_broadcasts_dynamic_dim(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<?x4xf32>
// CHECK:         %[[SUM:.+]] = kiln.add %[[X]]
// CHECK:         return %[[SUM]]
func.func @identity_operand_broadcasts_dynamic_dim(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = kiln.constant dense<0.0> : tensor<5x4xf32>
  %1 = kiln.add %arg0, %0 : (tensor<?x4xf32>, tensor<5x4xf32>) -> tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// kiln.where
//===----------------------------------------------------------------------===//

// Tests that kiln.where with a splat condition folds to the chosen operand
// when that operand has the result type.
// CHECK-LABEL: func.func @where_splat_condition(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x4xf32>, %[[Y:[^:]+]]: tensor<4xf32>
// CHECK-NOT:     kiln.where
// CHECK:         return %[[X]], %[[X]]
func.func @where_splat_condition(%arg0: tensor<2x4xf32>, %arg1: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %0 = kiln.constant dense<true> : tensor<i1>
  %1 = kiln.where %0, %arg0, %arg1 : (tensor<i1>, tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %2 = kiln.constant dense<false> : tensor<2x4xi1>
  %3 = kiln.where %2, %arg1, %arg0 : (tensor<2x4xi1>, tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %1, %3 : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// Tests that kiln.where with a splat condition stays when the chosen operand
// would have to be broadcast.
// CHECK-LABEL: func.func @where_splat_condition_broadcast(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<?x4xf32>, %[[Z:[^:]+]]: tensor<5x4xf32>
// CHECK:         %[[A:.+]] = kiln.where %{{.+}}, %[[X]], %[[Z]]
// CHECK:         %[[B:.+]] = kiln.where %{{.+}}, %[[Y]], %[[Z]]
// CHECK:         return %[[A]], %[[B]]
func.func @where_splat_condition_broadcast(%arg0: tensor<4xf32>, %arg1: tensor<?x4xf32>, %arg2: tensor<5x4xf32>) -> (tensor<5x4xf32>, tensor<?x4xf32>) {
  %0 = kiln.constant dense<true> : tensor<i1>
  %1 = kiln.where %0, %arg0, %arg2 : (tensor<i1>, tensor<4xf32>, tensor<5x4xf32>) -> tensor<5x4xf32>
  %2 = kiln.where %0, %arg1, %arg2 : (tensor<i1>, tensor<?x4xf32>, tensor<5x4xf32>) -> tensor<?x4xf32>
  return %1, %2 : tensor<5x4xf32>, tensor<?x4xf32>
}

// -----

// Tests that kiln.where on constants folds with broadcasting.
// CHECK-LABEL: func.func @where_constants(
// CHECK:         %[[C:.+]] = kiln.constant dense<{{\[}}[1, 0], [3, 0]]> : tensor<2x2xi64>
// CHECK-NOT:     kiln.where
// CHECK:         return %[[C]]
func.func @where_constants() -> tensor<2x2xi64> {
  %0 = kiln.constant dense<[true, false]> : tensor<2xi1>
  %1 = kiln.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %2 = kiln.constant dense<0> : tensor<i64>
  %3 = kiln.where %0, %1, %2 : (tensor<2xi1>, tensor<2x2xi64>, tensor<i64>) -> tensor<2x2xi64>
  return %3 : tensor<2x2xi64>
}

// -----

//===----------------------------------------------------------------------===//
// kiln.constant_of_shape and kiln.range
//===----------------------------------------------------------------------===//

// Tests that kiln.constant_of_shape with a constant shape folds to a splat.
// CHECK-LABEL: func.func @constant_of_shape_splat(
// CHECK-DAG:     %[[A:.+]] = kiln.constant dense<5.000000e-01> : tensor<2x3xf32>
// CHECK-DAG:     %[[B:.+]] = kiln.constant dense<7> : tensor<2x3xi64>
// CHECK-DAG:     %[[C:.+]] = kiln.constant dense<true> : tensor<i1>
// CHECK-NOT:     kiln.constant_of_shape
// CHECK:         return %[[A]], %[[B]], %[[C]]
func.func @constant_of_shape_splat() -> (tensor<2x3xf32>, tensor<2x3xi64>, tensor<i1>) {
  %0 = kiln.constant dense<[2, 3]> : tensor<2xi64>
  %1 = kiln.constant_of_shape %0 {value = dense<0.5> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<2x3xf32>
  %2 = kiln.constant_of_shape %0 {value = dense<7> : tensor<1xi64>} : (tensor<2xi64>) -> tensor<2x3xi64>
  %3 = kiln.constant dense<> : tensor<0xi64>
  %4 = kiln.constant_of_shape %3 {value = dense<true> : tensor<1xi1>} : (tensor<0xi64>) -> tensor<i1>
  return %1, %2, %4 : tensor<2x3xf32>, tensor<2x3xi64>, tensor<i1>
}

// -----

// Tests that kiln.constant_of_shape with a partly dynamic shape stays.
// CHECK-LABEL: func.func @constant_of_shape_dynamic(
// CHECK:         %[[S:.+]] = kiln.shape
// CHECK:         %[[C:.+]] = kiln.constant_of_shape %[[S]]
// CHECK:         return %[[C]]
func.func @constant_of_shape_dynamic(%arg0: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %0 = kiln.shape %arg0 : (tensor<4x?xf32>) -> tensor<2xi64>
  %1 = kiln.constant_of_shape %0 {value = dense<0.0> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<4x?xf32>
  return %1 : tensor<4x?xf32>
}

// -----

// Tests that kiln.range of constants folds (ascending, descending, float,
// empty, negative i32).
// CHECK-LABEL: func.func @range_constants(
// CHECK-DAG:     %[[A:.+]] = kiln.constant dense<[0, 2, 4, 6, 8]> : tensor<5xi64>
// CHECK-DAG:     %[[B:.+]] = kiln.constant dense<[10, 7, 4, 1]> : tensor<4xi64>
// CHECK-DAG:     %[[C:.+]] = kiln.constant dense<[1.000000e+00, 1.400000e+00, 1.800000e+00]> : tensor<3xf32>
// CHECK-DAG:     %[[D:.+]] = kiln.constant dense<> : tensor<0xi32>
// CHECK-DAG:     %[[E:.+]] = kiln.constant dense<[-2, -1, 0, 1]> : tensor<4xi32>
// CHECK-NOT:     kiln.range
// CHECK:         return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]]
func.func @range_constants() -> (tensor<5xi64>, tensor<4xi64>, tensor<3xf32>, tensor<0xi32>, tensor<4xi32>) {
  %0 = kiln.constant dense<0> : tensor<i64>
  %1 = kiln.constant dense<10> : tensor<i64>
  %2 = kiln.constant dense<2> : tensor<i64>
  %3 = kiln.range %0, %1, %2 : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<5xi64>
  %4 = kiln.constant dense<-3> : tensor<i64>
  %5 = kiln.range %1, %0, %4 : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<4xi64>
  %6 = kiln.constant dense<1.0> : tensor<f32>
  %7 = kiln.constant dense<2.0> : tensor<f32>
  %8 = kiln.constant dense<0.4> : tensor<f32>
  %9 = kiln.range %6, %7, %8 : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<3xf32>
  %10 = kiln.constant dense<5> : tensor<i32>
  %11 = kiln.constant dense<1> : tensor<i32>
  %12 = kiln.range %10, %11, %11 : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<0xi32>
  %13 = kiln.constant dense<-2> : tensor<i32>
  %14 = kiln.constant dense<2> : tensor<i32>
  %15 = kiln.range %13, %14, %11 : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4xi32>
  return %3, %5, %9, %12, %15 : tensor<5xi64>, tensor<4xi64>, tensor<3xf32>, tensor<0xi32>, tensor<4xi32>
}

// -----

// Tests that kiln.range with a run-time operand stays.
// CHECK-LABEL: func.func @range_dynamic(
// CHECK:         %[[R:.+]] = kiln.range
// CHECK:         return %[[R]]
func.func @range_dynamic(%arg0: tensor<i64>) -> tensor<?xi64> {
  %0 = kiln.constant dense<0> : tensor<i64>
  %1 = kiln.constant dense<1> : tensor<i64>
  %2 = kiln.range %0, %arg0, %1 : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  return %2 : tensor<?xi64>
}

// -----

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// Tests that reduce_sum and reduce_prod of integer constants fold, with and
// without keepdims.
// CHECK-LABEL: func.func @reduce_int_constants(
// CHECK-DAG:     %[[IN:.+]] = kiln.constant dense<{{\[}}[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
// CHECK-DAG:     %[[SUM:.+]] = kiln.constant dense<{{\[}}[6], [15]]> : tensor<2x1xi64>
// CHECK-DAG:     %[[PROD:.+]] = kiln.constant dense<[4, 10, 18]> : tensor<3xi64>
// CHECK-DAG:     %[[ALL:.+]] = kiln.constant dense<24> : tensor<i32>
// CHECK-NOT:     kiln.reduce_sum
// CHECK-NOT:     kiln.reduce_prod
// CHECK:         return %[[SUM]], %[[PROD]], %[[ALL]], %[[IN]]
func.func @reduce_int_constants() -> (tensor<2x1xi64>, tensor<3xi64>, tensor<i32>, tensor<2x3xi64>) {
  %0 = kiln.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %1 = kiln.reduce_sum %0 {axes = array<i64: 1>} : (tensor<2x3xi64>) -> tensor<2x1xi64>
  %2 = kiln.reduce_prod %0 {axes = array<i64: 0>, keepdims = false} : (tensor<2x3xi64>) -> tensor<3xi64>
  %3 = kiln.constant dense<[2, 3, 4]> : tensor<3xi32>
  %4 = kiln.reduce_prod %3 {axes = array<i64: 0>, keepdims = false} : (tensor<3xi32>) -> tensor<i32>
  %5 = kiln.reduce_sum %0 {axes = array<i64>} : (tensor<2x3xi64>) -> tensor<2x3xi64>
  return %1, %2, %4, %5 : tensor<2x1xi64>, tensor<3xi64>, tensor<i32>, tensor<2x3xi64>
}

// -----

// Tests that float reductions of constants are left alone.
// CHECK-LABEL: func.func @reduce_float_not_folded(
// CHECK:         %[[R:.+]] = kiln.reduce_sum
// CHECK:         return %[[R]]
func.func @reduce_float_not_folded() -> tensor<1xf32> {
  %0 = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = kiln.reduce_sum %0 {axes = array<i64: 0>} : (tensor<2xf32>) -> tensor<1xf32>
  return %1 : tensor<1xf32>
}

// -----

// Tests that reductions over no axes fold to their input.
// CHECK-LABEL: func.func @reduce_no_axes(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<?x3xf32>
// CHECK-NOT:     kiln.reduce
// CHECK:         return %[[X]], %[[X]]
func.func @reduce_no_axes(%arg0: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
  %0 = kiln.reduce_sum %arg0 {axes = array<i64>} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  %1 = kiln.reduce_prod %0 {axes = array<i64>, keepdims = false} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0, %1 : tensor<?x3xf32>, tensor<?x3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Identity data movement and composition patterns
//===----------------------------------------------------------------------===//

// Tests that identity reshape, transpose, expand, squeeze and unsqueeze fold away.
// CHECK-LABEL: func.func @identity_data_movement(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<?x3x4xf32>
// CHECK-NOT:     kiln.reshape
// CHECK-NOT:     kiln.transpose
// CHECK-NOT:     kiln.expand
// CHECK-NOT:     kiln.squeeze
// CHECK-NOT:     kiln.unsqueeze
// CHECK:         return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]]
func.func @identity_data_movement(%arg0: tensor<?x3x4xf32>) -> (tensor<?x3x4xf32>, tensor<?x3x4xf32>, tensor<?x3x4xf32>, tensor<?x3x4xf32>, tensor<?x3x4xf32>) {
  %0 = kiln.constant dense<[0, 3, 4]> : tensor<3xi64>
  %1 = kiln.reshape %arg0, %0 : (tensor<?x3x4xf32>, tensor<3xi64>) -> tensor<?x3x4xf32>
  %2 = kiln.transpose %1 {perm = array<i64: 0, 1, 2>} : (tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
  %3 = kiln.constant dense<[1, 1]> : tensor<2xi64>
  %4 = kiln.expand %2, %3 : (tensor<?x3x4xf32>, tensor<2xi64>) -> tensor<?x3x4xf32>
  %5 = kiln.squeeze %4 {axes = array<i64>} : (tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
  %6 = kiln.unsqueeze %5 {axes = array<i64>} : (tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
  return %1, %2, %4, %5, %6 : tensor<?x3x4xf32>, tensor<?x3x4xf32>, tensor<?x3x4xf32>, tensor<?x3x4xf32>, tensor<?x3x4xf32>
}

// -----

// Tests that a reshape to a run-time shape stays even though the declared
// types match (a ?x? tensor may be reshaped to another ?x? shape).
// CHECK-LABEL: func.func @reshape_run_time_shape_not_identity(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<?x?xf32>, %[[S:[^:]+]]: tensor<2xi64>
// CHECK:         %[[R:.+]] = kiln.reshape %[[X]], %[[S]] : (tensor<?x?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
// CHECK:         return %[[R]]
func.func @reshape_run_time_shape_not_identity(%arg0: tensor<?x?xf32>, %arg1: tensor<2xi64>) -> tensor<?x?xf32> {
  %0 = kiln.reshape %arg0, %arg1 : (tensor<?x?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Tests that an expand to a run-time shape stays even though the declared
// types match (it may broadcast a dynamic dim of size 1).
// CHECK-LABEL: func.func @expand_run_time_shape_not_identity(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<?x4xf32>, %[[S:[^:]+]]: tensor<2xi64>
// CHECK:         %[[E:.+]] = kiln.expand %[[X]], %[[S]] : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
// CHECK:         return %[[E]]
func.func @expand_run_time_shape_not_identity(%arg0: tensor<?x4xf32>, %arg1: tensor<2xi64>) -> tensor<?x4xf32> {
  %0 = kiln.expand %arg0, %arg1 : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Tests that reshape(reshape(x)) becomes one reshape of x.
// CHECK-LABEL: func.func @reshape_of_reshape(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x3x4xf32>
// CHECK:         %[[S:.+]] = kiln.constant dense<[4, -1]> : tensor<2xi64>
// CHECK-NEXT:    %[[R:.+]] = kiln.reshape %[[X]], %[[S]] : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<4x6xf32>
// CHECK-NEXT:    return %[[R]]
func.func @reshape_of_reshape(%arg0: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %0 = kiln.constant dense<[6, 4]> : tensor<2xi64>
  %1 = kiln.reshape %arg0, %0 : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  %2 = kiln.constant dense<[4, -1]> : tensor<2xi64>
  %3 = kiln.reshape %1, %2 : (tensor<6x4xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  return %3 : tensor<4x6xf32>
}

// -----

// Tests that reshape(reshape(x)) is kept when the outer shape copies a dim (0)
// of the intermediate value.
// CHECK-LABEL: func.func @reshape_of_reshape_copying_dim(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x3x4xf32>
// CHECK:         %[[INNER:.+]] = kiln.reshape %[[X]], %{{.+}} : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<6x2x2xf32>
// CHECK:         %[[OUTER:.+]] = kiln.reshape %[[INNER]], %{{.+}} : (tensor<6x2x2xf32>, tensor<2xi64>) -> tensor<6x4xf32>
// CHECK:         return %[[OUTER]]
func.func @reshape_of_reshape_copying_dim(%arg0: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %0 = kiln.constant dense<[6, 2, 2]> : tensor<3xi64>
  %1 = kiln.reshape %arg0, %0 : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<6x2x2xf32>
  %2 = kiln.constant dense<[0, 4]> : tensor<2xi64>
  %3 = kiln.reshape %1, %2 : (tensor<6x2x2xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  return %3 : tensor<6x4xf32>
}

// -----

// Tests that transpose(transpose(x)) composes the perms, and folds away when
// the composition is the identity.
// CHECK-LABEL: func.func @transpose_of_transpose(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x3x4xf32>
// CHECK:         %[[T:.+]] = kiln.transpose %[[X]] {perm = array<i64: 1, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
// CHECK-NOT:     kiln.transpose
// CHECK:         return %[[T]], %[[X]]
func.func @transpose_of_transpose(%arg0: tensor<2x3x4xf32>) -> (tensor<3x2x4xf32>, tensor<2x3x4xf32>) {
  %0 = kiln.transpose %arg0 {perm = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %1 = kiln.transpose %0 {perm = array<i64: 0, 2, 1>} : (tensor<3x4x2xf32>) -> tensor<3x2x4xf32>
  %2 = kiln.transpose %0 {perm = array<i64: 2, 0, 1>} : (tensor<3x4x2xf32>) -> tensor<2x3x4xf32>
  return %1, %2 : tensor<3x2x4xf32>, tensor<2x3x4xf32>
}

// -----

// Tests that kiln.constant_of_shape with a dense_resource value is left alone
// (its folder reads dense values only; it once looped on a resource).
// CHECK-LABEL: func.func @constant_of_shape_resource(
// CHECK:         kiln.constant_of_shape
func.func @constant_of_shape_resource() -> tensor<2x3xf32> {
  %0 = kiln.constant dense<[2, 3]> : tensor<2xi64>
  %1 = kiln.constant_of_shape %0 {value = dense_resource<b> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

{-#
  dialect_resources: {
    builtin: {
      b: "0x040000000000803F"
    }
  }
#-}

// -----

// Tests that kiln.neg folds integer and float constants (shape subgraphs
// negate axes, as LayerNormalization's function body does) and leaves a
// run-time operand alone.
// CHECK-LABEL: func.func @neg_constants(
// CHECK-DAG:     %[[I:.+]] = kiln.constant dense<[-1, 2]> : tensor<2xi64>
// CHECK-DAG:     %[[F:.+]] = kiln.constant dense<-2.500000e+00> : tensor<f32>
// CHECK:         %[[N:.+]] = kiln.neg %arg0
// CHECK:         return %[[I]], %[[F]], %[[N]]
func.func @neg_constants(%arg0: tensor<3xf32>) -> (tensor<2xi64>, tensor<f32>, tensor<3xf32>) {
  %0 = kiln.constant dense<[1, -2]> : tensor<2xi64>
  %1 = kiln.neg %0 : tensor<2xi64>
  %2 = kiln.constant dense<2.5> : tensor<f32>
  %3 = kiln.neg %2 : tensor<f32>
  %4 = kiln.neg %arg0 : tensor<3xf32>
  return %1, %3, %4 : tensor<2xi64>, tensor<f32>, tensor<3xf32>
}
