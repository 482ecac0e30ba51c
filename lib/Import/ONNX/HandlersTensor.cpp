//===- HandlersTensor.cpp - ONNX reductions, shape and data movement ------===//
#include "NodeContext.h"
#include "Tensors.h"

#include "dialects/Graph/IR/ShapeUtils.h"

using namespace mlir;
using namespace kiln::graph;

namespace kiln::onnx_import {

/// Defined in Importer.cpp's translation unit family: the model directory
/// is not needed for Constant nodes (no external data in attributes).
namespace {

/// Casts an integer index tensor to i64 when needed.
Value toI64(NodeContext &n, Value v) {
  if (!v)
    return v;
  auto t = n.typeOf(v);
  if (t.getElementType().isInteger(64) &&
      !t.getElementType().isUnsignedInteger())
    return v;
  if (!t.getElementType().isInteger()) {
    std::string typeText;
    llvm::raw_string_ostream(typeText) << t;
    (void)n.fail("expected an integer index tensor, got " + typeText);
    return {};
  }
  return n.createTyped<CastOp>(t.clone(n.builder().getI64Type()), v);
}

/// Normalizes, sorts and checks a list of axes for `rank`.
std::optional<SmallVector<int64_t>>
normalizeAxes(NodeContext &n, ArrayRef<int64_t> axes, int64_t rank) {
  SmallVector<int64_t> out;
  for (int64_t a : axes) {
    auto norm = n.normalizeAxis(a, rank);
    if (!norm)
      return std::nullopt;
    out.push_back(*norm);
  }
  llvm::sort(out);
  if (std::adjacent_find(out.begin(), out.end()) != out.end()) {
    (void)n.fail("repeated axis");
    return std::nullopt;
  }
  return out;
}

//===--- Reductions
//---------------------------------------------------------===//

template <typename OpTy>
LogicalResult buildReduce(NodeContext &n, Value x,
                          std::optional<SmallVector<int64_t>> axes,
                          bool noopWithEmptyAxes) {
  int64_t rank = n.typeOf(x).getRank();
  SmallVector<int64_t> normalized;
  if (!axes || axes->empty()) {
    if (noopWithEmptyAxes)
      return n.setResults({x});
    for (int64_t i = 0; i < rank; ++i)
      normalized.push_back(i);
  } else {
    auto norm = normalizeAxes(n, *axes, rank);
    if (!norm)
      return failure();
    normalized = *norm;
  }
  auto &b = n.builder();
  return n.setResults(
      {n.create<OpTy>(x, b.getDenseI64ArrayAttr(normalized),
                      b.getBoolAttr(n.attrInt("keepdims", 1) != 0))});
}

/// Reduce* with axes as an attribute (opsets 1, 11, 13 for most).
template <typename OpTy> LogicalResult importReduceAttr(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  return buildReduce<OpTy>(n, x, n.attrInts("axes"), false);
}

/// Reduce* with axes as an optional constant input (ReduceSum 13, others 18).
template <typename OpTy> LogicalResult importReduceInput(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  std::optional<SmallVector<int64_t>> axes;
  if (Value a = n.optionalInput(1)) {
    axes = n.requireConstInts(a, "axes");
    if (!axes)
      return failure();
  }
  return buildReduce<OpTy>(n, x, axes,
                           n.attrInt("noop_with_empty_axes", 0) != 0);
}

template <typename OpTy> LogicalResult importArg(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  auto axis = n.normalizeAxis(n.attrInt("axis", 0), n.typeOf(x).getRank());
  if (!axis)
    return failure();
  auto &b = n.builder();
  return n.setResults(
      {n.create<OpTy>(x, b.getI64IntegerAttr(*axis),
                      b.getBoolAttr(n.attrInt("keepdims", 1) != 0),
                      b.getBoolAttr(n.attrInt("select_last_index", 0) != 0))});
}

LogicalResult importCumSum(NodeContext &n) {
  Value x = n.input(0), axisValue = n.input(1);
  if (!x || !axisValue)
    return failure();
  auto axisInts = n.requireConstInts(axisValue, "axis");
  if (!axisInts)
    return failure();
  if (axisInts->size() != 1)
    return n.fail("axis must hold one value");
  auto axis = n.normalizeAxis((*axisInts)[0], n.typeOf(x).getRank());
  if (!axis)
    return failure();
  auto &b = n.builder();
  return n.setResults(
      {n.create<CumSumOp>(x, b.getI64IntegerAttr(*axis),
                          b.getBoolAttr(n.attrInt("exclusive", 0) != 0),
                          b.getBoolAttr(n.attrInt("reverse", 0) != 0))});
}

LogicalResult buildTopK(NodeContext &n, Value x, int64_t k) {
  auto axis = n.normalizeAxis(n.attrInt("axis", -1), n.typeOf(x).getRank());
  if (!axis)
    return failure();
  auto &b = n.builder();
  auto results = n.createMulti<TopKOp>(
      2, x, b.getI64IntegerAttr(k), b.getI64IntegerAttr(*axis),
      b.getBoolAttr(n.attrInt("largest", 1) != 0),
      b.getBoolAttr(n.attrInt("sorted", 1) != 0));
  if (results.empty())
    return failure();
  return n.setResults(results);
}

LogicalResult importTopKV1(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  std::optional<int64_t> k = n.attrIntOpt("k");
  if (!k)
    return n.fail("missing required attribute 'k'");
  return buildTopK(n, x, *k);
}

LogicalResult importTopKV10(NodeContext &n) {
  Value x = n.input(0), kValue = n.input(1);
  if (!x || !kValue)
    return failure();
  auto k = n.requireConstInts(kValue, "K");
  if (!k)
    return failure();
  if (k->size() != 1)
    return n.fail("K must hold one value");
  return buildTopK(n, x, (*k)[0]);
}

//===--- Shape manipulation
//---------------------------------------------------===//

LogicalResult importReshape(NodeContext &n) {
  Value x = n.input(0), shape = n.input(1);
  if (!x || !shape)
    return failure();
  return n.setResults({n.create<ReshapeOp>(
      x, toI64(n, shape),
      n.builder().getBoolAttr(n.attrInt("allowzero", 0) != 0))});
}

/// Reshape 1: the target shape is attribute `shape` (consumed_inputs is an
/// in-place hint).
LogicalResult importReshapeV1(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  auto shape = n.attrInts("shape");
  if (!shape)
    return n.fail("missing required attribute 'shape'");
  return n.setResults({n.create<ReshapeOp>(x, n.constI64(*shape),
                                           n.builder().getBoolAttr(false))});
}

LogicalResult importFlatten(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  int64_t rank = n.typeOf(x).getRank();
  int64_t axis = n.attrInt("axis", 1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    return n.fail("axis out of range for rank " + std::to_string(rank));
  return n.setResults(
      {n.create<FlattenOp>(x, n.builder().getI64IntegerAttr(axis))});
}

LogicalResult importTranspose(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  int64_t rank = n.typeOf(x).getRank();
  SmallVector<int64_t> perm;
  if (auto p = n.attrInts("perm")) {
    perm = *p;
  } else {
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  }
  if ((int64_t)perm.size() != rank)
    return n.fail("perm has " + std::to_string(perm.size()) +
                  " entries for rank " + std::to_string(rank));
  for (int64_t &p : perm)
    if (p < 0)
      p += rank;
  return n.setResults(
      {n.create<TransposeOp>(x, n.builder().getDenseI64ArrayAttr(perm))});
}

LogicalResult buildSqueeze(NodeContext &n, Value x,
                           std::optional<SmallVector<int64_t>> axes) {
  auto t = n.typeOf(x);
  SmallVector<int64_t> normalized;
  if (!axes) {
    for (int64_t i = 0; i < t.getRank(); ++i) {
      if (t.isDynamicDim(i))
        return n.fail("squeeze without axes on a dynamic dim is ambiguous");
      if (t.getDimSize(i) == 1)
        normalized.push_back(i);
    }
  } else {
    auto norm = normalizeAxes(n, *axes, t.getRank());
    if (!norm)
      return failure();
    normalized = *norm;
  }
  return n.setResults(
      {n.create<SqueezeOp>(x, n.builder().getDenseI64ArrayAttr(normalized))});
}

LogicalResult importSqueezeV1(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  return buildSqueeze(n, x, n.attrInts("axes"));
}

LogicalResult importSqueezeV13(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  std::optional<SmallVector<int64_t>> axes;
  if (Value a = n.optionalInput(1))
    if (!(axes = n.requireConstInts(a, "axes")))
      return failure();
  return buildSqueeze(n, x, axes);
}

LogicalResult buildUnsqueeze(NodeContext &n, Value x,
                             std::optional<SmallVector<int64_t>> axes) {
  if (!axes)
    return n.fail("missing axes");
  int64_t rank = n.typeOf(x).getRank() + axes->size();
  auto norm = normalizeAxes(n, *axes, rank);
  if (!norm)
    return failure();
  return n.setResults(
      {n.create<UnsqueezeOp>(x, n.builder().getDenseI64ArrayAttr(*norm))});
}

LogicalResult importUnsqueezeV1(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  return buildUnsqueeze(n, x, n.attrInts("axes"));
}

LogicalResult importUnsqueezeV13(NodeContext &n) {
  Value x = n.input(0), a = n.input(1);
  if (!x || !a)
    return failure();
  return buildUnsqueeze(n, x, n.requireConstInts(a, "axes"));
}

LogicalResult importConcat(NodeContext &n) {
  SmallVector<Value> ins = n.inputs();
  if (ins.empty())
    return n.fail("expected at least one input");
  std::optional<int64_t> rawAxis = n.attrIntOpt("axis");
  // Concat 1 has axis 1 by default; 4 made it required.
  if (!rawAxis && n.getOpset() < 4 && !n.hadError())
    rawAxis = 1;
  if (!rawAxis)
    return n.fail("missing required attribute 'axis'");
  auto axis = n.normalizeAxis(*rawAxis, n.typeOf(ins[0]).getRank());
  if (!axis)
    return failure();
  return n.setResults(
      {n.create<ConcatOp>(ins, n.builder().getI64IntegerAttr(*axis))});
}

LogicalResult buildSplit(NodeContext &n, Value x,
                         std::optional<SmallVector<int64_t>> sizes) {
  auto t = n.typeOf(x);
  auto axis = n.normalizeAxis(n.attrInt("axis", 0), t.getRank());
  if (!axis)
    return failure();
  int64_t outputs = n.node_().output_size();
  if (!sizes) {
    int64_t dim = t.getDimSize(*axis);
    if (ShapedType::isDynamic(dim))
      return n.fail("splitting a dynamic dim needs explicit split sizes");
    int64_t parts = n.attrInt("num_outputs", outputs);
    if (parts <= 0)
      return n.fail("num_outputs must be positive");
    sizes.emplace();
    if (n.hasAttr("num_outputs")) {
      int64_t chunk = (dim + parts - 1) / parts;
      for (int64_t left = dim; left > 0; left -= chunk)
        sizes->push_back(std::min(chunk, left));
    } else {
      if (dim % parts != 0)
        return n.fail("dim " + std::to_string(dim) +
                      " does not split evenly into " + std::to_string(parts) +
                      " outputs");
      sizes->assign(parts, dim / parts);
    }
  }
  if ((int64_t)sizes->size() != outputs)
    return n.fail("split has " + std::to_string(sizes->size()) + " sizes for " +
                  std::to_string(outputs) + " outputs");
  auto &b = n.builder();
  auto results =
      n.createMulti<SplitOp>(sizes->size(), x, b.getI64IntegerAttr(*axis),
                             b.getDenseI64ArrayAttr(*sizes));
  if (results.empty())
    return failure();
  return n.setResults(results);
}

LogicalResult importSplitV2(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  return buildSplit(n, x, n.attrInts("split"));
}

/// Split 1: sizes from attribute `split` or from a second input.
LogicalResult importSplitV1(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  if (Value s = n.optionalInput(1)) {
    auto sizes = n.requireConstInts(s, "split");
    if (!sizes)
      return failure();
    return buildSplit(n, x, sizes);
  }
  return buildSplit(n, x, n.attrInts("split"));
}

LogicalResult importSplitV13(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  std::optional<SmallVector<int64_t>> sizes;
  if (Value s = n.optionalInput(1))
    if (!(sizes = n.requireConstInts(s, "split")))
      return failure();
  return buildSplit(n, x, sizes);
}

LogicalResult importSliceV1(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  auto starts = n.attrInts("starts"), ends = n.attrInts("ends");
  if (!starts || !ends || starts->size() != ends->size())
    return n.fail("starts and ends must be given with equal lengths");
  SmallVector<int64_t> axes;
  if (auto a = n.attrInts("axes"))
    axes = *a;
  else
    for (size_t i = 0; i < starts->size(); ++i)
      axes.push_back(i);
  SmallVector<int64_t> steps(starts->size(), 1);
  return n.setResults(
      {n.create<SliceOp>(x, n.constI64(*starts), n.constI64(*ends),
                         n.constI64(axes), n.constI64(steps))});
}

LogicalResult importSliceV10(NodeContext &n) {
  Value x = n.input(0), starts = toI64(n, n.input(1)),
        ends = toI64(n, n.input(2));
  if (!x || !starts || !ends)
    return failure();
  int64_t count = n.typeOf(starts).getRank() == 1
                      ? n.typeOf(starts).getDimSize(0)
                      : kDynamic;
  Value axes = toI64(n, n.optionalInput(3)),
        steps = toI64(n, n.optionalInput(4));
  // Which dims are sliced decides the result's rank-wise shape; kernels need
  // it at build time.
  if (axes && !getConstantInts(axes))
    return n.failNotConstant(axes, "axes");
  if ((!axes || !steps) && ShapedType::isDynamic(count))
    return n.fail("starts of unknown length need explicit axes and steps");
  if (!axes) {
    SmallVector<int64_t> a;
    for (int64_t i = 0; i < count; ++i)
      a.push_back(i);
    axes = n.constI64(a);
  }
  if (!steps)
    steps = n.constI64(SmallVector<int64_t>(count, 1));
  return n.setResults({n.create<SliceOp>(x, starts, ends, axes, steps)});
}

template <typename OpTy> LogicalResult importGatherLike(NodeContext &n) {
  Value x = n.input(0), indices = n.input(1);
  if (!x || !indices)
    return failure();
  auto axis = n.normalizeAxis(n.attrInt("axis", 0), n.typeOf(x).getRank());
  if (!axis)
    return failure();
  return n.setResults(
      {n.create<OpTy>(x, indices, n.builder().getI64IntegerAttr(*axis))});
}

LogicalResult importExpand(NodeContext &n) {
  Value x = n.input(0), shape = toI64(n, n.input(1));
  if (!x || !shape)
    return failure();
  return n.setResults({n.create<ExpandOp>(x, shape)});
}

LogicalResult importTile(NodeContext &n) {
  Value x = n.input(0), repeats = toI64(n, n.input(1));
  if (!x || !repeats)
    return failure();
  return n.setResults({n.create<TileOp>(x, repeats)});
}

LogicalResult buildPad(NodeContext &n, Value x, Value pads, double value) {
  std::string name = n.attrString("mode", "constant");
  std::optional<PadMode> mode = symbolizePadMode(name);
  if (!mode)
    return n.fail(
        "attribute 'mode' must be constant, reflect, edge or wrap, got \"" +
        name + "\"");
  auto &b = n.builder();
  return n.setResults(
      {n.create<PadOp>(x, pads, PadModeAttr::get(b.getContext(), *mode),
                       b.getF64FloatAttr(value))});
}

/// Pad 1: attribute `paddings` (pads' old name) and `value`.
LogicalResult importPadV1(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  auto pads = n.attrInts("paddings");
  if (!pads)
    return n.fail("missing required attribute 'paddings'");
  return buildPad(n, x, n.constI64(*pads), n.attrFloat("value", 0.0f));
}

LogicalResult importPadV2(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  auto pads = n.attrInts("pads");
  if (!pads)
    return n.fail("missing required attribute 'pads'");
  return buildPad(n, x, n.constI64(*pads), n.attrFloat("value", 0.0f));
}

LogicalResult importPadV11(NodeContext &n) {
  Value x = n.input(0), pads = toI64(n, n.input(1));
  if (!x || !pads)
    return failure();
  double value = 0.0;
  if (Value v = n.optionalInput(2)) {
    auto values = n.constDoubles(v);
    if (!values || values->size() != 1)
      return n.failNotConstant(v, "constant_value", "a one-element constant");
    value = (*values)[0];
  }
  if (Value axesValue = n.optionalInput(3)) {
    int64_t rank = n.typeOf(x).getRank();
    auto axes = n.requireConstInts(axesValue, "axes");
    auto padValues = n.requireConstInts(pads, "pads (with axes)");
    if (!axes || !padValues)
      return failure();
    if (padValues->size() != 2 * axes->size())
      return n.fail("expected two pads per axis");
    SmallVector<int64_t> full(2 * rank, 0);
    for (auto [i, a] : llvm::enumerate(*axes)) {
      auto axis = n.normalizeAxis(a, rank);
      if (!axis)
        return failure();
      full[*axis] = (*padValues)[i];
      full[*axis + rank] = (*padValues)[i + axes->size()];
    }
    pads = n.constI64(full);
  }
  return buildPad(n, x, pads, value);
}

/// Builds kiln.resize from constant scales or a sizes tensor.
LogicalResult buildResize(NodeContext &n, Value x,
                          std::optional<SmallVector<double>> scales,
                          Value sizes, StringRef mode, StringRef coordinates,
                          StringRef nearest) {
  auto &b = n.builder();
  std::optional<InterpolationMode> modeKind = symbolizeInterpolationMode(mode);
  if (!modeKind)
    return n.fail("unsupported mode \"" + mode + "\"");
  if (coordinates == "tf_crop_and_resize")
    return n.fail("coordinate_transformation_mode tf_crop_and_resize (ROI) is "
                  "not supported");
  std::optional<CoordinateTransformationMode> coordinateKind =
      symbolizeCoordinateTransformationMode(coordinates);
  if (!coordinateKind)
    return n.fail("unsupported coordinate_transformation_mode \"" +
                  coordinates + "\"");
  std::optional<NearestMode> nearestKind = symbolizeNearestMode(nearest);
  if (!nearestKind)
    return n.fail("unsupported nearest_mode \"" + nearest + "\"");
  DenseF32ArrayAttr scalesAttr;
  if (scales) {
    SmallVector<float> f(scales->begin(), scales->end());
    if ((int64_t)f.size() != n.typeOf(x).getRank())
      return n.fail("expected one scale per dim");
    scalesAttr = b.getDenseF32ArrayAttr(f);
  }
  return n.setResults({n.create<ResizeOp>(
      x, sizes, scalesAttr,
      InterpolationModeAttr::get(b.getContext(), *modeKind),
      CoordinateTransformationModeAttr::get(b.getContext(), *coordinateKind),
      NearestModeAttr::get(b.getContext(), *nearestKind),
      b.getF32FloatAttr(n.attrFloat("cubic_coeff_a", -0.75f)),
      b.getBoolAttr(n.attrInt("exclude_outside", 0) != 0))});
}

LogicalResult importResizeV10(NodeContext &n) {
  Value x = n.input(0), s = n.input(1);
  if (!x || !s)
    return failure();
  auto scales = n.constDoubles(s);
  if (!scales)
    return n.failNotConstant(s, "scales");
  return buildResize(n, x, scales, {}, n.attrString("mode", "nearest"),
                     "asymmetric", "floor");
}

LogicalResult importResizeV11(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  if (n.attrInt("antialias", 0) != 0)
    return n.fail("antialias = 1 is not supported");
  if (n.hasAttr("axes"))
    return n.fail("attribute 'axes' is not supported; give scales or sizes for "
                  "every dim");
  std::string policy = n.attrString("keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch")
    return n.fail("keep_aspect_ratio_policy \"" + policy +
                  "\" is not supported");
  Value scalesValue = n.optionalInput(2), sizes = n.optionalInput(3);
  std::optional<SmallVector<double>> scales;
  if (scalesValue) {
    scales = n.constDoubles(scalesValue);
    if (!scales && !sizes)
      return n.failNotConstant(scalesValue, "scales");
    if (scales && scales->empty())
      scales.reset();
  }
  if (sizes && !scales) {
    sizes = toI64(n, sizes);
  } else if (sizes && scales) {
    return n.fail("only one of scales and sizes may be given");
  }
  if (!scales && !sizes)
    return n.fail("one of scales and sizes must be given");
  return buildResize(
      n, x, scales, scales ? Value() : sizes, n.attrString("mode", "nearest"),
      n.attrString("coordinate_transformation_mode", "half_pixel"),
      n.attrString("nearest_mode", "round_prefer_floor"));
}

LogicalResult importUpsampleV7(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  auto scales = n.attrFloats("scales");
  if (!scales)
    return n.fail("missing required attribute 'scales'");
  return buildResize(n, x, SmallVector<double>(scales->begin(), scales->end()),
                     {}, n.attrString("mode", "nearest"), "asymmetric",
                     "floor");
}

LogicalResult importUpsampleV9(NodeContext &n) {
  Value x = n.input(0), s = n.input(1);
  if (!x || !s)
    return failure();
  auto scales = n.constDoubles(s);
  if (!scales)
    return n.failNotConstant(s, "scales");
  return buildResize(n, x, scales, {}, n.attrString("mode", "nearest"),
                     "asymmetric", "floor");
}

LogicalResult importDepthToSpace(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  std::optional<int64_t> bs = n.attrIntOpt("blocksize");
  if (!bs)
    return n.fail("missing required attribute 'blocksize'");
  std::optional<DepthToSpaceMode> mode =
      symbolizeDepthToSpaceMode(n.attrString("mode", "DCR"));
  if (!mode)
    return n.fail("attribute 'mode' must be DCR or CRD");
  auto &b = n.builder();
  return n.setResults({n.create<DepthToSpaceOp>(
      x, b.getI64IntegerAttr(*bs),
      DepthToSpaceModeAttr::get(b.getContext(), *mode))});
}

LogicalResult importSpaceToDepth(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  std::optional<int64_t> bs = n.attrIntOpt("blocksize");
  if (!bs)
    return n.fail("missing required attribute 'blocksize'");
  return n.setResults(
      {n.create<SpaceToDepthOp>(x, n.builder().getI64IntegerAttr(*bs))});
}

LogicalResult importShape(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  auto &b = n.builder();
  std::optional<int64_t> end = n.attrIntOpt("end");
  return n.setResults(
      {n.create<ShapeOp>(x, b.getI64IntegerAttr(n.attrInt("start", 0)),
                         end ? b.getI64IntegerAttr(*end) : IntegerAttr())});
}

LogicalResult importSize(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  return n.setResults({n.create<SizeOp>(x)});
}

LogicalResult importConstantOfShape(NodeContext &n) {
  Value shape = toI64(n, n.input(0));
  if (!shape)
    return failure();
  ElementsAttr value;
  if (const onnx::TensorProto *t = n.attrTensor("value")) {
    std::string error;
    value = convertTensor(n.getContext(), *t, ".", error, "value");
    if (!value)
      return n.fail(error);
    if (value.getNumElements() != 1)
      return n.fail("attribute 'value' must hold one element");
    // Canonical one-element dense form, whatever the stored shape.
    auto dense = dyn_cast<DenseElementsAttr>(value);
    if (!dense)
      return n.fail("attribute 'value' could not be read");
    value = DenseElementsAttr::get(
        RankedTensorType::get({1}, dense.getElementType()),
        dense.getValues<Attribute>()[0]);
  } else if (n.hadError()) {
    return failure();
  } else {
    value = DenseElementsAttr::get(
        RankedTensorType::get({1}, n.builder().getF32Type()), 0.0f);
  }
  return n.setResults({n.create<ConstantOfShapeOp>(shape, value)});
}

LogicalResult importRange(NodeContext &n) {
  Value s = n.input(0), l = n.input(1), d = n.input(2);
  if (!s || !l || !d)
    return failure();
  return n.setResults({n.create<RangeOp>(s, l, d)});
}

LogicalResult importIdentity(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  return n.setResults({x});
}

/// Dropout's results when nothing is dropped: x itself and, when used, a
/// mask of ones (bool from opset 10, x's type before).
LogicalResult buildDropoutIdentity(NodeContext &n, Value x) {
  if (!n.outputUsed(1))
    return n.setResults({x});
  auto &b = n.builder();
  auto t = n.typeOf(x);
  Type maskType = n.getOpset() >= 10 ? Type(b.getI1Type()) : t.getElementType();
  Attribute one = maskType.isInteger(1) ? Attribute(b.getBoolAttr(true))
                  : isa<FloatType>(maskType)
                      ? Attribute(b.getFloatAttr(maskType, 1.0))
                      : Attribute(b.getIntegerAttr(maskType, 1));
  auto valueType = RankedTensorType::get({1}, maskType);
  Value mask = n.create<ConstantOfShapeOp>(
      n.create<ShapeOp>(x, b.getI64IntegerAttr(0), IntegerAttr()),
      DenseElementsAttr::get(valueType, one));
  if (!mask)
    return failure();
  return n.setResults({x, mask});
}

LogicalResult importDropoutV7(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  return buildDropoutIdentity(n, x);
}

/// Dropout 12+: training_mode (input 2) false or absent is the identity; so
/// is training with ratio 0 (scale 1 / (1 - 0), nothing dropped). Random
/// dropping is not compiled.
LogicalResult importDropoutV12(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  if (Value training = n.optionalInput(2)) {
    auto values = n.constDoubles(training);
    if (!values)
      return n.failNotConstant(training, "training_mode");
    if (!values->empty() && (*values)[0] != 0) {
      double ratio = 0.5;
      if (Value r = n.optionalInput(1)) {
        auto ratios = n.constDoubles(r);
        if (!ratios || ratios->size() != 1)
          return n.failNotConstant(r, "ratio (in training mode)",
                                   "a one-element constant");
        ratio = (*ratios)[0];
      }
      if (ratio != 0)
        return n.fail("training_mode = true with ratio " +
                      std::to_string(ratio) +
                      " is not supported (random dropping; kiln compiles "
                      "inference graphs)");
    }
  }
  return buildDropoutIdentity(n, x);
}

LogicalResult importConstant(NodeContext &n) {
  auto &b = n.builder();
  ElementsAttr value;
  std::string fallback =
      n.node_().output_size() ? n.node_().output(0) : "constant";
  if (const onnx::TensorProto *t = n.attrTensor("value")) {
    std::string error;
    value = convertTensor(n.getContext(), *t, ".", error, fallback);
    if (!value)
      return n.fail(error);
  } else if (auto f = n.attrFloatOpt("value_float")) {
    value =
        DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()), *f);
  } else if (auto fs = n.attrFloats("value_floats")) {
    value = DenseElementsAttr::get(
        RankedTensorType::get({(int64_t)fs->size()}, b.getF32Type()),
        ArrayRef<float>(*fs));
  } else if (auto i = n.attrIntOpt("value_int")) {
    value =
        DenseElementsAttr::get(RankedTensorType::get({}, b.getI64Type()), *i);
  } else if (auto is = n.attrInts("value_ints")) {
    value = DenseElementsAttr::get(
        RankedTensorType::get({(int64_t)is->size()}, b.getI64Type()),
        ArrayRef<int64_t>(*is));
  } else if (n.hadError()) {
    return failure();
  } else if (n.hasAttr("sparse_value")) {
    return n.fail("sparse_value constants are not supported");
  } else if (n.hasAttr("value_string") || n.hasAttr("value_strings")) {
    return n.fail("string constants are not supported");
  } else {
    return n.fail("no value attribute");
  }
  if (n.hadError())
    return failure();
  return n.setResults({n.create<ConstantOp>(value)});
}

} // namespace

void registerTensorHandlers(HandlerRegistry &r) {
  r.add("ReduceSum", 1, importReduceAttr<ReduceSumOp>);
  r.add("ReduceSum", 13, importReduceInput<ReduceSumOp>);
#define KILN_REDUCE(NAME, OP)                                                  \
  r.add(NAME, 1, importReduceAttr<OP>);                                        \
  r.add(NAME, 18, importReduceInput<OP>);
  KILN_REDUCE("ReduceMean", ReduceMeanOp)
  KILN_REDUCE("ReduceMax", ReduceMaxOp)
  KILN_REDUCE("ReduceMin", ReduceMinOp)
  KILN_REDUCE("ReduceProd", ReduceProdOp)
  KILN_REDUCE("ReduceL1", ReduceL1Op)
  KILN_REDUCE("ReduceL2", ReduceL2Op)
  KILN_REDUCE("ReduceLogSum", ReduceLogSumOp)
  KILN_REDUCE("ReduceLogSumExp", ReduceLogSumExpOp)
  KILN_REDUCE("ReduceSumSquare", ReduceSumSquareOp)
#undef KILN_REDUCE
  r.add("ArgMax", 1, importArg<ArgMaxOp>);
  r.add("ArgMin", 1, importArg<ArgMinOp>);
  r.add("CumSum", 11, importCumSum);
  r.add("TopK", 1, importTopKV1);
  r.add("TopK", 10, importTopKV10);
  r.add("Reshape", 1, importReshapeV1);
  r.add("Reshape", 5, importReshape);
  r.add("Flatten", 1, importFlatten);
  r.add("Transpose", 1, importTranspose);
  r.add("Squeeze", 1, importSqueezeV1);
  r.add("Squeeze", 13, importSqueezeV13);
  r.add("Unsqueeze", 1, importUnsqueezeV1);
  r.add("Unsqueeze", 13, importUnsqueezeV13);
  r.add("Concat", 1, importConcat);
  r.add("Concat", 4, importConcat);
  r.add("Split", 1, importSplitV1);
  r.add("Split", 2, importSplitV2);
  r.add("Split", 13, importSplitV13);
  r.add("Slice", 1, importSliceV1);
  r.add("Slice", 10, importSliceV10);
  r.add("Gather", 1, importGatherLike<GatherOp>);
  r.add("GatherElements", 11, importGatherLike<GatherElementsOp>);
  r.add("Expand", 8, importExpand);
  r.add("Tile", 6, importTile);
  r.add("Pad", 1, importPadV1);
  r.add("Pad", 2, importPadV2);
  r.add("Pad", 11, importPadV11);
  r.add("Resize", 10, importResizeV10);
  r.add("Resize", 11, importResizeV11);
  r.add("Upsample", 7, importUpsampleV7);
  r.add("Upsample", 9, importUpsampleV9);
  r.add("DepthToSpace", 1, importDepthToSpace);
  r.add("SpaceToDepth", 1, importSpaceToDepth);
  r.add("Shape", 1, importShape);
  r.add("Size", 1, importSize);
  r.add("ConstantOfShape", 9, importConstantOfShape);
  r.add("Range", 11, importRange);
  r.add("Identity", 1, importIdentity);
  // Dropout 1 and 6 add is_test and consumed_inputs: inference either way.
  r.add("Dropout", 1, importDropoutV7);
  r.add("Dropout", 7, importDropoutV7);
  r.add("Dropout", 12, importDropoutV12);
  r.add("Constant", 1, importConstant);
}

} // namespace kiln::onnx_import
