//===- HandlersElementwise.cpp - ONNX elementwise ops ---------------------===//
#include "NodeContext.h"
#include "Tensors.h"

#include <cfloat>

using namespace mlir;
using namespace kiln::graph;

namespace kiln::onnx_import {
namespace {

template <typename OpTy>
LogicalResult unary(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  return n.setResults({n.create<OpTy>(x)});
}

template <typename OpTy>
LogicalResult binary(NodeContext &n) {
  Value a = n.input(0), b = n.input(1);
  if (!a || !b)
    return failure();
  return n.setResults({n.create<OpTy>(a, b)});
}

/// Variadic Max/Min/Sum as a chain of binary ops.
template <typename OpTy>
LogicalResult variadic(NodeContext &n) {
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
    Value count = n.constSplat(RankedTensorType::get({}, et), (double)ins.size());
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
    return n.setResults({n.createTyped<CastOp>(n.typeOf(p).clone(bt.getElementType()), p)});
  }
  exponent = n.createTyped<CastOp>(et.clone(bt.getElementType()), exponent);
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
  if (dir != "LEFT" && dir != "RIGHT")
    return n.fail("attribute 'direction' must be \"LEFT\" or \"RIGHT\", got \"" + dir + "\"");
  return n.setResults({n.create<BitShiftOp>(a, b, n.builder().getStringAttr(dir))});
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

//===--- Activations with attributes ---------------------------------------===//

LogicalResult importLeakyRelu(NodeContext &n) {
  Value x = n.input(0);
  if (!x) return failure();
  return n.setResults({n.create<LeakyReluOp>(
      x, n.builder().getF32FloatAttr(n.attrFloat("alpha", 0.01f)))});
}
LogicalResult importElu(NodeContext &n) {
  Value x = n.input(0);
  if (!x) return failure();
  return n.setResults({n.create<EluOp>(x, n.builder().getF32FloatAttr(n.attrFloat("alpha", 1.0f)))});
}
LogicalResult importSelu(NodeContext &n) {
  Value x = n.input(0);
  if (!x) return failure();
  auto &b = n.builder();
  return n.setResults({n.create<SeluOp>(
      x, b.getF32FloatAttr(n.attrFloat("alpha", 1.67326319217681884765625f)),
      b.getF32FloatAttr(n.attrFloat("gamma", 1.05070102214813232421875f)))});
}
LogicalResult importCelu(NodeContext &n) {
  Value x = n.input(0);
  if (!x) return failure();
  return n.setResults({n.create<CeluOp>(x, n.builder().getF32FloatAttr(n.attrFloat("alpha", 1.0f)))});
}
LogicalResult importHardSigmoid(NodeContext &n) {
  Value x = n.input(0);
  if (!x) return failure();
  auto &b = n.builder();
  return n.setResults({n.create<HardSigmoidOp>(x, b.getF32FloatAttr(n.attrFloat("alpha", 0.2f)),
                                               b.getF32FloatAttr(n.attrFloat("beta", 0.5f)))});
}
LogicalResult importThresholdedRelu(NodeContext &n) {
  Value x = n.input(0);
  if (!x) return failure();
  return n.setResults({n.create<ThresholdedReluOp>(
      x, n.builder().getF32FloatAttr(n.attrFloat("alpha", 1.0f)))});
}
LogicalResult importShrink(NodeContext &n) {
  Value x = n.input(0);
  if (!x) return failure();
  auto &b = n.builder();
  return n.setResults({n.create<ShrinkOp>(x, b.getF32FloatAttr(n.attrFloat("bias", 0.0f)),
                                          b.getF32FloatAttr(n.attrFloat("lambd", 0.5f)))});
}
LogicalResult importGelu(NodeContext &n) {
  Value x = n.input(0);
  if (!x) return failure();
  std::string approximate = n.attrString("approximate", "none");
  if (approximate != "none" && approximate != "tanh")
    return n.fail("attribute 'approximate' must be \"none\" or \"tanh\", got \"" +
                  approximate + "\"");
  return n.setResults({n.create<GeluOp>(x, n.builder().getStringAttr(approximate))});
}

/// Clip 1 and 6: bounds as attributes.
LogicalResult importClipV1(NodeContext &n) {
  Value x = n.input(0);
  if (!x) return failure();
  auto &b = n.builder();
  return n.setResults({n.create<ClipOp>(
      x, b.getF64FloatAttr(n.attrFloat("min", -FLT_MAX)),
      b.getF64FloatAttr(n.attrFloat("max", FLT_MAX)))});
}

/// Clip 11+: bounds as optional inputs, which must be constants.
LogicalResult importClipV11(NodeContext &n) {
  Value x = n.input(0);
  if (!x) return failure();
  FloatAttr bounds[2];
  for (int i = 0; i < 2; ++i) {
    Value v = n.optionalInput(i + 1);
    if (!v)
      continue;
    auto values = n.constDoubles(v);
    if (!values || values->size() != 1)
      return n.fail(std::string(i ? "max" : "min") +
                    " must be a one-element constant");
    bounds[i] = n.builder().getF64FloatAttr((*values)[0]);
  }
  return n.setResults({n.create<ClipOp>(x, bounds[0], bounds[1])});
}

LogicalResult importIsInf(NodeContext &n) {
  Value x = n.input(0);
  if (!x) return failure();
  auto &b = n.builder();
  return n.setResults({n.create<IsInfOp>(
      x, b.getBoolAttr(n.attrInt("detect_negative", 1) != 0),
      b.getBoolAttr(n.attrInt("detect_positive", 1) != 0))});
}

LogicalResult importCast(NodeContext &n) {
  Value x = n.input(0);
  if (!x) return failure();
  std::optional<int64_t> to = n.attrIntOpt("to");
  if (!to)
    return n.fail("missing required attribute 'to'");
  Type et = convertElementType(n.getContext(), *to);
  if (!et)
    return n.fail("cast to " + dataTypeName(*to) + " is not supported");
  return n.setResults({n.createTyped<CastOp>(n.typeOf(x).clone(et), x)});
}

LogicalResult importCastLike(NodeContext &n) {
  Value x = n.input(0), like = n.input(1);
  if (!x || !like) return failure();
  return n.setResults(
      {n.createTyped<CastOp>(n.typeOf(x).clone(n.typeOf(like).getElementType()), x)});
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
  r.add("Cast", 6, importCast);
  r.add("CastLike", 15, importCastLike);

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
