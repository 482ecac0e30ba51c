//===- GatherScatter.cpp - gathers and scatters
//-----------------------------===//
//
// Gathers read the source at an index computed from the indices tensor;
// scatters combine updates into a copy of the input. Both become a
// linalg.generic that reads with tensor.extract.
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

namespace {

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
  Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i,
                                    idx(b, loc, 0));
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
            at.push_back(
                normalizeGatherIndex(b, l, i, indexedDims[c], isUnsigned));
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
          Value match = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                              target, here);
          return arith::SelectOp::create(
              b, l, match,
              combineScatter(b, l, reduction, a[2], a[1], isUnsigned), a[2]);
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
    SmallVector<utils::IteratorType> iterators(r,
                                               utils::IteratorType::parallel);
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
              b, l, match,
              combineScatter(b, l, reduction, a[1], a[0], isUnsigned), a[1]);
        });
    rewriter.replaceOp(op, castTo(rewriter, loc, result, resultType));
    return success();
  }
};

} // namespace

void kiln::codegen::detail::populateGatherScatterPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<GatherLowering, GatherElementsLowering, GatherNDLowering,
               ScatterElementsLowering, ScatterNDLowering>(
      converter, patterns.getContext());
}
