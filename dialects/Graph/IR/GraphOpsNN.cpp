//===- GraphOpsNN.cpp - convolution, normalization, pooling, quantized ops
//--===//
//
// Verifiers and result-type inference of the graph ops built around a
// window or a channel: matmul, convolution, normalization, pooling and the
// quantized forms of conv and matmul.
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
// Helpers
//===----------------------------------------------------------------------===//

/// `auto_pad` is NOTSET, or SAME_* with all-zero explicit pads.
static LogicalResult verifyAutoPad(Operation *op, AutoPad autoPad,
                                   ArrayRef<int64_t> pads) {
  if (autoPad != AutoPad::NotSet &&
      llvm::any_of(pads, [](int64_t p) { return p != 0; }))
    return op->emitOpError("expected zero pads with auto_pad ")
           << stringifyAutoPad(autoPad);
  return success();
}

/// Spatial output size with run-time SAME padding: ceil(in / stride).
static int64_t sameOutputSize(int64_t in, int64_t stride) {
  return ShapedType::isDynamic(in) ? in : (in + stride - 1) / stride;
}

//===----------------------------------------------------------------------===//
// Linear algebra and convolution
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::inferReturnTypes(MLIRContext * /*context*/,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  KILN_RANKED(lhs, adaptor.getLhs());
  KILN_RANKED(rhs, adaptor.getRhs());
  auto shape = matmulShape(lhs.getShape(), rhs.getShape());
  if (failed(shape))
    return emitOptionalError(location, "incompatible matmul operands ", lhs,
                             " x ", rhs);
  types.push_back(RankedTensorType::get(*shape, lhs.getElementType()));
  return success();
}
KILN_COMPATIBLE(MatMulOp)

LogicalResult GemmOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> location,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  KILN_VERIFY_ADAPTOR();
  KILN_RANKED(a, adaptor.getA());
  KILN_RANKED(b, adaptor.getB());
  if (a.getRank() != 2 || b.getRank() != 2)
    return emitOptionalError(location, "expected 2-D A and B, got ", a, " and ",
                             b);
  int64_t m = a.getDimSize(adaptor.getTransA() ? 1 : 0);
  int64_t ka = a.getDimSize(adaptor.getTransA() ? 0 : 1);
  int64_t kb = b.getDimSize(adaptor.getTransB() ? 1 : 0);
  int64_t n = b.getDimSize(adaptor.getTransB() ? 0 : 1);
  if (!ShapedType::isDynamic(ka) && !ShapedType::isDynamic(kb) && ka != kb)
    return emitOptionalError(location, "contraction dims differ: ", ka, " vs ",
                             kb);
  SmallVector<int64_t> shape{m, n};
  if (Value c = adaptor.getC()) {
    KILN_RANKED(ct, c);
    if (!isUnidirectionalBroadcastable(ct.getShape(), shape))
      return emitOptionalError(location, "C ", ct,
                               " does not broadcast to [M, N]");
  }
  types.push_back(RankedTensorType::get(shape, a.getElementType()));
  return success();
}
KILN_COMPATIBLE(GemmOp)

LogicalResult GemmOp::verify() {
  if (getA().getType().getRank() != 2 || getB().getType().getRank() != 2)
    return emitOpError() << "expected 2-D A and B, got " << getA().getType()
                         << " and " << getB().getType();
  if (Value c = getC())
    if (cast<RankedTensorType>(c.getType()).getRank() > 2)
      return emitOpError() << "expected C of rank <= 2, got " << c.getType();
  return success();
}

/// Shared checks of conv-like attributes for `n` spatial dims.
static LogicalResult verifyWindowAttrs(Operation *op, int64_t n,
                                       ArrayRef<int64_t> strides,
                                       ArrayRef<int64_t> pads,
                                       ArrayRef<int64_t> dilations) {
  if ((int64_t)strides.size() != n || (int64_t)dilations.size() != n ||
      (int64_t)pads.size() != 2 * n)
    return op->emitOpError() << "expected " << n << " strides, " << n
                             << " dilations and " << 2 * n << " pads for " << n
                             << " spatial dims, got " << strides.size() << ", "
                             << dilations.size() << " and " << pads.size();
  if (llvm::any_of(strides, [](int64_t s) { return s <= 0; }) ||
      llvm::any_of(dilations, [](int64_t d) { return d <= 0; }))
    return op->emitOpError("expected positive strides and dilations");
  if (llvm::any_of(pads, [](int64_t p) { return p < 0; }))
    return op->emitOpError("expected non-negative pads");
  return success();
}

/// The NCHW view of an NHWC (channels_last) rank-4 type: channels_last ops
/// are checked and shaped in NCHW terms.
static RankedTensorType channelsFirst(RankedTensorType t) {
  ArrayRef<int64_t> s = t.getShape();
  return t.clone({s[0], s[3], s[1], s[2]});
}

static RankedTensorType channelsLast(RankedTensorType t) {
  ArrayRef<int64_t> s = t.getShape();
  return t.clone({s[0], s[2], s[3], s[1]});
}

LogicalResult ConvOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> location,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  KILN_VERIFY_ADAPTOR();
  KILN_RANKED(input, adaptor.getInput());
  KILN_RANKED(filter, adaptor.getFilter());
  if (input.getRank() < 3 || filter.getRank() != input.getRank())
    return emitOptionalError(
        location, "expected input and filter of equal rank >= 3, got ", input,
        " and ", filter);
  if (adaptor.getChannelsLast()) {
    if (input.getRank() != 4 || adaptor.getAutoPad() != AutoPad::NotSet)
      return emitOptionalError(location,
                               "channels_last convolutions are 2-D "
                               "with explicit pads, got ",
                               input);
    auto shape = convShape(channelsFirst(input).getShape(),
                           channelsFirst(filter).getShape(),
                           filter.getDimSize(0), adaptor.getStrides(),
                           adaptor.getPads(), adaptor.getDilations());
    if (failed(shape))
      return emitOptionalError(location, "convolution window does not fit ",
                               input, " with filter ", filter);
    types.push_back(
        channelsLast(RankedTensorType::get(*shape, input.getElementType())));
    return success();
  }
  if (adaptor.getAutoPad() != AutoPad::NotSet) {
    // Run-time SAME padding: ceil(in / stride) whatever the window.
    if (input.getRank() < 3 || filter.getRank() != input.getRank() ||
        (int64_t)adaptor.getStrides().size() != input.getRank() - 2)
      return emitOptionalError(location, "window attributes do not match ",
                               input);
    SmallVector<int64_t> shape{input.getDimSize(0), filter.getDimSize(0)};
    for (int64_t i = 2; i < input.getRank(); ++i)
      shape.push_back(
          sameOutputSize(input.getDimSize(i), adaptor.getStrides()[i - 2]));
    types.push_back(RankedTensorType::get(shape, input.getElementType()));
    return success();
  }
  auto shape = convShape(input.getShape(), filter.getShape(),
                         filter.getDimSize(0), adaptor.getStrides(),
                         adaptor.getPads(), adaptor.getDilations());
  if (failed(shape))
    return emitOptionalError(location, "convolution window does not fit ",
                             input, " with filter ", filter);
  types.push_back(RankedTensorType::get(*shape, input.getElementType()));
  return success();
}
KILN_COMPATIBLE(ConvOp)

/// Channel checks shared by conv and conv_integer / qlinear_conv.
static LogicalResult verifyConvChannels(Operation *op, RankedTensorType input,
                                        RankedTensorType filter,
                                        int64_t group) {
  // (I64Attr getters return uint64_t; callers pass through int64_t.)
  if (group < 1)
    return op->emitOpError() << "expected group >= 1, got " << group;
  int64_t c = input.getDimSize(1), fc = filter.getDimSize(1),
          m = filter.getDimSize(0);
  if (!ShapedType::isDynamic(c) && !ShapedType::isDynamic(fc) &&
      c != fc * group)
    return op->emitOpError()
           << "expected input channels (" << c << ") = filter channels (" << fc
           << ") x group (" << group << ")";
  if (!ShapedType::isDynamic(m) && m % group != 0)
    return op->emitOpError() << "expected output channels (" << m
                             << ") divisible by group (" << group << ")";
  return success();
}

LogicalResult ConvOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto filter = cast<RankedTensorType>(getFilter().getType());
  if (input.getRank() < 3 || filter.getRank() != input.getRank())
    return emitOpError() << "expected input and filter of equal rank >= 3, got "
                         << input << " and " << filter;
  if (getChannelsLast()) {
    // Any group count (verifyConvChannels checks the channels).
    int64_t group = getGroup();
    if (input.getRank() != 4 || getAutoPad() != AutoPad::NotSet ||
        !input.hasStaticShape() || !filter.hasStaticShape())
      return emitOpError() << "expected a static 2-D convolution with "
                              "explicit pads for channels_last, got "
                           << input << " in " << group << " groups";
    input = channelsFirst(input);
    filter = channelsFirst(filter);
  }
  if (failed(verifyWindowAttrs(*this, input.getRank() - 2, getStrides(),
                               getPads(), getDilations())) ||
      failed(verifyAutoPad(*this, getAutoPad(), getPads())) ||
      failed(verifyConvChannels(*this, input, filter, getGroup())))
    return failure();
  if (Value bias = getBias()) {
    auto b = cast<RankedTensorType>(bias.getType());
    if (b.getRank() != 1 ||
        failed(verifyCompatibleShape(b.getShape(), {filter.getDimSize(0)})))
      return emitOpError() << "expected bias of shape [" << filter.getDimSize(0)
                           << "], got " << b;
  }
  return success();
}

LogicalResult ConvTransposeOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  KILN_VERIFY_ADAPTOR();
  KILN_RANKED(input, adaptor.getInput());
  KILN_RANKED(filter, adaptor.getFilter());
  int64_t n = input.getRank() - 2;
  ArrayRef<int64_t> strides = adaptor.getStrides(), pads = adaptor.getPads(),
                    dilations = adaptor.getDilations(),
                    outPad = adaptor.getOutputPadding();
  if (n < 1 || filter.getRank() != input.getRank() ||
      (int64_t)strides.size() != n || (int64_t)pads.size() != 2 * n ||
      (int64_t)dilations.size() != n || (int64_t)outPad.size() != n)
    return emitOptionalError(location, "attributes do not match ", n,
                             " spatial dims");
  auto tooLarge = [](ArrayRef<int64_t> values) {
    return llvm::any_of(values,
                        [](int64_t v) { return std::abs(v) > kMaxDimSize; });
  };
  int64_t group = adaptor.getGroup();
  if (tooLarge(strides) || tooLarge(pads) || tooLarge(dilations) ||
      tooLarge(outPad) || group < 1 || group > kMaxDimSize)
    return emitOptionalError(location, "window attributes out of range");
  int64_t m = filter.getDimSize(1);
  SmallVector<int64_t> shape{input.getDimSize(0),
                             ShapedType::isDynamic(m) ? m : m * group};
  for (int64_t i = 0; i < n; ++i) {
    int64_t in = input.getDimSize(i + 2), k = filter.getDimSize(i + 2);
    if (ShapedType::isDynamic(in) || ShapedType::isDynamic(k)) {
      shape.push_back(kDynamic);
      continue;
    }
    int64_t out = strides[i] * (in - 1) + outPad[i] + (k - 1) * dilations[i] +
                  1 - pads[i] - pads[i + n];
    if (out <= 0)
      return emitOptionalError(
          location, "non-positive output size along spatial dim ", i);
    shape.push_back(out);
  }
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}
KILN_COMPATIBLE(ConvTransposeOp)

LogicalResult ConvTransposeOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  if (input.getRank() < 3)
    return emitOpError() << "expected input of rank >= 3, got " << input;
  int64_t group = getGroup();
  if (group < 1)
    return emitOpError() << "expected group >= 1, got " << group;
  auto filter = cast<RankedTensorType>(getFilter().getType());
  if (filter.getRank() != input.getRank())
    return emitOpError() << "expected input and filter of equal rank, got "
                         << input << " and " << filter;
  int64_t c = input.getDimSize(1), fc = filter.getDimSize(0);
  if (!ShapedType::isDynamic(c) && !ShapedType::isDynamic(fc) && c != fc)
    return emitOpError() << "expected input channels (" << c
                         << ") = filter dim 0 (" << fc << ")";
  if (!ShapedType::isDynamic(fc) && fc % group != 0)
    return emitOpError() << "expected filter dim 0 (" << fc
                         << ") divisible by group (" << group << ")";
  if (Value bias = getBias()) {
    int64_t m = filter.getDimSize(1);
    auto b = cast<RankedTensorType>(bias.getType());
    if (b.getRank() != 1 ||
        failed(verifyCompatibleShape(
            b.getShape(), {ShapedType::isDynamic(m) ? m : m * group})))
      return emitOpError() << "expected bias of shape [output channels], got "
                           << b;
  }
  return verifyWindowAttrs(*this, input.getRank() - 2, getStrides(), getPads(),
                           getDilations());
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

static LogicalResult verifyPerChannel(Operation *op, RankedTensorType input,
                                      ValueRange params,
                                      bool channelsLast = false) {
  int64_t c = input.getRank() < 2 ? kDynamic
              : channelsLast      ? input.getShape().back()
                                  : input.getDimSize(1);
  for (Value p : params) {
    auto t = cast<RankedTensorType>(p.getType());
    if (t.getRank() != 1 || failed(verifyCompatibleShape(t.getShape(), {c})))
      return op->emitOpError() << "expected per-channel parameters of shape ["
                               << (ShapedType::isDynamic(c) ? std::string("?")
                                                            : std::to_string(c))
                               << "], got " << t;
  }
  return success();
}

#define KILN_SAME_AS_INPUT(OP)                                                 \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext * /*context*/, std::optional<Location> location,             \
      Adaptor adaptor, SmallVectorImpl<Type> &types) {                         \
    KILN_RANKED(t, adaptor.getInput());                                        \
    types.push_back(t);                                                        \
    return success();                                                          \
  }                                                                            \
  KILN_COMPATIBLE(OP)

KILN_SAME_AS_INPUT(BatchNormOp)
KILN_SAME_AS_INPUT(InstanceNormOp)
KILN_SAME_AS_INPUT(LayerNormOp)

LogicalResult BatchNormOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  if (input.getRank() < 2)
    return emitOpError() << "expected input of rank >= 2, got " << input;
  return verifyPerChannel(*this, input,
                          {getScale(), getBias(), getMean(), getVariance()},
                          getChannelsLast());
}

LogicalResult InstanceNormOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  if (input.getRank() < 3)
    return emitOpError() << "expected input of rank >= 3, got " << input;
  return verifyPerChannel(*this, input, {getScale(), getBias()});
}

LogicalResult LayerNormOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  if (failed(verifyAxis(*this, getAxis(), input.getRank())))
    return failure();
  ArrayRef<int64_t> normShape = input.getShape().drop_front(getAxis());
  for (Value p : {getScale(), getBias()}) {
    if (!p)
      continue;
    auto t = cast<RankedTensorType>(p.getType());
    if (t.getElementType() != input.getElementType())
      return emitOpError() << "expected scale/bias of the input's element type "
                           << input.getElementType() << ", got " << t;
    if (!isUnidirectionalBroadcastable(t.getShape(), normShape))
      return emitOpError() << "expected scale/bias broadcastable to the "
                              "normalized dims, got "
                           << t;
  }
  return success();
}

LogicalResult SoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getInput().getType().getRank());
}
LogicalResult LogSoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getInput().getType().getRank());
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

template <typename PoolOp> static LogicalResult verifyPool(PoolOp op) {
  auto input = cast<RankedTensorType>(op.getInput().getType());
  int64_t n = input.getRank() - 2;
  if (n < 1)
    return op.emitOpError() << "expected input of rank >= 3, got " << input;
  if ((int64_t)op.getKernelShape().size() != n)
    return op.emitOpError() << "expected " << n << " kernel dims, got "
                            << op.getKernelShape().size();
  if (llvm::any_of(op.getKernelShape(), [](int64_t k) { return k <= 0; }))
    return op.emitOpError("expected positive kernel dims");
  if (failed(verifyAutoPad(op, op.getAutoPad(), op.getPads())))
    return failure();
  if (op.getChannelsLast() &&
      (n != 2 || op.getAutoPad() != AutoPad::NotSet ||
       !input.hasStaticShape() || !isa<FloatType>(input.getElementType()) ||
       !isa<MaxPoolOp>(op.getOperation())))
    return op.emitOpError() << "expected static 2-D float max pooling with "
                               "explicit pads for channels_last, got "
                            << input;
  return verifyWindowAttrs(op, n, op.getStrides(), op.getPads(),
                           op.getDilations());
}

template <typename Adaptor>
static LogicalResult inferPool(std::optional<Location> location,
                               Adaptor adaptor, SmallVectorImpl<Type> &types) {
  KILN_RANKED(input, adaptor.getInput());
  bool last = adaptor.getChannelsLast();
  if (last && input.getRank() != 4)
    return emitOptionalError(location, "channels_last pooling is 2-D, got ",
                             input);
  if (last)
    input = channelsFirst(input);
  int64_t n = input.getRank() - 2;
  ArrayRef<int64_t> kernel = adaptor.getKernelShape(),
                    strides = adaptor.getStrides(), pads = adaptor.getPads(),
                    dilations = adaptor.getDilations();
  if (n < 1 || (int64_t)kernel.size() != n || (int64_t)strides.size() != n ||
      (int64_t)pads.size() != 2 * n || (int64_t)dilations.size() != n)
    return emitOptionalError(location, "window attributes do not match ",
                             input);
  SmallVector<int64_t> shape{input.getDimSize(0), input.getDimSize(1)};
  for (int64_t i = 0; i < n; ++i) {
    if (adaptor.getAutoPad() != AutoPad::NotSet) {
      shape.push_back(sameOutputSize(input.getDimSize(i + 2), strides[i]));
      continue;
    }
    auto size = windowOutputSize(input.getDimSize(i + 2), kernel[i], strides[i],
                                 pads[i], pads[i + n], dilations[i],
                                 adaptor.getCeilMode());
    if (failed(size))
      return emitOptionalError(location,
                               "pooling window does not fit spatial dim ", i,
                               " of ", input);
    shape.push_back(*size);
  }
  auto result = RankedTensorType::get(shape, input.getElementType());
  types.push_back(last ? channelsLast(result) : result);
  return success();
}

LogicalResult MaxPoolOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  KILN_VERIFY_ADAPTOR();
  return inferPool(location, adaptor, types);
}
KILN_COMPATIBLE(MaxPoolOp)
LogicalResult MaxPoolOp::verify() { return verifyPool(*this); }

LogicalResult AvgPoolOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  KILN_VERIFY_ADAPTOR();
  return inferPool(location, adaptor, types);
}
KILN_COMPATIBLE(AvgPoolOp)
LogicalResult AvgPoolOp::verify() { return verifyPool(*this); }

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

/// Scale/zero point must be scalars, or 1-D along `axis` for per-axis ops.
static LogicalResult verifyQuantParams(Operation *op, RankedTensorType input,
                                       Value scale, Value zeroPoint,
                                       int64_t axis) {
  auto s = cast<RankedTensorType>(scale.getType());
  auto z = cast<RankedTensorType>(zeroPoint.getType());
  if (s.getShape() != z.getShape() &&
      failed(verifyCompatibleShape(s.getShape(), z.getShape())))
    return op->emitOpError()
           << "expected scale and zero point of one shape, got " << s << " and "
           << z;
  if (s.getRank() > 1)
    return op->emitOpError() << "expected a scalar or 1-D scale, got " << s;
  if (s.getRank() == 1 && s.getDimSize(0) != 1) {
    if (axis < 0 || axis >= input.getRank())
      return op->emitOpError()
             << "expected axis in [0, " << input.getRank() << "), got " << axis;
    if (failed(verifyCompatibleShape(s.getShape(), {input.getDimSize(axis)})))
      return op->emitOpError() << "expected per-axis scale of size "
                               << input.getDimSize(axis) << ", got " << s;
  }
  return success();
}

/// The result of a quantized matmul must have the matmul shape.
static LogicalResult verifyMatMulResult(Operation *op, RankedTensorType lhs,
                                        RankedTensorType rhs,
                                        RankedTensorType result) {
  auto shape = matmulShape(lhs.getShape(), rhs.getShape());
  if (failed(shape))
    return op->emitOpError()
           << "incompatible matmul operands " << lhs << " x " << rhs;
  if (failed(verifyCompatibleShape(*shape, result.getShape())))
    return op->emitOpError()
           << "expected a result of the matmul shape, got " << result;
  return success();
}

/// The result of a quantized conv must have the conv shape.
static LogicalResult
verifyConvResult(Operation *op, RankedTensorType input, RankedTensorType filter,
                 ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                 ArrayRef<int64_t> dilations, RankedTensorType result) {
  auto shape = convShape(input.getShape(), filter.getShape(),
                         filter.getDimSize(0), strides, pads, dilations);
  if (failed(shape))
    return op->emitOpError() << "convolution window does not fit " << input;
  if (failed(verifyCompatibleShape(*shape, result.getShape())))
    return op->emitOpError()
           << "expected a result of the convolution shape, got " << result;
  return success();
}

LogicalResult QuantizeLinearOp::verify() {
  auto in = getInput().getType();
  auto out = getOutput().getType();
  if (failed(verifyCompatibleShape(in.getShape(), out.getShape())))
    return emitOpError("expected input and result of one shape");
  if (out.getElementType() != getZeroPoint().getType().getElementType())
    return emitOpError(
        "expected the result element type to be the zero point's");
  return verifyQuantParams(*this, in, getScale(), getZeroPoint(), getAxis());
}

LogicalResult DequantizeLinearOp::verify() {
  auto in = getInput().getType();
  auto out = getOutput().getType();
  if (failed(verifyCompatibleShape(in.getShape(), out.getShape())))
    return emitOpError("expected input and result of one shape");
  if (out.getElementType() != getScale().getType().getElementType())
    return emitOpError("expected the result element type to be the scale's");
  if (in.getElementType() != getZeroPoint().getType().getElementType())
    return emitOpError(
        "expected the zero point's element type to be the input's");
  return verifyQuantParams(*this, in, getScale(), getZeroPoint(), getAxis());
}

LogicalResult QLinearConvOp::verify() {
  auto input = getInput().getType();
  auto filter = getFilter().getType();
  if (input.getRank() < 3 || filter.getRank() != input.getRank())
    return emitOpError("expected input and filter of equal rank >= 3");
  if (failed(verifyWindowAttrs(*this, input.getRank() - 2, getStrides(),
                               getPads(), getDilations())) ||
      failed(verifyConvChannels(*this, input, filter, getGroup())))
    return failure();
  if (getOutput().getType().getElementType() !=
      getOutputZeroPoint().getType().getElementType())
    return emitOpError(
        "expected the result element type to be the output zero point's");
  if (Value bias = getBias()) {
    auto b = cast<RankedTensorType>(bias.getType());
    if (b.getRank() != 1 ||
        failed(verifyCompatibleShape(b.getShape(), {filter.getDimSize(0)})))
      return emitOpError() << "expected bias of shape [" << filter.getDimSize(0)
                           << "], got " << b;
  }
  return verifyConvResult(*this, input, filter, getStrides(), getPads(),
                          getDilations(),
                          cast<RankedTensorType>(getOutput().getType()));
}

LogicalResult QLinearMatMulOp::verify() {
  if (getOutput().getType().getElementType() !=
      getOutputZeroPoint().getType().getElementType())
    return emitOpError(
        "expected the result element type to be the output zero point's");
  return verifyMatMulResult(*this, getLhs().getType(), getRhs().getType(),
                            getOutput().getType());
}

LogicalResult MatMulIntegerOp::verify() {
  return verifyMatMulResult(*this, getLhs().getType(), getRhs().getType(),
                            cast<RankedTensorType>(getOutput().getType()));
}

LogicalResult ConvIntegerOp::verify() {
  auto input = getInput().getType();
  auto filter = getFilter().getType();
  if (input.getRank() < 3 || filter.getRank() != input.getRank())
    return emitOpError("expected input and filter of equal rank >= 3");
  if (failed(verifyWindowAttrs(*this, input.getRank() - 2, getStrides(),
                               getPads(), getDilations())) ||
      failed(verifyConvChannels(*this, input, filter, getGroup())))
    return failure();
  return verifyConvResult(*this, input, filter, getStrides(), getPads(),
                          getDilations(),
                          cast<RankedTensorType>(getOutput().getType()));
}
