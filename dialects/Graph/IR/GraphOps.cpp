//===- GraphOps.cpp - verifiers and result-type inference of graph ops ----===//
//
// The op definitions, constants, elementwise ops and reductions; convolution,
// normalization, pooling and quantized ops are in GraphOpsNN.cpp, shape and
// data movement ops in GraphOpsTensor.cpp.
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

#define GET_OP_CLASSES
#include "dialects/Graph/IR/GraphOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Constants and elementwise
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext * /*context*/,
                                           std::optional<Location> location,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  if (!adaptor.getValue())
    return emitOptionalError(location, "expected a value attribute");
  types.push_back(adaptor.getValue().getType());
  return success();
}

LogicalResult ConstantOp::verify() {
  if (getValue().getType() != getType())
    return emitOpError() << "expected the result type to be the value's type "
                         << getValue().getType() << ", got " << getType();
  return success();
}

LogicalResult IsNaNOp::inferReturnTypes(MLIRContext *context,
                                        std::optional<Location> location,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  KILN_RANKED(t, adaptor.getInput());
  types.push_back(t.clone(IntegerType::get(context, 1)));
  return success();
}

LogicalResult IsInfOp::inferReturnTypes(MLIRContext *context,
                                        std::optional<Location> location,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  KILN_RANKED(t, adaptor.getInput());
  types.push_back(t.clone(IntegerType::get(context, 1)));
  return success();
}

LogicalResult CastOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getOutput().getType());
  if (failed(verifyCompatibleShape(in.getShape(), out.getShape())))
    return emitOpError() << "expected input and result shapes to match, got "
                         << in << " and " << out;
  return success();
}

/// Result type of a broadcasting op with the given result element type.
static LogicalResult inferBroadcast(std::optional<Location> location,
                                    ArrayRef<Value> operands, Type elementType,
                                    SmallVectorImpl<Type> &types) {
  SmallVector<int64_t> shape;
  for (Value v : operands) {
    KILN_RANKED(t, v);
    auto result = broadcastShapes(shape, t.getShape());
    if (failed(result)) {
      std::string types;
      llvm::raw_string_ostream os(types);
      llvm::interleave(
          operands, os, [&](Value o) { os << o.getType(); }, " vs ");
      return emitOptionalError(location,
                               "operand shapes are not broadcastable: ", types);
    }
    shape = *result;
  }
  if (!elementType)
    elementType =
        cast<RankedTensorType>(operands.front().getType()).getElementType();
  types.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

#define KILN_BROADCAST_OP(OP, BOOL_RESULT)                                     \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext *context, std::optional<Location> location, Adaptor adaptor, \
      SmallVectorImpl<Type> &types) {                                          \
    return inferBroadcast(                                                     \
        location, {adaptor.getLhs(), adaptor.getRhs()},                        \
        BOOL_RESULT ? Type(IntegerType::get(context, 1)) : Type(), types);     \
  }                                                                            \
  KILN_COMPATIBLE(OP)

KILN_BROADCAST_OP(AddOp, false)
KILN_BROADCAST_OP(SubOp, false)
KILN_BROADCAST_OP(MulOp, false)
KILN_BROADCAST_OP(DivOp, false)
KILN_BROADCAST_OP(PowOp, false)
KILN_BROADCAST_OP(MaxOp, false)
KILN_BROADCAST_OP(MinOp, false)
KILN_BROADCAST_OP(ModOp, false)
KILN_BROADCAST_OP(BitShiftOp, false)
KILN_BROADCAST_OP(BitwiseAndOp, false)
KILN_BROADCAST_OP(BitwiseOrOp, false)
KILN_BROADCAST_OP(BitwiseXorOp, false)
KILN_BROADCAST_OP(EqualOp, true)
KILN_BROADCAST_OP(LessOp, true)
KILN_BROADCAST_OP(LessOrEqualOp, true)
KILN_BROADCAST_OP(GreaterOp, true)
KILN_BROADCAST_OP(GreaterOrEqualOp, true)
KILN_BROADCAST_OP(AndOp, true)
KILN_BROADCAST_OP(OrOp, true)
KILN_BROADCAST_OP(XorOp, true)

LogicalResult PReluOp::inferReturnTypes(MLIRContext * /*context*/,
                                        std::optional<Location> location,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  KILN_RANKED(input, adaptor.getInput());
  KILN_RANKED(slope, adaptor.getSlope());
  if (!isUnidirectionalBroadcastable(slope.getShape(), input.getShape()))
    return emitOptionalError(location, "slope ", slope,
                             " does not broadcast to input ", input);
  types.push_back(input);
  return success();
}
KILN_COMPATIBLE(PReluOp)

LogicalResult WhereOp::inferReturnTypes(MLIRContext * /*context*/,
                                        std::optional<Location> location,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  KILN_RANKED(lhs, adaptor.getLhs());
  return inferBroadcast(
      location, {adaptor.getCondition(), adaptor.getLhs(), adaptor.getRhs()},
      lhs.getElementType(), types);
}
KILN_COMPATIBLE(WhereOp)

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

static LogicalResult inferReduce(std::optional<Location> location,
                                 RankedTensorType input, ArrayRef<int64_t> axes,
                                 bool keepdims, SmallVectorImpl<Type> &types) {
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < input.getRank(); ++i) {
    if (!llvm::is_contained(axes, i))
      shape.push_back(input.getDimSize(i));
    else if (keepdims)
      shape.push_back(1);
  }
  for (int64_t a : axes)
    if (a < 0 || a >= input.getRank())
      return emitOptionalError(location, "reduction axis ", a,
                               " out of range for ", input);
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

#define KILN_REDUCE_OP(OP)                                                     \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext *context, std::optional<Location> location, Adaptor adaptor, \
      SmallVectorImpl<Type> &types) {                                          \
    KILN_VERIFY_ADAPTOR();                                                     \
    KILN_RANKED(input, adaptor.getInput());                                    \
    return inferReduce(location, input, adaptor.getAxes(),                     \
                       adaptor.getKeepdims(), types);                          \
  }                                                                            \
  KILN_COMPATIBLE(OP)                                                          \
  LogicalResult OP::verify() {                                                 \
    if (!isSortedUnique(getAxes()))                                            \
      return emitOpError("expected sorted, unique axes");                      \
    for (int64_t a : getAxes())                                                \
      if (failed(verifyAxis(*this, a, getInput().getType().getRank())))        \
        return failure();                                                      \
    return success();                                                          \
  }

KILN_REDUCE_OP(ReduceSumOp)
KILN_REDUCE_OP(ReduceMeanOp)
KILN_REDUCE_OP(ReduceMaxOp)
KILN_REDUCE_OP(ReduceMinOp)
KILN_REDUCE_OP(ReduceProdOp)
KILN_REDUCE_OP(ReduceL1Op)
KILN_REDUCE_OP(ReduceL2Op)
KILN_REDUCE_OP(ReduceLogSumOp)
KILN_REDUCE_OP(ReduceLogSumExpOp)
KILN_REDUCE_OP(ReduceSumSquareOp)

#define KILN_ARG_OP(OP)                                                        \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext *context, std::optional<Location> location, Adaptor adaptor, \
      SmallVectorImpl<Type> &types) {                                          \
    KILN_VERIFY_ADAPTOR();                                                     \
    KILN_RANKED(input, adaptor.getInput());                                    \
    int64_t axis = adaptor.getAxis();                                          \
    if (axis < 0 || axis >= input.getRank())                                   \
      return emitOptionalError(location, "axis out of range");                 \
    SmallVector<Type> reduced;                                                 \
    if (failed(inferReduce(location, input, {axis}, adaptor.getKeepdims(),     \
                           reduced)))                                          \
      return failure();                                                        \
    types.push_back(cast<RankedTensorType>(reduced[0])                         \
                        .clone(IntegerType::get(context, 64)));                \
    return success();                                                          \
  }                                                                            \
  KILN_COMPATIBLE(OP)                                                          \
  LogicalResult OP::verify() {                                                 \
    return verifyAxis(*this, getAxis(), getInput().getType().getRank());       \
  }

KILN_ARG_OP(ArgMaxOp)
KILN_ARG_OP(ArgMinOp)

LogicalResult CumSumOp::verify() {
  return verifyAxis(*this, getAxis(), getInput().getType().getRank());
}

LogicalResult TopKOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> location,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  KILN_VERIFY_ADAPTOR();
  KILN_RANKED(input, adaptor.getInput());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= input.getRank())
    return emitOptionalError(location, "axis out of range");
  SmallVector<int64_t> shape(input.getShape());
  int64_t k = adaptor.getK();
  if (k < 0 || k > kMaxDimSize)
    return emitOptionalError(location, "k out of range: ", k);
  shape[axis] = k;
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  types.push_back(RankedTensorType::get(shape, IntegerType::get(context, 64)));
  return success();
}
KILN_COMPATIBLE(TopKOp)

LogicalResult TopKOp::verify() {
  auto input = getInput().getType();
  if (failed(verifyAxis(*this, getAxis(), input.getRank())))
    return failure();
  int64_t dim = input.getDimSize(getAxis());
  int64_t k = getK();
  if (k < 0 || (!ShapedType::isDynamic(dim) && k > dim))
    return emitOpError() << "expected k in [0, " << dim << "], got " << k;
  return success();
}
