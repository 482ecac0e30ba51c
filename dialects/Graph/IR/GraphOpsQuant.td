//===- GraphOpsQuant.td - quantization ops -----------------*- tablegen -*-===//
//
// Part of GraphOps.td, which includes it after the ops it builds on; not
// meant to be included on its own.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_GRAPH_OPS_QUANT
#define KILN_GRAPH_OPS_QUANT

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

def Graph_QuantizeLinearOp : Graph_Op<"quantize_linear", [Pure]> {
  let summary = "quantize: saturate(round(x / scale) + zero_point)";
  let description = [{
    Quantizes per tensor (scalar `scale`) or per axis (1-D `scale` along
    `axis`). The result's element type is the zero point's (i8, ui8, i16, ui16,
    f8E4M3FN, f8E5M2). ONNX `QuantizeLinear` opsets 10, 13, 19, 21 (the
    importer materializes a zero `zero_point` when absent: ui8 by default).
  }];
  let arguments = (ins Graph_QuantScaleTensor:$input, Graph_QuantScaleTensor:$scale,
                       Graph_QuantizedTensor:$zero_point,
                       DefaultValuedAttr<I64Attr, "1">:$axis,
                       DefaultValuedAttr<BoolAttr, "true">:$saturate);
  let results = (outs Graph_QuantizedTensor:$output);
  let assemblyFormat = "$input `,` $scale `,` $zero_point attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_DequantizeLinearOp : Graph_Op<"dequantize_linear", [Pure]> {
  let summary = "dequantize: (x - zero_point) * scale";
  let description = [{
    Dequantizes per tensor or per axis; the result has the scale's element
    type. ONNX `DequantizeLinear` opsets 10, 13, 19, 21 (i32 inputs allowed,
    zero point materialized when absent).
  }];
  let arguments = (ins Graph_QuantizedTensor:$input, Graph_QuantScaleTensor:$scale,
                       Graph_QuantizedTensor:$zero_point,
                       DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs Graph_QuantScaleTensor:$output);
  let assemblyFormat = "$input `,` $scale `,` $zero_point attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_QLinearConvOp : Graph_Op<"qlinear_conv", [Pure]> {
  let summary = "quantized convolution with requantized output";
  let description = [{
    Convolution on 8-bit inputs with per-tensor (or, for the filter,
    per-output-channel) scales and zero points, optional i32 bias, and
    output requantized to `output_zero_point`'s type. Attributes as
    `kiln.conv`. ONNX `QLinearConv` opset 10.
  }];
  let arguments = (ins Graph_Int8Tensor:$input, Graph_QuantScaleTensor:$input_scale,
                       Graph_Int8Tensor:$input_zero_point, Graph_Int8Tensor:$filter,
                       Graph_QuantScaleTensor:$filter_scale,
                       Graph_Int8Tensor:$filter_zero_point,
                       Graph_QuantScaleTensor:$output_scale,
                       Graph_Int8Tensor:$output_zero_point,
                       Optional<TensorOf<[I32]>>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group);
  let results = (outs Graph_Int8Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_QLinearMatMulOp : Graph_Op<"qlinear_matmul", [Pure]> {
  let summary = "quantized matmul with requantized output";
  let description = [{
    `kiln.matmul` on 8-bit operands with scales and zero points, result
    requantized to `output_zero_point`'s type. ONNX `QLinearMatMul` opsets 10, 21.
  }];
  let arguments = (ins Graph_Int8Tensor:$lhs, Graph_QuantScaleTensor:$lhs_scale,
                       Graph_Int8Tensor:$lhs_zero_point, Graph_Int8Tensor:$rhs,
                       Graph_QuantScaleTensor:$rhs_scale, Graph_Int8Tensor:$rhs_zero_point,
                       Graph_QuantScaleTensor:$output_scale,
                       Graph_Int8Tensor:$output_zero_point);
  let results = (outs Graph_Int8Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_MatMulIntegerOp : Graph_Op<"matmul_integer", [Pure]> {
  let summary = "8-bit matmul with i32 result";
  let description = [{
    `(lhs - lhs_zero_point) x (rhs - rhs_zero_point)` accumulated in i32,
    `kiln.matmul` shape rules. ONNX `MatMulInteger` opset 10 (absent zero
    points are materialized as zeros).
  }];
  let arguments = (ins Graph_Int8Tensor:$lhs, Graph_Int8Tensor:$rhs,
                       Graph_Int8Tensor:$lhs_zero_point, Graph_Int8Tensor:$rhs_zero_point);
  let results = (outs TensorOf<[I32]>:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_ConvIntegerOp : Graph_Op<"conv_integer", [Pure]> {
  let summary = "8-bit convolution with i32 result";
  let description = [{
    Convolution of `(input - input_zero_point)` with `(filter -
    filter_zero_point)` accumulated in i32; attributes as `kiln.conv`. ONNX
    `ConvInteger` opset 10.
  }];
  let arguments = (ins Graph_Int8Tensor:$input, Graph_Int8Tensor:$filter,
                       Graph_Int8Tensor:$input_zero_point, Graph_Int8Tensor:$filter_zero_point,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group);
  let results = (outs TensorOf<[I32]>:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

#endif // KILN_GRAPH_OPS_QUANT
