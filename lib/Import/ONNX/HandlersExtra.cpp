//===- HandlersExtra.cpp - ONNX losses, masks, windows, scatters ----------===//
//
// Trilu, EyeLike, Hardmax, OneHot, the losses, MeanVarianceNormalization,
// ReverseSequence, MaxUnpool and Det (and RNN/GRU/LSTM, HandlersRecurrent.cpp)
// have no graph op of their own: each is an exact composition of
// kiln ops (index masks from kiln.range, compares, kiln.where, gathers,
// scatters, matmuls and reductions), so every later pass and target handles
// them without new kernels. GatherND, ScatterElements/Scatter, ScatterND and
// GridSample map to their own graph ops.
// The cosine windows (Hann, Hamming, Blackman) are constants computed at
// build time.
//
//===----------------------------------------------------------------------===//
#include "NodeContext.h"
#include "Tensors.h"

#include <cmath>

using namespace mlir;
using namespace kiln::graph;

namespace kiln::onnx_import {

Value scalar(NodeContext &n, Type elem, double value) {
  return n.constSplat(RankedTensorType::get({}, elem), value);
}

Value indicesToI64(NodeContext &n, Value v, StringRef what) {
  if (!v)
    return v;
  auto t = n.typeOf(v);
  Type et = t.getElementType();
  if (et.isSignlessInteger(64))
    return v;
  if (!et.isInteger() || et.isInteger(1)) {
    std::string typeText;
    llvm::raw_string_ostream(typeText) << t;
    (void)n.fail("expected an integer " + what + " tensor, got " + typeText);
    return {};
  }
  return n.createTyped<CastOp>(t.clone(n.builder().getI64Type()), v);
}

namespace {

/// [0, 1, ..., len - 1] as i64, shaped to `rank` dims with `len` at `axis`
/// and 1 elsewhere (so it broadcasts along that axis). A kiln.range: small
/// ones fold to constants, large ones are computed, not stored.
Value iotaAlong(NodeContext &n, int64_t len, int64_t axis, int64_t rank) {
  Type i64 = n.builder().getI64Type();
  Value iota = n.create<RangeOp>(scalar(n, i64, 0), scalar(n, i64, len),
                                 scalar(n, i64, 1));
  if (!iota || rank == 1)
    return iota;
  SmallVector<int64_t> axes;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      axes.push_back(d);
  return n.create<UnsqueezeOp>(iota, n.builder().getDenseI64ArrayAttr(axes));
}

/// `col - row` for a [rows, cols] matrix, as i64: the diagonal index that
/// Trilu and EyeLike compare with k.
Value diagonalIndex(NodeContext &n, int64_t rows, int64_t cols) {
  Value r = iotaAlong(n, rows, 0, 2), c = iotaAlong(n, cols, 1, 2);
  if (!r || !c)
    return {};
  return n.create<SubOp>(c, r);
}

/// Reports a dynamic dim of `x` among `dims`.
bool requireStaticDims(NodeContext &n, Value x, ArrayRef<int64_t> dims,
                       StringRef why) {
  auto t = n.typeOf(x);
  for (int64_t d : dims)
    if (t.isDynamicDim(d)) {
      (void)n.fail("dim " + std::to_string(d) +
                   " of the input must be static (" + why + ")");
      return false;
    }
  return true;
}

SmallVector<int64_t> allAxes(int64_t rank) {
  SmallVector<int64_t> axes;
  for (int64_t d = 0; d < rank; ++d)
    axes.push_back(d);
  return axes;
}

//===--- Trilu, EyeLike
//-------------------------------------------------------===//

/// Trilu 14: keeps x[..., i, j] where j - i >= k (upper) or j - i <= k
/// (lower), else 0. k may be a run-time scalar: it only enters a compare.
LogicalResult importTrilu(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  auto type = n.typeOf(x);
  int64_t rank = type.getRank();
  if (rank < 2)
    return n.fail("expected an input of rank >= 2, got rank " +
                  std::to_string(rank));
  if (!requireStaticDims(n, x, {rank - 2, rank - 1},
                         "the triangle mask is built from the matrix size"))
    return failure();
  Type i64 = n.builder().getI64Type();
  Value k =
      n.hasInput(1) ? indicesToI64(n, n.input(1), "k") : scalar(n, i64, 0);
  if (!k)
    return failure();
  if (n.typeOf(k).getNumElements() != 1)
    return n.fail("k must hold one value");
  Value diag =
      diagonalIndex(n, type.getDimSize(rank - 2), type.getDimSize(rank - 1));
  if (!diag)
    return failure();
  bool upper = n.attrInt("upper", 1) != 0;
  Value keep = upper ? n.create<GreaterOrEqualOp>(diag, k)
                     : n.create<LessOrEqualOp>(diag, k);
  if (!keep)
    return failure();
  return n.setResults(
      {n.create<WhereOp>(keep, x, scalar(n, type.getElementType(), 0))});
}

/// EyeLike 9: ones on diagonal k of a matrix shaped like the input, of
/// `dtype` (default: the input's type).
LogicalResult importEyeLike(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  auto type = n.typeOf(x);
  if (type.getRank() != 2)
    return n.fail("expected a 2-D input, got rank " +
                  std::to_string(type.getRank()));
  if (!requireStaticDims(n, x, {0, 1}, "the result's shape"))
    return failure();
  Type elem = type.getElementType();
  if (auto dtype = n.attrIntOpt("dtype")) {
    elem = convertElementType(n.getContext(), *dtype);
    if (!elem)
      return n.fail("dtype " + dataTypeName(*dtype) + " is not supported");
  }
  Value diag = diagonalIndex(n, type.getDimSize(0), type.getDimSize(1));
  if (!diag)
    return failure();
  Value on = n.create<EqualOp>(
      diag, scalar(n, n.builder().getI64Type(), n.attrInt("k", 0)));
  if (!on)
    return failure();
  return n.setResults(
      {n.create<WhereOp>(on, scalar(n, elem, 1), scalar(n, elem, 0))});
}

//===--- Hardmax, OneHot
//------------------------------------------------------===//

/// 1 at the first maximum along `axis`, 0 elsewhere.
Value buildHardmax(NodeContext &n, Value x, int64_t axis) {
  auto type = n.typeOf(x);
  if (!requireStaticDims(n, x, {axis}, "the one-hot mask is built from it"))
    return {};
  auto &b = n.builder();
  Value arg = n.create<ArgMaxOp>(x, b.getI64IntegerAttr(axis),
                                 b.getBoolAttr(true), b.getBoolAttr(false));
  Value iota = iotaAlong(n, type.getDimSize(axis), axis, type.getRank());
  if (!arg || !iota)
    return {};
  Value hot = n.create<EqualOp>(iota, arg);
  if (!hot)
    return {};
  Type elem = type.getElementType();
  return n.create<WhereOp>(hot, scalar(n, elem, 1), scalar(n, elem, 0));
}

/// Hardmax 13: along one axis (default -1).
LogicalResult importHardmaxV13(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  auto axis = n.normalizeAxis(n.attrInt("axis", -1), n.typeOf(x).getRank());
  if (!axis)
    return failure();
  Value y = buildHardmax(n, x, *axis);
  return y ? n.setResults({y}) : failure();
}

/// Hardmax 1 and 11: over the dims from `axis` (default 1) flattened.
LogicalResult importHardmaxV1(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  auto type = n.typeOf(x);
  int64_t rank = type.getRank();
  if (rank == 0)
    return n.fail("expected an input of rank >= 1");
  int64_t raw = n.attrInt("axis", 1);
  int64_t axis = raw < 0 ? raw + rank : raw;
  if (axis < 0 || axis > rank)
    return n.fail("axis " + std::to_string(raw) + " is out of range for rank " +
                  std::to_string(rank));
  if (axis >= rank - 1) {
    Value y = buildHardmax(n, x, rank - 1);
    return y ? n.setResults({y}) : failure();
  }
  if (!type.hasStaticShape())
    return n.fail("the input must have a static shape (the flattened axis "
                  "size builds the one-hot mask)");
  auto &b = n.builder();
  Value flat = n.create<FlattenOp>(x, b.getI64IntegerAttr(axis));
  Value hard = flat ? buildHardmax(n, flat, 1) : Value();
  if (!hard)
    return failure();
  return n.setResults({n.create<ReshapeOp>(hard, n.constI64(type.getShape()),
                                           b.getBoolAttr(false))});
}

/// OneHot 9, 11: values[1] where the depth index equals indices (negative
/// indices count from depth, opset 11), values[0] elsewhere. depth must be a
/// constant: it is the size of the new axis.
LogicalResult importOneHot(NodeContext &n) {
  Value indices = n.input(0), depthValue = n.input(1), values = n.input(2);
  if (!indices || !depthValue || !values)
    return failure();
  auto depthValues = n.constDoubles(depthValue);
  if (!depthValues)
    return n.failNotConstant(depthValue,
                             "depth (the size of the result's new axis)");
  if (depthValues->size() != 1)
    return n.fail("depth must hold one value");
  int64_t depth = (int64_t)(*depthValues)[0];
  if (depth < 1)
    return n.fail("depth must be positive, got " + std::to_string(depth));
  if (n.typeOf(values).getRank() != 1 || n.typeOf(values).getDimSize(0) != 2)
    return n.fail("values must be a 1-D tensor of 2 elements [off, on]");
  int64_t outRank = n.typeOf(indices).getRank() + 1;
  auto axis = n.normalizeAxis(n.attrInt("axis", -1), outRank);
  if (!axis)
    return failure();
  auto &b = n.builder();
  Type i64 = b.getI64Type();
  // Float indices are truncated toward zero, as ONNX's cast to int.
  auto itype = n.typeOf(indices);
  Value idx = isa<FloatType>(itype.getElementType())
                  ? n.createTyped<CastOp>(itype.clone(i64), indices)
                  : indicesToI64(n, indices, "indices");
  if (!idx)
    return failure();
  Value negative = n.create<LessOp>(idx, scalar(n, i64, 0));
  Value wrapped = n.create<AddOp>(idx, scalar(n, i64, depth));
  if (!negative || !wrapped)
    return failure();
  idx = n.create<WhereOp>(negative, wrapped, idx);
  Value expanded =
      idx ? n.create<UnsqueezeOp>(idx, b.getDenseI64ArrayAttr({*axis}))
          : Value();
  Value iota = iotaAlong(n, depth, *axis, outRank);
  if (!expanded || !iota)
    return failure();
  Value hot = n.create<EqualOp>(iota, expanded);
  Value off =
      n.create<GatherOp>(values, scalar(n, i64, 0), b.getI64IntegerAttr(0));
  Value on =
      n.create<GatherOp>(values, scalar(n, i64, 1), b.getI64IntegerAttr(0));
  if (!hot || !off || !on)
    return failure();
  return n.setResults({n.create<WhereOp>(hot, on, off)});
}

//===--- Losses
//---------------------------------------------------------------===//

/// NegativeLogLikelihoodLoss on log-probabilities `logp` [N, C, d...] and
/// `target` [N, d...]: loss = -logp[n, target, d...] * weight[target], 0
/// where target == ignore_index; "mean" divides by the summed weights of the
/// counted elements (their count without weights).
Value buildNLLLoss(NodeContext &n, Value logp, Value target, Value weight) {
  auto type = n.typeOf(logp);
  int64_t rank = type.getRank();
  if (rank < 2) {
    (void)n.fail("expected an input of rank >= 2, got rank " +
                 std::to_string(rank));
    return {};
  }
  if (n.typeOf(target).getRank() != rank - 1) {
    (void)n.fail("expected a target of rank " + std::to_string(rank - 1) +
                 ", got " + std::to_string(n.typeOf(target).getRank()));
    return {};
  }
  if (weight && n.typeOf(weight).getRank() != 1) {
    (void)n.fail("expected a 1-D weight");
    return {};
  }
  std::string reduction = n.attrString("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    (void)n.fail("reduction \"" + reduction +
                 "\" is not one of \"none\", \"sum\", \"mean\"");
    return {};
  }
  auto &b = n.builder();
  Type elem = type.getElementType(), i64 = b.getI64Type();
  Value t = indicesToI64(n, target, "target");
  if (!t)
    return {};
  // Ignored positions read class 0 (any valid index) and are masked after.
  Value ignored;
  if (auto ii = n.attrIntOpt("ignore_index")) {
    ignored = n.create<EqualOp>(t, scalar(n, i64, *ii));
    if (!ignored)
      return {};
    t = n.create<WhereOp>(ignored, scalar(n, i64, 0), t);
  }
  Value t1 =
      t ? n.create<UnsqueezeOp>(t, b.getDenseI64ArrayAttr({1})) : Value();
  Value picked =
      t1 ? n.create<GatherElementsOp>(logp, t1, b.getI64IntegerAttr(1))
         : Value();
  picked = picked ? n.create<SqueezeOp>(picked, b.getDenseI64ArrayAttr({1}))
                  : Value();
  if (!picked)
    return {};
  Value loss = n.create<NegOp>(picked);
  Value w =
      weight ? n.create<GatherOp>(weight, t, b.getI64IntegerAttr(0)) : Value();
  if (!loss || (weight && !w))
    return {};
  if (w)
    loss = n.create<MulOp>(loss, w);
  if (ignored) {
    Value zero = scalar(n, elem, 0);
    loss = n.create<WhereOp>(ignored, zero, loss);
    w = n.create<WhereOp>(ignored, zero, w ? w : scalar(n, elem, 1));
  }
  if (!loss || n.hadError())
    return {};
  if (reduction == "none")
    return loss;
  auto all = b.getDenseI64ArrayAttr(allAxes(rank - 1));
  auto noKeep = b.getBoolAttr(false);
  if (reduction == "mean" && !w)
    return n.create<ReduceMeanOp>(loss, all, noKeep);
  Value sum = n.create<ReduceSumOp>(loss, all, noKeep);
  if (reduction == "sum" || !sum)
    return sum;
  Value wsum = n.create<ReduceSumOp>(w, all, noKeep);
  return wsum ? n.create<DivOp>(sum, wsum) : Value();
}

/// NegativeLogLikelihoodLoss 12, 13.
LogicalResult importNLLLoss(NodeContext &n) {
  Value logp = n.input(0), target = n.input(1);
  if (!logp || !target)
    return failure();
  Value loss = buildNLLLoss(n, logp, target, n.optionalInput(2));
  return loss ? n.setResults({loss}) : failure();
}

/// SoftmaxCrossEntropyLoss 12, 13: NLL of log_softmax over dim 1; the second
/// output is that log_softmax.
LogicalResult importSoftmaxCrossEntropyLoss(NodeContext &n) {
  Value scores = n.input(0), labels = n.input(1);
  if (!scores || !labels)
    return failure();
  if (n.typeOf(scores).getRank() < 2)
    return n.fail("expected scores of rank >= 2");
  Value logp = n.create<LogSoftmaxOp>(scores, n.builder().getI64IntegerAttr(1));
  Value loss =
      logp ? buildNLLLoss(n, logp, labels, n.optionalInput(2)) : Value();
  return loss ? n.setResults({loss, logp}) : failure();
}

//===--- Normalization, sequences
//----------------------------------------------===//

/// MeanVarianceNormalization 9, 13 as ONNX's function body:
/// (x - mean) / (sqrt(mean(x^2) - mean^2) + 1e-9) over `axes` (default 0, 2,
/// 3).
LogicalResult importMVN(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  int64_t rank = n.typeOf(x).getRank();
  SmallVector<int64_t> axes{0, 2, 3};
  if (auto a = n.attrInts("axes"))
    axes = *a;
  for (int64_t &a : axes) {
    auto norm = n.normalizeAxis(a, rank);
    if (!norm)
      return failure();
    a = *norm;
  }
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  auto &b = n.builder();
  auto axesAttr = b.getDenseI64ArrayAttr(axes);
  Value mean = n.create<ReduceMeanOp>(x, axesAttr, b.getBoolAttr(true));
  Value sq = n.create<MulOp>(x, x);
  if (!mean || !sq)
    return failure();
  Value meanSq = n.create<ReduceMeanOp>(sq, axesAttr, b.getBoolAttr(true));
  Value meanMean = n.create<MulOp>(mean, mean);
  Value var = meanSq && meanMean ? n.create<SubOp>(meanSq, meanMean) : Value();
  Value std = var ? n.create<SqrtOp>(var) : Value();
  Value centered = n.create<SubOp>(x, mean);
  if (!std || !centered)
    return failure();
  Type elem = n.typeOf(x).getElementType();
  Value denom = n.create<AddOp>(std, scalar(n, elem, 1e-9));
  if (!denom)
    return failure();
  return n.setResults({n.create<DivOp>(centered, denom)});
}

/// ReverseSequence 10: along time_axis, reverses the first seq_lens[b]
/// elements of each batch entry b (seq_lens may be a run-time value): a
/// gather_elements whose index is len - 1 - t for t < len, else t.
LogicalResult importReverseSequence(NodeContext &n) {
  Value x = n.input(0), lens = n.input(1);
  if (!x || !lens)
    return failure();
  auto type = n.typeOf(x);
  int64_t rank = type.getRank();
  if (rank < 2)
    return n.fail("expected an input of rank >= 2");
  auto batchAxis = n.normalizeAxis(n.attrInt("batch_axis", 1), rank);
  auto timeAxis = n.normalizeAxis(n.attrInt("time_axis", 0), rank);
  if (!batchAxis || !timeAxis)
    return failure();
  if (*batchAxis == *timeAxis)
    return n.fail("batch_axis and time_axis must differ");
  if (!type.hasStaticShape())
    return n.fail("the input must have a static shape (the time index is "
                  "built from it)");
  if (n.typeOf(lens).getRank() != 1)
    return n.fail("expected a 1-D sequence_lens");
  auto &b = n.builder();
  Type i64 = b.getI64Type();
  Value len = indicesToI64(n, lens, "sequence_lens");
  if (!len)
    return failure();
  SmallVector<int64_t> otherAxes;
  for (int64_t d = 0; d < rank; ++d)
    if (d != *batchAxis)
      otherAxes.push_back(d);
  len = n.create<UnsqueezeOp>(len, b.getDenseI64ArrayAttr(otherAxes));
  Value t = iotaAlong(n, type.getDimSize(*timeAxis), *timeAxis, rank);
  if (!len || !t)
    return failure();
  Value inside = n.create<LessOp>(t, len);
  Value last = n.create<SubOp>(len, scalar(n, i64, 1));
  Value reversed = last ? n.create<SubOp>(last, t) : Value();
  if (!inside || !reversed)
    return failure();
  Value index = n.create<WhereOp>(inside, reversed, t);
  Value full =
      index ? n.create<ExpandOp>(index, n.constI64(type.getShape())) : Value();
  if (!full)
    return failure();
  return n.setResults(
      {n.create<GatherElementsOp>(x, full, b.getI64IntegerAttr(*timeAxis))});
}

//===--- N-d gather, scatters
//-------------------------------------------------===//

/// GatherND 11, 12, 13.
LogicalResult importGatherND(NodeContext &n) {
  Value x = n.input(0), indices = n.input(1);
  if (!x || !indices)
    return failure();
  Value i = indicesToI64(n, indices, "indices");
  if (!i)
    return failure();
  return n.setResults({n.create<GatherNDOp>(
      x, i, n.builder().getI64IntegerAttr(n.attrInt("batch_dims", 0)))});
}

/// The `reduction` attribute of ScatterElements/ScatterND (16: add, mul;
/// 18: max, min); null after an error.
ScatterReductionAttr scatterReduction(NodeContext &n) {
  std::string reduction = n.attrString("reduction", "none");
  std::optional<ScatterReduction> kind = symbolizeScatterReduction(reduction);
  bool known =
      kind &&
      ((*kind != ScatterReduction::Max && *kind != ScatterReduction::Min) ||
       n.getOpset() >= 18);
  if (!known) {
    (void)n.fail("reduction \"" + reduction +
                 "\" is not defined at this opset");
    return {};
  }
  return ScatterReductionAttr::get(n.builder().getContext(), *kind);
}

/// ScatterElements 11, 13, 16, 18 and Scatter 9, 11 (no reduction).
LogicalResult importScatterElements(NodeContext &n) {
  Value x = n.input(0), indices = n.input(1), updates = n.input(2);
  if (!x || !indices || !updates)
    return failure();
  ScatterReductionAttr reduction = scatterReduction(n);
  if (!reduction)
    return failure();
  auto axis = n.normalizeAxis(n.attrInt("axis", 0), n.typeOf(x).getRank());
  Value i = indicesToI64(n, indices, "indices");
  if (!axis || !i)
    return failure();
  auto &b = n.builder();
  return n.setResults({n.create<ScatterElementsOp>(
      x, i, updates, b.getI64IntegerAttr(*axis), reduction)});
}

/// ScatterND 11, 13, 16, 18.
LogicalResult importScatterND(NodeContext &n) {
  Value x = n.input(0), indices = n.input(1), updates = n.input(2);
  if (!x || !indices || !updates)
    return failure();
  ScatterReductionAttr reduction = scatterReduction(n);
  Value i = indicesToI64(n, indices, "indices");
  if (!reduction || !i)
    return failure();
  return n.setResults({n.create<ScatterNDOp>(x, i, updates, reduction)});
}

/// MaxUnpool 9, 11: X's values written at MaxPool's indices (flat over the
/// whole [N, C, spatial...] output) into zeros: a 1-D kiln.scatter_elements.
/// output_shape must be a constant when given.
LogicalResult importMaxUnpool(NodeContext &n) {
  Value x = n.input(0), indices = n.input(1);
  if (!x || !indices)
    return failure();
  auto type = n.typeOf(x);
  int64_t rank = type.getRank();
  if (rank < 3 || !type.hasStaticShape())
    return n.fail("expected an input of rank >= 3 with a static shape");
  SmallVector<int64_t> outShape, given;
  if (Value shapeValue = n.optionalInput(2)) {
    auto values = n.requireConstInts(shapeValue, "output_shape");
    if (!values)
      return failure();
    if ((int64_t)values->size() != rank)
      return n.fail("output_shape must have " + std::to_string(rank) +
                    " values");
    given = *values;
  }
  {
    auto kernel = n.attrInts("kernel_shape");
    if (!kernel || (int64_t)kernel->size() != rank - 2)
      return n.fail("missing or malformed kernel_shape");
    SmallVector<int64_t> strides(rank - 2, 1), pads(2 * (rank - 2), 0);
    if (auto st = n.attrInts("strides"))
      strides = *st;
    if (auto p = n.attrInts("pads"))
      pads = *p;
    if ((int64_t)strides.size() != rank - 2 ||
        (int64_t)pads.size() != 2 * (rank - 2))
      return n.fail("malformed strides or pads");
    outShape = {type.getDimSize(0), type.getDimSize(1)};
    for (int64_t d = 0; d < rank - 2; ++d)
      outShape.push_back((type.getDimSize(d + 2) - 1) * strides[d] - pads[d] -
                         pads[d + rank - 2] + (*kernel)[d]);
  }
  // The indices address the default output shape; an output_shape that
  // differs (extra padding) would need them remapped, which kiln does not do
  // yet: refuse rather than scatter to the wrong places.
  if (!given.empty() && ArrayRef<int64_t>(given) != ArrayRef<int64_t>(outShape))
    return n.fail("an output_shape other than the default shape (from "
                  "kernel_shape, strides and pads) is not supported yet");
  int64_t total = 1;
  for (int64_t d : outShape) {
    if (d < 0)
      return n.fail("negative output dim");
    total *= d;
  }
  auto &b = n.builder();
  Value i = indicesToI64(n, indices, "indices");
  if (!i)
    return failure();
  Value flatX = n.create<ReshapeOp>(x, n.constI64({-1}), b.getBoolAttr(false));
  Value flatI = n.create<ReshapeOp>(i, n.constI64({-1}), b.getBoolAttr(false));
  Value zeros =
      n.constSplat(RankedTensorType::get({total}, type.getElementType()), 0);
  if (!flatX || !flatI)
    return failure();
  Value scattered = n.create<ScatterElementsOp>(
      zeros, flatI, flatX, b.getI64IntegerAttr(0),
      ScatterReductionAttr::get(b.getContext(), ScatterReduction::None));
  if (!scattered)
    return failure();
  return n.setResults({n.create<ReshapeOp>(scattered, n.constI64(outShape),
                                           b.getBoolAttr(false))});
}

/// Det 11 on [..., n, n] with a static n <= 4: the Leibniz sum over the n!
/// permutations of signed products of elements (exact, at most 24 terms).
LogicalResult importDet(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  auto type = n.typeOf(x);
  int64_t rank = type.getRank();
  if (rank < 2 || type.isDynamicDim(rank - 1) || type.isDynamicDim(rank - 2) ||
      type.getDimSize(rank - 1) != type.getDimSize(rank - 2))
    return n.fail("expected [..., n, n] matrices with a static n");
  int64_t size = type.getDimSize(rank - 1);
  if (size < 1 || size > 4)
    return n.fail("n = " + std::to_string(size) +
                  " is not supported (kiln expands Det at import as a sum over "
                  "permutations, for n <= 4)");
  auto &b = n.builder();
  // element[i][j]: x[..., i, j] with the matrix dims dropped.
  SmallVector<SmallVector<Value>> element(size);
  for (int64_t i = 0; i < size; ++i)
    for (int64_t j = 0; j < size; ++j) {
      Value e = n.create<SliceOp>(
          x, n.constI64({i, j}), n.constI64({i + 1, j + 1}),
          n.constI64({rank - 2, rank - 1}), n.constI64({1, 1}));
      if (e)
        e = n.create<SqueezeOp>(e,
                                b.getDenseI64ArrayAttr({rank - 2, rank - 1}));
      if (!e)
        return failure();
      element[i].push_back(e);
    }
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i < size; ++i)
    perm.push_back(i);
  Value det;
  do {
    int64_t inversions = 0;
    for (int64_t i = 0; i < size; ++i)
      for (int64_t j = i + 1; j < size; ++j)
        inversions += perm[i] > perm[j];
    Value term = element[0][perm[0]];
    for (int64_t i = 1; i < size && term; ++i)
      term = n.create<MulOp>(term, element[i][perm[i]]);
    if (!term)
      return failure();
    if (!det)
      det = inversions % 2 ? n.create<NegOp>(term) : term;
    else
      det = inversions % 2 ? n.create<SubOp>(det, term)
                           : n.create<AddOp>(det, term);
    if (!det)
      return failure();
  } while (std::next_permutation(perm.begin(), perm.end()));
  return n.setResults({det});
}

/// GridSample 16 (modes bilinear/nearest/bicubic) and 20 (linear/nearest/
/// cubic), 2-D spatial dims.
LogicalResult importGridSample(NodeContext &n) {
  Value x = n.input(0), grid = n.input(1);
  if (!x || !grid)
    return failure();
  if (n.typeOf(x).getRank() != 4)
    return n.fail(
        "only 4-D inputs (2-D spatial dims) are supported, got rank " +
        std::to_string(n.typeOf(x).getRank()));
  bool v20 = n.getOpset() >= 20;
  std::string mode = n.attrString("mode", v20 ? "linear" : "bilinear");
  InterpolationMode kilnMode;
  if (mode == (v20 ? "linear" : "bilinear"))
    kilnMode = InterpolationMode::Linear;
  else if (mode == (v20 ? "cubic" : "bicubic"))
    kilnMode = InterpolationMode::Cubic;
  else if (mode == "nearest")
    kilnMode = InterpolationMode::Nearest;
  else
    return n.fail("mode \"" + mode + "\" is not defined at this opset");
  std::string paddingName = n.attrString("padding_mode", "zeros");
  std::optional<GridSamplePaddingMode> padding =
      symbolizeGridSamplePaddingMode(paddingName);
  if (!padding)
    return n.fail("padding_mode \"" + paddingName +
                  "\" is not one of zeros, "
                  "border, reflection");
  auto &b = n.builder();
  return n.setResults({n.create<GridSampleOp>(
      x, grid, InterpolationModeAttr::get(b.getContext(), kilnMode),
      GridSamplePaddingModeAttr::get(b.getContext(), *padding),
      b.getBoolAttr(n.attrInt("align_corners", 0) != 0))});
}

//===--- HannWindow, HammingWindow, BlackmanWindow
//---------------------------===//

/// The generalized cosine windows of opset 17, a0 - a1 cos(2 pi k / N) + a2
/// cos(4 pi k / N) for k in [0, size) with N = size (periodic) or size - 1
/// (symmetric). `size` must be known at build time (it is the result's
/// shape), so the window is a constant.
template <int Kind> LogicalResult importWindow(NodeContext &n) {
  Value sizeValue = n.input(0);
  if (!sizeValue)
    return failure();
  auto sizes = n.requireConstInts(sizeValue, "size");
  if (!sizes)
    return failure();
  if (sizes->size() != 1)
    return n.fail("size must hold one value");
  int64_t size = (*sizes)[0];
  if (size < 0)
    return n.fail("size must not be negative, got " + std::to_string(size));
  int64_t dtype = n.attrInt("output_datatype", 1);
  Type elem = convertElementType(n.getContext(), dtype);
  if (!elem || !isa<FloatType, IntegerType>(elem))
    return n.fail("unsupported output_datatype " + dataTypeName(dtype));
  double a0 = 0.5, a1 = 0.5, a2 = 0.0; // Hann
  if (Kind == 1) {                     // Hamming
    a0 = 25.0 / 46.0;
    a1 = 1.0 - a0;
  } else if (Kind == 2) { // Blackman
    a0 = 0.42;
    a1 = 0.5;
    a2 = 0.08;
  }
  double period = n.attrInt("periodic", 1) ? size : size - 1;
  SmallVector<float> values;
  for (int64_t k = 0; k < size; ++k) {
    double x = 2.0 * M_PI * k / period;
    values.push_back((float)(a0 - a1 * std::cos(x) + a2 * std::cos(2 * x)));
  }
  auto f32Type = RankedTensorType::get({size}, n.builder().getF32Type());
  Value window = n.create<ConstantOp>(
      DenseElementsAttr::get(f32Type, ArrayRef<float>(values)));
  if (!window || elem.isF32())
    return n.setResults({window});
  return n.setResults({n.createTyped<CastOp>(f32Type.clone(elem), window)});
}

} // namespace

void registerExtraHandlers(HandlerRegistry &r) {
  r.add("Trilu", 14, importTrilu);
  r.add("EyeLike", 9, importEyeLike);
  r.add("Hardmax", 1, importHardmaxV1);
  r.add("Hardmax", 13, importHardmaxV13);
  r.add("OneHot", 9, importOneHot);
  r.add("HannWindow", 17, importWindow<0>);
  r.add("HammingWindow", 17, importWindow<1>);
  r.add("BlackmanWindow", 17, importWindow<2>);
  r.add("NegativeLogLikelihoodLoss", 12, importNLLLoss);
  r.add("SoftmaxCrossEntropyLoss", 12, importSoftmaxCrossEntropyLoss);
  r.add("MeanVarianceNormalization", 9, importMVN);
  r.add("ReverseSequence", 10, importReverseSequence);
  r.add("GatherND", 11, importGatherND);
  r.add("ScatterElements", 11, importScatterElements);
  r.add("Scatter", 9, importScatterElements);
  r.add("ScatterND", 11, importScatterND);
  r.add("GridSample", 16, importGridSample);
  r.add("MaxUnpool", 9, importMaxUnpool);
  r.add("Det", 11, importDet);
}

} // namespace kiln::onnx_import
