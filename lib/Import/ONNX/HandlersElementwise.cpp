//===- HandlersElementwise.cpp - ONNX elementwise ops ---------------------===//
#include "NodeContext.h"
#include "Tensors.h"

#include <cfloat>

using namespace mlir;
using namespace kiln::graph;

namespace kiln::onnx_import {
namespace {

template <typename OpTy> LogicalResult unary(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  return n.setResults({n.create<OpTy>(x)});
}

template <typename OpTy> LogicalResult binary(NodeContext &n) {
  Value a = n.input(0), b = n.input(1);
  if (!a || !b)
    return failure();
  return n.setResults({n.create<OpTy>(a, b)});
}

/// Opsets 1-6 binary ops broadcast only when `broadcast` = 1, and then B
/// (any rank <= A's) aligns with A's dims starting at `axis` (default: the
/// trailing dims, which is numpy's rule). Returns B unsqueezed with trailing
/// unit dims so that numpy broadcasting does the same; null after an error.
Value legacyBroadcastOperand(NodeContext &n, Value a, Value b) {
  int64_t broadcast = n.attrInt("broadcast", 0);
  auto at = n.typeOf(a), bt = n.typeOf(b);
  if (broadcast == 0) {
    if (at.getShape() != bt.getShape() &&
        (at.hasStaticShape() && bt.hasStaticShape()))
      (void)n.fail(
          "operands of shapes that differ need broadcast = 1 (opsets 1 to "
          "6 broadcast only when asked)");
    return n.hadError() ? Value() : b;
  }
  std::optional<int64_t> axis = n.attrIntOpt("axis");
  if (!axis)
    return b;
  int64_t rankA = at.getRank(), rankB = bt.getRank();
  int64_t start = *axis < 0 ? *axis + rankA : *axis;
  if (start < 0 || start + rankB > rankA) {
    (void)n.fail("axis " + std::to_string(*axis) + " does not place B (rank " +
                 std::to_string(rankB) + ") inside A (rank " +
                 std::to_string(rankA) + ")");
    return {};
  }
  SmallVector<int64_t> trailing;
  for (int64_t i = rankB; i < rankA - start; ++i)
    trailing.push_back(i);
  if (trailing.empty())
    return b;
  return n.create<UnsqueezeOp>(b, n.builder().getDenseI64ArrayAttr(trailing));
}

/// Binary ops of opsets 1-6: `broadcast`/`axis` (and `consumed_inputs`,
/// which only mattered to in-place executors).
template <typename OpTy> LogicalResult binaryLegacy(NodeContext &n) {
  Value a = n.input(0), b = n.input(1);
  if (!a || !b)
    return failure();
  b = legacyBroadcastOperand(n, a, b);
  if (!b)
    return failure();
  return n.setResults({n.create<OpTy>(a, b)});
}

/// Variadic Max/Min/Sum as a chain of binary ops.
template <typename OpTy> LogicalResult variadic(NodeContext &n) {
  SmallVector<Value> ins = n.inputs();
  if (ins.empty())
    return n.fail("expected at least one input");
  Value acc = ins[0];
  for (Value v : ArrayRef<Value>(ins).drop_front()) {
    acc = n.create<OpTy>(acc, v);
    if (!acc)
      return failure();
  }
  return n.setResults({acc});
}

LogicalResult importMean(NodeContext &n) {
  SmallVector<Value> ins = n.inputs();
  if (ins.empty())
    return n.fail("expected at least one input");
  Value acc = ins[0];
  for (Value v : ArrayRef<Value>(ins).drop_front())
    if (!(acc = n.create<AddOp>(acc, v)))
      return failure();
  if (ins.size() > 1) {
    auto et = n.typeOf(acc).getElementType();
    Value count =
        n.constSplat(RankedTensorType::get({}, et), (double)ins.size());
    acc = n.create<DivOp>(acc, count);
  }
  return n.setResults({acc});
}

/// Pow(T, T1) has the base's type. An integer base with a float exponent is
/// computed in the exponent's float type and converted back (4 ** 0.5 is 2);
/// otherwise the exponent takes the base's type.
LogicalResult importPow(NodeContext &n) {
  Value base = n.input(0), exponent = n.input(1);
  if (!base || !exponent)
    return failure();
  auto bt = n.typeOf(base), et = n.typeOf(exponent);
  if (bt.getElementType() == et.getElementType())
    return n.setResults({n.create<PowOp>(base, exponent)});
  if (bt.getElementType().isInteger() && isa<FloatType>(et.getElementType())) {
    Value wide = n.createTyped<CastOp>(bt.clone(et.getElementType()), base);
    Value p = wide ? n.create<PowOp>(wide, exponent) : Value();
    if (!p)
      return failure();
    return n.setResults(
        {n.createTyped<CastOp>(n.typeOf(p).clone(bt.getElementType()), p)});
  }
  exponent = n.createTyped<CastOp>(et.clone(bt.getElementType()), exponent);
  return n.setResults({n.create<PowOp>(base, exponent)});
}

/// Pow 1: `broadcast`/`axis` as the other opset-1 binary ops.
LogicalResult importPowLegacy(NodeContext &n) {
  Value base = n.input(0), exponent = n.input(1);
  if (!base || !exponent)
    return failure();
  exponent = legacyBroadcastOperand(n, base, exponent);
  if (!exponent)
    return failure();
  return n.setResults({n.create<PowOp>(base, exponent)});
}

LogicalResult importMod(NodeContext &n) {
  Value a = n.input(0), b = n.input(1);
  if (!a || !b)
    return failure();
  bool fmod = n.attrInt("fmod", 0) != 0;
  if (!fmod && isa<FloatType>(n.typeOf(a).getElementType()))
    return n.fail("fmod must be 1 for floating-point inputs");
  return n.setResults({n.create<ModOp>(a, b, n.builder().getBoolAttr(fmod))});
}

LogicalResult importBitShift(NodeContext &n) {
  Value a = n.input(0), b = n.input(1);
  if (!a || !b)
    return failure();
  std::string dir = n.attrString("direction", "");
  std::optional<BitShiftDirection> direction = symbolizeBitShiftDirection(dir);
  if (!direction)
    return n.fail(
        "attribute 'direction' must be \"LEFT\" or \"RIGHT\", got \"" + dir +
        "\"");
  return n.setResults({n.create<BitShiftOp>(
      a, b, BitShiftDirectionAttr::get(n.builder().getContext(), *direction))});
}

LogicalResult importWhere(NodeContext &n) {
  Value c = n.input(0), a = n.input(1), b = n.input(2);
  if (!c || !a || !b)
    return failure();
  return n.setResults({n.create<WhereOp>(c, a, b)});
}

LogicalResult importPRelu(NodeContext &n) {
  Value x = n.input(0), slope = n.input(1);
  if (!x || !slope)
    return failure();
  return n.setResults({n.create<PReluOp>(x, slope)});
}

/// PRelu 1 and 6: the slope has one element or one per channel (dim 1 of
/// [N, C, D1, ...]); opset 7 made it numpy-broadcast, so a per-channel slope
/// gets trailing unit dims.
LogicalResult importPReluLegacy(NodeContext &n) {
  Value x = n.input(0), slope = n.input(1);
  if (!x || !slope)
    return failure();
  auto xt = n.typeOf(x), st = n.typeOf(slope);
  if (st.getRank() == 1 && xt.getRank() > 2 && st.getDimSize(0) != 1 &&
      st.getDimSize(0) == xt.getDimSize(1)) {
    SmallVector<int64_t> trailing;
    for (int64_t i = 1; i < xt.getRank() - 1; ++i)
      trailing.push_back(i);
    slope = n.create<UnsqueezeOp>(slope,
                                  n.builder().getDenseI64ArrayAttr(trailing));
    if (!slope)
      return failure();
  }
  return n.setResults({n.create<PReluOp>(x, slope)});
}

//===--- Activations with attributes
//---------------------------------------===//

LogicalResult importLeakyRelu(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  return n.setResults({n.create<LeakyReluOp>(
      x, n.builder().getF32FloatAttr(n.attrFloat("alpha", 0.01f)))});
}
LogicalResult importElu(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  return n.setResults({n.create<EluOp>(
      x, n.builder().getF32FloatAttr(n.attrFloat("alpha", 1.0f)))});
}
LogicalResult importSelu(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  auto &b = n.builder();
  return n.setResults({n.create<SeluOp>(
      x, b.getF32FloatAttr(n.attrFloat("alpha", 1.67326319217681884765625f)),
      b.getF32FloatAttr(n.attrFloat("gamma", 1.05070102214813232421875f)))});
}
LogicalResult importCelu(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  return n.setResults({n.create<CeluOp>(
      x, n.builder().getF32FloatAttr(n.attrFloat("alpha", 1.0f)))});
}
LogicalResult importHardSigmoid(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  auto &b = n.builder();
  return n.setResults(
      {n.create<HardSigmoidOp>(x, b.getF32FloatAttr(n.attrFloat("alpha", 0.2f)),
                               b.getF32FloatAttr(n.attrFloat("beta", 0.5f)))});
}
LogicalResult importThresholdedRelu(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  return n.setResults({n.create<ThresholdedReluOp>(
      x, n.builder().getF32FloatAttr(n.attrFloat("alpha", 1.0f)))});
}
LogicalResult importShrink(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  auto &b = n.builder();
  return n.setResults(
      {n.create<ShrinkOp>(x, b.getF32FloatAttr(n.attrFloat("bias", 0.0f)),
                          b.getF32FloatAttr(n.attrFloat("lambd", 0.5f)))});
}
LogicalResult importGelu(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  std::string approximate = n.attrString("approximate", "none");
  std::optional<GeluApproximation> kind =
      symbolizeGeluApproximation(approximate);
  if (!kind)
    return n.fail(
        "attribute 'approximate' must be \"none\" or \"tanh\", got \"" +
        approximate + "\"");
  return n.setResults({n.create<GeluOp>(
      x, GeluApproximationAttr::get(n.builder().getContext(), *kind))});
}

/// Clip 1 and 6: bounds as attributes.
LogicalResult importClipV1(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  auto &b = n.builder();
  return n.setResults(
      {n.create<ClipOp>(x, b.getF64FloatAttr(n.attrFloat("min", -FLT_MAX)),
                        b.getF64FloatAttr(n.attrFloat("max", FLT_MAX)))});
}

/// Clip 11+: bounds as optional scalar inputs. Constant bounds become
/// kiln.clip's attributes; bounds computed at run time (or graph inputs)
/// become max(x, min) then min(., max), which is Clip's definition (a min
/// above max gives max, as numpy.clip).
LogicalResult importClipV11(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  Value lo = n.optionalInput(1), hi = n.optionalInput(2);
  std::optional<SmallVector<double>> loValues, hiValues;
  if (lo)
    loValues = n.constDoubles(lo);
  if (hi)
    hiValues = n.constDoubles(hi);
  bool constant = (!lo || loValues) && (!hi || hiValues);
  if (constant) {
    FloatAttr bounds[2];
    std::optional<SmallVector<double>> both[2] = {loValues, hiValues};
    for (int i = 0; i < 2; ++i) {
      const auto &values = both[i];
      if (!values)
        continue;
      if (values->size() != 1)
        return n.fail(std::string(i ? "max" : "min") +
                      " must hold one element, got " +
                      std::to_string(values->size()));
      bounds[i] = n.builder().getF64FloatAttr((*values)[0]);
    }
    return n.setResults({n.create<ClipOp>(x, bounds[0], bounds[1])});
  }
  Value bounds[2] = {lo, hi};
  for (int i = 0; i < 2; ++i)
    if (Value v = bounds[i];
        v && n.typeOf(v).hasStaticShape() && n.typeOf(v).getNumElements() != 1)
      return n.fail(std::string(i ? "max" : "min") +
                    " must hold one element, got " +
                    std::to_string(n.typeOf(v).getNumElements()));
  Value y = x;
  if (lo)
    y = n.create<MaxOp>(y, lo);
  if (y && hi)
    y = n.create<MinOp>(y, hi);
  if (!y)
    return failure();
  return n.setResults({y});
}

LogicalResult importIsInf(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  auto &b = n.builder();
  return n.setResults(
      {n.create<IsInfOp>(x, b.getBoolAttr(n.attrInt("detect_negative", 1) != 0),
                         b.getBoolAttr(n.attrInt("detect_positive", 1) != 0))});
}

LogicalResult importCast(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  std::optional<int64_t> to = n.attrIntOpt("to");
  if (!to)
    return n.fail("missing required attribute 'to'");
  Type et = convertElementType(n.getContext(), *to);
  if (!et)
    return n.fail("cast to " + dataTypeName(*to) + " is not supported");
  return n.setResults({n.createTyped<CastOp>(n.typeOf(x).clone(et), x)});
}

/// Cast 1: `to` is the type's name as a string ("FLOAT", "INT64", ...).
LogicalResult importCastV1(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  std::string to = n.attrString("to", "");
  if (n.hadError())
    return failure();
  int32_t dataType = 0;
  for (int32_t t = 1; t <= 22 && !dataType; ++t)
    if (dataTypeName(t) == to)
      dataType = t;
  if (!dataType)
    return n.fail(
        "attribute 'to' must name a data type (\"FLOAT\", ...), got \"" + to +
        "\"");
  Type et = convertElementType(n.getContext(), dataType);
  if (!et)
    return n.fail("cast to " + to + " is not supported");
  return n.setResults({n.createTyped<CastOp>(n.typeOf(x).clone(et), x)});
}

LogicalResult importCastLike(NodeContext &n) {
  Value x = n.input(0), like = n.input(1);
  if (!x || !like)
    return failure();
  return n.setResults({n.createTyped<CastOp>(
      n.typeOf(x).clone(n.typeOf(like).getElementType()), x)});
}

} // namespace

void registerElementwiseHandlers(HandlerRegistry &r) {
  r.add("Relu", 1, unary<ReluOp>);
  r.add("Sigmoid", 1, unary<SigmoidOp>);
  r.add("Tanh", 1, unary<TanhOp>);
  r.add("Erf", 9, unary<ErfOp>);
  r.add("Sqrt", 1, unary<SqrtOp>);
  r.add("Exp", 1, unary<ExpOp>);
  r.add("Log", 1, unary<LogOp>);
  r.add("Reciprocal", 1, unary<ReciprocalOp>);
  r.add("Floor", 1, unary<FloorOp>);
  r.add("Ceil", 1, unary<CeilOp>);
  r.add("Round", 11, unary<RoundOp>);
  r.add("Sin", 7, unary<SinOp>);
  r.add("Cos", 7, unary<CosOp>);
  r.add("Tan", 7, unary<TanOp>);
  r.add("Asin", 7, unary<AsinOp>);
  r.add("Acos", 7, unary<AcosOp>);
  r.add("Atan", 7, unary<AtanOp>);
  r.add("Sinh", 9, unary<SinhOp>);
  r.add("Cosh", 9, unary<CoshOp>);
  r.add("Asinh", 9, unary<AsinhOp>);
  r.add("Acosh", 9, unary<AcoshOp>);
  r.add("Atanh", 9, unary<AtanhOp>);
  r.add("Softplus", 1, unary<SoftplusOp>);
  r.add("Softsign", 1, unary<SoftsignOp>);
  r.add("HardSwish", 14, unary<HardSwishOp>);
  r.add("Mish", 18, unary<MishOp>);
  r.add("Abs", 1, unary<AbsOp>);
  r.add("Neg", 1, unary<NegOp>);
  r.add("Sign", 9, unary<SignOp>);
  r.add("Not", 1, unary<NotOp>);
  r.add("BitwiseNot", 18, unary<BitwiseNotOp>);
  r.add("IsNaN", 9, unary<IsNaNOp>);
  r.add("IsInf", 10, importIsInf);
  r.add("LeakyRelu", 1, importLeakyRelu);
  r.add("Elu", 1, importElu);
  r.add("Selu", 1, importSelu);
  r.add("Celu", 12, importCelu);
  r.add("HardSigmoid", 1, importHardSigmoid);
  r.add("ThresholdedRelu", 10, importThresholdedRelu);
  r.add("Shrink", 9, importShrink);
  r.add("Gelu", 20, importGelu);
  r.add("Clip", 1, importClipV1);
  r.add("Clip", 11, importClipV11);
  r.add("Cast", 1, importCastV1);
  r.add("Cast", 6, importCast);
  r.add("CastLike", 15, importCastLike);

  // Opsets 1 and 6 of the binary ops differ from 7 only by the explicit
  // broadcast/axis attributes (and opset 1's consumed_inputs).
  r.add("Add", 1, binaryLegacy<AddOp>);
  r.add("Sub", 1, binaryLegacy<SubOp>);
  r.add("Mul", 1, binaryLegacy<MulOp>);
  r.add("Div", 1, binaryLegacy<DivOp>);
  r.add("Pow", 1, importPowLegacy);
  r.add("Equal", 1, binaryLegacy<EqualOp>);
  r.add("Less", 1, binaryLegacy<LessOp>);
  r.add("Greater", 1, binaryLegacy<GreaterOp>);
  r.add("And", 1, binaryLegacy<AndOp>);
  r.add("Or", 1, binaryLegacy<OrOp>);
  r.add("Xor", 1, binaryLegacy<XorOp>);
  // Opset 1's variadic ops only add consumed_inputs.
  r.add("Max", 1, variadic<MaxOp>);
  r.add("Min", 1, variadic<MinOp>);
  r.add("Sum", 1, variadic<AddOp>);
  r.add("Mean", 1, importMean);
  r.add("PRelu", 1, importPReluLegacy);
  r.add("Add", 7, binary<AddOp>);
  r.add("Sub", 7, binary<SubOp>);
  r.add("Mul", 7, binary<MulOp>);
  r.add("Div", 7, binary<DivOp>);
  r.add("Pow", 7, importPow);
  r.add("Mod", 10, importMod);
  r.add("BitShift", 11, importBitShift);
  r.add("BitwiseAnd", 18, binary<BitwiseAndOp>);
  r.add("BitwiseOr", 18, binary<BitwiseOrOp>);
  r.add("BitwiseXor", 18, binary<BitwiseXorOp>);
  r.add("Max", 6, variadic<MaxOp>);
  r.add("Min", 6, variadic<MinOp>);
  r.add("Sum", 6, variadic<AddOp>);
  r.add("Mean", 6, importMean);
  r.add("Equal", 7, binary<EqualOp>);
  r.add("Less", 7, binary<LessOp>);
  r.add("LessOrEqual", 12, binary<LessOrEqualOp>);
  r.add("Greater", 7, binary<GreaterOp>);
  r.add("GreaterOrEqual", 12, binary<GreaterOrEqualOp>);
  r.add("And", 7, binary<AndOp>);
  r.add("Or", 7, binary<OrOp>);
  r.add("Xor", 7, binary<XorOp>);
  r.add("Where", 9, importWhere);
  r.add("PRelu", 7, importPRelu);
}

} // namespace kiln::onnx_import
