//===- GraphOpsTensor.td - data movement ops ---------------*- tablegen -*-===//
//
// Part of GraphOps.td, which includes it after the ops it builds on; not
// meant to be included on its own.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_GRAPH_OPS_TENSOR
#define KILN_GRAPH_OPS_TENSOR

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

#endif // KILN_GRAPH_OPS_TENSOR
