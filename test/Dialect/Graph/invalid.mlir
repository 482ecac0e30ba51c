// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// Verifier and result-type-inference errors of the kiln ops. An inference
// error comes with a second "failed to infer returned types" error.

//===----------------------------------------------------------------------===//
// Constants and elementwise
//===----------------------------------------------------------------------===//

// Tests that kiln.constant rejects a result type other than its value's.
func.func @constant_type_mismatch() {
  // expected-error @+1 {{expected the result type to be the value's type 'tensor<2xf32>', got 'tensor<3xf32>'}}
  %0 = "kiln.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>
  return
}

// -----

// Tests that float-only unary ops reject integer tensors.
func.func @sigmoid_integer(%arg0: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %0 = kiln.sigmoid %arg0 : tensor<4xi32>
  return
}

// -----

// Tests that unary ops require the result type to equal the operand type.
func.func @relu_type_mismatch(%arg0: tensor<4xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<?xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "kiln.relu"(%arg0) : (tensor<4xf32>) -> tensor<?xf32>
  return
}

// -----

// Tests that kiln.gelu rejects an unknown approximation.
func.func @gelu_bad_approximate(%arg0: tensor<4xf32>) {
  // expected-error @+2 {{expected ::kiln::graph::GeluApproximation to be one of: none, tanh}}
  // expected-error @+1 {{failed to parse Graph_GeluApproximationAttr parameter 'value'}}
  %0 = kiln.gelu %arg0 {approximate = #kiln.gelu_approximation<fast>} : tensor<4xf32>
  return
}

// -----

// Tests that kiln.is_nan infers an i1 result of the input's shape.
func.func @is_nan_wrong_shape(%arg0: tensor<4xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4xi1>' are incompatible with return type(s) of operation 'tensor<5xi1>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.is_nan %arg0 : tensor<4xf32> -> tensor<5xi1>
  return
}

// -----

// Tests that kiln.is_inf rejects a non-i1 result.
func.func @is_inf_not_bool(%arg0: tensor<4xf32>) {
  // expected-error @+1 {{result #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = kiln.is_inf %arg0 : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

// Tests that kiln.cast keeps the shape.
func.func @cast_shape_mismatch(%arg0: tensor<2x3xf32>) {
  // expected-error @+1 {{expected input and result shapes to match, got 'tensor<2x3xf32>' and 'tensor<3x2xf16>'}}
  %0 = kiln.cast %arg0 : tensor<2x3xf32> -> tensor<3x2xf16>
  return
}

// -----

// Tests that kiln.bit_shift accepts only LEFT and RIGHT.
func.func @bit_shift_bad_direction(%arg0: tensor<4xui8>) {
  // expected-error @+2 {{expected ::kiln::graph::BitShiftDirection to be one of: LEFT, RIGHT}}
  // expected-error @+1 {{failed to parse Graph_BitShiftDirectionAttr parameter 'value'}}
  %0 = kiln.bit_shift %arg0, %arg0 {direction = #kiln.bit_shift_direction<left>} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return
}

// -----

// Tests that kiln.add rejects operands that do not broadcast.
func.func @add_not_broadcastable(%arg0: tensor<2x3xf32>, %arg1: tensor<4xf32>) {
  // expected-error @+2 {{operand shapes are not broadcastable: tensor<2x3xf32> vs tensor<4xf32>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.add %arg0, %arg1 : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that a static dim of broadcasting ops may not contradict the inferred one.
func.func @add_result_contradicts_inference(%arg0: tensor<2x1xf32>, %arg1: tensor<3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<2x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.add %arg0, %arg1 : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  return
}

// -----

// Tests that a broadcast result may not have a different rank.
func.func @mul_result_rank(%arg0: tensor<?x3xf32>, %arg1: tensor<3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<?x3xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.mul %arg0, %arg1 : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// Tests that arithmetic ops need one element type on both operands.
func.func @sub_element_type_mismatch(%arg0: tensor<4xf32>, %arg1: tensor<4xf16>) {
  // expected-error @+1 {{failed to verify that all of {lhs, rhs} have same element type}}
  %0 = kiln.sub %arg0, %arg1 : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

// Tests that comparisons return i1.
func.func @less_not_bool(%arg0: tensor<4xf32>) {
  // expected-error @+1 {{result #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = kiln.less %arg0, %arg0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that comparisons reject operands that do not broadcast.
func.func @equal_not_broadcastable(%arg0: tensor<3xi64>, %arg1: tensor<2xi64>) {
  // expected-error @+2 {{operand shapes are not broadcastable}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.equal %arg0, %arg1 : (tensor<3xi64>, tensor<2xi64>) -> tensor<3xi1>
  return
}

// -----

// Tests that logical ops take i1 operands.
func.func @and_not_bool(%arg0: tensor<4xi8>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = kiln.and %arg0, %arg0 : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi1>
  return
}

// -----

// Tests that the bitwise ops reject floats.
func.func @bitwise_and_float(%arg0: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of}}
  %0 = kiln.bitwise_and %arg0, %arg0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that the PReLU slope must broadcast to the input (unidirectionally).
func.func @prelu_slope_not_broadcastable(%arg0: tensor<2x3xf32>, %arg1: tensor<2x1x3xf32>) {
  // expected-error @+2 {{slope 'tensor<2x1x3xf32>' does not broadcast to input 'tensor<2x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.prelu %arg0, %arg1 : (tensor<2x3xf32>, tensor<2x1x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that kiln.where broadcasts the condition with both values.
func.func @where_not_broadcastable(%arg0: tensor<5xi1>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>) {
  // expected-error @+2 {{operand shapes are not broadcastable: tensor<5xi1> vs tensor<4xf32> vs tensor<4xf32>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.where %arg0, %arg1, %arg2 : (tensor<5xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that the kiln.where values share one element type.
func.func @where_element_type_mismatch(%arg0: tensor<4xi1>, %arg1: tensor<4xf32>, %arg2: tensor<4xi32>) {
  // expected-error @+1 {{failed to verify that all of {lhs, rhs, output} have same element type}}
  %0 = kiln.where %arg0, %arg1, %arg2 : (tensor<4xi1>, tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Linear algebra and convolution
//===----------------------------------------------------------------------===//

// Tests that kiln.matmul rejects mismatched contraction dims.
func.func @matmul_contraction_mismatch(%arg0: tensor<2x3xf32>, %arg1: tensor<4x5xf32>) {
  // expected-error @+2 {{incompatible matmul operands 'tensor<2x3xf32>' x 'tensor<4x5xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.matmul %arg0, %arg1 : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

// Tests that kiln.matmul rejects batch dims that do not broadcast.
func.func @matmul_batch_mismatch(%arg0: tensor<2x4x3xf32>, %arg1: tensor<5x3x6xf32>) {
  // expected-error @+2 {{incompatible matmul operands}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.matmul %arg0, %arg1 : (tensor<2x4x3xf32>, tensor<5x3x6xf32>) -> tensor<2x4x6xf32>
  return
}

// -----

// Tests that kiln.matmul rejects scalar operands.
func.func @matmul_scalar(%arg0: tensor<f32>, %arg1: tensor<3xf32>) {
  // expected-error @+2 {{incompatible matmul operands}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.matmul %arg0, %arg1 : (tensor<f32>, tensor<3xf32>) -> tensor<f32>
  return
}

// -----

// Tests that the 1-D promoted dims are dropped from the matmul result.
func.func @matmul_vector_result(%arg0: tensor<3xf32>, %arg1: tensor<3x4xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<1x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.matmul %arg0, %arg1 : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<1x4xf32>
  return
}

// -----

// Tests that kiln.gemm takes 2-D A and B.
func.func @gemm_not_2d(%arg0: tensor<2x2x3xf32>, %arg1: tensor<3x4xf32>) {
  // expected-error @+1 {{expected 2-D A and B, got 'tensor<2x2x3xf32>' and 'tensor<3x4xf32>'}}
  %0 = kiln.gemm %arg0, %arg1 : (tensor<2x2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// Tests that kiln.gemm checks the contraction dims after the transposes.
func.func @gemm_contraction_mismatch(%arg0: tensor<3x2xf32>, %arg1: tensor<3x4xf32>) {
  // expected-error @+2 {{contraction dims differ: 2 vs 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.gemm %arg0, %arg1 : (tensor<3x2xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

// Tests that kiln.gemm requires C to broadcast to [M, N].
func.func @gemm_c_not_broadcastable(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xf32>, %arg2: tensor<3xf32>) {
  // expected-error @+2 {{C 'tensor<3xf32>' does not broadcast to [M, N]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.gemm %arg0, %arg1, %arg2 : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  return
}

// -----

// Tests that kiln.gemm rejects a C of rank 3.
func.func @gemm_c_rank(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xf32>, %arg2: tensor<1x2x4xf32>) {
  // expected-error @+1 {{expected C of rank <= 2, got 'tensor<1x2x4xf32>'}}
  %0 = kiln.gemm %arg0, %arg1, %arg2 : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<1x2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// Tests that kiln.conv needs input and filter of one rank >= 3.
func.func @conv_rank(%arg0: tensor<1x3x8x8xf32>, %arg1: tensor<4x3x3xf32>) {
  // expected-error @+1 {{expected input and filter of equal rank >= 3, got 'tensor<1x3x8x8xf32>' and 'tensor<4x3x3xf32>'}}
  %0 = kiln.conv %arg0, %arg1 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that kiln.conv needs one stride and dilation per spatial dim and two pads.
func.func @conv_window_attr_sizes(%arg0: tensor<1x3x8x8xf32>, %arg1: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{expected 2 strides, 2 dilations and 4 pads for 2 spatial dims, got 1, 2 and 4}}
  %0 = kiln.conv %arg0, %arg1 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that kiln.conv rejects a zero stride.
func.func @conv_zero_stride(%arg0: tensor<1x3x8x8xf32>, %arg1: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{expected positive strides and dilations}}
  %0 = kiln.conv %arg0, %arg1 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 0, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x?x6xf32>
  return
}

// -----

// Tests that kiln.conv rejects negative pads.
func.func @conv_negative_pads(%arg0: tensor<1x3x8x8xf32>, %arg1: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{expected non-negative pads}}
  %0 = kiln.conv %arg0, %arg1 {dilations = array<i64: 1, 1>, pads = array<i64: 0, -1, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x5xf32>
  return
}

// -----

// Tests that kiln.conv rejects a group below 1.
func.func @conv_group_zero(%arg0: tensor<1x3x8x8xf32>, %arg1: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{expected group >= 1, got 0}}
  %0 = kiln.conv %arg0, %arg1 {dilations = array<i64: 1, 1>, group = 0 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that kiln.conv checks input channels = filter channels x group.
func.func @conv_channel_mismatch(%arg0: tensor<1x6x8x8xf32>, %arg1: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{expected input channels (6) = filter channels (2) x group (2)}}
  %0 = kiln.conv %arg0, %arg1 {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x6x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that kiln.conv checks that the output channels divide by the group.
func.func @conv_output_channels_group(%arg0: tensor<1x4x8x8xf32>, %arg1: tensor<3x2x3x3xf32>) {
  // expected-error @+1 {{expected output channels (3) divisible by group (2)}}
  %0 = kiln.conv %arg0, %arg1 {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x6x6xf32>
  return
}

// -----

// Tests that the kiln.conv bias has one element per output channel.
func.func @conv_bias_shape(%arg0: tensor<1x3x8x8xf32>, %arg1: tensor<4x3x3x3xf32>, %arg2: tensor<3xf32>) {
  // expected-error @+1 {{expected bias of shape [4], got 'tensor<3xf32>'}}
  %0 = kiln.conv %arg0, %arg1, %arg2 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that kiln.conv rejects a window larger than the padded input.
func.func @conv_window_does_not_fit(%arg0: tensor<1x3x2x8xf32>, %arg1: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{convolution window does not fit 'tensor<1x3x2x8xf32>' with filter 'tensor<4x3x3x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.conv %arg0, %arg1 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x2x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x1x6xf32>
  return
}

// -----

// Tests that the kiln.conv result spatial size follows from stride, pad and dilation.
func.func @conv_result_contradicts_inference(%arg0: tensor<1x3x8x8xf32>, %arg1: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x4x4x4xf32>' are incompatible with return type(s) of operation 'tensor<1x4x3x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.conv %arg0, %arg1 {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x3x3xf32>
  return
}

// -----

// Tests that kiln.conv accepts only the auto_pad values the importer keeps.
func.func @conv_bad_auto_pad(%arg0: tensor<1x3x?x8xf32>, %arg1: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{expected ::kiln::graph::AutoPad to be one of: NOTSET, SAME_UPPER, SAME_LOWER}}
  // expected-error @+1 {{failed to parse Graph_AutoPadAttr parameter 'value'}}
  %0 = kiln.conv %arg0, %arg1 {auto_pad = #kiln.auto_pad<VALID>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x?x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x?x6xf32>
  return
}

// -----

// Tests that kiln.conv with a SAME auto_pad has zero explicit pads.
func.func @conv_auto_pad_with_pads(%arg0: tensor<1x3x?x8xf32>, %arg1: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{expected zero pads with auto_pad SAME_UPPER}}
  %0 = kiln.conv %arg0, %arg1 {auto_pad = #kiln.auto_pad<SAME_UPPER>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x?x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x?x4xf32>
  return
}

// -----

// Tests that a SAME-padded kiln.conv has ceil(in / stride) outputs per static dim.
func.func @conv_auto_pad_result(%arg0: tensor<1x3x?x9xf32>, %arg1: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x4x?x5xf32>' are incompatible with return type(s) of operation 'tensor<1x4x?x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.conv %arg0, %arg1 {auto_pad = #kiln.auto_pad<SAME_LOWER>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x?x9xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x?x4xf32>
  return
}

// -----

// Tests that a channels_last grouped kiln.conv still needs C = filter
// channels x group: 4 channels in 3 groups of 2 are rejected.
func.func @conv_channels_last_grouped(%arg0: tensor<1x8x8x4xf32>, %arg1: tensor<3x3x3x2xf32>) {
  // expected-error @+1 {{expected input channels (4) = filter channels (2) x group (3)}}
  %0 = kiln.conv %arg0, %arg1 {channels_last = true, dilations = array<i64: 1, 1>, group = 3 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<3x3x3x2xf32>) -> tensor<1x6x6x3xf32>
  return
}

// -----

// Tests that a channels_last kiln.conv is 2-D.
func.func @conv_channels_last_1d(%arg0: tensor<1x8x3xf32>, %arg1: tensor<4x3x3xf32>) {
  // expected-error @+1 {{with explicit pads for channels_last, got 'tensor<1x8x3xf32>' in 1 groups}}
  %0 = kiln.conv %arg0, %arg1 {channels_last = true, dilations = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : (tensor<1x8x3xf32>, tensor<4x3x3xf32>) -> tensor<1x6x4xf32>
  return
}

// -----

// Tests that a channels_last kiln.conv has explicit pads, no auto_pad.
func.func @conv_channels_last_auto_pad(%arg0: tensor<1x8x8x3xf32>, %arg1: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{with explicit pads for channels_last, got 'tensor<1x8x8x3xf32>' in 1 groups}}
  %0 = kiln.conv %arg0, %arg1 {auto_pad = #kiln.auto_pad<SAME_UPPER>, channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x8x8x4xf32>
  return
}

// -----

// Tests that a channels_last kiln.conv is static.
func.func @conv_channels_last_dynamic(%arg0: tensor<?x8x8x3xf32>, %arg1: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{with explicit pads for channels_last, got 'tensor<?x8x8x3xf32>' in 1 groups}}
  %0 = kiln.conv %arg0, %arg1 {channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<?x8x8x4xf32>
  return
}

// -----

// Tests that a channels_last kiln.conv infers an NHWC result: an NCHW one is
// rejected.
func.func @conv_channels_last_result(%arg0: tensor<1x8x8x3xf32>, %arg1: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x6x6x4xf32>' are incompatible with return type(s) of operation 'tensor<1x4x6x6xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.conv %arg0, %arg1 {channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that kiln.conv_transpose needs an input of rank >= 3.
func.func @conv_transpose_rank(%arg0: tensor<1x8xf32>, %arg1: tensor<8x4xf32>) {
  // expected-error @+1 {{expected input of rank >= 3, got 'tensor<1x8xf32>'}}
  %0 = kiln.conv_transpose %arg0, %arg1 {dilations = array<i64>, output_padding = array<i64>, pads = array<i64>, strides = array<i64>} : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
  return
}

// -----

// Tests that kiln.conv_transpose rejects a group below 1.
func.func @conv_transpose_group_zero(%arg0: tensor<1x8x5x5xf32>, %arg1: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{expected group >= 1, got 0}}
  %0 = kiln.conv_transpose %arg0, %arg1 {dilations = array<i64: 1, 1>, group = 0 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x5x5xf32>, tensor<8x4x3x3xf32>) -> tensor<1x?x7x7xf32>
  return
}

// -----

// Tests that kiln.conv_transpose rejects a negative group.
func.func @conv_transpose_group_negative(%arg0: tensor<1x8x5x5xf32>, %arg1: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{expected group >= 1, got -1}}
  %0 = kiln.conv_transpose %arg0, %arg1 {dilations = array<i64: 1, 1>, group = -1 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x5x5xf32>, tensor<8x4x3x3xf32>) -> tensor<1x?x7x7xf32>
  return
}

// -----

// Tests that kiln.conv_transpose checks its window attributes.
func.func @conv_transpose_window_attrs(%arg0: tensor<1x8x5x5xf32>, %arg1: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{expected positive strides and dilations}}
  %0 = kiln.conv_transpose %arg0, %arg1 {dilations = array<i64: 1, 0>, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x5x5xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x7x?xf32>
  return
}

// -----

// Tests that kiln.conv_transpose needs one output padding per spatial dim.
func.func @conv_transpose_output_padding_size(%arg0: tensor<1x8x5x5xf32>, %arg1: tensor<8x4x3x3xf32>) {
  // expected-error @+2 {{attributes do not match 2 spatial dims}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.conv_transpose %arg0, %arg1 {dilations = array<i64: 1, 1>, output_padding = array<i64: 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x5x5xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x7x7xf32>
  return
}

// -----

// Tests that kiln.conv_transpose rejects pads that leave no output.
func.func @conv_transpose_empty_output(%arg0: tensor<1x8x1x5xf32>, %arg1: tensor<8x4x3x3xf32>) {
  // expected-error @+2 {{non-positive output size along spatial dim 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.conv_transpose %arg0, %arg1 {dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, pads = array<i64: 2, 0, 1, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x1x5xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x?x7xf32>
  return
}

// -----

// Tests that the kiln.conv_transpose filter has one slice per input channel.
func.func @conv_transpose_channel_mismatch(%arg0: tensor<1x8x5x5xf32>, %arg1: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{expected input channels (8)}}
  %0 = kiln.conv_transpose %arg0, %arg1 {dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x5x5xf32>, tensor<6x4x3x3xf32>) -> tensor<1x4x7x7xf32>
  return
}

// -----

// Tests that the kiln.conv_transpose bias has one element per output channel.
func.func @conv_transpose_bias_shape(%arg0: tensor<1x8x5x5xf32>, %arg1: tensor<8x4x3x3xf32>, %arg2: tensor<3xf32>) {
  // expected-error @+1 {{expected bias of shape [output channels], got 'tensor<3xf32>'}}
  %0 = kiln.conv_transpose %arg0, %arg1, %arg2 {dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x5x5xf32>, tensor<8x4x3x3xf32>, tensor<3xf32>) -> tensor<1x4x7x7xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Normalization and softmax
//===----------------------------------------------------------------------===//

// Tests that kiln.batch_norm needs a channel dim.
func.func @batch_norm_rank(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>) {
  // expected-error @+1 {{expected input of rank >= 2, got 'tensor<8xf32>'}}
  %0 = kiln.batch_norm %arg0, %arg1, %arg1, %arg1, %arg1 : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

// Tests that the kiln.batch_norm parameters have one element per channel.
func.func @batch_norm_param_shape(%arg0: tensor<?x16x4x4xf32>, %arg1: tensor<16xf32>, %arg2: tensor<8xf32>) {
  // expected-error @+1 {{expected per-channel parameters of shape [16], got 'tensor<8xf32>'}}
  %0 = kiln.batch_norm %arg0, %arg1, %arg1, %arg2, %arg1 : (tensor<?x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<8xf32>, tensor<16xf32>) -> tensor<?x16x4x4xf32>
  return
}

// -----

// Tests that kiln.batch_norm keeps the input type.
func.func @batch_norm_result(%arg0: tensor<2x16xf32>, %arg1: tensor<16xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x16xf32>' are incompatible with return type(s) of operation 'tensor<2x15xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.batch_norm %arg0, %arg1, %arg1, %arg1, %arg1 : (tensor<2x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x15xf32>
  return
}

// -----

// Tests that channels_last kiln.batch_norm parameters have one element per
// channel of the last dim.
func.func @batch_norm_channels_last_param_shape(%arg0: tensor<1x4x4x16xf32>, %arg1: tensor<4xf32>) {
  // expected-error @+1 {{expected per-channel parameters of shape [16], got 'tensor<4xf32>'}}
  %0 = kiln.batch_norm %arg0, %arg1, %arg1, %arg1, %arg1 {channels_last = true} : (tensor<1x4x4x16xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x16xf32>
  return
}

// -----

// Tests that kiln.instance_norm needs spatial dims.
func.func @instance_norm_rank(%arg0: tensor<2x8xf32>, %arg1: tensor<8xf32>) {
  // expected-error @+1 {{expected input of rank >= 3, got 'tensor<2x8xf32>'}}
  %0 = kiln.instance_norm %arg0, %arg1, %arg1 : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return
}

// -----

// Tests that the kiln.instance_norm scale is 1-D per channel.
func.func @instance_norm_param_shape(%arg0: tensor<2x8x4xf32>, %arg1: tensor<8xf32>, %arg2: tensor<1x8xf32>) {
  // expected-error @+1 {{expected per-channel parameters of shape [8], got 'tensor<1x8xf32>'}}
  %0 = kiln.instance_norm %arg0, %arg2, %arg1 : (tensor<2x8x4xf32>, tensor<1x8xf32>, tensor<8xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

// Tests that the kiln.layer_norm axis lies inside the input rank.
func.func @layer_norm_axis(%arg0: tensor<2x8xf32>, %arg1: tensor<8xf32>) {
  // expected-error @+1 {{expected axis in [0, 2), got 2}}
  %0 = kiln.layer_norm %arg0, %arg1 {axis = 2 : i64} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return
}

// -----

// Tests that a negative kiln.layer_norm axis is rejected (the importer normalizes it).
func.func @layer_norm_negative_axis(%arg0: tensor<2x8xf32>, %arg1: tensor<8xf32>) {
  // expected-error @+1 {{expected axis in [0, 2), got -1}}
  %0 = kiln.layer_norm %arg0, %arg1 {axis = -1 : i64} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return
}

// -----

// Tests that the kiln.layer_norm scale broadcasts to the normalized dims.
func.func @layer_norm_scale_shape(%arg0: tensor<2x4x8xf32>, %arg1: tensor<4xf32>) {
  // expected-error @+1 {{expected scale/bias broadcastable to the normalized dims, got 'tensor<4xf32>'}}
  %0 = kiln.layer_norm %arg0, %arg1 {axis = 2 : i64} : (tensor<2x4x8xf32>, tensor<4xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

// Tests that the kiln.layer_norm bias broadcasts to the normalized dims.
func.func @layer_norm_bias_shape(%arg0: tensor<2x4x8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<2x8xf32>) {
  // expected-error @+1 {{expected scale/bias broadcastable to the normalized dims, got 'tensor<2x8xf32>'}}
  %0 = kiln.layer_norm %arg0, %arg1, %arg2 {axis = 2 : i64} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<2x8xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

// Tests that the kiln.layer_norm scale has the input's element type (ONNX type T).
func.func @layer_norm_scale_element_type(%arg0: tensor<2x8xf16>, %arg1: tensor<8xf32>) {
  // expected-error @+1 {{expected scale/bias of the input's element type 'f16', got 'tensor<8xf32>'}}
  %0 = kiln.layer_norm %arg0, %arg1 {axis = 1 : i64} : (tensor<2x8xf16>, tensor<8xf32>) -> tensor<2x8xf16>
  return
}

// -----

// Tests that the kiln.softmax axis lies inside the input rank.
func.func @softmax_axis(%arg0: tensor<2x8xf32>) {
  // expected-error @+1 {{expected axis in [0, 2), got 2}}
  %0 = kiln.softmax %arg0 {axis = 2 : i64} : tensor<2x8xf32>
  return
}

// -----

// Tests that the kiln.log_softmax axis is non-negative.
func.func @log_softmax_negative_axis(%arg0: tensor<2x8xf32>) {
  // expected-error @+1 {{expected axis in [0, 2), got -1}}
  %0 = kiln.log_softmax %arg0 {axis = -1 : i64} : tensor<2x8xf32>
  return
}

// -----

// Tests that kiln.lrn sums over a positive number of channels.
func.func @lrn_zero_size(%arg0: tensor<1x8x4x4xf32>) {
  // expected-error @+1 {{size}}
  %0 = kiln.lrn %arg0 {size = 0 : i64} : tensor<1x8x4x4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

// Tests that pooling needs spatial dims.
func.func @max_pool_rank(%arg0: tensor<2x8xf32>) {
  // expected-error @+1 {{expected input of rank >= 3, got 'tensor<2x8xf32>'}}
  %0 = kiln.max_pool %arg0 {dilations = array<i64>, kernel_shape = array<i64>, pads = array<i64>, strides = array<i64>} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return
}

// -----

// Tests that the pooling kernel has one dim per spatial dim.
func.func @max_pool_kernel_rank(%arg0: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{expected 2 kernel dims, got 1}}
  %0 = kiln.max_pool %arg0 {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

// Tests that pooling kernel dims are positive.
func.func @avg_pool_zero_kernel(%arg0: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{expected positive kernel dims}}
  %0 = kiln.avg_pool %arg0 {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x?xf32>
  return
}

// -----

// Tests that pooling needs one stride per spatial dim.
func.func @avg_pool_strides_size(%arg0: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{expected 2 strides, 2 dilations and 4 pads for 2 spatial dims, got 2, 2 and 2}}
  %0 = kiln.avg_pool %arg0 {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

// Tests that pooling rejects a zero stride.
func.func @max_pool_zero_stride(%arg0: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{expected positive strides and dilations}}
  %0 = kiln.max_pool %arg0 {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x?xf32>
  return
}

// -----

// Tests that pooling accepts only the auto_pad values the importer keeps.
func.func @avg_pool_bad_auto_pad(%arg0: tensor<1x3x?x8xf32>) {
  // expected-error @+2 {{expected ::kiln::graph::AutoPad to be one of: NOTSET, SAME_UPPER, SAME_LOWER}}
  // expected-error @+1 {{failed to parse Graph_AutoPadAttr parameter 'value'}}
  %0 = kiln.avg_pool %arg0 {auto_pad = #kiln.auto_pad<same_upper>, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x?x8xf32>) -> tensor<1x3x?x4xf32>
  return
}

// -----

// Tests that SAME-padded pooling has zero explicit pads.
func.func @max_pool_auto_pad_with_pads(%arg0: tensor<1x3x?x8xf32>) {
  // expected-error @+1 {{expected zero pads with auto_pad SAME_LOWER}}
  %0 = kiln.max_pool %arg0 {auto_pad = #kiln.auto_pad<SAME_LOWER>, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 1, 0, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x?x8xf32>) -> tensor<1x3x?x4xf32>
  return
}

// -----

// Tests that SAME-padded pooling has ceil(in / stride) outputs per static dim.
func.func @max_pool_auto_pad_result(%arg0: tensor<1x3x?x7xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x3x?x3xf32>' are incompatible with return type(s) of operation 'tensor<1x3x?x2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.max_pool %arg0 {auto_pad = #kiln.auto_pad<SAME_UPPER>, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 3, 3>} : (tensor<1x3x?x7xf32>) -> tensor<1x3x?x2xf32>
  return
}

// -----

// Tests that only max_pool has a channels_last form.
func.func @avg_pool_channels_last(%arg0: tensor<1x8x8x4xf32>) {
  // expected-error @+1 {{expected static 2-D float max pooling with explicit pads for channels_last, got 'tensor<1x8x8x4xf32>'}}
  %0 = kiln.avg_pool %arg0 {channels_last = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

// Tests that a channels_last max_pool is 2-D.
func.func @max_pool_channels_last_1d(%arg0: tensor<1x8x4xf32>) {
  // expected-error @+1 {{expected static 2-D float max pooling with explicit pads for channels_last, got 'tensor<1x8x4xf32>'}}
  %0 = kiln.max_pool %arg0 {channels_last = true, dilations = array<i64: 1>, kernel_shape = array<i64: 2>, pads = array<i64: 0, 0>, strides = array<i64: 2>} : (tensor<1x8x4xf32>) -> tensor<1x4x4xf32>
  return
}

// -----

// Tests that a channels_last max_pool has explicit pads, no auto_pad.
func.func @max_pool_channels_last_auto_pad(%arg0: tensor<1x8x8x4xf32>) {
  // expected-error @+1 {{expected static 2-D float max pooling with explicit pads for channels_last, got 'tensor<1x8x8x4xf32>'}}
  %0 = kiln.max_pool %arg0 {auto_pad = #kiln.auto_pad<SAME_UPPER>, channels_last = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

// Tests that a channels_last max_pool is static (its lowering pads
// statically).
func.func @max_pool_channels_last_dynamic(%arg0: tensor<?x8x8x4xf32>) {
  // expected-error @+1 {{expected static 2-D float max pooling with explicit pads for channels_last, got 'tensor<?x8x8x4xf32>'}}
  %0 = kiln.max_pool %arg0 {channels_last = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<?x8x8x4xf32>) -> tensor<?x4x4x4xf32>
  return
}

// -----

// Tests that a channels_last max_pool is on floats (unsigned integers would
// need the unsigned maximum).
func.func @max_pool_channels_last_unsigned(%arg0: tensor<1x8x8x4xui8>) {
  // expected-error @+1 {{expected static 2-D float max pooling with explicit pads for channels_last, got 'tensor<1x8x8x4xui8>'}}
  %0 = kiln.max_pool %arg0 {channels_last = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x8x4xui8>) -> tensor<1x4x4x4xui8>
  return
}

// -----

// Tests that a pooling window must fit the padded input.
func.func @max_pool_window_does_not_fit(%arg0: tensor<1x3x8x2xf32>) {
  // expected-error @+2 {{pooling window does not fit spatial dim 1 of 'tensor<1x3x8x2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.max_pool %arg0 {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x2xf32>) -> tensor<1x3x6x?xf32>
  return
}

// -----

// Tests that the pooling result size follows the ceil_mode rule.
func.func @max_pool_ceil_mode_result(%arg0: tensor<1x3x7x7xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x3x4x4xf32>' are incompatible with return type(s) of operation 'tensor<1x3x3x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.max_pool %arg0 {ceil_mode = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x7x7xf32>) -> tensor<1x3x3x3xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Reductions, scans, top-k
//===----------------------------------------------------------------------===//

// Tests that reduction axes are sorted.
func.func @reduce_sum_unsorted_axes(%arg0: tensor<2x3x4xf32>) {
  // expected-error @+1 {{expected sorted, unique axes}}
  %0 = kiln.reduce_sum %arg0 {axes = array<i64: 2, 0>} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  return
}

// -----

// Tests that reduction axes are unique.
func.func @reduce_max_repeated_axes(%arg0: tensor<2x3x4xf32>) {
  // expected-error @+1 {{expected sorted, unique axes}}
  %0 = kiln.reduce_max %arg0 {axes = array<i64: 1, 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  return
}

// -----

// Tests that reduction axes lie inside the input rank.
func.func @reduce_mean_axis_out_of_range(%arg0: tensor<2x3x4xf32>) {
  // expected-error @+1 {{expected axis in [0, 3), got 3}}
  %0 = kiln.reduce_mean %arg0 {axes = array<i64: 3>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

// Tests that negative reduction axes are rejected (the importer normalizes them).
func.func @reduce_l2_negative_axis(%arg0: tensor<2x3x4xf32>) {
  // expected-error @+1 {{expected axis in [0, 3), got -1}}
  %0 = kiln.reduce_l2 %arg0 {axes = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  return
}

// -----

// Tests that keepdims = false drops the reduced dims from the result.
func.func @reduce_prod_keepdims_result(%arg0: tensor<2x3x4xi32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x4xi32>' are incompatible with return type(s) of operation 'tensor<2x1x4xi32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.reduce_prod %arg0 {axes = array<i64: 1>, keepdims = false} : (tensor<2x3x4xi32>) -> tensor<2x1x4xi32>
  return
}

// -----

// Tests that the kiln.arg_max axis lies inside the input rank.
func.func @arg_max_axis(%arg0: tensor<2x3xf32>) {
  // expected-error @+1 {{expected axis in [0, 2), got 2}}
  %0 = kiln.arg_max %arg0 {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xi64>
  return
}

// -----

// Tests that kiln.arg_min returns i64 indices.
func.func @arg_min_result_type(%arg0: tensor<2x3xf32>) {
  // expected-error @+1 {{result #0 must be tensor of 64-bit signless integer values}}
  %0 = kiln.arg_min %arg0 {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x1xi32>
  return
}

// -----

// Tests that the kiln.cumsum axis lies inside the input rank.
func.func @cumsum_axis(%arg0: tensor<2x3xf32>) {
  // expected-error @+1 {{expected axis in [0, 2), got 5}}
  %0 = kiln.cumsum %arg0 {axis = 5 : i64} : tensor<2x3xf32>
  return
}

// -----

// Tests that the kiln.topk axis lies inside the input rank.
func.func @topk_axis(%arg0: tensor<2x10xf32>) {
  // expected-error @+1 {{expected axis in [0, 2), got 2}}
  %0:2 = kiln.topk %arg0 {axis = 2 : i64, k = 3 : i64} : (tensor<2x10xf32>) -> (tensor<2x10xf32>, tensor<2x10xi64>)
  return
}

// -----

// Tests that kiln.topk rejects k larger than the dim.
func.func @topk_k_too_large(%arg0: tensor<2x10xf32>) {
  // expected-error @+1 {{expected k in [0, 10], got 11}}
  %0:2 = kiln.topk %arg0 {axis = 1 : i64, k = 11 : i64} : (tensor<2x10xf32>) -> (tensor<2x11xf32>, tensor<2x11xi64>)
  return
}

// -----

// Tests that kiln.topk rejects a negative k on a static dim.
func.func @topk_k_negative_static(%arg0: tensor<2x10xf32>) {
  // expected-error @+1 {{expected k in [0, 10], got -1}}
  %0:2 = kiln.topk %arg0 {axis = 1 : i64, k = -1 : i64} : (tensor<2x10xf32>) -> (tensor<2x?xf32>, tensor<2x?xi64>)
  return
}

// -----

// Tests that kiln.topk rejects a negative k on a dynamic dim.
func.func @topk_k_negative_dynamic(%arg0: tensor<2x?xf32>) {
  // expected-error @+1 {{got -1}}
  %0:2 = kiln.topk %arg0 {axis = 1 : i64, k = -1 : i64} : (tensor<2x?xf32>) -> (tensor<2x?xf32>, tensor<2x?xi64>)
  return
}

// -----

// Tests that the kiln.topk results have k elements along the axis.
func.func @topk_result_shape(%arg0: tensor<2x?xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x3xf32>', 'tensor<2x3xi64>' are incompatible with return type(s) of operation 'tensor<2x4xf32>', 'tensor<2x4xi64>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = kiln.topk %arg0 {axis = 1 : i64, k = 3 : i64} : (tensor<2x?xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

// Tests that kiln.reshape rejects a different element count.
func.func @reshape_element_count(%arg0: tensor<2x3xf32>) {
  %0 = kiln.constant dense<[4, 2]> : tensor<2xi64>
  // expected-error @+2 {{cannot reshape 'tensor<2x3xf32>' (6 elements) to 8 elements}}
  // expected-error @+1 {{failed to infer returned types}}
  %1 = kiln.reshape %arg0, %0 : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x2xf32>
  return
}

// -----

// Tests that kiln.reshape allows only one -1.
func.func @reshape_two_minus_one(%arg0: tensor<2x3xf32>) {
  %0 = kiln.constant dense<[-1, -1]> : tensor<2xi64>
  // expected-error @+2 {{more than one -1 in reshape shape}}
  // expected-error @+1 {{failed to infer returned types}}
  %1 = kiln.reshape %arg0, %0 : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return
}

// -----

// Tests that the -1 of kiln.reshape must divide the element count.
func.func @reshape_minus_one_not_divisible(%arg0: tensor<2x3xf32>) {
  %0 = kiln.constant dense<[-1, 4]> : tensor<2xi64>
  // expected-error @+2 {{cannot reshape 'tensor<2x3xf32>' with -1 in the shape: 6 elements do not divide by 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %1 = kiln.reshape %arg0, %0 : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x4xf32>
  return
}

// -----

// Tests that kiln.reshape rejects dims below -1.
func.func @reshape_invalid_dim(%arg0: tensor<2x3xf32>) {
  %0 = kiln.constant dense<[-2, 3]> : tensor<2xi64>
  // expected-error @+2 {{invalid reshape dim -2}}
  // expected-error @+1 {{failed to infer returned types}}
  %1 = kiln.reshape %arg0, %0 : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x3xf32>
  return
}

// -----

// Tests that a 0 in the kiln.reshape shape must copy an existing input dim.
func.func @reshape_zero_beyond_rank(%arg0: tensor<6xf32>) {
  %0 = kiln.constant dense<[6, 0]> : tensor<2xi64>
  // expected-error @+2 {{0 in reshape shape at index 1 beyond the input rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %1 = kiln.reshape %arg0, %0 : (tensor<6xf32>, tensor<2xi64>) -> tensor<6x1xf32>
  return
}

// -----

// Tests that kiln.reshape needs a shape of known length.
func.func @reshape_unknown_length(%arg0: tensor<6xf32>, %arg1: tensor<?xi64>) {
  // expected-error @+2 {{reshape to a shape of unknown length is not supported}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.reshape %arg0, %arg1 : (tensor<6xf32>, tensor<?xi64>) -> tensor<?xf32>
  return
}

// -----

// Tests that the kiln.reshape result type follows a constant shape.
func.func @reshape_result_contradicts_inference(%arg0: tensor<2x3xf32>) {
  %0 = kiln.constant dense<[3, -1]> : tensor<2xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %1 = kiln.reshape %arg0, %0 : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that the kiln.reshape shape operand is 1-D i64.
func.func @reshape_shape_i32(%arg0: tensor<2x3xf32>, %arg1: tensor<2xi32>) {
  // expected-error @+1 {{operand #1 must be 1D tensor of 64-bit signless integer values}}
  %0 = kiln.reshape %arg0, %arg1 : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  return
}

// -----

// Tests that the kiln.flatten axis lies in [0, rank].
func.func @flatten_axis(%arg0: tensor<2x3xf32>) {
  // expected-error @+1 {{expected axis in [0, 2], got 3}}
  %0 = kiln.flatten %arg0 {axis = 3 : i64} : (tensor<2x3xf32>) -> tensor<6x1xf32>
  return
}

// -----

// Tests that a negative kiln.flatten axis is reported as such.
func.func @flatten_negative_axis(%arg0: tensor<2x3xf32>) {
  // expected-error @+1 {{expected axis in [0, 2], got -1}}
  %0 = kiln.flatten %arg0 {axis = -1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that kiln.transpose rejects a perm with a repeated dim.
func.func @transpose_repeated_perm(%arg0: tensor<2x3x4xf32>) {
  // expected-error @+1 {{expected a permutation of 3 dims}}
  %0 = kiln.transpose %arg0 {perm = array<i64: 0, 2, 2>} : (tensor<2x3x4xf32>) -> tensor<2x4x4xf32>
  return
}

// -----

// Tests that the kiln.transpose perm has one entry per dim.
func.func @transpose_perm_length(%arg0: tensor<2x3x4xf32>) {
  // expected-error @+1 {{expected a permutation of 3 dims}}
  %0 = kiln.transpose %arg0 {perm = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<3x2xf32>
  return
}

// -----

// Tests that the kiln.transpose result permutes the input dims.
func.func @transpose_result(%arg0: tensor<2x3x4xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4x2x3xf32>' are incompatible with return type(s) of operation 'tensor<4x3x2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.transpose %arg0 {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  return
}

// -----

// Tests that kiln.squeeze only removes size-1 dims.
func.func @squeeze_non_unit_dim(%arg0: tensor<1x3x1xf32>) {
  // expected-error @+1 {{cannot squeeze dim 1 of size 3}}
  %0 = kiln.squeeze %arg0 {axes = array<i64: 1>} : (tensor<1x3x1xf32>) -> tensor<1x1xf32>
  return
}

// -----

// Tests that kiln.squeeze axes are sorted.
func.func @squeeze_unsorted_axes(%arg0: tensor<1x3x1xf32>) {
  // expected-error @+1 {{expected sorted, unique axes}}
  %0 = kiln.squeeze %arg0 {axes = array<i64: 2, 0>} : (tensor<1x3x1xf32>) -> tensor<3xf32>
  return
}

// -----

// Tests that kiln.squeeze axes lie inside the input rank.
func.func @squeeze_axis_out_of_range(%arg0: tensor<1x3x1xf32>) {
  // expected-error @+1 {{expected axis in [0, 3), got 3}}
  %0 = kiln.squeeze %arg0 {axes = array<i64: 3>} : (tensor<1x3x1xf32>) -> tensor<1x3x1xf32>
  return
}

// -----

// Tests that kiln.unsqueeze axes are sorted.
func.func @unsqueeze_unsorted_axes(%arg0: tensor<3xf32>) {
  // expected-error @+1 {{expected sorted, unique axes}}
  %0 = kiln.unsqueeze %arg0 {axes = array<i64: 1, 0>} : (tensor<3xf32>) -> tensor<1x1x3xf32>
  return
}

// -----

// Tests that kiln.unsqueeze axes are positions in the result rank.
func.func @unsqueeze_axis_out_of_range(%arg0: tensor<3xf32>) {
  // expected-error @+1 {{expected axis in [0, 2), got 2}}
  %0 = kiln.unsqueeze %arg0 {axes = array<i64: 2>} : (tensor<3xf32>) -> tensor<3x1xf32>
  return
}

// -----

// Tests that the kiln.unsqueeze result places the new dims at the axes.
func.func @unsqueeze_result(%arg0: tensor<3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x3xf32>' are incompatible with return type(s) of operation 'tensor<3x1xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.unsqueeze %arg0 {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<3x1xf32>
  return
}

// -----

// Tests that kiln.concat inputs have one rank.
func.func @concat_rank_mismatch(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>) {
  // expected-error @+2 {{concat inputs differ in rank or element type: 'tensor<2x3xf32>' vs 'tensor<3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.concat %arg0, %arg1 {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x6xf32>
  return
}

// -----

// Tests that kiln.concat inputs have one element type.
func.func @concat_element_type_mismatch(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf16>) {
  // expected-error @+2 {{concat inputs differ in rank or element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.concat %arg0, %arg1 {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<2x6xf32>
  return
}

// -----

// Tests that kiln.concat inputs agree outside the axis.
func.func @concat_dim_mismatch(%arg0: tensor<2x3xf32>, %arg1: tensor<4x3xf32>) {
  // expected-error @+2 {{concat inputs differ in dim 0: 'tensor<2x3xf32>' vs 'tensor<4x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.concat %arg0, %arg1 {axis = 1 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

// Tests that the kiln.concat axis lies inside the rank.
func.func @concat_axis(%arg0: tensor<2x3xf32>) {
  // expected-error @+1 {{expected axis in [0, 2), got 2}}
  %0 = kiln.concat %arg0, %arg0 {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that kiln.concat needs at least one input.
func.func @concat_no_inputs() {
  // expected-error @+1 {{expected at least one input}}
  %0 = kiln.concat {axis = 0 : i64} : () -> tensor<0xf32>
  return
}

// -----

// Tests that the kiln.concat result adds up the sizes along the axis.
func.func @concat_result(%arg0: tensor<2x3xf32>, %arg1: tensor<2x?xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4x3xf32>' are incompatible with return type(s) of operation 'tensor<5x?xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.concat %arg0, %arg1 {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x?xf32>) -> tensor<5x?xf32>
  return
}

// -----

// Tests that kiln.split sizes add up to the split dim.
func.func @split_sizes_sum(%arg0: tensor<2x10xf32>) {
  // expected-error @+1 {{expected split sizes to add up to 10, got 9}}
  %0:2 = kiln.split %arg0 {axis = 1 : i64, sizes = array<i64: 4, 5>} : (tensor<2x10xf32>) -> (tensor<2x4xf32>, tensor<2x5xf32>)
  return
}

// -----

// Tests that kiln.split has one result per size.
func.func @split_result_count(%arg0: tensor<2x10xf32>) {
  // expected-error @+1 {{expected 3 results, got 2}}
  %0:2 = kiln.split %arg0 {axis = 1 : i64, sizes = array<i64: 4, 4, 2>} : (tensor<2x10xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>)
  return
}

// -----

// Tests that kiln.split sizes are non-negative.
func.func @split_negative_size(%arg0: tensor<2x?xf32>) {
  // expected-error @+1 {{expected split sizes in [0, 2^40], got -2}}
  %0:2 = kiln.split %arg0 {axis = 1 : i64, sizes = array<i64: -2, 12>} : (tensor<2x?xf32>) -> (tensor<2x?xf32>, tensor<2x12xf32>)
  return
}

// -----

// Tests that the kiln.split axis lies inside the input rank.
func.func @split_axis(%arg0: tensor<2x10xf32>) {
  // expected-error @+1 {{expected axis in [0, 2), got 2}}
  %0:2 = kiln.split %arg0 {axis = 2 : i64, sizes = array<i64: 1, 1>} : (tensor<2x10xf32>) -> (tensor<2x10xf32>, tensor<2x10xf32>)
  return
}

// -----

// Tests that the kiln.split results take the sizes along the axis.
func.func @split_result_shape(%arg0: tensor<2x10xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x4xf32>', 'tensor<2x6xf32>' are incompatible with return type(s) of operation 'tensor<2x6xf32>', 'tensor<2x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = kiln.split %arg0 {axis = 1 : i64, sizes = array<i64: 4, 6>} : (tensor<2x10xf32>) -> (tensor<2x6xf32>, tensor<2x4xf32>)
  return
}

// -----

// Tests that kiln.slice starts, ends, axes and steps have one length.
func.func @slice_length_mismatch(%arg0: tensor<4x6xf32>) {
  %0 = kiln.constant dense<[0, 0]> : tensor<2xi64>
  %1 = kiln.constant dense<[2]> : tensor<1xi64>
  %2 = kiln.constant dense<[1]> : tensor<1xi64>
  // expected-error @+2 {{slice starts, ends, axes and steps differ in length}}
  // expected-error @+1 {{failed to infer returned types}}
  %3 = kiln.slice %arg0, %0, %1, %2, %2 : (tensor<4x6xf32>, tensor<2xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x?xf32>
  return
}

// -----

// Tests that kiln.slice rejects a repeated axis.
func.func @slice_repeated_axis(%arg0: tensor<4x6xf32>) {
  %0 = kiln.constant dense<[0, 0]> : tensor<2xi64>
  %1 = kiln.constant dense<[2, 2]> : tensor<2xi64>
  %2 = kiln.constant dense<[1, -1]> : tensor<2xi64>
  %3 = kiln.constant dense<[1, 1]> : tensor<2xi64>
  // expected-error @+2 {{invalid or repeated slice axis -1 for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %4 = kiln.slice %arg0, %0, %1, %2, %3 : (tensor<4x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<4x2xf32>
  return
}

// -----

// Tests that kiln.slice rejects an axis out of range.
func.func @slice_axis_out_of_range(%arg0: tensor<4x6xf32>) {
  %0 = kiln.constant dense<0> : tensor<1xi64>
  %1 = kiln.constant dense<2> : tensor<1xi64>
  %2 = kiln.constant dense<1> : tensor<1xi64>
  // expected-error @+2 {{invalid or repeated slice axis 2 for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %3 = kiln.slice %arg0, %0, %2, %1, %2 : (tensor<4x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x6xf32>
  return
}

// -----

// Tests that kiln.slice rejects a zero step.
func.func @slice_zero_step(%arg0: tensor<4x6xf32>) {
  %0 = kiln.constant dense<0> : tensor<1xi64>
  %1 = kiln.constant dense<2> : tensor<1xi64>
  // expected-error @+2 {{slice step must not be 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %2 = kiln.slice %arg0, %0, %1, %0, %0 : (tensor<4x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x6xf32>
  return
}

// -----

// Tests that the kiln.slice result follows constant indices (ONNX clamping).
func.func @slice_result(%arg0: tensor<4x6xf32>) {
  %0 = kiln.constant dense<1> : tensor<1xi64>
  %1 = kiln.constant dense<100> : tensor<1xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<4x5xf32>' are incompatible with return type(s) of operation 'tensor<4x99xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %2 = kiln.slice %arg0, %0, %1, %0, %0 : (tensor<4x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x99xf32>
  return
}

// -----

// Tests that the kiln.gather axis lies inside the input rank.
func.func @gather_axis(%arg0: tensor<4x6xf32>, %arg1: tensor<2xi64>) {
  // expected-error @+1 {{expected axis in [0, 2), got 2}}
  %0 = kiln.gather %arg0, %arg1 {axis = 2 : i64} : (tensor<4x6xf32>, tensor<2xi64>) -> tensor<4x6x2xf32>
  return
}

// -----

// Tests that kiln.gather requires its axis attribute (generic form).
func.func @gather_missing_axis(%arg0: tensor<4x6xf32>, %arg1: tensor<2xi64>) {
  // expected-error @+1 {{requires attribute 'axis'}}
  %0 = "kiln.gather"(%arg0, %arg1) : (tensor<4x6xf32>, tensor<2xi64>) -> tensor<2x6xf32>
  return
}

// -----

// Tests that kiln.gather indices are i32 or i64.
func.func @gather_float_indices(%arg0: tensor<4x6xf32>, %arg1: tensor<2xf32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = kiln.gather %arg0, %arg1 {axis = 0 : i64} : (tensor<4x6xf32>, tensor<2xf32>) -> tensor<2x6xf32>
  return
}

// -----

// Tests that the kiln.gather result splices the indices shape in at the axis.
func.func @gather_result(%arg0: tensor<4x6xf32>, %arg1: tensor<2x3xi64>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4x2x3xf32>' are incompatible with return type(s) of operation 'tensor<2x3x6xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.gather %arg0, %arg1 {axis = 1 : i64} : (tensor<4x6xf32>, tensor<2x3xi64>) -> tensor<2x3x6xf32>
  return
}

// -----

// Tests that kiln.gather_elements indices have the input's rank.
func.func @gather_elements_rank(%arg0: tensor<4x6xf32>, %arg1: tensor<4xi64>) {
  // expected-error @+1 {{expected indices of the input's rank}}
  %0 = kiln.gather_elements %arg0, %arg1 {axis = 0 : i64} : (tensor<4x6xf32>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

// Tests that the kiln.gather_elements axis lies inside the input rank.
func.func @gather_elements_axis(%arg0: tensor<4x6xf32>, %arg1: tensor<4x6xi64>) {
  // expected-error @+1 {{expected axis in [0, 2), got 2}}
  %0 = kiln.gather_elements %arg0, %arg1 {axis = 2 : i64} : (tensor<4x6xf32>, tensor<4x6xi64>) -> tensor<4x6xf32>
  return
}

// -----

// Tests that kiln.gather_nd index tuples fit in the input after the batch dims.
func.func @gather_nd_tuple_too_long(%arg0: tensor<2x3xf32>, %arg1: tensor<4x3xi64>) {
  // expected-error @+2 {{expected batch_dims + index length <= input rank, got 0 + 3 > 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.gather_nd %arg0, %arg1 : (tensor<2x3xf32>, tensor<4x3xi64>) -> tensor<4xf32>
  return
}

// -----

// Tests that kiln.gather_nd batch dims of input and indices agree.
func.func @gather_nd_batch_mismatch(%arg0: tensor<2x3x4xf32>, %arg1: tensor<3x1xi64>) {
  // expected-error @+1 {{expected batch dim 0 of input and indices to match, got 2 and 3}}
  %0 = kiln.gather_nd %arg0, %arg1 {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<3x1xi64>) -> tensor<3x4xf32>
  return
}

// -----

// Tests that kiln.gather_nd needs a static index-tuple length.
func.func @gather_nd_dynamic_tuple(%arg0: tensor<2x3xf32>, %arg1: tensor<4x?xi64>) {
  // expected-error @+2 {{expected indices whose last dim is static}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.gather_nd %arg0, %arg1 : (tensor<2x3xf32>, tensor<4x?xi64>) -> tensor<4xf32>
  return
}

// -----

// Tests that kiln.scatter_elements indices and updates share one shape.
func.func @scatter_elements_shapes(%arg0: tensor<3x3xf32>, %arg1: tensor<2x3xi64>, %arg2: tensor<2x2xf32>) {
  // expected-error @+1 {{expected indices and updates of one shape}}
  %0 = kiln.scatter_elements %arg0, %arg1, %arg2 {axis = 0 : i64} : (tensor<3x3xf32>, tensor<2x3xi64>, tensor<2x2xf32>) -> tensor<3x3xf32>
  return
}

// -----

// Tests that kiln.scatter_elements indices do not exceed the input off the axis.
func.func @scatter_elements_too_wide(%arg0: tensor<3x3xf32>, %arg1: tensor<2x4xi64>, %arg2: tensor<2x4xf32>) {
  // expected-error @+1 {{expected indices dim 1 to be at most the input's, got 4 > 3}}
  %0 = kiln.scatter_elements %arg0, %arg1, %arg2 {axis = 0 : i64} : (tensor<3x3xf32>, tensor<2x4xi64>, tensor<2x4xf32>) -> tensor<3x3xf32>
  return
}

// -----

// Tests that kiln.scatter_elements rejects an unknown reduction.
func.func @scatter_elements_reduction(%arg0: tensor<3x3xf32>, %arg1: tensor<2x3xi64>, %arg2: tensor<2x3xf32>) {
  // expected-error @+2 {{expected ::kiln::graph::ScatterReduction to be one of: none, add, mul, max, min}}
  // expected-error @+1 {{failed to parse Graph_ScatterReductionAttr parameter 'value'}}
  %0 = kiln.scatter_elements %arg0, %arg1, %arg2 {axis = 0 : i64, reduction = #kiln.scatter_reduction<sub>} : (tensor<3x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<3x3xf32>
  return
}

// -----

// Tests that kiln.scatter_nd updates have shape indices.shape[:-1] + input.shape[k:].
func.func @scatter_nd_updates(%arg0: tensor<4x4x4xf32>, %arg1: tensor<2x1xi64>, %arg2: tensor<2x4xf32>) {
  // expected-error @+1 {{expected updates of shape indices.shape[:-1] + input.shape[k:], got 'tensor<2x4xf32>'}}
  %0 = kiln.scatter_nd %arg0, %arg1, %arg2 : (tensor<4x4x4xf32>, tensor<2x1xi64>, tensor<2x4xf32>) -> tensor<4x4x4xf32>
  return
}

// -----

// Tests that kiln.scatter_nd index tuples are no longer than the input rank.
func.func @scatter_nd_tuple(%arg0: tensor<4xf32>, %arg1: tensor<2x2xi64>, %arg2: tensor<2xf32>) {
  // expected-error @+1 {{expected an index length in [1, 1], got 2}}
  %0 = kiln.scatter_nd %arg0, %arg1, %arg2 : (tensor<4xf32>, tensor<2x2xi64>, tensor<2xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that kiln.grid_sample takes 4-D inputs only.
func.func @grid_sample_rank(%arg0: tensor<1x3x4x4x4xf32>, %arg1: tensor<1x2x2x2x3xf32>) {
  // expected-error @+2 {{expected a 4-D input and grid, got ranks 5 and 5}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.grid_sample %arg0, %arg1 : (tensor<1x3x4x4x4xf32>, tensor<1x2x2x2x3xf32>) -> tensor<1x3x2x2x2xf32>
  return
}

// -----

// Tests that kiln.grid_sample positions have two coordinates.
func.func @grid_sample_coordinates(%arg0: tensor<1x3x4x4xf32>, %arg1: tensor<1x2x2x3xf32>) {
  // expected-error @+1 {{expected grid positions of 2 coordinates, got 3}}
  %0 = kiln.grid_sample %arg0, %arg1 : (tensor<1x3x4x4xf32>, tensor<1x2x2x3xf32>) -> tensor<1x3x2x2xf32>
  return
}

// -----

// Tests that kiln.grid_sample rejects the opset-16 mode names (the importer renames them).
func.func @grid_sample_mode(%arg0: tensor<1x3x4x4xf32>, %arg1: tensor<1x2x2x2xf32>) {
  // expected-error @+2 {{expected ::kiln::graph::InterpolationMode to be one of: nearest, linear, cubic}}
  // expected-error @+1 {{failed to parse Graph_InterpolationModeAttr parameter 'value'}}
  %0 = kiln.grid_sample %arg0, %arg1 {mode = #kiln.interpolation_mode<bilinear>} : (tensor<1x3x4x4xf32>, tensor<1x2x2x2xf32>) -> tensor<1x3x2x2xf32>
  return
}

// -----

// Tests that kiln.expand requires the input to broadcast to the shape.
func.func @expand_not_broadcastable(%arg0: tensor<3x2xf32>) {
  %0 = kiln.constant dense<[3, 4]> : tensor<2xi64>
  // expected-error @+2 {{'tensor<3x2xf32>' does not broadcast to the expand shape}}
  // expected-error @+1 {{failed to infer returned types}}
  %1 = kiln.expand %arg0, %0 : (tensor<3x2xf32>, tensor<2xi64>) -> tensor<3x4xf32>
  return
}

// -----

// Tests that kiln.expand rejects negative dims.
func.func @expand_negative_dim(%arg0: tensor<3x1xf32>) {
  %0 = kiln.constant dense<[3, -4]> : tensor<2xi64>
  // expected-error @+2 {{expand dim out of range}}
  // expected-error @+1 {{failed to infer returned types}}
  %1 = kiln.expand %arg0, %0 : (tensor<3x1xf32>, tensor<2xi64>) -> tensor<3x?xf32>
  return
}

// -----

// Tests that kiln.expand needs a shape of known length.
func.func @expand_unknown_length(%arg0: tensor<3x1xf32>, %arg1: tensor<?xi64>) {
  // expected-error @+2 {{expand to a shape of unknown length is not supported}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.expand %arg0, %arg1 : (tensor<3x1xf32>, tensor<?xi64>) -> tensor<?x?xf32>
  return
}

// -----

// Tests that kiln.expand broadcasts (the result may be larger than the shape).
func.func @expand_result(%arg0: tensor<3x1xf32>) {
  %0 = kiln.constant dense<[1, 5]> : tensor<2xi64>
  // expected-error @+2 {{inferred type(s) 'tensor<3x5xf32>' are incompatible with return type(s) of operation 'tensor<1x5xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %1 = kiln.expand %arg0, %0 : (tensor<3x1xf32>, tensor<2xi64>) -> tensor<1x5xf32>
  return
}

// -----

// Tests that kiln.tile needs one repeat count per dim.
func.func @tile_repeats_count(%arg0: tensor<3x2xf32>) {
  %0 = kiln.constant dense<[2, 2, 2]> : tensor<3xi64>
  // expected-error @+2 {{expected 2 repeats, got 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %1 = kiln.tile %arg0, %0 : (tensor<3x2xf32>, tensor<3xi64>) -> tensor<?x?xf32>
  return
}

// -----

// Tests that kiln.tile rejects negative repeat counts.
func.func @tile_negative_repeat(%arg0: tensor<3x2xf32>) {
  %0 = kiln.constant dense<[2, -1]> : tensor<2xi64>
  // expected-error @+2 {{repeat count -1 out of range}}
  // expected-error @+1 {{failed to infer returned types}}
  %1 = kiln.tile %arg0, %0 : (tensor<3x2xf32>, tensor<2xi64>) -> tensor<6x?xf32>
  return
}

// -----

// Tests that kiln.tile rejects a run-time repeats tensor of the wrong length.
func.func @tile_repeats_length(%arg0: tensor<3x2xf32>, %arg1: tensor<3xi64>) {
  // expected-error @+2 {{expected 2 repeats, got 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.tile %arg0, %arg1 : (tensor<3x2xf32>, tensor<3xi64>) -> tensor<?x?xf32>
  return
}

// -----

// Tests that kiln.pad accepts only the ONNX modes.
func.func @pad_bad_mode(%arg0: tensor<3x2xf32>, %arg1: tensor<4xi64>) {
  // expected-error @+2 {{expected ::kiln::graph::PadMode to be one of: constant, reflect, edge, wrap}}
  // expected-error @+1 {{failed to parse Graph_PadModeAttr parameter 'value'}}
  %0 = kiln.pad %arg0, %arg1 {mode = #kiln.pad_mode<symmetric>} : (tensor<3x2xf32>, tensor<4xi64>) -> tensor<?x?xf32>
  return
}

// -----

// Tests that kiln.pad needs 2 x rank pads.
func.func @pad_count(%arg0: tensor<3x2xf32>) {
  %0 = kiln.constant dense<[1, 1]> : tensor<2xi64>
  // expected-error @+2 {{expected 4 pads, got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %1 = kiln.pad %arg0, %0 : (tensor<3x2xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return
}

// -----

// Tests that kiln.pad rejects a run-time pads tensor of the wrong length.
func.func @pad_run_time_count(%arg0: tensor<3x2xf32>, %arg1: tensor<2xi64>) {
  // expected-error @+2 {{expected 4 pads, got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.pad %arg0, %arg1 : (tensor<3x2xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return
}

// -----

// Tests that kiln.pad rejects negative pads that crop more than the dim.
func.func @pad_negative_size(%arg0: tensor<3x2xf32>) {
  %0 = kiln.constant dense<[0, -2, 0, -1]> : tensor<4xi64>
  // expected-error @+2 {{negative size after padding dim 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %1 = kiln.pad %arg0, %0 : (tensor<3x2xf32>, tensor<4xi64>) -> tensor<3x?xf32>
  return
}

// -----

// Tests that kiln.resize takes sizes or scales, not both.
func.func @resize_sizes_and_scales(%arg0: tensor<1x3x4x4xf32>, %arg1: tensor<4xi64>) {
  // expected-error @+1 {{expected exactly one of sizes and scales}}
  %0 = kiln.resize %arg0, %arg1 {scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x3x4x4xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  return
}

// -----

// Tests that kiln.resize takes sizes or scales, not neither.
func.func @resize_neither(%arg0: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{expected exactly one of sizes and scales}}
  %0 = kiln.resize %arg0 : (tensor<1x3x4x4xf32>) -> tensor<?x?x?x?xf32>
  return
}

// -----

// Tests that kiln.resize scales are positive.
func.func @resize_zero_scale(%arg0: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{expected positive scales}}
  %0 = kiln.resize %arg0 {scales = array<f32: 1.0, 1.0, 0.0, 2.0>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x0x8xf32>
  return
}

// -----

// Tests that kiln.resize accepts only the ONNX interpolation modes.
func.func @resize_bad_mode(%arg0: tensor<1x3x4x4xf32>) {
  // expected-error @+2 {{expected ::kiln::graph::InterpolationMode to be one of: nearest, linear, cubic}}
  // expected-error @+1 {{failed to parse Graph_InterpolationModeAttr parameter 'value'}}
  %0 = kiln.resize %arg0 {mode = #kiln.interpolation_mode<bilinear>, scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

// Tests that kiln.resize rejects tf_crop_and_resize (ROI is not supported).
func.func @resize_bad_coordinate_mode(%arg0: tensor<1x3x4x4xf32>) {
  // expected-error @+2 {{expected ::kiln::graph::CoordinateTransformationMode to be one of: half_pixel, half_pixel_symmetric, pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nn}}
  // expected-error @+1 {{failed to parse Graph_CoordinateTransformationModeAttr parameter 'value'}}
  %0 = kiln.resize %arg0 {coordinate_transformation_mode = #kiln.coordinate_transformation_mode<tf_crop_and_resize>, scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

// Tests that kiln.resize accepts only the ONNX nearest modes.
func.func @resize_bad_nearest_mode(%arg0: tensor<1x3x4x4xf32>) {
  // expected-error @+2 {{expected ::kiln::graph::NearestMode to be one of: round_prefer_floor, round_prefer_ceil, floor, ceil}}
  // expected-error @+1 {{failed to parse Graph_NearestModeAttr parameter 'value'}}
  %0 = kiln.resize %arg0 {nearest_mode = #kiln.nearest_mode<round>, scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

// Tests that kiln.resize needs one scale per dim.
func.func @resize_scales_count(%arg0: tensor<1x3x4x4xf32>) {
  // expected-error @+2 {{expected 4 scales}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.resize %arg0 {scales = array<f32: 2.0, 2.0>} : (tensor<1x3x4x4xf32>) -> tensor<?x?x?x?xf32>
  return
}

// -----

// Tests that kiln.resize needs one size per dim.
func.func @resize_sizes_count(%arg0: tensor<1x3x4x4xf32>) {
  %0 = kiln.constant dense<[8, 8]> : tensor<2xi64>
  // expected-error @+2 {{expected 4 sizes}}
  // expected-error @+1 {{failed to infer returned types}}
  %1 = kiln.resize %arg0, %0 : (tensor<1x3x4x4xf32>, tensor<2xi64>) -> tensor<?x?x?x?xf32>
  return
}

// -----

// Tests that kiln.resize rejects a run-time sizes tensor of the wrong length.
func.func @resize_run_time_sizes_length(%arg0: tensor<1x3x4x4xf32>, %arg1: tensor<2xi64>) {
  // expected-error @+2 {{expected 4 sizes}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.resize %arg0, %arg1 : (tensor<1x3x4x4xf32>, tensor<2xi64>) -> tensor<?x?x?x?xf32>
  return
}

// -----

// Tests that the kiln.resize result is floor(in * scale).
func.func @resize_scales_result(%arg0: tensor<1x3x5x5xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x3x7x7xf32>' are incompatible with return type(s) of operation 'tensor<1x3x8x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.resize %arg0 {scales = array<f32: 1.0, 1.0, 1.5, 1.5>} : (tensor<1x3x5x5xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

// Tests that kiln.depth_to_space accepts only DCR and CRD.
func.func @depth_to_space_bad_mode(%arg0: tensor<1x8x2x2xf32>) {
  // expected-error @+2 {{expected ::kiln::graph::DepthToSpaceMode to be one of: DCR, CRD}}
  // expected-error @+1 {{failed to parse Graph_DepthToSpaceModeAttr parameter 'value'}}
  %0 = kiln.depth_to_space %arg0 {blocksize = 2 : i64, mode = #kiln.depth_to_space_mode<RCD>} : (tensor<1x8x2x2xf32>) -> tensor<1x2x4x4xf32>
  return
}

// -----

// Tests that kiln.depth_to_space needs channels divisible by blocksize^2.
func.func @depth_to_space_channels(%arg0: tensor<1x6x2x2xf32>) {
  // expected-error @+2 {{channels 6 not divisible by blocksize^2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.depth_to_space %arg0 {blocksize = 2 : i64} : (tensor<1x6x2x2xf32>) -> tensor<1x?x4x4xf32>
  return
}

// -----

// Tests that kiln.depth_to_space needs a 4-D input.
func.func @depth_to_space_rank(%arg0: tensor<1x8x2xf32>) {
  // expected-error @+2 {{expected a 4-D input and positive blocksize}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.depth_to_space %arg0 {blocksize = 2 : i64} : (tensor<1x8x2xf32>) -> tensor<1x2x4xf32>
  return
}

// -----

// Tests that kiln.depth_to_space rejects a non-positive blocksize.
func.func @depth_to_space_zero_blocksize(%arg0: tensor<1x8x2x2xf32>) {
  // expected-error @+2 {{expected a 4-D input and positive blocksize}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.depth_to_space %arg0 {blocksize = 0 : i64} : (tensor<1x8x2x2xf32>) -> tensor<1x8x2x2xf32>
  return
}

// -----

// Tests that kiln.space_to_depth rejects a non-positive blocksize.
func.func @space_to_depth_zero_blocksize(%arg0: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{expected a positive blocksize, got 0}}
  %0 = kiln.space_to_depth %arg0 {blocksize = 0 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return
}

// -----

// Tests that kiln.space_to_depth rejects a negative blocksize.
func.func @space_to_depth_negative_blocksize(%arg0: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{expected a positive blocksize, got -2}}
  %0 = kiln.space_to_depth %arg0 {blocksize = -2 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return
}

// -----

// Tests that kiln.space_to_depth needs spatial dims divisible by the blocksize.
func.func @space_to_depth_spatial(%arg0: tensor<1x2x4x5xf32>) {
  // expected-error @+2 {{spatial dim 3 not divisible by blocksize}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.space_to_depth %arg0 {blocksize = 2 : i64} : (tensor<1x2x4x5xf32>) -> tensor<1x8x2x?xf32>
  return
}

// -----

// Tests that the kiln.shape result has one element per selected dim.
func.func @shape_result_length(%arg0: tensor<?x3x4xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2xi64>' are incompatible with return type(s) of operation 'tensor<3xi64>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.shape %arg0 {start = 1 : i64} : (tensor<?x3x4xf32>) -> tensor<3xi64>
  return
}

// -----

// Tests that kiln.size returns an i64 scalar.
func.func @size_result(%arg0: tensor<?x3xf32>) {
  // expected-error @+1 {{result #0 must be 0D tensor of 64-bit signless integer values}}
  %0 = kiln.size %arg0 : (tensor<?x3xf32>) -> tensor<1xi64>
  return
}

// -----

// Tests that the kiln.constant_of_shape value has a single element.
func.func @constant_of_shape_multi_element(%arg0: tensor<2xi64>) {
  // expected-error @+1 {{expected a one-element value, got 2 elements}}
  %0 = kiln.constant_of_shape %arg0 {value = dense<[1.0, 2.0]> : tensor<2xf32>} : (tensor<2xi64>) -> tensor<?x?xf32>
  return
}

// -----

// Tests that kiln.constant_of_shape rejects negative dims.
func.func @constant_of_shape_negative_dim() {
  %0 = kiln.constant dense<[2, -3]> : tensor<2xi64>
  // expected-error @+2 {{constant_of_shape dim out of range}}
  // expected-error @+1 {{failed to infer returned types}}
  %1 = kiln.constant_of_shape %0 {value = dense<0.0> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<2x?xf32>
  return
}

// -----

// Tests that kiln.constant_of_shape needs a shape of known length.
func.func @constant_of_shape_unknown_length(%arg0: tensor<?xi64>) {
  // expected-error @+2 {{constant_of_shape with a shape of unknown length is not supported}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.constant_of_shape %arg0 {value = dense<0.0> : tensor<1xf32>} : (tensor<?xi64>) -> tensor<?xf32>
  return
}

// -----

// Tests that the kiln.constant_of_shape element type is the value's.
func.func @constant_of_shape_element_type(%arg0: tensor<2xi64>) {
  // expected-error @+2 {{inferred type(s) 'tensor<?x?xi32>' are incompatible with return type(s) of operation 'tensor<?x?xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.constant_of_shape %arg0 {value = dense<1> : tensor<1xi32>} : (tensor<2xi64>) -> tensor<?x?xf32>
  return
}

// -----

// Tests that kiln.range takes scalars.
func.func @range_not_scalar(%arg0: tensor<1xi64>) {
  // expected-error @+1 {{expected scalar (rank 0) start, limit and delta}}
  %0 = kiln.range %arg0, %arg0, %arg0 : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xi64>
  return
}

// -----

// Tests that kiln.range operands have one type.
func.func @range_type_mismatch(%arg0: tensor<i64>, %arg1: tensor<i32>) {
  // expected-error @+1 {{failed to verify that all of {start, limit, delta} have same type}}
  %0 = kiln.range %arg0, %arg1, %arg0 : (tensor<i64>, tensor<i32>, tensor<i64>) -> tensor<?xi64>
  return
}

// -----

// Tests that kiln.range rejects a zero delta.
func.func @range_zero_delta() {
  %0 = kiln.constant dense<0> : tensor<i64>
  %1 = kiln.constant dense<4> : tensor<i64>
  // expected-error @+2 {{range delta must not be 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %2 = kiln.range %0, %1, %0 : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  return
}

// -----

// Tests that kiln.range rejects sequences too long to materialize.
func.func @range_too_long() {
  %0 = kiln.constant dense<0.0> : tensor<f32>
  %1 = kiln.constant dense<1.0e+20> : tensor<f32>
  %2 = kiln.constant dense<1.0> : tensor<f32>
  // expected-error @+2 {{range is too long}}
  // expected-error @+1 {{failed to infer returned types}}
  %3 = kiln.range %0, %1, %2 : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
  return
}

// -----

// Tests that the kiln.range length is ceil((limit - start) / delta), at least 0.
func.func @range_result_length() {
  %0 = kiln.constant dense<10> : tensor<i64>
  %1 = kiln.constant dense<0> : tensor<i64>
  %2 = kiln.constant dense<-3> : tensor<i64>
  // expected-error @+2 {{inferred type(s) 'tensor<4xi64>' are incompatible with return type(s) of operation 'tensor<3xi64>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %3 = kiln.range %0, %1, %2 : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<3xi64>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

// Tests that the kiln.quantize_linear result type is the zero point's.
func.func @quantize_zero_point_type(%arg0: tensor<4xf32>, %arg1: tensor<f32>, %arg2: tensor<i8>) {
  // expected-error @+1 {{expected the result element type to be the zero point's}}
  %0 = kiln.quantize_linear %arg0, %arg1, %arg2 : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xui8>
  return
}

// -----

// Tests that kiln.quantize_linear keeps the input shape.
func.func @quantize_shape(%arg0: tensor<4xf32>, %arg1: tensor<f32>, %arg2: tensor<i8>) {
  // expected-error @+1 {{expected input and result of one shape}}
  %0 = kiln.quantize_linear %arg0, %arg1, %arg2 : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<5xi8>
  return
}

// -----

// Tests that the kiln.quantize_linear scale and zero point have one shape.
func.func @quantize_param_shapes(%arg0: tensor<2x4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<i8>) {
  // expected-error @+1 {{expected scale and zero point of one shape, got 'tensor<4xf32>' and 'tensor<i8>'}}
  %0 = kiln.quantize_linear %arg0, %arg1, %arg2 {axis = 1 : i64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<i8>) -> tensor<2x4xi8>
  return
}

// -----

// Tests that the kiln.quantize_linear scale is a scalar or 1-D.
func.func @quantize_scale_rank(%arg0: tensor<2x4xf32>, %arg1: tensor<2x4xf32>, %arg2: tensor<2x4xi8>) {
  // expected-error @+1 {{expected a scalar or 1-D scale, got 'tensor<2x4xf32>'}}
  %0 = kiln.quantize_linear %arg0, %arg1, %arg2 : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xi8>) -> tensor<2x4xi8>
  return
}

// -----

// Tests that the per-axis kiln.quantize_linear axis lies inside the input rank.
func.func @quantize_axis(%arg0: tensor<2x4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xi8>) {
  // expected-error @+1 {{expected axis in [0, 2), got 2}}
  %0 = kiln.quantize_linear %arg0, %arg1, %arg2 {axis = 2 : i64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xi8>) -> tensor<2x4xi8>
  return
}

// -----

// Tests that the per-axis kiln.quantize_linear scale matches the axis dim.
func.func @quantize_per_axis_size(%arg0: tensor<2x4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xi8>) {
  // expected-error @+1 {{expected per-axis scale of size 2, got 'tensor<4xf32>'}}
  %0 = kiln.quantize_linear %arg0, %arg1, %arg2 {axis = 0 : i64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xi8>) -> tensor<2x4xi8>
  return
}

// -----

// Tests that kiln.quantize_linear quantizes floats only.
func.func @quantize_integer_input(%arg0: tensor<4xi32>, %arg1: tensor<f32>, %arg2: tensor<i8>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float values}}
  %0 = kiln.quantize_linear %arg0, %arg1, %arg2 : (tensor<4xi32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  return
}

// -----

// Tests that the kiln.dequantize_linear result type is the scale's.
func.func @dequantize_result_type(%arg0: tensor<4xi8>, %arg1: tensor<f32>, %arg2: tensor<i8>) {
  // expected-error @+1 {{expected the result element type to be the scale's}}
  %0 = kiln.dequantize_linear %arg0, %arg1, %arg2 : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf16>
  return
}

// -----

// Tests that the kiln.dequantize_linear zero point has the input's element type.
func.func @dequantize_zero_point_type(%arg0: tensor<4xi8>, %arg1: tensor<f32>, %arg2: tensor<ui8>) {
  // expected-error @+1 {{expected the zero point's element type to be the input's}}
  %0 = kiln.dequantize_linear %arg0, %arg1, %arg2 : (tensor<4xi8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  return
}

// -----

// Tests that kiln.dequantize_linear keeps the input shape.
func.func @dequantize_shape(%arg0: tensor<4xi8>, %arg1: tensor<f32>, %arg2: tensor<i8>) {
  // expected-error @+1 {{expected input and result of one shape}}
  %0 = kiln.dequantize_linear %arg0, %arg1, %arg2 : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<2x2xf32>
  return
}

// -----

// Tests that the per-axis kiln.dequantize_linear scale matches the axis dim.
func.func @dequantize_per_axis_size(%arg0: tensor<2x4xi8>, %arg1: tensor<3xf32>, %arg2: tensor<3xi8>) {
  // expected-error @+1 {{expected per-axis scale of size 4, got 'tensor<3xf32>'}}
  %0 = kiln.dequantize_linear %arg0, %arg1, %arg2 {axis = 1 : i64} : (tensor<2x4xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x4xf32>
  return
}

// -----

// Tests that the kiln.qlinear_conv result type is the output zero point's.
func.func @qlinear_conv_output_type(%arg0: tensor<1x8x6x6xui8>, %arg1: tensor<f32>, %arg2: tensor<ui8>, %arg3: tensor<4x8x3x3xi8>, %arg4: tensor<i8>) {
  // expected-error @+1 {{expected the result element type to be the output zero point's}}
  %0 = kiln.qlinear_conv %arg0, %arg1, %arg2, %arg3, %arg1, %arg4, %arg1, %arg2 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x6x6xui8>, tensor<f32>, tensor<ui8>, tensor<4x8x3x3xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x4x4xi8>
  return
}

// -----

// Tests that kiln.qlinear_conv checks the channels against the group.
func.func @qlinear_conv_channels(%arg0: tensor<1x8x6x6xui8>, %arg1: tensor<f32>, %arg2: tensor<ui8>, %arg3: tensor<4x4x3x3xi8>, %arg4: tensor<i8>) {
  // expected-error @+1 {{expected input channels (8) = filter channels (4) x group (1)}}
  %0 = kiln.qlinear_conv %arg0, %arg1, %arg2, %arg3, %arg1, %arg4, %arg1, %arg2 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x6x6xui8>, tensor<f32>, tensor<ui8>, tensor<4x4x3x3xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x4x4xui8>
  return
}

// -----

// Tests that kiln.qlinear_conv needs input and filter of one rank >= 3.
func.func @qlinear_conv_rank(%arg0: tensor<1x8xui8>, %arg1: tensor<f32>, %arg2: tensor<ui8>, %arg3: tensor<4x8xi8>, %arg4: tensor<i8>) {
  // expected-error @+1 {{expected input and filter of equal rank >= 3}}
  %0 = kiln.qlinear_conv %arg0, %arg1, %arg2, %arg3, %arg1, %arg4, %arg1, %arg2 {dilations = array<i64>, pads = array<i64>, strides = array<i64>} : (tensor<1x8xui8>, tensor<f32>, tensor<ui8>, tensor<4x8xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>) -> tensor<1x4xui8>
  return
}

// -----

// Tests that kiln.qlinear_conv checks its window attributes.
func.func @qlinear_conv_window_attrs(%arg0: tensor<1x8x6x6xui8>, %arg1: tensor<f32>, %arg2: tensor<ui8>, %arg3: tensor<4x8x3x3xi8>, %arg4: tensor<i8>) {
  // expected-error @+1 {{expected 2 strides, 2 dilations and 4 pads for 2 spatial dims, got 2, 2 and 2}}
  %0 = kiln.qlinear_conv %arg0, %arg1, %arg2, %arg3, %arg1, %arg4, %arg1, %arg2 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x6x6xui8>, tensor<f32>, tensor<ui8>, tensor<4x8x3x3xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x4x4xui8>
  return
}

// -----

// Tests that the kiln.qlinear_conv result has the convolution shape.
func.func @qlinear_conv_result_shape(%arg0: tensor<1x8x6x6xui8>, %arg1: tensor<f32>, %arg2: tensor<ui8>, %arg3: tensor<4x8x3x3xi8>, %arg4: tensor<i8>) {
  // expected-error @+1 {{expected a result of the convolution shape, got 'tensor<5x5x5x5xui8>'}}
  %0 = kiln.qlinear_conv %arg0, %arg1, %arg2, %arg3, %arg1, %arg4, %arg1, %arg2 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x6x6xui8>, tensor<f32>, tensor<ui8>, tensor<4x8x3x3xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>) -> tensor<5x5x5x5xui8>
  return
}

// -----

// Tests that the kiln.qlinear_conv bias has one element per output channel.
func.func @qlinear_conv_bias_shape(%arg0: tensor<1x8x6x6xui8>, %arg1: tensor<f32>, %arg2: tensor<ui8>, %arg3: tensor<4x8x3x3xi8>, %arg4: tensor<i8>, %arg5: tensor<7xi32>) {
  // expected-error @+1 {{expected bias of shape [4], got 'tensor<7xi32>'}}
  %0 = kiln.qlinear_conv %arg0, %arg1, %arg2, %arg3, %arg1, %arg4, %arg1, %arg2, %arg5 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x6x6xui8>, tensor<f32>, tensor<ui8>, tensor<4x8x3x3xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>, tensor<7xi32>) -> tensor<1x4x4x4xui8>
  return
}

// -----

// Tests that the kiln.qlinear_matmul result type is the output zero point's.
func.func @qlinear_matmul_output_type(%arg0: tensor<2x8xi8>, %arg1: tensor<f32>, %arg2: tensor<i8>, %arg3: tensor<8x4xi8>, %arg4: tensor<ui8>) {
  // expected-error @+1 {{expected the result element type to be the output zero point's}}
  %0 = kiln.qlinear_matmul %arg0, %arg1, %arg2, %arg3, %arg1, %arg2, %arg1, %arg4 : (tensor<2x8xi8>, tensor<f32>, tensor<i8>, tensor<8x4xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>) -> tensor<2x4xi8>
  return
}

// -----

// Tests that kiln.qlinear_matmul checks the contraction dims like kiln.matmul.
func.func @qlinear_matmul_contraction(%arg0: tensor<2x8xi8>, %arg1: tensor<f32>, %arg2: tensor<i8>, %arg3: tensor<7x4xi8>) {
  // expected-error @+1 {{incompatible matmul operands}}
  %0 = kiln.qlinear_matmul %arg0, %arg1, %arg2, %arg3, %arg1, %arg2, %arg1, %arg2 : (tensor<2x8xi8>, tensor<f32>, tensor<i8>, tensor<7x4xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<i8>) -> tensor<2x4xi8>
  return
}

// -----

// Tests that kiln.matmul_integer rejects scalar operands.
func.func @matmul_integer_scalar(%arg0: tensor<i8>, %arg1: tensor<8x4xi8>) {
  // expected-error @+1 {{incompatible matmul operands 'tensor<i8>' x 'tensor<8x4xi8>'}}
  %0 = kiln.matmul_integer %arg0, %arg1, %arg0, %arg0 : (tensor<i8>, tensor<8x4xi8>, tensor<i8>, tensor<i8>) -> tensor<4xi32>
  return
}

// -----

// Tests that kiln.matmul_integer accumulates in i32.
func.func @matmul_integer_result_type(%arg0: tensor<2x8xi8>, %arg1: tensor<8x4xi8>, %arg2: tensor<i8>) {
  // expected-error @+1 {{result #0 must be tensor of 32-bit signless integer values}}
  %0 = kiln.matmul_integer %arg0, %arg1, %arg2, %arg2 : (tensor<2x8xi8>, tensor<8x4xi8>, tensor<i8>, tensor<i8>) -> tensor<2x4xi8>
  return
}

// -----

// Tests that kiln.matmul_integer checks the contraction dims like kiln.matmul.
func.func @matmul_integer_contraction(%arg0: tensor<2x8xi8>, %arg1: tensor<7x4xi8>, %arg2: tensor<i8>) {
  // expected-error @+1 {{incompatible matmul operands}}
  %0 = kiln.matmul_integer %arg0, %arg1, %arg2, %arg2 : (tensor<2x8xi8>, tensor<7x4xi8>, tensor<i8>, tensor<i8>) -> tensor<2x4xi32>
  return
}

// -----

// Tests that the kiln.matmul_integer result has the matmul shape.
func.func @matmul_integer_result_shape(%arg0: tensor<2x8xi8>, %arg1: tensor<8x4xi8>, %arg2: tensor<i8>) {
  // expected-error @+1 {{expected a result of the matmul shape, got 'tensor<9x9xi32>'}}
  %0 = kiln.matmul_integer %arg0, %arg1, %arg2, %arg2 : (tensor<2x8xi8>, tensor<8x4xi8>, tensor<i8>, tensor<i8>) -> tensor<9x9xi32>
  return
}

// -----

// Tests that kiln.conv_integer needs input and filter of one rank >= 3.
func.func @conv_integer_rank(%arg0: tensor<1x8x6x6xui8>, %arg1: tensor<4x8x3xi8>, %arg2: tensor<ui8>, %arg3: tensor<i8>) {
  // expected-error @+1 {{expected input and filter of equal rank >= 3}}
  %0 = kiln.conv_integer %arg0, %arg1, %arg2, %arg3 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x6x6xui8>, tensor<4x8x3xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x4x4x4xi32>
  return
}

// -----

// Tests that kiln.conv_integer checks the group against the output channels.
func.func @conv_integer_group(%arg0: tensor<1x8x6x6xui8>, %arg1: tensor<6x2x3x3xi8>, %arg2: tensor<ui8>, %arg3: tensor<i8>) {
  // expected-error @+1 {{expected output channels (6) divisible by group (4)}}
  %0 = kiln.conv_integer %arg0, %arg1, %arg2, %arg3 {dilations = array<i64: 1, 1>, group = 4 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x6x6xui8>, tensor<6x2x3x3xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x6x4x4xi32>
  return
}

// -----

// Tests that the kiln.conv_integer result has the convolution shape.
func.func @conv_integer_result_shape(%arg0: tensor<1x8x6x6xui8>, %arg1: tensor<4x8x3x3xi8>, %arg2: tensor<ui8>, %arg3: tensor<i8>) {
  // expected-error @+1 {{expected a result of the convolution shape, got 'tensor<1x4x4x4xi32>'}}
  %0 = kiln.conv_integer %arg0, %arg1, %arg2, %arg3 {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x6x6xui8>, tensor<4x8x3x3xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x4x4x4xi32>
  return
}
