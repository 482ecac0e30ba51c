//===- DataMovement.cpp - reshapes, slices, gathers, pads and shapes ------===//
//
// Data movement prefers the tensor ops later passes understand (collapse /
// expand_shape, extract_slice, concat, pad, linalg.transpose); what they
// cannot express (run-time shapes, negative steps, gathers, non-constant pad
// modes, resize) becomes a linalg.generic whose body computes the source
// index and reads it with tensor.extract.
//
//===----------------------------------------------------------------------===//
#include "codegen/GraphToLinalg/GraphToLinalg.h"
#include "codegen/GraphToLinalg/LoweringUtils.h"

#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Graph/IR/ShapeUtils.h"
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

/// True for a static shape with no elements: slicing into it would need
/// offsets that tensor.extract_slice rejects as out of bounds (start == size).
static bool isStaticEmpty(RankedTensorType t) {
  return t.hasStaticShape() && t.getNumElements() == 0;
}

/// The (element-less) result of type `t`.
static Value createStaticEmpty(OpBuilder &b, Location loc, RankedTensorType t) {
  return tensor::EmptyOp::create(b, loc, t.getShape(), t.getElementType());
}

static Value idx(OpBuilder &b, Location loc, int64_t v) {
  return createIndex(b, loc, v);
}

/// Element `i` of a 1-D integer tensor as an index (signed).
static Value extractIndex(OpBuilder &b, Location loc, Value tensor, int64_t i) {
  Value e =
      tensor::ExtractOp::create(b, loc, tensor, ValueRange{idx(b, loc, i)});
  return scalarToIndex(b, loc, e);
}

/// The only element of a scalar-like (rank 0 or all-1 dims) tensor.
static Value extractScalar(OpBuilder &b, Location loc, Value tensor) {
  int64_t rank = cast<RankedTensorType>(tensor.getType()).getRank();
  SmallVector<Value> zeros(rank, idx(b, loc, 0));
  return tensor::ExtractOp::create(b, loc, tensor, zeros);
}

static Value clampIndex(OpBuilder &b, Location loc, Value v, Value lo,
                        Value hi) {
  return arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, v, lo),
                                hi);
}

/// A generic with no inputs over `sizes` whose body gets the iteration
/// indices and returns the element: the form of every gather-like op.
static Value buildIndexedGeneric(
    OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes, Type elem,
    function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> body,
    ValueRange inputs = {}, ArrayRef<AffineMap> inputMaps = {}) {
  int64_t rank = sizes.size();
  Value init = createEmpty(b, loc, sizes, elem);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return buildGeneric(b, loc, inputs, inputMaps, init,
                      b.getMultiDimIdentityMap(rank), iterators,
                      [&](OpBuilder &nb, Location nl, ValueRange args) {
                        SmallVector<Value> ivs;
                        for (int64_t d = 0; d < rank; ++d)
                          ivs.push_back(linalg::IndexOp::create(nb, nl, d));
                        llvm::append_range(ivs, args.drop_back());
                        return body(nb, nl, ivs);
                      });
}

/// linalg.transpose of `v` by `perm`.
static Value transposeND(OpBuilder &b, Location loc, Value v,
                         ArrayRef<int64_t> perm) {
  SmallVector<OpFoldResult> sizes = getDims(b, loc, v), permuted;
  for (int64_t p : perm)
    permuted.push_back(sizes[p]);
  Value init = createEmpty(b, loc, permuted, elemOf(v));
  return linalg::TransposeOp::create(b, loc, v, init, perm).getResult()[0];
}

/// Sizes of `resultType`, taking dynamic dim d from `dynamicSize(d)`.
static SmallVector<OpFoldResult>
resultSizes(OpBuilder &b, RankedTensorType resultType,
            function_ref<OpFoldResult(int64_t)> dynamicSize) {
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < resultType.getRank(); ++d)
    sizes.push_back(
        resultType.isDynamicDim(d)
            ? dynamicSize(d)
            : OpFoldResult(b.getIndexAttr(resultType.getDimSize(d))));
  return sizes;
}

namespace {

//===----------------------------------------------------------------------===//
// reshape, flatten, squeeze, unsqueeze
//===----------------------------------------------------------------------===//

struct ReshapeLowering : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    if (resultType.hasStaticShape()) {
      SmallVector<OpFoldResult> sizes =
          llvm::map_to_vector(resultType.getShape(), [&](int64_t d) {
            return OpFoldResult(rewriter.getIndexAttr(d));
          });
      rewriter.replaceOp(op,
                         reshapeTo(rewriter, loc, input, resultType, sizes));
      return success();
    }
    // One dynamic dim on each side with equal static products: the dynamic
    // dims are equal at run time, so a collapse/expand is exact.
    auto numDynamic = [](RankedTensorType t) {
      return llvm::count_if(t.getShape(), ShapedType::isDynamic);
    };
    auto staticPart = [](RankedTensorType t) {
      int64_t p = 1;
      for (int64_t d : t.getShape())
        if (!ShapedType::isDynamic(d))
          p *= d;
      return p;
    };
    // The same shape with at most one dynamic dim is the identity (the
    // element count fixes the dynamic dim).
    if (inType.getShape() == resultType.getShape() && numDynamic(inType) <= 1) {
      rewriter.replaceOp(op, castTo(rewriter, loc, input, resultType));
      return success();
    }
    if (numDynamic(inType) == 1 && numDynamic(resultType) == 1 &&
        staticPart(inType) == staticPart(resultType) &&
        inType.getRank() != resultType.getRank()) {
      if (auto re = getReassociationIndicesForReshape(inType, resultType)) {
        Value r;
        if (inType.getRank() > resultType.getRank()) {
          r = collapse(rewriter, loc, input, *re);
        } else {
          int64_t dynIn =
              llvm::find_if(inType.getShape(), ShapedType::isDynamic) -
              inType.getShape().begin();
          Value dyn = tensor::DimOp::create(rewriter, loc, input, dynIn);
          r = expandTo(rewriter, loc, input, *re,
                       mixSizes(rewriter, resultType, {dyn}));
        }
        rewriter.replaceOp(op, castTo(rewriter, loc, r, resultType));
        return success();
      }
    }
    // General case: tensor.reshape with the shape resolved at run time (0
    // copies the input dim unless allowzero; one -1 is inferred).
    Value shape = adaptor.getShape();
    int64_t rank = resultType.getRank();
    SmallVector<Value> dims;
    SmallVector<Value> isInferred;
    Value one = idx(rewriter, loc, 1), minusOne = idx(rewriter, loc, -1);
    Value known = one;
    for (int64_t d = 0; d < rank; ++d) {
      if (!resultType.isDynamicDim(d)) {
        dims.push_back(idx(rewriter, loc, resultType.getDimSize(d)));
        isInferred.push_back(Value());
        known = arith::MulIOp::create(rewriter, loc, known, dims.back());
        continue;
      }
      Value v = extractIndex(rewriter, loc, shape, d);
      if (!op.getAllowzero() && d < inType.getRank()) {
        Value isZero = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::eq, v, idx(rewriter, loc, 0));
        v = arith::SelectOp::create(rewriter, loc, isZero,
                                    getDimValue(rewriter, loc, input, d), v);
      }
      Value inferred = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, v, minusOne);
      known = arith::MulIOp::create(
          rewriter, loc, known,
          arith::SelectOp::create(rewriter, loc, inferred, one, v));
      dims.push_back(v);
      isInferred.push_back(inferred);
    }
    Value total = productOf(rewriter, loc, getDims(rewriter, loc, input));
    Value missing = arith::DivUIOp::create(rewriter, loc, total, known);
    for (int64_t d = 0; d < rank; ++d)
      if (isInferred[d])
        dims[d] = arith::SelectOp::create(rewriter, loc, isInferred[d], missing,
                                          dims[d]);
    Value shapeTensor = tensor::FromElementsOp::create(
        rewriter, loc, RankedTensorType::get({rank}, rewriter.getIndexType()),
        dims);
    rewriter.replaceOpWithNewOp<tensor::ReshapeOp>(op, resultType, input,
                                                   shapeTensor);
    return success();
  }
};

struct FlattenLowering : OpConversionPattern<FlattenOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(FlattenOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput();
    int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
    int64_t axis = op.getAxis();
    Value r;
    if (axis > 0 && axis < rank) {
      ReassociationIndices head, tail;
      for (int64_t d = 0; d < rank; ++d)
        (d < axis ? head : tail).push_back(d);
      r = collapse(rewriter, loc, input, {head, tail});
    } else {
      // [1, all] or [all, 1]: flatten everything, then add the unit dim.
      Value flat = input;
      if (rank == 0) {
        flat = expandTo(rewriter, loc, input, {}, {rewriter.getIndexAttr(1)});
      } else if (rank > 1) {
        ReassociationIndices all;
        for (int64_t d = 0; d < rank; ++d)
          all.push_back(d);
        flat = collapse(rewriter, loc, input, {all});
      }
      r = insertUnitDims(rewriter, loc, flat, {axis == 0 ? 0 : 1}, resultType);
    }
    rewriter.replaceOp(op, castTo(rewriter, loc, r, resultType));
    return success();
  }
};

struct SqueezeLowering : OpConversionPattern<SqueezeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SqueezeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    rewriter.replaceOp(op,
                       dropUnitDims(rewriter, op.getLoc(), adaptor.getInput(),
                                    op.getAxes(), resultType));
    return success();
  }
};

struct UnsqueezeLowering : OpConversionPattern<UnsqueezeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(UnsqueezeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    rewriter.replaceOp(op,
                       insertUnitDims(rewriter, op.getLoc(), adaptor.getInput(),
                                      op.getAxes(), resultType));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// transpose, concat, split, slice
//===----------------------------------------------------------------------===//

struct TransposeLowering : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Value r =
        transposeND(rewriter, op.getLoc(), adaptor.getInput(), op.getPerm());
    rewriter.replaceOp(op, castTo(rewriter, op.getLoc(), r, resultType));
    return success();
  }
};

struct ConcatLowering : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    ValueRange inputs = adaptor.getInputs();
    Value r = inputs.size() == 1
                  ? inputs[0]
                  : tensor::ConcatOp::create(rewriter, op.getLoc(),
                                             op.getAxis(), inputs)
                        .getResult();
    rewriter.replaceOp(op, castTo(rewriter, op.getLoc(), r, resultType));
    return success();
  }
};

struct SplitLowering : OpConversionPattern<SplitOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SplitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    int64_t axis = op.getAxis();
    int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
    SmallVector<OpFoldResult> sizes = getDims(rewriter, loc, input);
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    SmallVector<Value> results;
    int64_t offset = 0;
    for (auto [i, size] : llvm::enumerate(op.getSizes())) {
      RankedTensorType pieceType = getResultType(*getTypeConverter(), op, i);
      if (isStaticEmpty(pieceType)) {
        results.push_back(createStaticEmpty(rewriter, loc, pieceType));
        continue;
      }
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      offsets[axis] = rewriter.getIndexAttr(offset);
      sizes[axis] = rewriter.getIndexAttr(size);
      Value piece = tensor::ExtractSliceOp::create(rewriter, loc, input,
                                                   offsets, sizes, strides);
      results.push_back(castTo(rewriter, loc, piece, pieceType));
      offset += size;
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Start, size and step of one sliced dim after ONNX clamping.
struct SliceDim {
  OpFoldResult start, size, step;
};

/// ONNX clamping of one dim: for step > 0, start and end are clamped to
/// [0, dim]; for step < 0, start to [0, dim - 1] and end to [-1, dim - 1],
/// negative values counting from the end first.
static SliceDim computeSliceDimStatic(OpBuilder &b, int64_t dim, int64_t start,
                                      int64_t end, int64_t step) {
  if (start < 0)
    start += dim;
  if (end < 0)
    end += dim;
  int64_t size;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    size = std::max<int64_t>(0, (end - start + step - 1) / step);
  } else {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
    size = std::max<int64_t>(0, (start - end - step - 1) / -step);
  }
  return {b.getIndexAttr(start), b.getIndexAttr(size), b.getIndexAttr(step)};
}

/// The same rule in index arithmetic, for run-time dims or operands; when
/// the step is not a constant its sign is chosen at run time too.
static SliceDim computeSliceDimDynamic(OpBuilder &b, Location loc, Value dim,
                                       Value start, Value end,
                                       std::optional<int64_t> constStep,
                                       Value step) {
  Value zero = idx(b, loc, 0), one = idx(b, loc, 1);
  auto fromEnd = [&](Value v) {
    Value neg =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v, zero);
    return arith::SelectOp::create(b, loc, neg,
                                   arith::AddIOp::create(b, loc, v, dim), v)
        .getResult();
  };
  Value s = fromEnd(start), e = fromEnd(end);
  auto positiveBranch = [&]() -> std::pair<Value, Value> {
    Value st = clampIndex(b, loc, s, zero, dim);
    Value en = clampIndex(b, loc, e, zero, dim);
    return {st, arith::CeilDivSIOp::create(
                    b, loc, arith::SubIOp::create(b, loc, en, st), step)};
  };
  auto negativeBranch = [&]() -> std::pair<Value, Value> {
    Value last = arith::SubIOp::create(b, loc, dim, one);
    Value st = clampIndex(b, loc, s, zero, last);
    Value en = clampIndex(b, loc, e, idx(b, loc, -1), last);
    return {st, arith::CeilDivSIOp::create(
                    b, loc, arith::SubIOp::create(b, loc, st, en),
                    arith::SubIOp::create(b, loc, zero, step))};
  };
  Value st, size;
  if (constStep) {
    std::tie(st, size) = *constStep > 0 ? positiveBranch() : negativeBranch();
  } else {
    auto [sp, np] = positiveBranch();
    auto [sn, nn] = negativeBranch();
    Value positive =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, step, zero);
    st = arith::SelectOp::create(b, loc, positive, sp, sn);
    size = arith::SelectOp::create(b, loc, positive, np, nn);
  }
  size = arith::MaxSIOp::create(b, loc, zero, size);
  OpFoldResult stepOfr =
      constStep ? OpFoldResult(b.getIndexAttr(*constStep)) : OpFoldResult(step);
  return {st, size, stepOfr};
}

struct SliceLowering : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (std::optional<std::string> reason =
            kiln::codegen::getUnsupportedReason(op))
      return rewriter.notifyMatchFailure(op, *reason);
    Location loc = op.getLoc();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    if (isStaticEmpty(resultType)) {
      rewriter.replaceOp(op, createStaticEmpty(rewriter, loc, resultType));
      return success();
    }
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t rank = inType.getRank();
    SmallVector<int64_t> axes = *getConstantInts(op.getAxes());
    auto starts = getConstantInts(op.getStarts());
    auto ends = getConstantInts(op.getEnds());
    auto steps = getConstantInts(op.getSteps());

    SmallVector<SliceDim> dims;
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back({rewriter.getIndexAttr(0), getDim(rewriter, loc, input, d),
                      rewriter.getIndexAttr(1)});
    for (auto [i, axis] : llvm::enumerate(axes)) {
      int64_t d = axis < 0 ? axis + rank : axis;
      if (starts && ends && steps && !inType.isDynamicDim(d)) {
        dims[d] = computeSliceDimStatic(rewriter, inType.getDimSize(d),
                                        (*starts)[i], (*ends)[i], (*steps)[i]);
        continue;
      }
      auto operand = [&](std::optional<SmallVector<int64_t>> &values,
                         Value tensor) {
        return values ? idx(rewriter, loc, (*values)[i])
                      : extractIndex(rewriter, loc, tensor, i);
      };
      std::optional<int64_t> constStep;
      if (steps)
        constStep = (*steps)[i];
      dims[d] = computeSliceDimDynamic(
          rewriter, loc, getDimValue(rewriter, loc, input, d),
          operand(starts, adaptor.getStarts()),
          operand(ends, adaptor.getEnds()), constStep,
          operand(steps, adaptor.getSteps()));
    }
    bool positiveSteps = llvm::all_of(dims, [](const SliceDim &s) {
      std::optional<int64_t> c = getConstantIntValue(s.step);
      return c && *c > 0;
    });
    SmallVector<OpFoldResult> sizes =
        llvm::map_to_vector(dims, [](const SliceDim &s) { return s.size; });
    // Static result dims (shape inference knew the operands) are used as is:
    // they keep the slice static for bufferization and later passes.
    for (int64_t d = 0; d < rank; ++d)
      if (!resultType.isDynamicDim(d))
        sizes[d] = rewriter.getIndexAttr(resultType.getDimSize(d));
    Value r;
    if (positiveSteps) {
      SmallVector<OpFoldResult> offsets =
          llvm::map_to_vector(dims, [](const SliceDim &s) { return s.start; });
      SmallVector<OpFoldResult> strides =
          llvm::map_to_vector(dims, [](const SliceDim &s) { return s.step; });
      r = tensor::ExtractSliceOp::create(rewriter, loc, input, offsets, sizes,
                                         strides);
    } else {
      // Negative or run-time steps: read input[start + i * step].
      SmallVector<Value> startValues, stepValues;
      for (const SliceDim &s : dims) {
        startValues.push_back(toValue(rewriter, loc, s.start));
        stepValues.push_back(toValue(rewriter, loc, s.step));
      }
      r = buildIndexedGeneric(
          rewriter, loc, sizes, inType.getElementType(),
          [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
            SmallVector<Value> at;
            for (int64_t d = 0; d < rank; ++d)
              at.push_back(arith::AddIOp::create(
                  b, l, startValues[d],
                  arith::MulIOp::create(b, l, ivs[d], stepValues[d])));
            return tensor::ExtractOp::create(b, l, input, at);
          });
    }
    rewriter.replaceOp(op, castTo(rewriter, loc, r, resultType));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// gather, gather_elements
//===----------------------------------------------------------------------===//

/// A gathered index: negative values count from the end, and out-of-range
/// values (invalid in ONNX) are clamped so they never read out of bounds.
static Value normalizeGatherIndex(OpBuilder &b, Location loc, Value index,
                                  Value dim, bool isUnsigned) {
  Value i = scalarToIndex(b, loc, index, isUnsigned);
  Value zero = idx(b, loc, 0);
  Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, zero);
  i = arith::SelectOp::create(b, loc, neg,
                              arith::AddIOp::create(b, loc, i, dim), i);
  return clampIndex(b, loc, i, zero,
                    arith::SubIOp::create(b, loc, dim, idx(b, loc, 1)));
}

struct GatherLowering : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput(), indices = adaptor.getIndices();
    int64_t axis = op.getAxis();
    int64_t r = cast<RankedTensorType>(input.getType()).getRank();
    int64_t q = cast<RankedTensorType>(indices.getType()).getRank();
    bool isUnsigned = elemOf(op.getIndices()).isUnsignedInteger();
    SmallVector<OpFoldResult> inSizes = getDims(rewriter, loc, input);
    SmallVector<OpFoldResult> sizes(inSizes.begin(), inSizes.begin() + axis);
    llvm::append_range(sizes, getDims(rewriter, loc, indices));
    sizes.append(inSizes.begin() + axis + 1, inSizes.end());
    Value axisDim = getDimValue(rewriter, loc, input, axis);
    // out[i..., j..., k...] = in[i..., indices[j...], k...]
    SmallVector<AffineExpr> idxExprs;
    for (int64_t j = 0; j < q; ++j)
      idxExprs.push_back(getAffineDimExpr(axis + j, ctx));
    AffineMap idxMap = AffineMap::get(r - 1 + q, 0, idxExprs, ctx);
    Value result = buildIndexedGeneric(
        rewriter, loc, sizes, resultType.getElementType(),
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
          SmallVector<Value> at(ivs.begin(), ivs.begin() + axis);
          at.push_back(
              normalizeGatherIndex(b, l, ivs.back(), axisDim, isUnsigned));
          at.append(ivs.begin() + axis + q, ivs.begin() + r - 1 + q);
          return tensor::ExtractOp::create(b, l, input, at);
        },
        indices, idxMap);
    rewriter.replaceOp(op, castTo(rewriter, loc, result, resultType));
    return success();
  }
};

struct GatherElementsLowering : OpConversionPattern<GatherElementsOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GatherElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput(), indices = adaptor.getIndices();
    int64_t axis = op.getAxis();
    int64_t rank = resultType.getRank();
    bool isUnsigned = elemOf(op.getIndices()).isUnsignedInteger();
    Value axisDim = getDimValue(rewriter, loc, input, axis);
    Value result = buildIndexedGeneric(
        rewriter, loc, getDims(rewriter, loc, indices),
        resultType.getElementType(),
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
          SmallVector<Value> at(ivs.begin(), ivs.begin() + rank);
          at[axis] =
              normalizeGatherIndex(b, l, ivs.back(), axisDim, isUnsigned);
          return tensor::ExtractOp::create(b, l, input, at);
        },
        indices, rewriter.getMultiDimIdentityMap(rank));
    rewriter.replaceOp(op, castTo(rewriter, loc, result, resultType));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// gather_nd, scatter_elements, scatter_nd
//===----------------------------------------------------------------------===//

/// An index read from an indices tensor as `index`: negative values count
/// from `dim`. Unlike gathers, scatters do not clamp: an out-of-range index
/// (invalid in ONNX) matches no element instead of overwriting the last one.
static Value normalizeScatterIndex(OpBuilder &b, Location loc, Value index,
                                   Value dim) {
  Value i = scalarToIndex(b, loc, index);
  Value neg =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, idx(b, loc, 0));
  return arith::SelectOp::create(b, loc, neg,
                                 arith::AddIOp::create(b, loc, i, dim), i);
}

/// `acc` combined with `update` by a scatter's reduction.
static Value combineScatter(OpBuilder &b, Location loc,
                            ScatterReduction reduction, Value acc, Value update,
                            bool isUnsigned) {
  switch (reduction) {
  case ScatterReduction::Add:
    return createAdd(b, loc, acc, update);
  case ScatterReduction::Mul:
    return createMul(b, loc, acc, update);
  case ScatterReduction::Max:
    return createMax(b, loc, acc, update, isUnsigned);
  case ScatterReduction::Min:
    return createMin(b, loc, acc, update, isUnsigned);
  case ScatterReduction::None:
    return update;
  }
  llvm_unreachable("unknown scatter reduction");
}

struct GatherNDLowering : OpConversionPattern<GatherNDOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GatherNDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput(), indices = adaptor.getIndices();
    auto indicesType = cast<RankedTensorType>(indices.getType());
    int64_t q = indicesType.getRank(), k = indicesType.getShape().back();
    int64_t batch = op.getBatchDims();
    int64_t r = cast<RankedTensorType>(input.getType()).getRank();
    bool isUnsigned = elemOf(op.getIndices()).isUnsignedInteger();
    SmallVector<OpFoldResult> sizes = getDims(rewriter, loc, indices);
    sizes.pop_back();
    SmallVector<OpFoldResult> inSizes = getDims(rewriter, loc, input);
    sizes.append(inSizes.begin() + batch + k, inSizes.end());
    SmallVector<Value> indexedDims;
    for (int64_t d = batch; d < batch + k; ++d)
      indexedDims.push_back(getDimValue(rewriter, loc, input, d));
    // out[i..., j...] = in[i[:batch]..., indices[i..., 0..k)..., j...]
    Value result = buildIndexedGeneric(
        rewriter, loc, sizes, resultType.getElementType(),
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
          SmallVector<Value> at(ivs.begin(), ivs.begin() + batch);
          SmallVector<Value> tuple(ivs.begin(), ivs.begin() + q - 1);
          tuple.push_back(Value());
          for (int64_t c = 0; c < k; ++c) {
            tuple.back() = idx(b, l, c);
            Value i = tensor::ExtractOp::create(b, l, indices, tuple);
            at.push_back(normalizeGatherIndex(b, l, i, indexedDims[c], isUnsigned));
          }
          at.append(ivs.begin() + q - 1, ivs.begin() + q - 1 + (r - batch - k));
          return tensor::ExtractOp::create(b, l, input, at);
        });
    rewriter.replaceOp(op, castTo(rewriter, loc, result, resultType));
    return success();
  }
};

/// Pull form: each element of the input's slice covered by `indices` (the
/// indices' extent in every dim but `axis`) reduces over the axis positions
/// j of the updates, taking those whose index equals its own position along
/// `axis`, in increasing j (so "none" keeps the last). Cost: the covered
/// elements times the indices' extent along `axis`.
struct ScatterElementsLowering : OpConversionPattern<ScatterElementsOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ScatterElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput(), indices = adaptor.getIndices(),
          updates = adaptor.getUpdates();
    int64_t rank = resultType.getRank(), axis = op.getAxis();
    ScatterReduction reduction = op.getReduction();
    bool isUnsigned = elemOf(op.getInput()).isUnsignedInteger();
    SmallVector<OpFoldResult> covered = getDims(rewriter, loc, indices);
    covered[axis] = getDim(rewriter, loc, input, axis);
    SmallVector<OpFoldResult> zeros(rank, rewriter.getIndexAttr(0)),
        ones(rank, rewriter.getIndexAttr(1));
    Value slice = tensor::ExtractSliceOp::create(rewriter, loc, input, zeros,
                                                 covered, ones);
    Value axisDim = getDimValue(rewriter, loc, input, axis);
    SmallVector<AffineExpr> self, along;
    for (int64_t d = 0; d < rank; ++d) {
      self.push_back(getAffineDimExpr(d, ctx));
      along.push_back(getAffineDimExpr(d == axis ? rank : d, ctx));
    }
    AffineMap alongMap = AffineMap::get(rank + 1, 0, along, ctx);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    Value scattered = buildGeneric(
        rewriter, loc, {indices, updates}, {alongMap, alongMap}, slice,
        AffineMap::get(rank + 1, 0, self, ctx), iterators,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value target = normalizeScatterIndex(b, l, a[0], axisDim);
          Value here = linalg::IndexOp::create(b, l, axis);
          Value match =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, target, here);
          return arith::SelectOp::create(
              b, l, match, combineScatter(b, l, reduction, a[2], a[1], isUnsigned), a[2]);
        });
    Value result = tensor::InsertSliceOp::create(rewriter, loc, scattered,
                                                 input, zeros, covered, ones);
    rewriter.replaceOp(op, castTo(rewriter, loc, result, resultType));
    return success();
  }
};

/// Pull form: each input element reduces over the index tuples u (the
/// leading dims of `indices`), taking updates[u, trailing position] where
/// indices[u] equals its leading k coordinates. Cost: the input's elements
/// times the number of tuples.
struct ScatterNDLowering : OpConversionPattern<ScatterNDOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ScatterNDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput(), indices = adaptor.getIndices(),
          updates = adaptor.getUpdates();
    auto indicesType = cast<RankedTensorType>(indices.getType());
    int64_t r = resultType.getRank(), q = indicesType.getRank();
    int64_t k = indicesType.getShape().back(), tuples = q - 1;
    ScatterReduction reduction = op.getReduction();
    bool isUnsigned = elemOf(op.getInput()).isUnsignedInteger();
    SmallVector<Value> indexedDims;
    for (int64_t d = 0; d < k; ++d)
      indexedDims.push_back(getDimValue(rewriter, loc, input, d));
    // Dims: r input positions p, then the tuple positions u.
    SmallVector<AffineExpr> self, upd;
    for (int64_t d = 0; d < r; ++d)
      self.push_back(getAffineDimExpr(d, ctx));
    for (int64_t d = 0; d < tuples; ++d)
      upd.push_back(getAffineDimExpr(r + d, ctx));
    for (int64_t d = k; d < r; ++d)
      upd.push_back(getAffineDimExpr(d, ctx));
    SmallVector<utils::IteratorType> iterators(r, utils::IteratorType::parallel);
    iterators.append(tuples, utils::IteratorType::reduction);
    Value result = buildGeneric(
        rewriter, loc, {updates}, {AffineMap::get(r + tuples, 0, upd, ctx)},
        input, AffineMap::get(r + tuples, 0, self, ctx), iterators,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          SmallVector<Value> at;
          for (int64_t d = 0; d < tuples; ++d)
            at.push_back(linalg::IndexOp::create(b, l, r + d));
          at.push_back(Value());
          Value match;
          for (int64_t c = 0; c < k; ++c) {
            at.back() = idx(b, l, c);
            Value i = normalizeScatterIndex(
                b, l, tensor::ExtractOp::create(b, l, indices, at),
                indexedDims[c]);
            Value eq = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, i,
                                             linalg::IndexOp::create(b, l, c));
            match = match ? arith::AndIOp::create(b, l, match, eq) : eq;
          }
          return arith::SelectOp::create(
              b, l, match, combineScatter(b, l, reduction, a[1], a[0], isUnsigned), a[1]);
        });
    rewriter.replaceOp(op, castTo(rewriter, loc, result, resultType));
    return success();
  }
};

/// grid_sample as ONNX's reference defines it, per output element: the
/// grid position is denormalized, rounded (nearest), moved inside the image
/// by the padding mode, then the 1, 4 or 16 pixels around it are read (each
/// read again applies the padding mode to its integer index) and weighted.
/// Arithmetic in f32 at least.
struct GridSampleLowering : OpConversionPattern<GridSampleOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GridSampleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput(), grid = adaptor.getGrid();
    Type elem = resultType.getElementType();
    Type f = getAccumulatorType(elem);
    InterpolationMode mode = op.getMode();
    GridSamplePaddingMode padding = op.getPaddingMode();
    bool alignCorners = op.getAlignCorners();
    SmallVector<OpFoldResult> sizes = {
        getDim(rewriter, loc, input, 0), getDim(rewriter, loc, input, 1),
        getDim(rewriter, loc, grid, 1), getDim(rewriter, loc, grid, 2)};
    Value hDim = getDimValue(rewriter, loc, input, 2);
    Value wDim = getDimValue(rewriter, loc, input, 3);

    Value result = buildIndexedGeneric(
        rewriter, loc, sizes, elem,
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
          auto cst = [&](double v) { return createScalar(b, l, f, v); };
          auto toF = [&](Value index) {
            return indexToScalar(b, l, index, f);
          };
          auto cmp = [&](arith::CmpFPredicate p, Value x, Value y) {
            return arith::CmpFOp::create(b, l, p, x, y).getResult();
          };
          auto sel = [&](Value c, Value x, Value y) {
            return arith::SelectOp::create(b, l, c, x, y).getResult();
          };
          Value hF = toF(hDim), wF = toF(wDim);
          // Borders of the valid coordinate range per dim.
          auto lo = [&](Value) { return cst(alignCorners ? 0.0 : -0.5); };
          auto hi = [&](Value dimF) {
            return arith::SubFOp::create(b, l, dimF,
                                         cst(alignCorners ? 1.0 : 0.5))
                .getResult();
          };
          // Mirrors x at lo/hi until it lies in [lo, hi].
          auto reflect = [&](Value x, Value dimF) -> Value {
            Value xmin = lo(dimF), xmax = hi(dimF);
            Value range = arith::SubFOp::create(b, l, xmax, xmin);
            Value below = cmp(arith::CmpFPredicate::OLT, x, xmin);
            Value above = cmp(arith::CmpFPredicate::OGT, x, xmax);
            Value dx = sel(below, arith::SubFOp::create(b, l, xmin, x),
                           arith::SubFOp::create(b, l, x, xmax));
            Value turns = math::FloorOp::create(
                b, l, arith::DivFOp::create(b, l, dx, range));
            Value r = arith::SubFOp::create(
                b, l, dx, arith::MulFOp::create(b, l, turns, range));
            Value half = math::FloorOp::create(
                b, l, arith::MulFOp::create(b, l, turns, cst(0.5)));
            Value even = cmp(arith::CmpFPredicate::OEQ,
                             arith::MulFOp::create(b, l, half, cst(2.0)), turns);
            Value fromLo = arith::AddFOp::create(b, l, xmin, r);
            Value fromHi = arith::SubFOp::create(b, l, xmax, r);
            Value inBelow = sel(even, fromLo, fromHi);
            Value inAbove = sel(even, fromHi, fromLo);
            return sel(below, inBelow, sel(above, inAbove, x));
          };
          // The denormalized coordinate of one grid component.
          auto coordinate = [&](int64_t component, Value dimF) -> Value {
            Value g = tensor::ExtractOp::create(
                b, l, grid, ValueRange{ivs[0], ivs[2], ivs[3], idx(b, l, component)});
            g = convertFloat(b, l, g, f);
            Value plusOne = arith::AddFOp::create(b, l, g, cst(1.0));
            Value x =
                alignCorners
                    ? arith::MulFOp::create(
                          b, l, arith::MulFOp::create(b, l, plusOne, cst(0.5)),
                          arith::SubFOp::create(b, l, dimF, cst(1.0)))
                    : arith::MulFOp::create(
                          b, l,
                          arith::SubFOp::create(
                              b, l, arith::MulFOp::create(b, l, plusOne, dimF),
                              cst(1.0)),
                          cst(0.5));
            if (mode == InterpolationMode::Nearest)
              x = math::RoundEvenOp::create(b, l, x);
            if (padding == GridSamplePaddingMode::Border) {
              // Only positions outside [lo, hi] move (cubic reads the
              // difference inside the half-pixel margin).
              Value outside = arith::OrIOp::create(
                  b, l, cmp(arith::CmpFPredicate::OLT, x, lo(dimF)),
                  cmp(arith::CmpFPredicate::OGT, x, hi(dimF)));
              Value clamped = createMin(
                  b, l, createMax(b, l, x, cst(0.0), false),
                  arith::SubFOp::create(b, l, dimF, cst(1.0)), false);
              return sel(outside, clamped, x);
            }
            if (padding == GridSamplePaddingMode::Reflection)
              return reflect(x, dimF);
            return x;
          };
          // Pixel (iy, ix) (integral f values) under the padding mode.
          auto pixel = [&](Value iy, Value ix) -> Value {
            Value valid;
            auto fix = [&](Value i, Value dim, Value dimF) -> Value {
              if (padding == GridSamplePaddingMode::Reflection)
                i = reflect(i, dimF);
              // fptosi truncates toward zero, as the reference's int().
              Value ii = arith::FPToSIOp::create(b, l, b.getI64Type(), i);
              Value index = arith::IndexCastOp::create(b, l, b.getIndexType(), ii);
              Value zero = idx(b, l, 0);
              Value last = arith::SubIOp::create(b, l, dim, idx(b, l, 1));
              if (padding == GridSamplePaddingMode::Zeros) {
                Value ok = arith::AndIOp::create(
                    b, l,
                    arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, index, zero),
                    arith::CmpIOp::create(b, l, arith::CmpIPredicate::sle, index, last));
                valid = valid ? arith::AndIOp::create(b, l, valid, ok).getResult() : ok;
              }
              // Clamping also keeps NaN or huge positions from reading out of
              // bounds.
              return clampIndex(b, l, index, zero, last);
            };
            Value y = fix(iy, hDim, hF), x = fix(ix, wDim, wF);
            Value v = tensor::ExtractOp::create(
                b, l, input, ValueRange{ivs[0], ivs[1], y, x});
            v = convertFloat(b, l, v, f);
            return valid ? sel(valid, v, cst(0.0)) : v;
          };
          Value x = coordinate(0, wF), y = coordinate(1, hF);
          Value out;
          if (mode == InterpolationMode::Nearest) {
            out = pixel(y, x);
          } else if (mode == InterpolationMode::Linear) {
            Value x0 = math::FloorOp::create(b, l, x);
            Value y0 = math::FloorOp::create(b, l, y);
            Value x1 = arith::AddFOp::create(b, l, x0, cst(1.0));
            Value y1 = arith::AddFOp::create(b, l, y0, cst(1.0));
            Value wx = arith::SubFOp::create(b, l, x, x0);
            Value wy = arith::SubFOp::create(b, l, y, y0);
            auto lerp = [&](Value a, Value c, Value w) -> Value {
              return arith::AddFOp::create(
                  b, l,
                  arith::MulFOp::create(b, l,
                                        arith::SubFOp::create(b, l, cst(1.0), w), a),
                  arith::MulFOp::create(b, l, w, c));
            };
            out = lerp(lerp(pixel(y0, x0), pixel(y0, x1), wx),
                       lerp(pixel(y1, x0), pixel(y1, x1), wx), wy);
          } else {
            assert(mode == InterpolationMode::Cubic && "verifier admits no other mode");
            // Keys cubic convolution weights (a = -0.75) for offsets -1..2.
            auto weights = [&](Value t) {
              const double a = -0.75;
              auto poly = [&](Value s, bool outer) -> Value {
                // outer: ((a s - 5a) s + 8a) s - 4a; inner: ((a + 2) s - (a + 3)) s s + 1
                if (outer) {
                  Value p = arith::SubFOp::create(
                      b, l, arith::MulFOp::create(b, l, cst(a), s), cst(5 * a));
                  p = arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, p, s),
                                            cst(8 * a));
                  return arith::SubFOp::create(
                      b, l, arith::MulFOp::create(b, l, p, s), cst(4 * a));
                }
                Value p = arith::SubFOp::create(
                    b, l, arith::MulFOp::create(b, l, cst(a + 2), s), cst(a + 3));
                p = arith::MulFOp::create(
                    b, l, arith::MulFOp::create(b, l, p, s), s);
                return arith::AddFOp::create(b, l, p, cst(1.0));
              };
              Value oneMinus = arith::SubFOp::create(b, l, cst(1.0), t);
              return SmallVector<Value, 4>{
                  poly(arith::AddFOp::create(b, l, t, cst(1.0)), true),
                  poly(t, false), poly(oneMinus, false),
                  poly(arith::SubFOp::create(b, l, cst(2.0), t), true)};
            };
            Value x0 = math::FloorOp::create(b, l, x);
            Value y0 = math::FloorOp::create(b, l, y);
            SmallVector<Value, 4> cx =
                weights(arith::SubFOp::create(b, l, x, x0));
            SmallVector<Value, 4> cy =
                weights(arith::SubFOp::create(b, l, y, y0));
            for (int i = 0; i < 4; ++i) {
              Value yi = arith::AddFOp::create(b, l, y0, cst(i - 1));
              Value row;
              for (int j = 0; j < 4; ++j) {
                Value xj = arith::AddFOp::create(b, l, x0, cst(j - 1));
                Value term = arith::MulFOp::create(b, l, cx[j], pixel(yi, xj));
                row = row ? arith::AddFOp::create(b, l, row, term).getResult()
                          : term;
              }
              Value term = arith::MulFOp::create(b, l, cy[i], row);
              out = out ? arith::AddFOp::create(b, l, out, term).getResult() : term;
            }
          }
          return convertFloat(b, l, out, elem);
        });
    rewriter.replaceOp(op, castTo(rewriter, loc, result, resultType));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// expand, tile, pad
//===----------------------------------------------------------------------===//

struct ExpandLowering : OpConversionPattern<ExpandOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ExpandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput(), shape = adaptor.getShape();
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t rank = resultType.getRank();
    int64_t shapeLen = cast<RankedTensorType>(shape.getType()).getDimSize(0);
    // A dynamic result dim is the larger of the shape entry and the input dim
    // (numpy broadcasting of two sizes one of which may be 1).
    SmallVector<OpFoldResult> sizes =
        resultSizes(rewriter, resultType, [&](int64_t d) -> OpFoldResult {
          int64_t s = d - (rank - shapeLen), j = d - (rank - inType.getRank());
          Value v;
          if (s >= 0 && !ShapedType::isDynamic(shapeLen))
            v = extractIndex(rewriter, loc, shape, s);
          if (j >= 0) {
            Value in = getDimValue(rewriter, loc, input, j);
            v = v ? Value(arith::MaxSIOp::create(rewriter, loc, v, in)) : in;
          }
          return v;
        });
    Value r = buildElementwise(
        rewriter, loc, resultType, {input},
        [](OpBuilder &, Location, ValueRange a) { return a[0]; }, sizes);
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct TileLowering : OpConversionPattern<TileOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput();
    int64_t rank = resultType.getRank();
    SmallVector<Value> inDims;
    for (int64_t d = 0; d < rank; ++d)
      inDims.push_back(getDimValue(rewriter, loc, input, d));
    SmallVector<OpFoldResult> sizes =
        resultSizes(rewriter, resultType, [&](int64_t d) -> OpFoldResult {
          return arith::MulIOp::create(
                     rewriter, loc, inDims[d],
                     extractIndex(rewriter, loc, adaptor.getRepeats(), d))
              .getResult();
        });
    // out[i] = in[i mod dim]
    Value r = buildIndexedGeneric(
        rewriter, loc, sizes, resultType.getElementType(),
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
          SmallVector<Value> at;
          for (int64_t d = 0; d < rank; ++d)
            at.push_back(arith::RemUIOp::create(b, l, ivs[d], inDims[d]));
          return tensor::ExtractOp::create(b, l, input, at);
        });
    rewriter.replaceOp(op, castTo(rewriter, loc, r, resultType));
    return success();
  }
};

/// A constant pad of a value that single-use ops moved or converted on its
/// way: pad(transpose?(cast?(x))) with static, non-negative pads (what
/// kiln-form-kernels gives a pad as its prologue; the channels-last stem
/// reads its f32 NCHW input as f16 NHWC padded to 8 channels). One generic
/// over the padded result reads x itself, so the transposed and converted
/// copies are never stored. Null where the pattern does not apply.
static Value padThroughMovement(PadOp op, ArrayRef<int64_t> pads,
                                RankedTensorType resultType,
                                ConversionPatternRewriter &rewriter) {
  Value v = op.getInput();
  int64_t rank = resultType.getRank();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  auto transpose = v.getDefiningOp<TransposeOp>();
  if (transpose && transpose->hasOneUse()) {
    perm = llvm::to_vector(transpose.getPerm());
    v = transpose.getInput();
  } else {
    transpose = nullptr;
  }
  auto cast = v.getDefiningOp<CastOp>();
  if (cast && cast->hasOneUse() && isa<FloatType>(elemOf(cast.getInput())) &&
      isa<FloatType>(elemOf(cast.getOutput())))
    v = cast.getInput();
  else
    cast = nullptr;
  if (!transpose && !cast)
    return Value();
  if (llvm::any_of(pads, [](int64_t p) { return p < 0; }) ||
      !resultType.hasStaticShape() || int64_t(perm.size()) != rank)
    return Value();
  Value src = rewriter.getRemappedValue(v);
  auto srcType = src ? dyn_cast<RankedTensorType>(src.getType()) : nullptr;
  if (!srcType || !srcType.hasStaticShape() || srcType.getRank() != rank)
    return Value();
  Location loc = op.getLoc();
  Type elem = resultType.getElementType();
  Value padValue = createScalar(rewriter, loc, elem, op.getValue().convertToDouble());
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < rank; ++d)
    sizes.push_back(rewriter.getIndexAttr(resultType.getDimSize(d)));
  return buildIndexedGeneric(
      rewriter, loc, sizes, elem,
      [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
        // Result dim d is x's dim perm[d], shifted by the low pad; outside
        // x the index is clamped to 0 (a valid read) and the pad value used.
        SmallVector<Value> at(rank);
        Value inside;
        for (int64_t d = 0; d < rank; ++d) {
          int64_t extent = srcType.getDimSize(perm[d]);
          Value i = ivs[d];
          if (pads[d] == 0 && pads[rank + d] == 0) {
            at[perm[d]] = i;
            continue;
          }
          if (pads[d] != 0)
            i = arith::SubIOp::create(b, l, i, idx(b, l, pads[d]));
          // Below the low pad the index wraps: unsigned it is out of range.
          Value in = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, i,
                                           idx(b, l, extent));
          at[perm[d]] = arith::SelectOp::create(b, l, in, i, idx(b, l, 0));
          inside = inside ? arith::AndIOp::create(b, l, inside, in).getResult()
                          : in;
        }
        Value x = tensor::ExtractOp::create(b, l, src, at);
        if (cast)
          x = convertFloat(b, l, x, elem);
        return inside ? arith::SelectOp::create(b, l, inside, x, padValue)
                            .getResult()
                      : x;
      });
}

struct PadLowering : OpConversionPattern<PadOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    Type elem = inType.getElementType();
    int64_t rank = inType.getRank();
    PadMode mode = op.getMode();
    Value padValue =
        createScalar(rewriter, loc, elem, op.getValue().convertToDouble());
    std::optional<SmallVector<int64_t>> pads = getConstantInts(op.getPads());

    if (mode == PadMode::Constant && pads)
      if (Value r = padThroughMovement(op, *pads, resultType, rewriter)) {
        rewriter.replaceOp(op, r);
        return success();
      }
    if (mode == PadMode::Constant && pads) {
      // Negative pads crop: slice first, then pad what is left.
      SmallVector<OpFoldResult> offsets, sizes, low, high;
      SmallVector<OpFoldResult> inSizes = getDims(rewriter, loc, input);
      bool crops = false;
      for (int64_t d = 0; d < rank; ++d) {
        int64_t lo = (*pads)[d], hi = (*pads)[rank + d];
        crops |= lo < 0 || hi < 0;
        offsets.push_back(rewriter.getIndexAttr(std::max<int64_t>(-lo, 0)));
        int64_t cut = std::max<int64_t>(-lo, 0) + std::max<int64_t>(-hi, 0);
        if (std::optional<int64_t> s = getConstantIntValue(inSizes[d]))
          sizes.push_back(rewriter.getIndexAttr(*s - cut));
        else
          sizes.push_back(arith::SubIOp::create(
                              rewriter, loc, toValue(rewriter, loc, inSizes[d]),
                              idx(rewriter, loc, cut))
                              .getResult());
        low.push_back(rewriter.getIndexAttr(std::max<int64_t>(lo, 0)));
        high.push_back(rewriter.getIndexAttr(std::max<int64_t>(hi, 0)));
      }
      Value v = input;
      if (crops)
        v = tensor::ExtractSliceOp::create(
            rewriter, loc, v, offsets, sizes,
            SmallVector<OpFoldResult>(rank, rewriter.getIndexAttr(1)));
      auto vType = cast<RankedTensorType>(v.getType());
      SmallVector<int64_t> shape;
      for (int64_t d = 0; d < rank; ++d)
        shape.push_back(vType.isDynamicDim(d)
                            ? ShapedType::kDynamic
                            : vType.getDimSize(d) +
                                  *getConstantIntValue(low[d]) +
                                  *getConstantIntValue(high[d]));
      Value r = tensor::PadOp::create(rewriter, loc, vType.clone(shape), v, low,
                                      high, padValue);
      rewriter.replaceOp(op, castTo(rewriter, loc, r, resultType));
      return success();
    }

    // Index math: o - low is the source index, mapped back into [0, n) per
    // mode (or replaced by the pad value for "constant").
    SmallVector<Value> low, high, inDims;
    for (int64_t d = 0; d < rank; ++d) {
      low.push_back(pads ? idx(rewriter, loc, (*pads)[d])
                         : extractIndex(rewriter, loc, adaptor.getPads(), d));
      high.push_back(
          pads ? idx(rewriter, loc, (*pads)[rank + d])
               : extractIndex(rewriter, loc, adaptor.getPads(), rank + d));
      inDims.push_back(getDimValue(rewriter, loc, input, d));
    }
    SmallVector<OpFoldResult> sizes =
        resultSizes(rewriter, resultType, [&](int64_t d) -> OpFoldResult {
          return arith::AddIOp::create(
                     rewriter, loc, inDims[d],
                     arith::AddIOp::create(rewriter, loc, low[d], high[d]))
              .getResult();
        });
    Value r = buildIndexedGeneric(
        rewriter, loc, sizes, elem,
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
          Value zero = idx(b, l, 0), one = idx(b, l, 1);
          Value inside;
          SmallVector<Value> at;
          for (int64_t d = 0; d < rank; ++d) {
            Value n = inDims[d];
            Value i = arith::SubIOp::create(b, l, ivs[d], low[d]);
            Value last = arith::SubIOp::create(b, l, n, one);
            Value src;
            if (mode == PadMode::Edge || mode == PadMode::Constant) {
              src = clampIndex(b, l, i, zero, last);
              if (mode == PadMode::Constant) {
                Value in = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                                 i, src);
                inside = inside ? Value(arith::AndIOp::create(b, l, inside, in))
                                : in;
              }
            } else if (mode == PadMode::Wrap) {
              Value m = arith::RemSIOp::create(b, l, i, n);
              src = arith::RemSIOp::create(
                  b, l, arith::AddIOp::create(b, l, m, n), n);
            } else { // reflect, period 2 (n - 1), at least 1
              Value period = arith::MaxSIOp::create(
                  b, l, arith::MulIOp::create(b, l, last, idx(b, l, 2)), one);
              Value m = arith::RemSIOp::create(
                  b, l,
                  arith::AddIOp::create(
                      b, l, arith::RemSIOp::create(b, l, i, period), period),
                  period);
              Value mirrored = arith::SubIOp::create(b, l, period, m);
              Value direct =
                  arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, m, n);
              src = arith::SelectOp::create(b, l, direct, m, mirrored);
            }
            at.push_back(src);
          }
          Value v = tensor::ExtractOp::create(b, l, input, at);
          if (mode != PadMode::Constant)
            return v;
          return arith::SelectOp::create(b, l, inside, v, padValue);
        });
    rewriter.replaceOp(op, castTo(rewriter, loc, r, resultType));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// resize
//===----------------------------------------------------------------------===//

struct ResizeLowering : OpConversionPattern<ResizeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ResizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (std::optional<std::string> reason =
            kiln::codegen::getUnsupportedReason(op))
      return rewriter.notifyMatchFailure(op, *reason);
    Location loc = op.getLoc();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t rank = inType.getRank();
    Type f32 = rewriter.getF32Type();
    std::optional<ArrayRef<float>> scales = op.getScales();

    SmallVector<Value> inDims, outDims, scaleValues;
    SmallVector<bool> identity;
    for (int64_t d = 0; d < rank; ++d) {
      Value in = getDimValue(rewriter, loc, input, d);
      bool same = !inType.isDynamicDim(d) && !resultType.isDynamicDim(d) &&
                  inType.getDimSize(d) == resultType.getDimSize(d) &&
                  (!scales || (*scales)[d] == 1.0f);
      identity.push_back(same);
      inDims.push_back(in);
      if (same) { // read through the output index, no coordinates needed
        outDims.push_back(in);
        scaleValues.push_back(Value());
        continue;
      }
      Value inF = indexToScalar(rewriter, loc, in, f32);
      Value out;
      if (!resultType.isDynamicDim(d))
        out = idx(rewriter, loc, resultType.getDimSize(d));
      else if (Value sizes = adaptor.getSizes())
        out = extractIndex(rewriter, loc, sizes, d);
      else {
        Value scaled = arith::MulFOp::create(
            rewriter, loc, inF, createScalar(rewriter, loc, f32, (*scales)[d]));
        out = arith::IndexCastOp::create(
            rewriter, loc, rewriter.getIndexType(),
            arith::FPToSIOp::create(
                rewriter, loc, rewriter.getI64Type(),
                math::FloorOp::create(rewriter, loc, scaled)));
      }
      Value scale = scales ? createScalar(rewriter, loc, f32, (*scales)[d])
                           : Value(arith::DivFOp::create(
                                 rewriter, loc,
                                 indexToScalar(rewriter, loc, out, f32), inF));
      outDims.push_back(out);
      scaleValues.push_back(scale);
    }
    CoordinateTransformationMode coordMode = op.getCoordinateTransformationMode();
    NearestMode nearestMode = op.getNearestMode();
    bool linear = op.getMode() == InterpolationMode::Linear;
    bool cubic = op.getMode() == InterpolationMode::Cubic;
    SmallVector<OpFoldResult> sizes =
        llvm::map_to_vector(outDims, [](Value v) -> OpFoldResult { return v; });
    for (int64_t d = 0; d < rank; ++d)
      if (!resultType.isDynamicDim(d))
        sizes[d] = rewriter.getIndexAttr(resultType.getDimSize(d));

    Value r = buildIndexedGeneric(
        rewriter, loc, sizes, resultType.getElementType(),
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
          auto f = [&](double v) { return createScalar(b, l, f32, v); };
          // Source coordinate of output index ivs[d] in input space.
          auto sourceCoord = [&](int64_t d) -> Value {
            Value x = indexToScalar(b, l, ivs[d], f32);
            Value scale = scaleValues[d];
            auto outF = [&] { return indexToScalar(b, l, outDims[d], f32); };
            auto inF = [&] { return indexToScalar(b, l, inDims[d], f32); };
            auto halfPixel = [&]() -> Value {
              return arith::SubFOp::create(
                  b, l,
                  arith::DivFOp::create(
                      b, l, arith::AddFOp::create(b, l, x, f(0.5)), scale),
                  f(0.5));
            };
            if (coordMode == CoordinateTransformationMode::Asymmetric)
              return arith::DivFOp::create(b, l, x, scale);
            if (coordMode == CoordinateTransformationMode::TfHalfPixelForNn) // (x + 0.5) / scale
              return arith::DivFOp::create(
                  b, l, arith::AddFOp::create(b, l, x, f(0.5)), scale);
            if (coordMode == CoordinateTransformationMode::AlignCorners) {
              // ONNX uses the unrounded resized length, in * scale (2.4
              // when 4 is scaled by 0.6), not the output dim.
              Value out = arith::MulFOp::create(b, l, inF(), scale);
              Value den = arith::SubFOp::create(b, l, out, f(1.0));
              Value v = arith::DivFOp::create(
                  b, l,
                  arith::MulFOp::create(
                      b, l, x, arith::SubFOp::create(b, l, inF(), f(1.0))),
                  den);
              Value single = arith::CmpFOp::create(
                  b, l, arith::CmpFPredicate::OLE, out, f(1.0));
              return arith::SelectOp::create(b, l, single, f(0.0), v);
            }
            if (coordMode == CoordinateTransformationMode::PytorchHalfPixel) {
              Value single = arith::CmpFOp::create(
                  b, l, arith::CmpFPredicate::OLE, outF(), f(1.0));
              return arith::SelectOp::create(b, l, single, f(0.0), halfPixel());
            }
            if (coordMode == CoordinateTransformationMode::HalfPixelSymmetric) {
              // offset = in / 2 * (1 - out / (scale * in))
              Value in = inF();
              Value adjustment = arith::DivFOp::create(
                  b, l, outF(), arith::MulFOp::create(b, l, scale, in));
              Value offset = arith::MulFOp::create(
                  b, l, arith::MulFOp::create(b, l, in, f(0.5)),
                  arith::SubFOp::create(b, l, f(1.0), adjustment));
              return arith::AddFOp::create(b, l, offset, halfPixel());
            }
            return halfPixel(); // "half_pixel"
          };
          auto toIndexClamped = [&](Value xf, int64_t d) -> Value {
            Value i = arith::IndexCastOp::create(
                b, l, b.getIndexType(),
                arith::FPToSIOp::create(b, l, b.getI64Type(), xf));
            return clampIndex(
                b, l, i, idx(b, l, 0),
                arith::SubIOp::create(b, l, inDims[d], idx(b, l, 1)));
          };
          if (!linear && !cubic) {
            SmallVector<Value> at;
            for (int64_t d = 0; d < rank; ++d) {
              if (identity[d]) {
                at.push_back(ivs[d]);
                continue;
              }
              Value x = sourceCoord(d);
              Value rounded;
              if (nearestMode == NearestMode::Floor)
                rounded = math::FloorOp::create(b, l, x);
              else if (nearestMode == NearestMode::Ceil)
                rounded = math::CeilOp::create(b, l, x);
              else if (nearestMode == NearestMode::RoundPreferCeil)
                rounded = math::FloorOp::create(
                    b, l, arith::AddFOp::create(b, l, x, f(0.5)));
              else // round_prefer_floor
                rounded = math::CeilOp::create(
                    b, l, arith::SubFOp::create(b, l, x, f(0.5)));
              at.push_back(toIndexClamped(rounded, d));
            }
            return tensor::ExtractOp::create(b, l, input, at);
          }
          if (cubic) {
            // Bicubic (Keys, a = cubic_coeff_a): 4 neighbours x0-1..x0+2 per
            // resized dim, clamped to the edge as ONNX's reference pads with
            // edge values; exclude_outside drops the neighbours outside the
            // input and renormalizes the weights.
            SmallVector<int64_t> resized;
            SmallVector<SmallVector<Value, 4>> at4, w4;
            double a = op.getCubicCoeffA().convertToDouble();
            bool exclude = op.getExcludeOutside();
            for (int64_t d = 0; d < rank; ++d) {
              if (identity[d])
                continue;
              resized.push_back(d);
              Value x = sourceCoord(d);
              Value x0 = math::FloorOp::create(b, l, x);
              Value t = arith::SubFOp::create(b, l, x, x0);
              auto add = [&](Value u, Value v) -> Value {
                return arith::AddFOp::create(b, l, u, v);
              };
              auto sub = [&](Value u, Value v) -> Value {
                return arith::SubFOp::create(b, l, u, v);
              };
              auto mul = [&](Value u, Value v) -> Value {
                return arith::MulFOp::create(b, l, u, v);
              };
              // |s| in [1, 2): ((a s - 5a) s + 8a) s - 4a
              auto outer = [&](Value s) {
                return sub(mul(add(mul(sub(mul(f(a), s), f(5 * a)), s),
                                   f(8 * a)),
                               s),
                           f(4 * a));
              };
              // |s| in [0, 1): ((a + 2) s - (a + 3)) s^2 + 1
              auto inner = [&](Value s) {
                return add(mul(sub(mul(f(a + 2), s), f(a + 3)), mul(s, s)),
                           f(1.0));
              };
              Value u = sub(f(1.0), t);
              SmallVector<Value, 4> w = {outer(add(t, f(1.0))), inner(t),
                                         inner(u), outer(add(u, f(1.0)))};
              SmallVector<Value, 4> at;
              Value inF = indexToScalar(b, l, inDims[d], f32);
              Value sum = f(0.0);
              for (int64_t i = 0; i < 4; ++i) {
                Value xi = add(x0, f(i - 1));
                if (exclude) {
                  Value inside = arith::AndIOp::create(
                      b, l,
                      arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE,
                                            xi, f(0.0)),
                      arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT,
                                            xi, inF));
                  w[i] = arith::SelectOp::create(b, l, inside, w[i], f(0.0));
                  sum = add(sum, w[i]);
                }
                at.push_back(toIndexClamped(xi, d));
              }
              if (exclude)
                for (Value &wi : w)
                  wi = arith::DivFOp::create(b, l, wi, sum);
              at4.push_back(at);
              w4.push_back(w);
            }
            Type elem = resultType.getElementType();
            Value acc = createScalar(b, l, elem, 0.0);
            int64_t count = 1;
            for (size_t k = 0; k < resized.size(); ++k)
              count *= 4;
            for (int64_t corner = 0; corner < count; ++corner) {
              SmallVector<Value> at(ivs.begin(), ivs.begin() + rank);
              Value weight = f(1.0);
              int64_t rest = corner;
              for (auto [k, d] : llvm::enumerate(resized)) {
                int64_t i = rest % 4;
                rest /= 4;
                at[d] = at4[k][i];
                weight = arith::MulFOp::create(b, l, weight, w4[k][i]);
              }
              Value v = tensor::ExtractOp::create(b, l, input, at);
              acc = arith::AddFOp::create(
                  b, l, acc,
                  arith::MulFOp::create(b, l, v,
                                        convertFloat(b, l, weight, elem)));
            }
            return acc;
          }
          // Multilinear: 2^k corners over the k resized dims, neighbours
          // clamped to the edge (as ONNX's reference pads with edge values).
          SmallVector<int64_t> resized;
          SmallVector<Value> lo, hi, w;
          for (int64_t d = 0; d < rank; ++d) {
            if (identity[d])
              continue;
            resized.push_back(d);
            Value x = sourceCoord(d);
            Value x0 = math::FloorOp::create(b, l, x);
            w.push_back(arith::SubFOp::create(b, l, x, x0));
            lo.push_back(toIndexClamped(x0, d));
            hi.push_back(
                toIndexClamped(arith::AddFOp::create(b, l, x0, f(1.0)), d));
          }
          Type elem = resultType.getElementType();
          Value acc = createScalar(b, l, elem, 0.0);
          for (int64_t corner = 0; corner < (1 << resized.size()); ++corner) {
            SmallVector<Value> at(ivs.begin(), ivs.begin() + rank);
            Value weight = f(1.0);
            for (auto [k, d] : llvm::enumerate(resized)) {
              bool upper = corner & (1 << k);
              at[d] = upper ? hi[k] : lo[k];
              Value wk =
                  upper ? w[k] : arith::SubFOp::create(b, l, f(1.0), w[k]);
              weight = arith::MulFOp::create(b, l, weight, wk);
            }
            Value v = tensor::ExtractOp::create(b, l, input, at);
            acc = arith::AddFOp::create(
                b, l, acc,
                arith::MulFOp::create(b, l, v,
                                      convertFloat(b, l, weight, elem)));
          }
          return acc;
        });
    rewriter.replaceOp(op, castTo(rewriter, loc, r, resultType));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// depth_to_space, space_to_depth
//===----------------------------------------------------------------------===//

struct DepthToSpaceLowering : OpConversionPattern<DepthToSpaceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DepthToSpaceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput();
    int64_t bs = op.getBlocksize();
    SmallVector<OpFoldResult> s = getDims(rewriter, loc, input);
    OpFoldResult c = s[1];
    OpFoldResult cOut =
        getConstantIntValue(c)
            ? OpFoldResult(
                  rewriter.getIndexAttr(*getConstantIntValue(c) / (bs * bs)))
            : OpFoldResult(arith::DivUIOp::create(rewriter, loc,
                                                  toValue(rewriter, loc, c),
                                                  idx(rewriter, loc, bs * bs))
                               .getResult());
    OpFoldResult b = rewriter.getIndexAttr(bs);
    bool dcr = op.getMode() == DepthToSpaceMode::DCR;
    // DCR: [N, b, b, C', H, W]; CRD: [N, C', b, b, H, W].
    SmallVector<OpFoldResult> expanded =
        dcr ? SmallVector<OpFoldResult>{s[0], b, b, cOut, s[2], s[3]}
            : SmallVector<OpFoldResult>{s[0], cOut, b, b, s[2], s[3]};
    Value x =
        expandTo(rewriter, loc, input, {{0}, {1, 2, 3}, {4}, {5}}, expanded);
    SmallVector<int64_t> perm = dcr ? SmallVector<int64_t>{0, 3, 4, 1, 5, 2}
                                    : SmallVector<int64_t>{0, 1, 4, 2, 5, 3};
    x = transposeND(rewriter, loc, x, perm); // [N, C', H, b, W, b]
    x = collapse(rewriter, loc, x, {{0}, {1}, {2, 3}, {4, 5}});
    rewriter.replaceOp(op, castTo(rewriter, loc, x, resultType));
    return success();
  }
};

struct SpaceToDepthLowering : OpConversionPattern<SpaceToDepthOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SpaceToDepthOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput();
    int64_t bs = op.getBlocksize();
    SmallVector<OpFoldResult> s = getDims(rewriter, loc, input);
    auto div = [&](OpFoldResult v) -> OpFoldResult {
      if (std::optional<int64_t> c = getConstantIntValue(v))
        return rewriter.getIndexAttr(*c / bs);
      return arith::DivUIOp::create(rewriter, loc, toValue(rewriter, loc, v),
                                    idx(rewriter, loc, bs))
          .getResult();
    };
    OpFoldResult b = rewriter.getIndexAttr(bs);
    // [N, C, H', b, W', b] -> [N, b, b, C, H', W'] -> [N, C * b * b, H', W'].
    Value x = expandTo(rewriter, loc, input, {{0}, {1}, {2, 3}, {4, 5}},
                       {s[0], s[1], div(s[2]), b, div(s[3]), b});
    x = transposeND(rewriter, loc, x, {0, 3, 5, 1, 2, 4});
    x = collapse(rewriter, loc, x, {{0}, {1, 2, 3}, {4}, {5}});
    rewriter.replaceOp(op, castTo(rewriter, loc, x, resultType));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// shape, size, constant_of_shape, range
//===----------------------------------------------------------------------===//

struct ShapeLowering : OpConversionPattern<ShapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ShapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput();
    int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
    int64_t start = std::clamp<int64_t>(op.getStart(), 0, rank);
    int64_t end = std::clamp<int64_t>(op.getEnd().value_or(rank), start, rank);
    SmallVector<Value> dims;
    for (int64_t d = start; d < end; ++d)
      dims.push_back(indexToScalar(rewriter, loc,
                                   getDimValue(rewriter, loc, input, d),
                                   rewriter.getI64Type()));
    Value r = tensor::FromElementsOp::create(
        rewriter, loc,
        RankedTensorType::get({end - start}, rewriter.getI64Type()), dims);
    rewriter.replaceOp(op, castTo(rewriter, loc, r, resultType));
    return success();
  }
};

struct SizeLowering : OpConversionPattern<SizeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Value n =
        productOf(rewriter, loc, getDims(rewriter, loc, adaptor.getInput()));
    Value v = indexToScalar(rewriter, loc, n, rewriter.getI64Type());
    rewriter.replaceOpWithNewOp<tensor::FromElementsOp>(op, resultType,
                                                        ValueRange{v});
    return success();
  }
};

struct ConstantOfShapeLowering : OpConversionPattern<ConstantOfShapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConstantOfShapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Type elem = resultType.getElementType();
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!dense)
      return rewriter.notifyMatchFailure(op, "expected a dense value");
    Attribute first = *dense.getValues<Attribute>().begin();
    TypedAttr scalar;
    if (auto i = dyn_cast<IntegerAttr>(first))
      scalar = rewriter.getIntegerAttr(elem, i.getValue());
    else
      scalar = rewriter.getFloatAttr(elem, cast<FloatAttr>(first).getValue());
    Value fill = arith::ConstantOp::create(rewriter, loc, scalar);
    SmallVector<OpFoldResult> sizes =
        resultSizes(rewriter, resultType, [&](int64_t d) -> OpFoldResult {
          return extractIndex(rewriter, loc, adaptor.getShape(), d);
        });
    rewriter.replaceOp(op, castTo(rewriter, loc,
                                  createFilled(rewriter, loc, sizes, fill),
                                  resultType));
    return success();
  }
};

struct RangeLowering : OpConversionPattern<RangeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(RangeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Type elem = resultType.getElementType();
    Value start = extractScalar(rewriter, loc, adaptor.getStart());
    Value delta = extractScalar(rewriter, loc, adaptor.getDelta());
    SmallVector<OpFoldResult> sizes =
        resultSizes(rewriter, resultType, [&](int64_t) -> OpFoldResult {
          // max(ceil((limit - start) / delta), 0)
          Value limit = extractScalar(rewriter, loc, adaptor.getLimit());
          Value count;
          if (isa<FloatType>(elem)) {
            Value q = arith::DivFOp::create(
                rewriter, loc,
                arith::SubFOp::create(rewriter, loc, limit, start), delta);
            count =
                arith::FPToSIOp::create(rewriter, loc, rewriter.getI64Type(),
                                        math::CeilOp::create(rewriter, loc, q));
            count = scalarToIndex(rewriter, loc, count);
          } else {
            count = arith::CeilDivSIOp::create(
                rewriter, loc,
                scalarToIndex(
                    rewriter, loc,
                    arith::SubIOp::create(rewriter, loc, limit, start)),
                scalarToIndex(rewriter, loc, delta));
          }
          return arith::MaxSIOp::create(rewriter, loc, count,
                                        idx(rewriter, loc, 0))
              .getResult();
        });
    Value r = buildIndexedGeneric(
        rewriter, loc, sizes, elem,
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
          Value i = indexToScalar(b, l, ivs[0], elem);
          return createAdd(b, l, start, createMul(b, l, i, delta));
        });
    rewriter.replaceOp(op, castTo(rewriter, loc, r, resultType));
    return success();
  }
};

} // namespace

void kiln::codegen::detail::populateDataMovementPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<
      ReshapeLowering, FlattenLowering, SqueezeLowering, UnsqueezeLowering,
      TransposeLowering, ConcatLowering, SplitLowering, SliceLowering,
      GatherLowering, GatherElementsLowering, GatherNDLowering,
      ScatterElementsLowering, ScatterNDLowering, GridSampleLowering,
      ExpandLowering, TileLowering,
      PadLowering, ResizeLowering, DepthToSpaceLowering, SpaceToDepthLowering,
      ShapeLowering, SizeLowering, ConstantOfShapeLowering, RangeLowering>(
      converter, patterns.getContext());
}
