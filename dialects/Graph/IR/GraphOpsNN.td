//===- GraphOpsNN.td - conv, norm, pool, reduce ops --------*- tablegen -*-===//
//
// Part of GraphOps.td, which includes it after the ops it builds on; not
// meant to be included on its own.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_GRAPH_OPS_NN
#define KILN_GRAPH_OPS_NN

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

#endif // KILN_GRAPH_OPS_NN
