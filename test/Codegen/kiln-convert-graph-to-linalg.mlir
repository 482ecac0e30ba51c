// RUN: kiln-opt %s -split-input-file -kiln-convert-graph-to-linalg -verify-diagnostics | FileCheck %s

// Tests that constants become arith.constant, dense and dense_resource alike,
// and that unsigned element types become signless with the same bits, in
// function signatures too.

// CHECK-LABEL: func.func @constants
// CHECK-SAME: -> (tensor<2xf32>, tensor<3xi8>, tensor<4xf32>)
// CHECK: %[[D:.+]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: %[[U:.+]] = arith.constant dense<[1, -56, -1]> : tensor<3xi8>
// CHECK: %[[R:.+]] = arith.constant dense_resource<blob> : tensor<4xf32>
// CHECK: return %[[D]], %[[U]], %[[R]]
// CHECK-NOT: kiln.
func.func @constants() -> (tensor<2xf32>, tensor<3xui8>, tensor<4xf32>) {
  %0 = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = kiln.constant dense<[1, 200, 255]> : tensor<3xui8>
  %2 = kiln.constant dense_resource<blob> : tensor<4xf32>
  return %0, %1, %2 : tensor<2xf32>, tensor<3xui8>, tensor<4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      blob: "0x04000000000000000000803F0000004000004040"
    }
  }
#-}

// -----

// Tests that a static unary op becomes a parallel generic with identity maps
// into a tensor.empty init.

// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @relu
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x3xf32>
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]] : tensor<2x3xf32>) outs(%[[E]] : tensor<2x3xf32>)
// CHECK: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[MAX:.+]] = arith.maximumf %[[IN]], %[[ZERO]] : f32
// CHECK: linalg.yield %[[MAX]] : f32
// CHECK: return %[[R]]
func.func @relu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.relu %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that numpy broadcasting is encoded in the indexing maps: static
// size-1 dims that broadcast read index 0, missing leading dims are dropped.

// CHECK-DAG: #[[$LHS:.+]] = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
// CHECK-DAG: #[[$RHS:.+]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @add_broadcast
// CHECK-SAME: (%[[A:.+]]: tensor<2x1x3xf32>, %[[B:.+]]: tensor<4x1xf32>)
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x4x3xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$LHS]], #[[$RHS]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<2x1x3xf32>, tensor<4x1xf32>) outs(%[[E]] : tensor<2x4x3xf32>)
// CHECK: arith.addf
func.func @add_broadcast(%a: tensor<2x1x3xf32>, %b: tensor<4x1xf32>) -> tensor<2x4x3xf32> {
  %0 = kiln.add %a, %b : (tensor<2x1x3xf32>, tensor<4x1xf32>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// -----

// Tests that a dynamic result dim of an elementwise op takes its size from
// the operand dim it maps to (tensor.dim), the broadcast row reads index 0.

// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @add_dynamic
// CHECK-SAME: (%[[A:.+]]: tensor<?x3xf32>, %[[B:.+]]: tensor<1x3xf32>)
// CHECK: %[[C0:.+]] = arith.constant 0 : index
// CHECK: %[[D:.+]] = tensor.dim %[[A]], %[[C0]] : tensor<?x3xf32>
// CHECK: %[[E:.+]] = tensor.empty(%[[D]]) : tensor<?x3xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ID]]], {{.*}}} ins(%[[A]], %[[B]] : tensor<?x3xf32>, tensor<1x3xf32>) outs(%[[E]] : tensor<?x3xf32>)
// CHECK: arith.addf
func.func @add_dynamic(%a: tensor<?x3xf32>, %b: tensor<1x3xf32>) -> tensor<?x3xf32> {
  %0 = kiln.add %a, %b : (tensor<?x3xf32>, tensor<1x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// Tests that integer ops follow the kiln signedness: unsigned division and
// comparison on ui8 (now i8), signed on i32, python-style mod (remainder
// corrected to the divisor's sign).

// CHECK-LABEL: func.func @int_semantics
// CHECK-SAME: (%{{.+}}: tensor<4xi8>, %{{.+}}: tensor<4xi8>, %{{.+}}: tensor<4xi32>, %{{.+}}: tensor<4xi32>)
// CHECK: arith.divui %{{.+}}, %{{.+}} : i8
// CHECK: arith.divsi %{{.+}}, %{{.+}} : i32
// CHECK: arith.cmpi ult, %{{.+}}, %{{.+}} : i8
// CHECK: %[[REM:.+]] = arith.remsi %[[X:.+]], %[[Y:.+]] : i32
// CHECK: %[[REMNEG:.+]] = arith.cmpi slt, %[[REM]], %{{.+}} : i32
// CHECK: %[[DIVNEG:.+]] = arith.cmpi slt, %[[Y]], %{{.+}} : i32
// CHECK: %[[NZ:.+]] = arith.cmpi ne, %[[REM]], %{{.+}} : i32
// CHECK: %[[DIFF:.+]] = arith.xori %[[REMNEG]], %[[DIVNEG]] : i1
// CHECK: %[[FIX:.+]] = arith.andi %[[DIFF]], %[[NZ]] : i1
// CHECK: %[[SUM:.+]] = arith.addi %[[REM]], %[[Y]] : i32
// CHECK: arith.select %[[FIX]], %[[SUM]], %[[REM]] : i32
func.func @int_semantics(%a: tensor<4xui8>, %b: tensor<4xui8>, %c: tensor<4xi32>, %d: tensor<4xi32>) -> (tensor<4xui8>, tensor<4xi32>, tensor<4xi1>, tensor<4xi32>) {
  %0 = kiln.div %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %1 = kiln.div %c, %d : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %2 = kiln.less %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  %3 = kiln.mod %c, %d : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1, %2, %3 : tensor<4xui8>, tensor<4xi32>, tensor<4xi1>, tensor<4xi32>
}

// -----

// Tests that casts pick the conversion from the source and target kiln types:
// uitofp from unsigned, sitofp from signed, fptoui to unsigned, != 0 to i1,
// extui from unsigned, truncf between floats; ui8 to i8 is a plain reuse.

// CHECK-LABEL: func.func @casts
// CHECK-SAME: (%[[A:.+]]: tensor<4xi8>, %[[B:.+]]: tensor<4xi32>, %[[C:.+]]: tensor<4xf32>)
// CHECK: arith.uitofp %{{.+}} : i8 to f32
// CHECK: arith.sitofp %{{.+}} : i32 to f32
// CHECK: arith.fptoui %{{.+}} : f32 to i8
// CHECK: arith.cmpf une, %{{.+}}, %{{.+}} : f32
// CHECK: arith.extui %{{.+}} : i8 to i64
// CHECK: arith.truncf %{{.+}} : f32 to f16
// CHECK: return {{.*}}, %[[A]] :
func.func @casts(%a: tensor<4xui8>, %b: tensor<4xi32>, %c: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xui8>, tensor<4xi1>, tensor<4xi64>, tensor<4xf16>, tensor<4xi8>) {
  %0 = kiln.cast %a : tensor<4xui8> -> tensor<4xf32>
  %1 = kiln.cast %b : tensor<4xi32> -> tensor<4xf32>
  %2 = kiln.cast %c : tensor<4xf32> -> tensor<4xui8>
  %3 = kiln.cast %c : tensor<4xf32> -> tensor<4xi1>
  %4 = kiln.cast %a : tensor<4xui8> -> tensor<4xi64>
  %5 = kiln.cast %c : tensor<4xf32> -> tensor<4xf16>
  %6 = kiln.cast %a : tensor<4xui8> -> tensor<4xi8>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf32>, tensor<4xf32>, tensor<4xui8>, tensor<4xi1>, tensor<4xi64>, tensor<4xf16>, tensor<4xi8>
}

// -----

// Tests that the math bodies are exact gelu (erf), round (half to even),
// integer pow (ipowi) and clip (maximumf then minimumf with the bounds).

// CHECK-LABEL: func.func @math_ops
// CHECK: %[[S:.+]] = arith.constant 0.707106769 : f32
// CHECK: %[[XS:.+]] = arith.mulf %{{.+}}, %[[S]] : f32
// CHECK: math.erf %[[XS]] : f32
// CHECK: math.roundeven %{{.+}} : f32
// CHECK: math.ipowi %{{.+}}, %{{.+}} : i32
// CHECK: %[[LO:.+]] = arith.constant -1.000000e+00 : f32
// CHECK: %[[M:.+]] = arith.maximumf %{{.+}}, %[[LO]] : f32
// CHECK: %[[HI:.+]] = arith.constant 6.000000e+00 : f32
// CHECK: arith.minimumf %[[M]], %[[HI]] : f32
func.func @math_ops(%x: tensor<4xf32>, %e: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xf32>) {
  %0 = kiln.gelu %x : tensor<4xf32>
  %1 = kiln.round %x : tensor<4xf32>
  %2 = kiln.pow %e, %e : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %3 = kiln.clip %x {min = -1.0 : f64, max = 6.0 : f64} : tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xf32>
}

// -----

// Tests that where broadcasts its three operands and selects.

// CHECK-DAG: #[[$COND:.+]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$VEC:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @where
// CHECK: linalg.generic {indexing_maps = [#[[$COND]], #[[$ID]], #[[$VEC]], #[[$ID]]]
// CHECK: ^bb0(%[[C:.+]]: i1, %[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: f32):
// CHECK: arith.select %[[C]], %[[X]], %[[Y]] : f32
func.func @where(%c: tensor<2x1xi1>, %x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.where %c, %x, %y : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that a padded, strided conv with bias becomes tensor.pad (zero, the
// begin/end pads of each spatial dim), a zero-filled
// linalg.conv_2d_nchw_fchw with the strides and dilations, and a bias generic
// reading the bias through the channel dim.

// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$CH:.+]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @conv
// CHECK-SAME: (%[[X:.+]]: tensor<1x3x8x8xf32>, %[[W:.+]]: tensor<4x3x3x3xf32>, %[[B:.+]]: tensor<4xf32>)
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[PAD:.+]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 0, 0]
// CHECK: tensor.yield %[[ZERO]] : f32
// CHECK: } : tensor<1x3x8x8xf32> to tensor<1x3x9x9xf32>
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x4x4x4xf32>)
// CHECK: %[[CONV:.+]] = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[PAD]], %[[W]] : tensor<1x3x9x9xf32>, tensor<4x3x3x3xf32>) outs(%[[INIT]] : tensor<1x4x4x4xf32>)
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$CH]], #[[$ID]]], {{.*}}} ins(%[[CONV]], %[[B]] : tensor<1x4x4x4xf32>, tensor<4xf32>)
// CHECK: arith.addf
// CHECK: return %[[R]]
func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = kiln.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// Tests that a depthwise conv (group == C == M) collapses the filter to
// [C, KH, KW] for linalg.depthwise_conv_2d_nchw_chw, keeping the dilation.

// CHECK-LABEL: func.func @conv_depthwise
// CHECK-SAME: (%[[X:.+]]: tensor<1x8x6x6xf32>, %[[W:.+]]: tensor<8x1x3x3xf32>)
// CHECK: %[[F:.+]] = tensor.collapse_shape %[[W]] {{\[}}[0, 1], [2], [3]] : tensor<8x1x3x3xf32> into tensor<8x3x3xf32>
// CHECK: linalg.depthwise_conv_2d_nchw_chw {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[X]], %[[F]] : tensor<1x8x6x6xf32>, tensor<8x3x3xf32>)
func.func @conv_depthwise(%x: tensor<1x8x6x6xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x2x2xf32> {
  %0 = kiln.conv %x, %w {dilations = array<i64: 2, 2>, group = 8 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x6x6xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x2x2xf32>
  return %0 : tensor<1x8x2x2xf32>
}

// -----

// Tests that a grouped conv splits the channels into [G, C/G] (input) and
// [G, M/G] (filter, output) around linalg.conv_2d_ngchw_gfchw.

// CHECK-LABEL: func.func @conv_grouped
// CHECK-SAME: (%[[X:.+]]: tensor<1x8x6x6xf32>, %[[W:.+]]: tensor<4x4x3x3xf32>)
// CHECK: %[[XG:.+]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 2, 4, 6, 6] : tensor<1x8x6x6xf32> into tensor<1x2x4x6x6xf32>
// CHECK: %[[WG:.+]] = tensor.expand_shape %[[W]] {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 2, 4, 3, 3] : tensor<4x4x3x3xf32> into tensor<2x2x4x3x3xf32>
// CHECK: %[[C:.+]] = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[XG]], %[[WG]] : tensor<1x2x4x6x6xf32>, tensor<2x2x4x3x3xf32>) outs(%{{.+}} : tensor<1x2x2x4x4xf32>)
// CHECK: %[[R:.+]] = tensor.collapse_shape %[[C]] {{\[}}[0], [1, 2], [3], [4]] : tensor<1x2x2x4x4xf32> into tensor<1x4x4x4xf32>
// CHECK: return %[[R]]
func.func @conv_grouped(%x: tensor<1x8x6x6xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %0 = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x6x6xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// Tests that 1-D and 3-D convs use linalg.conv_1d_ncw_fcw and
// linalg.conv_3d_ncdhw_fcdhw.

// CHECK-LABEL: func.func @conv_1d_3d
// CHECK: linalg.conv_1d_ncw_fcw {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>}
// CHECK: linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>}
func.func @conv_1d_3d(%x: tensor<1x2x9xf32>, %w: tensor<3x2x3xf32>, %y: tensor<1x2x4x4x4xf32>, %v: tensor<3x2x2x2x2xf32>) -> (tensor<1x3x4xf32>, tensor<1x3x3x3x3xf32>) {
  %0 = kiln.conv %x, %w {dilations = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 2>} : (tensor<1x2x9xf32>, tensor<3x2x3xf32>) -> tensor<1x3x4xf32>
  %1 = kiln.conv %y, %v {dilations = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<1x2x4x4x4xf32>, tensor<3x2x2x2x2xf32>) -> tensor<1x3x3x3x3xf32>
  return %0, %1 : tensor<1x3x4xf32>, tensor<1x3x3x3x3xf32>
}

// -----

// Tests that dynamic batch and spatial dims of a conv get their output sizes
// from index arithmetic: (in + 2 - 3) floordiv 2 + 1.

// CHECK-LABEL: func.func @conv_dynamic
// CHECK-SAME: (%[[X:.+]]: tensor<?x3x?x?xf32>
// CHECK: %[[PAD:.+]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: } : tensor<?x3x?x?xf32> to tensor<?x3x?x?xf32>
// CHECK: %[[N:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x3x?x?xf32>
// CHECK: %[[H:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x3x?x?xf32>
// CHECK-NEXT: %[[M1:.+]] = arith.constant -1 : index
// CHECK: %[[HA:.+]] = arith.addi %[[H]], %[[M1]] : index
// CHECK: %[[TWO:.+]] = arith.constant 2 : index
// CHECK: %[[HD:.+]] = arith.floordivsi %[[HA]], %[[TWO]] : index
// CHECK: %[[OH:.+]] = arith.addi %[[HD]], %{{.+}} : index
// CHECK: %[[E:.+]] = tensor.empty(%[[N]], %[[OH]], %{{.+}}) : tensor<?x4x?x?xf32>
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} ins(%[[PAD]], %{{.+}} : tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>)
func.func @conv_dynamic(%x: tensor<?x3x?x?xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32> {
  %0 = kiln.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32>
  return %0 : tensor<?x4x?x?xf32>
}

// -----

// Tests that conv_transpose spreads the input onto zeros with a strided
// tensor.insert_slice (offset kernel - 1 - pad), flips the filter and swaps
// its channel dims in a generic, then runs a stride-1 conv.

// CHECK-DAG: #[[$FLIP:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, -d3 + 2, -d4 + 2)>
// CHECK-LABEL: func.func @conv_transpose
// CHECK-SAME: (%[[X:.+]]: tensor<1x2x3x3xf32>, %[[W:.+]]: tensor<2x3x3x3xf32>)
// CHECK: %[[WG:.+]] = tensor.expand_shape %[[W]]
// CHECK: %[[FL:.+]] = linalg.generic {indexing_maps = [#[[$FLIP]], {{.*}}]{{.*}} ins(%[[WG]] : tensor<1x2x3x3x3xf32>) outs(%{{.+}} : tensor<1x3x2x3x3xf32>)
// CHECK: %[[F:.+]] = tensor.collapse_shape %[[FL]] {{\[}}[0, 1], [2], [3], [4]] : tensor<1x3x2x3x3xf32> into tensor<3x2x3x3xf32>
// CHECK: %[[Z:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x2x7x7xf32>)
// CHECK: %[[S:.+]] = tensor.insert_slice %[[X]] into %[[Z]][0, 0, 1, 1] [1, 2, 3, 3] [1, 1, 2, 2] : tensor<1x2x3x3xf32> into tensor<1x2x7x7xf32>
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[S]], %[[F]] : tensor<1x2x7x7xf32>, tensor<3x2x3x3xf32>)
func.func @conv_transpose(%x: tensor<1x2x3x3xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x3x5x5xf32> {
  %0 = kiln.conv_transpose %x, %w {dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x3x3xf32>, tensor<2x3x3x3xf32>) -> tensor<1x3x5x5xf32>
  return %0 : tensor<1x3x5x5xf32>
}

// -----

// Tests that run-time SAME padding is reported as not supported yet.

func.func @conv_same(%x: tensor<1x3x?x?xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x?x?xf32> {
  // expected-error @+1 {{'kiln.conv' op is not supported by kiln-convert-graph-to-linalg yet: auto_pad "SAME_UPPER" needs padding computed at run time}}
  %0 = kiln.conv %x, %w {auto_pad = #kiln.auto_pad<SAME_UPPER>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x?x?xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x?x?xf32>
  return %0 : tensor<1x4x?x?xf32>
}

// -----

// Tests that a 2-D matmul is a zero-filled linalg.matmul.

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.+]]: tensor<3x4xf32>, %[[B:.+]]: tensor<4x5xf32>)
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[E:.+]] = tensor.empty() : tensor<3x5xf32>
// CHECK: %[[F:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<3x5xf32>)
// CHECK: %[[R:.+]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<3x4xf32>, tensor<4x5xf32>) outs(%[[F]] : tensor<3x5xf32>)
// CHECK: return %[[R]]
func.func @matmul(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %0 = kiln.matmul %a, %b : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// Tests that a 3-D matmul with equal batch dims is linalg.batch_matmul.

// CHECK-LABEL: func.func @matmul_batch
// CHECK: linalg.batch_matmul ins(%{{.+}}, %{{.+}} : tensor<2x3x4xf32>, tensor<2x4x5xf32>) outs(%{{.+}} : tensor<2x3x5xf32>)
func.func @matmul_batch(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = kiln.matmul %a, %b : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// Tests that [B, S, K] x [K, N] with dynamic B and S folds the batch dims into
// the rows of a linalg.matmul and expands them back with the run-time sizes.

// CHECK-LABEL: func.func @matmul_dynamic
// CHECK-SAME: (%[[A:.+]]: tensor<?x?x64xf32>, %[[B:.+]]: tensor<64x32xf32>)
// CHECK: %[[D0:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<?x?x64xf32>
// CHECK: %[[D1:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<?x?x64xf32>
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1], [2]] : tensor<?x?x64xf32> into tensor<?x64xf32>
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[FLAT]], %[[B]] : tensor<?x64xf32>, tensor<64x32xf32>) outs(%{{.+}} : tensor<?x32xf32>)
// CHECK: %[[R:.+]] = tensor.expand_shape %[[MM]] {{\[}}[0, 1], [2]] output_shape [%[[D0]], %[[D1]], 32] : tensor<?x32xf32> into tensor<?x?x32xf32>
// CHECK: return %[[R]]
func.func @matmul_dynamic(%a: tensor<?x?x64xf32>, %b: tensor<64x32xf32>) -> tensor<?x?x32xf32> {
  %0 = kiln.matmul %a, %b : (tensor<?x?x64xf32>, tensor<64x32xf32>) -> tensor<?x?x32xf32>
  return %0 : tensor<?x?x32xf32>
}

// -----

// Tests that broadcast batch dims make a generic matmul: dims (batch..., m,
// n, k) with the size-1 batch dim read at 0 and a reduction over k.

// CHECK-DAG: #[[$L:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>
// CHECK-DAG: #[[$R:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>
// CHECK-DAG: #[[$O:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @matmul_broadcast
// CHECK: linalg.generic {indexing_maps = [#[[$L]], #[[$R]], #[[$O]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK: %[[P:.+]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK: arith.addf %[[ACC]], %[[P]] : f32
func.func @matmul_broadcast(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32> {
  %0 = kiln.matmul %a, %b : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
  return %0 : tensor<2x5x3x6xf32>
}

// -----

// Tests that an f16 broadcast matmul (4-D attention heads, a left-hand side
// shared by stacked weights) accumulates in f32 like the named ones: the
// products of extended operands add into an f32 zero-filled tensor, rounded
// to f16 once after.
// CHECK-LABEL: func.func @matmul_broadcast_f16
// CHECK: %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[F:.+]] = linalg.fill ins(%[[Z]] : f32) outs(%{{.+}} : tensor<3x8x6xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.+}}, %{{.+}} : tensor<8x4xf16>, tensor<3x4x6xf16>) outs(%[[F]] : tensor<3x8x6xf32>)
// CHECK: ^bb0(%[[X:.+]]: f16, %[[Y:.+]]: f16, %[[ACC:.+]]: f32):
// CHECK: %[[XE:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK: %[[YE:.+]] = arith.extf %[[Y]] : f16 to f32
// CHECK: %[[P:.+]] = arith.mulf %[[XE]], %[[YE]] : f32
// CHECK: arith.addf %[[ACC]], %[[P]] : f32
// CHECK: arith.truncf %{{.+}} : f32 to f16
func.func @matmul_broadcast_f16(%a: tensor<8x4xf16>, %b: tensor<3x4x6xf16>) -> tensor<3x8x6xf16> {
  %0 = kiln.matmul %a, %b : (tensor<8x4xf16>, tensor<3x4x6xf16>) -> tensor<3x8x6xf16>
  return %0 : tensor<3x8x6xf16>
}

// -----

// Tests that a 1-D lhs is promoted to a row and the promoted dim dropped.

// CHECK-LABEL: func.func @matmul_vector
// CHECK-SAME: (%[[A:.+]]: tensor<4xf32>, %[[B:.+]]: tensor<4x5xf32>)
// CHECK: %[[ROW:.+]] = tensor.expand_shape %[[A]] {{\[}}[0, 1]] output_shape [1, 4] : tensor<4xf32> into tensor<1x4xf32>
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[ROW]], %[[B]] : tensor<1x4xf32>, tensor<4x5xf32>)
// CHECK: tensor.collapse_shape %[[MM]] {{\[}}[0, 1]] : tensor<1x5xf32> into tensor<5xf32>
func.func @matmul_vector(%a: tensor<4xf32>, %b: tensor<4x5xf32>) -> tensor<5xf32> {
  %0 = kiln.matmul %a, %b : (tensor<4xf32>, tensor<4x5xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// Tests that gemm reads transposed operands through the maps of one
// contraction generic over (m, n, k) (no copy: A^T is (k, m), B^T is
// (n, k)) and applies alpha, beta and the broadcast C in one generic.

// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$C:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$AT:.+]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[$BT:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @gemm
// CHECK-SAME: (%[[A:.+]]: tensor<4x3xf32>, %[[B:.+]]: tensor<5x4xf32>, %[[C:.+]]: tensor<5xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[MM:.+]] = linalg.generic {indexing_maps = [#[[$AT]], #[[$BT]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]] : tensor<4x3xf32>, tensor<5x4xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$C]], #[[$ID]]], {{.*}}} ins(%[[MM]], %[[C]] : tensor<3x5xf32>, tensor<5xf32>)
// CHECK: ^bb0(%[[AB:.+]]: f32, %[[CV:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[ALPHA:.+]] = arith.constant 2.000000e+00 : f32
// CHECK: %[[S1:.+]] = arith.mulf %[[AB]], %[[ALPHA]] : f32
// CHECK: %[[BETA:.+]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[S2:.+]] = arith.mulf %[[CV]], %[[BETA]] : f32
// CHECK: arith.addf %[[S1]], %[[S2]] : f32
func.func @gemm(%a: tensor<4x3xf32>, %b: tensor<5x4xf32>, %c: tensor<5xf32>) -> tensor<3x5xf32> {
  %0 = kiln.gemm %a, %b, %c {alpha = 2.0 : f32, beta = 0.5 : f32, trans_a = true, trans_b = true} : (tensor<4x3xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// Tests that max_pool pads with -inf, starts from -inf and uses
// linalg.pooling_nchw_max with a window tensor and the strides.

// CHECK-LABEL: func.func @max_pool
// CHECK-SAME: (%[[X:.+]]: tensor<1x3x8x8xf32>)
// CHECK: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[PAD:.+]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[NINF]] : f32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.+}} : tensor<1x3x4x4xf32>)
// CHECK: %[[WIN:.+]] = tensor.empty() : tensor<3x3xf32>
// CHECK: linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[PAD]], %[[WIN]] : tensor<1x3x10x10xf32>, tensor<3x3xf32>) outs(%[[INIT]] : tensor<1x3x4x4xf32>)
func.func @max_pool(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  %0 = kiln.max_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

// Tests that ceil_mode adds end padding for the partial last window.

// CHECK-LABEL: func.func @max_pool_ceil
// CHECK: tensor.pad %{{.+}} low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: } : tensor<1x3x5x5xf32> to tensor<1x3x6x6xf32>
// CHECK: linalg.pooling_nchw_max {{.*}} outs(%{{.+}} : tensor<1x3x3x3xf32>)
func.func @max_pool_ceil(%x: tensor<1x3x5x5xf32>) -> tensor<1x3x3x3xf32> {
  %0 = kiln.max_pool %x {ceil_mode = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x5x5xf32>) -> tensor<1x3x3x3xf32>
  return %0 : tensor<1x3x3x3xf32>
}

// -----

// Tests that 3-D pooling (no named NCDHW op) is a generic with reduction dims
// bounded by a window tensor.

// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2 * 2 + d5, d3 * 2 + d6, d4 * 2 + d7)>
// CHECK-DAG: #[[$WIN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d7)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @max_pool_3d
// CHECK: linalg.generic {indexing_maps = [#[[$IN]], #[[$WIN]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK: arith.maximumf
func.func @max_pool_3d(%x: tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32> {
  %0 = kiln.max_pool %x {dilations = array<i64: 1, 1, 1>, kernel_shape = array<i64: 2, 2, 2>, pads = array<i64: 0, 0, 0, 0, 0, 0>, strides = array<i64: 2, 2, 2>} : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32>
  return %0 : tensor<1x2x2x2x2xf32>
}

// -----

// Tests that avg_pool with count_include_pad = false sums with
// linalg.pooling_nchw_sum over zero padding, then divides by a constant
// tensor of per-window element counts (4 at the corner, 6 on the edges).

// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$SP:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-LABEL: func.func @avg_pool
// CHECK: %[[SUM:.+]] = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
// CHECK: %[[CNT:.+]] = arith.constant dense<{{\[}}[4.000000e+00, 6.000000e+00, 6.000000e+00, 6.000000e+00], [6.000000e+00, 9.000000e+00, 9.000000e+00, 9.000000e+00], {{.*}}]> : tensor<4x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$SP]], #[[$ID]]], {{.*}}} ins(%[[SUM]], %[[CNT]] : tensor<1x3x4x4xf32>, tensor<4x4xf32>)
// CHECK: arith.divf
func.func @avg_pool(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  %0 = kiln.avg_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

// Tests that avg_pool with count_include_pad divides by the window size.

// CHECK-LABEL: func.func @avg_pool_include_pad
// CHECK: linalg.pooling_nchw_sum
// CHECK: linalg.generic
// CHECK: %[[NINE:.+]] = arith.constant 9.000000e+00 : f32
// CHECK: arith.divf %{{.+}}, %[[NINE]] : f32
func.func @avg_pool_include_pad(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  %0 = kiln.avg_pool %x {count_include_pad = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

// Tests that an f16 avg_pool sums its window into an f32 accumulator
// (pooling_nchw_sum reads f16, writes f32), divides in f32 and rounds to f16
// once: an f16 sum of 49 values near 2000 would overflow.

// CHECK-LABEL: func.func @avg_pool_f16
// CHECK: %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[Z]] : f32) outs(%{{.+}} : tensor<1x8x1x1xf32>)
// CHECK: %[[SUM:.+]] = linalg.pooling_nchw_sum {{.*}} ins(%{{.+}}, %{{.+}} : tensor<1x8x7x7xf16>, tensor<7x7xf16>) outs(%[[INIT]] : tensor<1x8x1x1xf32>)
// CHECK: %[[AVG:.+]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<1x8x1x1xf32>) outs(%{{.+}} : tensor<1x8x1x1xf32>)
// CHECK: arith.divf %{{.+}}, %{{.+}} : f32
// CHECK: linalg.generic {{.*}} ins(%[[AVG]] : tensor<1x8x1x1xf32>) outs(%{{.+}} : tensor<1x8x1x1xf16>)
// CHECK: arith.truncf %{{.+}} : f32 to f16
func.func @avg_pool_f16(%x: tensor<1x8x7x7xf16>) -> tensor<1x8x1x1xf16> {
  %0 = kiln.avg_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 7, 7>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x7x7xf16>) -> tensor<1x8x1x1xf16>
  return %0 : tensor<1x8x1x1xf16>
}

// -----

// Tests that with dynamic spatial dims the average's divisor is computed per
// output position from linalg.index.

// CHECK-LABEL: func.func @avg_pool_dynamic
// CHECK: linalg.pooling_nchw_sum
// CHECK: linalg.generic
// CHECK: linalg.index 2 : index
// CHECK: linalg.index 3 : index
// CHECK: arith.sitofp
// CHECK: arith.divf
func.func @avg_pool_dynamic(%x: tensor<1x3x?x?xf32>) -> tensor<1x3x?x?xf32> {
  %0 = kiln.avg_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x?x?xf32>) -> tensor<1x3x?x?xf32>
  return %0 : tensor<1x3x?x?xf32>
}

// -----

// Tests that a reduction with keepdims is linalg.reduce over the axes into a
// zero-filled tensor, then expand_shape back to the kept unit dims.

// CHECK-LABEL: func.func @reduce_sum
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<2xf32>)
// CHECK: %[[R:.+]] = linalg.reduce { arith.addf } ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<2xf32>) dimensions = [1, 2]
// CHECK: tensor.expand_shape %[[R]] {{\[}}[0, 1, 2]] output_shape [2, 1, 1] : tensor<2xf32> into tensor<2x1x1xf32>
func.func @reduce_sum(%x: tensor<2x3x4xf32>) -> tensor<2x1x1xf32> {
  %0 = kiln.reduce_sum %x {axes = array<i64: 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  return %0 : tensor<2x1x1xf32>
}

// -----

// Tests that a dynamic reduce_mean divides by the run-time size of the
// reduced dim.

// CHECK-LABEL: func.func @reduce_mean_dynamic
// CHECK-SAME: (%[[X:.+]]: tensor<?x?xf32>)
// CHECK: %[[R:.+]] = linalg.reduce { arith.addf } ins(%[[X]] : tensor<?x?xf32>) outs(%{{.+}} : tensor<?xf32>) dimensions = [1]
// CHECK: %[[D1:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x?xf32>
// CHECK-NEXT: %[[I:.+]] = arith.index_cast %[[D1]] : index to i64
// CHECK: %[[N:.+]] = arith.sitofp %[[I]] : i64 to f32
// CHECK: linalg.generic {{.*}} ins(%[[R]] : tensor<?xf32>)
// CHECK: arith.divf %{{.+}}, %[[N]] : f32
func.func @reduce_mean_dynamic(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %0 = kiln.reduce_mean %x {axes = array<i64: 1>, keepdims = false} : (tensor<?x?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Tests that reductions start from their identities in the right accumulators:
// max starts from -inf in the element type, an f16 sum accumulates in f32, an
// unsigned min starts from the all-ones value and compares unsigned.

// CHECK-LABEL: func.func @reduce_types
// CHECK: %[[NINF:.+]] = arith.constant 0xFC00 : f16
// CHECK: linalg.fill ins(%[[NINF]] : f16)
// CHECK: linalg.reduce { arith.maximumf } ins(%{{.+}} : tensor<4x8xf16>)
// CHECK: arith.extf %{{.+}} : f16 to f32
// CHECK: linalg.reduce { arith.addf } ins(%{{.+}} : tensor<4x8xf32>) outs(%{{.+}} : tensor<4xf32>)
// CHECK: arith.truncf %{{.+}} : f32 to f16
// CHECK: %[[MAXU:.+]] = arith.constant -1 : i8
// CHECK: linalg.fill ins(%[[MAXU]] : i8)
// CHECK: linalg.reduce { arith.minui } ins(%{{.+}} : tensor<4x8xi8>)
func.func @reduce_types(%x: tensor<4x8xf16>, %y: tensor<4x8xui8>) -> (tensor<4xf16>, tensor<4xf16>, tensor<4xui8>) {
  %0 = kiln.reduce_max %x {axes = array<i64: 1>, keepdims = false} : (tensor<4x8xf16>) -> tensor<4xf16>
  %1 = kiln.reduce_sum %x {axes = array<i64: 1>, keepdims = false} : (tensor<4x8xf16>) -> tensor<4xf16>
  %2 = kiln.reduce_min %y {axes = array<i64: 1>, keepdims = false} : (tensor<4x8xui8>) -> tensor<4xui8>
  return %0, %1, %2 : tensor<4xf16>, tensor<4xf16>, tensor<4xui8>
}

// -----

// Tests that arg_max is one generic with a value and an index accumulator;
// select_last_index takes ties with oge.

// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @arg_max
// CHECK: %[[G:.+]]:2 = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK: ^bb0(%[[IN:.+]]: f32, %[[V:.+]]: f32, %[[I:.+]]: i64):
// CHECK: %[[IDX:.+]] = linalg.index 1 : index
// CHECK: %[[IDX64:.+]] = arith.index_cast %[[IDX]] : index to i64
// CHECK: %[[BETTER:.+]] = arith.cmpf oge, %[[IN]], %[[V]] : f32
// CHECK: %[[NV:.+]] = arith.select %[[BETTER]], %[[IN]], %[[V]] : f32
// CHECK: %[[NI:.+]] = arith.select %[[BETTER]], %[[IDX64]], %[[I]] : i64
// CHECK: linalg.yield %[[NV]], %[[NI]] : f32, i64
// CHECK: return %[[G]]#1
func.func @arg_max(%x: tensor<3x4xf32>) -> tensor<3xi64> {
  %0 = kiln.arg_max %x {axis = 1 : i64, keepdims = false, select_last_index = true} : (tensor<3x4xf32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// Tests that softmax subtracts the row max before exp, then divides by the
// row sum.

// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.+]]: tensor<2x5xf32>)
// CHECK: %[[MAX:.+]] = linalg.reduce { arith.maximumf } ins(%[[X]] : tensor<2x5xf32>) outs(%{{.+}} : tensor<2xf32>) dimensions = [1]
// CHECK: %[[EXP:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ID]]], {{.*}}} ins(%[[X]], %[[MAX]] : tensor<2x5xf32>, tensor<2xf32>)
// CHECK: %[[D:.+]] = arith.subf
// CHECK: math.exp %[[D]] : f32
// CHECK: %[[SUM:.+]] = linalg.reduce { arith.addf } ins(%[[EXP]] : tensor<2x5xf32>) outs(%{{.+}} : tensor<2xf32>) dimensions = [1]
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ID]]], {{.*}}} ins(%[[EXP]], %[[SUM]] : tensor<2x5xf32>, tensor<2xf32>)
// CHECK: arith.divf
func.func @softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = kiln.softmax %x {axis = 1 : i64} : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// Tests that an f16 layer_norm computes its statistics in f32: a sum, a
// two-pass sum of squared deviations, then one normalizing generic with
// rsqrt, scale and bias.

// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$RED:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$LAST:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.+]]: tensor<2x8x16xf16>, %[[S:.+]]: tensor<16xf16>, %[[B:.+]]: tensor<16xf16>)
// CHECK: %[[N:.+]] = arith.constant 1.600000e+01 : f32
// CHECK: %[[SUM:.+]] = linalg.reduce ins(%[[X]] : tensor<2x8x16xf16>) outs(%{{.+}} : tensor<2x8xf32>) dimensions = [2]
// CHECK: arith.extf
// CHECK: %[[SQ:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$RED]], #[[$RED]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[SUM]] : tensor<2x8x16xf16>, tensor<2x8xf32>) outs(%{{.+}} : tensor<2x8xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$RED]], #[[$RED]], #[[$LAST]], #[[$LAST]], #[[$ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %[[SUM]], %[[SQ]], %[[S]], %[[B]] :
// CHECK: math.rsqrt %{{.+}} : f32
// CHECK: arith.truncf %{{.+}} : f32 to f16
func.func @layer_norm(%x: tensor<2x8x16xf16>, %s: tensor<16xf16>, %b: tensor<16xf16>) -> tensor<2x8x16xf16> {
  %0 = kiln.layer_norm %x, %s, %b {axis = 2 : i64, epsilon = 1.0e-5 : f32} : (tensor<2x8x16xf16>, tensor<16xf16>, tensor<16xf16>) -> tensor<2x8x16xf16>
  return %0 : tensor<2x8x16xf16>
}

// -----

// Tests that inference batch_norm is one generic reading the four parameter
// vectors through the channel dim.

// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$CH:.+]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @batch_norm
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$CH]], #[[$CH]], #[[$CH]], #[[$CH]], #[[$ID]]]
// CHECK: ^bb0(%[[X:.+]]: f32, %[[S:.+]]: f32, %[[B:.+]]: f32, %[[M:.+]]: f32, %[[V:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[EPS:.+]] = arith.constant 1.000000e-03 : f32
// CHECK: %[[VE:.+]] = arith.addf %[[V]], %[[EPS]] : f32
// CHECK: %[[RSTD:.+]] = math.rsqrt %[[VE]] : f32
// CHECK: %[[SC:.+]] = arith.mulf %[[S]], %[[RSTD]] : f32
// CHECK: %[[XM:.+]] = arith.subf %[[X]], %[[M]] : f32
// CHECK: %[[Y:.+]] = arith.mulf %[[XM]], %[[SC]] : f32
// CHECK: arith.addf %[[Y]], %[[B]] : f32
func.func @batch_norm(%x: tensor<1x4x8x8xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  %0 = kiln.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-3 : f32} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

// Tests that instance_norm reduces over the spatial dims and lrn sums the
// padded squares through a channel window.

// CHECK-DAG: #[[$WIN:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d4, d2, d3)>
// CHECK-LABEL: func.func @instance_norm_lrn
// CHECK: linalg.reduce { arith.addf } ins(%{{.+}} : tensor<1x4x3x3xf32>) outs(%{{.+}} : tensor<1x4xf32>) dimensions = [2, 3]
// CHECK: math.rsqrt
// CHECK: tensor.pad %{{.+}} low[0, 1, 0, 0] high[0, 1, 0, 0]
// CHECK: linalg.generic {indexing_maps = [#[[$WIN]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK: math.powf
func.func @instance_norm_lrn(%x: tensor<1x4x3x3xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) {
  %0 = kiln.instance_norm %x, %s, %b : (tensor<1x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  %1 = kiln.lrn %x {size = 3 : i64} : tensor<1x4x3x3xf32>
  return %0, %1 : tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>
}

// -----

// Tests that cumsum is a generic with an extra reduction dim j read in place
// of the axis, accumulating where j <= i, and that topk ranks the elements
// (larger, or equal with a lower index) and then selects rank r.

// CHECK-DAG: #[[$J:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$I:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @cumsum_topk
// CHECK: linalg.generic {indexing_maps = [#[[$J]], #[[$I]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: %[[I:.+]] = linalg.index 1 : index
// CHECK: %[[J:.+]] = linalg.index 2 : index
// CHECK: arith.cmpi sle, %[[J]], %[[I]] : index
// CHECK: %[[RANK:.+]] = linalg.generic {indexing_maps = [#[[$I]], #[[$J]], #[[$I]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oeq
// CHECK: %{{.+}}:2 = linalg.generic {indexing_maps = [#[[$J]], #[[$J]], #[[$I]], #[[$I]]], {{.*}}} ins(%{{.+}}, %[[RANK]] : tensor<2x6xf32>, tensor<2x6xi64>) outs(%{{.+}}, %{{.+}} : tensor<2x3xf32>, tensor<2x3xi64>)
func.func @cumsum_topk(%x: tensor<2x6xf32>) -> (tensor<2x6xf32>, tensor<2x3xf32>, tensor<2x3xi64>) {
  %0 = kiln.cumsum %x {axis = 1 : i64} : tensor<2x6xf32>
  %1, %2 = kiln.topk %x {axis = 1 : i64, k = 3 : i64} : (tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  return %0, %1, %2 : tensor<2x6xf32>, tensor<2x3xf32>, tensor<2x3xi64>
}

// -----

// Tests that a static reshape becomes collapse_shape, one dynamic dim on each
// side with equal static products becomes collapse_shape too, and a shape known
// only at run time becomes tensor.reshape on a from_elements shape in which 0
// copies the input dim and -1 is inferred.

// CHECK-LABEL: func.func @reshape
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>, %[[Y:.+]]: tensor<?x3x4xf32>, %[[Z:.+]]: tensor<?x4xf32>, %[[S:.+]]: tensor<2xi64>)
// CHECK: %[[R0:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: %[[R1:.+]] = tensor.collapse_shape %[[Y]] {{\[}}[0], [1, 2]] : tensor<?x3x4xf32> into tensor<?x12xf32>
// CHECK: tensor.extract %[[S]]
// CHECK: arith.cmpi eq
// CHECK: tensor.dim %[[Z]]
// CHECK: arith.divui
// CHECK: %[[SHAPE:.+]] = tensor.from_elements %{{.+}}, %{{.+}} : tensor<2xindex>
// CHECK: %[[R2:.+]] = tensor.reshape %[[Z]](%[[SHAPE]]) : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x?xf32>
// CHECK: return %[[R0]], %[[R1]], %[[R2]]
func.func @reshape(%x: tensor<2x3x4xf32>, %y: tensor<?x3x4xf32>, %z: tensor<?x4xf32>, %s: tensor<2xi64>) -> (tensor<6x4xf32>, tensor<?x12xf32>, tensor<?x?xf32>) {
  %c0 = kiln.constant dense<[6, 4]> : tensor<2xi64>
  %c1 = kiln.constant dense<[-1, 12]> : tensor<2xi64>
  %0 = kiln.reshape %x, %c0 : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  %1 = kiln.reshape %y, %c1 : (tensor<?x3x4xf32>, tensor<2xi64>) -> tensor<?x12xf32>
  %2 = kiln.reshape %z, %s : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0, %1, %2 : tensor<6x4xf32>, tensor<?x12xf32>, tensor<?x?xf32>
}

// -----

// Tests that a static reshape that is neither a collapse nor an expand goes
// through the common refinement of the two shapes (attention's [S, B, H*D]
// -> [S, B*H, D] through [S, B, H, D]), both steps views, and that shapes
// without one ([6, 4] -> [4, 6]) go through 1-D.

// CHECK-LABEL: func.func @reshape_refined
// CHECK-SAME: (%[[X:.+]]: tensor<16x2x64xf32>, %[[Y:.+]]: tensor<6x4xf32>, %[[Z:.+]]: tensor<2x1x6xf32>)
// CHECK: %[[E:.+]] = tensor.expand_shape %[[X]] {{\[}}[0], [1], [2, 3]] output_shape [16, 2, 4, 16] : tensor<16x2x64xf32> into tensor<16x2x4x16xf32>
// CHECK: %[[R0:.+]] = tensor.collapse_shape %[[E]] {{\[}}[0], [1, 2], [3]] : tensor<16x2x4x16xf32> into tensor<16x8x16xf32>
// CHECK: %[[F:.+]] = tensor.collapse_shape %[[Y]] {{\[}}[0, 1]] : tensor<6x4xf32> into tensor<24xf32>
// CHECK: %[[R1:.+]] = tensor.expand_shape %[[F]] {{\[}}[0, 1]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>
// CHECK: %[[E2:.+]] = tensor.expand_shape %[[Z]] {{\[}}[0], [1], [2, 3]] output_shape [2, 1, 3, 2] : tensor<2x1x6xf32> into tensor<2x1x3x2xf32>
// CHECK: %[[R2:.+]] = tensor.collapse_shape %[[E2]] {{\[}}[0, 1, 2], [3]] : tensor<2x1x3x2xf32> into tensor<6x2xf32>
// CHECK: return %[[R0]], %[[R1]], %[[R2]]
func.func @reshape_refined(%x: tensor<16x2x64xf32>, %y: tensor<6x4xf32>, %z: tensor<2x1x6xf32>) -> (tensor<16x8x16xf32>, tensor<4x6xf32>, tensor<6x2xf32>) {
  %c0 = kiln.constant dense<[16, 8, 16]> : tensor<3xi64>
  %c1 = kiln.constant dense<[4, 6]> : tensor<2xi64>
  %c2 = kiln.constant dense<[6, 2]> : tensor<2xi64>
  %0 = kiln.reshape %x, %c0 : (tensor<16x2x64xf32>, tensor<3xi64>) -> tensor<16x8x16xf32>
  %1 = kiln.reshape %y, %c1 : (tensor<6x4xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  %2 = kiln.reshape %z, %c2 : (tensor<2x1x6xf32>, tensor<2xi64>) -> tensor<6x2xf32>
  return %0, %1, %2 : tensor<16x8x16xf32>, tensor<4x6xf32>, tensor<6x2xf32>
}

// -----

// Tests that squeeze, unsqueeze and flatten are collapse/expand_shape with
// the unit dims joined to a neighbour.

// CHECK-LABEL: func.func @squeeze_unsqueeze_flatten
// CHECK-SAME: (%[[X:.+]]: tensor<1x3x1x4xf32>, %[[Y:.+]]: tensor<3x4xf32>, %[[Z:.+]]: tensor<?x2x3xf32>)
// CHECK: tensor.collapse_shape %[[X]] {{\[}}[0, 1, 2], [3]] : tensor<1x3x1x4xf32> into tensor<3x4xf32>
// CHECK: tensor.expand_shape %[[Y]] {{\[}}[0, 1], [2, 3]] output_shape [1, 3, 4, 1] : tensor<3x4xf32> into tensor<1x3x4x1xf32>
// CHECK: tensor.collapse_shape %[[Z]] {{\[}}[0], [1, 2]] : tensor<?x2x3xf32> into tensor<?x6xf32>
func.func @squeeze_unsqueeze_flatten(%x: tensor<1x3x1x4xf32>, %y: tensor<3x4xf32>, %z: tensor<?x2x3xf32>) -> (tensor<3x4xf32>, tensor<1x3x4x1xf32>, tensor<?x6xf32>) {
  %0 = kiln.squeeze %x {axes = array<i64: 0, 2>} : (tensor<1x3x1x4xf32>) -> tensor<3x4xf32>
  %1 = kiln.unsqueeze %y {axes = array<i64: 0, 3>} : (tensor<3x4xf32>) -> tensor<1x3x4x1xf32>
  %2 = kiln.flatten %z {axis = 1 : i64} : (tensor<?x2x3xf32>) -> tensor<?x6xf32>
  return %0, %1, %2 : tensor<3x4xf32>, tensor<1x3x4x1xf32>, tensor<?x6xf32>
}

// -----

// Tests that transpose is linalg.transpose with the permutation and concat is
// tensor.concat.

// CHECK-LABEL: func.func @transpose_concat
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>, %[[Y:.+]]: tensor<4x2x1xf32>)
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4x2x3xf32>
// CHECK: %[[T:.+]] = linalg.transpose ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[E]] : tensor<4x2x3xf32>) permutation = [2, 0, 1]
// CHECK: tensor.concat dim(2) %[[T]], %[[Y]] : (tensor<4x2x3xf32>, tensor<4x2x1xf32>) -> tensor<4x2x4xf32>
func.func @transpose_concat(%x: tensor<2x3x4xf32>, %y: tensor<4x2x1xf32>) -> tensor<4x2x4xf32> {
  %0 = kiln.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = kiln.concat %0, %y {axis = 2 : i64} : (tensor<4x2x3xf32>, tensor<4x2x1xf32>) -> tensor<4x2x4xf32>
  return %1 : tensor<4x2x4xf32>
}

// -----

// Tests that split is one extract_slice per piece, a positive-step slice is a
// strided extract_slice, and a negative-step slice (start -1, end clamped) is
// a generic reading input[5 - 2 * i].

// CHECK-LABEL: func.func @split_slice
// CHECK-SAME: (%[[X:.+]]: tensor<6x8xf32>)
// CHECK: tensor.extract_slice %[[X]][0, 0] [2, 8] [1, 1] : tensor<6x8xf32> to tensor<2x8xf32>
// CHECK: tensor.extract_slice %[[X]][2, 0] [4, 8] [1, 1] : tensor<6x8xf32> to tensor<4x8xf32>
// CHECK: tensor.extract_slice %[[X]][0, 1] [6, 3] [1, 2] : tensor<6x8xf32> to tensor<6x3xf32>
// CHECK: %[[START:.+]] = arith.constant 5 : index
// CHECK: %[[STEP:.+]] = arith.constant -2 : index
// CHECK: linalg.generic
// CHECK: %[[I:.+]] = linalg.index 0 : index
// CHECK: %[[OFF:.+]] = arith.muli %[[I]], %[[STEP]] : index
// CHECK: %[[ROW:.+]] = arith.addi %[[START]], %[[OFF]] : index
// CHECK: tensor.extract %[[X]][%[[ROW]], %{{.+}}] : tensor<6x8xf32>
func.func @split_slice(%x: tensor<6x8xf32>) -> (tensor<2x8xf32>, tensor<4x8xf32>, tensor<6x3xf32>, tensor<3x8xf32>) {
  %0:2 = kiln.split %x {axis = 0 : i64, sizes = array<i64: 2, 4>} : (tensor<6x8xf32>) -> (tensor<2x8xf32>, tensor<4x8xf32>)
  %s = kiln.constant dense<[1]> : tensor<1xi64>
  %e = kiln.constant dense<[7]> : tensor<1xi64>
  %a = kiln.constant dense<[1]> : tensor<1xi64>
  %t = kiln.constant dense<[2]> : tensor<1xi64>
  %1 = kiln.slice %x, %s, %e, %a, %t : (tensor<6x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<6x3xf32>
  %s2 = kiln.constant dense<[-1]> : tensor<1xi64>
  %e2 = kiln.constant dense<[-100]> : tensor<1xi64>
  %a2 = kiln.constant dense<[0]> : tensor<1xi64>
  %t2 = kiln.constant dense<[-2]> : tensor<1xi64>
  %2 = kiln.slice %x, %s2, %e2, %a2, %t2 : (tensor<6x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x8xf32>
  return %0#0, %0#1, %1, %2 : tensor<2x8xf32>, tensor<4x8xf32>, tensor<6x3xf32>, tensor<3x8xf32>
}

// -----

// Tests that slices and split pieces without elements are tensor.empty:
// their start equals the dim size, an offset extract_slice rejects.

// CHECK-LABEL: func.func @slice_split_empty
// CHECK-NOT: tensor.extract_slice
// CHECK: %[[S:.+]] = tensor.empty() : tensor<20x0x5xf32>
// CHECK: %[[P:.+]] = tensor.empty() : tensor<0x5xf32>
// CHECK-NOT: tensor.extract_slice
// CHECK: return %[[S]], %[[P]]
func.func @slice_split_empty(%x: tensor<20x10x5xf32>, %y: tensor<0x5xf32>) -> (tensor<20x0x5xf32>, tensor<0x5xf32>) {
  %s = kiln.constant dense<1000> : tensor<1xi64>
  %e = kiln.constant dense<1000> : tensor<1xi64>
  %a = kiln.constant dense<1> : tensor<1xi64>
  %t = kiln.constant dense<1> : tensor<1xi64>
  %0 = kiln.slice %x, %s, %e, %a, %t : (tensor<20x10x5xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<20x0x5xf32>
  %1:2 = kiln.split %y {axis = 0 : i64, sizes = array<i64: 0, 0>} : (tensor<0x5xf32>) -> (tensor<0x5xf32>, tensor<0x5xf32>)
  return %0, %1#0 : tensor<20x0x5xf32>, tensor<0x5xf32>
}

// -----

// Tests that gather reads the indices through the gathered dims, counts
// negative indices from the end, clamps into range and reads with
// tensor.extract.

// CHECK-DAG: #[[$IDX:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[X:.+]]: tensor<5x4xf32>, %[[I:.+]]: tensor<2x3xi64>)
// CHECK: %[[DIM:.+]] = arith.constant 5 : index
// CHECK: linalg.generic {indexing_maps = [#[[$IDX]], {{.*}}]{{.*}} ins(%[[I]] : tensor<2x3xi64>) outs(%{{.+}} : tensor<2x3x4xf32>)
// CHECK: ^bb0(%[[V:.+]]: i64, %{{.+}}: f32):
// CHECK: %[[K:.+]] = linalg.index 2 : index
// CHECK: %[[IX:.+]] = arith.index_cast %[[V]] : i64 to index
// CHECK: %[[NEG:.+]] = arith.cmpi slt, %[[IX]], %{{.+}} : index
// CHECK: %[[WRAP:.+]] = arith.addi %[[IX]], %[[DIM]] : index
// CHECK: %[[N:.+]] = arith.select %[[NEG]], %[[WRAP]], %[[IX]] : index
// CHECK: %[[LO:.+]] = arith.maxsi %[[N]], %{{.+}} : index
// CHECK: %[[C:.+]] = arith.minsi %[[LO]], %{{.+}} : index
// CHECK: tensor.extract %[[X]][%[[C]], %[[K]]] : tensor<5x4xf32>
func.func @gather(%x: tensor<5x4xf32>, %i: tensor<2x3xi64>) -> tensor<2x3x4xf32> {
  %0 = kiln.gather %x, %i {axis = 0 : i64} : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Tests that gather_nd reads each index tuple component with tensor.extract
// and addresses the input after the batch dims.

// CHECK-LABEL: func.func @gather_nd
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>, %[[I:.+]]: tensor<2x1xi64>)
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<2x4xf32>)
// CHECK: %[[B:.+]] = linalg.index 0 : index
// CHECK: %[[J:.+]] = linalg.index 1 : index
// CHECK: %[[V:.+]] = tensor.extract %[[I]][%[[B]], %{{.+}}] : tensor<2x1xi64>
// CHECK: %[[IX:.+]] = arith.index_cast %[[V]] : i64 to index
// CHECK: %[[C:.+]] = arith.minsi
// CHECK: tensor.extract %[[X]][%[[B]], %[[C]], %[[J]]] : tensor<2x3x4xf32>
func.func @gather_nd(%x: tensor<2x3x4xf32>, %i: tensor<2x1xi64>) -> tensor<2x4xf32> {
  %0 = kiln.gather_nd %x, %i {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x1xi64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that scatter_elements works on the slice of the input its indices
// cover: a generic with a reduction dim over the indices along the axis that
// combines the updates whose (normalized, unclamped) index equals the output
// position, then inserts the slice back.

// CHECK-DAG: #[[$ALONG:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @scatter_elements
// CHECK-SAME: (%[[X:.+]]: tensor<3x4xf32>, %[[I:.+]]: tensor<2x2xi64>, %[[U:.+]]: tensor<2x2xf32>)
// CHECK: %[[SLICE:.+]] = tensor.extract_slice %[[X]][0, 0] [2, 4] [1, 1] : tensor<3x4xf32> to tensor<2x4xf32>
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[$ALONG]], #[[$ALONG]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[I]], %[[U]] : tensor<2x2xi64>, tensor<2x2xf32>) outs(%[[SLICE]] : tensor<2x4xf32>)
// CHECK: ^bb0(%[[IN:.+]]: i64, %[[UPD:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK: %[[N:.+]] = arith.select
// CHECK-NOT: arith.minsi
// CHECK: %[[POS:.+]] = linalg.index 1 : index
// CHECK: %[[EQ:.+]] = arith.cmpi eq, %[[N]], %[[POS]] : index
// CHECK: %[[SUM:.+]] = arith.addf %[[ACC]], %[[UPD]] : f32
// CHECK: %[[SEL:.+]] = arith.select %[[EQ]], %[[SUM]], %[[ACC]] : f32
// CHECK: linalg.yield %[[SEL]] : f32
// CHECK: tensor.insert_slice %[[R]] into %[[X]][0, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<3x4xf32>
func.func @scatter_elements(%x: tensor<3x4xf32>, %i: tensor<2x2xi64>, %u: tensor<2x2xf32>) -> tensor<3x4xf32> {
  %0 = kiln.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = #kiln.scatter_reduction<add>} : (tensor<3x4xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Tests that scatter_nd reduces over the index tuples (a reduction dim per
// leading indices dim), reads the updates at (tuple, trailing position) and
// keeps the last matching update for reduction "none".

// CHECK-DAG: #[[$UPD:.+]] = affine_map<(d0, d1, d2, d3) -> (d3, d1, d2)>
// CHECK-DAG: #[[$SELF:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @scatter_nd
// CHECK-SAME: (%[[X:.+]]: tensor<4x4x4xf32>, %[[I:.+]]: tensor<2x1xi64>, %[[U:.+]]: tensor<2x4x4xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[$UPD]], #[[$SELF]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[U]] : tensor<2x4x4xf32>) outs(%[[X]] : tensor<4x4x4xf32>)
// CHECK: ^bb0(%[[IN:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK: %[[T:.+]] = linalg.index 3 : index
// CHECK: tensor.extract %[[I]][%[[T]], %{{.+}}] : tensor<2x1xi64>
// CHECK: %[[P:.+]] = linalg.index 0 : index
// CHECK: %[[EQ:.+]] = arith.cmpi eq, %{{.+}}, %[[P]] : index
// CHECK: %[[SEL:.+]] = arith.select %[[EQ]], %[[IN]], %[[ACC]] : f32
// CHECK: linalg.yield %[[SEL]] : f32
func.func @scatter_nd(%x: tensor<4x4x4xf32>, %i: tensor<2x1xi64>, %u: tensor<2x4x4xf32>) -> tensor<4x4x4xf32> {
  %0 = kiln.scatter_nd %x, %i, %u : (tensor<4x4x4xf32>, tensor<2x1xi64>, tensor<2x4x4xf32>) -> tensor<4x4x4xf32>
  return %0 : tensor<4x4x4xf32>
}

// -----

// Tests that grid_sample (nearest, zeros padding) denormalizes each grid
// component with ((g + 1) * size - 1) / 2, rounds half to even, and reads the
// pixel at clamped indices, replaced by 0 outside the image.

// CHECK-LABEL: func.func @grid_sample
// CHECK-SAME: (%[[X:.+]]: tensor<1x2x3x4xf32>, %[[G:.+]]: tensor<1x5x6x2xf32>)
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<1x2x5x6xf32>)
// CHECK: %[[N:.+]] = linalg.index 0 : index
// CHECK: %[[C:.+]] = linalg.index 1 : index
// CHECK: %[[H:.+]] = linalg.index 2 : index
// CHECK: %[[W:.+]] = linalg.index 3 : index
// CHECK: %[[GX:.+]] = tensor.extract %[[G]][%[[N]], %[[H]], %[[W]], %{{.+}}] : tensor<1x5x6x2xf32>
// CHECK: %[[PX:.+]] = arith.addf %[[GX]]
// CHECK: %[[SX:.+]] = arith.mulf %[[PX]]
// CHECK: %[[MX:.+]] = arith.subf %[[SX]]
// CHECK: %[[X2:.+]] = arith.mulf %[[MX]]
// CHECK: %[[RX:.+]] = math.roundeven %[[X2]] : f32
// CHECK: %[[GY:.+]] = tensor.extract %[[G]][%[[N]], %[[H]], %[[W]], %{{.+}}] : tensor<1x5x6x2xf32>
// CHECK: %[[RY:.+]] = math.roundeven %{{.+}} : f32
// CHECK: arith.fptosi %[[RY]] : f32 to i64
// CHECK: %[[IY:.+]] = arith.minsi
// CHECK: arith.fptosi %[[RX]] : f32 to i64
// CHECK: arith.andi
// CHECK-NEXT: %[[INSIDE:.+]] = arith.andi %{{.+}}, %{{.+}} : i1
// CHECK: %[[IX:.+]] = arith.minsi
// CHECK: %[[V:.+]] = tensor.extract %[[X]][%[[N]], %[[C]], %[[IY]], %[[IX]]] : tensor<1x2x3x4xf32>
// CHECK: %[[R:.+]] = arith.select %[[INSIDE]], %[[V]], %{{.+}} : f32
// CHECK: linalg.yield %[[R]] : f32
func.func @grid_sample(%x: tensor<1x2x3x4xf32>, %g: tensor<1x5x6x2xf32>) -> tensor<1x2x5x6xf32> {
  %0 = kiln.grid_sample %x, %g {mode = #kiln.interpolation_mode<nearest>} : (tensor<1x2x3x4xf32>, tensor<1x5x6x2xf32>) -> tensor<1x2x5x6xf32>
  return %0 : tensor<1x2x5x6xf32>
}

// -----

// Tests that a constant pad is tensor.pad yielding the value and a reflect pad
// is a generic mapping each output index back with period 2 * (n - 1).

// CHECK-LABEL: func.func @pad_modes
// CHECK-SAME: (%[[X:.+]]: tensor<3x4xf32>)
// CHECK: %[[V:.+]] = arith.constant 1.500000e+00 : f32
// CHECK: tensor.pad %[[X]] low[1, 2] high[1, 1]
// CHECK: tensor.yield %[[V]] : f32
// CHECK: } : tensor<3x4xf32> to tensor<5x7xf32>
// CHECK: linalg.generic
// CHECK: arith.remsi
// CHECK: arith.cmpi slt
// CHECK: tensor.extract %[[X]]
func.func @pad_modes(%x: tensor<3x4xf32>) -> (tensor<5x7xf32>, tensor<5x7xf32>) {
  %p = kiln.constant dense<[1, 2, 1, 1]> : tensor<4xi64>
  %0 = kiln.pad %x, %p {value = 1.5 : f64} : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<5x7xf32>
  %1 = kiln.pad %x, %p {mode = #kiln.pad_mode<reflect>} : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<5x7xf32>
  return %0, %1 : tensor<5x7xf32>, tensor<5x7xf32>
}

// -----

// Tests that a constant pad of a transposed, converted value (the
// channels-last stem: f32 NCHW -> f16 NHWC, padded to 8 channels) is one
// generic over the padded result that reads the f32 input itself: the
// channel index past the low pad, clamped to 0 outside the input, the
// element rounded to f16 and replaced by the pad value outside. (The cast
// and transpose, converted before the pad, are left dead for
// canonicalization.)

// CHECK-LABEL: func.func @pad_through_movement
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4x5xf32>)
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<2x4x5x8xf16>)
// CHECK: %[[C:.+]] = linalg.index 3 : index
// CHECK: %[[IN:.+]] = arith.cmpi ult, %[[C]], %{{.+}} : index
// CHECK: %[[CC:.+]] = arith.select %[[IN]], %[[C]], %{{.+}} : index
// CHECK: %[[E:.+]] = tensor.extract %[[X]][%{{.+}}, %[[CC]], %{{.+}}, %{{.+}}] : tensor<2x3x4x5xf32>
// CHECK: %[[H:.+]] = arith.truncf %[[E]] : f32 to f16
// CHECK: arith.select %[[IN]], %[[H]], %{{.+}} : f16
func.func @pad_through_movement(%x: tensor<2x3x4x5xf32>) -> tensor<2x4x5x8xf16> {
  %pads = kiln.constant dense<[0, 0, 0, 0, 0, 0, 0, 5]> : tensor<8xi64>
  %c = kiln.cast %x : tensor<2x3x4x5xf32> -> tensor<2x3x4x5xf16>
  %t = kiln.transpose %c {perm = array<i64: 0, 2, 3, 1>} : (tensor<2x3x4x5xf16>) -> tensor<2x4x5x3xf16>
  %p = kiln.pad %t, %pads : (tensor<2x4x5x3xf16>, tensor<8xi64>) -> tensor<2x4x5x8xf16>
  return %p : tensor<2x4x5x8xf16>
}

// -----

// Tests that expand is a broadcasting copy and tile reads input[i mod n].

// CHECK-DAG: #[[$BC:.+]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-LABEL: func.func @expand_tile
// CHECK-SAME: (%[[X:.+]]: tensor<3x1xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[$BC]], {{.*}}]{{.*}} ins(%[[X]] : tensor<3x1xf32>) outs(%{{.+}} : tensor<2x3x4xf32>)
// CHECK: %[[N0:.+]] = arith.constant 3 : index
// CHECK: linalg.generic
// CHECK: %[[I:.+]] = linalg.index 0 : index
// CHECK: %[[M:.+]] = arith.remui %[[I]], %[[N0]] : index
// CHECK: tensor.extract %[[X]][%[[M]], %{{.+}}] : tensor<3x1xf32>
func.func @expand_tile(%x: tensor<3x1xf32>) -> (tensor<2x3x4xf32>, tensor<6x2xf32>) {
  %s = kiln.constant dense<[2, 1, 4]> : tensor<3xi64>
  %0 = kiln.expand %x, %s : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  %r = kiln.constant dense<[2, 2]> : tensor<2xi64>
  %1 = kiln.tile %x, %r : (tensor<3x1xf32>, tensor<2xi64>) -> tensor<6x2xf32>
  return %0, %1 : tensor<2x3x4xf32>, tensor<6x2xf32>
}

// -----

// Tests that depth_to_space (DCR) is expand_shape [N, b, b, C', H, W],
// linalg.transpose to [N, C', H, b, W, b] and collapse_shape.

// CHECK-LABEL: func.func @depth_to_space
// CHECK-SAME: (%[[X:.+]]: tensor<1x8x2x3xf32>)
// CHECK: %[[E:.+]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2, 3], [4], [5]] output_shape [1, 2, 2, 2, 2, 3] : tensor<1x8x2x3xf32> into tensor<1x2x2x2x2x3xf32>
// CHECK: %[[T:.+]] = linalg.transpose ins(%[[E]] : tensor<1x2x2x2x2x3xf32>) outs(%{{.+}} : tensor<1x2x2x2x3x2xf32>) permutation = [0, 3, 4, 1, 5, 2]
// CHECK: tensor.collapse_shape %[[T]] {{\[}}[0], [1], [2, 3], [4, 5]] : tensor<1x2x2x2x3x2xf32> into tensor<1x2x4x6xf32>
func.func @depth_to_space(%x: tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32> {
  %0 = kiln.depth_to_space %x {blocksize = 2 : i64} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  return %0 : tensor<1x2x4x6xf32>
}

// -----

// Tests that nearest resize computes source coordinates only for the resized
// dims (asymmetric: x / scale, floor, clamped) and reads with tensor.extract.

// CHECK-LABEL: func.func @resize
// CHECK-SAME: (%[[X:.+]]: tensor<1x3x4x4xf32>)
// CHECK: %[[SCALE:.+]] = arith.constant 2.000000e+00 : f32
// CHECK: linalg.generic
// CHECK: %[[N:.+]] = linalg.index 0 : index
// CHECK: %[[C:.+]] = linalg.index 1 : index
// CHECK: %[[H:.+]] = linalg.index 2 : index
// CHECK: %[[HF:.+]] = arith.sitofp
// CHECK: %[[HS:.+]] = arith.divf %[[HF]], %[[SCALE]] : f32
// CHECK: math.floor %[[HS]] : f32
// CHECK: tensor.extract %[[X]][%[[N]], %[[C]], %{{.+}}, %{{.+}}] : tensor<1x3x4x4xf32>
func.func @resize(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32> {
  %0 = kiln.resize %x {mode = #kiln.interpolation_mode<nearest>, coordinate_transformation_mode = #kiln.coordinate_transformation_mode<asymmetric>, nearest_mode = #kiln.nearest_mode<floor>, scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// -----

// Tests that shape and size read dims with tensor.dim into from_elements, and
// constant_of_shape fills a tensor sized by the shape operand.

// CHECK-LABEL: func.func @shape_ops
// CHECK-SAME: (%[[X:.+]]: tensor<?x3xf32>, %[[N:.+]]: tensor<2xi64>)
// CHECK: %[[D:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x3xf32>
// CHECK: %[[D64:.+]] = arith.index_cast %[[D]] : index to i64
// CHECK: %[[THREE:.+]] = arith.constant 3 : i64
// CHECK: tensor.from_elements %[[D64]], %[[THREE]] : tensor<2xi64>
// CHECK: tensor.from_elements %{{.+}} : tensor<i64>
// CHECK: %[[V:.+]] = arith.constant 2.500000e+00 : f32
// CHECK: %[[R0:.+]] = tensor.extract %[[N]][%{{.+}}] : tensor<2xi64>
// CHECK: %[[S0:.+]] = arith.index_cast %[[R0]] : i64 to index
// CHECK: %[[R1:.+]] = tensor.extract %[[N]][%{{.+}}] : tensor<2xi64>
// CHECK: %[[S1:.+]] = arith.index_cast %[[R1]] : i64 to index
// CHECK: %[[E:.+]] = tensor.empty(%[[S0]], %[[S1]]) : tensor<?x?xf32>
// CHECK: linalg.fill ins(%[[V]] : f32) outs(%[[E]] : tensor<?x?xf32>)
func.func @shape_ops(%x: tensor<?x3xf32>, %n: tensor<2xi64>) -> (tensor<2xi64>, tensor<i64>, tensor<?x?xf32>) {
  %0 = kiln.shape %x : (tensor<?x3xf32>) -> tensor<2xi64>
  %1 = kiln.size %x : (tensor<?x3xf32>) -> tensor<i64>
  %2 = kiln.constant_of_shape %n {value = dense<2.5> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<?x?xf32>
  return %0, %1, %2 : tensor<2xi64>, tensor<i64>, tensor<?x?xf32>
}

// -----

// Tests that range sizes its result ceil((limit - start) / delta) and fills it
// with start + i * delta.

// CHECK-LABEL: func.func @range
// CHECK-SAME: (%[[A:.+]]: tensor<f32>, %[[B:.+]]: tensor<f32>, %[[C:.+]]: tensor<f32>)
// CHECK: %[[START:.+]] = tensor.extract %[[A]][] : tensor<f32>
// CHECK: %[[DELTA:.+]] = tensor.extract %[[C]][] : tensor<f32>
// CHECK: %[[LIMIT:.+]] = tensor.extract %[[B]][] : tensor<f32>
// CHECK: %[[SPAN:.+]] = arith.subf %[[LIMIT]], %[[START]] : f32
// CHECK: %[[Q:.+]] = arith.divf %[[SPAN]], %[[DELTA]] : f32
// CHECK: math.ceil %[[Q]] : f32
// CHECK: %[[N:.+]] = arith.maxsi
// CHECK: tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK: linalg.generic
// CHECK: %[[I:.+]] = linalg.index 0 : index
// CHECK: %[[IF:.+]] = arith.sitofp %{{.+}} : i64 to f32
// CHECK: %[[STEP:.+]] = arith.mulf %[[IF]], %[[DELTA]] : f32
// CHECK: arith.addf %[[START]], %[[STEP]] : f32
func.func @range(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>) -> tensor<?xf32> {
  %0 = kiln.range %a, %b, %c : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Tests that per-axis quantize divides by the scale along the axis, rounds
// half to even, adds the zero point and saturates to [0, 255] for ui8.

// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[AXIS:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @quantize_axis
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[AXIS]], #[[AXIS]], #[[ID]]]
// CHECK: ^bb0(%[[X:.+]]: f32, %[[S:.+]]: f32, %[[Z:.+]]: i8, %{{.+}}: i8):
// CHECK: %[[Q:.+]] = arith.divf %[[X]], %[[S]] : f32
// CHECK: %[[R:.+]] = math.roundeven %[[Q]] : f32
// CHECK: %[[ZF:.+]] = arith.uitofp %[[Z]] : i8 to f32
// CHECK: %[[V:.+]] = arith.addf %[[R]], %[[ZF]] : f32
// CHECK: %[[LO:.+]] = arith.maximumf %[[V]], %{{.+}} : f32
// CHECK: %[[HI:.+]] = arith.minimumf %[[LO]], %{{.+}} : f32
// CHECK: %[[Y:.+]] = arith.fptoui %[[HI]] : f32 to i8
// CHECK: linalg.yield %[[Y]] : i8
func.func @quantize_axis(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %z: tensor<3xui8>) -> tensor<2x3xui8> {
  %0 = kiln.quantize_linear %x, %s, %z {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xui8>) -> tensor<2x3xui8>
  return %0 : tensor<2x3xui8>
}

// -----

// Tests that dequantize reads a per-tensor scale and zero point and computes
// (x - zero_point) * scale in f32, signed for i8.

// CHECK-DAG: #[[SCALAR:.+]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @dequantize
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[SCALAR]], #[[SCALAR]], #{{.+}}]
// CHECK: ^bb0(%[[X:.+]]: i8, %[[S:.+]]: f32, %[[Z:.+]]: i8, %{{.+}}: f32):
// CHECK: %[[XF:.+]] = arith.sitofp %[[X]] : i8 to f32
// CHECK: %[[ZF:.+]] = arith.sitofp %[[Z]] : i8 to f32
// CHECK: %[[D:.+]] = arith.subf %[[XF]], %[[ZF]] : f32
// CHECK: %[[Y:.+]] = arith.mulf %[[D]], %[[S]] : f32
// CHECK: linalg.yield %[[Y]] : f32
func.func @dequantize(%x: tensor<4xi8>, %s: tensor<f32>, %z: tensor<i8>) -> tensor<4xf32> {
  %0 = kiln.dequantize_linear %x, %s, %z : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that matmul_integer shifts both ui8 operands by their zero points into
// i32 (zero-extended) and multiplies them with an i32 linalg.matmul.

// CHECK-LABEL: func.func @matmul_integer
// CHECK: %[[A:.+]] = linalg.generic
// CHECK: arith.extui %{{.+}} : i8 to i32
// CHECK: arith.subi
// CHECK: } -> tensor<3x4xi32>
// CHECK: %[[B:.+]] = linalg.generic
// CHECK: } -> tensor<4x5xi32>
// CHECK: %[[F:.+]] = linalg.fill ins(%{{.+}} : i32) outs(%{{.+}} : tensor<3x5xi32>)
// CHECK: %[[R:.+]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<3x4xi32>, tensor<4x5xi32>) outs(%[[F]] : tensor<3x5xi32>)
// CHECK: return %[[R]]
func.func @matmul_integer(%a: tensor<3x4xui8>, %b: tensor<4x5xui8>, %az: tensor<ui8>, %bz: tensor<ui8>) -> tensor<3x5xi32> {
  %0 = kiln.matmul_integer %a, %b, %az, %bz : (tensor<3x4xui8>, tensor<4x5xui8>, tensor<ui8>, tensor<ui8>) -> tensor<3x5xi32>
  return %0 : tensor<3x5xi32>
}

// -----

// Tests that qlinear_matmul requantizes the i32 product: acc * (a_scale *
// b_scale / y_scale), rounded half to even, plus the output zero point.

// CHECK-LABEL: func.func @qlinear_matmul
// CHECK: %[[MM:.+]] = linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<2x4xi32>, tensor<4x3xi32>)
// CHECK: linalg.generic {{.+}} ins(%[[MM]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : tensor<2x3xi32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<i8>) outs(%{{.+}} : tensor<2x3xi8>)
// CHECK: ^bb0(%[[ACC:.+]]: i32, %[[AS:.+]]: f32, %[[BS:.+]]: f32, %[[YS:.+]]: f32, %[[YZ:.+]]: i8, %{{.+}}: i8):
// CHECK: %[[AB:.+]] = arith.mulf %[[AS]], %[[BS]] : f32
// CHECK: %[[M:.+]] = arith.divf %[[AB]], %[[YS]] : f32
// CHECK: %[[ACCF:.+]] = arith.sitofp %[[ACC]] : i32 to f32
// CHECK: %[[V:.+]] = arith.mulf %[[ACCF]], %[[M]] : f32
// CHECK: math.roundeven %[[V]] : f32
// CHECK: arith.fptoui %{{.+}} : f32 to i8
func.func @qlinear_matmul(%a: tensor<2x4xui8>, %as: tensor<f32>, %az: tensor<ui8>, %b: tensor<4x3xui8>, %bs: tensor<f32>, %bz: tensor<ui8>, %ys: tensor<f32>, %yz: tensor<ui8>) -> tensor<2x3xui8> {
  %0 = kiln.qlinear_matmul %a, %as, %az, %b, %bs, %bz, %ys, %yz : (tensor<2x4xui8>, tensor<f32>, tensor<ui8>, tensor<4x3xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
  return %0 : tensor<2x3xui8>
}

// -----

// Tests that conv_integer pads the shifted i32 input with zeros (the input
// zero point before the shift) and convolves in i32.

// CHECK-LABEL: func.func @conv_integer
// CHECK: %[[X:.+]] = linalg.generic
// CHECK: } -> tensor<1x1x3x3xi32>
// CHECK: %[[W:.+]] = linalg.generic
// CHECK: } -> tensor<1x1x2x2xi32>
// CHECK: %[[P:.+]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.yield %{{.+}} : i32
// CHECK: linalg.conv_2d_nchw_fchw {{.+}} ins(%[[P]], %[[W]] : tensor<1x1x5x5xi32>, tensor<1x1x2x2xi32>) outs(%{{.+}} : tensor<1x1x4x4xi32>)
func.func @conv_integer(%x: tensor<1x1x3x3xui8>, %w: tensor<1x1x2x2xui8>, %xz: tensor<ui8>, %wz: tensor<ui8>) -> tensor<1x1x4x4xi32> {
  %0 = kiln.conv_integer %x, %w, %xz, %wz {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x1x3x3xui8>, tensor<1x1x2x2xui8>, tensor<ui8>, tensor<ui8>) -> tensor<1x1x4x4xi32>
  return %0 : tensor<1x1x4x4xi32>
}

// -----

// Tests that float8 quantization is reported as not supported yet.

func.func @quantize_f8(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<f8E4M3FN>) -> tensor<4xf8E4M3FN> {
  // expected-error @+1 {{'kiln.quantize_linear' op is not supported by kiln-convert-graph-to-linalg yet: float8 results}}
  %0 = kiln.quantize_linear %x, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<f8E4M3FN>) -> tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}

// -----

// Tests that cubic resize of two dims reads 4 x 4 neighbours and, with
// exclude_outside, zeroes the weights of those outside the input and
// renormalizes.

// CHECK-LABEL: func.func @resize_cubic
// CHECK: linalg.generic
// CHECK: math.floor
// CHECK: arith.cmpf oge
// CHECK: arith.cmpf olt
// CHECK: arith.divf
// CHECK-COUNT-16: tensor.extract %{{.+}}[
// CHECK-NOT: tensor.extract
// CHECK: linalg.yield
func.func @resize_cubic(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x8x8xf32> {
  %0 = kiln.resize %x {mode = #kiln.interpolation_mode<cubic>, exclude_outside = true, scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x8x8xf32>
  return %0 : tensor<1x1x8x8xf32>
}

// -----

// Tests that a channels_last conv with bias pads H and W of the NHWC input
// (dims 1 and 2), runs linalg.conv_2d_nhwc_fhwc on the OHWI filter, and adds
// the bias through the last dim.

// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$LAST:.+]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @conv_channels_last
// CHECK-SAME: (%[[X:.+]]: tensor<1x8x8x3xf32>, %[[W:.+]]: tensor<4x3x3x3xf32>, %[[B:.+]]: tensor<4xf32>)
// CHECK: %[[PAD:.+]] = tensor.pad %[[X]] low[0, 1, 1, 0] high[0, 0, 0, 0]
// CHECK: } : tensor<1x8x8x3xf32> to tensor<1x9x9x3xf32>
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x4x4x4xf32>)
// CHECK: %[[CONV:.+]] = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[PAD]], %[[W]] : tensor<1x9x9x3xf32>, tensor<4x3x3x3xf32>) outs(%[[INIT]] : tensor<1x4x4x4xf32>)
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$LAST]], #[[$ID]]], {{.*}}} ins(%[[CONV]], %[[B]] : tensor<1x4x4x4xf32>, tensor<4xf32>)
// CHECK: arith.addf
// CHECK: return %[[R]]
func.func @conv_channels_last(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = kiln.conv %x, %w, %b {channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// Tests that a channels_last depthwise conv (filter [C, KH, KW, 1]) is a
// generic over (n, oh, ow, c, kh, kw), four parallel and two reduction
// loops, reading the padded input at oh * stride + kh * dilation and the
// filter at [c, kh, kw, 0].

// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d4 * 2, d2 * 2 + d5 * 2, d3)>
// CHECK-DAG: #[[$F:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d4, d5, 0)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv_depthwise_channels_last
// CHECK-SAME: (%[[X:.+]]: tensor<1x9x9x8xf32>, %[[W:.+]]: tensor<8x3x3x1xf32>)
// CHECK: %[[PAD:.+]] = tensor.pad %[[X]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x4x4x8xf32>)
// CHECK-NOT: linalg.conv
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[$IN]], #[[$F]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[PAD]], %[[W]] : tensor<1x11x11x8xf32>, tensor<8x3x3x1xf32>) outs(%[[INIT]] : tensor<1x4x4x8xf32>)
// CHECK: %[[MUL:.+]] = arith.mulf
// CHECK: arith.addf %{{.+}}, %[[MUL]]
// CHECK: return %[[R]]
func.func @conv_depthwise_channels_last(%x: tensor<1x9x9x8xf32>, %w: tensor<8x3x3x1xf32>) -> tensor<1x4x4x8xf32> {
  %0 = kiln.conv %x, %w {channels_last = true, dilations = array<i64: 2, 2>, group = 8 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x9x9x8xf32>, tensor<8x3x3x1xf32>) -> tensor<1x4x4x8xf32>
  return %0 : tensor<1x4x4x8xf32>
}

// -----

// Tests that a channels_last grouped conv (2 groups of 4 channels, 3
// filters each) reads the padded input as [N, H, W, G, C/G] and the filter
// as [G, M/G, KH, KW, C/G] (reshapes, no copies), runs
// linalg.conv_2d_nhwgc_gfhwc into [N, OH, OW, G, M/G] accumulating in f32
// (f16 operands), collapses the groups and rounds to f16.

// CHECK-LABEL: func.func @conv_grouped_channels_last
// CHECK-SAME: (%[[X:.+]]: tensor<1x8x8x8xf16>, %[[W:.+]]: tensor<6x3x3x4xf16>)
// CHECK: %[[PAD:.+]] = tensor.pad %[[X]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: %[[X5:.+]] = tensor.expand_shape %[[PAD]] {{\[}}[0], [1], [2], [3, 4]] output_shape [1, 10, 10, 2, 4] : tensor<1x10x10x8xf16> into tensor<1x10x10x2x4xf16>
// CHECK: %[[W5:.+]] = tensor.expand_shape %[[W]] {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 3, 3, 3, 4] : tensor<6x3x3x4xf16> into tensor<2x3x3x3x4xf16>
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x8x8x2x3xf32>)
// CHECK: %[[CONV:.+]] = linalg.conv_2d_nhwgc_gfhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[X5]], %[[W5]] : tensor<1x10x10x2x4xf16>, tensor<2x3x3x3x4xf16>) outs(%[[INIT]] : tensor<1x8x8x2x3xf32>)
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %[[CONV]] {{\[}}[0], [1], [2], [3, 4]] : tensor<1x8x8x2x3xf32> into tensor<1x8x8x6xf32>
// CHECK: %[[R:.+]] = linalg.generic {{.*}} ins(%[[FLAT]] : tensor<1x8x8x6xf32>)
// CHECK: arith.truncf
// CHECK: return %[[R]]
func.func @conv_grouped_channels_last(%x: tensor<1x8x8x8xf16>, %w: tensor<6x3x3x4xf16>) -> tensor<1x8x8x6xf16> {
  %0 = kiln.conv %x, %w {channels_last = true, dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x8xf16>, tensor<6x3x3x4xf16>) -> tensor<1x8x8x6xf16>
  return %0 : tensor<1x8x8x6xf16>
}

// -----

// Tests that a channels_last max_pool pads H and W with -inf and uses
// linalg.pooling_nhwc_max; with ceil_mode the end padding covers the
// partial last window.

// CHECK-LABEL: func.func @max_pool_channels_last
// CHECK-SAME: (%[[X:.+]]: tensor<1x8x8x4xf32>, %[[Y:.+]]: tensor<1x5x5x3xf32>)
// CHECK: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[PAD:.+]] = tensor.pad %[[X]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: tensor.yield %[[NINF]] : f32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.+}} : tensor<1x4x4x4xf32>)
// CHECK: %[[WIN:.+]] = tensor.empty() : tensor<3x3xf32>
// CHECK: linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[PAD]], %[[WIN]] : tensor<1x10x10x4xf32>, tensor<3x3xf32>) outs(%[[INIT]] : tensor<1x4x4x4xf32>)
// CHECK: tensor.pad %[[Y]] low[0, 0, 0, 0] high[0, 1, 1, 0]
// CHECK: } : tensor<1x5x5x3xf32> to tensor<1x6x6x3xf32>
// CHECK: linalg.pooling_nhwc_max {{.*}} outs(%{{.+}} : tensor<1x3x3x3xf32>)
func.func @max_pool_channels_last(%x: tensor<1x8x8x4xf32>, %y: tensor<1x5x5x3xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x3x3x3xf32>) {
  %0 = kiln.max_pool %x {channels_last = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>
  %1 = kiln.max_pool %y {ceil_mode = true, channels_last = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x5x5x3xf32>) -> tensor<1x3x3x3xf32>
  return %0, %1 : tensor<1x4x4x4xf32>, tensor<1x3x3x3xf32>
}

// -----

// Tests that a channels_last batch_norm reads its four per-channel
// parameters through the last dim.

// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$LAST:.+]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @batch_norm_channels_last
// CHECK-SAME: (%[[X:.+]]: tensor<1x8x8x4xf32>, %[[S:.+]]: tensor<4xf32>, %[[B:.+]]: tensor<4xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$LAST]], #[[$LAST]], #[[$LAST]], #[[$LAST]], #[[$ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[X]], %[[S]], %[[B]], %[[S]], %[[B]] : tensor<1x8x8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK: math.rsqrt
func.func @batch_norm_channels_last(%x: tensor<1x8x8x4xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<1x8x8x4xf32> {
  %0 = kiln.batch_norm %x, %s, %b, %s, %b {channels_last = true, epsilon = 1.000000e-03 : f32} : (tensor<1x8x8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
  return %0 : tensor<1x8x8x4xf32>
}

// -----

// Tests that an f16 division by a constant scalar is a product with the f32
// reciprocal rounded once (GELU's x / sqrt(2)), and that f32 and a
// non-constant divisor keep the division.
// CHECK-LABEL: func.func @div_by_constant
// CHECK:         linalg.generic
// CHECK:           %[[X:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK:           %[[P:.+]] = arith.mulf %[[X]], %{{.+}} : f32
// CHECK:           arith.truncf %[[P]] : f32 to f16
// CHECK:         linalg.generic
// CHECK:           arith.divf %{{.+}}, %{{.+}} : f32
// CHECK:         linalg.generic
// CHECK:           arith.divf %{{.+}}, %{{.+}} : f16
func.func @div_by_constant(%x: tensor<4xf16>, %y: tensor<4xf32>, %z: tensor<4xf16>) -> (tensor<4xf16>, tensor<4xf32>, tensor<4xf16>) {
  %c = kiln.constant dense<1.414> : tensor<f16>
  %d = kiln.constant dense<1.414> : tensor<f32>
  %0 = kiln.div %x, %c : (tensor<4xf16>, tensor<f16>) -> tensor<4xf16>
  %1 = kiln.div %y, %d : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %2 = kiln.div %x, %z : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  return %0, %1, %2 : tensor<4xf16>, tensor<4xf32>, tensor<4xf16>
}
