//===- GraphOpsTensor.cpp - shape and data movement ops
//---------------------===//
//
// Verifiers and result-type inference of the graph ops that move, gather,
// scatter, pad, resize or reshape data.
//
//===----------------------------------------------------------------------===//
#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Graph/IR/GraphOpsHelpers.h"
#include "dialects/Graph/IR/ShapeUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"

using namespace mlir;
using namespace kiln::graph;

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext * /*context*/,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  KILN_RANKED(input, adaptor.getInput());
  std::optional<SmallVector<int64_t>> values =
      getPartialShapeValues(adaptor.getShape());
  if (!values)
    return emitOptionalError(
        location, "reshape to a shape of unknown length is not supported");
  SmallVector<int64_t> shape;
  int64_t inferIndex = -1;
  bool allKnown = true;
  for (auto [i, v] : llvm::enumerate(*values)) {
    if (ShapedType::isDynamic(v)) {
      allKnown = false;
      shape.push_back(kDynamic);
    } else if (v == -1) {
      if (inferIndex >= 0)
        return emitOptionalError(location, "more than one -1 in reshape shape");
      inferIndex = i;
      shape.push_back(kDynamic);
    } else if (v == 0 && !adaptor.getAllowzero()) {
      if ((int64_t)i >= input.getRank())
        return emitOptionalError(location, "0 in reshape shape at index ", i,
                                 " beyond the input rank ", input.getRank());
      shape.push_back(input.getDimSize(i));
    } else if (v < 0 || v > kMaxDimSize) {
      return emitOptionalError(location, "invalid reshape dim ", v);
    } else {
      shape.push_back(v);
    }
  }
  int64_t inCount = staticProduct(input.getShape());
  if (inferIndex >= 0 && allKnown) {
    SmallVector<int64_t> others(shape);
    others.erase(others.begin() + inferIndex);
    int64_t rest = staticProduct(others);
    if (!ShapedType::isDynamic(inCount) && !ShapedType::isDynamic(rest)) {
      if (rest == 0 || inCount % rest != 0)
        return emitOptionalError(location, "cannot reshape ", input,
                                 " with -1 in the shape: ", inCount,
                                 " elements do not divide by ", rest);
      shape[inferIndex] = inCount / rest;
    }
  }
  int64_t outCount = staticProduct(shape);
  if (!ShapedType::isDynamic(inCount) && !ShapedType::isDynamic(outCount) &&
      inCount != outCount)
    return emitOptionalError(location, "cannot reshape ", input, " (", inCount,
                             " elements) to ", outCount, " elements");
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}
KILN_COMPATIBLE(ReshapeOp)

LogicalResult FlattenOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  KILN_VERIFY_ADAPTOR();
  KILN_RANKED(input, adaptor.getInput());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis > input.getRank())
    return emitOptionalError(location, "flatten axis out of range");
  types.push_back(
      RankedTensorType::get({staticProduct(input.getShape().take_front(axis)),
                             staticProduct(input.getShape().drop_front(axis))},
                            input.getElementType()));
  return success();
}
KILN_COMPATIBLE(FlattenOp)

LogicalResult FlattenOp::verify() {
  int64_t rank = getInput().getType().getRank();
  int64_t axis = getAxis();
  if (axis < 0 || axis > rank)
    return emitOpError() << "expected axis in [0, " << rank << "], got "
                         << axis;
  return success();
}

static bool isPermutation(ArrayRef<int64_t> perm) {
  SmallVector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= (int64_t)perm.size() || seen[p])
      return false;
    seen[p] = true;
  }
  return true;
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  KILN_VERIFY_ADAPTOR();
  KILN_RANKED(input, adaptor.getInput());
  ArrayRef<int64_t> perm = adaptor.getPerm();
  if ((int64_t)perm.size() != input.getRank() || !isPermutation(perm))
    return emitOptionalError(location, "invalid permutation for ", input);
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(input.getDimSize(p));
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}
KILN_COMPATIBLE(TransposeOp)

LogicalResult TransposeOp::verify() {
  if ((int64_t)getPerm().size() != getInput().getType().getRank() ||
      !isPermutation(getPerm()))
    return emitOpError() << "expected a permutation of "
                         << getInput().getType().getRank() << " dims";
  return success();
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  KILN_VERIFY_ADAPTOR();
  KILN_RANKED(input, adaptor.getInput());
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < input.getRank(); ++i)
    if (!llvm::is_contained(adaptor.getAxes(), i))
      shape.push_back(input.getDimSize(i));
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}
KILN_COMPATIBLE(SqueezeOp)

LogicalResult SqueezeOp::verify() {
  auto input = getInput().getType();
  if (!isSortedUnique(getAxes()))
    return emitOpError("expected sorted, unique axes");
  for (int64_t a : getAxes()) {
    if (failed(verifyAxis(*this, a, input.getRank())))
      return failure();
    if (!input.isDynamicDim(a) && input.getDimSize(a) != 1)
      return emitOpError() << "cannot squeeze dim " << a << " of size "
                           << input.getDimSize(a);
  }
  return success();
}

LogicalResult UnsqueezeOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  KILN_VERIFY_ADAPTOR();
  KILN_RANKED(input, adaptor.getInput());
  ArrayRef<int64_t> axes = adaptor.getAxes();
  int64_t rank = input.getRank() + axes.size();
  SmallVector<int64_t> shape;
  int64_t next = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (llvm::is_contained(axes, i))
      shape.push_back(1);
    else if (next < input.getRank())
      shape.push_back(input.getDimSize(next++));
    else
      return emitOptionalError(location, "unsqueeze axes out of range");
  }
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}
KILN_COMPATIBLE(UnsqueezeOp)

LogicalResult UnsqueezeOp::verify() {
  int64_t rank = getInput().getType().getRank() + getAxes().size();
  if (!isSortedUnique(getAxes()))
    return emitOpError("expected sorted, unique axes");
  for (int64_t a : getAxes())
    if (failed(verifyAxis(*this, a, rank)))
      return failure();
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  KILN_VERIFY_ADAPTOR();
  if (adaptor.getInputs().empty())
    return emitOptionalError(location, "expected at least one input");
  KILN_RANKED(first, adaptor.getInputs().front());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= first.getRank())
    return emitOptionalError(location, "concat axis ", axis,
                             " out of range for rank ", first.getRank());
  SmallVector<int64_t> shape(first.getShape());
  for (Value v : adaptor.getInputs().drop_front()) {
    KILN_RANKED(t, v);
    if (t.getRank() != first.getRank() ||
        t.getElementType() != first.getElementType())
      return emitOptionalError(
          location, "concat inputs differ in rank or element type: ", first,
          " vs ", t);
    for (int64_t i = 0; i < t.getRank(); ++i) {
      int64_t d = t.getDimSize(i);
      if (i == axis) {
        shape[i] = ShapedType::isDynamic(shape[i]) || ShapedType::isDynamic(d)
                       ? kDynamic
                       : shape[i] + d;
      } else if (ShapedType::isDynamic(shape[i])) {
        shape[i] = d;
      } else if (!ShapedType::isDynamic(d) && d != shape[i]) {
        return emitOptionalError(location, "concat inputs differ in dim ", i,
                                 ": ", first, " vs ", t);
      }
    }
  }
  types.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}
KILN_COMPATIBLE(ConcatOp)

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError("expected at least one input");
  return verifyAxis(*this, getAxis(), getType().getRank());
}

LogicalResult SplitOp::inferReturnTypes(MLIRContext *context,
                                        std::optional<Location> location,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  KILN_VERIFY_ADAPTOR();
  KILN_RANKED(input, adaptor.getInput());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= input.getRank())
    return emitOptionalError(location, "split axis out of range");
  for (int64_t size : adaptor.getSizes()) {
    SmallVector<int64_t> shape(input.getShape());
    shape[axis] = size;
    types.push_back(RankedTensorType::get(shape, input.getElementType()));
  }
  return success();
}
KILN_COMPATIBLE(SplitOp)

LogicalResult SplitOp::verify() {
  auto input = getInput().getType();
  if (failed(verifyAxis(*this, getAxis(), input.getRank())))
    return failure();
  if (getSizes().size() != getOutputs().size())
    return emitOpError() << "expected " << getSizes().size() << " results, got "
                         << getOutputs().size();
  int64_t total = 0;
  for (int64_t s : getSizes()) {
    if (s < 0 || s > kMaxDimSize)
      return emitOpError() << "expected split sizes in [0, 2^40], got " << s;
    total += s;
  }
  int64_t dim = input.getDimSize(getAxis());
  if (!ShapedType::isDynamic(dim) && total != dim)
    return emitOpError() << "expected split sizes to add up to " << dim
                         << ", got " << total;
  return success();
}

/// Static length of a slice along one dim with ONNX clamping rules.
static int64_t sliceLength(int64_t dim, int64_t start, int64_t end,
                           int64_t step) {
  if (dim == 0)
    return 0;
  // A step longer than the dim picks at most one element; clamping it keeps
  // the arithmetic below in range.
  step = std::clamp<int64_t>(step, -(dim + 1), dim + 1);
  if (step > 0) {
    if (start < 0)
      start += dim;
    if (end < 0)
      end += dim;
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    return end > start ? (end - start + step - 1) / step : 0;
  }
  if (start < 0)
    start += dim;
  if (end < 0)
    end += dim;
  start = std::clamp<int64_t>(start, 0, dim - 1);
  end = std::clamp<int64_t>(end, -1, dim - 1);
  return start > end ? (start - end + (-step) - 1) / (-step) : 0;
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext * /*context*/,
                                        std::optional<Location> location,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  KILN_RANKED(input, adaptor.getInput());
  auto starts = getConstantInts(adaptor.getStarts());
  auto ends = getConstantInts(adaptor.getEnds());
  auto axes = getConstantInts(adaptor.getAxes());
  auto steps = getConstantInts(adaptor.getSteps());
  int64_t rank = input.getRank();
  SmallVector<int64_t> shape(input.getShape());
  if (!axes) {
    // Any dim may be sliced.
    types.push_back(RankedTensorType::get(SmallVector<int64_t>(rank, kDynamic),
                                          input.getElementType()));
    return success();
  }
  size_t n = axes->size();
  if ((starts && starts->size() != n) || (ends && ends->size() != n) ||
      (steps && steps->size() != n))
    return emitOptionalError(
        location, "slice starts, ends, axes and steps differ in length");
  SmallVector<bool> seen(rank, false);
  for (size_t i = 0; i < n; ++i) {
    int64_t axis = (*axes)[i] < 0 ? (*axes)[i] + rank : (*axes)[i];
    if (axis < 0 || axis >= rank || seen[axis])
      return emitOptionalError(location, "invalid or repeated slice axis ",
                               (*axes)[i], " for rank ", rank);
    seen[axis] = true;
    if (steps && (*steps)[i] == 0)
      return emitOptionalError(location, "slice step must not be 0");
    int64_t dim = input.getDimSize(axis);
    if (!starts || !ends || !steps || ShapedType::isDynamic(dim)) {
      // A full slice keeps a dynamic dim as it is.
      bool full = starts && ends && steps && (*starts)[i] == 0 &&
                  (*steps)[i] == 1 && (*ends)[i] >= (INT64_MAX >> 1);
      shape[axis] = full ? dim : kDynamic;
      continue;
    }
    shape[axis] = sliceLength(dim, (*starts)[i], (*ends)[i], (*steps)[i]);
  }
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}
KILN_COMPATIBLE(SliceOp)

LogicalResult GatherOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  KILN_VERIFY_ADAPTOR();
  KILN_RANKED(input, adaptor.getInput());
  KILN_RANKED(indices, adaptor.getIndices());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= input.getRank())
    return emitOptionalError(location, "gather axis out of range");
  SmallVector<int64_t> shape(input.getShape().take_front(axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, input.getShape().drop_front(axis + 1));
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}
KILN_COMPATIBLE(GatherOp)

LogicalResult GatherOp::verify() {
  return verifyAxis(*this, getAxis(), getInput().getType().getRank());
}

LogicalResult GatherElementsOp::inferReturnTypes(
    MLIRContext * /*context*/, std::optional<Location> location,
    Adaptor adaptor, SmallVectorImpl<Type> &types) {
  KILN_RANKED(input, adaptor.getInput());
  KILN_RANKED(indices, adaptor.getIndices());
  types.push_back(indices.clone(input.getElementType()));
  return success();
}
KILN_COMPATIBLE(GatherElementsOp)

LogicalResult GatherElementsOp::verify() {
  int64_t rank = getInput().getType().getRank();
  if (getIndices().getType().getRank() != rank)
    return emitOpError("expected indices of the input's rank");
  return verifyAxis(*this, getAxis(), rank);
}

/// Static dims must agree; a dynamic dim agrees with anything.
static bool dimsAgree(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

LogicalResult GatherNDOp::inferReturnTypes(MLIRContext * /*context*/,
                                           std::optional<Location> location,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  KILN_RANKED(input, adaptor.getInput());
  KILN_RANKED(indices, adaptor.getIndices());
  int64_t b = adaptor.getBatchDims();
  if (indices.getRank() < 1 || indices.isDynamicDim(indices.getRank() - 1))
    return emitOptionalError(location,
                             "expected indices whose last dim is static");
  int64_t k = indices.getShape().back();
  if (b < 0 || k < 1 || b + k > input.getRank())
    return emitOptionalError(location,
                             "expected batch_dims + index length <= "
                             "input rank, got ",
                             b, " + ", k, " > ", input.getRank());
  SmallVector<int64_t> shape(indices.getShape().drop_back());
  llvm::append_range(shape, input.getShape().drop_front(b + k));
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}
KILN_COMPATIBLE(GatherNDOp)

LogicalResult GatherNDOp::verify() {
  auto input = getInput().getType(), indices = getIndices().getType();
  int64_t b = getBatchDims();
  if (b < 0 || b >= std::min(input.getRank(), indices.getRank()))
    return emitOpError() << "expected batch_dims in [0, min(input rank, "
                            "indices rank)), got "
                         << b;
  for (int64_t d = 0; d < b; ++d)
    if (!dimsAgree(input.getDimSize(d), indices.getDimSize(d)))
      return emitOpError() << "expected batch dim " << d
                           << " of input and indices to match, got "
                           << input.getDimSize(d) << " and "
                           << indices.getDimSize(d);
  return success();
}

LogicalResult ScatterElementsOp::inferReturnTypes(
    MLIRContext * /*context*/, std::optional<Location> location,
    Adaptor adaptor, SmallVectorImpl<Type> &types) {
  KILN_RANKED(input, adaptor.getInput());
  types.push_back(input);
  return success();
}
KILN_COMPATIBLE(ScatterElementsOp)

LogicalResult ScatterElementsOp::verify() {
  auto input = getInput().getType(), indices = getIndices().getType(),
       updates = getUpdates().getType();
  int64_t rank = input.getRank();
  if (indices.getRank() != rank || updates.getRank() != rank)
    return emitOpError() << "expected indices and updates of the input's rank "
                         << rank << ", got " << indices.getRank() << " and "
                         << updates.getRank();
  for (int64_t d = 0; d < rank; ++d)
    if (!dimsAgree(indices.getDimSize(d), updates.getDimSize(d)))
      return emitOpError("expected indices and updates of one shape");
  if (failed(verifyAxis(*this, getAxis(), rank)))
    return failure();
  for (int64_t d = 0; d < rank; ++d)
    if (d != int64_t(getAxis()) &&
        !ShapedType::isDynamic(input.getDimSize(d)) &&
        !ShapedType::isDynamic(indices.getDimSize(d)) &&
        indices.getDimSize(d) > input.getDimSize(d))
      return emitOpError() << "expected indices dim " << d
                           << " to be at most the input's, got "
                           << indices.getDimSize(d) << " > "
                           << input.getDimSize(d);
  return success();
}

LogicalResult ScatterNDOp::inferReturnTypes(MLIRContext * /*context*/,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  KILN_RANKED(input, adaptor.getInput());
  types.push_back(input);
  return success();
}
KILN_COMPATIBLE(ScatterNDOp)

LogicalResult ScatterNDOp::verify() {
  auto input = getInput().getType(), indices = getIndices().getType(),
       updates = getUpdates().getType();
  if (indices.getRank() < 1 || indices.isDynamicDim(indices.getRank() - 1))
    return emitOpError("expected indices whose last dim is static");
  int64_t k = indices.getShape().back(), r = input.getRank();
  if (k < 1 || k > r)
    return emitOpError() << "expected an index length in [1, " << r << "], got "
                         << k;
  SmallVector<int64_t> expected(indices.getShape().drop_back());
  llvm::append_range(expected, input.getShape().drop_front(k));
  if (updates.getRank() != (int64_t)expected.size() ||
      !llvm::all_of(llvm::seq<int64_t>(0, expected.size()), [&](int64_t d) {
        return dimsAgree(updates.getDimSize(d), expected[d]);
      }))
    return emitOpError() << "expected updates of shape indices.shape[:-1] + "
                            "input.shape[k:], got "
                         << updates;
  return success();
}

LogicalResult GridSampleOp::inferReturnTypes(MLIRContext * /*context*/,
                                             std::optional<Location> location,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  KILN_RANKED(input, adaptor.getInput());
  KILN_RANKED(grid, adaptor.getGrid());
  if (input.getRank() != 4 || grid.getRank() != 4)
    return emitOptionalError(location,
                             "expected a 4-D input and grid, got ranks ",
                             input.getRank(), " and ", grid.getRank());
  types.push_back(
      RankedTensorType::get({input.getDimSize(0), input.getDimSize(1),
                             grid.getDimSize(1), grid.getDimSize(2)},
                            input.getElementType()));
  return success();
}
KILN_COMPATIBLE(GridSampleOp)

LogicalResult GridSampleOp::verify() {
  auto input = getInput().getType(), grid = getGrid().getType();
  if (!dimsAgree(input.getDimSize(0), grid.getDimSize(0)))
    return emitOpError() << "expected input and grid of one batch size, got "
                         << input.getDimSize(0) << " and "
                         << grid.getDimSize(0);
  if (!dimsAgree(grid.getDimSize(3), 2))
    return emitOpError() << "expected grid positions of 2 coordinates, got "
                         << grid.getDimSize(3);
  return success();
}

LogicalResult ExpandOp::inferReturnTypes(MLIRContext * /*context*/,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  KILN_RANKED(input, adaptor.getInput());
  KILN_RANKED(shapeType, adaptor.getShape());
  SmallVector<int64_t> target;
  if (auto values = getPartialShapeValues(adaptor.getShape())) {
    target = *values;
    if (llvm::any_of(target, [](int64_t d) {
          return !ShapedType::isDynamic(d) && (d < 0 || d > kMaxDimSize);
        }))
      return emitOptionalError(location, "expand dim out of range");
  } else {
    return emitOptionalError(
        location, "expand to a shape of unknown length is not supported");
  }
  auto shape = broadcastShapes(input.getShape(), target);
  if (failed(shape))
    return emitOptionalError(location, input,
                             " does not broadcast to the expand shape");
  types.push_back(RankedTensorType::get(*shape, input.getElementType()));
  return success();
}
KILN_COMPATIBLE(ExpandOp)

LogicalResult TileOp::inferReturnTypes(MLIRContext * /*context*/,
                                       std::optional<Location> location,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  KILN_RANKED(input, adaptor.getInput());
  KILN_RANKED(repeatsType, adaptor.getRepeats());
  if (!repeatsType.isDynamicDim(0) &&
      repeatsType.getDimSize(0) != input.getRank())
    return emitOptionalError(location, "expected ", input.getRank(),
                             " repeats, got ", repeatsType.getDimSize(0));
  SmallVector<int64_t> shape(input.getRank(), kDynamic);
  if (auto repeats = getConstantInts(adaptor.getRepeats())) {
    if ((int64_t)repeats->size() != input.getRank())
      return emitOptionalError(location, "expected ", input.getRank(),
                               " repeats, got ", repeats->size());
    for (int64_t i = 0; i < input.getRank(); ++i) {
      int64_t r = (*repeats)[i];
      if (r < 0 || r > kMaxDimSize ||
          (!input.isDynamicDim(i) && r > 0 &&
           input.getDimSize(i) > kMaxDimSize / r))
        return emitOptionalError(location, "repeat count ", r, " out of range");
      shape[i] = input.isDynamicDim(i) ? (r == 0 ? 0 : kDynamic)
                                       : input.getDimSize(i) * r;
    }
  }
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}
KILN_COMPATIBLE(TileOp)

LogicalResult PadOp::inferReturnTypes(MLIRContext * /*context*/,
                                      std::optional<Location> location,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  KILN_RANKED(input, adaptor.getInput());
  int64_t rank = input.getRank();
  KILN_RANKED(padsType, adaptor.getPads());
  if (!padsType.isDynamicDim(0) && padsType.getDimSize(0) != 2 * rank)
    return emitOptionalError(location, "expected ", 2 * rank, " pads, got ",
                             padsType.getDimSize(0));
  SmallVector<int64_t> shape(rank, kDynamic);
  if (auto pads = getConstantInts(adaptor.getPads())) {
    if ((int64_t)pads->size() != 2 * rank)
      return emitOptionalError(location, "expected ", 2 * rank, " pads, got ",
                               pads->size());
    if (llvm::any_of(*pads,
                     [](int64_t p) { return std::abs(p) > kMaxDimSize; }))
      return emitOptionalError(location, "pad amount out of range");
    for (int64_t i = 0; i < rank; ++i) {
      if (input.isDynamicDim(i))
        continue;
      shape[i] = input.getDimSize(i) + (*pads)[i] + (*pads)[i + rank];
      if (shape[i] < 0)
        return emitOptionalError(location, "negative size after padding dim ",
                                 i);
    }
  }
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}
KILN_COMPATIBLE(PadOp)

LogicalResult ResizeOp::inferReturnTypes(MLIRContext * /*context*/,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  KILN_RANKED(input, adaptor.getInput());
  int64_t rank = input.getRank();
  SmallVector<int64_t> shape(rank, kDynamic);
  if (adaptor.getSizes()) {
    KILN_RANKED(sizesType, adaptor.getSizes());
    if (!sizesType.isDynamicDim(0) && sizesType.getDimSize(0) != rank)
      return emitOptionalError(location, "expected ", rank, " sizes, got ",
                               sizesType.getDimSize(0));
    if (auto sizes = getConstantInts(adaptor.getSizes())) {
      if ((int64_t)sizes->size() != rank)
        return emitOptionalError(location, "expected ", rank, " sizes");
      if (llvm::any_of(*sizes,
                       [](int64_t d) { return d < 0 || d > kMaxDimSize; }))
        return emitOptionalError(location, "resize size out of range");
      shape.assign(sizes->begin(), sizes->end());
    }
  } else if (auto scales = adaptor.getScales()) {
    if ((int64_t)scales->size() != rank)
      return emitOptionalError(location, "expected ", rank, " scales");
    for (int64_t i = 0; i < rank; ++i) {
      if (input.isDynamicDim(i))
        continue;
      double size = std::floor(input.getDimSize(i) * (double)(*scales)[i]);
      if (!(size >= 0 && size <= (double)kMaxDimSize))
        return emitOptionalError(location, "resized dim ", i, " out of range");
      shape[i] = (int64_t)size;
    }
  }
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}
KILN_COMPATIBLE(ResizeOp)

LogicalResult ResizeOp::verify() {
  if ((getSizes() != nullptr) == getScales().has_value())
    return emitOpError("expected exactly one of sizes and scales");
  if (auto scales = getScales())
    if (llvm::any_of(*scales, [](float s) { return !(s > 0.0f); }))
      return emitOpError("expected positive scales");
  return success();
}

LogicalResult DepthToSpaceOp::inferReturnTypes(MLIRContext *context,
                                               std::optional<Location> location,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &types) {
  KILN_VERIFY_ADAPTOR();
  KILN_RANKED(input, adaptor.getInput());
  int64_t b = adaptor.getBlocksize();
  if (input.getRank() != 4 || b <= 0)
    return emitOptionalError(location,
                             "expected a 4-D input and positive blocksize");
  auto mul = [](int64_t d, int64_t f) {
    return ShapedType::isDynamic(d) ? d : d * f;
  };
  int64_t c = input.getDimSize(1);
  if (!ShapedType::isDynamic(c) && c % (b * b) != 0)
    return emitOptionalError(location, "channels ", c,
                             " not divisible by blocksize^2");
  types.push_back(RankedTensorType::get(
      {input.getDimSize(0), ShapedType::isDynamic(c) ? c : c / (b * b),
       mul(input.getDimSize(2), b), mul(input.getDimSize(3), b)},
      input.getElementType()));
  return success();
}
KILN_COMPATIBLE(DepthToSpaceOp)

LogicalResult SpaceToDepthOp::inferReturnTypes(MLIRContext *context,
                                               std::optional<Location> location,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &types) {
  KILN_VERIFY_ADAPTOR();
  KILN_RANKED(input, adaptor.getInput());
  int64_t b = adaptor.getBlocksize();
  if (input.getRank() != 4 || b <= 0)
    return emitOptionalError(location,
                             "expected a 4-D input and positive blocksize");
  auto div = [&](int64_t d) -> int64_t {
    return ShapedType::isDynamic(d) ? d : d / b;
  };
  for (int i = 2; i < 4; ++i)
    if (!input.isDynamicDim(i) && input.getDimSize(i) % b != 0)
      return emitOptionalError(location, "spatial dim ", i,
                               " not divisible by blocksize");
  int64_t c = input.getDimSize(1);
  types.push_back(RankedTensorType::get(
      {input.getDimSize(0), ShapedType::isDynamic(c) ? c : c * b * b,
       div(input.getDimSize(2)), div(input.getDimSize(3))},
      input.getElementType()));
  return success();
}
KILN_COMPATIBLE(SpaceToDepthOp)

LogicalResult SpaceToDepthOp::verify() {
  int64_t blocksize = getBlocksize();
  if (blocksize <= 0)
    return emitOpError() << "expected a positive blocksize, got " << blocksize;
  return success();
}

LogicalResult ShapeOp::inferReturnTypes(MLIRContext *context,
                                        std::optional<Location> location,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  KILN_RANKED(input, adaptor.getInput());
  auto [s, e] =
      shapeOpRange(input.getRank(), adaptor.getStart(), adaptor.getEnd());
  types.push_back(
      RankedTensorType::get({e - s}, IntegerType::get(context, 64)));
  return success();
}
KILN_COMPATIBLE(ShapeOp)

LogicalResult SizeOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> /*location*/,
                                       Adaptor /*adaptor*/,
                                       SmallVectorImpl<Type> &types) {
  types.push_back(RankedTensorType::get({}, IntegerType::get(context, 64)));
  return success();
}

LogicalResult ConstantOfShapeOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  KILN_VERIFY_ADAPTOR();
  KILN_RANKED(shapeType, adaptor.getShape());
  Type elementType = adaptor.getValue().getElementType();
  auto values = getPartialShapeValues(adaptor.getShape());
  if (!values)
    return emitOptionalError(
        location,
        "constant_of_shape with a shape of unknown length is not supported");
  if (llvm::any_of(*values, [](int64_t d) {
        return !ShapedType::isDynamic(d) && (d < 0 || d > kMaxDimSize);
      }))
    return emitOptionalError(location, "constant_of_shape dim out of range");
  types.push_back(RankedTensorType::get(*values, elementType));
  return success();
}
KILN_COMPATIBLE(ConstantOfShapeOp)

LogicalResult ConstantOfShapeOp::verify() {
  if (getValue().getNumElements() != 1)
    return emitOpError() << "expected a one-element value, got "
                         << getValue().getNumElements() << " elements";
  return success();
}

LogicalResult RangeOp::inferReturnTypes(MLIRContext * /*context*/,
                                        std::optional<Location> location,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  KILN_RANKED(start, adaptor.getStart());
  int64_t length = kDynamic;
  DenseElementsAttr s = getConstantDense(adaptor.getStart());
  DenseElementsAttr l = getConstantDense(adaptor.getLimit());
  DenseElementsAttr d = getConstantDense(adaptor.getDelta());
  if (s && l && d && s.getNumElements() == 1 && l.getNumElements() == 1 &&
      d.getNumElements() == 1) {
    auto toDouble = [](DenseElementsAttr a) -> double {
      if (isa<FloatType>(a.getElementType()))
        return (*a.getValues<APFloat>().begin()).convertToDouble();
      APInt v = *a.getValues<APInt>().begin();
      return a.getElementType().isUnsignedInteger() ? (double)v.getZExtValue()
                                                    : (double)v.getSExtValue();
    };
    double ds = toDouble(s), dl = toDouble(l), dd = toDouble(d);
    if (dd == 0)
      return emitOptionalError(location, "range delta must not be 0");
    double n = std::ceil((dl - ds) / dd);
    if (!(n < 1e12))
      return emitOptionalError(location, "range is too long");
    length = n > 0 ? (int64_t)n : 0;
  }
  types.push_back(RankedTensorType::get({length}, start.getElementType()));
  return success();
}
KILN_COMPATIBLE(RangeOp)

LogicalResult RangeOp::verify() {
  if (getStart().getType().getRank() != 0)
    return emitOpError("expected scalar (rank 0) start, limit and delta");
  return success();
}
