//===- LoweringUtils.cpp - helpers shared by the graph-to-linalg patterns -===//
#include "codegen/GraphToLinalg/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace kiln::codegen::detail {

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

Value createScalar(OpBuilder &b, Location loc, Type type, double value) {
  if (auto ft = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, value));
  if (type.isIndex())
    return arith::ConstantIndexOp::create(b, loc, static_cast<int64_t>(value));
  auto it = cast<IntegerType>(type);
  // Wrap rather than assert: callers pass values of the kiln type, which may
  // be unsigned (255 for ui8 is -1 in signless i8).
  APInt bits(it.getWidth(), static_cast<uint64_t>(static_cast<int64_t>(value)),
             /*isSigned=*/false, /*implicitTrunc=*/true);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(it, bits));
}

Value createIndex(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

static Value createExtreme(OpBuilder &b, Location loc, Type type,
                           bool isUnsigned, bool highest) {
  if (auto ft = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(ft, APFloat::getInf(ft.getFloatSemantics(), !highest)));
  auto it = cast<IntegerType>(type);
  unsigned w = it.getWidth();
  APInt v;
  if (isUnsigned || w == 1)
    v = highest ? APInt::getMaxValue(w) : APInt::getMinValue(w);
  else
    v = highest ? APInt::getSignedMaxValue(w) : APInt::getSignedMinValue(w);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(it, v));
}

Value createLowest(OpBuilder &b, Location loc, Type type, bool isUnsigned) {
  return createExtreme(b, loc, type, isUnsigned, /*highest=*/false);
}

Value createHighest(OpBuilder &b, Location loc, Type type, bool isUnsigned) {
  return createExtreme(b, loc, type, isUnsigned, /*highest=*/true);
}

Value indexToScalar(OpBuilder &b, Location loc, Value index, Type type) {
  if (type.isIndex())
    return index;
  if (std::optional<int64_t> c = getConstantIntValue(index))
    return createScalar(b, loc, type, static_cast<double>(*c));
  if (isa<IntegerType>(type))
    return arith::IndexCastOp::create(b, loc, type, index);
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  return arith::SIToFPOp::create(b, loc, type, i64);
}

Value scalarToIndex(OpBuilder &b, Location loc, Value value, bool isUnsigned) {
  if (value.getType().isIndex())
    return value;
  if (isUnsigned)
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), value);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), value);
}

Value createMax(OpBuilder &b, Location loc, Value l, Value r, bool isUnsigned) {
  if (isa<FloatType>(l.getType()))
    return arith::MaximumFOp::create(b, loc, l, r);
  if (isUnsigned || l.getType().isInteger(1))
    return arith::MaxUIOp::create(b, loc, l, r);
  return arith::MaxSIOp::create(b, loc, l, r);
}

Value createMin(OpBuilder &b, Location loc, Value l, Value r, bool isUnsigned) {
  if (isa<FloatType>(l.getType()))
    return arith::MinimumFOp::create(b, loc, l, r);
  if (isUnsigned || l.getType().isInteger(1))
    return arith::MinUIOp::create(b, loc, l, r);
  return arith::MinSIOp::create(b, loc, l, r);
}

Value createAdd(OpBuilder &b, Location loc, Value l, Value r) {
  if (isa<FloatType>(l.getType()))
    return arith::AddFOp::create(b, loc, l, r);
  return arith::AddIOp::create(b, loc, l, r);
}

Value createSub(OpBuilder &b, Location loc, Value l, Value r) {
  if (isa<FloatType>(l.getType()))
    return arith::SubFOp::create(b, loc, l, r);
  return arith::SubIOp::create(b, loc, l, r);
}

Value createMul(OpBuilder &b, Location loc, Value l, Value r) {
  if (isa<FloatType>(l.getType()))
    return arith::MulFOp::create(b, loc, l, r);
  return arith::MulIOp::create(b, loc, l, r);
}

Value createDiv(OpBuilder &b, Location loc, Value l, Value r, bool isUnsigned) {
  if (isa<FloatType>(l.getType()))
    return arith::DivFOp::create(b, loc, l, r);
  if (isUnsigned)
    return arith::DivUIOp::create(b, loc, l, r);
  return arith::DivSIOp::create(b, loc, l, r);
}

Value convertFloat(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (cast<FloatType>(from).getWidth() < cast<FloatType>(to).getWidth())
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

Type getAccumulatorType(Type elementType) {
  if (elementType.isF16() || elementType.isBF16())
    return Float32Type::get(elementType.getContext());
  return elementType;
}

bool isUnsignedLike(Type t) { return t.isUnsignedInteger() || t.isInteger(1); }

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

Value getDimValue(OpBuilder &b, Location loc, Value v, int64_t dim) {
  auto type = cast<RankedTensorType>(v.getType());
  if (!type.isDynamicDim(dim))
    return createIndex(b, loc, type.getDimSize(dim));
  return tensor::DimOp::create(b, loc, v, dim);
}

OpFoldResult getDim(OpBuilder &b, Location loc, Value v, int64_t dim) {
  auto type = cast<RankedTensorType>(v.getType());
  if (!type.isDynamicDim(dim))
    return b.getIndexAttr(type.getDimSize(dim));
  return tensor::DimOp::create(b, loc, v, dim).getResult();
}

SmallVector<OpFoldResult> getDims(OpBuilder &b, Location loc, Value v) {
  return tensor::getMixedSizes(b, loc, v);
}

Value toValue(OpBuilder &b, Location loc, OpFoldResult ofr) {
  return getValueOrCreateConstantIndexOp(b, loc, ofr);
}

Value productOf(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes) {
  int64_t staticPart = 1;
  Value dynamicPart;
  for (OpFoldResult s : sizes) {
    if (std::optional<int64_t> c = getConstantIntValue(s)) {
      staticPart *= *c;
      continue;
    }
    Value v = cast<Value>(s);
    dynamicPart =
        dynamicPart ? arith::MulIOp::create(b, loc, dynamicPart, v) : v;
  }
  if (!dynamicPart)
    return createIndex(b, loc, staticPart);
  if (staticPart == 1)
    return dynamicPart;
  return arith::MulIOp::create(b, loc, dynamicPart,
                               createIndex(b, loc, staticPart));
}

Value createEmpty(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                  Type elementType) {
  return tensor::EmptyOp::create(b, loc, sizes, elementType);
}

Value createFilled(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                   Value fill) {
  Value empty = createEmpty(b, loc, sizes, fill.getType());
  return linalg::FillOp::create(b, loc, ValueRange{fill}, ValueRange{empty})
      .getResult(0);
}

SmallVector<OpFoldResult> mixSizes(OpBuilder &b, RankedTensorType type,
                                   ArrayRef<Value> dynamic) {
  SmallVector<OpFoldResult> sizes;
  size_t next = 0;
  for (int64_t d : type.getShape()) {
    if (ShapedType::isDynamic(d))
      sizes.push_back(dynamic[next++]);
    else
      sizes.push_back(b.getIndexAttr(d));
  }
  assert(next == dynamic.size() && "wrong number of dynamic sizes");
  return sizes;
}

Value castTo(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return tensor::CastOp::create(b, loc, type, v);
}

SmallVector<OpFoldResult> getBroadcastSizes(OpBuilder &b, Location loc,
                                            RankedTensorType resultType,
                                            ValueRange inputs) {
  int64_t rank = resultType.getRank();
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < rank; ++d) {
    if (!resultType.isDynamicDim(d)) {
      sizes.push_back(b.getIndexAttr(resultType.getDimSize(d)));
      continue;
    }
    // Prefer a static size > 1 (the broadcast result), then any dynamic dim
    // (dynamic dims never broadcast, so all of them are equal).
    OpFoldResult found;
    for (Value in : inputs) {
      auto t = cast<RankedTensorType>(in.getType());
      int64_t j = d - (rank - t.getRank());
      if (j >= 0 && !t.isDynamicDim(j) && t.getDimSize(j) != 1) {
        found = b.getIndexAttr(t.getDimSize(j));
        break;
      }
    }
    if (!found) {
      for (Value in : inputs) {
        auto t = cast<RankedTensorType>(in.getType());
        int64_t j = d - (rank - t.getRank());
        if (j >= 0 && t.isDynamicDim(j)) {
          found = tensor::DimOp::create(b, loc, in, j).getResult();
          break;
        }
      }
    }
    sizes.push_back(found ? found : b.getIndexAttr(1));
  }
  return sizes;
}

AffineMap getBroadcastMap(MLIRContext *ctx, Type input,
                          ArrayRef<int64_t> resultShape) {
  auto t = cast<RankedTensorType>(input);
  int64_t rank = resultShape.size();
  int64_t offset = rank - t.getRank();
  assert(offset >= 0 && "input rank exceeds result rank");
  SmallVector<AffineExpr> exprs;
  for (int64_t j = 0; j < t.getRank(); ++j) {
    int64_t d = j + offset;
    if (t.getDimSize(j) == 1 && resultShape[d] != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(d, ctx));
  }
  return AffineMap::get(rank, 0, exprs, ctx);
}

Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange inputs, ScalarBodyFn body,
                       ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> resultSizes =
      sizes.empty() ? getBroadcastSizes(b, loc, resultType, inputs)
                    : SmallVector<OpFoldResult>(sizes);
  Value init = createEmpty(b, loc, resultSizes, resultType.getElementType());
  auto initType = cast<RankedTensorType>(init.getType());
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value in : inputs)
    maps.push_back(getBroadcastMap(ctx, in.getType(), resultType.getShape()));
  maps.push_back(b.getMultiDimIdentityMap(resultType.getRank()));
  SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{initType}, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value v = body(nb, nl, args.drop_back());
        linalg::YieldOp::create(nb, nl, v);
      });
  return castTo(b, loc, generic.getResult(0), resultType);
}

Value buildGeneric(
    OpBuilder &b, Location loc, ValueRange inputs,
    ArrayRef<AffineMap> inputMaps, Value init, AffineMap outputMap,
    ArrayRef<utils::IteratorType> iterators,
    function_ref<Value(OpBuilder &, Location, ValueRange)> bodyWithAcc) {
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(outputMap);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
      iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
        linalg::YieldOp::create(nb, nl, bodyWithAcc(nb, nl, args));
      });
  return generic.getResult(0);
}

//===----------------------------------------------------------------------===//
// Reshapes
//===----------------------------------------------------------------------===//

SmallVector<ReassociationIndices>
getUnitDimReassociation(int64_t rank, ArrayRef<int64_t> unitDims) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending; // unit dims before the first kept dim
  for (int64_t d = 0; d < rank; ++d) {
    bool isUnit = llvm::is_contained(unitDims, d);
    if (!isUnit) {
      ReassociationIndices group(pending);
      pending.clear();
      group.push_back(d);
      groups.push_back(group);
    } else if (groups.empty()) {
      pending.push_back(d);
    } else {
      groups.back().push_back(d);
    }
  }
  return groups;
}

Value dropUnitDims(OpBuilder &b, Location loc, Value v,
                   ArrayRef<int64_t> unitDims, RankedTensorType resultType) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(type.getShape());
  for (int64_t d : unitDims)
    shape[d] = 1;
  v = castTo(b, loc, v, type.clone(shape));
  auto reassociation = getUnitDimReassociation(type.getRank(), unitDims);
  Value collapsed = tensor::CollapseShapeOp::create(b, loc, v, reassociation);
  return castTo(b, loc, collapsed, resultType);
}

Value expandTo(OpBuilder &b, Location loc, Value v,
               ArrayRef<ReassociationIndices> reassociation,
               ArrayRef<OpFoldResult> sizes) {
  SmallVector<int64_t> shape;
  for (OpFoldResult s : sizes)
    shape.push_back(getConstantIntValue(s).value_or(ShapedType::kDynamic));
  auto type = cast<RankedTensorType>(v.getType()).clone(shape);
  return tensor::ExpandShapeOp::create(b, loc, type, v, reassociation, sizes);
}

Value collapse(OpBuilder &b, Location loc, Value v,
               ArrayRef<ReassociationIndices> reassociation) {
  return tensor::CollapseShapeOp::create(b, loc, v, reassociation);
}

Value insertUnitDims(OpBuilder &b, Location loc, Value v,
                     ArrayRef<int64_t> unitDims, RankedTensorType resultType) {
  int64_t rank = resultType.getRank();
  SmallVector<OpFoldResult> srcSizes = getDims(b, loc, v);
  SmallVector<OpFoldResult> sizes;
  size_t next = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (llvm::is_contained(unitDims, d))
      sizes.push_back(b.getIndexAttr(1));
    else
      sizes.push_back(srcSizes[next++]);
  }
  auto reassociation = getUnitDimReassociation(rank, unitDims);
  return castTo(b, loc, expandTo(b, loc, v, reassociation, sizes), resultType);
}

/// The common refinement of two static shapes with the same element count:
/// the shape whose consecutive dims multiply to each dim of `src` and, in
/// other groups, to each dim of `dst` (for [S, B, H*D] and [S, B*H, D] it is
/// [S, B, H, D]); none when a dim of one straddles two of the other without
/// dividing them (e.g. [6, 4] and [4, 6]).
struct Refinement {
  SmallVector<int64_t> shape;
  SmallVector<ReassociationIndices> src, dst;
};
static std::optional<Refinement> refineShapes(ArrayRef<int64_t> src,
                                              ArrayRef<int64_t> dst) {
  size_t n = src.size(), m = dst.size();
  if (n == 0 || m == 0 || llvm::is_contained(src, 0) ||
      llvm::is_contained(dst, 0))
    return std::nullopt;
  Refinement r;
  r.src.resize(n);
  r.dst.resize(m);
  size_t i = 0, j = 0;
  int64_t restA = src[0], restB = dst[0];
  auto push = [&](int64_t size, size_t gi, size_t gj) {
    r.src[std::min(gi, n - 1)].push_back(r.shape.size());
    r.dst[std::min(gj, m - 1)].push_back(r.shape.size());
    r.shape.push_back(size);
  };
  while (i < n || j < m) {
    // A unit dim on one side is a unit dim of the refinement, which joins
    // the group the other side is filling.
    if (i < n && src[i] == 1) {
      push(1, i, j);
      if (++i < n)
        restA = src[i];
      continue;
    }
    if (j < m && dst[j] == 1) {
      push(1, i, j);
      if (++j < m)
        restB = dst[j];
      continue;
    }
    if (i == n || j == m)
      return std::nullopt; // element counts differ
    int64_t lo = std::min(restA, restB), hi = std::max(restA, restB);
    if (hi % lo != 0)
      return std::nullopt;
    push(lo, i, j);
    restA /= lo;
    restB /= lo;
    if (restA == 1 && ++i < n)
      restA = src[i];
    if (restB == 1 && ++j < m)
      restB = dst[j];
  }
  return r;
}

Value reshapeTo(OpBuilder &b, Location loc, Value v,
                RankedTensorType resultType,
                ArrayRef<OpFoldResult> resultSizes) {
  auto srcType = cast<RankedTensorType>(v.getType());
  if (srcType.hasStaticShape() && resultType.hasStaticShape()) {
    if (srcType.getShape() == resultType.getShape())
      return castTo(b, loc, v, resultType);
    if (srcType.getRank() > resultType.getRank()) {
      if (auto re = getReassociationIndicesForCollapse(srcType.getShape(),
                                                       resultType.getShape()))
        return castTo(b, loc, collapse(b, loc, v, *re), resultType);
    } else if (srcType.getRank() < resultType.getRank()) {
      if (auto re = getReassociationIndicesForCollapse(resultType.getShape(),
                                                       srcType.getShape()))
        return castTo(b, loc, expandTo(b, loc, v, *re, resultSizes),
                      resultType);
    }
    // Expand to the common refinement, then collapse: both stay views of
    // the same buffer, and linalg fusion can fold them into the loops of a
    // consumer (a 1-D detour would hide the dims).
    if (std::optional<Refinement> r =
            refineShapes(srcType.getShape(), resultType.getShape())) {
      SmallVector<OpFoldResult> fine;
      for (int64_t d : r->shape)
        fine.push_back(b.getIndexAttr(d));
      Value x = v;
      if (r->shape.size() != (size_t)srcType.getRank())
        x = expandTo(b, loc, x, r->src, fine);
      if (r->shape.size() != (size_t)resultType.getRank())
        x = collapse(b, loc, x, r->dst);
      return castTo(b, loc, x, resultType);
    }
  }
  // General case: through a 1-D tensor, which any reshape can reach.
  Value flat;
  if (srcType.getRank() == 0) {
    flat = expandTo(b, loc, v, {}, {b.getIndexAttr(1)});
  } else if (srcType.getRank() == 1) {
    flat = v;
  } else {
    ReassociationIndices all;
    for (int64_t d = 0; d < srcType.getRank(); ++d)
      all.push_back(d);
    flat = collapse(b, loc, v, {all});
  }
  // A static result needs a static source for the expand to verify.
  if (resultType.hasStaticShape())
    flat = castTo(b, loc, flat,
                  RankedTensorType::get({resultType.getNumElements()},
                                        resultType.getElementType()));
  if (resultType.getRank() == 0) {
    flat = castTo(b, loc, flat,
                  RankedTensorType::get({1}, resultType.getElementType()));
    return castTo(b, loc, collapse(b, loc, flat, {}), resultType);
  }
  if (resultType.getRank() == 1)
    return castTo(b, loc, flat, resultType);
  ReassociationIndices all;
  for (int64_t d = 0; d < resultType.getRank(); ++d)
    all.push_back(d);
  return castTo(b, loc, expandTo(b, loc, flat, {all}, resultSizes), resultType);
}

//===----------------------------------------------------------------------===//
// Pattern plumbing
//===----------------------------------------------------------------------===//

RankedTensorType getResultType(const TypeConverter &converter, Operation *op,
                               unsigned i) {
  return cast<RankedTensorType>(
      converter.convertType(op->getResult(i).getType()));
}

} // namespace kiln::codegen::detail
