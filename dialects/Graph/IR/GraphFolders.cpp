//===- GraphFolders.cpp - folders and canonicalizations of graph ops ------===//
//
// Folding exists mainly so that shape subgraphs (Shape -> Gather -> Concat ->
// Reshape, Range/ConstantOfShape on static sizes) disappear at import time;
// it only materializes small constants (kMaxFoldElements) or splats.
//
//===----------------------------------------------------------------------===//
#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Graph/IR/ShapeUtils.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/APSInt.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

using namespace mlir;
using namespace kiln::graph;

static bool isFoldableResult(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  return t && t.hasStaticShape() && t.getNumElements() <= kMaxFoldElements;
}

/// Linear index into an operand of shape `shape` that broadcasts to the
/// result multi-index `index` (right-aligned).
static int64_t broadcastOperandIndex(ArrayRef<int64_t> index,
                                     ArrayRef<int64_t> shape) {
  int64_t linear = 0;
  size_t off = index.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i)
    linear = linear * shape[i] + (shape[i] == 1 ? 0 : index[i + off]);
  return linear;
}

static SmallVector<int64_t> delinearize(int64_t linear,
                                        ArrayRef<int64_t> shape) {
  SmallVector<int64_t> index(shape.size());
  for (int64_t i = shape.size() - 1; i >= 0; --i) {
    index[i] = shape[i] ? linear % shape[i] : 0;
    linear = shape[i] ? linear / shape[i] : 0;
  }
  return index;
}

static int64_t toInt64(const APInt &v, Type elementType) {
  return elementType.isUnsignedInteger() || elementType.isInteger(1)
             ? (int64_t)v.getZExtValue()
             : v.getSExtValue();
}

/// Scalar semantics of a folded elementwise op: integer and float forms; a
/// disengaged optional means "do not fold" (division by zero, say).
struct ScalarFn {
  std::function<std::optional<int64_t>(int64_t, int64_t)> ints;
  std::function<std::optional<double>(double, double)> floats;
};

/// Folds an n-ary broadcasting elementwise op over constant operands. The
/// result is computed in int64/double and converted to the result type.
static Attribute foldElementwise(Type resultType, ArrayRef<Attribute> operands,
                                 const ScalarFn &fn) {
  auto result = dyn_cast<RankedTensorType>(resultType);
  if (!result || !result.hasStaticShape())
    return {};
  SmallVector<DenseElementsAttr> dense;
  bool allSplat = true;
  for (Attribute a : operands) {
    auto d = dyn_cast_or_null<DenseElementsAttr>(a);
    if (!d)
      return {};
    allSplat &= d.isSplat();
    dense.push_back(d);
  }
  if (!allSplat && result.getNumElements() > kMaxFoldElements)
    return {};
  Type inType = dense[0].getElementType();
  Type outType = result.getElementType();
  bool isFloat = isa<FloatType>(inType);
  // Values are computed in int64: ui64 above INT64_MAX would wrap.
  if ((!isFloat && !inType.isInteger()) || inType.isUnsignedInteger(64))
    return {};
  int64_t count = allSplat ? 1 : result.getNumElements();
  SmallVector<Attribute> values;
  values.reserve(count);
  for (int64_t i = 0; i < count; ++i) {
    SmallVector<int64_t> index =
        allSplat ? SmallVector<int64_t>() : delinearize(i, result.getShape());
    SmallVector<int64_t> ints;
    SmallVector<double> floats;
    for (DenseElementsAttr d : dense) {
      int64_t k = d.isSplat()
                      ? 0
                      : broadcastOperandIndex(
                            index, cast<ShapedType>(d.getType()).getShape());
      if (isFloat)
        floats.push_back(d.getValues<APFloat>()[k].convertToDouble());
      else
        ints.push_back(toInt64(d.getValues<APInt>()[k], d.getElementType()));
    }
    if (isFloat) {
      std::optional<double> v =
          fn.floats ? fn.floats(floats[0], floats[1]) : std::nullopt;
      if (!v)
        return {};
      if (auto ft = dyn_cast<FloatType>(outType)) {
        APFloat f(*v);
        bool lost;
        f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
        values.push_back(FloatAttr::get(ft, f));
      } else {
        values.push_back(IntegerAttr::get(outType, (int64_t)*v));
      }
    } else {
      std::optional<int64_t> v =
          fn.ints ? fn.ints(ints[0], ints[1]) : std::nullopt;
      if (!v)
        return {};
      values.push_back(IntegerAttr::get(
          outType, APInt(outType.getIntOrFloatBitWidth(), (uint64_t)*v,
                         /*isSigned=*/!outType.isUnsignedInteger(),
                         /*implicitTrunc=*/true)));
    }
  }
  if (allSplat)
    return DenseElementsAttr::get(result, values[0]);
  return DenseElementsAttr::get(result, values);
}

//===----------------------------------------------------------------------===//
// Constants and casts
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

static std::optional<Attribute> castScalar(Attribute value, Type from,
                                           Type to) {
  if (auto ft = dyn_cast<FloatType>(to)) {
    APFloat f(0.0);
    if (auto fa = dyn_cast<FloatAttr>(value)) {
      f = fa.getValue();
    } else if (auto ia = dyn_cast<IntegerAttr>(value)) {
      f = APFloat(ft.getFloatSemantics());
      f.convertFromAPInt(ia.getValue(),
                         !from.isUnsignedInteger() && !from.isInteger(1),
                         APFloat::rmNearestTiesToEven);
      return FloatAttr::get(ft, f);
    } else {
      return std::nullopt;
    }
    bool lost;
    f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    return FloatAttr::get(ft, f);
  }
  if (!to.isInteger())
    return std::nullopt;
  unsigned width = to.getIntOrFloatBitWidth();
  if (auto ia = dyn_cast<IntegerAttr>(value)) {
    APInt v = ia.getValue();
    if (width == 1)
      return IntegerAttr::get(to, APInt(1, !v.isZero()));
    bool fromSigned = !from.isUnsignedInteger() && !from.isInteger(1);
    return IntegerAttr::get(to, fromSigned ? v.sextOrTrunc(width)
                                           : v.zextOrTrunc(width));
  }
  if (auto fa = dyn_cast<FloatAttr>(value)) {
    if (width == 1)
      return IntegerAttr::get(to, APInt(1, !fa.getValue().isZero()));
    llvm::APSInt result(width, to.isUnsignedInteger());
    bool exact;
    fa.getValue().convertToInteger(result, APFloat::rmTowardZero, &exact);
    return IntegerAttr::get(to, result);
  }
  return std::nullopt;
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  if (!dense || !getType().hasStaticShape() ||
      (!dense.isSplat() && !isFoldableResult(getType())))
    return {};
  Type from = dense.getElementType(), to = getType().getElementType();
  SmallVector<Attribute> values;
  for (Attribute v :
       dense.isSplat()
           ? SmallVector<Attribute>{dense.getSplatValue<Attribute>()}
           : SmallVector<Attribute>(dense.getValues<Attribute>())) {
    std::optional<Attribute> c = castScalar(v, from, to);
    if (!c)
      return {};
    values.push_back(*c);
  }
  if (dense.isSplat())
    return DenseElementsAttr::get(getType(), values[0]);
  return DenseElementsAttr::get(getType(), values);
}

//===----------------------------------------------------------------------===//
// Elementwise binary
//===----------------------------------------------------------------------===//

/// True if a tensor of shape `c` broadcast against `x` can never change x's
/// shape: each of c's dims is 1 or equal to x's static dim.
static bool cannotEnlarge(ArrayRef<int64_t> c, ArrayRef<int64_t> x) {
  if (c.size() > x.size())
    return false;
  size_t off = x.size() - c.size();
  for (size_t i = 0; i < c.size(); ++i)
    if (c[i] != 1 && (ShapedType::isDynamic(x[i + off]) || c[i] != x[i + off]))
      return false;
  return true;
}

/// `x op c` where c is a splat equal to `identity` that cannot broadcast x to
/// a larger shape.
static Value foldIdentityOperand(Value x, Attribute other, Type resultType,
                                 double identity) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(other);
  if (!dense || !dense.isSplat() || x.getType() != resultType ||
      !cannotEnlarge(cast<ShapedType>(dense.getType()).getShape(),
                     cast<ShapedType>(x.getType()).getShape()))
    return {};
  if (isa<FloatType>(dense.getElementType()))
    return dense.getSplatValue<APFloat>().convertToDouble() == identity
               ? x
               : Value();
  if (dense.getElementType().isInteger())
    return toInt64(dense.getSplatValue<APInt>(), dense.getElementType()) ==
                   (int64_t)identity
               ? x
               : Value();
  return {};
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (Value v = foldIdentityOperand(getLhs(), adaptor.getRhs(), getType(), 0))
    return v;
  if (Value v = foldIdentityOperand(getRhs(), adaptor.getLhs(), getType(), 0))
    return v;
  return foldElementwise(
      getType(), adaptor.getOperands(),
      {[](int64_t a, int64_t b) -> std::optional<int64_t> { return a + b; },
       [](double a, double b) -> std::optional<double> { return a + b; }});
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (Value v = foldIdentityOperand(getLhs(), adaptor.getRhs(), getType(), 0))
    return v;
  return foldElementwise(
      getType(), adaptor.getOperands(),
      {[](int64_t a, int64_t b) -> std::optional<int64_t> { return a - b; },
       [](double a, double b) -> std::optional<double> { return a - b; }});
}

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  // foldElementwise is binary: the operand stands in for both sides.
  Attribute in = adaptor.getInput();
  return foldElementwise(
      getType(), {in, in},
      {[](int64_t a, int64_t) -> std::optional<int64_t> { return -a; },
       [](double a, double) -> std::optional<double> { return -a; }});
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (Value v = foldIdentityOperand(getLhs(), adaptor.getRhs(), getType(), 1))
    return v;
  if (Value v = foldIdentityOperand(getRhs(), adaptor.getLhs(), getType(), 1))
    return v;
  return foldElementwise(
      getType(), adaptor.getOperands(),
      {[](int64_t a, int64_t b) -> std::optional<int64_t> { return a * b; },
       [](double a, double b) -> std::optional<double> { return a * b; }});
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (Value v = foldIdentityOperand(getLhs(), adaptor.getRhs(), getType(), 1))
    return v;
  return foldElementwise(
      getType(), adaptor.getOperands(),
      {[](int64_t a, int64_t b) -> std::optional<int64_t> {
         if (b == 0 || (a == INT64_MIN && b == -1))
           return std::nullopt;
         return a / b;
       },
       [](double a, double b) -> std::optional<double> { return a / b; }});
}

OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(
      getType(), adaptor.getOperands(),
      {nullptr, [](double a, double b) -> std::optional<double> {
         return std::pow(a, b);
       }});
}

OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(getType(), adaptor.getOperands(),
                         {[](int64_t a, int64_t b) -> std::optional<int64_t> {
                            return std::max(a, b);
                          },
                          [](double a, double b) -> std::optional<double> {
                            return std::isnan(a) || std::isnan(b)
                                       ? NAN
                                       : std::max(a, b);
                          }});
}

OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(getType(), adaptor.getOperands(),
                         {[](int64_t a, int64_t b) -> std::optional<int64_t> {
                            return std::min(a, b);
                          },
                          [](double a, double b) -> std::optional<double> {
                            return std::isnan(a) || std::isnan(b)
                                       ? NAN
                                       : std::min(a, b);
                          }});
}

OpFoldResult ModOp::fold(FoldAdaptor adaptor) {
  bool fmod = getFmod();
  return foldElementwise(
      getType(), adaptor.getOperands(),
      {[fmod](int64_t a, int64_t b) -> std::optional<int64_t> {
         if (b == 0 || (a == INT64_MIN && b == -1))
           return std::nullopt;
         int64_t r = a % b;
         if (!fmod && r != 0 && ((r < 0) != (b < 0)))
           r += b;
         return r;
       },
       [fmod](double a, double b) -> std::optional<double> {
         double r = std::fmod(a, b);
         if (!fmod && r != 0 && ((r < 0) != (b < 0)))
           r += b;
         return r;
       }});
}

OpFoldResult BitShiftOp::fold(FoldAdaptor) { return {}; }
OpFoldResult BitwiseAndOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(
      getType(), adaptor.getOperands(),
      {[](int64_t a, int64_t b) -> std::optional<int64_t> { return a & b; },
       nullptr});
}
OpFoldResult BitwiseOrOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(
      getType(), adaptor.getOperands(),
      {[](int64_t a, int64_t b) -> std::optional<int64_t> { return a | b; },
       nullptr});
}
OpFoldResult BitwiseXorOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(
      getType(), adaptor.getOperands(),
      {[](int64_t a, int64_t b) -> std::optional<int64_t> { return a ^ b; },
       nullptr});
}

#define KILN_COMPARE_FOLD(OP, EXPR)                                            \
  OpFoldResult OP::fold(FoldAdaptor adaptor) {                                 \
    return foldElementwise(                                                    \
        getType(), adaptor.getOperands(),                                      \
        {[](int64_t a, int64_t b) -> std::optional<int64_t> { return EXPR; },  \
         [](double a, double b) -> std::optional<double> { return EXPR; }});   \
  }

KILN_COMPARE_FOLD(EqualOp, a == b)
KILN_COMPARE_FOLD(LessOp, a < b)
KILN_COMPARE_FOLD(LessOrEqualOp, a <= b)
KILN_COMPARE_FOLD(GreaterOp, a > b)
KILN_COMPARE_FOLD(GreaterOrEqualOp, a >= b)
KILN_COMPARE_FOLD(AndOp, a &&b)
KILN_COMPARE_FOLD(OrOp, a || b)
KILN_COMPARE_FOLD(XorOp, (a != 0) != (b != 0))

OpFoldResult WhereOp::fold(FoldAdaptor adaptor) {
  auto cond = dyn_cast_or_null<DenseElementsAttr>(adaptor.getCondition());
  if (!cond)
    return {};
  if (cond.isSplat()) {
    Value chosen = cond.getSplatValue<bool>() ? getLhs() : getRhs();
    Value other = chosen == getLhs() ? getRhs() : getLhs();
    ArrayRef<int64_t> shape = getType().getShape();
    if (chosen.getType() == getType() &&
        cannotEnlarge(cast<ShapedType>(cond.getType()).getShape(), shape) &&
        cannotEnlarge(cast<ShapedType>(other.getType()).getShape(), shape))
      return chosen;
  }
  auto lhs = dyn_cast_or_null<DenseElementsAttr>(adaptor.getLhs());
  auto rhs = dyn_cast_or_null<DenseElementsAttr>(adaptor.getRhs());
  if (!lhs || !rhs || !isFoldableResult(getType()))
    return {};
  ArrayRef<int64_t> shape = getType().getShape();
  SmallVector<Attribute> values;
  for (int64_t i = 0, e = getType().getNumElements(); i < e; ++i) {
    SmallVector<int64_t> index = delinearize(i, shape);
    auto pick = [&](DenseElementsAttr d) {
      return d.getValues<Attribute>()[broadcastOperandIndex(
          index, cast<ShapedType>(d.getType()).getShape())];
    };
    bool c = cond.getValues<bool>()[broadcastOperandIndex(
        index, cast<ShapedType>(cond.getType()).getShape())];
    values.push_back(c ? pick(lhs) : pick(rhs));
  }
  return DenseElementsAttr::get(getType(), values);
}

//===----------------------------------------------------------------------===//
// Reductions on constants
//===----------------------------------------------------------------------===//

template <typename Op>
static Attribute foldIntReduce(Op op, Attribute inputAttr, int64_t init,
                               int64_t (*combine)(int64_t, int64_t)) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(inputAttr);
  auto resultType = cast<RankedTensorType>(op.getType());
  if (!dense || !dense.getElementType().isInteger() ||
      !isFoldableResult(resultType) ||
      dense.getNumElements() > kMaxFoldElements)
    return {};
  auto inType = cast<RankedTensorType>(dense.getType());
  ArrayRef<int64_t> axes = op.getAxes();
  SmallVector<int64_t> acc(resultType.getNumElements(), init);
  // Shape of the result with kept dims, to index it whatever keepdims is.
  SmallVector<int64_t> keptShape(inType.getShape());
  for (int64_t a : axes)
    keptShape[a] = 1;
  int64_t i = 0;
  for (const APInt &v : dense.getValues<APInt>()) {
    SmallVector<int64_t> index = delinearize(i++, inType.getShape());
    for (int64_t a : axes)
      index[a] = 0;
    int64_t linear = 0;
    for (size_t d = 0; d < index.size(); ++d)
      linear = linear * keptShape[d] + index[d];
    acc[linear] = combine(acc[linear], toInt64(v, dense.getElementType()));
  }
  Type et = resultType.getElementType();
  SmallVector<APInt> values;
  for (int64_t v : acc)
    values.push_back(
        APInt(et.getIntOrFloatBitWidth(), (uint64_t)v, true, true));
  return DenseElementsAttr::get(resultType, values);
}

OpFoldResult ReduceSumOp::fold(FoldAdaptor adaptor) {
  if (getAxes().empty() && getInput().getType() == getType())
    return getInput();
  return foldIntReduce(*this, adaptor.getInput(), 0,
                       [](int64_t a, int64_t b) { return a + b; });
}

OpFoldResult ReduceProdOp::fold(FoldAdaptor adaptor) {
  if (getAxes().empty() && getInput().getType() == getType())
    return getInput();
  return foldIntReduce(*this, adaptor.getInput(), 1,
                       [](int64_t a, int64_t b) { return a * b; });
}

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

/// Reshape-like folds: no-op when types match, reshaped constant otherwise.
static OpFoldResult foldReshapeLike(Value input, Attribute inputAttr,
                                    RankedTensorType resultType) {
  // Equal dynamic types say nothing about the run-time shape of a reshape.
  if (input.getType() == resultType && resultType.hasStaticShape())
    return input;
  auto dense = dyn_cast_or_null<DenseElementsAttr>(inputAttr);
  if (dense && resultType.hasStaticShape() &&
      dense.getNumElements() == resultType.getNumElements())
    return dense.reshape(resultType);
  return {};
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  // With dynamic dims, a reshape is a no-op only if the constant shape keeps
  // every dim: 0 (copy), the same static size, or -1 for the one dynamic dim.
  auto input = getInput().getType();
  if (input == getType() && !getType().hasStaticShape()) {
    auto shape = getConstantInts(getShape());
    if (!shape || (int64_t)shape->size() != input.getRank() ||
        llvm::count_if(input.getShape(), ShapedType::isDynamic) > 1)
      return {};
    for (auto [i, v] : llvm::enumerate(*shape)) {
      bool keeps = (v == 0 && !getAllowzero()) ||
                   (!input.isDynamicDim(i) && v == input.getDimSize(i)) ||
                   (v == -1 && input.isDynamicDim(i));
      if (!keeps)
        return {};
    }
    return getInput();
  }
  return foldReshapeLike(getInput(), adaptor.getInput(), getType());
}
// Flatten, squeeze and unsqueeze with equal input and result types are
// no-ops even with dynamic dims (their result shapes follow from the input).
OpFoldResult FlattenOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return foldReshapeLike(getInput(), adaptor.getInput(), getType());
}
OpFoldResult SqueezeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return foldReshapeLike(getInput(), adaptor.getInput(), getType());
}
OpFoldResult UnsqueezeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return foldReshapeLike(getInput(), adaptor.getInput(), getType());
}

/// Elements of a small constant as attributes (splats expanded).
static std::optional<SmallVector<Attribute>> smallElements(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || dense.getNumElements() > kMaxFoldElements)
    return std::nullopt;
  return SmallVector<Attribute>(dense.getValues<Attribute>());
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPerm();
  bool identity = llvm::all_of(llvm::enumerate(perm), [](auto p) {
    return (int64_t)p.index() == p.value();
  });
  if (identity && getInput().getType() == getType())
    return getInput();
  auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  if (dense && dense.isSplat() && getType().hasStaticShape())
    return DenseElementsAttr::get(getType(), dense.getSplatValue<Attribute>());
  auto elements = smallElements(adaptor.getInput());
  if (!elements || !getType().hasStaticShape())
    return {};
  ArrayRef<int64_t> inShape = getInput().getType().getShape();
  SmallVector<Attribute> values;
  for (int64_t i = 0, e = getType().getNumElements(); i < e; ++i) {
    SmallVector<int64_t> outIndex = delinearize(i, getType().getShape());
    SmallVector<int64_t> inIndex(perm.size());
    for (size_t d = 0; d < perm.size(); ++d)
      inIndex[perm[d]] = outIndex[d];
    int64_t linear = 0;
    for (size_t d = 0; d < inShape.size(); ++d)
      linear = linear * inShape[d] + inIndex[d];
    values.push_back((*elements)[linear]);
  }
  return DenseElementsAttr::get(getType(), values);
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1 && getInputs()[0].getType() == getType())
    return getInputs()[0];
  if (!isFoldableResult(getType()))
    return {};
  int64_t axis = getAxis();
  ArrayRef<int64_t> outShape = getType().getShape();
  // Copy blocks: outer = product of dims before axis.
  int64_t outer = staticProduct(outShape.take_front(axis));
  SmallVector<SmallVector<Attribute>> parts;
  SmallVector<int64_t> blocks;
  for (auto [value, attr] : llvm::zip(getInputs(), adaptor.getInputs())) {
    auto elements = smallElements(attr);
    if (!elements)
      return {};
    auto t = cast<RankedTensorType>(value.getType());
    blocks.push_back(staticProduct(t.getShape().drop_front(axis)));
    parts.push_back(std::move(*elements));
  }
  SmallVector<Attribute> values;
  for (int64_t o = 0; o < outer; ++o)
    for (size_t p = 0; p < parts.size(); ++p)
      for (int64_t k = 0; k < blocks[p]; ++k)
        values.push_back(parts[p][o * blocks[p] + k]);
  return DenseElementsAttr::get(getType(), values);
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  auto starts = getConstantInts(getStarts());
  auto axes = getConstantInts(getAxes());
  auto steps = getConstantInts(getSteps());
  if (!starts || !axes || !steps || !getType().hasStaticShape() ||
      !getInput().getType().hasStaticShape())
    return {};
  if (getInput().getType() == getType() &&
      llvm::all_of(*starts, [](int64_t s) { return s == 0; }) &&
      llvm::all_of(*steps, [](int64_t s) { return s == 1; }))
    return getInput();
  auto elements = smallElements(adaptor.getInput());
  if (!elements || !isFoldableResult(getType()))
    return {};
  ArrayRef<int64_t> inShape = getInput().getType().getShape();
  int64_t rank = inShape.size();
  SmallVector<int64_t> begin(rank, 0), stride(rank, 1);
  for (size_t i = 0; i < axes->size(); ++i) {
    int64_t a = (*axes)[i] < 0 ? (*axes)[i] + rank : (*axes)[i];
    int64_t dim = inShape[a], s = (*starts)[i], st = (*steps)[i];
    if (dim == 0)
      return {};
    if (s < 0)
      s += dim;
    s = st > 0 ? std::clamp<int64_t>(s, 0, dim)
               : std::clamp<int64_t>(s, 0, dim - 1);
    begin[a] = s;
    stride[a] = st;
  }
  SmallVector<Attribute> values;
  for (int64_t i = 0, e = getType().getNumElements(); i < e; ++i) {
    SmallVector<int64_t> index = delinearize(i, getType().getShape());
    int64_t linear = 0;
    for (int64_t d = 0; d < rank; ++d)
      linear = linear * inShape[d] + begin[d] + index[d] * stride[d];
    values.push_back((*elements)[linear]);
  }
  return DenseElementsAttr::get(getType(), values);
}

OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  // gather(shape(x), i) is known when the dims it picks are static, even if
  // other dims of x are dynamic (the usual dynamic-batch export pattern).
  if (auto shapeOp = getInput().getDefiningOp<ShapeOp>()) {
    auto indices = getConstantInts(getIndices());
    auto source = shapeOp.getInput().getType();
    int64_t start =
        shapeOpRange(source.getRank(), shapeOp.getStart(), shapeOp.getEnd())
            .first;
    int64_t length = getInput().getType().getDimSize(0);
    if (indices && getType().hasStaticShape() &&
        !ShapedType::isDynamic(length)) {
      SmallVector<int64_t> dims;
      for (int64_t idx : *indices) {
        if (idx < 0)
          idx += length;
        if (idx < 0 || idx >= length || source.isDynamicDim(start + idx))
          return {};
        dims.push_back(source.getDimSize(start + idx));
      }
      return DenseElementsAttr::get(getType(), ArrayRef<int64_t>(dims));
    }
  }
  auto elements = smallElements(adaptor.getInput());
  auto indices = getConstantInts(getIndices());
  if (!elements || !indices || !isFoldableResult(getType()) ||
      !getInput().getType().hasStaticShape())
    return {};
  ArrayRef<int64_t> inShape = getInput().getType().getShape();
  int64_t axis = getAxis();
  int64_t outer = staticProduct(inShape.take_front(axis));
  int64_t inner = staticProduct(inShape.drop_front(axis + 1));
  int64_t dim = inShape[axis];
  SmallVector<Attribute> values;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t idx : *indices) {
      if (idx < 0)
        idx += dim;
      if (idx < 0 || idx >= dim)
        return {};
      for (int64_t k = 0; k < inner; ++k)
        values.push_back((*elements)[(o * dim + idx) * inner + k]);
    }
  return DenseElementsAttr::get(getType(), values);
}

OpFoldResult ExpandOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType()) {
    if (getType().hasStaticShape())
      return getInput();
    auto shape = getConstantInts(getShape());
    if (shape && cannotEnlarge(*shape, getType().getShape()))
      return getInput();
  }
  auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  if (dense && dense.isSplat() && getType().hasStaticShape())
    return DenseElementsAttr::get(getType(), dense.getSplatValue<Attribute>());
  auto elements = smallElements(adaptor.getInput());
  if (!elements || !isFoldableResult(getType()))
    return {};
  ArrayRef<int64_t> inShape = getInput().getType().getShape();
  SmallVector<Attribute> values;
  for (int64_t i = 0, e = getType().getNumElements(); i < e; ++i)
    values.push_back((*elements)[broadcastOperandIndex(
        delinearize(i, getType().getShape()), inShape)]);
  return DenseElementsAttr::get(getType(), values);
}

OpFoldResult ShapeOp::fold(FoldAdaptor) {
  auto input = getInput().getType();
  if (!getType().hasStaticShape())
    return {};
  auto [s, e] = shapeOpRange(input.getRank(), getStart(), getEnd());
  SmallVector<int64_t> dims;
  for (int64_t i = s; i < e; ++i) {
    if (input.isDynamicDim(i))
      return {};
    dims.push_back(input.getDimSize(i));
  }
  return DenseElementsAttr::get(getType(), ArrayRef<int64_t>(dims));
}

OpFoldResult SizeOp::fold(FoldAdaptor) {
  auto input = getInput().getType();
  if (!input.hasStaticShape())
    return {};
  return DenseElementsAttr::get(getType(),
                                ArrayRef<int64_t>{input.getNumElements()});
}

OpFoldResult ConstantOfShapeOp::fold(FoldAdaptor) {
  auto value = dyn_cast<DenseElementsAttr>(getValue());
  if (!getType().hasStaticShape() || !value)
    return {};
  return DenseElementsAttr::get(getType(),
                                *value.getValues<Attribute>().begin());
}

OpFoldResult RangeOp::fold(FoldAdaptor adaptor) {
  auto s = dyn_cast_or_null<DenseElementsAttr>(adaptor.getStart());
  auto d = dyn_cast_or_null<DenseElementsAttr>(adaptor.getDelta());
  if (!s || !d || !isFoldableResult(getType()))
    return {};
  Type et = getType().getElementType();
  int64_t n = getType().getDimSize(0);
  SmallVector<Attribute> values;
  if (auto ft = dyn_cast<FloatType>(et)) {
    double start = s.getValues<APFloat>()[0].convertToDouble();
    double delta = d.getValues<APFloat>()[0].convertToDouble();
    for (int64_t i = 0; i < n; ++i)
      values.push_back(FloatAttr::get(ft, start + i * delta));
  } else {
    int64_t start = toInt64(s.getValues<APInt>()[0], et);
    int64_t delta = toInt64(d.getValues<APInt>()[0], et);
    for (int64_t i = 0; i < n; ++i)
      values.push_back(IntegerAttr::get(et, start + i * delta));
  }
  return DenseElementsAttr::get(getType(), values);
}

//===----------------------------------------------------------------------===//
// Canonicalization patterns
//===----------------------------------------------------------------------===//

namespace {
/// reshape(reshape(x)) -> reshape(x) when the outer shape has no 0 entries
/// (which would copy dims of the intermediate value).
struct ComposeReshapes : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<ReshapeOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(op, "input is not a reshape");
    auto shape = getConstantInts(op.getShape());
    if (!shape || (!op.getAllowzero() && llvm::is_contained(*shape, 0)))
      return rewriter.notifyMatchFailure(
          op, "shape is not constant or copies dims");
    rewriter.modifyOpInPlace(
        op, [&] { op.getInputMutable().assign(inner.getInput()); });
    return success();
  }
};

/// transpose(transpose(x, p1), p2) -> transpose(x, p1[p2[i]]).
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<TransposeOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(op, "input is not a transpose");
    SmallVector<int64_t> perm;
    for (int64_t p : op.getPerm())
      perm.push_back(inner.getPerm()[p]);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getType(), inner.getInput(),
                                             perm);
    return success();
  }
};
} // namespace

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ComposeReshapes>(context);
}

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeTransposes>(context);
}
