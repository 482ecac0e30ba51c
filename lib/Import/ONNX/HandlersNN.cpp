//===- HandlersNN.cpp - ONNX conv, matmul, normalization and pooling ------===//
#include "NodeContext.h"

#include "dialects/Graph/IR/ShapeUtils.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace kiln::graph;

namespace kiln::onnx_import {

/// Explicit begin/end pads for `n` spatial dims from `auto_pad` / `pads`.
std::optional<SmallVector<int64_t>>
resolvePads(NodeContext &n, RankedTensorType input, ArrayRef<int64_t> kernel,
            ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations) {
  int64_t rank = kernel.size();
  std::string autoPad = n.attrString("auto_pad", "NOTSET");
  if (autoPad == "NOTSET") {
    SmallVector<int64_t> pads =
        n.attrInts("pads").value_or(SmallVector<int64_t>(2 * rank, 0));
    if ((int64_t)pads.size() != 2 * rank) {
      (void)n.fail("expected " + std::to_string(2 * rank) + " pads, got " +
                   std::to_string(pads.size()));
      return std::nullopt;
    }
    if (llvm::any_of(pads,
                     [](int64_t p) { return p < 0 || p > kMaxDimSize; })) {
      (void)n.fail("pads must be in [0, 2^40]");
      return std::nullopt;
    }
    return pads;
  }
  if (autoPad == "VALID")
    return SmallVector<int64_t>(2 * rank, 0);
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER") {
    (void)n.fail("attribute 'auto_pad' must be NOTSET, VALID, SAME_UPPER or "
                 "SAME_LOWER, got \"" +
                 autoPad + "\"");
    return std::nullopt;
  }
  SmallVector<int64_t> pads(2 * rank, 0);
  for (int64_t i = 0; i < rank; ++i) {
    int64_t in = input.getDimSize(i + 2);
    int64_t span = (kernel[i] - 1) * dilations[i] + 1;
    int64_t total;
    if (ShapedType::isDynamic(in)) {
      if (strides[i] != 1) {
        // Amounts depend on the run-time size: the op keeps auto_pad.
        return SmallVector<int64_t>();
      }
      total = span - 1;
    } else {
      int64_t out = (in + strides[i] - 1) / strides[i];
      total = std::max<int64_t>(0, (out - 1) * strides[i] + span - in);
    }
    int64_t small = total / 2, large = total - small;
    pads[i] = autoPad == "SAME_UPPER" ? small : large;
    pads[i + rank] = autoPad == "SAME_UPPER" ? large : small;
  }
  return pads;
}

/// Reads strides/dilations (default 1s) and the kernel shape.
bool windowAttrs(NodeContext &n, RankedTensorType input,
                 std::optional<RankedTensorType> filter,
                 SmallVectorImpl<int64_t> &kernel,
                 SmallVectorImpl<int64_t> &strides,
                 SmallVectorImpl<int64_t> &dilations) {
  int64_t rank = input.getRank() - 2;
  if (rank < 1) {
    (void)n.fail(
        "expected an input of rank >= 3 ([N, C, spatial...]), got rank " +
        std::to_string(input.getRank()));
    return false;
  }
  if (auto k = n.attrInts("kernel_shape")) {
    kernel.assign(k->begin(), k->end());
    // The filter decides the kernel the op computes with; a kernel_shape
    // that says otherwise would make SAME padding (and the user) wrong.
    if (filter && filter->getRank() == input.getRank()) {
      ArrayRef<int64_t> spatial = filter->getShape().drop_front(2);
      bool contradicts = spatial.size() != kernel.size();
      for (auto [k, d] : llvm::zip(kernel, spatial))
        contradicts |= !ShapedType::isDynamic(d) && d != k;
      if (contradicts) {
        auto list = [](ArrayRef<int64_t> values) {
          std::string s;
          for (int64_t v : values)
            s += (s.empty() ? "" : ", ") + (ShapedType::isDynamic(v)
                                                ? std::string("?")
                                                : std::to_string(v));
          return "[" + s + "]";
        };
        (void)n.fail("attribute 'kernel_shape' " + list(kernel) +
                     " contradicts the spatial dims " + list(spatial) +
                     " of filter '" + n.node_().input(1) + "'");
        return false;
      }
    }
  } else if (filter && filter->getRank() == input.getRank() &&
             llvm::all_of(filter->getShape().drop_front(2), [](int64_t d) {
               return !ShapedType::isDynamic(d);
             })) {
    kernel.assign(filter->getShape().begin() + 2, filter->getShape().end());
  } else {
    (void)n.fail("missing 'kernel_shape' (and the filter's spatial dims are "
                 "not static)");
    return false;
  }
  strides.assign(n.attrInts("strides").value_or(SmallVector<int64_t>(rank, 1)));
  dilations.assign(
      n.attrInts("dilations").value_or(SmallVector<int64_t>(rank, 1)));
  if ((int64_t)kernel.size() != rank || (int64_t)strides.size() != rank ||
      (int64_t)dilations.size() != rank) {
    (void)n.fail("expected " + std::to_string(rank) +
                 " values in kernel_shape, strides and dilations");
    return false;
  }
  auto outOfRange = [](ArrayRef<int64_t> values) {
    return llvm::any_of(values,
                        [](int64_t v) { return v <= 0 || v > kMaxDimSize; });
  };
  if (outOfRange(strides) || outOfRange(dilations) || outOfRange(kernel)) {
    (void)n.fail("kernel_shape, strides and dilations must be positive (and at "
                 "most 2^40)");
    return false;
  }
  return !n.hadError();
}

namespace {

/// resolvePads returns no pads when SAME padding must be computed at run
/// time; the op then carries auto_pad and zero pads.
AutoPadAttr runtimeAutoPad(NodeContext &n, SmallVectorImpl<int64_t> &pads,
                           size_t rank) {
  MLIRContext *ctx = n.builder().getContext();
  if (!pads.empty())
    return AutoPadAttr::get(ctx, AutoPad::NotSet);
  pads.assign(2 * rank, 0);
  // resolvePads leaves the pads to run time only for SAME_UPPER/SAME_LOWER.
  std::optional<AutoPad> autoPad =
      symbolizeAutoPad(n.attrString("auto_pad", "NOTSET"));
  assert(autoPad && *autoPad != AutoPad::NotSet &&
         "run-time pads without SAME auto_pad");
  return AutoPadAttr::get(ctx, *autoPad);
}

LogicalResult importConv(NodeContext &n) {
  Value x = n.input(0), w = n.input(1), bias = n.optionalInput(2);
  if (!x || !w)
    return failure();
  SmallVector<int64_t> kernel, strides, dilations;
  if (!windowAttrs(n, n.typeOf(x), n.typeOf(w), kernel, strides, dilations))
    return failure();
  auto pads = resolvePads(n, n.typeOf(x), kernel, strides, dilations);
  if (!pads)
    return failure();
  auto &b = n.builder();
  AutoPadAttr autoPad = runtimeAutoPad(n, *pads, kernel.size());
  return n.setResults({n.create<ConvOp>(
      x, w, bias, b.getDenseI64ArrayAttr(strides),
      b.getDenseI64ArrayAttr(*pads), b.getDenseI64ArrayAttr(dilations),
      b.getI64IntegerAttr(n.attrInt("group", 1)), autoPad,
      /*channels_last=*/b.getBoolAttr(false))});
}

LogicalResult importConvTranspose(NodeContext &n) {
  Value x = n.input(0), w = n.input(1), bias = n.optionalInput(2);
  if (!x || !w)
    return failure();
  auto input = n.typeOf(x);
  SmallVector<int64_t> kernel, strides, dilations;
  if (!windowAttrs(n, input, n.typeOf(w), kernel, strides, dilations))
    return failure();
  int64_t rank = kernel.size();
  SmallVector<int64_t> outPad =
      n.attrInts("output_padding").value_or(SmallVector<int64_t>(rank, 0));
  if ((int64_t)outPad.size() != rank)
    return n.fail("expected " + std::to_string(rank) +
                  " output_padding values");
  std::string autoPad = n.attrString("auto_pad", "NOTSET");
  std::optional<SmallVector<int64_t>> outShape = n.attrInts("output_shape");
  SmallVector<int64_t> pads(2 * rank, 0);
  if (outShape || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    if (outShape && (int64_t)outShape->size() == rank + 2)
      outShape->erase(outShape->begin(), outShape->begin() + 2);
    for (int64_t i = 0; i < rank; ++i) {
      int64_t in = input.getDimSize(i + 2);
      if (ShapedType::isDynamic(in))
        return n.fail("output_shape/auto_pad need static spatial input dims");
      int64_t target =
          outShape ? (i < (int64_t)outShape->size() ? (*outShape)[i] : -1)
                   : in * strides[i];
      if (target < 0)
        return n.fail("output_shape must have one value per spatial dim");
      int64_t total = strides[i] * (in - 1) + outPad[i] +
                      (kernel[i] - 1) * dilations[i] + 1 - target;
      if (total < 0)
        return n.fail("output_shape is larger than the transposed "
                      "convolution can produce");
      bool upper = autoPad == "SAME_UPPER";
      pads[i] = upper ? total / 2 : total - total / 2;
      pads[i + rank] = upper ? total - total / 2 : total / 2;
    }
  } else if (autoPad == "NOTSET") {
    if (auto p = n.attrInts("pads")) {
      if ((int64_t)p->size() != 2 * rank)
        return n.fail("expected " + std::to_string(2 * rank) + " pads");
      pads.assign(p->begin(), p->end());
    }
  } else if (autoPad != "VALID") {
    return n.fail("unsupported auto_pad \"" + autoPad + "\"");
  }
  auto &b = n.builder();
  return n.setResults({n.create<ConvTransposeOp>(
      x, w, bias, b.getDenseI64ArrayAttr(strides), b.getDenseI64ArrayAttr(pads),
      b.getDenseI64ArrayAttr(dilations), b.getDenseI64ArrayAttr(outPad),
      b.getI64IntegerAttr(n.attrInt("group", 1)))});
}

LogicalResult importGemm(NodeContext &n) {
  Value a = n.input(0), bm = n.input(1), c = n.optionalInput(2);
  if (!a || !bm)
    return failure();
  auto &b = n.builder();
  return n.setResults(
      {n.create<GemmOp>(a, bm, c, b.getF32FloatAttr(n.attrFloat("alpha", 1.0f)),
                        b.getF32FloatAttr(n.attrFloat("beta", 1.0f)),
                        b.getBoolAttr(n.attrInt("transA", 0) != 0),
                        b.getBoolAttr(n.attrInt("transB", 0) != 0))});
}

LogicalResult importMatMul(NodeContext &n) {
  Value a = n.input(0), b = n.input(1);
  if (!a || !b)
    return failure();
  return n.setResults({n.create<MatMulOp>(a, b)});
}

//===--- Einsum (matmul forms)
//----------------------------------------------===//

Value transposeIfNeeded(NodeContext &n, Value v, ArrayRef<int64_t> perm) {
  bool identity = llvm::all_of(llvm::enumerate(perm), [](auto p) {
    return (int64_t)p.index() == p.value();
  });
  if (identity || !v)
    return v;
  return n.create<TransposeOp>(v, n.builder().getDenseI64ArrayAttr(perm));
}

/// Product of the dims at `positions` of `t`, or -1 (dynamic: only one such
/// group may be dynamic and it becomes -1 in the reshape).
int64_t groupSize(RankedTensorType t, ArrayRef<int64_t> positions) {
  int64_t p = 1;
  for (int64_t i : positions) {
    if (t.isDynamicDim(i))
      return -1;
    p *= t.getDimSize(i);
  }
  return p;
}

LogicalResult importEinsum(NodeContext &n) {
  std::string eq = n.attrString("equation", "");
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  if (eq.empty())
    return n.fail("missing 'equation'");
  if (eq.find('.') != std::string::npos)
    return n.fail("einsum with an ellipsis ('" + eq + "') is not supported");
  size_t arrow = eq.find("->");
  std::string lhsPart = eq.substr(0, arrow);
  SmallVector<StringRef> terms;
  StringRef(lhsPart).split(terms, ',');
  std::string out;
  if (arrow != std::string::npos) {
    out = eq.substr(arrow + 2);
  } else {
    for (char c = 'A'; c <= 'z'; ++c)
      if (llvm::count(lhsPart, c) == 1)
        out.push_back(c);
  }
  SmallVector<Value> ins = n.inputs();
  if (ins.size() != terms.size())
    return n.fail("equation '" + eq + "' names " +
                  std::to_string(terms.size()) + " operands, got " +
                  std::to_string(ins.size()));
  for (auto [term, v] : llvm::zip(terms, ins)) {
    if ((int64_t)term.size() != n.typeOf(v).getRank())
      return n.fail("equation term '" + term.str() + "' does not match rank " +
                    std::to_string(n.typeOf(v).getRank()));
    for (char c : term)
      if (llvm::count(term, c) != 1)
        return n.fail("repeated index '" + std::string(1, c) +
                      "' in one operand (diagonals) is not supported");
  }
  auto pos = [](StringRef s, char c) { return (int64_t)s.find(c); };
  if (terms.size() == 1) {
    StringRef in = terms[0];
    if (out.size() != in.size() ||
        llvm::any_of(out, [&](char c) { return pos(in, c) < 0; }))
      return n.fail("single-operand einsum '" + eq +
                    "' is only supported as a transpose");
    SmallVector<int64_t> perm;
    for (char c : out)
      perm.push_back(pos(in, c));
    return n.setResults({transposeIfNeeded(n, ins[0], perm)});
  }
  if (terms.size() != 2)
    return n.fail("einsum with more than two operands is not supported");
  StringRef L = terms[0], R = terms[1];
  std::string batch, contract, freeL, freeR;
  for (char c : out)
    if (pos(L, c) >= 0 && pos(R, c) >= 0)
      batch.push_back(c);
  for (char c : L) {
    bool inR = pos(R, c) >= 0, inO = out.find(c) != std::string::npos;
    if (inR && !inO)
      contract.push_back(c);
    else if (!inR && inO)
      freeL.push_back(c);
    else if (!inR && !inO)
      return n.fail("einsum '" + eq +
                    "' sums over an index of one operand only");
  }
  for (char c : R) {
    bool inL = pos(L, c) >= 0, inO = out.find(c) != std::string::npos;
    if (!inL && inO)
      freeR.push_back(c);
    else if (!inL && !inO)
      return n.fail("einsum '" + eq +
                    "' sums over an index of one operand only");
  }
  for (char c : out)
    if (pos(L, c) < 0 && pos(R, c) < 0)
      return n.fail("output index '" + std::string(1, c) +
                    "' is in no operand");
  SmallVector<int64_t> permL, permR;
  for (char c : batch + freeL + contract)
    permL.push_back(pos(L, c));
  for (char c : batch + contract + freeR)
    permR.push_back(pos(R, c));
  Value lhs = transposeIfNeeded(n, ins[0], permL);
  Value rhs = transposeIfNeeded(n, ins[1], permR);
  if (!lhs || !rhs)
    return failure();
  int64_t nb = batch.size();
  auto lt = n.typeOf(lhs), rt = n.typeOf(rhs);
  // One contraction and one rhs index: kiln.matmul broadcasting treats the
  // extra lhs indices as batch dims ("bsd,de->bse"), dynamic or not.
  bool simple = contract.size() == 1 && freeR.size() == 1 &&
                (freeL.size() == 1 || (batch.empty() && !freeL.empty()));
  if (!simple) {
    // Merge each group into one dim: [batch..., M, K] x [batch..., K, N].
    auto seq = [](int64_t from, int64_t count) {
      SmallVector<int64_t> s;
      for (int64_t i = 0; i < count; ++i)
        s.push_back(from + i);
      return s;
    };
    int64_t m = groupSize(lt, seq(nb, freeL.size()));
    int64_t k = groupSize(lt, seq(nb + freeL.size(), contract.size()));
    int64_t nn = groupSize(rt, seq(nb + contract.size(), freeR.size()));
    if (m < 0 || k < 0 || nn < 0)
      return n.fail("einsum '" + eq +
                    "' merges dynamic dims, which is not supported");
    SmallVector<int64_t> shapeL(nb, 0), shapeR(nb, 0);
    shapeL.append({m, k});
    shapeR.append({k, nn});
    lhs = n.create<ReshapeOp>(lhs, n.constI64(shapeL),
                              n.builder().getBoolAttr(false));
    rhs = n.create<ReshapeOp>(rhs, n.constI64(shapeR),
                              n.builder().getBoolAttr(false));
    if (!lhs || !rhs)
      return failure();
  }
  Value prod = n.create<MatMulOp>(lhs, rhs);
  if (!prod)
    return failure();
  if (!simple) {
    SmallVector<int64_t> shape(nb, 0);
    for (char c : freeL)
      shape.push_back(n.typeOf(ins[0]).getDimSize(pos(L, c)));
    for (char c : freeR)
      shape.push_back(n.typeOf(ins[1]).getDimSize(pos(R, c)));
    if (llvm::any_of(ArrayRef<int64_t>(shape).drop_front(nb),
                     [](int64_t d) { return ShapedType::isDynamic(d); }))
      return n.fail("einsum '" + eq +
                    "' splits dynamic dims, which is not supported");
    prod = n.create<ReshapeOp>(prod, n.constI64(shape),
                               n.builder().getBoolAttr(false));
    if (!prod)
      return failure();
  }
  std::string have = batch + freeL + freeR;
  SmallVector<int64_t> perm;
  for (char c : out)
    perm.push_back(pos(have, c));
  return n.setResults({transposeIfNeeded(n, prod, perm)});
}

//===--- Normalization
//------------------------------------------------------===//

LogicalResult importBatchNorm(NodeContext &n) {
  Value x = n.input(0), scale = n.input(1), bias = n.input(2),
        mean = n.input(3), var = n.input(4);
  if (!x || !scale || !bias || !mean || !var)
    return failure();
  if (n.attrInt("training_mode", 0) != 0)
    return n.fail(
        "training_mode = 1 is not supported (kiln compiles inference graphs)");
  if (n.attrInt("spatial", 1) != 1)
    return n.fail("spatial = 0 (per-activation statistics) is not supported");
  return n.setResults({n.create<BatchNormOp>(
      x, scale, bias, mean, var,
      n.builder().getF32FloatAttr(n.attrFloat("epsilon", 1e-5f)),
      /*channels_last=*/n.builder().getBoolAttr(false))});
}

/// BatchNormalization 1 and 6: `is_test` = 0 means training (batch
/// statistics, updated running means); `spatial`; opset 1's consumed_inputs.
LogicalResult importBatchNormLegacy(NodeContext &n) {
  if (n.attrInt("is_test", 0) == 0 && (n.outputUsed(1) || n.outputUsed(2) ||
                                       n.outputUsed(3) || n.outputUsed(4)))
    return n.fail("is_test = 0 with the running statistics as outputs is "
                  "training, which is not supported (kiln compiles inference "
                  "graphs)");
  return importBatchNorm(n);
}

LogicalResult importInstanceNorm(NodeContext &n) {
  Value x = n.input(0), scale = n.input(1), bias = n.input(2);
  if (!x || !scale || !bias)
    return failure();
  return n.setResults({n.create<InstanceNormOp>(
      x, scale, bias,
      n.builder().getF32FloatAttr(n.attrFloat("epsilon", 1e-5f)))});
}

/// LayerNormalization 17. The optional Mean and InvStdDev outputs (kept dims
/// over [axis, rank)) are rarely consumed; when they are, they are computed
/// beside kiln.layer_norm with reductions.
LogicalResult importLayerNorm(NodeContext &n) {
  Value x = n.input(0), scale = n.input(1), bias = n.optionalInput(2);
  if (!x || !scale)
    return failure();
  int64_t rank = n.typeOf(x).getRank();
  auto axis = n.normalizeAxis(n.attrInt("axis", -1), rank);
  if (!axis)
    return failure();
  auto &b = n.builder();
  float epsilon = n.attrFloat("epsilon", 1e-5f);
  Value y = n.create<LayerNormOp>(x, scale, bias, b.getI64IntegerAttr(*axis),
                                  b.getF32FloatAttr(epsilon));
  if (!y || (!n.outputUsed(1) && !n.outputUsed(2)))
    return n.setResults({y});
  if (n.attrInt("stash_type", 1) != 1)
    return n.fail(
        "Mean/InvStdDev outputs with stash_type != 1 are not supported");
  SmallVector<int64_t> axes;
  for (int64_t i = *axis; i < rank; ++i)
    axes.push_back(i);
  auto f32 = b.getF32Type();
  Value xf = n.typeOf(x).getElementType() == f32
                 ? x
                 : n.createTyped<CastOp>(n.typeOf(x).clone(f32), x);
  Value mean = n.create<ReduceMeanOp>(xf, b.getDenseI64ArrayAttr(axes),
                                      b.getBoolAttr(true));
  Value centered = n.create<SubOp>(xf, mean);
  Value square = n.create<MulOp>(centered, centered);
  Value var = n.create<ReduceMeanOp>(square, b.getDenseI64ArrayAttr(axes),
                                     b.getBoolAttr(true));
  Value eps = n.constSplat(RankedTensorType::get({}, f32), epsilon);
  Value invStd =
      n.create<ReciprocalOp>(n.create<SqrtOp>(n.create<AddOp>(var, eps)));
  if (!mean || !invStd)
    return failure();
  return n.setResults({y, mean, invStd});
}

LogicalResult importLRN(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  std::optional<int64_t> size = n.attrIntOpt("size");
  if (!size || *size <= 0)
    return n.fail("missing or non-positive 'size'");
  auto &b = n.builder();
  return n.setResults(
      {n.create<LRNOp>(x, b.getI64IntegerAttr(*size),
                       b.getF32FloatAttr(n.attrFloat("alpha", 1e-4f)),
                       b.getF32FloatAttr(n.attrFloat("beta", 0.75f)),
                       b.getF32FloatAttr(n.attrFloat("bias", 1.0f)))});
}

/// Softmax/LogSoftmax 13: one axis, default -1.
template <typename OpTy> LogicalResult importSoftmaxV13(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  auto axis = n.normalizeAxis(n.attrInt("axis", -1), n.typeOf(x).getRank());
  if (!axis)
    return failure();
  return n.setResults(
      {n.create<OpTy>(x, n.builder().getI64IntegerAttr(*axis))});
}

/// Softmax/LogSoftmax 1 and 11: over the flattened dims from `axis` (default
/// 1).
template <typename OpTy> LogicalResult importSoftmaxV1(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  int64_t rank = n.typeOf(x).getRank();
  auto &b = n.builder();
  if (rank == 0)
    return n.fail("expected an input of rank >= 1");
  int64_t raw = n.attrInt("axis", 1);
  int64_t axis = raw < 0 ? raw + rank : raw;
  if (axis < 0 || axis > rank)
    return n.fail("axis " + std::to_string(raw) + " out of range");
  if (axis >= rank - 1)
    return n.setResults({n.create<OpTy>(x, b.getI64IntegerAttr(rank - 1))});
  Value flat = n.create<FlattenOp>(x, b.getI64IntegerAttr(axis));
  Value soft = flat ? n.create<OpTy>(flat, b.getI64IntegerAttr(1)) : Value();
  Value shape = n.create<ShapeOp>(x, b.getI64IntegerAttr(0), IntegerAttr());
  if (!soft || !shape)
    return failure();
  return n.setResults({n.create<ReshapeOp>(soft, shape, b.getBoolAttr(false))});
}

//===--- Pooling
//------------------------------------------------------------===//

template <typename OpTy> LogicalResult importPool(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  SmallVector<int64_t> kernel, strides, dilations;
  if (!n.hasAttr("kernel_shape"))
    return n.fail("missing required attribute 'kernel_shape'");
  if (!windowAttrs(n, n.typeOf(x), std::nullopt, kernel, strides, dilations))
    return failure();
  auto pads = resolvePads(n, n.typeOf(x), kernel, strides, dilations);
  if (!pads)
    return failure();
  auto &b = n.builder();
  bool ceil = n.attrInt("ceil_mode", 0) != 0;
  AutoPadAttr autoPad = runtimeAutoPad(n, *pads, kernel.size());
  if constexpr (std::is_same_v<OpTy, AvgPoolOp>)
    return n.setResults({n.create<AvgPoolOp>(
        x, b.getDenseI64ArrayAttr(kernel), b.getDenseI64ArrayAttr(strides),
        b.getDenseI64ArrayAttr(*pads), b.getDenseI64ArrayAttr(dilations),
        b.getBoolAttr(ceil), autoPad, /*channels_last=*/b.getBoolAttr(false),
        b.getBoolAttr(n.attrInt("count_include_pad", 0) != 0))});
  else
    return n.setResults({n.create<MaxPoolOp>(
        x, b.getDenseI64ArrayAttr(kernel), b.getDenseI64ArrayAttr(strides),
        b.getDenseI64ArrayAttr(*pads), b.getDenseI64ArrayAttr(dilations),
        b.getBoolAttr(ceil), autoPad, /*channels_last=*/b.getBoolAttr(false))});
}

template <typename ReduceOpTy> LogicalResult importGlobalPool(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  int64_t rank = n.typeOf(x).getRank();
  if (rank < 3)
    return n.fail("expected an input of rank >= 3");
  SmallVector<int64_t> axes;
  for (int64_t i = 2; i < rank; ++i)
    axes.push_back(i);
  auto &b = n.builder();
  return n.setResults({n.create<ReduceOpTy>(x, b.getDenseI64ArrayAttr(axes),
                                            b.getBoolAttr(true))});
}

} // namespace

void registerNNHandlers(HandlerRegistry &r) {
  r.add("Conv", 1, importConv);
  r.add("ConvTranspose", 1, importConvTranspose);
  // Gemm 1 and 6 differ by `broadcast`, which numpy broadcasting of C covers.
  r.add("Gemm", 1, importGemm);
  r.add("Gemm", 7, importGemm);
  r.add("MatMul", 1, importMatMul);
  r.add("Einsum", 12, importEinsum);
  r.add("BatchNormalization", 1, importBatchNormLegacy);
  r.add("BatchNormalization", 7, importBatchNorm);
  r.add("InstanceNormalization", 6, importInstanceNorm);
  r.add("LayerNormalization", 17, importLayerNorm);
  r.add("LRN", 1, importLRN);
  r.add("Softmax", 1, importSoftmaxV1<SoftmaxOp>);
  r.add("Softmax", 13, importSoftmaxV13<SoftmaxOp>);
  r.add("LogSoftmax", 1, importSoftmaxV1<LogSoftmaxOp>);
  r.add("LogSoftmax", 13, importSoftmaxV13<LogSoftmaxOp>);
  r.add("MaxPool", 1, importPool<MaxPoolOp>);
  r.add("AveragePool", 1, importPool<AvgPoolOp>);
  r.add("GlobalAveragePool", 1, importGlobalPool<ReduceMeanOp>);
  r.add("GlobalMaxPool", 1, importGlobalPool<ReduceMaxOp>);
}

} // namespace kiln::onnx_import
