//===- ShapeUtils.cpp - shape arithmetic shared by ops and importer -------===//
#include "dialects/Graph/IR/ShapeUtils.h"

#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace kiln::graph {

FailureOr<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a,
                                                ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == 1)
      out[i] = db;
    else if (db == 1)
      out[i] = da;
    else if (ShapedType::isDynamic(da))
      out[i] = db;
    else if (ShapedType::isDynamic(db) || da == db)
      out[i] = da;
    else
      return failure();
  }
  return out;
}

bool isUnidirectionalBroadcastable(ArrayRef<int64_t> from,
                                   ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  size_t off = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i) {
    int64_t f = from[i], t = to[i + off];
    if (f == 1 || f == t || ShapedType::isDynamic(f) ||
        ShapedType::isDynamic(t))
      continue;
    return false;
  }
  return true;
}

DenseElementsAttr getConstantDense(Value v) {
  if (!v)
    return {};
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return {};
  return dyn_cast<DenseElementsAttr>(attr);
}

std::optional<SmallVector<int64_t>> getConstantInts(Value v) {
  DenseElementsAttr dense = getConstantDense(v);
  if (!dense || !dense.getElementType().isInteger())
    return std::nullopt;
  SmallVector<int64_t> values;
  values.reserve(dense.getNumElements());
  bool isUnsigned = dense.getElementType().isUnsignedInteger();
  for (const APInt &value : dense.getValues<APInt>())
    values.push_back(isUnsigned ? (int64_t)value.getZExtValue()
                                : value.getSExtValue());
  return values;
}

std::optional<SmallVector<int64_t>> getPartialShapeValues(Value v) {
  if (auto values = getConstantInts(v))
    return values;
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || type.getRank() != 1 || type.isDynamicDim(0))
    return std::nullopt;
  SmallVector<int64_t> out;
  if (auto concat = v.getDefiningOp<ConcatOp>()) {
    for (Value piece : concat.getInputs()) {
      auto part = getPartialShapeValues(piece);
      if (!part)
        return std::nullopt;
      llvm::append_range(out, *part);
    }
    return out;
  }
  out.assign(type.getDimSize(0), kDynamic);
  return out;
}

FailureOr<int64_t> windowOutputSize(int64_t in, int64_t kernel, int64_t stride,
                                    int64_t padBegin, int64_t padEnd,
                                    int64_t dilation, bool ceilMode) {
  if (ShapedType::isDynamic(in) || ShapedType::isDynamic(kernel))
    return kDynamic;
  if (stride <= 0 || dilation <= 0 || kernel < 0 || stride > kMaxDimSize ||
      dilation > kMaxDimSize || kernel > kMaxDimSize || in > kMaxDimSize ||
      std::abs(padBegin) > kMaxDimSize || std::abs(padEnd) > kMaxDimSize)
    return failure();
  int64_t span = dilation * (kernel - 1) + 1;
  int64_t avail = in + padBegin + padEnd - span;
  if (avail < 0)
    return failure();
  int64_t out =
      ceilMode ? (avail + stride - 1) / stride + 1 : avail / stride + 1;
  // With ceil_mode, a window may not start in the end padding (ONNX >= 19
  // spelling of the rule PyTorch and ONNX Runtime apply).
  if (ceilMode && (out - 1) * stride >= in + padBegin)
    --out;
  return out;
}

FailureOr<SmallVector<int64_t>> matmulShape(ArrayRef<int64_t> lhs,
                                            ArrayRef<int64_t> rhs) {
  if (lhs.empty() || rhs.empty())
    return failure();
  SmallVector<int64_t> a(lhs), b(rhs);
  bool lhsVector = a.size() == 1, rhsVector = b.size() == 1;
  if (lhsVector)
    a.insert(a.begin(), 1);
  if (rhsVector)
    b.push_back(1);
  int64_t k1 = a.back(), k2 = b[b.size() - 2];
  if (!ShapedType::isDynamic(k1) && !ShapedType::isDynamic(k2) && k1 != k2)
    return failure();
  auto batch = broadcastShapes(ArrayRef<int64_t>(a).drop_back(2),
                               ArrayRef<int64_t>(b).drop_back(2));
  if (failed(batch))
    return failure();
  SmallVector<int64_t> shape = *batch;
  if (!lhsVector)
    shape.push_back(a[a.size() - 2]);
  if (!rhsVector)
    shape.push_back(b.back());
  return shape;
}

FailureOr<SmallVector<int64_t>>
convShape(ArrayRef<int64_t> input, ArrayRef<int64_t> filter,
          int64_t outChannels, ArrayRef<int64_t> strides,
          ArrayRef<int64_t> pads, ArrayRef<int64_t> dilations) {
  int64_t n = (int64_t)input.size() - 2;
  if (n < 1 || filter.size() != input.size() || (int64_t)strides.size() != n ||
      (int64_t)dilations.size() != n || (int64_t)pads.size() != 2 * n)
    return failure();
  SmallVector<int64_t> shape{input[0], outChannels};
  for (int64_t i = 0; i < n; ++i) {
    auto size = windowOutputSize(input[i + 2], filter[i + 2], strides[i],
                                 pads[i], pads[i + n], dilations[i],
                                 /*ceilMode=*/false);
    if (failed(size))
      return failure();
    shape.push_back(*size);
  }
  return shape;
}

std::pair<int64_t, int64_t> shapeOpRange(int64_t rank, int64_t start,
                                         std::optional<int64_t> end) {
  auto norm = [&](int64_t v) {
    return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank);
  };
  int64_t s = norm(start), e = end ? norm(*end) : rank;
  return {s, std::max(s, e)};
}

int64_t staticProduct(ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims) {
    // An overflowing product is as unknown as a dynamic one.
    if (ShapedType::isDynamic(d) || d < 0 || __builtin_mul_overflow(p, d, &p))
      return kDynamic;
  }
  return p;
}

bool areCompatibleTensorTypes(TypeRange l, TypeRange r) {
  if (l.size() != r.size())
    return false;
  for (auto [a, b] : llvm::zip(l, r)) {
    auto ta = dyn_cast<RankedTensorType>(a);
    auto tb = dyn_cast<RankedTensorType>(b);
    if (!ta || !tb || ta.getElementType() != tb.getElementType() ||
        failed(verifyCompatibleShape(ta.getShape(), tb.getShape())))
      return false;
  }
  return true;
}

} // namespace kiln::graph
