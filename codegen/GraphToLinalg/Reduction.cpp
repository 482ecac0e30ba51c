//===- Reduction.cpp - reductions, scans, top-k and normalizations --------===//
//
// Reductions become linalg.reduce (or a generic with reduction iterators when
// they read a second, already reduced operand); softmax and the
// normalizations are a few of those chained, with statistics accumulated in
// f32 for f16/bf16 inputs. Scans and top-k have no linalg form and are
// written as quadratic generics (correct, meant to be replaced by kernel
// generators).
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

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static Type elemOf(Value v) { return getElementTypeOrSelf(v.getType()); }

static bool isFloat(Value v) { return isa<FloatType>(v.getType()); }

/// The map from a rank-`rank` iteration space to the dims kept by reducing
/// `axes` (the indexing of reduced statistics).
static AffineMap getReducedMap(MLIRContext *ctx, int64_t rank,
                               ArrayRef<int64_t> axes) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(axes, d))
      exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

static SmallVector<utils::IteratorType>
getIterators(int64_t rank, ArrayRef<int64_t> reductionDims) {
  SmallVector<utils::IteratorType> it(rank, utils::IteratorType::parallel);
  for (int64_t d : reductionDims)
    it[d] = utils::IteratorType::reduction;
  return it;
}

/// Sizes of `x` without the dims in `axes`.
static SmallVector<OpFoldResult> reducedSizes(OpBuilder &b, Location loc,
                                              Value x, ArrayRef<int64_t> axes) {
  SmallVector<OpFoldResult> sizes;
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(axes, d))
      sizes.push_back(getDim(b, loc, x, d));
  return sizes;
}

/// linalg.reduce of `x` over `axes` into a tensor filled with `init`;
/// `combine(in, acc)` may transform the input element first.
static Value
reduceAlong(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> axes,
            Value init,
            function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  Value filled = createFilled(b, loc, reducedSizes(b, loc, x, axes), init);
  auto reduce = linalg::ReduceOp::create(
      b, loc, ValueRange{x}, ValueRange{filled}, axes,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        linalg::YieldOp::create(nb, nl, combine(nb, nl, args[0], args[1]));
      });
  return reduce.getResult(0);
}

/// An elementwise generic over `x`'s shape reading `x` and tensors reduced
/// over `axes` (broadcast back), producing `elementType`.
static Value mapWithReduced(OpBuilder &b, Location loc, Value x,
                            ArrayRef<Value> reduced, ArrayRef<int64_t> axes,
                            Type elementType, ScalarBodyFn body) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  SmallVector<Value> inputs = {x};
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank)};
  for (Value r : reduced) {
    inputs.push_back(r);
    maps.push_back(getReducedMap(ctx, rank, axes));
  }
  Value init = createEmpty(b, loc, getDims(b, loc, x), elementType);
  return buildGeneric(b, loc, inputs, maps, init,
                      b.getMultiDimIdentityMap(rank), getIterators(rank, {}),
                      [&](OpBuilder &nb, Location nl, ValueRange args) {
                        return body(nb, nl, args.drop_back());
                      });
}

/// Number of elements in the dims `axes` of `x`, as a scalar of `type`.
static Value countOf(OpBuilder &b, Location loc, Value x,
                     ArrayRef<int64_t> axes, Type type) {
  SmallVector<OpFoldResult> sel;
  for (int64_t a : axes)
    sel.push_back(getDim(b, loc, x, a));
  return indexToScalar(b, loc, productOf(b, loc, sel), type);
}

static Value ext(OpBuilder &b, Location loc, Value v, Type to) {
  return isa<FloatType>(to) ? convertFloat(b, loc, v, to) : v;
}

//===----------------------------------------------------------------------===//
// Reduce ops
//===----------------------------------------------------------------------===//

namespace {

enum class ReduceKind {
  Sum,
  Mean,
  Max,
  Min,
  Prod,
  L1,
  L2,
  LogSum,
  LogSumExp,
  SumSquare
};

template <typename OpTy> constexpr ReduceKind kindOf();
template <> constexpr ReduceKind kindOf<ReduceSumOp>() {
  return ReduceKind::Sum;
}
template <> constexpr ReduceKind kindOf<ReduceMeanOp>() {
  return ReduceKind::Mean;
}
template <> constexpr ReduceKind kindOf<ReduceMaxOp>() {
  return ReduceKind::Max;
}
template <> constexpr ReduceKind kindOf<ReduceMinOp>() {
  return ReduceKind::Min;
}
template <> constexpr ReduceKind kindOf<ReduceProdOp>() {
  return ReduceKind::Prod;
}
template <> constexpr ReduceKind kindOf<ReduceL1Op>() { return ReduceKind::L1; }
template <> constexpr ReduceKind kindOf<ReduceL2Op>() { return ReduceKind::L2; }
template <> constexpr ReduceKind kindOf<ReduceLogSumOp>() {
  return ReduceKind::LogSum;
}
template <> constexpr ReduceKind kindOf<ReduceLogSumExpOp>() {
  return ReduceKind::LogSumExp;
}
template <> constexpr ReduceKind kindOf<ReduceSumSquareOp>() {
  return ReduceKind::SumSquare;
}

} // namespace

/// The per-element transform applied before accumulating.
static Value preTransform(OpBuilder &b, Location loc, ReduceKind kind, Value x,
                          bool isUnsigned) {
  switch (kind) {
  case ReduceKind::L1:
    if (isFloat(x))
      return math::AbsFOp::create(b, loc, x);
    return isUnsigned ? x : Value(math::AbsIOp::create(b, loc, x));
  case ReduceKind::L2:
  case ReduceKind::SumSquare:
    return createMul(b, loc, x, x);
  default:
    return x;
  }
}

/// Reduces `x` (already in the accumulator type) over `axes` per `kind`,
/// including the final root/log/division; returns the reduced tensor
/// (without kept dims) in the accumulator type.
static Value emitReduction(OpBuilder &b, Location loc, ReduceKind kind, Value x,
                           ArrayRef<int64_t> axes, bool isUnsigned) {
  Type acc = elemOf(x);
  if (kind == ReduceKind::LogSumExp) {
    // log(sum(exp(x - m))) + m with m the max, replaced by 0 where it is not
    // finite so that all -inf gives -inf and any +inf gives +inf.
    Value m = reduceAlong(b, loc, x, axes, createLowest(b, loc, acc, false),
                          [](OpBuilder &nb, Location nl, Value in, Value a) {
                            return createMax(nb, nl, a, in, false);
                          });
    m = buildElementwise(
        b, loc, cast<RankedTensorType>(m.getType()), {m},
        [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
          Value finite = math::IsFiniteOp::create(nb, nl, a[0]);
          return arith::SelectOp::create(
              nb, nl, finite, a[0], createScalar(nb, nl, a[0].getType(), 0.0));
        });
    MLIRContext *ctx = b.getContext();
    int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
    Value init = createFilled(b, loc, reducedSizes(b, loc, x, axes),
                              createScalar(b, loc, acc, 0.0));
    AffineMap reducedMap = getReducedMap(ctx, rank, axes);
    Value sum = buildGeneric(
        b, loc, {x, m}, {b.getMultiDimIdentityMap(rank), reducedMap}, init,
        reducedMap, getIterators(rank, axes),
        [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
          Value e = math::ExpOp::create(
              nb, nl, arith::SubFOp::create(nb, nl, a[0], a[1]));
          return arith::AddFOp::create(nb, nl, a[2], e);
        });
    return buildElementwise(
        b, loc, cast<RankedTensorType>(sum.getType()), {sum, m},
        [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
          return arith::AddFOp::create(nb, nl,
                                       math::LogOp::create(nb, nl, a[0]), a[1]);
        });
  }

  Value init;
  switch (kind) {
  case ReduceKind::Max:
    init = createLowest(b, loc, acc, isUnsigned);
    break;
  case ReduceKind::Min:
    init = createHighest(b, loc, acc, isUnsigned);
    break;
  case ReduceKind::Prod:
    init = createScalar(b, loc, acc, 1.0);
    break;
  default:
    init = createScalar(b, loc, acc, 0.0);
  }
  Value r =
      reduceAlong(b, loc, x, axes, init,
                  [&](OpBuilder &nb, Location nl, Value in, Value a) -> Value {
                    in = preTransform(nb, nl, kind, in, isUnsigned);
                    switch (kind) {
                    case ReduceKind::Max:
                      return createMax(nb, nl, a, in, isUnsigned);
                    case ReduceKind::Min:
                      return createMin(nb, nl, a, in, isUnsigned);
                    case ReduceKind::Prod:
                      return createMul(nb, nl, a, in);
                    default:
                      return createAdd(nb, nl, a, in);
                    }
                  });
  if (kind != ReduceKind::Mean && kind != ReduceKind::L2 &&
      kind != ReduceKind::LogSum)
    return r;
  Value count =
      kind == ReduceKind::Mean ? countOf(b, loc, x, axes, acc) : Value();
  return buildElementwise(
      b, loc, cast<RankedTensorType>(r.getType()), {r},
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        if (kind == ReduceKind::Mean)
          return createDiv(nb, nl, a[0], count, isUnsigned);
        if (kind == ReduceKind::L2)
          return math::SqrtOp::create(nb, nl, a[0]);
        return math::LogOp::create(nb, nl, a[0]);
      });
}

namespace {

template <typename OpTy> struct ReduceLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (std::optional<std::string> reason =
            kiln::codegen::getUnsupportedReason(op))
      return rewriter.notifyMatchFailure(op, *reason);
    Location loc = op.getLoc();
    RankedTensorType resultType = getResultType(*this->getTypeConverter(), op);
    constexpr ReduceKind kind = kindOf<OpTy>();
    Type elem = resultType.getElementType();
    bool isUnsigned = elemOf(op.getInput()).isUnsignedInteger();
    ArrayRef<int64_t> axes = op.getAxes();
    Value x = adaptor.getInput();
    // Additive statistics of f16/bf16 accumulate in f32.
    bool widen = kind != ReduceKind::Max && kind != ReduceKind::Min;
    Type acc = widen ? getAccumulatorType(elem) : elem;
    if (acc != elem)
      x = buildElementwise(rewriter, loc,
                           cast<RankedTensorType>(x.getType()).clone(acc), {x},
                           [&](OpBuilder &b, Location l, ValueRange a) {
                             return convertFloat(b, l, a[0], acc);
                           });
    Value r;
    if (axes.empty()) {
      // No reduction: the pre- and post-transforms of a one-element
      // reduction (|x| for l1, x^2 for sum_square, ...).
      r = buildElementwise(
          rewriter, loc, cast<RankedTensorType>(x.getType()), {x},
          [&](OpBuilder &b, Location l, ValueRange a) -> Value {
            Value v = preTransform(b, l, kind, a[0], isUnsigned);
            if (kind == ReduceKind::L2)
              return math::SqrtOp::create(b, l, v);
            if (kind == ReduceKind::LogSum)
              return math::LogOp::create(b, l, v);
            return v;
          });
    } else {
      r = emitReduction(rewriter, loc, kind, x, axes, isUnsigned);
    }
    if (acc != elem)
      r = buildElementwise(rewriter, loc,
                           cast<RankedTensorType>(r.getType()).clone(elem), {r},
                           [&](OpBuilder &b, Location l, ValueRange a) {
                             return convertFloat(b, l, a[0], elem);
                           });
    if (op.getKeepdims() && !axes.empty())
      r = insertUnitDims(rewriter, loc, r, axes, resultType);
    rewriter.replaceOp(op, castTo(rewriter, loc, r, resultType));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// arg_max / arg_min
//===----------------------------------------------------------------------===//

template <typename OpTy> struct ArgLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  static constexpr bool isMax = std::is_same_v<OpTy, ArgMaxOp>;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType resultType = getResultType(*this->getTypeConverter(), op);
    Value x = adaptor.getInput();
    auto xType = cast<RankedTensorType>(x.getType());
    Type elem = xType.getElementType();
    bool isUnsigned = elemOf(op.getInput()).isUnsignedInteger();
    int64_t axis = op.getAxis(), rank = xType.getRank();
    bool last = op.getSelectLastIndex();
    SmallVector<OpFoldResult> sizes = reducedSizes(rewriter, loc, x, {axis});
    Value valInit =
        createFilled(rewriter, loc, sizes,
                     isMax ? createLowest(rewriter, loc, elem, isUnsigned)
                           : createHighest(rewriter, loc, elem, isUnsigned));
    Value idxInit =
        createFilled(rewriter, loc, sizes,
                     createScalar(rewriter, loc, rewriter.getI64Type(), 0.0));
    AffineMap reduced = getReducedMap(ctx, rank, {axis});
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank),
                                   reduced, reduced};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{valInit.getType(), idxInit.getType()},
        ValueRange{x}, ValueRange{valInit, idxInit}, maps,
        getIterators(rank, {axis}),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value in = a[0], accV = a[1], accI = a[2];
          Value idx = arith::IndexCastOp::create(
              b, l, b.getI64Type(), linalg::IndexOp::create(b, l, axis));
          // Strict comparison keeps the first extreme, non-strict the last.
          Value better;
          if (isa<FloatType>(elem)) {
            auto p = isMax ? (last ? arith::CmpFPredicate::OGE
                                   : arith::CmpFPredicate::OGT)
                           : (last ? arith::CmpFPredicate::OLE
                                   : arith::CmpFPredicate::OLT);
            better = arith::CmpFOp::create(b, l, p, in, accV);
          } else {
            arith::CmpIPredicate p;
            if (isMax)
              p = last ? (isUnsigned ? arith::CmpIPredicate::uge
                                     : arith::CmpIPredicate::sge)
                       : (isUnsigned ? arith::CmpIPredicate::ugt
                                     : arith::CmpIPredicate::sgt);
            else
              p = last ? (isUnsigned ? arith::CmpIPredicate::ule
                                     : arith::CmpIPredicate::sle)
                       : (isUnsigned ? arith::CmpIPredicate::ult
                                     : arith::CmpIPredicate::slt);
            better = arith::CmpIOp::create(b, l, p, in, accV);
          }
          Value v = arith::SelectOp::create(b, l, better, in, accV);
          Value i = arith::SelectOp::create(b, l, better, idx, accI);
          linalg::YieldOp::create(b, l, ValueRange{v, i});
        });
    Value r = generic.getResult(1);
    if (op.getKeepdims())
      r = insertUnitDims(rewriter, loc, r, {axis}, resultType);
    rewriter.replaceOp(op, castTo(rewriter, loc, r, resultType));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// cumsum and topk
//===----------------------------------------------------------------------===//

/// out[..i..] = sum of x[..j..] over j <= i (j < i exclusive; j >= i / j > i
/// reversed): a generic with an extra reduction dim j.
struct CumSumLowering : OpConversionPattern<CumSumOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(CumSumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Value x = adaptor.getInput();
    int64_t rank = resultType.getRank(), axis = op.getAxis();
    SmallVector<AffineExpr> inExprs, outExprs;
    for (int64_t d = 0; d < rank; ++d) {
      inExprs.push_back(getAffineDimExpr(d == axis ? rank : d, ctx));
      outExprs.push_back(getAffineDimExpr(d, ctx));
    }
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    Value init = createFilled(
        rewriter, loc, getDims(rewriter, loc, x),
        createScalar(rewriter, loc, resultType.getElementType(), 0.0));
    bool exclusive = op.getExclusive(), reverse = op.getReverse();
    arith::CmpIPredicate pred = reverse
                                    ? (exclusive ? arith::CmpIPredicate::sgt
                                                 : arith::CmpIPredicate::sge)
                                    : (exclusive ? arith::CmpIPredicate::slt
                                                 : arith::CmpIPredicate::sle);
    Value r = buildGeneric(
        rewriter, loc, {x}, {AffineMap::get(rank + 1, 0, inExprs, ctx)}, init,
        AffineMap::get(rank + 1, 0, outExprs, ctx), iterators,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value i = linalg::IndexOp::create(b, l, axis);
          Value j = linalg::IndexOp::create(b, l, rank);
          Value take = arith::CmpIOp::create(b, l, pred, j, i);
          return arith::SelectOp::create(b, l, take,
                                         createAdd(b, l, a[1], a[0]), a[1]);
        });
    rewriter.replaceOp(op, castTo(rewriter, loc, r, resultType));
    return success();
  }
};

/// topk by ranking: rank[i] = number of elements that come before x[i]
/// (larger, or equal with a lower index, for `largest`); then output r takes
/// the element of rank r. Quadratic in the axis size; the order is the ONNX
/// sorted order (ties by lower index), which also satisfies sorted = false.
struct TopKLowering : OpConversionPattern<TopKOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TopKOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType valuesType = getResultType(*getTypeConverter(), op, 0);
    RankedTensorType indicesType = getResultType(*getTypeConverter(), op, 1);
    Value x = adaptor.getInput();
    Type elem = valuesType.getElementType();
    bool isUnsigned = elemOf(op.getInput()).isUnsignedInteger();
    int64_t rank = valuesType.getRank(), axis = op.getAxis();
    bool largest = op.getLargest();
    Type i64 = rewriter.getI64Type();

    // rank[..i..] = #{j : x[..j..] before x[..i..]}; dims (..., j).
    SmallVector<AffineExpr> self, other;
    for (int64_t d = 0; d < rank; ++d) {
      self.push_back(getAffineDimExpr(d, ctx));
      other.push_back(getAffineDimExpr(d == axis ? rank : d, ctx));
    }
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    Value zeros = createFilled(rewriter, loc, getDims(rewriter, loc, x),
                               createScalar(rewriter, loc, i64, 0.0));
    Value order = buildGeneric(
        rewriter, loc, {x, x},
        {AffineMap::get(rank + 1, 0, self, ctx),
         AffineMap::get(rank + 1, 0, other, ctx)},
        zeros, AffineMap::get(rank + 1, 0, self, ctx), iterators,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value xi = a[0], xj = a[1], acc = a[2];
          Value i = linalg::IndexOp::create(b, l, axis);
          Value j = linalg::IndexOp::create(b, l, rank);
          Value strictly, equal;
          if (isa<FloatType>(elem)) {
            strictly = arith::CmpFOp::create(
                b, l,
                largest ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT,
                xj, xi);
            equal =
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, xj, xi);
          } else {
            strictly = arith::CmpIOp::create(
                b, l,
                largest ? (isUnsigned ? arith::CmpIPredicate::ugt
                                      : arith::CmpIPredicate::sgt)
                        : (isUnsigned ? arith::CmpIPredicate::ult
                                      : arith::CmpIPredicate::slt),
                xj, xi);
            equal =
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, xj, xi);
          }
          Value lower =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, j, i);
          Value before = arith::OrIOp::create(
              b, l, strictly, arith::AndIOp::create(b, l, equal, lower));
          Value inc = arith::ExtUIOp::create(b, l, i64, before);
          return arith::AddIOp::create(b, l, acc, inc);
        });

    // values/indices[..r..] = x / i where rank[..i..] == r; dims (..., i).
    SmallVector<OpFoldResult> outSizes = getDims(rewriter, loc, x);
    outSizes[axis] = rewriter.getIndexAttr(op.getK());
    Value valInit = createFilled(rewriter, loc, outSizes,
                                 createScalar(rewriter, loc, elem, 0.0));
    Value idxInit = createFilled(rewriter, loc, outSizes,
                                 createScalar(rewriter, loc, i64, 0.0));
    AffineMap selfMap = AffineMap::get(rank + 1, 0, self, ctx);
    AffineMap otherMap = AffineMap::get(rank + 1, 0, other, ctx);
    auto select = linalg::GenericOp::create(
        rewriter, loc, TypeRange{valInit.getType(), idxInit.getType()},
        ValueRange{x, order}, ValueRange{valInit, idxInit},
        {otherMap, otherMap, selfMap, selfMap}, iterators,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value r = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, axis));
          Value i = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, rank));
          Value match =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, a[1], r);
          Value v = arith::SelectOp::create(b, l, match, a[0], a[2]);
          Value idx = arith::SelectOp::create(b, l, match, i, a[3]);
          linalg::YieldOp::create(b, l, ValueRange{v, idx});
        });
    rewriter.replaceOp(
        op, {castTo(rewriter, loc, select.getResult(0), valuesType),
             castTo(rewriter, loc, select.getResult(1), indicesType)});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// softmax / log_softmax
//===----------------------------------------------------------------------===//

/// Max-subtracted (numerically stable) softmax along one axis, in f32 for
/// f16/bf16: m = max(x); e = exp(x - m); s = sum(e); out = e / s (log:
/// out = (x - m) - log(s)).
template <typename OpTy> struct SoftmaxLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  static constexpr bool isLog = std::is_same_v<OpTy, LogSoftmaxOp>;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getResultType(*this->getTypeConverter(), op);
    Value x = adaptor.getInput();
    Type elem = resultType.getElementType();
    Type acc = getAccumulatorType(elem);
    int64_t axis = op.getAxis();
    Value m = reduceAlong(rewriter, loc, x, {axis},
                          createLowest(rewriter, loc, elem, false),
                          [](OpBuilder &b, Location l, Value in, Value a) {
                            return createMax(b, l, a, in, false);
                          });
    // shifted = x - m (log) or e = exp(x - m), in the accumulator type.
    Value t =
        mapWithReduced(rewriter, loc, x, {m}, {axis}, acc,
                       [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                         Value d = arith::SubFOp::create(
                             b, l, ext(b, l, a[0], acc), ext(b, l, a[1], acc));
                         return isLog ? d : Value(math::ExpOp::create(b, l, d));
                       });
    Value s = reduceAlong(
        rewriter, loc, t, {axis}, createScalar(rewriter, loc, acc, 0.0),
        [](OpBuilder &b, Location l, Value in, Value a) {
          Value v = isLog ? Value(math::ExpOp::create(b, l, in)) : in;
          return arith::AddFOp::create(b, l, a, v);
        });
    Value r = mapWithReduced(
        rewriter, loc, t, {s}, {axis}, elem,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value v = isLog ? Value(arith::SubFOp::create(
                                b, l, a[0], math::LogOp::create(b, l, a[1])))
                          : Value(arith::DivFOp::create(b, l, a[0], a[1]));
          return convertFloat(b, l, v, elem);
        });
    rewriter.replaceOp(op, castTo(rewriter, loc, r, resultType));
    return success();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Normalizations
//===----------------------------------------------------------------------===//

/// (x - mean) / sqrt(var + eps) over the dims from `firstReduced` on, times
/// `scale` plus `bias` (read through their maps; bias optional), with the
/// statistics in the accumulator type and a two-pass variance.
static Value normalize(OpBuilder &b, Location loc, Value x,
                       int64_t firstReduced, double eps, Value scale,
                       AffineMap scaleMap, Value bias, AffineMap biasMap,
                       RankedTensorType resultType) {
  MLIRContext *ctx = b.getContext();
  Type elem = resultType.getElementType();
  Type acc = getAccumulatorType(elem);
  int64_t rank = resultType.getRank();
  SmallVector<int64_t> axes;
  for (int64_t d = firstReduced; d < rank; ++d)
    axes.push_back(d);
  Value count = countOf(b, loc, x, axes, acc);
  Value zero = createScalar(b, loc, acc, 0.0);
  Value sum = reduceAlong(b, loc, x, axes, zero,
                          [&](OpBuilder &nb, Location nl, Value in, Value a) {
                            return arith::AddFOp::create(nb, nl, a,
                                                         ext(nb, nl, in, acc));
                          });
  AffineMap reducedMap = getReducedMap(ctx, rank, axes);
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  Value sqInit = createFilled(b, loc, reducedSizes(b, loc, x, axes), zero);
  Value sqSum = buildGeneric(
      b, loc, {x, sum}, {identity, reducedMap}, sqInit, reducedMap,
      getIterators(rank, axes),
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value mean = arith::DivFOp::create(nb, nl, a[1], count);
        Value d = arith::SubFOp::create(nb, nl, ext(nb, nl, a[0], acc), mean);
        return arith::AddFOp::create(nb, nl, a[2],
                                     arith::MulFOp::create(nb, nl, d, d));
      });
  SmallVector<Value> inputs = {x, sum, sqSum, scale};
  SmallVector<AffineMap> maps = {identity, reducedMap, reducedMap, scaleMap};
  if (bias) {
    inputs.push_back(bias);
    maps.push_back(biasMap);
  }
  Value init = createEmpty(b, loc, getDims(b, loc, x), elem);
  return buildGeneric(
      b, loc, inputs, maps, init, identity, getIterators(rank, {}),
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value mean = arith::DivFOp::create(nb, nl, a[1], count);
        Value var = arith::DivFOp::create(nb, nl, a[2], count);
        Value rstd = math::RsqrtOp::create(
            nb, nl,
            arith::AddFOp::create(nb, nl, var, createScalar(nb, nl, acc, eps)));
        Value y = arith::MulFOp::create(
            nb, nl, arith::SubFOp::create(nb, nl, ext(nb, nl, a[0], acc), mean),
            rstd);
        y = arith::MulFOp::create(nb, nl, y, ext(nb, nl, a[3], acc));
        if (bias)
          y = arith::AddFOp::create(nb, nl, y, ext(nb, nl, a[4], acc));
        return convertFloat(nb, nl, y, elem);
      });
}

namespace {

struct LayerNormLowering : OpConversionPattern<LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    MLIRContext *ctx = rewriter.getContext();
    Value scale = adaptor.getScale(), bias = adaptor.getBias();
    // scale and bias broadcast (right-aligned) over the normalized dims.
    AffineMap scaleMap =
        getBroadcastMap(ctx, scale.getType(), resultType.getShape());
    AffineMap biasMap =
        bias ? getBroadcastMap(ctx, bias.getType(), resultType.getShape())
             : AffineMap();
    Value r = normalize(rewriter, op.getLoc(), adaptor.getInput(), op.getAxis(),
                        op.getEpsilon().convertToDouble(), scale, scaleMap,
                        bias, biasMap, resultType);
    rewriter.replaceOp(op, castTo(rewriter, op.getLoc(), r, resultType));
    return success();
  }
};

struct InstanceNormLowering : OpConversionPattern<InstanceNormOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(InstanceNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    MLIRContext *ctx = rewriter.getContext();
    int64_t rank = resultType.getRank();
    AffineMap channel =
        AffineMap::get(rank, 0, {getAffineDimExpr(1, ctx)}, ctx);
    Value r = normalize(rewriter, op.getLoc(), adaptor.getInput(), 2,
                        op.getEpsilon().convertToDouble(), adaptor.getScale(),
                        channel, adaptor.getBias(), channel, resultType);
    rewriter.replaceOp(op, castTo(rewriter, op.getLoc(), r, resultType));
    return success();
  }
};

/// Inference batch norm: one generic with the per-channel parameters read
/// through (d1).
struct BatchNormLowering : OpConversionPattern<BatchNormOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BatchNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    int64_t rank = resultType.getRank();
    Type elem = resultType.getElementType();
    Type acc = getAccumulatorType(elem);
    double eps = op.getEpsilon().convertToDouble();
    AffineMap channel = AffineMap::get(
        rank, 0, {getAffineDimExpr(op.getChannelsLast() ? rank - 1 : 1, ctx)},
        ctx);
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    Value x = adaptor.getInput();
    Value init = createEmpty(rewriter, loc, getDims(rewriter, loc, x), elem);
    Value r =
        buildGeneric(rewriter, loc,
                     {x, adaptor.getScale(), adaptor.getBias(),
                      adaptor.getMean(), adaptor.getVariance()},
                     {identity, channel, channel, channel, channel}, init,
                     identity, getIterators(rank, {}),
                     [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                       auto e = [&](Value v) { return ext(b, l, v, acc); };
                       Value rstd = math::RsqrtOp::create(
                           b, l,
                           arith::AddFOp::create(b, l, e(a[4]),
                                                 createScalar(b, l, acc, eps)));
                       Value y = arith::MulFOp::create(
                           b, l, arith::SubFOp::create(b, l, e(a[0]), e(a[3])),
                           arith::MulFOp::create(b, l, e(a[1]), rstd));
                       y = arith::AddFOp::create(b, l, y, e(a[2]));
                       return convertFloat(b, l, y, elem);
                     });
    rewriter.replaceOp(op, castTo(rewriter, loc, r, resultType));
    return success();
  }
};

/// LRN: the squares are padded with zeros along C so that the channel window
/// [c - (size-1)/2, c + ceil((size-1)/2)] becomes the affine read c + j.
struct LRNLowering : OpConversionPattern<LRNOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LRNOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    int64_t rank = resultType.getRank(), size = op.getSize();
    Type elem = resultType.getElementType();
    Type acc = getAccumulatorType(elem);
    Value x = adaptor.getInput();
    Value squares =
        buildElementwise(rewriter, loc, resultType.clone(acc), {x},
                         [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                           Value v = ext(b, l, a[0], acc);
                           return arith::MulFOp::create(b, l, v, v);
                         });
    SmallVector<OpFoldResult> low(rank, rewriter.getIndexAttr(0)),
        high(rank, rewriter.getIndexAttr(0));
    low[1] = rewriter.getIndexAttr((size - 1) / 2);
    high[1] = rewriter.getIndexAttr(size - 1 - (size - 1) / 2);
    SmallVector<int64_t> paddedShape(resultType.getShape());
    if (!ShapedType::isDynamic(paddedShape[1]))
      paddedShape[1] += size - 1;
    Value padded = tensor::PadOp::create(
        rewriter, loc, resultType.clone(paddedShape).clone(acc), squares, low,
        high, createScalar(rewriter, loc, acc, 0.0));
    SmallVector<AffineExpr> readExprs, outExprs;
    for (int64_t d = 0; d < rank; ++d) {
      AffineExpr e = getAffineDimExpr(d, ctx);
      readExprs.push_back(d == 1 ? e + getAffineDimExpr(rank, ctx) : e);
      outExprs.push_back(e);
    }
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    // The window dim j needs a loop bound: read a [size] tensor through it.
    Value window =
        createEmpty(rewriter, loc, {rewriter.getIndexAttr(size)}, acc);
    Value sumInit = createFilled(rewriter, loc, getDims(rewriter, loc, x),
                                 createScalar(rewriter, loc, acc, 0.0));
    Value sums = buildGeneric(
        rewriter, loc, {padded, window},
        {AffineMap::get(rank + 1, 0, readExprs, ctx),
         AffineMap::get(rank + 1, 0, {getAffineDimExpr(rank, ctx)}, ctx)},
        sumInit, AffineMap::get(rank + 1, 0, outExprs, ctx), iterators,
        [](OpBuilder &b, Location l, ValueRange a) -> Value {
          return arith::AddFOp::create(b, l, a[2], a[0]);
        });
    double alpha = op.getAlpha().convertToDouble() / size;
    double beta = op.getBeta().convertToDouble();
    double bias = op.getBias().convertToDouble();
    Value r = buildElementwise(
        rewriter, loc, resultType, {x, sums},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value d = arith::AddFOp::create(
              b, l, createScalar(b, l, acc, bias),
              arith::MulFOp::create(b, l, createScalar(b, l, acc, alpha),
                                    a[1]));
          Value p =
              math::PowFOp::create(b, l, d, createScalar(b, l, acc, beta));
          return convertFloat(
              b, l, arith::DivFOp::create(b, l, ext(b, l, a[0], acc), p), elem);
        });
    rewriter.replaceOp(op, castTo(rewriter, loc, r, resultType));
    return success();
  }
};

} // namespace

void kiln::codegen::detail::populateReductionPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<
      ReduceLowering<ReduceSumOp>, ReduceLowering<ReduceMeanOp>,
      ReduceLowering<ReduceMaxOp>, ReduceLowering<ReduceMinOp>,
      ReduceLowering<ReduceProdOp>, ReduceLowering<ReduceL1Op>,
      ReduceLowering<ReduceL2Op>, ReduceLowering<ReduceLogSumOp>,
      ReduceLowering<ReduceLogSumExpOp>, ReduceLowering<ReduceSumSquareOp>,
      ArgLowering<ArgMaxOp>, ArgLowering<ArgMinOp>, CumSumLowering,
      TopKLowering, SoftmaxLowering<SoftmaxOp>, SoftmaxLowering<LogSoftmaxOp>,
      LayerNormLowering, InstanceNormLowering, BatchNormLowering, LRNLowering>(
      converter, patterns.getContext());
}
