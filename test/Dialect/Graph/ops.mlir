// RUN: kiln-opt %s -split-input-file | kiln-opt | FileCheck %s
// RUN: kiln-opt %s -split-input-file --mlir-print-op-generic | kiln-opt | FileCheck %s

// Round trip of every kiln op through the custom and the generic form.

// Tests that kiln.constant round-trips splat, integer and i1 values.
// CHECK-LABEL: func.func @constant() -> (tensor<2x3xf32>, tensor<3xi64>, tensor<i1>)
// CHECK-NEXT:    %[[CST:.+]] = kiln.constant dense<1.500000e+00> : tensor<2x3xf32>
// CHECK-NEXT:    %[[CST_1:.+]] = kiln.constant dense<[1, -1, 4]> : tensor<3xi64>
// CHECK-NEXT:    %[[CST_2:.+]] = kiln.constant dense<true> : tensor<i1>
// CHECK-NEXT:    return %[[CST]], %[[CST_1]], %[[CST_2]] : tensor<2x3xf32>, tensor<3xi64>, tensor<i1>
func.func @constant() -> (tensor<2x3xf32>, tensor<3xi64>, tensor<i1>) {
  %0 = kiln.constant dense<1.5> : tensor<2x3xf32>
  %1 = kiln.constant dense<[1, -1, 4]> : tensor<3xi64>
  %2 = kiln.constant dense<true> : tensor<i1>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<3xi64>, tensor<i1>
}

// -----

// Tests that the float-only unary ops round-trip with a dynamic dim.
// CHECK-LABEL: func.func @unary_float(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT:    %[[SIGMOID:.+]] = kiln.sigmoid %[[ARG0]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[TANH:.+]] = kiln.tanh %[[SIGMOID]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[ERF:.+]] = kiln.erf %[[TANH]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[SQRT:.+]] = kiln.sqrt %[[ERF]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[EXP:.+]] = kiln.exp %[[SQRT]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[LOG:.+]] = kiln.log %[[EXP]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[RECIPROCAL:.+]] = kiln.reciprocal %[[LOG]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[FLOOR:.+]] = kiln.floor %[[RECIPROCAL]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[CEIL:.+]] = kiln.ceil %[[FLOOR]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[ROUND:.+]] = kiln.round %[[CEIL]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[SIN:.+]] = kiln.sin %[[ROUND]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[COS:.+]] = kiln.cos %[[SIN]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[TAN:.+]] = kiln.tan %[[COS]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[ASIN:.+]] = kiln.asin %[[TAN]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[ACOS:.+]] = kiln.acos %[[ASIN]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[ATAN:.+]] = kiln.atan %[[ACOS]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[SINH:.+]] = kiln.sinh %[[ATAN]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[COSH:.+]] = kiln.cosh %[[SINH]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[ASINH:.+]] = kiln.asinh %[[COSH]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[ACOSH:.+]] = kiln.acosh %[[ASINH]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[ATANH:.+]] = kiln.atanh %[[ACOSH]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[SOFTPLUS:.+]] = kiln.softplus %[[ATANH]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[SOFTSIGN:.+]] = kiln.softsign %[[SOFTPLUS]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[HARD_SWISH:.+]] = kiln.hard_swish %[[SOFTSIGN]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[MISH:.+]] = kiln.mish %[[HARD_SWISH]] : tensor<?x4xf32>
// CHECK-NEXT:    return %[[MISH]] : tensor<?x4xf32>
func.func @unary_float(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = kiln.sigmoid %arg0 : tensor<?x4xf32>
  %1 = kiln.tanh %0 : tensor<?x4xf32>
  %2 = kiln.erf %1 : tensor<?x4xf32>
  %3 = kiln.sqrt %2 : tensor<?x4xf32>
  %4 = kiln.exp %3 : tensor<?x4xf32>
  %5 = kiln.log %4 : tensor<?x4xf32>
  %6 = kiln.reciprocal %5 : tensor<?x4xf32>
  %7 = kiln.floor %6 : tensor<?x4xf32>
  %8 = kiln.ceil %7 : tensor<?x4xf32>
  %9 = kiln.round %8 : tensor<?x4xf32>
  %10 = kiln.sin %9 : tensor<?x4xf32>
  %11 = kiln.cos %10 : tensor<?x4xf32>
  %12 = kiln.tan %11 : tensor<?x4xf32>
  %13 = kiln.asin %12 : tensor<?x4xf32>
  %14 = kiln.acos %13 : tensor<?x4xf32>
  %15 = kiln.atan %14 : tensor<?x4xf32>
  %16 = kiln.sinh %15 : tensor<?x4xf32>
  %17 = kiln.cosh %16 : tensor<?x4xf32>
  %18 = kiln.asinh %17 : tensor<?x4xf32>
  %19 = kiln.acosh %18 : tensor<?x4xf32>
  %20 = kiln.atanh %19 : tensor<?x4xf32>
  %21 = kiln.softplus %20 : tensor<?x4xf32>
  %22 = kiln.softsign %21 : tensor<?x4xf32>
  %23 = kiln.hard_swish %22 : tensor<?x4xf32>
  %24 = kiln.mish %23 : tensor<?x4xf32>
  return %24 : tensor<?x4xf32>
}

// -----

// Tests that relu, abs, neg and sign accept integer and float tensors.
// CHECK-LABEL: func.func @unary_numeric(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<2x3xi32>, %[[ARG1:[^:]+]]: tensor<?xf16>) -> (tensor<2x3xi32>, tensor<?xf16>)
// CHECK-NEXT:    %[[RELU:.+]] = kiln.relu %[[ARG0]] : tensor<2x3xi32>
// CHECK-NEXT:    %[[ABS:.+]] = kiln.abs %[[RELU]] : tensor<2x3xi32>
// CHECK-NEXT:    %[[NEG:.+]] = kiln.neg %[[ABS]] : tensor<2x3xi32>
// CHECK-NEXT:    %[[SIGN:.+]] = kiln.sign %[[NEG]] : tensor<2x3xi32>
// CHECK-NEXT:    %[[RELU_1:.+]] = kiln.relu %[[ARG1]] : tensor<?xf16>
// CHECK-NEXT:    %[[ABS_1:.+]] = kiln.abs %[[RELU_1]] : tensor<?xf16>
// CHECK-NEXT:    %[[NEG_1:.+]] = kiln.neg %[[ABS_1]] : tensor<?xf16>
// CHECK-NEXT:    %[[SIGN_1:.+]] = kiln.sign %[[NEG_1]] : tensor<?xf16>
// CHECK-NEXT:    return %[[SIGN]], %[[SIGN_1]] : tensor<2x3xi32>, tensor<?xf16>
func.func @unary_numeric(%arg0: tensor<2x3xi32>, %arg1: tensor<?xf16>) -> (tensor<2x3xi32>, tensor<?xf16>) {
  %0 = kiln.relu %arg0 : tensor<2x3xi32>
  %1 = kiln.abs %0 : tensor<2x3xi32>
  %2 = kiln.neg %1 : tensor<2x3xi32>
  %3 = kiln.sign %2 : tensor<2x3xi32>
  %4 = kiln.relu %arg1 : tensor<?xf16>
  %5 = kiln.abs %4 : tensor<?xf16>
  %6 = kiln.neg %5 : tensor<?xf16>
  %7 = kiln.sign %6 : tensor<?xf16>
  return %3, %7 : tensor<2x3xi32>, tensor<?xf16>
}

// -----

// Tests that kiln.not takes i1 and kiln.bitwise_not unsigned integers.
// CHECK-LABEL: func.func @unary_bool_int(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x2xi1>, %[[ARG1:[^:]+]]: tensor<4xui8>) -> (tensor<?x2xi1>, tensor<4xui8>)
// CHECK-NEXT:    %[[NOT:.+]] = kiln.not %[[ARG0]] : tensor<?x2xi1>
// CHECK-NEXT:    %[[BITWISE_NOT:.+]] = kiln.bitwise_not %[[ARG1]] : tensor<4xui8>
// CHECK-NEXT:    return %[[NOT]], %[[BITWISE_NOT]] : tensor<?x2xi1>, tensor<4xui8>
func.func @unary_bool_int(%arg0: tensor<?x2xi1>, %arg1: tensor<4xui8>) -> (tensor<?x2xi1>, tensor<4xui8>) {
  %0 = kiln.not %arg0 : tensor<?x2xi1>
  %1 = kiln.bitwise_not %arg1 : tensor<4xui8>
  return %0, %1 : tensor<?x2xi1>, tensor<4xui8>
}

// -----

// Tests that unary ops with attributes print non-default values and elide defaults.
// CHECK-LABEL: func.func @unary_attrs(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x8xbf16>) -> tensor<?x8xbf16>
// CHECK-NEXT:    %[[LEAKY_RELU:.+]] = kiln.leaky_relu %[[ARG0]] : tensor<?x8xbf16>
// CHECK-NEXT:    %[[LEAKY_RELU_1:.+]] = kiln.leaky_relu %[[LEAKY_RELU]] {alpha = 2.000000e-01 : f32} : tensor<?x8xbf16>
// CHECK-NEXT:    %[[ELU:.+]] = kiln.elu %[[LEAKY_RELU_1]] {alpha = 5.000000e-01 : f32} : tensor<?x8xbf16>
// CHECK-NEXT:    %[[SELU:.+]] = kiln.selu %[[ELU]] {alpha = 1.500000e+00 : f32, gamma = 2.000000e+00 : f32} : tensor<?x8xbf16>
// CHECK-NEXT:    %[[CELU:.+]] = kiln.celu %[[SELU]] {alpha = 2.000000e+00 : f32} : tensor<?x8xbf16>
// CHECK-NEXT:    %[[HARD_SIGMOID:.+]] = kiln.hard_sigmoid %[[CELU]] {alpha = 1.000000e-01 : f32, beta = 2.500000e-01 : f32} : tensor<?x8xbf16>
// CHECK-NEXT:    %[[THRESHOLDED_RELU:.+]] = kiln.thresholded_relu %[[HARD_SIGMOID]] {alpha = 3.000000e+00 : f32} : tensor<?x8xbf16>
// CHECK-NEXT:    %[[SHRINK:.+]] = kiln.shrink %[[THRESHOLDED_RELU]] {bias = 1.000000e+00 : f32, lambd = 2.000000e+00 : f32} : tensor<?x8xbf16>
// CHECK-NEXT:    %[[GELU:.+]] = kiln.gelu %[[SHRINK]] : tensor<?x8xbf16>
// CHECK-NEXT:    %[[GELU_1:.+]] = kiln.gelu %[[GELU]] {approximate = #kiln.gelu_approximation<tanh>} : tensor<?x8xbf16>
// CHECK-NEXT:    return %[[GELU_1]] : tensor<?x8xbf16>
func.func @unary_attrs(%arg0: tensor<?x8xbf16>) -> tensor<?x8xbf16> {
  %0 = kiln.leaky_relu %arg0 : tensor<?x8xbf16>
  %1 = kiln.leaky_relu %0 {alpha = 2.000000e-01 : f32} : tensor<?x8xbf16>
  %2 = kiln.elu %1 {alpha = 5.000000e-01 : f32} : tensor<?x8xbf16>
  %3 = kiln.selu %2 {alpha = 1.500000e+00 : f32, gamma = 2.000000e+00 : f32} : tensor<?x8xbf16>
  %4 = kiln.celu %3 {alpha = 2.000000e+00 : f32} : tensor<?x8xbf16>
  %5 = kiln.hard_sigmoid %4 {alpha = 1.000000e-01 : f32, beta = 2.500000e-01 : f32} : tensor<?x8xbf16>
  %6 = kiln.thresholded_relu %5 {alpha = 3.000000e+00 : f32} : tensor<?x8xbf16>
  %7 = kiln.shrink %6 {bias = 1.000000e+00 : f32, lambd = 2.000000e+00 : f32} : tensor<?x8xbf16>
  %8 = kiln.gelu %7 : tensor<?x8xbf16>
  %9 = kiln.gelu %8 {approximate = #kiln.gelu_approximation<tanh>} : tensor<?x8xbf16>
  return %9 : tensor<?x8xbf16>
}

// -----

// Tests that kiln.clip round-trips with both, one or no bound, on floats and integers.
// CHECK-LABEL: func.func @clip(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x3xf32>, %[[ARG1:[^:]+]]: tensor<5xi8>) -> (tensor<?x3xf32>, tensor<?x3xf32>, tensor<5xi8>)
// CHECK-NEXT:    %[[CLIP:.+]] = kiln.clip %[[ARG0]] {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<?x3xf32>
// CHECK-NEXT:    %[[CLIP_1:.+]] = kiln.clip %[[ARG0]] {min = -1.000000e+00 : f64} : tensor<?x3xf32>
// CHECK-NEXT:    %[[CLIP_2:.+]] = kiln.clip %[[ARG1]] {max = 1.000000e+01 : f64} : tensor<5xi8>
// CHECK-NEXT:    return %[[CLIP]], %[[CLIP_1]], %[[CLIP_2]] : tensor<?x3xf32>, tensor<?x3xf32>, tensor<5xi8>
func.func @clip(%arg0: tensor<?x3xf32>, %arg1: tensor<5xi8>) -> (tensor<?x3xf32>, tensor<?x3xf32>, tensor<5xi8>) {
  %0 = kiln.clip %arg0 {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<?x3xf32>
  %1 = kiln.clip %arg0 {min = -1.000000e+00 : f64} : tensor<?x3xf32>
  %2 = kiln.clip %arg1 {max = 1.000000e+01 : f64} : tensor<5xi8>
  return %0, %1, %2 : tensor<?x3xf32>, tensor<?x3xf32>, tensor<5xi8>
}

// -----

// Tests that kiln.is_nan and kiln.is_inf produce i1 tensors of the input's shape.
// CHECK-LABEL: func.func @is_nan_is_inf(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x3xf32>) -> (tensor<?x3xi1>, tensor<?x3xi1>, tensor<?x3xi1>)
// CHECK-NEXT:    %[[IS_NAN:.+]] = kiln.is_nan %[[ARG0]] : tensor<?x3xf32> -> tensor<?x3xi1>
// CHECK-NEXT:    %[[IS_INF:.+]] = kiln.is_inf %[[ARG0]] : tensor<?x3xf32> -> tensor<?x3xi1>
// CHECK-NEXT:    %[[IS_INF_1:.+]] = kiln.is_inf %[[ARG0]] {detect_negative = false} : tensor<?x3xf32> -> tensor<?x3xi1>
// CHECK-NEXT:    return %[[IS_NAN]], %[[IS_INF]], %[[IS_INF_1]] : tensor<?x3xi1>, tensor<?x3xi1>, tensor<?x3xi1>
func.func @is_nan_is_inf(%arg0: tensor<?x3xf32>) -> (tensor<?x3xi1>, tensor<?x3xi1>, tensor<?x3xi1>) {
  %0 = kiln.is_nan %arg0 : tensor<?x3xf32> -> tensor<?x3xi1>
  %1 = kiln.is_inf %arg0 : tensor<?x3xf32> -> tensor<?x3xi1>
  %2 = kiln.is_inf %arg0 {detect_negative = false} : tensor<?x3xf32> -> tensor<?x3xi1>
  return %0, %1, %2 : tensor<?x3xi1>, tensor<?x3xi1>, tensor<?x3xi1>
}

// -----

// Tests that kiln.cast converts between float, integer and i1 element types.
// CHECK-LABEL: func.func @cast(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x3xf32>, %[[ARG1:[^:]+]]: tensor<4xi1>) -> (tensor<?x3xf16>, tensor<?x3xi64>, tensor<4xf32>, tensor<?x3xf32>)
// CHECK-NEXT:    %[[CAST:.+]] = kiln.cast %[[ARG0]] : tensor<?x3xf32> -> tensor<?x3xf16>
// CHECK-NEXT:    %[[CAST_1:.+]] = kiln.cast %[[ARG0]] : tensor<?x3xf32> -> tensor<?x3xi64>
// CHECK-NEXT:    %[[CAST_2:.+]] = kiln.cast %[[ARG1]] : tensor<4xi1> -> tensor<4xf32>
// CHECK-NEXT:    %[[CAST_3:.+]] = kiln.cast %[[CAST]] : tensor<?x3xf16> -> tensor<?x3xf32>
// CHECK-NEXT:    return %[[CAST]], %[[CAST_1]], %[[CAST_2]], %[[CAST_3]] : tensor<?x3xf16>, tensor<?x3xi64>, tensor<4xf32>, tensor<?x3xf32>
func.func @cast(%arg0: tensor<?x3xf32>, %arg1: tensor<4xi1>) -> (tensor<?x3xf16>, tensor<?x3xi64>, tensor<4xf32>, tensor<?x3xf32>) {
  %0 = kiln.cast %arg0 : tensor<?x3xf32> -> tensor<?x3xf16>
  %1 = kiln.cast %arg0 : tensor<?x3xf32> -> tensor<?x3xi64>
  %2 = kiln.cast %arg1 : tensor<4xi1> -> tensor<4xf32>
  %3 = kiln.cast %0 : tensor<?x3xf16> -> tensor<?x3xf32>
  return %0, %1, %2, %3 : tensor<?x3xf16>, tensor<?x3xi64>, tensor<4xf32>, tensor<?x3xf32>
}

// -----

// Tests that the arithmetic ops broadcast static against dynamic dims.
// CHECK-LABEL: func.func @arith(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<2x?x4xf32>, %[[ARG1:[^:]+]]: tensor<4xf32>, %[[ARG2:[^:]+]]: tensor<?x1x4xf32>) -> tensor<2x?x4xf32>
// CHECK-NEXT:    %[[ADD:.+]] = kiln.add %[[ARG0]], %[[ARG1]] : (tensor<2x?x4xf32>, tensor<4xf32>) -> tensor<2x?x4xf32>
// CHECK-NEXT:    %[[SUB:.+]] = kiln.sub %[[ADD]], %[[ARG2]] : (tensor<2x?x4xf32>, tensor<?x1x4xf32>) -> tensor<2x?x4xf32>
// CHECK-NEXT:    %[[MUL:.+]] = kiln.mul %[[ARG1]], %[[SUB]] : (tensor<4xf32>, tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
// CHECK-NEXT:    %[[DIV:.+]] = kiln.div %[[MUL]], %[[ARG1]] : (tensor<2x?x4xf32>, tensor<4xf32>) -> tensor<2x?x4xf32>
// CHECK-NEXT:    %[[POW:.+]] = kiln.pow %[[DIV]], %[[ARG1]] : (tensor<2x?x4xf32>, tensor<4xf32>) -> tensor<2x?x4xf32>
// CHECK-NEXT:    %[[MAX:.+]] = kiln.max %[[POW]], %[[ARG0]] : (tensor<2x?x4xf32>, tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
// CHECK-NEXT:    %[[MIN:.+]] = kiln.min %[[MAX]], %[[ARG0]] : (tensor<2x?x4xf32>, tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
// CHECK-NEXT:    %[[MOD:.+]] = kiln.mod %[[MIN]], %[[ARG1]] {fmod = true} : (tensor<2x?x4xf32>, tensor<4xf32>) -> tensor<2x?x4xf32>
// CHECK-NEXT:    return %[[MOD]] : tensor<2x?x4xf32>
func.func @arith(%arg0: tensor<2x?x4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<?x1x4xf32>) -> tensor<2x?x4xf32> {
  %0 = kiln.add %arg0, %arg1 : (tensor<2x?x4xf32>, tensor<4xf32>) -> tensor<2x?x4xf32>
  %1 = kiln.sub %0, %arg2 : (tensor<2x?x4xf32>, tensor<?x1x4xf32>) -> tensor<2x?x4xf32>
  %2 = kiln.mul %arg1, %1 : (tensor<4xf32>, tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
  %3 = kiln.div %2, %arg1 : (tensor<2x?x4xf32>, tensor<4xf32>) -> tensor<2x?x4xf32>
  %4 = kiln.pow %3, %arg1 : (tensor<2x?x4xf32>, tensor<4xf32>) -> tensor<2x?x4xf32>
  %5 = kiln.max %4, %arg0 : (tensor<2x?x4xf32>, tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
  %6 = kiln.min %5, %arg0 : (tensor<2x?x4xf32>, tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
  %7 = kiln.mod %6, %arg1 {fmod = true} : (tensor<2x?x4xf32>, tensor<4xf32>) -> tensor<2x?x4xf32>
  return %7 : tensor<2x?x4xf32>
}

// -----

// Tests that static integer operands broadcast in both directions.
// CHECK-LABEL: func.func @arith_static_broadcast(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<3x1xi64>, %[[ARG1:[^:]+]]: tensor<1x5xi64>) -> tensor<3x5xi64>
// CHECK-NEXT:    %[[ADD:.+]] = kiln.add %[[ARG0]], %[[ARG1]] : (tensor<3x1xi64>, tensor<1x5xi64>) -> tensor<3x5xi64>
// CHECK-NEXT:    %[[MOD:.+]] = kiln.mod %[[ADD]], %[[ARG1]] : (tensor<3x5xi64>, tensor<1x5xi64>) -> tensor<3x5xi64>
// CHECK-NEXT:    return %[[MOD]] : tensor<3x5xi64>
func.func @arith_static_broadcast(%arg0: tensor<3x1xi64>, %arg1: tensor<1x5xi64>) -> tensor<3x5xi64> {
  %0 = kiln.add %arg0, %arg1 : (tensor<3x1xi64>, tensor<1x5xi64>) -> tensor<3x5xi64>
  %1 = kiln.mod %0, %arg1 : (tensor<3x5xi64>, tensor<1x5xi64>) -> tensor<3x5xi64>
  return %1 : tensor<3x5xi64>
}

// -----

// Tests that the bit shift and bitwise ops round-trip on unsigned integers.
// CHECK-LABEL: func.func @bitwise(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x4xui8>, %[[ARG1:[^:]+]]: tensor<4xui8>) -> tensor<?x4xui8>
// CHECK-NEXT:    %[[BIT_SHIFT:.+]] = kiln.bit_shift %[[ARG0]], %[[ARG1]] {direction = #kiln.bit_shift_direction<LEFT>} : (tensor<?x4xui8>, tensor<4xui8>) -> tensor<?x4xui8>
// CHECK-NEXT:    %[[BIT_SHIFT_1:.+]] = kiln.bit_shift %[[BIT_SHIFT]], %[[ARG1]] {direction = #kiln.bit_shift_direction<RIGHT>} : (tensor<?x4xui8>, tensor<4xui8>) -> tensor<?x4xui8>
// CHECK-NEXT:    %[[BITWISE_AND:.+]] = kiln.bitwise_and %[[BIT_SHIFT_1]], %[[ARG1]] : (tensor<?x4xui8>, tensor<4xui8>) -> tensor<?x4xui8>
// CHECK-NEXT:    %[[BITWISE_OR:.+]] = kiln.bitwise_or %[[BITWISE_AND]], %[[ARG1]] : (tensor<?x4xui8>, tensor<4xui8>) -> tensor<?x4xui8>
// CHECK-NEXT:    %[[BITWISE_XOR:.+]] = kiln.bitwise_xor %[[BITWISE_OR]], %[[ARG1]] : (tensor<?x4xui8>, tensor<4xui8>) -> tensor<?x4xui8>
// CHECK-NEXT:    return %[[BITWISE_XOR]] : tensor<?x4xui8>
func.func @bitwise(%arg0: tensor<?x4xui8>, %arg1: tensor<4xui8>) -> tensor<?x4xui8> {
  %0 = kiln.bit_shift %arg0, %arg1 {direction = #kiln.bit_shift_direction<LEFT>} : (tensor<?x4xui8>, tensor<4xui8>) -> tensor<?x4xui8>
  %1 = kiln.bit_shift %0, %arg1 {direction = #kiln.bit_shift_direction<RIGHT>} : (tensor<?x4xui8>, tensor<4xui8>) -> tensor<?x4xui8>
  %2 = kiln.bitwise_and %1, %arg1 : (tensor<?x4xui8>, tensor<4xui8>) -> tensor<?x4xui8>
  %3 = kiln.bitwise_or %2, %arg1 : (tensor<?x4xui8>, tensor<4xui8>) -> tensor<?x4xui8>
  %4 = kiln.bitwise_xor %3, %arg1 : (tensor<?x4xui8>, tensor<4xui8>) -> tensor<?x4xui8>
  return %4 : tensor<?x4xui8>
}

// -----

// Tests that the comparisons return i1 with the broadcast shape.
// CHECK-LABEL: func.func @compare(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x4xf32>, %[[ARG1:[^:]+]]: tensor<1x4xf32>, %[[ARG2:[^:]+]]: tensor<3xi64>) -> (tensor<?x4xi1>, tensor<?x4xi1>, tensor<?x4xi1>, tensor<?x4xi1>, tensor<3xi1>)
// CHECK-NEXT:    %[[EQUAL:.+]] = kiln.equal %[[ARG0]], %[[ARG1]] : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xi1>
// CHECK-NEXT:    %[[LESS:.+]] = kiln.less %[[ARG0]], %[[ARG1]] : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xi1>
// CHECK-NEXT:    %[[LESS_OR_EQUAL:.+]] = kiln.less_or_equal %[[ARG0]], %[[ARG1]] : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xi1>
// CHECK-NEXT:    %[[GREATER:.+]] = kiln.greater %[[ARG0]], %[[ARG1]] : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xi1>
// CHECK-NEXT:    %[[GREATER_OR_EQUAL:.+]] = kiln.greater_or_equal %[[ARG2]], %[[ARG2]] : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
// CHECK-NEXT:    return %[[EQUAL]], %[[LESS]], %[[LESS_OR_EQUAL]], %[[GREATER]], %[[GREATER_OR_EQUAL]] : tensor<?x4xi1>, tensor<?x4xi1>, tensor<?x4xi1>, tensor<?x4xi1>, tensor<3xi1>
func.func @compare(%arg0: tensor<?x4xf32>, %arg1: tensor<1x4xf32>, %arg2: tensor<3xi64>) -> (tensor<?x4xi1>, tensor<?x4xi1>, tensor<?x4xi1>, tensor<?x4xi1>, tensor<3xi1>) {
  %0 = kiln.equal %arg0, %arg1 : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xi1>
  %1 = kiln.less %arg0, %arg1 : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xi1>
  %2 = kiln.less_or_equal %arg0, %arg1 : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xi1>
  %3 = kiln.greater %arg0, %arg1 : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xi1>
  %4 = kiln.greater_or_equal %arg2, %arg2 : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
  return %0, %1, %2, %3, %4 : tensor<?x4xi1>, tensor<?x4xi1>, tensor<?x4xi1>, tensor<?x4xi1>, tensor<3xi1>
}

// -----

// Tests that the logical ops broadcast i1 tensors, including a scalar.
// CHECK-LABEL: func.func @logical(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x4xi1>, %[[ARG1:[^:]+]]: tensor<i1>) -> tensor<?x4xi1>
// CHECK-NEXT:    %[[AND:.+]] = kiln.and %[[ARG0]], %[[ARG1]] : (tensor<?x4xi1>, tensor<i1>) -> tensor<?x4xi1>
// CHECK-NEXT:    %[[OR:.+]] = kiln.or %[[AND]], %[[ARG1]] : (tensor<?x4xi1>, tensor<i1>) -> tensor<?x4xi1>
// CHECK-NEXT:    %[[XOR:.+]] = kiln.xor %[[OR]], %[[ARG0]] : (tensor<?x4xi1>, tensor<?x4xi1>) -> tensor<?x4xi1>
// CHECK-NEXT:    return %[[XOR]] : tensor<?x4xi1>
func.func @logical(%arg0: tensor<?x4xi1>, %arg1: tensor<i1>) -> tensor<?x4xi1> {
  %0 = kiln.and %arg0, %arg1 : (tensor<?x4xi1>, tensor<i1>) -> tensor<?x4xi1>
  %1 = kiln.or %0, %arg1 : (tensor<?x4xi1>, tensor<i1>) -> tensor<?x4xi1>
  %2 = kiln.xor %1, %arg0 : (tensor<?x4xi1>, tensor<?x4xi1>) -> tensor<?x4xi1>
  return %2 : tensor<?x4xi1>
}

// -----

// Tests that kiln.prelu broadcasts the slope unidirectionally to the input.
// CHECK-LABEL: func.func @prelu(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x3x8x8xf32>, %[[ARG1:[^:]+]]: tensor<3x1x1xf32>, %[[ARG2:[^:]+]]: tensor<2x5xi32>, %[[ARG3:[^:]+]]: tensor<5xi32>) -> (tensor<?x3x8x8xf32>, tensor<2x5xi32>)
// CHECK-NEXT:    %[[PRELU:.+]] = kiln.prelu %[[ARG0]], %[[ARG1]] : (tensor<?x3x8x8xf32>, tensor<3x1x1xf32>) -> tensor<?x3x8x8xf32>
// CHECK-NEXT:    %[[PRELU_1:.+]] = kiln.prelu %[[ARG2]], %[[ARG3]] : (tensor<2x5xi32>, tensor<5xi32>) -> tensor<2x5xi32>
// CHECK-NEXT:    return %[[PRELU]], %[[PRELU_1]] : tensor<?x3x8x8xf32>, tensor<2x5xi32>
func.func @prelu(%arg0: tensor<?x3x8x8xf32>, %arg1: tensor<3x1x1xf32>, %arg2: tensor<2x5xi32>, %arg3: tensor<5xi32>) -> (tensor<?x3x8x8xf32>, tensor<2x5xi32>) {
  %0 = kiln.prelu %arg0, %arg1 : (tensor<?x3x8x8xf32>, tensor<3x1x1xf32>) -> tensor<?x3x8x8xf32>
  %1 = kiln.prelu %arg2, %arg3 : (tensor<2x5xi32>, tensor<5xi32>) -> tensor<2x5xi32>
  return %0, %1 : tensor<?x3x8x8xf32>, tensor<2x5xi32>
}

// -----

// Tests that kiln.where broadcasts all three operands.
// CHECK-LABEL: func.func @where(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x1xi1>, %[[ARG1:[^:]+]]: tensor<4xf32>, %[[ARG2:[^:]+]]: tensor<f32>) -> tensor<?x4xf32>
// CHECK-NEXT:    %[[WHERE:.+]] = kiln.where %[[ARG0]], %[[ARG1]], %[[ARG2]] : (tensor<?x1xi1>, tensor<4xf32>, tensor<f32>) -> tensor<?x4xf32>
// CHECK-NEXT:    return %[[WHERE]] : tensor<?x4xf32>
func.func @where(%arg0: tensor<?x1xi1>, %arg1: tensor<4xf32>, %arg2: tensor<f32>) -> tensor<?x4xf32> {
  %0 = kiln.where %arg0, %arg1, %arg2 : (tensor<?x1xi1>, tensor<4xf32>, tensor<f32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Tests that kiln.matmul round-trips with batch dims, 1-D promotion and batch broadcasting.
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x8x16xf32>, %[[ARG1:[^:]+]]: tensor<16x32xf32>, %[[ARG2:[^:]+]]: tensor<16xf32>, %[[ARG3:[^:]+]]: tensor<4x1x?x16xf16>, %[[ARG4:[^:]+]]: tensor<3x16x?xf16>) -> (tensor<?x8x32xf32>, tensor<?x8xf32>, tensor<32xf32>, tensor<4x3x?x?xf16>)
// CHECK-NEXT:    %[[MATMUL:.+]] = kiln.matmul %[[ARG0]], %[[ARG1]] : (tensor<?x8x16xf32>, tensor<16x32xf32>) -> tensor<?x8x32xf32>
// CHECK-NEXT:    %[[MATMUL_1:.+]] = kiln.matmul %[[ARG0]], %[[ARG2]] : (tensor<?x8x16xf32>, tensor<16xf32>) -> tensor<?x8xf32>
// CHECK-NEXT:    %[[MATMUL_2:.+]] = kiln.matmul %[[ARG2]], %[[ARG1]] : (tensor<16xf32>, tensor<16x32xf32>) -> tensor<32xf32>
// CHECK-NEXT:    %[[MATMUL_3:.+]] = kiln.matmul %[[ARG3]], %[[ARG4]] : (tensor<4x1x?x16xf16>, tensor<3x16x?xf16>) -> tensor<4x3x?x?xf16>
// CHECK-NEXT:    return %[[MATMUL]], %[[MATMUL_1]], %[[MATMUL_2]], %[[MATMUL_3]] : tensor<?x8x32xf32>, tensor<?x8xf32>, tensor<32xf32>, tensor<4x3x?x?xf16>
func.func @matmul(%arg0: tensor<?x8x16xf32>, %arg1: tensor<16x32xf32>, %arg2: tensor<16xf32>, %arg3: tensor<4x1x?x16xf16>, %arg4: tensor<3x16x?xf16>) -> (tensor<?x8x32xf32>, tensor<?x8xf32>, tensor<32xf32>, tensor<4x3x?x?xf16>) {
  %0 = kiln.matmul %arg0, %arg1 : (tensor<?x8x16xf32>, tensor<16x32xf32>) -> tensor<?x8x32xf32>
  %1 = kiln.matmul %arg0, %arg2 : (tensor<?x8x16xf32>, tensor<16xf32>) -> tensor<?x8xf32>
  %2 = kiln.matmul %arg2, %arg1 : (tensor<16xf32>, tensor<16x32xf32>) -> tensor<32xf32>
  %3 = kiln.matmul %arg3, %arg4 : (tensor<4x1x?x16xf16>, tensor<3x16x?xf16>) -> tensor<4x3x?x?xf16>
  return %0, %1, %2, %3 : tensor<?x8x32xf32>, tensor<?x8xf32>, tensor<32xf32>, tensor<4x3x?x?xf16>
}

// -----

// Tests that kiln.gemm round-trips with and without C, transposes and dynamic M, N and K.
// CHECK-LABEL: func.func @gemm(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x64xf32>, %[[ARG1:[^:]+]]: tensor<128x64xf32>, %[[ARG2:[^:]+]]: tensor<128xf32>, %[[ARG3:[^:]+]]: tensor<64x?xf32>) -> (tensor<?x128xf32>, tensor<64x64xf32>)
// CHECK-NEXT:    %[[GEMM:.+]] = kiln.gemm %[[ARG0]], %[[ARG1]], %[[ARG2]] {alpha = 5.000000e-01 : f32, beta = 2.000000e+00 : f32, trans_b = true} : (tensor<?x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> tensor<?x128xf32>
// CHECK-NEXT:    %[[GEMM_1:.+]] = kiln.gemm %[[ARG3]], %[[ARG3]] {trans_a = true} : (tensor<64x?xf32>, tensor<64x?xf32>) -> tensor<?x?xf32>
// CHECK-NEXT:    %[[GEMM_2:.+]] = kiln.gemm %[[ARG3]], %[[ARG0]] : (tensor<64x?xf32>, tensor<?x64xf32>) -> tensor<64x64xf32>
// CHECK-NEXT:    return %[[GEMM]], %[[GEMM_2]] : tensor<?x128xf32>, tensor<64x64xf32>
func.func @gemm(%arg0: tensor<?x64xf32>, %arg1: tensor<128x64xf32>, %arg2: tensor<128xf32>, %arg3: tensor<64x?xf32>) -> (tensor<?x128xf32>, tensor<64x64xf32>) {
  %0 = kiln.gemm %arg0, %arg1, %arg2 {alpha = 5.000000e-01 : f32, beta = 2.000000e+00 : f32, trans_b = true} : (tensor<?x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> tensor<?x128xf32>
  %1 = kiln.gemm %arg3, %arg3 {trans_a = true} : (tensor<64x?xf32>, tensor<64x?xf32>) -> tensor<?x?xf32>
  %2 = kiln.gemm %arg3, %arg0 : (tensor<64x?xf32>, tensor<?x64xf32>) -> tensor<64x64xf32>
  return %0, %2 : tensor<?x128xf32>, tensor<64x64xf32>
}

// -----

// Tests that kiln.conv round-trips in 1-D and 2-D, with bias, groups, dilation and a dynamic dim.
// CHECK-LABEL: func.func @conv(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x3x32x32xf32>, %[[ARG1:[^:]+]]: tensor<16x3x3x3xf32>, %[[ARG2:[^:]+]]: tensor<16xf32>, %[[ARG3:[^:]+]]: tensor<1x8x?x10xf16>, %[[ARG4:[^:]+]]: tensor<8x2x3x3xf16>, %[[ARG5:[^:]+]]: tensor<2x4x20xf32>, %[[ARG6:[^:]+]]: tensor<6x4x5xf32>) -> (tensor<?x16x16x16xf32>, tensor<1x8x?x6xf16>, tensor<2x6x16xf32>)
// CHECK-NEXT:    %[[CONV:.+]] = kiln.conv %[[ARG0]], %[[ARG1]], %[[ARG2]] {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<?x16x16x16xf32>
// CHECK-NEXT:    %[[CONV_1:.+]] = kiln.conv %[[ARG3]], %[[ARG4]] {dilations = array<i64: 2, 2>, group = 4 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x?x10xf16>, tensor<8x2x3x3xf16>) -> tensor<1x8x?x6xf16>
// CHECK-NEXT:    %[[CONV_2:.+]] = kiln.conv %[[ARG5]], %[[ARG6]] {dilations = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : (tensor<2x4x20xf32>, tensor<6x4x5xf32>) -> tensor<2x6x16xf32>
// CHECK-NEXT:    return %[[CONV]], %[[CONV_1]], %[[CONV_2]] : tensor<?x16x16x16xf32>, tensor<1x8x?x6xf16>, tensor<2x6x16xf32>
func.func @conv(%arg0: tensor<?x3x32x32xf32>, %arg1: tensor<16x3x3x3xf32>, %arg2: tensor<16xf32>, %arg3: tensor<1x8x?x10xf16>, %arg4: tensor<8x2x3x3xf16>, %arg5: tensor<2x4x20xf32>, %arg6: tensor<6x4x5xf32>) -> (tensor<?x16x16x16xf32>, tensor<1x8x?x6xf16>, tensor<2x6x16xf32>) {
  %0 = kiln.conv %arg0, %arg1, %arg2 {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<?x16x16x16xf32>
  %1 = kiln.conv %arg3, %arg4 {dilations = array<i64: 2, 2>, group = 4 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x?x10xf16>, tensor<8x2x3x3xf16>) -> tensor<1x8x?x6xf16>
  %2 = kiln.conv %arg5, %arg6 {dilations = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : (tensor<2x4x20xf32>, tensor<6x4x5xf32>) -> tensor<2x6x16xf32>
  return %0, %1, %2 : tensor<?x16x16x16xf32>, tensor<1x8x?x6xf16>, tensor<2x6x16xf32>
}

// -----

// Tests that kiln.conv_transpose round-trips with groups, output padding and a dynamic dim.
// CHECK-LABEL: func.func @conv_transpose(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x8x16x16xf32>, %[[ARG1:[^:]+]]: tensor<8x4x4x4xf32>, %[[ARG2:[^:]+]]: tensor<8xf32>, %[[ARG3:[^:]+]]: tensor<1x8x?x5xf32>) -> (tensor<?x8x32x32xf32>, tensor<1x8x?x13xf32>)
// CHECK-NEXT:    %[[CONV_TRANSPOSE:.+]] = kiln.conv_transpose %[[ARG0]], %[[ARG1]], %[[ARG2]] {dilations = array<i64: 1, 1>, group = 2 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x8x16x16xf32>, tensor<8x4x4x4xf32>, tensor<8xf32>) -> tensor<?x8x32x32xf32>
// CHECK-NEXT:    %[[CONV_TRANSPOSE_1:.+]] = kiln.conv_transpose %[[ARG3]], %[[ARG1]] {dilations = array<i64: 1, 1>, group = 2 : i64, output_padding = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x?x5xf32>, tensor<8x4x4x4xf32>) -> tensor<1x8x?x13xf32>
// CHECK-NEXT:    return %[[CONV_TRANSPOSE]], %[[CONV_TRANSPOSE_1]] : tensor<?x8x32x32xf32>, tensor<1x8x?x13xf32>
func.func @conv_transpose(%arg0: tensor<?x8x16x16xf32>, %arg1: tensor<8x4x4x4xf32>, %arg2: tensor<8xf32>, %arg3: tensor<1x8x?x5xf32>) -> (tensor<?x8x32x32xf32>, tensor<1x8x?x13xf32>) {
  %0 = kiln.conv_transpose %arg0, %arg1, %arg2 {dilations = array<i64: 1, 1>, group = 2 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x8x16x16xf32>, tensor<8x4x4x4xf32>, tensor<8xf32>) -> tensor<?x8x32x32xf32>
  %1 = kiln.conv_transpose %arg3, %arg1 {dilations = array<i64: 1, 1>, group = 2 : i64, output_padding = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x?x5xf32>, tensor<8x4x4x4xf32>) -> tensor<1x8x?x13xf32>
  return %0, %1 : tensor<?x8x32x32xf32>, tensor<1x8x?x13xf32>
}

// -----

// Tests that batch_norm, instance_norm, layer_norm (with and without bias) and lrn round-trip.
// CHECK-LABEL: func.func @normalization(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x16x8x8xf32>, %[[ARG1:[^:]+]]: tensor<16xf32>, %[[ARG2:[^:]+]]: tensor<?x?x768xf16>, %[[ARG3:[^:]+]]: tensor<768xf16>) -> (tensor<?x16x8x8xf32>, tensor<?x16x8x8xf32>, tensor<?x?x768xf16>, tensor<?x?x768xf16>, tensor<?x16x8x8xf32>)
// CHECK-NEXT:    %[[BATCH_NORM:.+]] = kiln.batch_norm %[[ARG0]], %[[ARG1]], %[[ARG1]], %[[ARG1]], %[[ARG1]] {epsilon = 1.000000e-03 : f32} : (tensor<?x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<?x16x8x8xf32>
// CHECK-NEXT:    %[[INSTANCE_NORM:.+]] = kiln.instance_norm %[[BATCH_NORM]], %[[ARG1]], %[[ARG1]] : (tensor<?x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<?x16x8x8xf32>
// CHECK-NEXT:    %[[LAYER_NORM:.+]] = kiln.layer_norm %[[ARG2]], %[[ARG3]], %[[ARG3]] {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : (tensor<?x?x768xf16>, tensor<768xf16>, tensor<768xf16>) -> tensor<?x?x768xf16>
// CHECK-NEXT:    %[[LAYER_NORM_1:.+]] = kiln.layer_norm %[[ARG2]], %[[ARG3]] {axis = 2 : i64} : (tensor<?x?x768xf16>, tensor<768xf16>) -> tensor<?x?x768xf16>
// CHECK-NEXT:    %[[LRN:.+]] = kiln.lrn %[[INSTANCE_NORM]] {alpha = 2.000000e-04 : f32, beta = 5.000000e-01 : f32, bias = 2.000000e+00 : f32, size = 5 : i64} : tensor<?x16x8x8xf32>
// CHECK-NEXT:    return %[[BATCH_NORM]], %[[INSTANCE_NORM]], %[[LAYER_NORM]], %[[LAYER_NORM_1]], %[[LRN]] : tensor<?x16x8x8xf32>, tensor<?x16x8x8xf32>, tensor<?x?x768xf16>, tensor<?x?x768xf16>, tensor<?x16x8x8xf32>
func.func @normalization(%arg0: tensor<?x16x8x8xf32>, %arg1: tensor<16xf32>, %arg2: tensor<?x?x768xf16>, %arg3: tensor<768xf16>) -> (tensor<?x16x8x8xf32>, tensor<?x16x8x8xf32>, tensor<?x?x768xf16>, tensor<?x?x768xf16>, tensor<?x16x8x8xf32>) {
  %0 = kiln.batch_norm %arg0, %arg1, %arg1, %arg1, %arg1 {epsilon = 1.000000e-03 : f32} : (tensor<?x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<?x16x8x8xf32>
  %1 = kiln.instance_norm %0, %arg1, %arg1 : (tensor<?x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<?x16x8x8xf32>
  %2 = kiln.layer_norm %arg2, %arg3, %arg3 {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : (tensor<?x?x768xf16>, tensor<768xf16>, tensor<768xf16>) -> tensor<?x?x768xf16>
  %3 = kiln.layer_norm %arg2, %arg3 {axis = 2 : i64} : (tensor<?x?x768xf16>, tensor<768xf16>) -> tensor<?x?x768xf16>
  %4 = kiln.lrn %1 {alpha = 2.000000e-04 : f32, beta = 5.000000e-01 : f32, bias = 2.000000e+00 : f32, size = 5 : i64} : tensor<?x16x8x8xf32>
  return %0, %1, %2, %3, %4 : tensor<?x16x8x8xf32>, tensor<?x16x8x8xf32>, tensor<?x?x768xf16>, tensor<?x?x768xf16>, tensor<?x16x8x8xf32>
}

// -----

// Tests that kiln.softmax and kiln.log_softmax round-trip on dynamic dims.
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x12x?x?xf32>) -> (tensor<?x12x?x?xf32>, tensor<?x12x?x?xf32>)
// CHECK-NEXT:    %[[SOFTMAX:.+]] = kiln.softmax %[[ARG0]] {axis = 3 : i64} : tensor<?x12x?x?xf32>
// CHECK-NEXT:    %[[LOG_SOFTMAX:.+]] = kiln.log_softmax %[[ARG0]] {axis = 1 : i64} : tensor<?x12x?x?xf32>
// CHECK-NEXT:    return %[[SOFTMAX]], %[[LOG_SOFTMAX]] : tensor<?x12x?x?xf32>, tensor<?x12x?x?xf32>
func.func @softmax(%arg0: tensor<?x12x?x?xf32>) -> (tensor<?x12x?x?xf32>, tensor<?x12x?x?xf32>) {
  %0 = kiln.softmax %arg0 {axis = 3 : i64} : tensor<?x12x?x?xf32>
  %1 = kiln.log_softmax %arg0 {axis = 1 : i64} : tensor<?x12x?x?xf32>
  return %0, %1 : tensor<?x12x?x?xf32>, tensor<?x12x?x?xf32>
}

// -----

// Tests that max_pool and avg_pool round-trip with ceil_mode, count_include_pad and 1-D windows.
// CHECK-LABEL: func.func @pool(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x64x112x112xf32>, %[[ARG1:[^:]+]]: tensor<1x3x?x7xi8>, %[[ARG2:[^:]+]]: tensor<2x4x10xf32>) -> (tensor<?x64x56x56xf32>, tensor<1x3x?x4xi8>, tensor<2x4x5xf32>, tensor<?x64x56x56xf32>)
// CHECK-NEXT:    %[[MAX_POOL:.+]] = kiln.max_pool %[[ARG0]] {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x64x112x112xf32>) -> tensor<?x64x56x56xf32>
// CHECK-NEXT:    %[[MAX_POOL_1:.+]] = kiln.max_pool %[[ARG1]] {ceil_mode = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x?x7xi8>) -> tensor<1x3x?x4xi8>
// CHECK-NEXT:    %[[AVG_POOL:.+]] = kiln.avg_pool %[[ARG2]] {count_include_pad = true, dilations = array<i64: 1>, kernel_shape = array<i64: 2>, pads = array<i64: 0, 0>, strides = array<i64: 2>} : (tensor<2x4x10xf32>) -> tensor<2x4x5xf32>
// CHECK-NEXT:    %[[AVG_POOL_1:.+]] = kiln.avg_pool %[[ARG0]] {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<?x64x112x112xf32>) -> tensor<?x64x56x56xf32>
// CHECK-NEXT:    return %[[MAX_POOL]], %[[MAX_POOL_1]], %[[AVG_POOL]], %[[AVG_POOL_1]] : tensor<?x64x56x56xf32>, tensor<1x3x?x4xi8>, tensor<2x4x5xf32>, tensor<?x64x56x56xf32>
func.func @pool(%arg0: tensor<?x64x112x112xf32>, %arg1: tensor<1x3x?x7xi8>, %arg2: tensor<2x4x10xf32>) -> (tensor<?x64x56x56xf32>, tensor<1x3x?x4xi8>, tensor<2x4x5xf32>, tensor<?x64x56x56xf32>) {
  %0 = kiln.max_pool %arg0 {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x64x112x112xf32>) -> tensor<?x64x56x56xf32>
  %1 = kiln.max_pool %arg1 {ceil_mode = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x?x7xi8>) -> tensor<1x3x?x4xi8>
  %2 = kiln.avg_pool %arg2 {count_include_pad = true, dilations = array<i64: 1>, kernel_shape = array<i64: 2>, pads = array<i64: 0, 0>, strides = array<i64: 2>} : (tensor<2x4x10xf32>) -> tensor<2x4x5xf32>
  %3 = kiln.avg_pool %arg0 {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<?x64x112x112xf32>) -> tensor<?x64x56x56xf32>
  return %0, %1, %2, %3 : tensor<?x64x56x56xf32>, tensor<1x3x?x4xi8>, tensor<2x4x5xf32>, tensor<?x64x56x56xf32>
}

// -----

// Tests that the channels_last (NHWC) forms of conv (group 1 with bias, and
// depthwise), batch_norm and max_pool round-trip with their NHWC result types.
// CHECK-LABEL: func.func @channels_last(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<1x8x8x3xf32>, %[[ARG1:[^:]+]]: tensor<4x3x3x3xf32>, %[[ARG2:[^:]+]]: tensor<4xf32>, %[[ARG3:[^:]+]]: tensor<4x3x3x1xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x2x2x4xf32>)
// CHECK-NEXT:    %[[CONV:.+]] = kiln.conv %[[ARG0]], %[[ARG1]], %[[ARG2]] {channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    %[[BATCH_NORM:.+]] = kiln.batch_norm %[[CONV]], %[[ARG2]], %[[ARG2]], %[[ARG2]], %[[ARG2]] {channels_last = true, epsilon = 1.000000e-03 : f32} : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    %[[CONV_1:.+]] = kiln.conv %[[BATCH_NORM]], %[[ARG3]] {channels_last = true, dilations = array<i64: 1, 1>, group = 4 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<4x3x3x1xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    %[[MAX_POOL:.+]] = kiln.max_pool %[[CONV_1]] {channels_last = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>) -> tensor<1x2x2x4xf32>
// CHECK-NEXT:    return %[[BATCH_NORM]], %[[CONV_1]], %[[MAX_POOL]] : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x2x2x4xf32>
func.func @channels_last(%arg0: tensor<1x8x8x3xf32>, %arg1: tensor<4x3x3x3xf32>, %arg2: tensor<4xf32>, %arg3: tensor<4x3x3x1xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x2x2x4xf32>) {
  %0 = kiln.conv %arg0, %arg1, %arg2 {channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %1 = kiln.batch_norm %0, %arg2, %arg2, %arg2, %arg2 {channels_last = true, epsilon = 1.000000e-03 : f32} : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %2 = kiln.conv %1, %arg3 {channels_last = true, dilations = array<i64: 1, 1>, group = 4 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<4x3x3x1xf32>) -> tensor<1x4x4x4xf32>
  %3 = kiln.max_pool %2 {channels_last = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>) -> tensor<1x2x2x4xf32>
  return %1, %2, %3 : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x2x2x4xf32>
}

// -----

// Tests that a channels_last grouped conv (2 groups of 2 channels, filter
// [M, KH, KW, C/G]) and one with a channel multiplier (4 groups, 2 filters
// each) round-trip.
// CHECK-LABEL: func.func @channels_last_grouped(
// CHECK-NEXT:    kiln.conv %{{.+}}, %{{.+}} {channels_last = true, dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<6x3x3x2xf32>) -> tensor<1x6x6x6xf32>
// CHECK-NEXT:    kiln.conv %{{.+}}, %{{.+}} {channels_last = true, dilations = array<i64: 1, 1>, group = 4 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<8x3x3x1xf32>) -> tensor<1x6x6x8xf32>
func.func @channels_last_grouped(%x: tensor<1x8x8x4xf32>, %w: tensor<6x3x3x2xf32>, %d: tensor<8x3x3x1xf32>) -> (tensor<1x6x6x6xf32>, tensor<1x6x6x8xf32>) {
  %0 = kiln.conv %x, %w {channels_last = true, dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<6x3x3x2xf32>) -> tensor<1x6x6x6xf32>
  %1 = kiln.conv %x, %d {channels_last = true, dilations = array<i64: 1, 1>, group = 4 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<8x3x3x1xf32>) -> tensor<1x6x6x8xf32>
  return %0, %1 : tensor<1x6x6x6xf32>, tensor<1x6x6x8xf32>
}

// -----

// Tests that every reduction round-trips with keepdims, without, and with empty axes.
// CHECK-LABEL: func.func @reduce(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x8x16xf32>) -> (tensor<?x1x1xf32>, tensor<?xf32>, tensor<1x8x1xf32>, tensor<8xf32>, tensor<?x8x16xf32>)
// CHECK-NEXT:    %[[REDUCE_SUM:.+]] = kiln.reduce_sum %[[ARG0]] {axes = array<i64: 1, 2>} : (tensor<?x8x16xf32>) -> tensor<?x1x1xf32>
// CHECK-NEXT:    %[[REDUCE_MEAN:.+]] = kiln.reduce_mean %[[ARG0]] {axes = array<i64: 1, 2>, keepdims = false} : (tensor<?x8x16xf32>) -> tensor<?xf32>
// CHECK-NEXT:    %[[REDUCE_MAX:.+]] = kiln.reduce_max %[[ARG0]] {axes = array<i64: 0, 2>} : (tensor<?x8x16xf32>) -> tensor<1x8x1xf32>
// CHECK-NEXT:    %[[REDUCE_MIN:.+]] = kiln.reduce_min %[[ARG0]] {axes = array<i64: 0, 2>, keepdims = false} : (tensor<?x8x16xf32>) -> tensor<8xf32>
// CHECK-NEXT:    %[[REDUCE_PROD:.+]] = kiln.reduce_prod %[[ARG0]] {axes = array<i64>} : (tensor<?x8x16xf32>) -> tensor<?x8x16xf32>
// CHECK-NEXT:    %[[REDUCE_L1:.+]] = kiln.reduce_l1 %[[ARG0]] {axes = array<i64: 1, 2>} : (tensor<?x8x16xf32>) -> tensor<?x1x1xf32>
// CHECK-NEXT:    %[[REDUCE_L2:.+]] = kiln.reduce_l2 %[[ARG0]] {axes = array<i64: 1, 2>} : (tensor<?x8x16xf32>) -> tensor<?x1x1xf32>
// CHECK-NEXT:    %[[REDUCE_LOG_SUM:.+]] = kiln.reduce_log_sum %[[ARG0]] {axes = array<i64: 1, 2>} : (tensor<?x8x16xf32>) -> tensor<?x1x1xf32>
// CHECK-NEXT:    %[[REDUCE_LOG_SUM_EXP:.+]] = kiln.reduce_log_sum_exp %[[ARG0]] {axes = array<i64: 1, 2>} : (tensor<?x8x16xf32>) -> tensor<?x1x1xf32>
// CHECK-NEXT:    %[[REDUCE_SUM_SQUARE:.+]] = kiln.reduce_sum_square %[[ARG0]] {axes = array<i64: 1, 2>} : (tensor<?x8x16xf32>) -> tensor<?x1x1xf32>
// CHECK-NEXT:    return %[[REDUCE_SUM]], %[[REDUCE_MEAN]], %[[REDUCE_MAX]], %[[REDUCE_MIN]], %[[REDUCE_PROD]] : tensor<?x1x1xf32>, tensor<?xf32>, tensor<1x8x1xf32>, tensor<8xf32>, tensor<?x8x16xf32>
func.func @reduce(%arg0: tensor<?x8x16xf32>) -> (tensor<?x1x1xf32>, tensor<?xf32>, tensor<1x8x1xf32>, tensor<8xf32>, tensor<?x8x16xf32>) {
  %0 = kiln.reduce_sum %arg0 {axes = array<i64: 1, 2>} : (tensor<?x8x16xf32>) -> tensor<?x1x1xf32>
  %1 = kiln.reduce_mean %arg0 {axes = array<i64: 1, 2>, keepdims = false} : (tensor<?x8x16xf32>) -> tensor<?xf32>
  %2 = kiln.reduce_max %arg0 {axes = array<i64: 0, 2>} : (tensor<?x8x16xf32>) -> tensor<1x8x1xf32>
  %3 = kiln.reduce_min %arg0 {axes = array<i64: 0, 2>, keepdims = false} : (tensor<?x8x16xf32>) -> tensor<8xf32>
  %4 = kiln.reduce_prod %arg0 {axes = array<i64>} : (tensor<?x8x16xf32>) -> tensor<?x8x16xf32>
  %5 = kiln.reduce_l1 %arg0 {axes = array<i64: 1, 2>} : (tensor<?x8x16xf32>) -> tensor<?x1x1xf32>
  %6 = kiln.reduce_l2 %arg0 {axes = array<i64: 1, 2>} : (tensor<?x8x16xf32>) -> tensor<?x1x1xf32>
  %7 = kiln.reduce_log_sum %arg0 {axes = array<i64: 1, 2>} : (tensor<?x8x16xf32>) -> tensor<?x1x1xf32>
  %8 = kiln.reduce_log_sum_exp %arg0 {axes = array<i64: 1, 2>} : (tensor<?x8x16xf32>) -> tensor<?x1x1xf32>
  %9 = kiln.reduce_sum_square %arg0 {axes = array<i64: 1, 2>} : (tensor<?x8x16xf32>) -> tensor<?x1x1xf32>
  return %0, %1, %2, %3, %4 : tensor<?x1x1xf32>, tensor<?xf32>, tensor<1x8x1xf32>, tensor<8xf32>, tensor<?x8x16xf32>
}

// -----

// Tests that an integer tensor reduces fully to a scalar.
// CHECK-LABEL: func.func @reduce_int(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<4x6xi32>) -> tensor<i32>
// CHECK-NEXT:    %[[REDUCE_SUM:.+]] = kiln.reduce_sum %[[ARG0]] {axes = array<i64: 0, 1>, keepdims = false} : (tensor<4x6xi32>) -> tensor<i32>
// CHECK-NEXT:    return %[[REDUCE_SUM]] : tensor<i32>
func.func @reduce_int(%arg0: tensor<4x6xi32>) -> tensor<i32> {
  %0 = kiln.reduce_sum %arg0 {axes = array<i64: 0, 1>, keepdims = false} : (tensor<4x6xi32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

// Tests that arg_max, arg_min, cumsum and topk round-trip with non-default attributes.
// CHECK-LABEL: func.func @arg_cumsum_topk(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x10xf32>) -> (tensor<?x1xi64>, tensor<?xi64>, tensor<?x10xf32>, tensor<?x3xf32>, tensor<?x3xi64>)
// CHECK-NEXT:    %[[ARG_MAX:.+]] = kiln.arg_max %[[ARG0]] {axis = 1 : i64} : (tensor<?x10xf32>) -> tensor<?x1xi64>
// CHECK-NEXT:    %[[ARG_MIN:.+]] = kiln.arg_min %[[ARG0]] {axis = 1 : i64, keepdims = false, select_last_index = true} : (tensor<?x10xf32>) -> tensor<?xi64>
// CHECK-NEXT:    %[[CUMSUM:.+]] = kiln.cumsum %[[ARG0]] {axis = 1 : i64, exclusive = true, reverse = true} : tensor<?x10xf32>
// CHECK-NEXT:    %[[VALUES:[^,]+]], %[[INDICES:.+]] = kiln.topk %[[ARG0]] {axis = 1 : i64, k = 3 : i64} : (tensor<?x10xf32>) -> (tensor<?x3xf32>, tensor<?x3xi64>)
// CHECK-NEXT:    %[[VALUES_1:[^,]+]], %[[INDICES_1:.+]] = kiln.topk %[[ARG0]] {axis = 0 : i64, k = 2 : i64, largest = false, sorted = false} : (tensor<?x10xf32>) -> (tensor<2x10xf32>, tensor<2x10xi64>)
// CHECK-NEXT:    return %[[ARG_MAX]], %[[ARG_MIN]], %[[CUMSUM]], %[[VALUES]], %[[INDICES]] : tensor<?x1xi64>, tensor<?xi64>, tensor<?x10xf32>, tensor<?x3xf32>, tensor<?x3xi64>
func.func @arg_cumsum_topk(%arg0: tensor<?x10xf32>) -> (tensor<?x1xi64>, tensor<?xi64>, tensor<?x10xf32>, tensor<?x3xf32>, tensor<?x3xi64>) {
  %0 = kiln.arg_max %arg0 {axis = 1 : i64} : (tensor<?x10xf32>) -> tensor<?x1xi64>
  %1 = kiln.arg_min %arg0 {axis = 1 : i64, keepdims = false, select_last_index = true} : (tensor<?x10xf32>) -> tensor<?xi64>
  %2 = kiln.cumsum %arg0 {axis = 1 : i64, exclusive = true, reverse = true} : tensor<?x10xf32>
  %3:2 = kiln.topk %arg0 {axis = 1 : i64, k = 3 : i64} : (tensor<?x10xf32>) -> (tensor<?x3xf32>, tensor<?x3xi64>)
  %4:2 = kiln.topk %arg0 {axis = 0 : i64, k = 2 : i64, largest = false, sorted = false} : (tensor<?x10xf32>) -> (tensor<2x10xf32>, tensor<2x10xi64>)
  return %0, %1, %2, %3#0, %3#1 : tensor<?x1xi64>, tensor<?xi64>, tensor<?x10xf32>, tensor<?x3xf32>, tensor<?x3xi64>
}

// -----

// Tests that kiln.reshape round-trips with 0 and -1 entries, a run-time shape and allowzero.
// CHECK-LABEL: func.func @reshape(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x3x4xf32>, %[[ARG1:[^:]+]]: tensor<2x3x4xf32>, %[[ARG2:[^:]+]]: tensor<3xi64>, %[[ARG3:[^:]+]]: tensor<0x4xf32>) -> (tensor<?x12xf32>, tensor<6x4xf32>, tensor<?x?x?xf32>, tensor<4x0xf32>)
// CHECK-NEXT:    %[[CST:.+]] = kiln.constant dense<[0, -1]> : tensor<2xi64>
// CHECK-NEXT:    %[[RESHAPE:.+]] = kiln.reshape %[[ARG0]], %[[CST]] : (tensor<?x3x4xf32>, tensor<2xi64>) -> tensor<?x12xf32>
// CHECK-NEXT:    %[[CST_1:.+]] = kiln.constant dense<[-1, 4]> : tensor<2xi64>
// CHECK-NEXT:    %[[RESHAPE_1:.+]] = kiln.reshape %[[ARG1]], %[[CST_1]] : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
// CHECK-NEXT:    %[[RESHAPE_2:.+]] = kiln.reshape %[[ARG0]], %[[ARG2]] : (tensor<?x3x4xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
// CHECK-NEXT:    %[[CST_2:.+]] = kiln.constant dense<[4, 0]> : tensor<2xi64>
// CHECK-NEXT:    %[[RESHAPE_3:.+]] = kiln.reshape %[[ARG3]], %[[CST_2]] {allowzero = true} : (tensor<0x4xf32>, tensor<2xi64>) -> tensor<4x0xf32>
// CHECK-NEXT:    return %[[RESHAPE]], %[[RESHAPE_1]], %[[RESHAPE_2]], %[[RESHAPE_3]] : tensor<?x12xf32>, tensor<6x4xf32>, tensor<?x?x?xf32>, tensor<4x0xf32>
func.func @reshape(%arg0: tensor<?x3x4xf32>, %arg1: tensor<2x3x4xf32>, %arg2: tensor<3xi64>, %arg3: tensor<0x4xf32>) -> (tensor<?x12xf32>, tensor<6x4xf32>, tensor<?x?x?xf32>, tensor<4x0xf32>) {
  %0 = kiln.constant dense<[0, -1]> : tensor<2xi64>
  %1 = kiln.reshape %arg0, %0 : (tensor<?x3x4xf32>, tensor<2xi64>) -> tensor<?x12xf32>
  %2 = kiln.constant dense<[-1, 4]> : tensor<2xi64>
  %3 = kiln.reshape %arg1, %2 : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  %4 = kiln.reshape %arg0, %arg2 : (tensor<?x3x4xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %5 = kiln.constant dense<[4, 0]> : tensor<2xi64>
  %6 = kiln.reshape %arg3, %5 {allowzero = true} : (tensor<0x4xf32>, tensor<2xi64>) -> tensor<4x0xf32>
  return %1, %3, %4, %6 : tensor<?x12xf32>, tensor<6x4xf32>, tensor<?x?x?xf32>, tensor<4x0xf32>
}

// -----

// Tests that kiln.flatten (axis 0 and 1) and kiln.transpose round-trip.
// CHECK-LABEL: func.func @flatten_transpose(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x3x4x5xf32>) -> (tensor<?x60xf32>, tensor<1x?xf32>, tensor<?x5x3x4xf32>)
// CHECK-NEXT:    %[[FLATTEN:.+]] = kiln.flatten %[[ARG0]] {axis = 1 : i64} : (tensor<?x3x4x5xf32>) -> tensor<?x60xf32>
// CHECK-NEXT:    %[[FLATTEN_1:.+]] = kiln.flatten %[[ARG0]] {axis = 0 : i64} : (tensor<?x3x4x5xf32>) -> tensor<1x?xf32>
// CHECK-NEXT:    %[[TRANSPOSE:.+]] = kiln.transpose %[[ARG0]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<?x3x4x5xf32>) -> tensor<?x5x3x4xf32>
// CHECK-NEXT:    return %[[FLATTEN]], %[[FLATTEN_1]], %[[TRANSPOSE]] : tensor<?x60xf32>, tensor<1x?xf32>, tensor<?x5x3x4xf32>
func.func @flatten_transpose(%arg0: tensor<?x3x4x5xf32>) -> (tensor<?x60xf32>, tensor<1x?xf32>, tensor<?x5x3x4xf32>) {
  %0 = kiln.flatten %arg0 {axis = 1 : i64} : (tensor<?x3x4x5xf32>) -> tensor<?x60xf32>
  %1 = kiln.flatten %arg0 {axis = 0 : i64} : (tensor<?x3x4x5xf32>) -> tensor<1x?xf32>
  %2 = kiln.transpose %arg0 {perm = array<i64: 0, 3, 1, 2>} : (tensor<?x3x4x5xf32>) -> tensor<?x5x3x4xf32>
  return %0, %1, %2 : tensor<?x60xf32>, tensor<1x?xf32>, tensor<?x5x3x4xf32>
}

// -----

// Tests that kiln.squeeze and kiln.unsqueeze round-trip around a dynamic dim.
// CHECK-LABEL: func.func @squeeze_unsqueeze(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<1x?x1x4xf32>) -> (tensor<?x4xf32>, tensor<1x1x?x1x4x1xf32>, tensor<1x4xf32>)
// CHECK-NEXT:    %[[SQUEEZE:.+]] = kiln.squeeze %[[ARG0]] {axes = array<i64: 0, 2>} : (tensor<1x?x1x4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT:    %[[UNSQUEEZE:.+]] = kiln.unsqueeze %[[ARG0]] {axes = array<i64: 0, 5>} : (tensor<1x?x1x4xf32>) -> tensor<1x1x?x1x4x1xf32>
// CHECK-NEXT:    %[[SQUEEZE_1:.+]] = kiln.squeeze %[[ARG0]] {axes = array<i64: 0, 1, 2>} : (tensor<1x?x1x4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[UNSQUEEZE_1:.+]] = kiln.unsqueeze %[[SQUEEZE_1]] {axes = array<i64: 0>} : (tensor<4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:    return %[[SQUEEZE]], %[[UNSQUEEZE]], %[[UNSQUEEZE_1]] : tensor<?x4xf32>, tensor<1x1x?x1x4x1xf32>, tensor<1x4xf32>
func.func @squeeze_unsqueeze(%arg0: tensor<1x?x1x4xf32>) -> (tensor<?x4xf32>, tensor<1x1x?x1x4x1xf32>, tensor<1x4xf32>) {
  %0 = kiln.squeeze %arg0 {axes = array<i64: 0, 2>} : (tensor<1x?x1x4xf32>) -> tensor<?x4xf32>
  %1 = kiln.unsqueeze %arg0 {axes = array<i64: 0, 5>} : (tensor<1x?x1x4xf32>) -> tensor<1x1x?x1x4x1xf32>
  %2 = kiln.squeeze %arg0 {axes = array<i64: 0, 1, 2>} : (tensor<1x?x1x4xf32>) -> tensor<4xf32>
  %3 = kiln.unsqueeze %2 {axes = array<i64: 0>} : (tensor<4xf32>) -> tensor<1x4xf32>
  return %0, %1, %3 : tensor<?x4xf32>, tensor<1x1x?x1x4x1xf32>, tensor<1x4xf32>
}

// -----

// Tests that kiln.concat (static and dynamic dims) and a 3-way kiln.split round-trip.
// CHECK-LABEL: func.func @concat_split(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x3xf32>, %[[ARG1:[^:]+]]: tensor<?x5xf32>, %[[ARG2:[^:]+]]: tensor<2x3xf32>) -> (tensor<?x8xf32>, tensor<?x3xf32>, tensor<?x2xf32>, tensor<?x6xf32>)
// CHECK-NEXT:    %[[CONCAT:.+]] = kiln.concat %[[ARG0]], %[[ARG1]] {axis = 1 : i64} : (tensor<?x3xf32>, tensor<?x5xf32>) -> tensor<?x8xf32>
// CHECK-NEXT:    %[[CONCAT_1:.+]] = kiln.concat %[[ARG0]], %[[ARG2]] {axis = 0 : i64} : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<?x3xf32>
// CHECK-NEXT:    %[[SPLIT:.+]]:3 = kiln.split %[[CONCAT]] {axis = 1 : i64, sizes = array<i64: 3, 3, 2>} : (tensor<?x8xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x2xf32>)
// CHECK-NEXT:    %[[CONCAT_2:.+]] = kiln.concat %[[SPLIT]]#0, %[[SPLIT]]#1 {axis = 1 : i64} : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x6xf32>
// CHECK-NEXT:    return %[[CONCAT]], %[[CONCAT_1]], %[[SPLIT]]#2, %[[CONCAT_2]] : tensor<?x8xf32>, tensor<?x3xf32>, tensor<?x2xf32>, tensor<?x6xf32>
func.func @concat_split(%arg0: tensor<?x3xf32>, %arg1: tensor<?x5xf32>, %arg2: tensor<2x3xf32>) -> (tensor<?x8xf32>, tensor<?x3xf32>, tensor<?x2xf32>, tensor<?x6xf32>) {
  %0 = kiln.concat %arg0, %arg1 {axis = 1 : i64} : (tensor<?x3xf32>, tensor<?x5xf32>) -> tensor<?x8xf32>
  %1 = kiln.concat %arg0, %arg2 {axis = 0 : i64} : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<?x3xf32>
  %2:3 = kiln.split %0 {axis = 1 : i64, sizes = array<i64: 3, 3, 2>} : (tensor<?x8xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x2xf32>)
  %3 = kiln.concat %2#0, %2#1 {axis = 1 : i64} : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x6xf32>
  return %0, %1, %2#2, %3 : tensor<?x8xf32>, tensor<?x3xf32>, tensor<?x2xf32>, tensor<?x6xf32>
}

// -----

// Tests that kiln.slice round-trips with positive and negative steps and run-time indices.
// CHECK-LABEL: func.func @slice(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x10x8xf32>, %[[ARG1:[^:]+]]: tensor<2xi64>) -> (tensor<?x4x8xf32>, tensor<?x10x3xf32>, tensor<?x?x?xf32>)
// CHECK-NEXT:    %[[CST:.+]] = kiln.constant dense<1> : tensor<1xi64>
// CHECK-NEXT:    %[[CST_1:.+]] = kiln.constant dense<9> : tensor<1xi64>
// CHECK-NEXT:    %[[CST_2:.+]] = kiln.constant dense<2> : tensor<1xi64>
// CHECK-NEXT:    %[[SLICE:.+]] = kiln.slice %[[ARG0]], %[[CST]], %[[CST_1]], %[[CST]], %[[CST_2]] : (tensor<?x10x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x4x8xf32>
// CHECK-NEXT:    %[[CST_3:.+]] = kiln.constant dense<-1> : tensor<1xi64>
// CHECK-NEXT:    %[[CST_4:.+]] = kiln.constant dense<-9223372036854775807> : tensor<1xi64>
// CHECK-NEXT:    %[[CST_5:.+]] = kiln.constant dense<-3> : tensor<1xi64>
// CHECK-NEXT:    %[[SLICE_1:.+]] = kiln.slice %[[ARG0]], %[[CST_3]], %[[CST_4]], %[[CST_2]], %[[CST_5]] : (tensor<?x10x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x10x3xf32>
// CHECK-NEXT:    %[[SLICE_2:.+]] = kiln.slice %[[ARG0]], %[[ARG1]], %[[ARG1]], %[[ARG1]], %[[ARG1]] : (tensor<?x10x8xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?x?xf32>
// CHECK-NEXT:    return %[[SLICE]], %[[SLICE_1]], %[[SLICE_2]] : tensor<?x4x8xf32>, tensor<?x10x3xf32>, tensor<?x?x?xf32>
func.func @slice(%arg0: tensor<?x10x8xf32>, %arg1: tensor<2xi64>) -> (tensor<?x4x8xf32>, tensor<?x10x3xf32>, tensor<?x?x?xf32>) {
  %0 = kiln.constant dense<[1]> : tensor<1xi64>
  %1 = kiln.constant dense<[9]> : tensor<1xi64>
  %2 = kiln.constant dense<[2]> : tensor<1xi64>
  %3 = kiln.slice %arg0, %0, %1, %0, %2 : (tensor<?x10x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x4x8xf32>
  %4 = kiln.constant dense<[-1]> : tensor<1xi64>
  %5 = kiln.constant dense<[-9223372036854775807]> : tensor<1xi64>
  %6 = kiln.constant dense<[-3]> : tensor<1xi64>
  %7 = kiln.slice %arg0, %4, %5, %2, %6 : (tensor<?x10x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x10x3xf32>
  %8 = kiln.slice %arg0, %arg1, %arg1, %arg1, %arg1 : (tensor<?x10x8xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?x?xf32>
  return %3, %7, %8 : tensor<?x4x8xf32>, tensor<?x10x3xf32>, tensor<?x?x?xf32>
}

// -----

// Tests that kiln.gather (2-D and scalar indices) and kiln.gather_elements round-trip.
// CHECK-LABEL: func.func @gather(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x16xf32>, %[[ARG1:[^:]+]]: tensor<2x?xi64>, %[[ARG2:[^:]+]]: tensor<i32>, %[[ARG3:[^:]+]]: tensor<?x16xi32>) -> (tensor<2x?x16xf32>, tensor<?xf32>, tensor<?x16xf32>)
// CHECK-NEXT:    %[[GATHER:.+]] = kiln.gather %[[ARG0]], %[[ARG1]] {axis = 0 : i64} : (tensor<?x16xf32>, tensor<2x?xi64>) -> tensor<2x?x16xf32>
// CHECK-NEXT:    %[[GATHER_1:.+]] = kiln.gather %[[ARG0]], %[[ARG2]] {axis = 1 : i64} : (tensor<?x16xf32>, tensor<i32>) -> tensor<?xf32>
// CHECK-NEXT:    %[[GATHER_ELEMENTS:.+]] = kiln.gather_elements %[[ARG0]], %[[ARG3]] {axis = 1 : i64} : (tensor<?x16xf32>, tensor<?x16xi32>) -> tensor<?x16xf32>
// CHECK-NEXT:    return %[[GATHER]], %[[GATHER_1]], %[[GATHER_ELEMENTS]] : tensor<2x?x16xf32>, tensor<?xf32>, tensor<?x16xf32>
func.func @gather(%arg0: tensor<?x16xf32>, %arg1: tensor<2x?xi64>, %arg2: tensor<i32>, %arg3: tensor<?x16xi32>) -> (tensor<2x?x16xf32>, tensor<?xf32>, tensor<?x16xf32>) {
  %0 = kiln.gather %arg0, %arg1 {axis = 0 : i64} : (tensor<?x16xf32>, tensor<2x?xi64>) -> tensor<2x?x16xf32>
  %1 = kiln.gather %arg0, %arg2 {axis = 1 : i64} : (tensor<?x16xf32>, tensor<i32>) -> tensor<?xf32>
  %2 = kiln.gather_elements %arg0, %arg3 {axis = 1 : i64} : (tensor<?x16xf32>, tensor<?x16xi32>) -> tensor<?x16xf32>
  return %0, %1, %2 : tensor<2x?x16xf32>, tensor<?xf32>, tensor<?x16xf32>
}

// -----

// Tests that kiln.gather_nd (with and without batch dims), kiln.scatter_elements
// and kiln.scatter_nd round-trip; the default reduction is not printed.
// CHECK-LABEL: func.func @gather_nd_scatter(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<2x3x4xf32>, %[[ARG1:[^:]+]]: tensor<5x2xi64>, %[[ARG2:[^:]+]]: tensor<2x1xi32>, %[[ARG3:[^:]+]]: tensor<2x3x4xi64>, %[[ARG4:[^:]+]]: tensor<5x4xf32>) -> (tensor<5x4xf32>, tensor<2x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>)
// CHECK-NEXT:    %[[GATHER_ND:.+]] = kiln.gather_nd %[[ARG0]], %[[ARG1]] : (tensor<2x3x4xf32>, tensor<5x2xi64>) -> tensor<5x4xf32>
// CHECK-NEXT:    %[[GATHER_ND_1:.+]] = kiln.gather_nd %[[ARG0]], %[[ARG2]] {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[SCATTER_ELEMENTS:.+]] = kiln.scatter_elements %[[ARG0]], %[[ARG3]], %[[ARG0]] {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xi64>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    %[[SCATTER_ELEMENTS_1:.+]] = kiln.scatter_elements %[[ARG0]], %[[ARG3]], %[[ARG0]] {axis = 2 : i64, reduction = #kiln.scatter_reduction<max>} : (tensor<2x3x4xf32>, tensor<2x3x4xi64>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    %[[SCATTER_ND:.+]] = kiln.scatter_nd %[[ARG0]], %[[ARG1]], %[[ARG4]] {reduction = #kiln.scatter_reduction<add>} : (tensor<2x3x4xf32>, tensor<5x2xi64>, tensor<5x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    return %[[GATHER_ND]], %[[GATHER_ND_1]], %[[SCATTER_ELEMENTS]], %[[SCATTER_ELEMENTS_1]], %[[SCATTER_ND]]
func.func @gather_nd_scatter(%arg0: tensor<2x3x4xf32>, %arg1: tensor<5x2xi64>, %arg2: tensor<2x1xi32>, %arg3: tensor<2x3x4xi64>, %arg4: tensor<5x4xf32>) -> (tensor<5x4xf32>, tensor<2x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %0 = kiln.gather_nd %arg0, %arg1 : (tensor<2x3x4xf32>, tensor<5x2xi64>) -> tensor<5x4xf32>
  %1 = kiln.gather_nd %arg0, %arg2 {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>
  %2 = kiln.scatter_elements %arg0, %arg3, %arg0 {axis = 1 : i64, reduction = #kiln.scatter_reduction<none>} : (tensor<2x3x4xf32>, tensor<2x3x4xi64>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %3 = kiln.scatter_elements %arg0, %arg3, %arg0 {axis = 2 : i64, reduction = #kiln.scatter_reduction<max>} : (tensor<2x3x4xf32>, tensor<2x3x4xi64>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %4 = kiln.scatter_nd %arg0, %arg1, %arg4 {reduction = #kiln.scatter_reduction<add>} : (tensor<2x3x4xf32>, tensor<5x2xi64>, tensor<5x4xf32>) -> tensor<2x3x4xf32>
  return %0, %1, %2, %3, %4 : tensor<5x4xf32>, tensor<2x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}

// -----

// Tests that kiln.grid_sample round-trips with default and explicit attributes.
// CHECK-LABEL: func.func @grid_sample(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<1x3x8x8xf32>, %[[ARG1:[^:]+]]: tensor<1x4x5x2xf32>) -> (tensor<1x3x4x5xf32>, tensor<1x3x4x5xf32>)
// CHECK-NEXT:    %[[GRID_SAMPLE:.+]] = kiln.grid_sample %[[ARG0]], %[[ARG1]] : (tensor<1x3x8x8xf32>, tensor<1x4x5x2xf32>) -> tensor<1x3x4x5xf32>
// CHECK-NEXT:    %[[GRID_SAMPLE_1:.+]] = kiln.grid_sample %[[ARG0]], %[[ARG1]] {align_corners = true, mode = #kiln.interpolation_mode<cubic>, padding_mode = #kiln.grid_sample_padding_mode<reflection>} : (tensor<1x3x8x8xf32>, tensor<1x4x5x2xf32>) -> tensor<1x3x4x5xf32>
// CHECK-NEXT:    return %[[GRID_SAMPLE]], %[[GRID_SAMPLE_1]]
func.func @grid_sample(%arg0: tensor<1x3x8x8xf32>, %arg1: tensor<1x4x5x2xf32>) -> (tensor<1x3x4x5xf32>, tensor<1x3x4x5xf32>) {
  %0 = kiln.grid_sample %arg0, %arg1 : (tensor<1x3x8x8xf32>, tensor<1x4x5x2xf32>) -> tensor<1x3x4x5xf32>
  %1 = kiln.grid_sample %arg0, %arg1 {align_corners = true, mode = #kiln.interpolation_mode<cubic>, padding_mode = #kiln.grid_sample_padding_mode<reflection>} : (tensor<1x3x8x8xf32>, tensor<1x4x5x2xf32>) -> tensor<1x3x4x5xf32>
  return %0, %1 : tensor<1x3x4x5xf32>, tensor<1x3x4x5xf32>
}

// -----

// Tests that kiln.expand and kiln.tile round-trip with constant and run-time shapes.
// CHECK-LABEL: func.func @expand_tile(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<3x1xf32>, %[[ARG1:[^:]+]]: tensor<3xi64>, %[[ARG2:[^:]+]]: tensor<?x4xf32>) -> (tensor<2x3x5xf32>, tensor<?x3x?xf32>, tensor<?x12xf32>, tensor<?x?xf32>)
// CHECK-NEXT:    %[[CST:.+]] = kiln.constant dense<[2, 1, 5]> : tensor<3xi64>
// CHECK-NEXT:    %[[EXPAND:.+]] = kiln.expand %[[ARG0]], %[[CST]] : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x5xf32>
// CHECK-NEXT:    %[[EXPAND_1:.+]] = kiln.expand %[[ARG0]], %[[ARG1]] : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<?x3x?xf32>
// CHECK-NEXT:    %[[CST_1:.+]] = kiln.constant dense<[2, 3]> : tensor<2xi64>
// CHECK-NEXT:    %[[TILE:.+]] = kiln.tile %[[ARG2]], %[[CST_1]] : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x12xf32>
// CHECK-NEXT:    %[[SHAPE:.+]] = kiln.shape %[[ARG2]] : (tensor<?x4xf32>) -> tensor<2xi64>
// CHECK-NEXT:    %[[TILE_1:.+]] = kiln.tile %[[ARG2]], %[[SHAPE]] : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
// CHECK-NEXT:    return %[[EXPAND]], %[[EXPAND_1]], %[[TILE]], %[[TILE_1]] : tensor<2x3x5xf32>, tensor<?x3x?xf32>, tensor<?x12xf32>, tensor<?x?xf32>
func.func @expand_tile(%arg0: tensor<3x1xf32>, %arg1: tensor<3xi64>, %arg2: tensor<?x4xf32>) -> (tensor<2x3x5xf32>, tensor<?x3x?xf32>, tensor<?x12xf32>, tensor<?x?xf32>) {
  %0 = kiln.constant dense<[2, 1, 5]> : tensor<3xi64>
  %1 = kiln.expand %arg0, %0 : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x5xf32>
  %2 = kiln.expand %arg0, %arg1 : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<?x3x?xf32>
  %3 = kiln.constant dense<[2, 3]> : tensor<2xi64>
  %4 = kiln.tile %arg2, %3 : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x12xf32>
  %5 = kiln.shape %arg2 : (tensor<?x4xf32>) -> tensor<2xi64>
  %6 = kiln.tile %arg2, %5 : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %1, %2, %4, %6 : tensor<2x3x5xf32>, tensor<?x3x?xf32>, tensor<?x12xf32>, tensor<?x?xf32>
}

// -----

// Tests that kiln.pad round-trips with constant reflect pads and run-time pads.
// CHECK-LABEL: func.func @pad(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x3x8x8xf32>, %[[ARG1:[^:]+]]: tensor<8xi64>) -> (tensor<?x3x10x12xf32>, tensor<?x?x?x?xf32>)
// CHECK-NEXT:    %[[CST:.+]] = kiln.constant dense<[0, 0, 1, 2, 0, 0, 1, 2]> : tensor<8xi64>
// CHECK-NEXT:    %[[PAD:.+]] = kiln.pad %[[ARG0]], %[[CST]] {mode = #kiln.pad_mode<reflect>} : (tensor<?x3x8x8xf32>, tensor<8xi64>) -> tensor<?x3x10x12xf32>
// CHECK-NEXT:    %[[PAD_1:.+]] = kiln.pad %[[ARG0]], %[[ARG1]] {value = 1.500000e+00 : f64} : (tensor<?x3x8x8xf32>, tensor<8xi64>) -> tensor<?x?x?x?xf32>
// CHECK-NEXT:    return %[[PAD]], %[[PAD_1]] : tensor<?x3x10x12xf32>, tensor<?x?x?x?xf32>
func.func @pad(%arg0: tensor<?x3x8x8xf32>, %arg1: tensor<8xi64>) -> (tensor<?x3x10x12xf32>, tensor<?x?x?x?xf32>) {
  %0 = kiln.constant dense<[0, 0, 1, 2, 0, 0, 1, 2]> : tensor<8xi64>
  %1 = kiln.pad %arg0, %0 {mode = #kiln.pad_mode<reflect>} : (tensor<?x3x8x8xf32>, tensor<8xi64>) -> tensor<?x3x10x12xf32>
  %2 = kiln.pad %arg0, %arg1 {value = 1.500000e+00 : f64} : (tensor<?x3x8x8xf32>, tensor<8xi64>) -> tensor<?x?x?x?xf32>
  return %1, %2 : tensor<?x3x10x12xf32>, tensor<?x?x?x?xf32>
}

// -----

// Tests that kiln.resize round-trips by scales, by run-time sizes and by constant sizes.
// CHECK-LABEL: func.func @resize(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x3x16x16xf32>, %[[ARG1:[^:]+]]: tensor<4xi64>) -> (tensor<?x3x32x32xf32>, tensor<?x?x?x?xf32>, tensor<1x3x24x8xf32>)
// CHECK-NEXT:    %[[RESIZE:.+]] = kiln.resize %[[ARG0]] {mode = #kiln.interpolation_mode<linear>, scales = array<f32: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>} : (tensor<?x3x16x16xf32>) -> tensor<?x3x32x32xf32>
// CHECK-NEXT:    %[[RESIZE_1:.+]] = kiln.resize %[[ARG0]], %[[ARG1]] {coordinate_transformation_mode = #kiln.coordinate_transformation_mode<asymmetric>, nearest_mode = #kiln.nearest_mode<floor>} : (tensor<?x3x16x16xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
// CHECK-NEXT:    %[[CST:.+]] = kiln.constant dense<[1, 3, 24, 8]> : tensor<4xi64>
// CHECK-NEXT:    %[[RESIZE_2:.+]] = kiln.resize %[[ARG0]], %[[CST]] {cubic_coeff_a = -5.000000e-01 : f32, exclude_outside = true, mode = #kiln.interpolation_mode<cubic>} : (tensor<?x3x16x16xf32>, tensor<4xi64>) -> tensor<1x3x24x8xf32>
// CHECK-NEXT:    return %[[RESIZE]], %[[RESIZE_1]], %[[RESIZE_2]] : tensor<?x3x32x32xf32>, tensor<?x?x?x?xf32>, tensor<1x3x24x8xf32>
func.func @resize(%arg0: tensor<?x3x16x16xf32>, %arg1: tensor<4xi64>) -> (tensor<?x3x32x32xf32>, tensor<?x?x?x?xf32>, tensor<1x3x24x8xf32>) {
  %0 = kiln.resize %arg0 {mode = #kiln.interpolation_mode<linear>, scales = array<f32: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>} : (tensor<?x3x16x16xf32>) -> tensor<?x3x32x32xf32>
  %1 = kiln.resize %arg0, %arg1 {coordinate_transformation_mode = #kiln.coordinate_transformation_mode<asymmetric>, nearest_mode = #kiln.nearest_mode<floor>} : (tensor<?x3x16x16xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  %2 = kiln.constant dense<[1, 3, 24, 8]> : tensor<4xi64>
  %3 = kiln.resize %arg0, %2 {cubic_coeff_a = -5.000000e-01 : f32, exclude_outside = true, mode = #kiln.interpolation_mode<cubic>} : (tensor<?x3x16x16xf32>, tensor<4xi64>) -> tensor<1x3x24x8xf32>
  return %0, %1, %3 : tensor<?x3x32x32xf32>, tensor<?x?x?x?xf32>, tensor<1x3x24x8xf32>
}

// -----

// Tests that kiln.depth_to_space and kiln.space_to_depth round-trip with a dynamic width.
// CHECK-LABEL: func.func @depth_space(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x16x4x?xf32>) -> (tensor<?x4x8x?xf32>, tensor<?x64x2x?xf32>)
// CHECK-NEXT:    %[[DEPTH_TO_SPACE:.+]] = kiln.depth_to_space %[[ARG0]] {blocksize = 2 : i64, mode = #kiln.depth_to_space_mode<CRD>} : (tensor<?x16x4x?xf32>) -> tensor<?x4x8x?xf32>
// CHECK-NEXT:    %[[SPACE_TO_DEPTH:.+]] = kiln.space_to_depth %[[ARG0]] {blocksize = 2 : i64} : (tensor<?x16x4x?xf32>) -> tensor<?x64x2x?xf32>
// CHECK-NEXT:    return %[[DEPTH_TO_SPACE]], %[[SPACE_TO_DEPTH]] : tensor<?x4x8x?xf32>, tensor<?x64x2x?xf32>
func.func @depth_space(%arg0: tensor<?x16x4x?xf32>) -> (tensor<?x4x8x?xf32>, tensor<?x64x2x?xf32>) {
  %0 = kiln.depth_to_space %arg0 {blocksize = 2 : i64, mode = #kiln.depth_to_space_mode<CRD>} : (tensor<?x16x4x?xf32>) -> tensor<?x4x8x?xf32>
  %1 = kiln.space_to_depth %arg0 {blocksize = 2 : i64} : (tensor<?x16x4x?xf32>) -> tensor<?x64x2x?xf32>
  return %0, %1 : tensor<?x4x8x?xf32>, tensor<?x64x2x?xf32>
}

// -----

// Tests that kiln.shape (whole and a [start, end) range) and kiln.size round-trip.
// CHECK-LABEL: func.func @shape_size(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x3x?xf32>) -> (tensor<3xi64>, tensor<1xi64>, tensor<i64>)
// CHECK-NEXT:    %[[SHAPE:.+]] = kiln.shape %[[ARG0]] : (tensor<?x3x?xf32>) -> tensor<3xi64>
// CHECK-NEXT:    %[[SHAPE_1:.+]] = kiln.shape %[[ARG0]] {end = -1 : i64, start = 1 : i64} : (tensor<?x3x?xf32>) -> tensor<1xi64>
// CHECK-NEXT:    %[[SIZE:.+]] = kiln.size %[[ARG0]] : (tensor<?x3x?xf32>) -> tensor<i64>
// CHECK-NEXT:    return %[[SHAPE]], %[[SHAPE_1]], %[[SIZE]] : tensor<3xi64>, tensor<1xi64>, tensor<i64>
func.func @shape_size(%arg0: tensor<?x3x?xf32>) -> (tensor<3xi64>, tensor<1xi64>, tensor<i64>) {
  %0 = kiln.shape %arg0 : (tensor<?x3x?xf32>) -> tensor<3xi64>
  %1 = kiln.shape %arg0 {end = -1 : i64, start = 1 : i64} : (tensor<?x3x?xf32>) -> tensor<1xi64>
  %2 = kiln.size %arg0 : (tensor<?x3x?xf32>) -> tensor<i64>
  return %0, %1, %2 : tensor<3xi64>, tensor<1xi64>, tensor<i64>
}

// -----

// Tests that kiln.constant_of_shape and kiln.range round-trip with run-time and constant operands.
// CHECK-LABEL: func.func @constant_of_shape_range(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<3xi64>, %[[ARG1:[^:]+]]: tensor<f32>, %[[ARG2:[^:]+]]: tensor<i64>) -> (tensor<?x?x?xf32>, tensor<2x3xi64>, tensor<?xf32>, tensor<5xi64>)
// CHECK-NEXT:    %[[CONSTANT_OF_SHAPE:.+]] = kiln.constant_of_shape %[[ARG0]] {value = dense<0.000000e+00> : tensor<1xf32>} : (tensor<3xi64>) -> tensor<?x?x?xf32>
// CHECK-NEXT:    %[[CST:.+]] = kiln.constant dense<[2, 3]> : tensor<2xi64>
// CHECK-NEXT:    %[[CONSTANT_OF_SHAPE_1:.+]] = kiln.constant_of_shape %[[CST]] {value = dense<7> : tensor<1xi64>} : (tensor<2xi64>) -> tensor<2x3xi64>
// CHECK-NEXT:    %[[RANGE:.+]] = kiln.range %[[ARG1]], %[[ARG1]], %[[ARG1]] : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
// CHECK-NEXT:    %[[CST_1:.+]] = kiln.constant dense<0> : tensor<i64>
// CHECK-NEXT:    %[[CST_2:.+]] = kiln.constant dense<10> : tensor<i64>
// CHECK-NEXT:    %[[CST_3:.+]] = kiln.constant dense<2> : tensor<i64>
// CHECK-NEXT:    %[[RANGE_1:.+]] = kiln.range %[[CST_1]], %[[CST_2]], %[[CST_3]] : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<5xi64>
// CHECK-NEXT:    return %[[CONSTANT_OF_SHAPE]], %[[CONSTANT_OF_SHAPE_1]], %[[RANGE]], %[[RANGE_1]] : tensor<?x?x?xf32>, tensor<2x3xi64>, tensor<?xf32>, tensor<5xi64>
func.func @constant_of_shape_range(%arg0: tensor<3xi64>, %arg1: tensor<f32>, %arg2: tensor<i64>) -> (tensor<?x?x?xf32>, tensor<2x3xi64>, tensor<?xf32>, tensor<5xi64>) {
  %0 = kiln.constant_of_shape %arg0 {value = dense<0.000000e+00> : tensor<1xf32>} : (tensor<3xi64>) -> tensor<?x?x?xf32>
  %1 = kiln.constant dense<[2, 3]> : tensor<2xi64>
  %2 = kiln.constant_of_shape %1 {value = dense<7> : tensor<1xi64>} : (tensor<2xi64>) -> tensor<2x3xi64>
  %3 = kiln.range %arg1, %arg1, %arg1 : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
  %4 = kiln.constant dense<0> : tensor<i64>
  %5 = kiln.constant dense<10> : tensor<i64>
  %6 = kiln.constant dense<2> : tensor<i64>
  %7 = kiln.range %4, %5, %6 : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<5xi64>
  return %0, %2, %3, %7 : tensor<?x?x?xf32>, tensor<2x3xi64>, tensor<?xf32>, tensor<5xi64>
}

// -----

// Tests that per-tensor and per-axis quantize_linear and dequantize_linear round-trip.
// CHECK-LABEL: func.func @quantization(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x64xf32>, %[[ARG1:[^:]+]]: tensor<f32>, %[[ARG2:[^:]+]]: tensor<ui8>, %[[ARG3:[^:]+]]: tensor<64xf32>, %[[ARG4:[^:]+]]: tensor<64xi8>) -> (tensor<?x64xui8>, tensor<?x64xf32>, tensor<?x64xi8>)
// CHECK-NEXT:    %[[QUANTIZE_LINEAR:.+]] = kiln.quantize_linear %[[ARG0]], %[[ARG1]], %[[ARG2]] : (tensor<?x64xf32>, tensor<f32>, tensor<ui8>) -> tensor<?x64xui8>
// CHECK-NEXT:    %[[DEQUANTIZE_LINEAR:.+]] = kiln.dequantize_linear %[[QUANTIZE_LINEAR]], %[[ARG1]], %[[ARG2]] : (tensor<?x64xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x64xf32>
// CHECK-NEXT:    %[[QUANTIZE_LINEAR_1:.+]] = kiln.quantize_linear %[[DEQUANTIZE_LINEAR]], %[[ARG3]], %[[ARG4]] {saturate = false} : (tensor<?x64xf32>, tensor<64xf32>, tensor<64xi8>) -> tensor<?x64xi8>
// CHECK-NEXT:    %[[DEQUANTIZE_LINEAR_1:.+]] = kiln.dequantize_linear %[[QUANTIZE_LINEAR_1]], %[[ARG3]], %[[ARG4]] : (tensor<?x64xi8>, tensor<64xf32>, tensor<64xi8>) -> tensor<?x64xf32>
// CHECK-NEXT:    return %[[QUANTIZE_LINEAR]], %[[DEQUANTIZE_LINEAR_1]], %[[QUANTIZE_LINEAR_1]] : tensor<?x64xui8>, tensor<?x64xf32>, tensor<?x64xi8>
func.func @quantization(%arg0: tensor<?x64xf32>, %arg1: tensor<f32>, %arg2: tensor<ui8>, %arg3: tensor<64xf32>, %arg4: tensor<64xi8>) -> (tensor<?x64xui8>, tensor<?x64xf32>, tensor<?x64xi8>) {
  %0 = kiln.quantize_linear %arg0, %arg1, %arg2 : (tensor<?x64xf32>, tensor<f32>, tensor<ui8>) -> tensor<?x64xui8>
  %1 = kiln.dequantize_linear %0, %arg1, %arg2 : (tensor<?x64xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x64xf32>
  %2 = kiln.quantize_linear %1, %arg3, %arg4 {axis = 1 : i64, saturate = false} : (tensor<?x64xf32>, tensor<64xf32>, tensor<64xi8>) -> tensor<?x64xi8>
  %3 = kiln.dequantize_linear %2, %arg3, %arg4 {axis = 1 : i64} : (tensor<?x64xi8>, tensor<64xf32>, tensor<64xi8>) -> tensor<?x64xf32>
  return %0, %3, %2 : tensor<?x64xui8>, tensor<?x64xf32>, tensor<?x64xi8>
}

// -----

// Tests that qlinear_conv, conv_integer, qlinear_matmul and matmul_integer round-trip.
// CHECK-LABEL: func.func @quantized_compute(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<1x8x16x16xui8>, %[[ARG1:[^:]+]]: tensor<f32>, %[[ARG2:[^:]+]]: tensor<ui8>, %[[ARG3:[^:]+]]: tensor<16x8x3x3xi8>, %[[ARG4:[^:]+]]: tensor<16xf32>, %[[ARG5:[^:]+]]: tensor<16xi8>, %[[ARG6:[^:]+]]: tensor<16xi32>, %[[ARG7:[^:]+]]: tensor<?x32xi8>, %[[ARG8:[^:]+]]: tensor<i8>, %[[ARG9:[^:]+]]: tensor<32x8xi8>) -> (tensor<1x16x14x14xui8>, tensor<1x16x16x16xi32>, tensor<?x8xi8>, tensor<?x8xi32>)
// CHECK-NEXT:    %[[QLINEAR_CONV:.+]] = kiln.qlinear_conv %[[ARG0]], %[[ARG1]], %[[ARG2]], %[[ARG3]], %[[ARG4]], %[[ARG5]], %[[ARG1]], %[[ARG2]], %[[ARG6]] {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x16x16xui8>, tensor<f32>, tensor<ui8>, tensor<16x8x3x3xi8>, tensor<16xf32>, tensor<16xi8>, tensor<f32>, tensor<ui8>, tensor<16xi32>) -> tensor<1x16x14x14xui8>
// CHECK-NEXT:    %[[CONV_INTEGER:.+]] = kiln.conv_integer %[[ARG0]], %[[ARG3]], %[[ARG2]], %[[ARG8]] {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x16x16xui8>, tensor<16x8x3x3xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x16x16x16xi32>
// CHECK-NEXT:    %[[QLINEAR_MATMUL:.+]] = kiln.qlinear_matmul %[[ARG7]], %[[ARG1]], %[[ARG8]], %[[ARG9]], %[[ARG1]], %[[ARG8]], %[[ARG1]], %[[ARG8]] : (tensor<?x32xi8>, tensor<f32>, tensor<i8>, tensor<32x8xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<i8>) -> tensor<?x8xi8>
// CHECK-NEXT:    %[[MATMUL_INTEGER:.+]] = kiln.matmul_integer %[[ARG7]], %[[ARG9]], %[[ARG8]], %[[ARG8]] : (tensor<?x32xi8>, tensor<32x8xi8>, tensor<i8>, tensor<i8>) -> tensor<?x8xi32>
// CHECK-NEXT:    return %[[QLINEAR_CONV]], %[[CONV_INTEGER]], %[[QLINEAR_MATMUL]], %[[MATMUL_INTEGER]] : tensor<1x16x14x14xui8>, tensor<1x16x16x16xi32>, tensor<?x8xi8>, tensor<?x8xi32>
func.func @quantized_compute(%arg0: tensor<1x8x16x16xui8>, %arg1: tensor<f32>, %arg2: tensor<ui8>, %arg3: tensor<16x8x3x3xi8>, %arg4: tensor<16xf32>, %arg5: tensor<16xi8>, %arg6: tensor<16xi32>, %arg7: tensor<?x32xi8>, %arg8: tensor<i8>, %arg9: tensor<32x8xi8>) -> (tensor<1x16x14x14xui8>, tensor<1x16x16x16xi32>, tensor<?x8xi8>, tensor<?x8xi32>) {
  %0 = kiln.qlinear_conv %arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg1, %arg2, %arg6 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x16x16xui8>, tensor<f32>, tensor<ui8>, tensor<16x8x3x3xi8>, tensor<16xf32>, tensor<16xi8>, tensor<f32>, tensor<ui8>, tensor<16xi32>) -> tensor<1x16x14x14xui8>
  %1 = kiln.conv_integer %arg0, %arg3, %arg2, %arg8 {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x16x16xui8>, tensor<16x8x3x3xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x16x16x16xi32>
  %2 = kiln.qlinear_matmul %arg7, %arg1, %arg8, %arg9, %arg1, %arg8, %arg1, %arg8 : (tensor<?x32xi8>, tensor<f32>, tensor<i8>, tensor<32x8xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<i8>) -> tensor<?x8xi8>
  %3 = kiln.matmul_integer %arg7, %arg9, %arg8, %arg8 : (tensor<?x32xi8>, tensor<32x8xi8>, tensor<i8>, tensor<i8>) -> tensor<?x8xi32>
  return %0, %1, %2, %3 : tensor<1x16x14x14xui8>, tensor<1x16x16x16xi32>, tensor<?x8xi8>, tensor<?x8xi32>
}

// -----

// Tests that a negative-step kiln.slice over an empty dim infers an empty result.
// CHECK-LABEL: func.func @slice_negative_step_empty_dim(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<0x10xf32>) -> tensor<0x10xf32>
// CHECK-NEXT:    %[[CST:.+]] = kiln.constant dense<-1> : tensor<1xi64>
// CHECK-NEXT:    %[[CST_1:.+]] = kiln.constant dense<-10> : tensor<1xi64>
// CHECK-NEXT:    %[[CST_2:.+]] = kiln.constant dense<0> : tensor<1xi64>
// CHECK-NEXT:    %[[SLICE:.+]] = kiln.slice %[[ARG0]], %[[CST]], %[[CST_1]], %[[CST_2]], %[[CST]] : (tensor<0x10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<0x10xf32>
// CHECK-NEXT:    return %[[SLICE]] : tensor<0x10xf32>
func.func @slice_negative_step_empty_dim(%arg0: tensor<0x10xf32>) -> tensor<0x10xf32> {
  %0 = kiln.constant dense<-1> : tensor<1xi64>
  %1 = kiln.constant dense<-10> : tensor<1xi64>
  %2 = kiln.constant dense<0> : tensor<1xi64>
  %3 = kiln.slice %arg0, %0, %1, %2, %0 : (tensor<0x10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<0x10xf32>
  return %3 : tensor<0x10xf32>
}

// -----

// Tests that conv and pools keep a run-time SAME auto_pad: static spatial dims
// become ceil(in / stride).
// CHECK-LABEL: func.func @same_auto_pad(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<1x3x?x?xf32>, %[[ARG1:[^:]+]]: tensor<4x3x3x3xf32>, %[[ARG2:[^:]+]]: tensor<1x3x?x9xf32>)
// CHECK-NEXT:    %[[CONV:.+]] = kiln.conv %[[ARG0]], %[[ARG1]] {auto_pad = #kiln.auto_pad<SAME_LOWER>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x?x?xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x?x?xf32>
// CHECK-NEXT:    %[[CONV_1:.+]] = kiln.conv %[[ARG2]], %[[ARG1]] {auto_pad = #kiln.auto_pad<SAME_UPPER>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x?x9xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x?x5xf32>
// CHECK-NEXT:    %[[MAX_POOL:.+]] = kiln.max_pool %[[ARG2]] {auto_pad = #kiln.auto_pad<SAME_UPPER>, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x?x9xf32>) -> tensor<1x3x?x5xf32>
// CHECK-NEXT:    %[[AVG_POOL:.+]] = kiln.avg_pool %[[ARG2]] {auto_pad = #kiln.auto_pad<SAME_LOWER>, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 3, 3>} : (tensor<1x3x?x9xf32>) -> tensor<1x3x?x3xf32>
// CHECK-NEXT:    return %[[CONV]], %[[CONV_1]], %[[MAX_POOL]], %[[AVG_POOL]]
func.func @same_auto_pad(%arg0: tensor<1x3x?x?xf32>, %arg1: tensor<4x3x3x3xf32>, %arg2: tensor<1x3x?x9xf32>) -> (tensor<1x4x?x?xf32>, tensor<1x4x?x5xf32>, tensor<1x3x?x5xf32>, tensor<1x3x?x3xf32>) {
  %0 = kiln.conv %arg0, %arg1 {auto_pad = #kiln.auto_pad<SAME_LOWER>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x?x?xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x?x?xf32>
  %1 = kiln.conv %arg2, %arg1 {auto_pad = #kiln.auto_pad<SAME_UPPER>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x?x9xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x?x5xf32>
  %2 = kiln.max_pool %arg2 {auto_pad = #kiln.auto_pad<SAME_UPPER>, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x?x9xf32>) -> tensor<1x3x?x5xf32>
  %3 = kiln.avg_pool %arg2 {auto_pad = #kiln.auto_pad<SAME_LOWER>, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 3, 3>} : (tensor<1x3x?x9xf32>) -> tensor<1x3x?x3xf32>
  return %0, %1, %2, %3 : tensor<1x4x?x?xf32>, tensor<1x4x?x5xf32>, tensor<1x3x?x5xf32>, tensor<1x3x?x3xf32>
}

// -----

// Tests that a SAME-padded conv accepts a static spatial dim smaller than the
// kernel (ONNX pads it: in 2, kernel 3, stride 2 gives 1).
// CHECK-LABEL: func.func @same_auto_pad_small_dim(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<1x3x?x2xf32>, %[[ARG1:[^:]+]]: tensor<4x3x3x3xf32>)
// CHECK-NEXT:    %[[CONV:.+]] = kiln.conv %[[ARG0]], %[[ARG1]] {auto_pad = #kiln.auto_pad<SAME_UPPER>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x?x2xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x?x1xf32>
// CHECK-NEXT:    %[[MAX_POOL:.+]] = kiln.max_pool %[[ARG0]] {auto_pad = #kiln.auto_pad<SAME_UPPER>, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x?x2xf32>) -> tensor<1x3x?x1xf32>
// CHECK-NEXT:    return %[[CONV]], %[[MAX_POOL]]
func.func @same_auto_pad_small_dim(%arg0: tensor<1x3x?x2xf32>, %arg1: tensor<4x3x3x3xf32>) -> (tensor<1x4x?x1xf32>, tensor<1x3x?x1xf32>) {
  %0 = kiln.conv %arg0, %arg1 {auto_pad = #kiln.auto_pad<SAME_UPPER>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x?x2xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x?x1xf32>
  %1 = kiln.max_pool %arg0 {auto_pad = #kiln.auto_pad<SAME_UPPER>, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x?x2xf32>) -> tensor<1x3x?x1xf32>
  return %0, %1 : tensor<1x4x?x1xf32>, tensor<1x3x?x1xf32>
}
