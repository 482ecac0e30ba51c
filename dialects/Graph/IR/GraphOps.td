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

// Convolution, normalization, pooling and reductions; shape and data
// movement; quantization.
include "dialects/Graph/IR/GraphOpsNN.td"
include "dialects/Graph/IR/GraphOpsTensor.td"
include "dialects/Graph/IR/GraphOpsQuant.td"

#endif // KILN_GRAPH_OPS
