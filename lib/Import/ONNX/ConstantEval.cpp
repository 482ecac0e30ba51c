//===- ConstantEval.cpp - build-time values of small shape subgraphs ------===//
//
// Exporters compute shape operands (Pad's pads, Resize's sizes, Tile's
// repeats) with chains of ops on Shape's result. The graph dialect folds most
// of them (arithmetic, comparisons, Concat, Slice, Gather, ...); the ones it
// does not fold, because they are rare on shapes and their folders would only
// serve the import (Floor of a scaled size, Not of a comparison, Split of a
// shape, Tile, Clip, ReduceMax, the Relu of Range's expanded trip count), are
// evaluated here when every operand is a small constant, so
// that the chain still ends in a constant the shape-reading op can use.
//
//===----------------------------------------------------------------------===//
#include "NodeContext.h"

#include "dialects/Graph/IR/ShapeUtils.h"

#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace kiln::graph;

namespace kiln::onnx_import {

namespace {

bool smallStatic(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  return t && t.hasStaticShape() && t.getNumElements() <= kMaxFoldElements;
}

int64_t toInt(const APInt &v, Type et) {
  return et.isUnsignedInteger() || et.isInteger(1) ? (int64_t)v.getZExtValue()
                                                   : v.getSExtValue();
}

/// Elements of a dense constant as doubles or int64s (by element type).
struct Elements {
  bool isFloat = false;
  SmallVector<double> floats;
  SmallVector<int64_t> ints;
};

std::optional<Elements> elementsOf(DenseElementsAttr d) {
  if (!d || d.getNumElements() > kMaxFoldElements)
    return std::nullopt;
  Elements e;
  Type et = d.getElementType();
  if (isa<FloatType>(et)) {
    e.isFloat = true;
    for (const APFloat &f : d.getValues<APFloat>())
      e.floats.push_back(f.convertToDouble());
  } else if (et.isInteger() && !et.isUnsignedInteger(64)) {
    for (const APInt &i : d.getValues<APInt>())
      e.ints.push_back(toInt(i, et));
  } else {
    return std::nullopt;
  }
  return e;
}

Attribute makeDense(RankedTensorType type, const Elements &e) {
  Type et = type.getElementType();
  SmallVector<Attribute> values;
  size_t n = e.isFloat ? e.floats.size() : e.ints.size();
  for (size_t i = 0; i < n; ++i) {
    if (auto ft = dyn_cast<FloatType>(et)) {
      APFloat f(e.isFloat ? e.floats[i] : (double)e.ints[i]);
      bool lost;
      f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      values.push_back(FloatAttr::get(ft, f));
    } else {
      int64_t v = e.isFloat ? (int64_t)e.floats[i] : e.ints[i];
      values.push_back(IntegerAttr::get(
          et, APInt(et.getIntOrFloatBitWidth(), (uint64_t)v,
                    /*isSigned=*/!et.isUnsignedInteger(),
                    /*implicitTrunc=*/true)));
    }
  }
  return DenseElementsAttr::get(type, values);
}

/// Elementwise unary op on a small constant.
Attribute unary(Operation *op, double (*f)(double), int64_t (*i)(int64_t)) {
  auto in = getConstantDense(op->getOperand(0));
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  std::optional<Elements> e = elementsOf(in);
  if (!e || !smallStatic(type) || in.getType() != type)
    return {};
  if (e->isFloat) {
    if (!f)
      return {};
    for (double &v : e->floats)
      v = f(v);
  } else {
    if (!i)
      return {};
    for (int64_t &v : e->ints)
      v = i(v);
  }
  return makeDense(type, *e);
}

Attribute tile(TileOp op) {
  auto in = getConstantDense(op.getInput());
  auto type = cast<RankedTensorType>(op.getType());
  std::optional<Elements> e = elementsOf(in);
  if (!e || !smallStatic(type))
    return {};
  ArrayRef<int64_t> inShape =
      cast<ShapedType>(op.getInput().getType()).getShape();
  ArrayRef<int64_t> outShape = type.getShape();
  Elements out;
  out.isFloat = e->isFloat;
  for (int64_t linear = 0, n = type.getNumElements(); linear < n; ++linear) {
    int64_t rest = linear, src = 0, stride = 1;
    for (int64_t d = (int64_t)outShape.size() - 1; d >= 0; --d) {
      int64_t idx = rest % outShape[d];
      rest /= outShape[d];
      src += (idx % inShape[d]) * stride;
      stride *= inShape[d];
    }
    if (e->isFloat)
      out.floats.push_back(e->floats[src]);
    else
      out.ints.push_back(e->ints[src]);
  }
  return makeDense(type, out);
}

/// ReduceMax/ReduceMin of a small constant.
template <typename Op> Attribute reduce(Op op, bool isMax) {
  auto in = getConstantDense(op.getInput());
  auto type = cast<RankedTensorType>(op.getType());
  std::optional<Elements> e = elementsOf(in);
  if (!e || !smallStatic(type) || in.getNumElements() == 0)
    return {};
  ArrayRef<int64_t> inShape =
      cast<ShapedType>(op.getInput().getType()).getShape();
  SmallVector<int64_t> axes(op.getAxes());
  if (axes.empty())
    for (int64_t d = 0; d < (int64_t)inShape.size(); ++d)
      axes.push_back(d);
  SmallVector<int64_t> kept(inShape);
  for (int64_t a : axes)
    kept[a] = 1;
  int64_t count = 1;
  for (int64_t k : kept)
    count *= k;
  if (count != type.getNumElements())
    return {};
  Elements out;
  out.isFloat = e->isFloat;
  SmallVector<bool> seen(count, false);
  out.floats.resize(e->isFloat ? count : 0);
  out.ints.resize(e->isFloat ? 0 : count);
  for (int64_t linear = 0, n = in.getNumElements(); linear < n; ++linear) {
    int64_t rest = linear, dst = 0, stride = 1;
    for (int64_t d = (int64_t)inShape.size() - 1; d >= 0; --d) {
      int64_t idx = rest % inShape[d];
      rest /= inShape[d];
      dst += (kept[d] == 1 ? 0 : idx) * stride;
      stride *= kept[d];
    }
    if (e->isFloat) {
      double v = e->floats[linear];
      if (!seen[dst] || (isMax ? v > out.floats[dst] : v < out.floats[dst]) ||
          std::isnan(v))
        out.floats[dst] = v;
    } else {
      int64_t v = e->ints[linear];
      if (!seen[dst] || (isMax ? v > out.ints[dst] : v < out.ints[dst]))
        out.ints[dst] = v;
    }
    seen[dst] = true;
  }
  return makeDense(type, out);
}

/// Clip of a small constant to its (attribute) bounds.
Attribute clip(ClipOp op) {
  auto in = getConstantDense(op.getInput());
  auto type = cast<RankedTensorType>(op.getType());
  std::optional<Elements> e = elementsOf(in);
  if (!e)
    return {};
  std::optional<double> lo, hi;
  if (auto a = op.getMinAttr())
    lo = a.getValueAsDouble();
  if (auto a = op.getMaxAttr())
    hi = a.getValueAsDouble();
  for (double &v : e->floats)
    v = std::min(std::max(v, lo.value_or(v)), hi.value_or(v));
  for (int64_t &v : e->ints) {
    if (lo && (double)v < *lo)
      v = (int64_t)std::ceil(*lo);
    if (hi && (double)v > *hi)
      v = (int64_t)std::floor(*hi);
  }
  return makeDense(type, *e);
}

/// The pieces of a split small constant.
SmallVector<Attribute> split(SplitOp op) {
  auto in = getConstantDense(op.getInput());
  std::optional<Elements> e = elementsOf(in);
  if (!e)
    return {};
  ArrayRef<int64_t> inShape =
      cast<ShapedType>(op.getInput().getType()).getShape();
  int64_t axis = op.getAxis();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= inShape[d];
  for (int64_t d = axis + 1; d < (int64_t)inShape.size(); ++d)
    inner *= inShape[d];
  SmallVector<Attribute> pieces;
  int64_t offset = 0;
  for (auto [result, size] : llvm::zip(op.getResults(), op.getSizes())) {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    if (!type || !type.hasStaticShape())
      return {};
    Elements piece;
    piece.isFloat = e->isFloat;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k = 0; k < size * inner; ++k) {
        int64_t src = (o * inShape[axis] + offset) * inner + k;
        if (e->isFloat)
          piece.floats.push_back(e->floats[src]);
        else
          piece.ints.push_back(e->ints[src]);
      }
    offset += size;
    pieces.push_back(makeDense(type, piece));
  }
  return pieces;
}

} // namespace

SmallVector<Attribute> evaluateShapeConstants(Operation *op) {
  if (op->getNumResults() == 0 ||
      llvm::any_of(op->getResultTypes(),
                   [](Type t) { return !smallStatic(t); }) ||
      llvm::any_of(op->getOperands(),
                   [](Value v) { return !getConstantDense(v); }))
    return {};
  if (auto s = dyn_cast<SplitOp>(op))
    return split(s);
  if (op->getNumResults() != 1)
    return {};
  Attribute value = llvm::TypeSwitch<Operation *, Attribute>(op)
      .Case([](AbsOp o) {
        return unary(
            o, [](double v) { return std::fabs(v); },
            [](int64_t v) { return v < 0 ? -v : v; });
      })
      .Case([](SignOp o) {
        return unary(
            o, [](double v) { return (double)((v > 0) - (v < 0)); },
            [](int64_t v) { return (int64_t)((v > 0) - (v < 0)); });
      })
      .Case([](NotOp o) {
        return unary(o, nullptr, [](int64_t v) { return (int64_t)(v == 0); });
      })
      .Case([](FloorOp o) {
        return unary(o, [](double v) { return std::floor(v); }, nullptr);
      })
      .Case([](CeilOp o) {
        return unary(o, [](double v) { return std::ceil(v); }, nullptr);
      })
      .Case([](ReluOp o) {
        return unary(
            o, [](double v) { return v > 0 ? v : 0.0; },
            [](int64_t v) { return v > 0 ? v : (int64_t)0; });
      })
      .Case([](RoundOp o) {
        return unary(o, [](double v) { return std::nearbyint(v); }, nullptr);
      })
      .Case([](SqrtOp o) {
        return unary(o, [](double v) { return std::sqrt(v); }, nullptr);
      })
      .Case([](TileOp o) { return tile(o); })
      .Case([](ReduceMaxOp o) { return reduce(o, true); })
      .Case([](ReduceMinOp o) { return reduce(o, false); })
      .Case([](ClipOp o) { return clip(o); })
      .Default([](Operation *) { return Attribute(); });
  if (!value)
    return {};
  return {value};
}

} // namespace kiln::onnx_import
