//===- GraphOps.td - kiln graph dialect ops -----------------*- tablegen -*-===//
//
// Ops of the kiln graph dialect. Each op's description names the ONNX op(s)
// and opsets it covers and how the importer normalizes them.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_GRAPH_OPS
#define KILN_GRAPH_OPS

include "dialects/Graph/IR/GraphDialect.td"
include "dialects/Graph/IR/GraphEnums.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Graph_FloatTensor : RankedTensorOf<[F16, BF16, F32, F64]>;
def Graph_IntTensor : RankedTensorOf<[I8, I16, I32, I64, UI8, UI16, UI32, UI64]>;
def Graph_NumTensor : RankedTensorOf<[F16, BF16, F32, F64, I8, I16, I32, I64,
                                      UI8, UI16, UI32, UI64]>;
def Graph_BoolTensor : RankedTensorOf<[I1]>;
def Graph_Tensor : RankedTensorOf<[AnyType]>;
def Graph_IndexTensor : RankedTensorOf<[I32, I64]>;
def Graph_ShapeTensor : TensorRankOf<[I64], [1]>;
def Graph_QuantizedTensor : RankedTensorOf<[I8, UI8, I16, UI16, I32,
                                            F8E4M3FN, F8E5M2]>;
def Graph_QuantScaleTensor : RankedTensorOf<[F16, BF16, F32]>;
def Graph_Int8Tensor : RankedTensorOf<[I8, UI8]>;

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Graph_ConstantOp : Graph_Op<"constant",
    [ConstantLike, Pure, InferTypeOpAdaptor]> {
  let summary = "constant tensor (weights, shapes)";
  let description = [{
    A constant tensor. Covers ONNX `Constant` (opsets 1-21, every `value*`
    attribute form) and graph initializers. Weights larger than a few dozen
    elements are `dense_resource` blobs so that they are never printed element
    by element; small tensors (shapes, axes) are `dense` so folders can read them.

    ```mlir
    %w = kiln.constant dense_resource<conv1.weight> : tensor<64x3x7x7xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

class Graph_UnaryOp<string mnemonic, string onnxName, string opsets,
                    string what, Type T = Graph_FloatTensor,
                    list<Trait> traits = []>
    : Graph_Op<mnemonic, !listconcat(traits,
        [Pure, SameOperandsAndResultType, InferTypeOpInterface])> {
  let summary = "elementwise " # what;
  let description = "Elementwise " # what # ". ONNX `" # onnxName #
                    "`, opsets " # opsets # ".";
  let arguments = (ins T:$input);
  let results = (outs T:$output);
  let assemblyFormat = "$input attr-dict `:` type($output)";
}

def Graph_ReluOp : Graph_UnaryOp<"relu", "Relu", "6, 13, 14", "max(x, 0)",
                                 Graph_NumTensor>;
def Graph_SigmoidOp : Graph_UnaryOp<"sigmoid", "Sigmoid", "6, 13", "1 / (1 + exp(-x))">;
def Graph_TanhOp : Graph_UnaryOp<"tanh", "Tanh", "6, 13", "hyperbolic tangent">;
def Graph_ErfOp : Graph_UnaryOp<"erf", "Erf", "9, 13", "error function">;
def Graph_SqrtOp : Graph_UnaryOp<"sqrt", "Sqrt", "6, 13", "square root">;
def Graph_ExpOp : Graph_UnaryOp<"exp", "Exp", "6, 13", "exponential">;
def Graph_LogOp : Graph_UnaryOp<"log", "Log", "6, 13", "natural logarithm">;
def Graph_ReciprocalOp : Graph_UnaryOp<"reciprocal", "Reciprocal", "6, 13", "1 / x">;
def Graph_FloorOp : Graph_UnaryOp<"floor", "Floor", "6, 13", "floor">;
def Graph_CeilOp : Graph_UnaryOp<"ceil", "Ceil", "6, 13", "ceiling">;
def Graph_RoundOp : Graph_UnaryOp<"round", "Round", "11", "round half to even">;
def Graph_SinOp : Graph_UnaryOp<"sin", "Sin", "7", "sine">;
def Graph_CosOp : Graph_UnaryOp<"cos", "Cos", "7", "cosine">;
def Graph_TanOp : Graph_UnaryOp<"tan", "Tan", "7", "tangent">;
def Graph_AsinOp : Graph_UnaryOp<"asin", "Asin", "7", "arcsine">;
def Graph_AcosOp : Graph_UnaryOp<"acos", "Acos", "7", "arccosine">;
def Graph_AtanOp : Graph_UnaryOp<"atan", "Atan", "7", "arctangent">;
def Graph_SinhOp : Graph_UnaryOp<"sinh", "Sinh", "9", "hyperbolic sine">;
def Graph_CoshOp : Graph_UnaryOp<"cosh", "Cosh", "9", "hyperbolic cosine">;
def Graph_AsinhOp : Graph_UnaryOp<"asinh", "Asinh", "9", "inverse hyperbolic sine">;
def Graph_AcoshOp : Graph_UnaryOp<"acosh", "Acosh", "9", "inverse hyperbolic cosine">;
def Graph_AtanhOp : Graph_UnaryOp<"atanh", "Atanh", "9", "inverse hyperbolic tangent">;
def Graph_SoftplusOp : Graph_UnaryOp<"softplus", "Softplus", "1", "log(1 + exp(x))">;
def Graph_SoftsignOp : Graph_UnaryOp<"softsign", "Softsign", "1", "x / (1 + |x|)">;
def Graph_HardSwishOp : Graph_UnaryOp<"hard_swish", "HardSwish", "14",
                                      "x * max(0, min(1, x / 6 + 1 / 2))">;
def Graph_MishOp : Graph_UnaryOp<"mish", "Mish", "18", "x * tanh(softplus(x))">;
def Graph_AbsOp : Graph_UnaryOp<"abs", "Abs", "6, 13", "absolute value",
                                Graph_NumTensor>;
def Graph_NegOp : Graph_UnaryOp<"neg", "Neg", "6, 13", "negation",
                                Graph_NumTensor> {
  // Shape subgraphs negate axes (LayerNormalization's function body).
  let hasFolder = 1;
}
def Graph_SignOp : Graph_UnaryOp<"sign", "Sign", "9, 13", "sign (-1, 0, 1)",
                                 Graph_NumTensor>;
def Graph_NotOp : Graph_UnaryOp<"not", "Not", "1", "logical not",
                                Graph_BoolTensor>;
def Graph_BitwiseNotOp : Graph_UnaryOp<"bitwise_not", "BitwiseNot", "18",
                                       "bitwise not", Graph_IntTensor>;

class Graph_UnaryAttrOp<string mnemonic, string onnxName, string opsets,
                        string what, dag attrs>
    : Graph_Op<mnemonic, [Pure, SameOperandsAndResultType,
                          InferTypeOpInterface]> {
  let summary = "elementwise " # what;
  let description = "Elementwise " # what # ". ONNX `" # onnxName #
                    "`, opsets " # opsets # "; ONNX defaults are the defaults.";
  let arguments = !con((ins Graph_FloatTensor:$input), attrs);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($output)";
}

def Graph_LeakyReluOp : Graph_UnaryAttrOp<"leaky_relu", "LeakyRelu", "6, 16",
    "x if x >= 0 else alpha * x",
    (ins DefaultValuedAttr<F32Attr, "0.01">:$alpha)>;
def Graph_EluOp : Graph_UnaryAttrOp<"elu", "Elu", "6", "x if x >= 0 else alpha * (exp(x) - 1)",
    (ins DefaultValuedAttr<F32Attr, "1.0">:$alpha)>;
def Graph_SeluOp : Graph_UnaryAttrOp<"selu", "Selu", "6",
    "gamma * (x if x > 0 else alpha * (exp(x) - 1))",
    (ins DefaultValuedAttr<F32Attr, "1.67326319217681884765625">:$alpha,
         DefaultValuedAttr<F32Attr, "1.05070102214813232421875">:$gamma)>;
def Graph_CeluOp : Graph_UnaryAttrOp<"celu", "Celu", "12",
    "max(0, x) + min(0, alpha * (exp(x / alpha) - 1))",
    (ins DefaultValuedAttr<F32Attr, "1.0">:$alpha)>;
def Graph_HardSigmoidOp : Graph_UnaryAttrOp<"hard_sigmoid", "HardSigmoid", "6",
    "max(0, min(1, alpha * x + beta))",
    (ins DefaultValuedAttr<F32Attr, "0.2">:$alpha,
         DefaultValuedAttr<F32Attr, "0.5">:$beta)>;
def Graph_ThresholdedReluOp : Graph_UnaryAttrOp<"thresholded_relu",
    "ThresholdedRelu", "10", "x if x > alpha else 0",
    (ins DefaultValuedAttr<F32Attr, "1.0">:$alpha)>;
def Graph_ShrinkOp : Graph_UnaryAttrOp<"shrink", "Shrink", "9",
    "x + bias if x < -lambd, x - bias if x > lambd, else 0",
    (ins DefaultValuedAttr<F32Attr, "0.0">:$bias,
         DefaultValuedAttr<F32Attr, "0.5">:$lambd)>;
def Graph_GeluOp : Graph_UnaryAttrOp<"gelu", "Gelu", "20",
    "Gaussian error linear unit; approximate is \"none\" or \"tanh\"",
    (ins DefaultValuedAttr<Graph_GeluApproximationAttr, "::kiln::graph::GeluApproximation::None">:$approximate)>;

def Graph_ClipOp : Graph_Op<"clip", [Pure, SameOperandsAndResultType,
                                     InferTypeOpInterface]> {
  let summary = "elementwise clamp to [min, max]";
  let description = [{
    Clamps every element to `[min, max]`. ONNX `Clip` opsets 1, 6 (bounds as
    attributes), 11, 12, 13 (bounds as optional inputs, which must be
    constants: the importer makes them attributes). Absent bounds are -inf/+inf
    (the type's lowest/highest value for integers).
  }];
  let arguments = (ins Graph_NumTensor:$input, OptionalAttr<F64Attr>:$min,
                       OptionalAttr<F64Attr>:$max);
  let results = (outs Graph_NumTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($output)";
}

def Graph_IsNaNOp : Graph_Op<"is_nan", [Pure, InferTypeOpAdaptor]> {
  let summary = "elementwise test for NaN";
  let description = "True where the element is NaN. ONNX `IsNaN`, opsets 9, 13, 20.";
  let arguments = (ins Graph_FloatTensor:$input);
  let results = (outs Graph_BoolTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Graph_IsInfOp : Graph_Op<"is_inf", [Pure, InferTypeOpAdaptor]> {
  let summary = "elementwise test for infinity";
  let description = "True where the element is +inf (detect_positive) or -inf "
                    "(detect_negative). ONNX `IsInf`, opsets 10, 20.";
  let arguments = (ins Graph_FloatTensor:$input,
                       DefaultValuedAttr<BoolAttr, "true">:$detect_negative,
                       DefaultValuedAttr<BoolAttr, "true">:$detect_positive);
  let results = (outs Graph_BoolTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Graph_CastOp : Graph_Op<"cast", [Pure]> {
  let summary = "elementwise element-type conversion";
  let description = [{
    Converts each element to the result's element type (round to nearest even
    for floats, truncation toward zero for float to integer, non-zero to true
    for bool). ONNX `Cast` opsets 6, 9, 13, 19, 21 and `CastLike` 15, 19, 21
    (the importer takes the target type from the second input). String types
    are not supported.
  }];
  let arguments = (ins Graph_Tensor:$input);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise binary ops (numpy broadcasting)
//===----------------------------------------------------------------------===//

class Graph_BroadcastOp<string mnemonic, string onnxName, string opsets,
                        string what, Type T, Type R, list<Trait> traits = []>
    : Graph_Op<mnemonic, !listconcat(traits,
        [Pure, InferTypeOpAdaptorWithIsCompatible,
         AllElementTypesMatch<["lhs", "rhs"]>])> {
  let summary = "elementwise " # what # " with broadcasting";
  let description = "Elementwise " # what # " with numpy-style (multidirectional) "
                    "broadcasting; both operands have the same element type. ONNX `" #
                    onnxName # "`, opsets " # opsets # ".";
  let arguments = (ins T:$lhs, T:$rhs);
  let results = (outs R:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

class Graph_ArithOp<string mnemonic, string onnxName, string opsets, string what,
                    Type T = Graph_NumTensor>
    : Graph_BroadcastOp<mnemonic, onnxName, opsets, what, T, T,
                        [AllElementTypesMatch<["lhs", "output"]>]> {
  let hasFolder = 1;
}

def Graph_AddOp : Graph_ArithOp<"add", "Add", "7, 13, 14", "addition">;
def Graph_SubOp : Graph_ArithOp<"sub", "Sub", "7, 13, 14", "subtraction">;
def Graph_MulOp : Graph_ArithOp<"mul", "Mul", "7, 13, 14", "multiplication">;
def Graph_DivOp : Graph_ArithOp<"div", "Div", "7, 13, 14",
                                "division (integer division truncates)">;
def Graph_PowOp : Graph_ArithOp<"pow", "Pow", "7, 12, 13, 15",
                                "power (the importer casts the exponent to the base's type)">;
def Graph_MaxOp : Graph_ArithOp<"max", "Max", "8, 12, 13",
                                "maximum (variadic ONNX `Max` becomes a chain)">;
def Graph_MinOp : Graph_ArithOp<"min", "Min", "8, 12, 13",
                                "minimum (variadic ONNX `Min` becomes a chain)">;
def Graph_ModOp : Graph_ArithOp<"mod", "Mod", "10, 13",
    "remainder (sign of the divisor, or of the dividend when fmod is set)"> {
  let arguments = (ins Graph_NumTensor:$lhs, Graph_NumTensor:$rhs,
                       DefaultValuedAttr<BoolAttr, "false">:$fmod);
}
def Graph_BitShiftOp : Graph_ArithOp<"bit_shift", "BitShift", "11",
    "bit shift of unsigned integers (direction \"LEFT\" or \"RIGHT\")",
    Graph_IntTensor> {
  let arguments = (ins Graph_IntTensor:$lhs, Graph_IntTensor:$rhs, Graph_BitShiftDirectionAttr:$direction);
}
def Graph_BitwiseAndOp : Graph_ArithOp<"bitwise_and", "BitwiseAnd", "18",
                                       "bitwise and", Graph_IntTensor>;
def Graph_BitwiseOrOp : Graph_ArithOp<"bitwise_or", "BitwiseOr", "18",
                                      "bitwise or", Graph_IntTensor>;
def Graph_BitwiseXorOp : Graph_ArithOp<"bitwise_xor", "BitwiseXor", "18",
                                       "bitwise xor", Graph_IntTensor>;

class Graph_CompareOp<string mnemonic, string onnxName, string opsets, string what>
    : Graph_BroadcastOp<mnemonic, onnxName, opsets, what, Graph_Tensor,
                        Graph_BoolTensor> {
  let hasFolder = 1;
}

def Graph_EqualOp : Graph_CompareOp<"equal", "Equal", "7, 11, 13, 19", "a == b">;
def Graph_LessOp : Graph_CompareOp<"less", "Less", "7, 9, 13", "a < b">;
def Graph_LessOrEqualOp : Graph_CompareOp<"less_or_equal", "LessOrEqual", "12, 16", "a <= b">;
def Graph_GreaterOp : Graph_CompareOp<"greater", "Greater", "7, 9, 13", "a > b">;
def Graph_GreaterOrEqualOp : Graph_CompareOp<"greater_or_equal", "GreaterOrEqual",
                                             "12, 16", "a >= b">;

class Graph_LogicalOp<string mnemonic, string onnxName, string what>
    : Graph_BroadcastOp<mnemonic, onnxName, "7", what, Graph_BoolTensor,
                        Graph_BoolTensor> {
  let hasFolder = 1;
}
def Graph_AndOp : Graph_LogicalOp<"and", "And", "logical and">;
def Graph_OrOp : Graph_LogicalOp<"or", "Or", "logical or">;
def Graph_XorOp : Graph_LogicalOp<"xor", "Xor", "logical xor">;

def Graph_PReluOp : Graph_Op<"prelu", [Pure, InferTypeOpAdaptorWithIsCompatible,
                                       AllElementTypesMatch<["input", "slope", "output"]>]> {
  let summary = "parametric ReLU";
  let description = [{
    `x if x >= 0 else slope * x`, where `slope` broadcasts unidirectionally to
    `x` (the result has `x`'s shape). ONNX `PRelu` opsets 7, 9, 16.
  }];
  let arguments = (ins Graph_NumTensor:$input, Graph_NumTensor:$slope);
  let results = (outs Graph_NumTensor:$output);
  let assemblyFormat = "$input `,` $slope attr-dict `:` functional-type(operands, results)";
}

def Graph_WhereOp : Graph_Op<"where", [Pure, InferTypeOpAdaptorWithIsCompatible,
                                       AllElementTypesMatch<["lhs", "rhs", "output"]>]> {
  let summary = "elementwise select with broadcasting";
  let description = [{
    `lhs` where `condition` is true, else `rhs`; the three operands broadcast
    numpy-style. ONNX `Where` opsets 9, 16.
  }];
  let arguments = (ins Graph_BoolTensor:$condition, Graph_Tensor:$lhs, Graph_Tensor:$rhs);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$condition `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Linear algebra and convolution
//===----------------------------------------------------------------------===//

def Graph_MatMulOp : Graph_Op<"matmul", [Pure, InferTypeOpAdaptorWithIsCompatible,
                                         AllElementTypesMatch<["lhs", "rhs", "output"]>]> {
  let summary = "batched matrix product with numpy semantics";
  let description = [{
    Matrix product with `numpy.matmul` semantics: 1-D operands are promoted
    to matrices and the promoted dim removed from the result, leading batch
    dims broadcast. ONNX `MatMul` opsets 1, 9, 13, and the matmul forms of
    `Einsum` (opset 12), which the importer turns into transposes, reshapes
    and this op.
  }];
  let arguments = (ins Graph_NumTensor:$lhs, Graph_NumTensor:$rhs);
  let results = (outs Graph_NumTensor:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def Graph_GemmOp : Graph_Op<"gemm", [Pure, InferTypeOpAdaptorWithIsCompatible,
                                     AllElementTypesMatch<["a", "b", "output"]>]> {
  let summary = "general matrix multiply: alpha * op(A) * op(B) + beta * C";
  let description = [{
    `alpha * A' * B' + beta * C` with `A'` = transpose(A) if `trans_a`, likewise
    for B; A and B are 2-D; C is optional and broadcasts unidirectionally to
    `[M, N]`. ONNX `Gemm` opsets 7, 9, 11, 13.
  }];
  let arguments = (ins Graph_NumTensor:$a, Graph_NumTensor:$b,
                       Optional<Graph_NumTensor>:$c,
                       DefaultValuedAttr<F32Attr, "1.0">:$alpha,
                       DefaultValuedAttr<F32Attr, "1.0">:$beta,
                       DefaultValuedAttr<BoolAttr, "false">:$trans_a,
                       DefaultValuedAttr<BoolAttr, "false">:$trans_b);
  let results = (outs Graph_NumTensor:$output);
  let assemblyFormat = "$a `,` $b (`,` $c^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_ConvOp : Graph_Op<"conv", [Pure, InferTypeOpAdaptorWithIsCompatible,
                                     AllElementTypesMatch<["input", "filter", "output"]>]> {
  let summary = "N-d convolution (NCHW, OIHW filter)";
  let description = [{
    Grouped, strided, dilated, padded N-d convolution (cross-correlation) on
    `[N, C, D1..Dn]` with filter `[M, C/group, K1..Kn]` and optional bias `[M]`.
    `pads` holds the n begin pads then the n end pads. The importer resolves
    ONNX `auto_pad` into explicit pads; only when a strided SAME padding meets
    a dynamic spatial dim does `auto_pad` stay ("SAME_UPPER"/"SAME_LOWER",
    pads then zero, amounts computed at run time). ONNX `Conv` opsets 1, 11.

    `channels_last` (set by kiln-layout-nhwc, never by the importer): a 2-D
    convolution of an `[N, H, W, C]` input with an `[M, KH, KW, C/group]`
    filter into `[N, OH, OW, M]`; any group count (depthwise: group = C =
    M; grouped: each group's C/group channels are contiguous in a pixel, so
    the input reads as `[N, H, W, G, C/G]` and the filter as `[G, M/G, KH,
    KW, C/G]` without moving data), explicit pads only.
  }];
  let arguments = (ins Graph_FloatTensor:$input, Graph_FloatTensor:$filter,
                       Optional<Graph_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group,
                       DefaultValuedAttr<Graph_AutoPadAttr, "::kiln::graph::AutoPad::NotSet">:$auto_pad,
                       DefaultValuedAttr<BoolAttr, "false">:$channels_last);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = "$input `,` $filter (`,` $bias^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_ConvTransposeOp : Graph_Op<"conv_transpose",
    [Pure, InferTypeOpAdaptorWithIsCompatible,
     AllElementTypesMatch<["input", "filter", "output"]>]> {
  let summary = "N-d transposed convolution (NCHW, filter [C, M/group, K...])";
  let description = [{
    Transposed (fractionally strided) convolution; output size per spatial dim
    `stride * (in - 1) + output_padding + (k - 1) * dilation + 1 - pad_begin -
    pad_end`. `output_shape` and `auto_pad` are resolved into pads by the
    importer. ONNX `ConvTranspose` opsets 1, 11.
  }];
  let arguments = (ins Graph_FloatTensor:$input, Graph_FloatTensor:$filter,
                       Optional<Graph_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$output_padding,
                       DefaultValuedAttr<I64Attr, "1">:$group);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = "$input `,` $filter (`,` $bias^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Normalization and activation over axes
//===----------------------------------------------------------------------===//

def Graph_BatchNormOp : Graph_Op<"batch_norm", [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "inference-mode batch normalization";
  let description = [{
    `scale * (x - mean) / sqrt(var + epsilon) + bias` per channel (dim 1).
    ONNX `BatchNormalization` opsets 7, 9, 14, 15 in inference mode (training
    mode and the running-statistics outputs are rejected by the importer).
    With `channels_last` (kiln-layout-nhwc) the channel is the last dim.
  }];
  let arguments = (ins Graph_FloatTensor:$input, Graph_FloatTensor:$scale,
                       Graph_FloatTensor:$bias, Graph_FloatTensor:$mean,
                       Graph_FloatTensor:$variance,
                       DefaultValuedAttr<F32Attr, "1e-05">:$epsilon,
                       DefaultValuedAttr<BoolAttr, "false">:$channels_last);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = "$input `,` $scale `,` $bias `,` $mean `,` $variance attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_InstanceNormOp : Graph_Op<"instance_norm", [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "instance normalization";
  let description = [{
    Normalizes each (sample, channel) over its spatial dims, then applies
    per-channel `scale` and `bias`. ONNX `InstanceNormalization` opsets 6.
  }];
  let arguments = (ins Graph_FloatTensor:$input, Graph_FloatTensor:$scale,
                       Graph_FloatTensor:$bias,
                       DefaultValuedAttr<F32Attr, "1e-05">:$epsilon);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = "$input `,` $scale `,` $bias attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_LayerNormOp : Graph_Op<"layer_norm", [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "layer normalization over the trailing dims from axis";
  let description = [{
    Normalizes over dims `[axis, rank)` (statistics in at least fp32), then
    multiplies by `scale` and adds the optional `bias`, both broadcast to those
    dims. ONNX `LayerNormalization` opset 17 (the mean / inverse-std-dev
    outputs are rejected by the importer when used). `axis` is non-negative.
  }];
  let arguments = (ins Graph_FloatTensor:$input, Graph_FloatTensor:$scale,
                       Optional<Graph_FloatTensor>:$bias,
                       I64Attr:$axis,
                       DefaultValuedAttr<F32Attr, "1e-05">:$epsilon);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = "$input `,` $scale (`,` $bias^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_LRNOp : Graph_Op<"lrn", [Pure, SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "local response normalization across channels";
  let description = [{
    `x / (bias + alpha / size * sum(x^2 over `size` neighbouring channels))^beta`.
    ONNX `LRN` opsets 1, 13.
  }];
  let arguments = (ins Graph_FloatTensor:$input, ConfinedAttr<I64Attr, [IntPositive]>:$size,
                       DefaultValuedAttr<F32Attr, "0.0001">:$alpha,
                       DefaultValuedAttr<F32Attr, "0.75">:$beta,
                       DefaultValuedAttr<F32Attr, "1.0">:$bias);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($output)";
}

class Graph_SoftmaxBase<string mnemonic, string onnxName, string what>
    : Graph_Op<mnemonic, [Pure, SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = what # " along one axis";
  let description = what # " along `axis` (non-negative). ONNX `" # onnxName #
      "` opset 13; for opsets 1 and 11, which flatten the trailing dims from "
      "`axis`, the importer reshapes around this op when `axis` is not the last dim.";
  let arguments = (ins Graph_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($output)";
  let hasVerifier = 1;
}
def Graph_SoftmaxOp : Graph_SoftmaxBase<"softmax", "Softmax", "softmax">;
def Graph_LogSoftmaxOp : Graph_SoftmaxBase<"log_softmax", "LogSoftmax", "log of softmax">;

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

class Graph_PoolOp<string mnemonic, string onnxName, string opsets, string what,
                   dag extraAttrs>
    : Graph_Op<mnemonic, [Pure, InferTypeOpAdaptorWithIsCompatible,
                          AllElementTypesMatch<["input", "output"]>]> {
  let summary = what # " pooling over the spatial dims";
  let description = what # " pooling over the spatial dims of `[N, C, D1..Dn]`, "
      "`pads` as n begin pads then n end pads (`auto_pad` resolved by the importer, "
      "kept as \"SAME_UPPER\"/\"SAME_LOWER\" with zero pads only for strided SAME "
      "padding of dynamic dims). "
      "ONNX `" # onnxName # "`, opsets " # opsets # ". `GlobalAveragePool` and "
      "`GlobalMaxPool` are imported as `kiln.reduce_mean`/`kiln.reduce_max` over "
      "the spatial dims. `channels_last` (set by kiln-layout-nhwc on "
      "`max_pool` only): 2-D pooling of `[N, H, W, C]`, explicit pads.";
  let arguments = !con((ins Graph_NumTensor:$input,
                            DenseI64ArrayAttr:$kernel_shape,
                            DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                            DenseI64ArrayAttr:$dilations,
                            DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                            DefaultValuedAttr<Graph_AutoPadAttr, "::kiln::graph::AutoPad::NotSet">:$auto_pad,
                            DefaultValuedAttr<BoolAttr, "false">:$channels_last),
                       extraAttrs);
  let results = (outs Graph_NumTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_MaxPoolOp : Graph_PoolOp<"max_pool", "MaxPool", "1, 8, 10, 11, 12", "max",
                                   (ins)>;
def Graph_AvgPoolOp : Graph_PoolOp<"avg_pool", "AveragePool", "1, 7, 10, 11, 19",
    "average", (ins DefaultValuedAttr<BoolAttr, "false">:$count_include_pad)>;

//===----------------------------------------------------------------------===//
// Reductions, scans, top-k
//===----------------------------------------------------------------------===//

class Graph_ReduceOp<string mnemonic, string onnxName, string what>
    : Graph_Op<mnemonic, [Pure, InferTypeOpAdaptorWithIsCompatible,
                          AllElementTypesMatch<["input", "output"]>]> {
  let summary = "reduction: " # what;
  let description = "Reduces `" # what # "` over `axes` (sorted, non-negative, "
      "unique; empty means no reduction), keeping reduced dims as size 1 when "
      "`keepdims`. ONNX `" # onnxName # "` opsets 1, 11, 13, 18 (axes as an "
      "attribute or a constant input; an empty axes list with "
      "noop_with_empty_axes = 0 means all dims).";
  let arguments = (ins Graph_NumTensor:$input, DenseI64ArrayAttr:$axes,
                       DefaultValuedAttr<BoolAttr, "true">:$keepdims);
  let results = (outs Graph_NumTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_ReduceSumOp : Graph_ReduceOp<"reduce_sum", "ReduceSum", "sum"> { let hasFolder = 1; }
def Graph_ReduceMeanOp : Graph_ReduceOp<"reduce_mean", "ReduceMean", "mean">;
def Graph_ReduceMaxOp : Graph_ReduceOp<"reduce_max", "ReduceMax", "max">;
def Graph_ReduceMinOp : Graph_ReduceOp<"reduce_min", "ReduceMin", "min">;
def Graph_ReduceProdOp : Graph_ReduceOp<"reduce_prod", "ReduceProd", "product"> { let hasFolder = 1; }
def Graph_ReduceL1Op : Graph_ReduceOp<"reduce_l1", "ReduceL1", "sum of |x|">;
def Graph_ReduceL2Op : Graph_ReduceOp<"reduce_l2", "ReduceL2", "sqrt of sum of x^2">;
def Graph_ReduceLogSumOp : Graph_ReduceOp<"reduce_log_sum", "ReduceLogSum", "log of sum">;
def Graph_ReduceLogSumExpOp : Graph_ReduceOp<"reduce_log_sum_exp", "ReduceLogSumExp",
                                             "log of sum of exp">;
def Graph_ReduceSumSquareOp : Graph_ReduceOp<"reduce_sum_square", "ReduceSumSquare",
                                             "sum of x^2">;

class Graph_ArgOp<string mnemonic, string onnxName, string what>
    : Graph_Op<mnemonic, [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "index of the " # what # " along an axis";
  let description = "Index (i64) of the " # what # " element along `axis`; ties "
      "resolve to the first index, or the last when `select_last_index`. ONNX `" #
      onnxName # "` opsets 1, 11, 12, 13.";
  let arguments = (ins Graph_NumTensor:$input, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "true">:$keepdims,
                       DefaultValuedAttr<BoolAttr, "false">:$select_last_index);
  let results = (outs TensorOf<[I64]>:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}
def Graph_ArgMaxOp : Graph_ArgOp<"arg_max", "ArgMax", "largest">;
def Graph_ArgMinOp : Graph_ArgOp<"arg_min", "ArgMin", "smallest">;

def Graph_CumSumOp : Graph_Op<"cumsum", [Pure, SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "cumulative sum along an axis";
  let description = [{
    Inclusive (or `exclusive`) prefix sum along `axis`, from the end when
    `reverse`. ONNX `CumSum` opsets 11, 14 (the axis input must be a constant).
  }];
  let arguments = (ins Graph_NumTensor:$input, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "false">:$exclusive,
                       DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs Graph_NumTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($output)";
  let hasVerifier = 1;
}

def Graph_TopKOp : Graph_Op<"topk", [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "k largest (or smallest) elements along an axis";
  let description = [{
    The `k` largest (smallest unless `largest`) elements along `axis` and their
    i64 indices, sorted when `sorted`. ONNX `TopK` opsets 1, 10, 11 (K must be
    a constant).
  }];
  let arguments = (ins Graph_NumTensor:$input, I64Attr:$k, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "true">:$largest,
                       DefaultValuedAttr<BoolAttr, "true">:$sorted);
  let results = (outs Graph_NumTensor:$values, TensorOf<[I64]>:$indices);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

def Graph_ReshapeOp : Graph_Op<"reshape", [Pure, InferTypeOpAdaptorWithIsCompatible,
                                           AllElementTypesMatch<["input", "output"]>]> {
  let summary = "reshape to a shape given as a 1-D i64 tensor";
  let description = [{
    Reshapes `input` to `shape`; in `shape`, 0 copies the input dim (unless
    `allowzero`) and one -1 is inferred. The result type is static where the
    shape is a constant. ONNX `Reshape` opsets 5, 13, 14, 19, 21, and the
    importer's form of `Flatten` on static shapes.
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_ShapeTensor:$shape,
                       DefaultValuedAttr<BoolAttr, "false">:$allowzero);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input `,` $shape attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Graph_FlattenOp : Graph_Op<"flatten", [Pure, InferTypeOpAdaptorWithIsCompatible,
                                           AllElementTypesMatch<["input", "output"]>]> {
  let summary = "flatten to 2-D around an axis";
  let description = [{
    `[d0 * .. * d(axis-1), d(axis) * .. * d(n-1)]`; `axis` is non-negative.
    ONNX `Flatten` opsets 1, 9, 11, 13, 21.
  }];
  let arguments = (ins Graph_Tensor:$input, I64Attr:$axis);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_TransposeOp : Graph_Op<"transpose", [Pure, InferTypeOpAdaptorWithIsCompatible,
                                               AllElementTypesMatch<["input", "output"]>]> {
  let summary = "permute dims";
  let description = [{
    Result dim i is input dim `perm[i]`. ONNX `Transpose` opsets 1, 13, 21
    (an absent perm reverses the dims).
  }];
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Graph_SqueezeOp : Graph_Op<"squeeze", [Pure, InferTypeOpAdaptorWithIsCompatible,
                                           AllElementTypesMatch<["input", "output"]>]> {
  let summary = "remove size-1 dims";
  let description = [{
    Removes the dims in `axes` (sorted, non-negative, each of size 1). ONNX
    `Squeeze` opsets 1, 11, 13, 21 (axes from the attribute or a constant
    input; absent axes means every static size-1 dim).
  }];
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_UnsqueezeOp : Graph_Op<"unsqueeze", [Pure, InferTypeOpAdaptorWithIsCompatible,
                                               AllElementTypesMatch<["input", "output"]>]> {
  let summary = "insert size-1 dims";
  let description = [{
    Inserts size-1 dims at `axes` (positions in the result, sorted,
    non-negative). ONNX `Unsqueeze` opsets 1, 11, 13, 21.
  }];
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_ConcatOp : Graph_Op<"concat", [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "concatenate along an axis";
  let description = [{
    Concatenates one or more tensors of equal rank and element type along
    `axis` (non-negative). ONNX `Concat` opsets 4, 11, 13.
  }];
  let arguments = (ins Variadic<Graph_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_SplitOp : Graph_Op<"split", [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "split along an axis into pieces of given sizes";
  let description = [{
    Splits `input` along `axis` into `sizes.size()` results. ONNX `Split`
    opsets 2, 11, 13 (split as attribute or constant input) and 18
    (`num_outputs`): the importer computes explicit sizes.
  }];
  let arguments = (ins Graph_Tensor:$input, I64Attr:$axis,
                       DenseI64ArrayAttr:$sizes);
  let results = (outs Variadic<Graph_Tensor>:$outputs);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_SliceOp : Graph_Op<"slice", [Pure, InferTypeOpAdaptorWithIsCompatible,
                                       AllElementTypesMatch<["input", "output"]>]> {
  let summary = "strided slice with ONNX clamping rules";
  let description = [{
    Slices `input` along `axes` (1-D, same length as `starts`, `ends`,
    `steps`; all i64, possibly dynamic) with ONNX clamping of out-of-range
    and negative indices. The result is static where the indices are
    constants. ONNX `Slice` opsets 1 (attributes), 10, 11, 13 (inputs).
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_ShapeTensor:$starts,
                       Graph_ShapeTensor:$ends, Graph_ShapeTensor:$axes,
                       Graph_ShapeTensor:$steps);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input `,` $starts `,` $ends `,` $axes `,` $steps attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Graph_GatherOp : Graph_Op<"gather", [Pure, InferTypeOpAdaptorWithIsCompatible,
                                         AllElementTypesMatch<["input", "output"]>]> {
  let summary = "gather slices along an axis by index";
  let description = [{
    `output[i..., j..., k...] = input[i..., indices[j...], k...]` with the
    indices along `axis` (non-negative); negative indices count from the end.
    ONNX `Gather` opsets 1, 11, 13.
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_IndexTensor:$indices, I64Attr:$axis);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_GatherElementsOp : Graph_Op<"gather_elements",
    [Pure, InferTypeOpAdaptorWithIsCompatible, AllElementTypesMatch<["input", "output"]>]> {
  let summary = "gather single elements along an axis";
  let description = [{
    `output[i][j][k] = input[index][j][k]` with `index = indices[i][j][k]` for
    `axis` 0 (likewise for other axes); the result has the indices' shape.
    ONNX `GatherElements` opsets 11, 13.
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_IndexTensor:$indices, I64Attr:$axis);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_GatherNDOp : Graph_Op<"gather_nd", [Pure, InferTypeOpAdaptorWithIsCompatible,
                                            AllElementTypesMatch<["input", "output"]>]> {
  let summary = "gather slices by N-d index tuples";
  let description = [{
    With `b = batch_dims` and `k` the (static) last dim of `indices`, the
    result has shape `indices.shape[:-1] + input.shape[b + k:]` and
    `output[i..., j...] = input[i[:b]..., indices[i...], j...]`: each index
    tuple addresses the `k` input dims after the `b` leading batch dims,
    which `input` and `indices` share. Negative indices count from the end.
    ONNX `GatherND` opsets 11, 12 (`batch_dims`), 13.
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$batch_dims);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_ScatterElementsOp : Graph_Op<"scatter_elements",
    [Pure, InferTypeOpAdaptorWithIsCompatible,
     AllElementTypesMatch<["input", "updates", "output"]>]> {
  let summary = "scatter single elements along an axis";
  let description = [{
    A copy of `input` where, for every position `u` of `indices` (and of
    `updates`, which has the same shape), the element at `u` with dim `axis`
    replaced by `indices[u]` becomes `updates[u]` ("none") or is combined
    with it ("add", "mul", "max", "min"). Negative indices count from the
    end. With "none", of several updates to one element the last (in
    row-major order of `u`) wins. ONNX `ScatterElements` opsets 11, 13, 16
    (`reduction` add/mul), 18 (max/min), and `Scatter` opsets 9, 11.
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_IndexTensor:$indices,
                       Graph_Tensor:$updates, I64Attr:$axis,
                       DefaultValuedAttr<Graph_ScatterReductionAttr, "::kiln::graph::ScatterReduction::None">:$reduction);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input `,` $indices `,` $updates attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_ScatterNDOp : Graph_Op<"scatter_nd",
    [Pure, InferTypeOpAdaptorWithIsCompatible,
     AllElementTypesMatch<["input", "updates", "output"]>]> {
  let summary = "scatter slices by N-d index tuples";
  let description = [{
    A copy of `input` where, for every index tuple `indices[u]` (the last
    dim `k` of `indices` is static), the slice `input[indices[u]...]` of
    shape `input.shape[k:]` becomes `updates[u]` ("none") or is combined with
    it ("add", "mul", "max", "min"); `updates` has shape
    `indices.shape[:-1] + input.shape[k:]`. Negative indices count from the
    end. With "none", of several updates to one slice the last wins. ONNX
    `ScatterND` opsets 11, 13, 16 (`reduction` add/mul), 18 (max/min).
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_IndexTensor:$indices,
                       Graph_Tensor:$updates,
                       DefaultValuedAttr<Graph_ScatterReductionAttr, "::kiln::graph::ScatterReduction::None">:$reduction);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input `,` $indices `,` $updates attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_ExpandOp : Graph_Op<"expand", [Pure, InferTypeOpAdaptorWithIsCompatible,
                                         AllElementTypesMatch<["input", "output"]>]> {
  let summary = "broadcast to a shape";
  let description = [{
    Broadcasts `input` against `shape` (numpy rules, so the result may be
    larger than `shape`). ONNX `Expand` opsets 8, 13.
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_ShapeTensor:$shape);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input `,` $shape attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Graph_TileOp : Graph_Op<"tile", [Pure, InferTypeOpAdaptorWithIsCompatible,
                                     AllElementTypesMatch<["input", "output"]>]> {
  let summary = "repeat a tensor along each dim";
  let description = "Repeats `input` `repeats[i]` times along dim i. ONNX `Tile` opsets 6, 13.";
  let arguments = (ins Graph_Tensor:$input, Graph_ShapeTensor:$repeats);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input `,` $repeats attr-dict `:` functional-type(operands, results)";
}

def Graph_PadOp : Graph_Op<"pad", [Pure, InferTypeOpAdaptorWithIsCompatible,
                                   AllElementTypesMatch<["input", "output"]>]> {
  let summary = "pad with a constant, by reflection, edge or wrap";
  let description = [{
    Pads (or crops, for negative pads) each dim: `pads` is a 1-D i64 tensor of
    the rank begin pads then the rank end pads, over all dims (the importer
    expands ONNX `axes`). `mode` is "constant", "reflect", "edge" or "wrap";
    `value` is the constant pad value. ONNX `Pad` opsets 2 (attributes), 11,
    13, 18, 19, 21.
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_ShapeTensor:$pads,
                       DefaultValuedAttr<Graph_PadModeAttr, "::kiln::graph::PadMode::Constant">:$mode,
                       DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input `,` $pads attr-dict `:` functional-type(operands, results)";
}

def Graph_ResizeOp : Graph_Op<"resize", [Pure, InferTypeOpAdaptorWithIsCompatible,
                                         AllElementTypesMatch<["input", "output"]>]> {
  let summary = "resize by interpolation (nearest, linear, cubic)";
  let description = [{
    Resizes every dim of `input`. Either `scales` (an attribute, one per dim;
    output size floor(in * scale), and the scale enters the coordinate
    transform) or `sizes` (a 1-D i64 tensor, one per dim) is given. Modes and
    coordinate transforms follow ONNX `Resize` opsets 10, 11, 13, 18, 19 and
    `Upsample` opsets 7, 9 (imported as mode "nearest"/"linear" with
    "asymmetric" coordinates). ROI ("tf_crop_and_resize") is not supported.
  }];
  let arguments = (ins Graph_NumTensor:$input, Optional<Graph_ShapeTensor>:$sizes,
                       OptionalAttr<DenseF32ArrayAttr>:$scales,
                       DefaultValuedAttr<Graph_InterpolationModeAttr, "::kiln::graph::InterpolationMode::Nearest">:$mode,
                       DefaultValuedAttr<Graph_CoordinateTransformationModeAttr, "::kiln::graph::CoordinateTransformationMode::HalfPixel">:$coordinate_transformation_mode,
                       DefaultValuedAttr<Graph_NearestModeAttr, "::kiln::graph::NearestMode::RoundPreferFloor">:$nearest_mode,
                       DefaultValuedAttr<F32Attr, "-0.75">:$cubic_coeff_a,
                       DefaultValuedAttr<BoolAttr, "false">:$exclude_outside);
  let results = (outs Graph_NumTensor:$output);
  let assemblyFormat = "$input (`,` $sizes^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_GridSampleOp : Graph_Op<"grid_sample", [Pure, InferTypeOpAdaptorWithIsCompatible,
                                                 AllElementTypesMatch<["input", "grid", "output"]>]> {
  let summary = "sample an image at the positions of a flow field";
  let description = [{
    For `input` `[N, C, H, W]` and `grid` `[N, Ho, Wo, 2]` holding (x, y)
    positions normalized to [-1, 1], the result `[N, C, Ho, Wo]` samples
    `input[n, c]` at each position by `mode` ("linear", "nearest" rounding
    half to even, "cubic" with a = -0.75). `align_corners` maps -1 and 1 to
    the centers of the corner pixels instead of their outer edges. Positions
    outside the image and the pixels read around them follow `padding_mode`:
    "zeros" (pixels outside read 0), "border" (clamped) or "reflection"
    (mirrored at the borders). ONNX `GridSample` opset 16 (modes "bilinear",
    "bicubic") and 20 with 2-D spatial dims; the importer renames the modes.
  }];
  let arguments = (ins Graph_FloatTensor:$input, Graph_FloatTensor:$grid,
                       DefaultValuedAttr<Graph_InterpolationModeAttr, "::kiln::graph::InterpolationMode::Linear">:$mode,
                       DefaultValuedAttr<Graph_GridSamplePaddingModeAttr, "::kiln::graph::GridSamplePaddingMode::Zeros">:$padding_mode,
                       DefaultValuedAttr<BoolAttr, "false">:$align_corners);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = "$input `,` $grid attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_DepthToSpaceOp : Graph_Op<"depth_to_space", [Pure, InferTypeOpAdaptorWithIsCompatible,
                                                       AllElementTypesMatch<["input", "output"]>]> {
  let summary = "rearrange channel blocks into spatial blocks";
  let description = [{
    `[N, C, H, W]` to `[N, C / b^2, H * b, W * b]`; `mode` is "DCR" or "CRD".
    ONNX `DepthToSpace` opsets 1, 11, 13.
  }];
  let arguments = (ins Graph_Tensor:$input, I64Attr:$blocksize,
                       DefaultValuedAttr<Graph_DepthToSpaceModeAttr, "::kiln::graph::DepthToSpaceMode::DCR">:$mode);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_SpaceToDepthOp : Graph_Op<"space_to_depth", [Pure, InferTypeOpAdaptorWithIsCompatible,
                                                       AllElementTypesMatch<["input", "output"]>]> {
  let summary = "rearrange spatial blocks into channels";
  let description = "`[N, C, H, W]` to `[N, C * b^2, H / b, W / b]`. ONNX `SpaceToDepth` opsets 1, 13.";
  let arguments = (ins Graph_Tensor:$input, I64Attr:$blocksize);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_ShapeOp : Graph_Op<"shape", [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "the shape of a tensor as a 1-D i64 tensor";
  let description = [{
    Dims `[start, end)` of the input's shape (non-negative, clamped). Folds to
    a constant when those dims are static. ONNX `Shape` opsets 1, 13, 15, 19, 21.
  }];
  let arguments = (ins Graph_Tensor:$input, DefaultValuedAttr<I64Attr, "0">:$start,
                       OptionalAttr<I64Attr>:$end);
  let results = (outs Graph_ShapeTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Graph_SizeOp : Graph_Op<"size", [Pure, InferTypeOpAdaptor]> {
  let summary = "the number of elements as an i64 scalar";
  let description = "ONNX `Size` opsets 1, 13, 19, 21. Folds when the shape is static.";
  let arguments = (ins Graph_Tensor:$input);
  let results = (outs TensorRankOf<[I64], [0]>:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Graph_ConstantOfShapeOp : Graph_Op<"constant_of_shape", [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "a tensor of a given shape filled with one value";
  let description = [{
    A tensor of shape `shape` (1-D i64) filled with `value` (a one-element
    tensor attribute giving the element type; default f32 zero). ONNX
    `ConstantOfShape` opsets 9, 20, 21. Folds to a splat when the shape is
    constant.
  }];
  let arguments = (ins Graph_ShapeTensor:$shape, ElementsAttr:$value);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$shape attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_RangeOp : Graph_Op<"range", [Pure, InferTypeOpAdaptorWithIsCompatible,
                                       AllTypesMatch<["start", "limit", "delta"]>]> {
  let summary = "arithmetic sequence [start, limit) by delta";
  let description = [{
    1-D tensor of `max(ceil((limit - start) / delta), 0)` elements; the three
    operands are scalars of one type. ONNX `Range` opset 11.
  }];
  let arguments = (ins Graph_NumTensor:$start, Graph_NumTensor:$limit, Graph_NumTensor:$delta);
  let results = (outs Graph_NumTensor:$output);
  let assemblyFormat = "$start `,` $limit `,` $delta attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

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

#endif // KILN_GRAPH_OPS
