//===- Quantization.cpp - quantize, dequantize and integer contractions ---===//
//
// QuantizeLinear/DequantizeLinear become elementwise generics reading their
// scale and zero point per tensor or per axis. The integer contractions
// (MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv) shift their 8-bit
// operands by the zero points into i32, reuse the float matmul/conv lowering
// on i32 (exact integer accumulation), and the QLinear ops requantize the
// i32 result: round_half_even(acc * (a_scale * b_scale / y_scale)) +
// y_zero_point, saturated to the result type, as the ONNX reference does.
//
//===----------------------------------------------------------------------===//
#include "codegen/GraphToLinalg/GraphToLinalg.h"
#include "codegen/GraphToLinalg/LoweringUtils.h"

#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace kiln::graph;
using namespace kiln::codegen::detail;

/// A quantization parameter (scale or zero point, rank 0 or 1) and the dim of
/// the iteration space it varies along when it is per axis.
namespace {
struct QuantParam {
  Value value;
  int64_t axis;
};
} // namespace

/// The map reading parameter `param` (of type `type`) in an iteration space
/// of `rank` dims: per tensor for rank 0 or a single element, else along
/// `axis`.
static AffineMap getParamMap(MLIRContext *ctx, Type type, int64_t rank,
                             int64_t axis) {
  auto t = cast<RankedTensorType>(type);
  if (t.getRank() == 0)
    return AffineMap::get(rank, 0, {}, ctx);
  if (t.getDimSize(0) == 1)
    return AffineMap::get(rank, 0, {getAffineConstantExpr(0, ctx)}, ctx);
  return AffineMap::get(rank, 0, {getAffineDimExpr(axis, ctx)}, ctx);
}

/// A parallel generic over the shape of `x` reading `x` and the parameters,
/// producing a tensor of element type `elem`.
static Value buildQuantGeneric(OpBuilder &b, Location loc, Value x,
                               ArrayRef<QuantParam> params, Type elem,
                               ScalarBodyFn body) {
  MLIRContext *ctx = b.getContext();
  auto xt = cast<RankedTensorType>(x.getType());
  int64_t rank = xt.getRank();
  SmallVector<Value> inputs = {x};
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank)};
  for (const QuantParam &p : params) {
    inputs.push_back(p.value);
    maps.push_back(getParamMap(ctx, p.value.getType(), rank, p.axis));
  }
  Value init = createEmpty(b, loc, getDims(b, loc, x), elem);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return buildGeneric(b, loc, inputs, maps, init,
                      b.getMultiDimIdentityMap(rank), iterators,
                      [&](OpBuilder &nb, Location nl, ValueRange args) {
                        return body(nb, nl, args.drop_back());
                      });
}

/// An integer scalar (read as unsigned when `isUnsigned`) as `to`.
static Value intToFloat(OpBuilder &b, Location loc, Value v, Type to,
                        bool isUnsigned) {
  if (isUnsigned)
    return arith::UIToFPOp::create(b, loc, to, v);
  return arith::SIToFPOp::create(b, loc, to, v);
}

/// An integer scalar extended (by its signedness) to i32.
static Value extendToI32(OpBuilder &b, Location loc, Value v, bool isUnsigned) {
  Type i32 = b.getI32Type();
  unsigned width = v.getType().getIntOrFloatBitWidth();
  if (width == 32)
    return v;
  if (width > 32)
    return arith::TruncIOp::create(b, loc, i32, v);
  if (isUnsigned)
    return arith::ExtUIOp::create(b, loc, i32, v);
  return arith::ExtSIOp::create(b, loc, i32, v);
}

/// round_half_even(v) (f32) + zero point, saturated to the integer type
/// `elem` (read as unsigned when `isUnsigned`) and converted to it.
static Value saturateToInt(OpBuilder &b, Location loc, Value v, Value zp,
                           Type elem, bool isUnsigned) {
  Type f32 = b.getF32Type();
  v = math::RoundEvenOp::create(b, loc, v);
  v = arith::AddFOp::create(b, loc, v, intToFloat(b, loc, zp, f32, isUnsigned));
  unsigned width = elem.getIntOrFloatBitWidth();
  APInt lo =
      isUnsigned ? APInt::getMinValue(width) : APInt::getSignedMinValue(width);
  APInt hi =
      isUnsigned ? APInt::getMaxValue(width) : APInt::getSignedMaxValue(width);
  double loD = isUnsigned ? lo.roundToDouble(false) : lo.roundToDouble(true);
  double hiD = isUnsigned ? hi.roundToDouble(false) : hi.roundToDouble(true);
  v = arith::MaximumFOp::create(b, loc, v, createScalar(b, loc, f32, loD));
  v = arith::MinimumFOp::create(b, loc, v, createScalar(b, loc, f32, hiD));
  if (isUnsigned)
    return arith::FPToUIOp::create(b, loc, elem, v);
  return arith::FPToSIOp::create(b, loc, elem, v);
}

/// `x - zeroPoint` in i32 (both read by their signedness), the zero point
/// per tensor or along `axis`.
static Value shiftToI32(OpBuilder &b, Location loc, Value x, Type origElem,
                        Value zeroPoint, int64_t axis) {
  bool isUnsigned = isUnsignedLike(origElem);
  return buildQuantGeneric(
      b, loc, x, {{zeroPoint, axis}}, b.getI32Type(),
      [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
        return arith::SubIOp::create(nb, nl,
                                     extendToI32(nb, nl, args[0], isUnsigned),
                                     extendToI32(nb, nl, args[1], isUnsigned));
      });
}

static Type origElemOf(Value v) { return getElementTypeOrSelf(v.getType()); }

/// Requantizes the i32 `acc`: the scales in `numerator` multiply, `yScale`
/// divides, `yZeroPoint` is added and the result saturates to `elem`.
static Value requantize(OpBuilder &b, Location loc, Value acc,
                        ArrayRef<QuantParam> numerator, QuantParam yScale,
                        QuantParam yZeroPoint, Type elem, bool isUnsigned) {
  SmallVector<QuantParam> params(numerator);
  params.push_back(yScale);
  params.push_back(yZeroPoint);
  size_t numScales = numerator.size();
  return buildQuantGeneric(
      b, loc, acc, params, elem,
      [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
        Type f32 = nb.getF32Type();
        Value m = convertFloat(nb, nl, args[1], f32);
        for (size_t i = 1; i < numScales; ++i)
          m = arith::MulFOp::create(nb, nl, m,
                                    convertFloat(nb, nl, args[1 + i], f32));
        m = arith::DivFOp::create(
            nb, nl, m, convertFloat(nb, nl, args[1 + numScales], f32));
        Value v = arith::MulFOp::create(
            nb, nl, arith::SIToFPOp::create(nb, nl, f32, args[0]), m);
        return saturateToInt(nb, nl, v, args[2 + numScales], elem, isUnsigned);
      });
}

namespace {

struct QuantizeLinearLowering : OpConversionPattern<QuantizeLinearOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(QuantizeLinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (std::optional<std::string> reason =
            kiln::codegen::getUnsupportedReason(op))
      return rewriter.notifyMatchFailure(op, *reason);
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Type elem = resultType.getElementType();
    bool isUnsigned = isUnsignedLike(origElemOf(op.getOutput()));
    int64_t axis = op.getAxis();
    Value result = buildQuantGeneric(
        rewriter, op.getLoc(), adaptor.getInput(),
        {{adaptor.getScale(), axis}, {adaptor.getZeroPoint(), axis}}, elem,
        [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
          Type f32 = nb.getF32Type();
          Value v =
              arith::DivFOp::create(nb, nl, convertFloat(nb, nl, args[0], f32),
                                    convertFloat(nb, nl, args[1], f32));
          return saturateToInt(nb, nl, v, args[2], elem, isUnsigned);
        });
    rewriter.replaceOp(op, castTo(rewriter, op.getLoc(), result, resultType));
    return success();
  }
};

struct DequantizeLinearLowering : OpConversionPattern<DequantizeLinearOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DequantizeLinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (std::optional<std::string> reason =
            kiln::codegen::getUnsupportedReason(op))
      return rewriter.notifyMatchFailure(op, *reason);
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Type elem = resultType.getElementType();
    bool isUnsigned = isUnsignedLike(origElemOf(op.getInput()));
    int64_t axis = op.getAxis();
    Value result = buildQuantGeneric(
        rewriter, op.getLoc(), adaptor.getInput(),
        {{adaptor.getScale(), axis}, {adaptor.getZeroPoint(), axis}}, elem,
        [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
          Type f32 = nb.getF32Type();
          Value x = intToFloat(nb, nl, args[0], f32, isUnsigned);
          Value zp = intToFloat(nb, nl, args[2], f32, isUnsigned);
          Value v = arith::MulFOp::create(nb, nl,
                                          arith::SubFOp::create(nb, nl, x, zp),
                                          convertFloat(nb, nl, args[1], f32));
          return convertFloat(nb, nl, v, elem);
        });
    rewriter.replaceOp(op, castTo(rewriter, op.getLoc(), result, resultType));
    return success();
  }
};

/// The i32 product of the zero-point-shifted operands of a matmul; a 1-D
/// lhs zero point is per row, a 1-D rhs zero point per column.
static Value emitIntegerMatmul(OpBuilder &b, Location loc, Value lhs,
                               Type lhsElem, Value lhsZp, Value rhs,
                               Type rhsElem, Value rhsZp,
                               RankedTensorType resultType) {
  int64_t lr = cast<RankedTensorType>(lhs.getType()).getRank();
  int64_t rr = cast<RankedTensorType>(rhs.getType()).getRank();
  Value l =
      shiftToI32(b, loc, lhs, lhsElem, lhsZp, std::max<int64_t>(lr - 2, 0));
  Value r = shiftToI32(b, loc, rhs, rhsElem, rhsZp, rr - 1);
  return emitNumpyMatmul(b, loc, l, r, resultType.clone(b.getI32Type()));
}

struct MatMulIntegerLowering : OpConversionPattern<MatMulIntegerOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MatMulIntegerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Location loc = op.getLoc();
    Value result = emitIntegerMatmul(
        rewriter, loc, adaptor.getLhs(), origElemOf(op.getLhs()),
        adaptor.getLhsZeroPoint(), adaptor.getRhs(), origElemOf(op.getRhs()),
        adaptor.getRhsZeroPoint(), resultType);
    rewriter.replaceOp(op, castTo(rewriter, loc, result, resultType));
    return success();
  }
};

struct QLinearMatMulLowering : OpConversionPattern<QLinearMatMulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(QLinearMatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Location loc = op.getLoc();
    Value acc = emitIntegerMatmul(
        rewriter, loc, adaptor.getLhs(), origElemOf(op.getLhs()),
        adaptor.getLhsZeroPoint(), adaptor.getRhs(), origElemOf(op.getRhs()),
        adaptor.getRhsZeroPoint(), resultType);
    int64_t rank = resultType.getRank();
    int64_t row = std::max<int64_t>(rank - 2, 0), col = rank - 1;
    Value result = requantize(
        rewriter, loc, acc,
        {{adaptor.getLhsScale(), row}, {adaptor.getRhsScale(), col}},
        {adaptor.getOutputScale(), col}, {adaptor.getOutputZeroPoint(), col},
        resultType.getElementType(),
        isUnsignedLike(origElemOf(op.getOutput())));
    rewriter.replaceOp(op, castTo(rewriter, loc, result, resultType));
    return success();
  }
};

/// The i32 convolution of the zero-point-shifted input (zero point per
/// tensor) and filter (per tensor or per output channel); the padding is
/// zero after the shift, i.e. the input zero point before it, as ONNX has it.
template <typename OpTy>
static FailureOr<Value>
emitIntegerConv(OpBuilder &b, Location loc, OpTy op, Value input, Value inputZp,
                Value filter, Value filterZp, RankedTensorType resultType) {
  Value x = shiftToI32(b, loc, input, origElemOf(op.getInput()), inputZp, 1);
  Value w = shiftToI32(b, loc, filter, origElemOf(op.getFilter()), filterZp, 0);
  return emitConvolution(b, loc, x, w, op.getPads(), op.getStrides(),
                         op.getDilations(), op.getGroup(),
                         resultType.clone(b.getI32Type()));
}

struct ConvIntegerLowering : OpConversionPattern<ConvIntegerOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConvIntegerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Location loc = op.getLoc();
    FailureOr<Value> result = emitIntegerConv(
        rewriter, loc, op, adaptor.getInput(), adaptor.getInputZeroPoint(),
        adaptor.getFilter(), adaptor.getFilterZeroPoint(), resultType);
    if (failed(result))
      return rewriter.notifyMatchFailure(op, "dynamic kernel size");
    rewriter.replaceOp(op, castTo(rewriter, loc, *result, resultType));
    return success();
  }
};

struct QLinearConvLowering : OpConversionPattern<QLinearConvOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(QLinearConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Location loc = op.getLoc();
    FailureOr<Value> acc = emitIntegerConv(
        rewriter, loc, op, adaptor.getInput(), adaptor.getInputZeroPoint(),
        adaptor.getFilter(), adaptor.getFilterZeroPoint(), resultType);
    if (failed(acc))
      return rewriter.notifyMatchFailure(op, "dynamic kernel size");
    Value sum = *acc;
    if (Value bias = adaptor.getBias())
      sum = buildQuantGeneric(
          rewriter, loc, sum, {{bias, 1}}, rewriter.getI32Type(),
          [](OpBuilder &nb, Location nl, ValueRange args) -> Value {
            return arith::AddIOp::create(nb, nl, args[0], args[1]);
          });
    // The filter scale is per output channel (dim 1 of the result).
    Value result = requantize(
        rewriter, loc, sum,
        {{adaptor.getInputScale(), 1}, {adaptor.getFilterScale(), 1}},
        {adaptor.getOutputScale(), 1}, {adaptor.getOutputZeroPoint(), 1},
        resultType.getElementType(),
        isUnsignedLike(origElemOf(op.getOutput())));
    rewriter.replaceOp(op, castTo(rewriter, loc, result, resultType));
    return success();
  }
};

} // namespace

void kiln::codegen::detail::populateQuantizationPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<QuantizeLinearLowering, DequantizeLinearLowering,
               MatMulIntegerLowering, QLinearMatMulLowering,
               ConvIntegerLowering, QLinearConvLowering>(converter,
                                                         patterns.getContext());
}
