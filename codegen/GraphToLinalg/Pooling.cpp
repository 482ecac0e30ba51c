//===- Pooling.cpp - max and average pooling to linalg --------------------===//
//
// Pooling becomes the named linalg pooling ops (pooling_nchw_max, ...) where
// upstream has one, otherwise a linalg.generic over the output and the
// window; average pooling divides by the window count that its pads and
// count_include_pad give.
//
//===----------------------------------------------------------------------===//
#include "codegen/GraphToLinalg/WindowUtils.h"
#include "codegen/GraphToLinalg/GraphToLinalg.h"
#include "codegen/GraphToLinalg/LoweringUtils.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace kiln::graph;
using namespace kiln::codegen::detail;

static Type elemOf(Value v) { return getElementTypeOrSelf(v.getType()); }

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

namespace {
/// Common geometry of max/avg pooling.
struct PoolGeometry {
  SmallVector<OpFoldResult> outSizes;
  SmallVector<OpFoldResult> padBegin, padEnd; // padEnd includes ceil extra
  bool hasCeilExtra = false;                  // possibly non-zero extra
};
} // namespace

template <typename PoolOp>
static PoolGeometry computePoolGeometry(OpBuilder &b, Location loc, PoolOp op,
                                        Value input,
                                        RankedTensorType resultType) {
  PoolGeometry g;
  int64_t n = resultType.getRank() - 2;
  ArrayRef<int64_t> k = op.getKernelShape(), s = op.getStrides(),
                    p = op.getPads(), d = op.getDilations();
  SmallVector<OpFoldResult> inSizes = getDims(b, loc, input);
  g.outSizes = {inSizes[0], inSizes[1]};
  for (int64_t i = 0; i < n; ++i) {
    OpFoldResult out;
    if (!resultType.isDynamicDim(2 + i))
      out = b.getIndexAttr(resultType.getDimSize(2 + i));
    else
      out = windowOutSize(b, loc, toValue(b, loc, inSizes[2 + i]), k[i], s[i],
                          p[i], p[n + i], d[i], op.getCeilMode());
    g.outSizes.push_back(out);
    g.padBegin.push_back(b.getIndexAttr(p[i]));
    if (!op.getCeilMode()) {
      g.padEnd.push_back(b.getIndexAttr(p[n + i]));
      continue;
    }
    // ceil_mode: pad the end so that the last (partial) window fits:
    // extra = max(0, (out - 1) * s + (k - 1) * d + 1 - (in + pb + pe)).
    std::optional<int64_t> so = getConstantIntValue(out);
    std::optional<int64_t> si = getConstantIntValue(inSizes[2 + i]);
    int64_t needed = (k[i] - 1) * d[i] + 1 - p[i] - p[n + i];
    if (so && si) {
      int64_t extra = std::max<int64_t>(0, (*so - 1) * s[i] + needed - *si);
      g.hasCeilExtra |= extra > 0;
      g.padEnd.push_back(b.getIndexAttr(p[n + i] + extra));
      continue;
    }
    g.hasCeilExtra = true;
    Value reach = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc,
                              arith::SubIOp::create(b, loc,
                                                    toValue(b, loc, out),
                                                    createIndex(b, loc, 1)),
                              createIndex(b, loc, s[i])),
        createIndex(b, loc, needed));
    Value extra = arith::MaxSIOp::create(
        b, loc,
        arith::SubIOp::create(b, loc, reach, toValue(b, loc, inSizes[2 + i])),
        createIndex(b, loc, 0));
    g.padEnd.push_back(
        arith::AddIOp::create(b, loc, extra, createIndex(b, loc, p[n + i]))
            .getResult());
  }
  return g;
}

/// Pooling as a generic: dims (n, c, o..., k...), `combine(acc, x)`. Like
/// the named pooling ops it reads a window-shaped tensor through the k dims,
/// which gives them their loop bounds.
static Value buildPoolGeneric(
    OpBuilder &b, Location loc, Value padded, Value init,
    ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
    ArrayRef<int64_t> dilations,
    function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  MLIRContext *ctx = b.getContext();
  int64_t n = kernel.size();
  int64_t numDims = 2 + 2 * n;
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> inExprs = {d(0), d(1)}, outExprs = {d(0), d(1)},
                          windowExprs;
  for (int64_t i = 0; i < n; ++i) {
    inExprs.push_back(d(2 + i) * strides[i] + d(2 + n + i) * dilations[i]);
    outExprs.push_back(d(2 + i));
    windowExprs.push_back(d(2 + n + i));
  }
  SmallVector<utils::IteratorType> iterators(2 + n,
                                             utils::IteratorType::parallel);
  iterators.append(n, utils::IteratorType::reduction);
  Value window = createEmpty(b, loc, indexAttrs(b, kernel),
                             getElementTypeOrSelf(init.getType()));
  return buildGeneric(b, loc, {padded, window},
                      {AffineMap::get(numDims, 0, inExprs, ctx),
                       AffineMap::get(numDims, 0, windowExprs, ctx)},
                      init, AffineMap::get(numDims, 0, outExprs, ctx),
                      iterators,
                      [&](OpBuilder &nb, Location nl, ValueRange args) {
                        return combine(nb, nl, args[2], args[0]);
                      });
}

/// Number of j in [0, k) with lo <= start + j * d < hi: the elements of one
/// pooling window (along one dim) that an average divides by.
static int64_t windowCount(int64_t start, int64_t k, int64_t d, int64_t lo,
                           int64_t hi) {
  int64_t count = 0;
  for (int64_t j = 0; j < k; ++j)
    count += start + j * d >= lo && start + j * d < hi;
  return count;
}

namespace {

struct MaxPoolLowering : OpConversionPattern<MaxPoolOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MaxPoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (std::optional<std::string> reason =
            kiln::codegen::getUnsupportedReason(op))
      return rewriter.notifyMatchFailure(op, *reason);
    Location loc = op.getLoc();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Type elem = resultType.getElementType();
    bool isUnsigned = elemOf(op.getInput()).isUnsignedInteger();
    Value input = adaptor.getInput();
    // Padding with the lowest value never wins the max.
    Value lowest = createLowest(rewriter, loc, elem, isUnsigned);
    auto strides = rewriter.getI64TensorAttr(op.getStrides());
    auto dilations = rewriter.getI64TensorAttr(op.getDilations());
    if (op.getChannelsLast()) {
      // [N, H, W, C], static (kiln-layout-nhwc): pad H and W, the ends by as
      // much as ceil_mode's last window needs.
      auto inType = cast<RankedTensorType>(input.getType());
      ArrayRef<int64_t> k = op.getKernelShape(), s = op.getStrides(),
                        p = op.getPads(), d = op.getDilations();
      SmallVector<int64_t> high = {0, 0, 0, 0};
      for (int64_t i = 0; i < 2; ++i) {
        int64_t reach =
            (resultType.getDimSize(1 + i) - 1) * s[i] + (k[i] - 1) * d[i] + 1;
        high[1 + i] = std::max<int64_t>(
            p[2 + i], reach - inType.getDimSize(1 + i) - p[i]);
      }
      Value padded = padWith(rewriter, loc, input,
                             indexAttrs(rewriter, {0, p[0], p[1], 0}),
                             indexAttrs(rewriter, high), lowest);
      Value init = createFilled(
          rewriter, loc, indexAttrs(rewriter, resultType.getShape()), lowest);
      Value window = createEmpty(rewriter, loc, indexAttrs(rewriter, k), elem);
      SmallVector<Type> types = {init.getType()};
      SmallVector<Value> ins = {padded, window}, outs = {init};
      Value result = linalg::PoolingNhwcMaxOp::create(rewriter, loc, types, ins,
                                                      outs, strides, dilations)
                         .getResult(0);
      rewriter.replaceOp(op, castTo(rewriter, loc, result, resultType));
      return success();
    }
    PoolGeometry g = computePoolGeometry(rewriter, loc, op, input, resultType);
    Value padded =
        padSpatial(rewriter, loc, input, g.padBegin, g.padEnd, lowest);
    Value init = createFilled(rewriter, loc, g.outSizes, lowest);
    int64_t n = resultType.getRank() - 2;
    Value result;
    if ((n == 1 || n == 2) && !isUnsigned) {
      Value window = createEmpty(
          rewriter, loc, indexAttrs(rewriter, op.getKernelShape()), elem);
      SmallVector<Type> types = {init.getType()};
      SmallVector<Value> ins = {padded, window}, outs = {init};
      result = n == 2
                   ? linalg::PoolingNchwMaxOp::create(rewriter, loc, types, ins,
                                                      outs, strides, dilations)
                         .getResult(0)
                   : linalg::PoolingNcwMaxOp::create(rewriter, loc, types, ins,
                                                     outs, strides, dilations)
                         .getResult(0);
    } else {
      result =
          buildPoolGeneric(rewriter, loc, padded, init, op.getKernelShape(),
                           op.getStrides(), op.getDilations(),
                           [&](OpBuilder &nb, Location nl, Value acc, Value x) {
                             return createMax(nb, nl, acc, x, isUnsigned);
                           });
    }
    rewriter.replaceOp(op, castTo(rewriter, loc, result, resultType));
    return success();
  }
};

struct AvgPoolLowering : OpConversionPattern<AvgPoolOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AvgPoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (std::optional<std::string> reason =
            kiln::codegen::getUnsupportedReason(op))
      return rewriter.notifyMatchFailure(op, *reason);
    Location loc = op.getLoc();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Type elem = resultType.getElementType();
    bool isUnsigned = elemOf(op.getInput()).isUnsignedInteger();
    Value input = adaptor.getInput();
    PoolGeometry g = computePoolGeometry(rewriter, loc, op, input, resultType);
    // f16/bf16 windows are summed and divided in f32 (a 7x7 window of values
    // near 2000 already overflows an f16 sum), then rounded once.
    Type acc = getAccumulatorType(elem);
    Value zero = createScalar(rewriter, loc, elem, 0.0);
    Value padded = padSpatial(rewriter, loc, input, g.padBegin, g.padEnd, zero);
    Value init = createFilled(rewriter, loc, g.outSizes,
                              createScalar(rewriter, loc, acc, 0.0));
    int64_t n = resultType.getRank() - 2;
    ArrayRef<int64_t> k = op.getKernelShape(), s = op.getStrides(),
                      p = op.getPads(), dl = op.getDilations();
    Value sum;
    if (n == 1 || n == 2) {
      Value window = createEmpty(rewriter, loc, indexAttrs(rewriter, k), elem);
      SmallVector<Type> types = {init.getType()};
      SmallVector<Value> ins = {padded, window}, outs = {init};
      auto strides = rewriter.getI64TensorAttr(s);
      auto dilations = rewriter.getI64TensorAttr(dl);
      sum = n == 2 ? linalg::PoolingNchwSumOp::create(rewriter, loc, types, ins,
                                                      outs, strides, dilations)
                         .getResult(0)
                   : linalg::PoolingNcwSumOp::create(rewriter, loc, types, ins,
                                                     outs, strides, dilations)
                         .getResult(0);
    } else {
      sum =
          buildPoolGeneric(rewriter, loc, padded, init, k, s, dl,
                           [&](OpBuilder &nb, Location nl, Value sum, Value x) {
                             if (acc != elem)
                               x = convertFloat(nb, nl, x, acc);
                             return createAdd(nb, nl, sum, x);
                           });
    }

    bool anyPad = llvm::any_of(p, [](int64_t v) { return v != 0; });
    int64_t windowSize = 1;
    for (int64_t v : k)
      windowSize *= v;
    Value result;
    if (!g.hasCeilExtra && (op.getCountIncludePad() || !anyPad)) {
      // Every window covers kernel_shape elements of the (padded) input.
      result = buildElementwise(
          rewriter, loc, cast<RankedTensorType>(sum.getType()), {sum},
          [&](OpBuilder &nb, Location nl, ValueRange args) {
            return createDiv(nb, nl, args[0],
                             createScalar(nb, nl, acc, windowSize), isUnsigned);
          });
    } else if (resultType.hasStaticShape() &&
               cast<RankedTensorType>(input.getType()).hasStaticShape()) {
      // Static shapes: the divisor of every output position is a constant
      // [O...] tensor (per-dim window counts multiplied), broadcast over N, C.
      // count_include_pad counts the explicit pads, never the ceil_mode extra.
      bool includePad = op.getCountIncludePad();
      auto inType = cast<RankedTensorType>(input.getType());
      ArrayRef<int64_t> outShape = resultType.getShape().drop_front(2);
      SmallVector<double> counts;
      SmallVector<int64_t> pos(n, 0);
      int64_t total = 1;
      for (int64_t v : outShape)
        total *= v;
      for (int64_t flat = 0; flat < total; ++flat) {
        int64_t rem = flat, count = 1;
        for (int64_t i = n - 1; i >= 0; --i) {
          pos[i] = rem % outShape[i];
          rem /= outShape[i];
        }
        for (int64_t i = 0; i < n; ++i) {
          int64_t in = inType.getDimSize(2 + i);
          count *= windowCount(pos[i] * s[i] - p[i], k[i], dl[i],
                               includePad ? -p[i] : 0,
                               includePad ? in + p[n + i] : in);
        }
        counts.push_back(count);
      }
      auto countType = RankedTensorType::get(outShape, acc);
      SmallVector<Attribute> values;
      for (double c : counts)
        values.push_back(isa<FloatType>(acc)
                             ? Attribute(rewriter.getFloatAttr(acc, c))
                             : Attribute(rewriter.getIntegerAttr(acc, c)));
      Value divisor = arith::ConstantOp::create(
          rewriter, loc, DenseElementsAttr::get(countType, values));
      MLIRContext *ctx = rewriter.getContext();
      int64_t rank = resultType.getRank();
      SmallVector<AffineExpr> spatial;
      for (int64_t i = 0; i < n; ++i)
        spatial.push_back(getAffineDimExpr(2 + i, ctx));
      Value divInit = createEmpty(rewriter, loc, g.outSizes, acc);
      result = buildGeneric(
          rewriter, loc, {sum, divisor},
          {rewriter.getMultiDimIdentityMap(rank),
           AffineMap::get(rank, 0, spatial, ctx)},
          divInit, rewriter.getMultiDimIdentityMap(rank),
          SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location nl, ValueRange args) {
            return createDiv(nb, nl, args[0], args[1], isUnsigned);
          });
    } else {
      // Dynamic shapes: the same counts in closed form per output position,
      // j in [0, k) with lo <= o * s - pb + j * d < hi.
      SmallVector<Value> inDims;
      for (int64_t i = 0; i < n; ++i)
        inDims.push_back(getDimValue(rewriter, loc, input, 2 + i));
      bool includePad = op.getCountIncludePad();
      result = buildElementwise(
          rewriter, loc, cast<RankedTensorType>(sum.getType()), {sum},
          [&](OpBuilder &nb, Location nl, ValueRange args) {
            auto c = [&](int64_t v) { return createIndex(nb, nl, v); };
            Value count;
            for (int64_t i = 0; i < n; ++i) {
              Value o = linalg::IndexOp::create(nb, nl, 2 + i);
              Value start = arith::SubIOp::create(
                  nb, nl, arith::MulIOp::create(nb, nl, o, c(s[i])), c(p[i]));
              Value lo = c(includePad ? -p[i] : 0);
              Value hi = includePad ? Value(arith::AddIOp::create(
                                          nb, nl, inDims[i], c(p[n + i])))
                                    : inDims[i];
              Value first = arith::SubIOp::create(nb, nl, lo, start);
              Value last = arith::SubIOp::create(
                  nb, nl, arith::SubIOp::create(nb, nl, hi, c(1)), start);
              if (dl[i] != 1) {
                first = arith::CeilDivSIOp::create(nb, nl, first, c(dl[i]));
                last = arith::FloorDivSIOp::create(nb, nl, last, c(dl[i]));
              }
              Value jmin = arith::MaxSIOp::create(nb, nl, c(0), first);
              Value jmax = arith::MinSIOp::create(nb, nl, c(k[i] - 1), last);
              Value cnt = arith::MaxSIOp::create(
                  nb, nl, c(0),
                  arith::AddIOp::create(
                      nb, nl, arith::SubIOp::create(nb, nl, jmax, jmin), c(1)));
              count = count ? Value(arith::MulIOp::create(nb, nl, count, cnt))
                            : cnt;
            }
            return createDiv(nb, nl, args[0], indexToScalar(nb, nl, count, acc),
                             isUnsigned);
          });
    }
    if (acc != elem)
      result = buildElementwise(
          rewriter, loc, cast<RankedTensorType>(result.getType()).clone(elem),
          {result}, [&](OpBuilder &nb, Location nl, ValueRange args) {
            return convertFloat(nb, nl, args[0], elem);
          });
    rewriter.replaceOp(op, castTo(rewriter, loc, result, resultType));
    return success();
  }
};

} // namespace

void kiln::codegen::detail::populatePoolingPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<MaxPoolLowering, AvgPoolLowering>(converter,
                                                 patterns.getContext());
}
