//===- DataMovement.cpp - reshapes, slices, concats, tiles and shapes -----===//
//
// Data movement prefers the tensor ops later passes understand (collapse /
// expand_shape, extract_slice, concat, pad, linalg.transpose); what they
// cannot express (run-time shapes, negative steps, gathers, non-constant pad
// modes, resize) becomes a linalg.generic whose body computes the source
// index and reads it with tensor.extract. Gathers and scatters are in
// GatherScatter.cpp, pad, grid_sample and resize in Resampling.cpp.
//
//===----------------------------------------------------------------------===//
#include "codegen/GraphToLinalg/DataMovementUtils.h"
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

Type kiln::codegen::detail::elemOf(Value v) {
  return getElementTypeOrSelf(v.getType());
}

/// True for a static shape with no elements: slicing into it would need
/// offsets that tensor.extract_slice rejects as out of bounds (start == size).
static bool isStaticEmpty(RankedTensorType t) {
  return t.hasStaticShape() && t.getNumElements() == 0;
}

/// The (element-less) result of type `t`.
static Value createStaticEmpty(OpBuilder &b, Location loc, RankedTensorType t) {
  return tensor::EmptyOp::create(b, loc, t.getShape(), t.getElementType());
}

Value kiln::codegen::detail::idx(OpBuilder &b, Location loc, int64_t v) {
  return createIndex(b, loc, v);
}

Value kiln::codegen::detail::extractIndex(OpBuilder &b, Location loc,
                                          Value tensor, int64_t i) {
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

Value kiln::codegen::detail::clampIndex(OpBuilder &b, Location loc, Value v,
                                        Value lo, Value hi) {
  return arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, v, lo),
                                hi);
}

Value kiln::codegen::detail::buildIndexedGeneric(
    OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes, Type elem,
    function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> body,
    ValueRange inputs, ArrayRef<AffineMap> inputMaps) {
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

SmallVector<OpFoldResult> kiln::codegen::detail::resultSizes(
    OpBuilder &b, RankedTensorType resultType,
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
  patterns.add<ReshapeLowering, FlattenLowering, SqueezeLowering,
               UnsqueezeLowering, TransposeLowering, ConcatLowering,
               SplitLowering, SliceLowering, ExpandLowering, TileLowering,
               DepthToSpaceLowering, SpaceToDepthLowering, ShapeLowering,
               SizeLowering, ConstantOfShapeLowering, RangeLowering>(
      converter, patterns.getContext());
  populateGatherScatterPatterns(converter, patterns);
  populateResamplingPatterns(converter, patterns);
}
