//===- Elementwise.cpp - kiln elementwise ops to broadcasting generics ----===//
//
// Every elementwise kiln op becomes one parallel linalg.generic whose
// indexing maps encode numpy broadcasting; the scalar body is chosen per op
// from the op's original (kiln) element type, which still tells signed from
// unsigned after the type conversion made integers signless.
//
//===----------------------------------------------------------------------===//
#include "codegen/GraphToLinalg/GraphToLinalg.h"
#include "codegen/GraphToLinalg/LoweringUtils.h"

#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>

using namespace mlir;
using namespace kiln::graph;
using namespace kiln::codegen::detail;

static Type elemOf(Value v) { return getElementTypeOrSelf(v.getType()); }

static bool isFloat(Value v) { return isa<FloatType>(v.getType()); }

/// A scalar constant of `like`'s type.
static Value cst(OpBuilder &b, Location loc, Value like, double v) {
  return createScalar(b, loc, like.getType(), v);
}

static Value cmpF(OpBuilder &b, Location loc, arith::CmpFPredicate p, Value l,
                  Value r) {
  return arith::CmpFOp::create(b, loc, p, l, r);
}

static Value cmpI(OpBuilder &b, Location loc, arith::CmpIPredicate p, Value l,
                  Value r) {
  return arith::CmpIOp::create(b, loc, p, l, r);
}

static Value select(OpBuilder &b, Location loc, Value c, Value t, Value f) {
  return arith::SelectOp::create(b, loc, c, t, f);
}

/// log(1 + exp(x)) without overflow for large x: max(x, 0) + log1p(exp(-|x|)).
static Value softplus(OpBuilder &b, Location loc, Value x) {
  Value pos = arith::MaximumFOp::create(b, loc, x, cst(b, loc, x, 0.0));
  Value negAbs = arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x));
  Value tail =
      math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, negAbs));
  return arith::AddFOp::create(b, loc, pos, tail);
}

/// alpha * x + beta clamped to [0, 1] (HardSigmoid and HardSwish).
static Value hardSigmoid(OpBuilder &b, Location loc, Value x, double alpha,
                         double beta) {
  Value y = arith::AddFOp::create(
      b, loc, arith::MulFOp::create(b, loc, x, cst(b, loc, x, alpha)),
      cst(b, loc, x, beta));
  y = arith::MaximumFOp::create(b, loc, y, cst(b, loc, x, 0.0));
  return arith::MinimumFOp::create(b, loc, y, cst(b, loc, x, 1.0));
}

//===----------------------------------------------------------------------===//
// Scalar bodies, one overload per op
//===----------------------------------------------------------------------===//

#define KILN_MATH_UNARY(OP, MATH_OP)                                           \
  static Value computeScalar(OP, OpBuilder &b, Location loc, ValueRange a) {   \
    return MATH_OP::create(b, loc, a[0]);                                      \
  }
KILN_MATH_UNARY(TanhOp, math::TanhOp)
KILN_MATH_UNARY(ErfOp, math::ErfOp)
KILN_MATH_UNARY(SqrtOp, math::SqrtOp)
KILN_MATH_UNARY(ExpOp, math::ExpOp)
KILN_MATH_UNARY(LogOp, math::LogOp)
KILN_MATH_UNARY(FloorOp, math::FloorOp)
KILN_MATH_UNARY(CeilOp, math::CeilOp)
KILN_MATH_UNARY(RoundOp, math::RoundEvenOp) // ONNX rounds half to even
KILN_MATH_UNARY(SinOp, math::SinOp)
KILN_MATH_UNARY(CosOp, math::CosOp)
KILN_MATH_UNARY(TanOp, math::TanOp)
KILN_MATH_UNARY(AsinOp, math::AsinOp)
KILN_MATH_UNARY(AcosOp, math::AcosOp)
KILN_MATH_UNARY(AtanOp, math::AtanOp)
KILN_MATH_UNARY(SinhOp, math::SinhOp)
KILN_MATH_UNARY(CoshOp, math::CoshOp)
KILN_MATH_UNARY(AsinhOp, math::AsinhOp)
KILN_MATH_UNARY(AcoshOp, math::AcoshOp)
KILN_MATH_UNARY(AtanhOp, math::AtanhOp)
#undef KILN_MATH_UNARY

static Value computeScalar(ReluOp op, OpBuilder &b, Location loc,
                           ValueRange a) {
  Value x = a[0];
  if (isFloat(x))
    return arith::MaximumFOp::create(b, loc, x, cst(b, loc, x, 0.0));
  if (elemOf(op.getInput()).isUnsignedInteger())
    return x;
  return arith::MaxSIOp::create(b, loc, x, cst(b, loc, x, 0.0));
}

static Value computeScalar(SigmoidOp, OpBuilder &b, Location loc,
                           ValueRange a) {
  // 1 / (1 + exp(-x)): exp overflows to inf for very negative x, giving 0.
  Value x = a[0];
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  Value one = cst(b, loc, x, 1.0);
  return arith::DivFOp::create(b, loc, one,
                               arith::AddFOp::create(b, loc, one, e));
}

static Value computeScalar(ReciprocalOp, OpBuilder &b, Location loc,
                           ValueRange a) {
  return arith::DivFOp::create(b, loc, cst(b, loc, a[0], 1.0), a[0]);
}

static Value computeScalar(SoftplusOp, OpBuilder &b, Location loc,
                           ValueRange a) {
  return softplus(b, loc, a[0]);
}

static Value computeScalar(SoftsignOp, OpBuilder &b, Location loc,
                           ValueRange a) {
  Value x = a[0];
  Value d = arith::AddFOp::create(b, loc, cst(b, loc, x, 1.0),
                                  math::AbsFOp::create(b, loc, x));
  return arith::DivFOp::create(b, loc, x, d);
}

static Value computeScalar(HardSwishOp, OpBuilder &b, Location loc,
                           ValueRange a) {
  return arith::MulFOp::create(b, loc, a[0],
                               hardSigmoid(b, loc, a[0], 1.0 / 6.0, 0.5));
}

static Value computeScalar(MishOp, OpBuilder &b, Location loc, ValueRange a) {
  Value t = math::TanhOp::create(b, loc, softplus(b, loc, a[0]));
  return arith::MulFOp::create(b, loc, a[0], t);
}

static Value computeScalar(AbsOp op, OpBuilder &b, Location loc, ValueRange a) {
  if (isFloat(a[0]))
    return math::AbsFOp::create(b, loc, a[0]);
  if (elemOf(op.getInput()).isUnsignedInteger())
    return a[0];
  return math::AbsIOp::create(b, loc, a[0]);
}

static Value computeScalar(NegOp, OpBuilder &b, Location loc, ValueRange a) {
  if (isFloat(a[0]))
    return arith::NegFOp::create(b, loc, a[0]);
  return arith::SubIOp::create(b, loc, cst(b, loc, a[0], 0.0), a[0]);
}

static Value computeScalar(SignOp op, OpBuilder &b, Location loc,
                           ValueRange a) {
  Value x = a[0];
  Value one = cst(b, loc, x, 1.0), zero = cst(b, loc, x, 0.0);
  if (isFloat(x)) {
    // Zeros and NaN map to themselves, as numpy.sign.
    Value neg = select(b, loc, cmpF(b, loc, arith::CmpFPredicate::OLT, x, zero),
                       cst(b, loc, x, -1.0), x);
    return select(b, loc, cmpF(b, loc, arith::CmpFPredicate::OGT, x, zero), one,
                  neg);
  }
  if (elemOf(op.getInput()).isUnsignedInteger())
    return select(b, loc, cmpI(b, loc, arith::CmpIPredicate::ne, x, zero), one,
                  zero);
  Value neg = select(b, loc, cmpI(b, loc, arith::CmpIPredicate::slt, x, zero),
                     cst(b, loc, x, -1.0), zero);
  return select(b, loc, cmpI(b, loc, arith::CmpIPredicate::sgt, x, zero), one,
                neg);
}

static Value computeScalar(NotOp, OpBuilder &b, Location loc, ValueRange a) {
  return arith::XOrIOp::create(b, loc, a[0], cst(b, loc, a[0], 1.0));
}

static Value computeScalar(BitwiseNotOp, OpBuilder &b, Location loc,
                           ValueRange a) {
  return arith::XOrIOp::create(b, loc, a[0], cst(b, loc, a[0], -1.0));
}

static Value computeScalar(LeakyReluOp op, OpBuilder &b, Location loc,
                           ValueRange a) {
  Value x = a[0];
  Value scaled = arith::MulFOp::create(
      b, loc, x, cst(b, loc, x, op.getAlpha().convertToDouble()));
  return select(b, loc,
                cmpF(b, loc, arith::CmpFPredicate::OLT, x, cst(b, loc, x, 0.0)),
                scaled, x);
}

static Value computeScalar(EluOp op, OpBuilder &b, Location loc, ValueRange a) {
  Value x = a[0];
  Value neg = arith::MulFOp::create(
      b, loc, cst(b, loc, x, op.getAlpha().convertToDouble()),
      math::ExpM1Op::create(b, loc, x));
  return select(b, loc,
                cmpF(b, loc, arith::CmpFPredicate::OLT, x, cst(b, loc, x, 0.0)),
                neg, x);
}

static Value computeScalar(SeluOp op, OpBuilder &b, Location loc,
                           ValueRange a) {
  Value x = a[0];
  Value neg = arith::MulFOp::create(
      b, loc, cst(b, loc, x, op.getAlpha().convertToDouble()),
      math::ExpM1Op::create(b, loc, x));
  Value y = select(
      b, loc, cmpF(b, loc, arith::CmpFPredicate::OGT, x, cst(b, loc, x, 0.0)),
      x, neg);
  return arith::MulFOp::create(
      b, loc, cst(b, loc, x, op.getGamma().convertToDouble()), y);
}

static Value computeScalar(CeluOp op, OpBuilder &b, Location loc,
                           ValueRange a) {
  Value x = a[0];
  Value alpha = cst(b, loc, x, op.getAlpha().convertToDouble());
  Value zero = cst(b, loc, x, 0.0);
  Value e =
      math::ExpM1Op::create(b, loc, arith::DivFOp::create(b, loc, x, alpha));
  Value neg = arith::MinimumFOp::create(
      b, loc, zero, arith::MulFOp::create(b, loc, alpha, e));
  return arith::AddFOp::create(b, loc,
                               arith::MaximumFOp::create(b, loc, zero, x), neg);
}

static Value computeScalar(HardSigmoidOp op, OpBuilder &b, Location loc,
                           ValueRange a) {
  return hardSigmoid(b, loc, a[0], op.getAlpha().convertToDouble(),
                     op.getBeta().convertToDouble());
}

static Value computeScalar(ThresholdedReluOp op, OpBuilder &b, Location loc,
                           ValueRange a) {
  Value x = a[0];
  Value alpha = cst(b, loc, x, op.getAlpha().convertToDouble());
  return select(b, loc, cmpF(b, loc, arith::CmpFPredicate::OGT, x, alpha), x,
                cst(b, loc, x, 0.0));
}

static Value computeScalar(ShrinkOp op, OpBuilder &b, Location loc,
                           ValueRange a) {
  Value x = a[0];
  double lambd = op.getLambd().convertToDouble();
  Value bias = cst(b, loc, x, op.getBias().convertToDouble());
  Value high = select(
      b, loc, cmpF(b, loc, arith::CmpFPredicate::OGT, x, cst(b, loc, x, lambd)),
      arith::SubFOp::create(b, loc, x, bias), cst(b, loc, x, 0.0));
  return select(
      b, loc,
      cmpF(b, loc, arith::CmpFPredicate::OLT, x, cst(b, loc, x, -lambd)),
      arith::AddFOp::create(b, loc, x, bias), high);
}

static Value computeScalar(GeluOp op, OpBuilder &b, Location loc,
                           ValueRange a) {
  Value x = a[0];
  Value inner;
  if (op.getApproximate() == GeluApproximation::Tanh) {
    // tanh(sqrt(2 / pi) * (x + 0.044715 x^3))
    Value x3 =
        arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, x, x), x);
    Value s = arith::AddFOp::create(
        b, loc, x, arith::MulFOp::create(b, loc, cst(b, loc, x, 0.044715), x3));
    inner = math::TanhOp::create(
        b, loc,
        arith::MulFOp::create(b, loc, cst(b, loc, x, std::sqrt(2.0 / M_PI)),
                              s));
  } else {
    inner = math::ErfOp::create(
        b, loc, arith::MulFOp::create(b, loc, x, cst(b, loc, x, M_SQRT1_2)));
  }
  Value half = arith::MulFOp::create(b, loc, cst(b, loc, x, 0.5), x);
  return arith::MulFOp::create(
      b, loc, half, arith::AddFOp::create(b, loc, cst(b, loc, x, 1.0), inner));
}

/// An integer clip bound: `bound` rounded inward and clamped to the range of
/// `type`; std::nullopt when it clips nothing.
static std::optional<double> integerBound(double bound, Type type,
                                          bool isUnsigned, bool isLower) {
  unsigned w = type.getIntOrFloatBitWidth();
  double lo = isUnsigned ? 0.0 : -std::ldexp(1.0, w - 1);
  double hi = isUnsigned ? std::ldexp(1.0, w) - 1 : std::ldexp(1.0, w - 1) - 1;
  if (w == 64) { // doubles cannot hold the 64-bit extremes exactly
    hi = 9.2e18;
    lo = isUnsigned ? 0.0 : -9.2e18;
  }
  bound = isLower ? std::ceil(bound) : std::floor(bound);
  if (isLower && bound <= lo)
    return std::nullopt;
  if (!isLower && bound >= hi)
    return std::nullopt;
  return std::min(std::max(bound, lo), hi);
}

static Value computeScalar(ClipOp op, OpBuilder &b, Location loc,
                           ValueRange a) {
  Value x = a[0];
  bool isUnsigned = elemOf(op.getInput()).isUnsignedInteger();
  if (FloatAttr loAttr = op.getMinAttr()) {
    double lo = loAttr.getValueAsDouble();
    std::optional<double> v =
        isFloat(x) ? lo : integerBound(lo, x.getType(), isUnsigned, true);
    if (v)
      x = createMax(b, loc, x, cst(b, loc, x, *v), isUnsigned);
  }
  if (FloatAttr hiAttr = op.getMaxAttr()) {
    double hi = hiAttr.getValueAsDouble();
    std::optional<double> v =
        isFloat(x) ? hi : integerBound(hi, x.getType(), isUnsigned, false);
    if (v)
      x = createMin(b, loc, x, cst(b, loc, x, *v), isUnsigned);
  }
  return x;
}

static Value computeScalar(IsNaNOp, OpBuilder &b, Location loc, ValueRange a) {
  return cmpF(b, loc, arith::CmpFPredicate::UNO, a[0], a[0]);
}

static Value computeScalar(IsInfOp op, OpBuilder &b, Location loc,
                           ValueRange a) {
  Value x = a[0];
  Value result = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
  auto inf = [&](bool negative) {
    auto ft = cast<FloatType>(x.getType());
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(ft, APFloat::getInf(ft.getFloatSemantics(), negative)));
  };
  if (op.getDetectPositive())
    result = arith::OrIOp::create(
        b, loc, result, cmpF(b, loc, arith::CmpFPredicate::OEQ, x, inf(false)));
  if (op.getDetectNegative())
    result = arith::OrIOp::create(
        b, loc, result, cmpF(b, loc, arith::CmpFPredicate::OEQ, x, inf(true)));
  return result;
}

static Value computeScalar(CastOp op, OpBuilder &b, Location loc,
                           ValueRange a) {
  Value x = a[0];
  Type from = elemOf(op.getInput()), to = elemOf(op.getOutput());
  Type toSignless = to;
  if (auto it = dyn_cast<IntegerType>(to))
    toSignless = IntegerType::get(b.getContext(), it.getWidth());
  if (isa<FloatType>(from)) {
    if (isa<FloatType>(to))
      return convertFloat(b, loc, x, to);
    if (to.isInteger(1)) // non-zero (and NaN) is true
      return cmpF(b, loc, arith::CmpFPredicate::UNE, x, cst(b, loc, x, 0.0));
    if (to.isUnsignedInteger())
      return arith::FPToUIOp::create(b, loc, toSignless, x);
    return arith::FPToSIOp::create(b, loc, toSignless, x);
  }
  // Integer (or i1) source.
  bool fromUnsigned = isUnsignedLike(from);
  if (isa<FloatType>(to)) {
    if (fromUnsigned)
      return arith::UIToFPOp::create(b, loc, to, x);
    return arith::SIToFPOp::create(b, loc, to, x);
  }
  if (to.isInteger(1))
    return cmpI(b, loc, arith::CmpIPredicate::ne, x, cst(b, loc, x, 0.0));
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (fw == tw)
    return x; // same bits, only the signedness reading changes
  if (fw > tw)
    return arith::TruncIOp::create(b, loc, toSignless, x);
  if (fromUnsigned)
    return arith::ExtUIOp::create(b, loc, toSignless, x);
  return arith::ExtSIOp::create(b, loc, toSignless, x);
}

static Value computeScalar(AddOp, OpBuilder &b, Location loc, ValueRange a) {
  return createAdd(b, loc, a[0], a[1]);
}
static Value computeScalar(SubOp, OpBuilder &b, Location loc, ValueRange a) {
  return createSub(b, loc, a[0], a[1]);
}
static Value computeScalar(MulOp, OpBuilder &b, Location loc, ValueRange a) {
  return createMul(b, loc, a[0], a[1]);
}
static Value computeScalar(DivOp op, OpBuilder &b, Location loc, ValueRange a) {
  // f16/bf16 divided by a constant scalar (GELU's x / sqrt(2)): a product
  // with the f32 reciprocal, rounded once to the narrow type. IEEE division
  // costs a dozen GPU instructions per element; the product differs from
  // the exactly rounded quotient by at most one f32 ulp before rounding,
  // far below the narrow type's.
  Type elem = a[0].getType();
  DenseFPElementsAttr splat;
  if ((elem.isF16() || elem.isBF16()) &&
      matchPattern(op.getRhs(), m_Constant(&splat)) && splat.isSplat()) {
    APFloat c = splat.getSplatValue<APFloat>();
    bool lost = false;
    c.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
    float f = c.convertToFloat();
    if (std::isfinite(f) && f != 0.0f && std::isfinite(1.0f / f)) {
      Type f32 = b.getF32Type();
      Value x = arith::ExtFOp::create(b, loc, f32, a[0]);
      Value r = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f / f));
      return arith::TruncFOp::create(b, loc, elem,
                                     arith::MulFOp::create(b, loc, x, r));
    }
  }
  return createDiv(b, loc, a[0], a[1], elemOf(op.getLhs()).isUnsignedInteger());
}
static Value computeScalar(MaxOp op, OpBuilder &b, Location loc, ValueRange a) {
  return createMax(b, loc, a[0], a[1], elemOf(op.getLhs()).isUnsignedInteger());
}
static Value computeScalar(MinOp op, OpBuilder &b, Location loc, ValueRange a) {
  return createMin(b, loc, a[0], a[1], elemOf(op.getLhs()).isUnsignedInteger());
}

static Value computeScalar(PowOp, OpBuilder &b, Location loc, ValueRange a) {
  if (isFloat(a[0]))
    return math::PowFOp::create(b, loc, a[0], a[1]);
  // Unsigned operands give the same bits under ipowi for the non-negative
  // exponents ONNX allows.
  return math::IPowIOp::create(b, loc, a[0], a[1]);
}

static Value computeScalar(ModOp op, OpBuilder &b, Location loc, ValueRange a) {
  Value x = a[0], y = a[1];
  bool isUnsigned = elemOf(op.getLhs()).isUnsignedInteger();
  if (isUnsigned)
    return arith::RemUIOp::create(b, loc, x, y);
  Value rem = isFloat(x) ? Value(arith::RemFOp::create(b, loc, x, y))
                         : Value(arith::RemSIOp::create(b, loc, x, y));
  if (op.getFmod())
    return rem; // C fmod: the sign of the dividend
  // Python-style: a non-zero remainder takes the divisor's sign.
  Value zero = cst(b, loc, x, 0.0);
  Value remNeg, divNeg, remNonZero;
  if (isFloat(x)) {
    remNeg = cmpF(b, loc, arith::CmpFPredicate::OLT, rem, zero);
    divNeg = cmpF(b, loc, arith::CmpFPredicate::OLT, y, zero);
    remNonZero = cmpF(b, loc, arith::CmpFPredicate::ONE, rem, zero);
  } else {
    remNeg = cmpI(b, loc, arith::CmpIPredicate::slt, rem, zero);
    divNeg = cmpI(b, loc, arith::CmpIPredicate::slt, y, zero);
    remNonZero = cmpI(b, loc, arith::CmpIPredicate::ne, rem, zero);
  }
  Value signsDiffer = arith::XOrIOp::create(b, loc, remNeg, divNeg);
  Value fix = arith::AndIOp::create(b, loc, signsDiffer, remNonZero);
  return select(b, loc, fix, createAdd(b, loc, rem, y), rem);
}

static Value computeScalar(BitShiftOp op, OpBuilder &b, Location loc,
                           ValueRange a) {
  if (op.getDirection() == BitShiftDirection::Left)
    return arith::ShLIOp::create(b, loc, a[0], a[1]);
  if (elemOf(op.getLhs()).isUnsignedInteger())
    return arith::ShRUIOp::create(b, loc, a[0], a[1]);
  return arith::ShRSIOp::create(b, loc, a[0], a[1]);
}

static Value computeScalar(BitwiseAndOp, OpBuilder &b, Location loc,
                           ValueRange a) {
  return arith::AndIOp::create(b, loc, a[0], a[1]);
}
static Value computeScalar(BitwiseOrOp, OpBuilder &b, Location loc,
                           ValueRange a) {
  return arith::OrIOp::create(b, loc, a[0], a[1]);
}
static Value computeScalar(BitwiseXorOp, OpBuilder &b, Location loc,
                           ValueRange a) {
  return arith::XOrIOp::create(b, loc, a[0], a[1]);
}
static Value computeScalar(AndOp, OpBuilder &b, Location loc, ValueRange a) {
  return arith::AndIOp::create(b, loc, a[0], a[1]);
}
static Value computeScalar(OrOp, OpBuilder &b, Location loc, ValueRange a) {
  return arith::OrIOp::create(b, loc, a[0], a[1]);
}
static Value computeScalar(XorOp, OpBuilder &b, Location loc, ValueRange a) {
  return arith::XOrIOp::create(b, loc, a[0], a[1]);
}

/// Ordered float predicates (false on NaN, as IEEE and numpy compare) and the
/// matching signed/unsigned integer ones.
static Value compare(Operation *op, OpBuilder &b, Location loc, ValueRange a,
                     arith::CmpFPredicate f, arith::CmpIPredicate s,
                     arith::CmpIPredicate u) {
  if (isFloat(a[0]))
    return cmpF(b, loc, f, a[0], a[1]);
  bool isUnsigned = isUnsignedLike(elemOf(op->getOperand(0)));
  return cmpI(b, loc, isUnsigned ? u : s, a[0], a[1]);
}

static Value computeScalar(EqualOp op, OpBuilder &b, Location loc,
                           ValueRange a) {
  return compare(op, b, loc, a, arith::CmpFPredicate::OEQ,
                 arith::CmpIPredicate::eq, arith::CmpIPredicate::eq);
}
static Value computeScalar(LessOp op, OpBuilder &b, Location loc,
                           ValueRange a) {
  return compare(op, b, loc, a, arith::CmpFPredicate::OLT,
                 arith::CmpIPredicate::slt, arith::CmpIPredicate::ult);
}
static Value computeScalar(LessOrEqualOp op, OpBuilder &b, Location loc,
                           ValueRange a) {
  return compare(op, b, loc, a, arith::CmpFPredicate::OLE,
                 arith::CmpIPredicate::sle, arith::CmpIPredicate::ule);
}
static Value computeScalar(GreaterOp op, OpBuilder &b, Location loc,
                           ValueRange a) {
  return compare(op, b, loc, a, arith::CmpFPredicate::OGT,
                 arith::CmpIPredicate::sgt, arith::CmpIPredicate::ugt);
}
static Value computeScalar(GreaterOrEqualOp op, OpBuilder &b, Location loc,
                           ValueRange a) {
  return compare(op, b, loc, a, arith::CmpFPredicate::OGE,
                 arith::CmpIPredicate::sge, arith::CmpIPredicate::uge);
}

static Value computeScalar(PReluOp op, OpBuilder &b, Location loc,
                           ValueRange a) {
  Value x = a[0], slope = a[1];
  Value zero = cst(b, loc, x, 0.0);
  Value isNeg;
  if (isFloat(x))
    isNeg = cmpF(b, loc, arith::CmpFPredicate::OLT, x, zero);
  else if (elemOf(op.getInput()).isUnsignedInteger())
    return x;
  else
    isNeg = cmpI(b, loc, arith::CmpIPredicate::slt, x, zero);
  return select(b, loc, isNeg, createMul(b, loc, slope, x), x);
}

static Value computeScalar(WhereOp, OpBuilder &b, Location loc, ValueRange a) {
  return select(b, loc, a[0], a[1], a[2]);
}

//===----------------------------------------------------------------------===//
// The pattern
//===----------------------------------------------------------------------===//

namespace {

/// Lowers an elementwise op whose operands all broadcast to its result.
template <typename OpTy>
struct ElementwiseLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (std::optional<std::string> reason =
            kiln::codegen::getUnsupportedReason(op))
      return rewriter.notifyMatchFailure(op, *reason);
    RankedTensorType resultType = getResultType(*this->getTypeConverter(), op);
    ValueRange operands = adaptor.getOperands();
    if constexpr (std::is_same_v<OpTy, CastOp>) {
      // Same signless type (i8 <-> ui8 included): nothing to compute.
      if (cast<RankedTensorType>(operands[0].getType()).getElementType() ==
          resultType.getElementType()) {
        rewriter.replaceOp(
            op, castTo(rewriter, op.getLoc(), operands[0], resultType));
        return success();
      }
    }
    Value result =
        buildElementwise(rewriter, op.getLoc(), resultType, operands,
                         [&](OpBuilder &b, Location loc, ValueRange args) {
                           return computeScalar(op, b, loc, args);
                         });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void kiln::codegen::detail::populateElementwisePatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<
      // Unary.
      ElementwiseLowering<ReluOp>, ElementwiseLowering<SigmoidOp>,
      ElementwiseLowering<TanhOp>, ElementwiseLowering<ErfOp>,
      ElementwiseLowering<SqrtOp>, ElementwiseLowering<ExpOp>,
      ElementwiseLowering<LogOp>, ElementwiseLowering<ReciprocalOp>,
      ElementwiseLowering<FloorOp>, ElementwiseLowering<CeilOp>,
      ElementwiseLowering<RoundOp>, ElementwiseLowering<SinOp>,
      ElementwiseLowering<CosOp>, ElementwiseLowering<TanOp>,
      ElementwiseLowering<AsinOp>, ElementwiseLowering<AcosOp>,
      ElementwiseLowering<AtanOp>, ElementwiseLowering<SinhOp>,
      ElementwiseLowering<CoshOp>, ElementwiseLowering<AsinhOp>,
      ElementwiseLowering<AcoshOp>, ElementwiseLowering<AtanhOp>,
      ElementwiseLowering<SoftplusOp>, ElementwiseLowering<SoftsignOp>,
      ElementwiseLowering<HardSwishOp>, ElementwiseLowering<MishOp>,
      ElementwiseLowering<AbsOp>, ElementwiseLowering<NegOp>,
      ElementwiseLowering<SignOp>, ElementwiseLowering<NotOp>,
      ElementwiseLowering<BitwiseNotOp>,
      // Unary with attributes.
      ElementwiseLowering<LeakyReluOp>, ElementwiseLowering<EluOp>,
      ElementwiseLowering<SeluOp>, ElementwiseLowering<CeluOp>,
      ElementwiseLowering<HardSigmoidOp>,
      ElementwiseLowering<ThresholdedReluOp>, ElementwiseLowering<ShrinkOp>,
      ElementwiseLowering<GeluOp>, ElementwiseLowering<ClipOp>,
      ElementwiseLowering<IsNaNOp>, ElementwiseLowering<IsInfOp>,
      ElementwiseLowering<CastOp>,
      // Binary.
      ElementwiseLowering<AddOp>, ElementwiseLowering<SubOp>,
      ElementwiseLowering<MulOp>, ElementwiseLowering<DivOp>,
      ElementwiseLowering<PowOp>, ElementwiseLowering<MaxOp>,
      ElementwiseLowering<MinOp>, ElementwiseLowering<ModOp>,
      ElementwiseLowering<BitShiftOp>, ElementwiseLowering<BitwiseAndOp>,
      ElementwiseLowering<BitwiseOrOp>, ElementwiseLowering<BitwiseXorOp>,
      ElementwiseLowering<EqualOp>, ElementwiseLowering<LessOp>,
      ElementwiseLowering<LessOrEqualOp>, ElementwiseLowering<GreaterOp>,
      ElementwiseLowering<GreaterOrEqualOp>, ElementwiseLowering<AndOp>,
      ElementwiseLowering<OrOp>, ElementwiseLowering<XorOp>,
      ElementwiseLowering<PReluOp>, ElementwiseLowering<WhereOp>>(
      converter, patterns.getContext());
}
