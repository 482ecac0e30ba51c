//===- Contraction.cpp - conv, matmul and gemm to linalg ------------------===//
//
// Anchor ops become named linalg ops (conv_2d_nchw_fchw, matmul,
// pooling_nchw_max, ...) so that later tiling and kernel generators can
// recognize them; the configurations upstream has no named op for (grouped
// 1-D/3-D convs, broadcast batch matmuls, 3-D pooling) become a
// linalg.generic with the same iteration structure.
//
//===----------------------------------------------------------------------===//
#include "codegen/GraphToLinalg/GraphToLinalg.h"
#include "codegen/GraphToLinalg/LoweringUtils.h"
#include "codegen/GraphToLinalg/WindowUtils.h"

#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace kiln::graph;
using namespace kiln::codegen::detail;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

static Type elemOf(Value v) { return getElementTypeOrSelf(v.getType()); }

Value kiln::codegen::detail::padWith(OpBuilder &b, Location loc, Value v,
                                     ArrayRef<OpFoldResult> low,
                                     ArrayRef<OpFoldResult> high,
                                     Value padValue) {
  bool any = false;
  for (OpFoldResult p : llvm::concat<const OpFoldResult>(low, high))
    any |= getConstantIntValue(p) != std::optional<int64_t>(0);
  if (!any)
    return v;
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    std::optional<int64_t> l = getConstantIntValue(low[d]);
    std::optional<int64_t> h = getConstantIntValue(high[d]);
    shape.push_back(type.isDynamicDim(d) || !l || !h
                        ? ShapedType::kDynamic
                        : type.getDimSize(d) + *l + *h);
  }
  return tensor::PadOp::create(b, loc, type.clone(shape), v, low, high,
                               padValue);
}

Value kiln::codegen::detail::padSpatial(OpBuilder &b, Location loc, Value v,
                                        ArrayRef<OpFoldResult> begin,
                                        ArrayRef<OpFoldResult> end,
                                        Value padValue) {
  SmallVector<OpFoldResult> low(2, b.getIndexAttr(0)),
      high(2, b.getIndexAttr(0));
  llvm::append_range(low, begin);
  llvm::append_range(high, end);
  return padWith(b, loc, v, low, high, padValue);
}

SmallVector<OpFoldResult>
kiln::codegen::detail::indexAttrs(OpBuilder &b, ArrayRef<int64_t> values) {
  return llvm::map_to_vector(
      values, [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); });
}

Value kiln::codegen::detail::windowOutSize(OpBuilder &b, Location loc, Value in,
                                           int64_t kernel, int64_t stride,
                                           int64_t padBegin, int64_t padEnd,
                                           int64_t dilation, bool ceilMode) {
  auto c = [&](int64_t v) { return createIndex(b, loc, v); };
  int64_t span = dilation * (kernel - 1) + 1;
  // avail = in + pads - span (+ stride - 1 to round up in ceil mode)
  int64_t offset = padBegin + padEnd - span + (ceilMode ? stride - 1 : 0);
  Value avail = arith::AddIOp::create(b, loc, in, c(offset));
  Value out = arith::AddIOp::create(
      b, loc, arith::FloorDivSIOp::create(b, loc, avail, c(stride)), c(1));
  if (!ceilMode)
    return out;
  // The last window may not start in the end padding.
  Value lastStart = arith::MulIOp::create(
      b, loc, arith::SubIOp::create(b, loc, out, c(1)), c(stride));
  Value limit = arith::AddIOp::create(b, loc, in, c(padBegin));
  Value tooFar = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                       lastStart, limit);
  return arith::SelectOp::create(b, loc, tooFar,
                                 arith::SubIOp::create(b, loc, out, c(1)), out);
}

/// The body of a contraction generic: acc + x * y, the operands (args 0, 1)
/// extended to the accumulator's type (arg 2; f32 for f16/bf16 products),
/// in order.
static Value multiplyAccumulate(OpBuilder &b, Location loc, ValueRange args) {
  Type acc = args[2].getType();
  Value x = convertFloat(b, loc, args[0], acc);
  Value y = convertFloat(b, loc, args[1], acc);
  return createAdd(b, loc, args[2], createMul(b, loc, x, y));
}

/// Adds the per-channel bias [M] to an [N, M, spatial...] tensor (or an
/// [N, spatial..., M] one when `channelsLast`).
static Value addChannelBias(OpBuilder &b, Location loc, Value x, Value bias,
                            RankedTensorType resultType,
                            bool channelsLast = false) {
  int64_t rank = resultType.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps = {
      b.getMultiDimIdentityMap(rank),
      AffineMap::get(
          rank, 0, {getAffineDimExpr(channelsLast ? rank - 1 : 1, ctx)}, ctx)};
  Value init =
      createEmpty(b, loc, getDims(b, loc, x), resultType.getElementType());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return buildGeneric(b, loc, {x, bias}, maps, init,
                      b.getMultiDimIdentityMap(rank), iterators,
                      [](OpBuilder &nb, Location nl, ValueRange args) {
                        return createAdd(nb, nl, args[0], args[1]);
                      });
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

/// A convolution as a generic over [N, G, Cg, S...] input, [G, F, Cg, K...]
/// filter and [N, G, F, O...] init: the form of every grouped or N-d conv
/// upstream has no named op for.
static Value buildGroupedConvGeneric(OpBuilder &b, Location loc, Value input,
                                     Value filter, Value init,
                                     ArrayRef<int64_t> strides,
                                     ArrayRef<int64_t> dilations) {
  MLIRContext *ctx = b.getContext();
  int64_t n = strides.size();
  // Dims: n, g, f, o_0..o_{n-1}, c, k_0..k_{n-1}.
  int64_t numDims = 4 + 2 * n;
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  int64_t cDim = 3 + n;
  SmallVector<AffineExpr> inExprs = {d(0), d(1), d(cDim)};
  SmallVector<AffineExpr> filterExprs = {d(1), d(2), d(cDim)};
  SmallVector<AffineExpr> outExprs = {d(0), d(1), d(2)};
  for (int64_t i = 0; i < n; ++i) {
    inExprs.push_back(d(3 + i) * strides[i] + d(4 + n + i) * dilations[i]);
    filterExprs.push_back(d(4 + n + i));
    outExprs.push_back(d(3 + i));
  }
  SmallVector<utils::IteratorType> iterators(3 + n,
                                             utils::IteratorType::parallel);
  iterators.append(1 + n, utils::IteratorType::reduction);
  SmallVector<AffineMap> maps = {AffineMap::get(numDims, 0, inExprs, ctx),
                                 AffineMap::get(numDims, 0, filterExprs, ctx)};
  return buildGeneric(b, loc, {input, filter}, maps, init,
                      AffineMap::get(numDims, 0, outExprs, ctx), iterators,
                      multiplyAccumulate);
}

/// `acc` (accumulated in f32 for f16/bf16 results) rounded to `elem`.
static Value narrowResult(OpBuilder &b, Location loc, Value acc, Type elem) {
  auto t = cast<RankedTensorType>(acc.getType());
  if (t.getElementType() == elem)
    return acc;
  SmallVector<OpFoldResult> sizes = getDims(b, loc, acc);
  Value out = createEmpty(b, loc, sizes, elem);
  unsigned rank = t.getRank();
  AffineMap id = b.getMultiDimIdentityMap(rank);
  return linalg::GenericOp::create(
             b, loc, TypeRange{out.getType()}, ValueRange{acc}, ValueRange{out},
             ArrayRef<AffineMap>{id, id},
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l,
                                       convertFloat(nb, l, args[0], elem));
             })
      .getResult(0);
}

/// Convolves an already padded [N, C, S...] input with an [M, C/group, K...]
/// filter into an [N, M, O...] tensor of sizes `outSizes`.
static Value emitConv(OpBuilder &b, Location loc, Value input, Value filter,
                      int64_t group, ArrayRef<int64_t> strides,
                      ArrayRef<int64_t> dilations,
                      ArrayRef<OpFoldResult> outSizes) {
  auto inType = cast<RankedTensorType>(input.getType());
  auto filterType = cast<RankedTensorType>(filter.getType());
  Type elem = inType.getElementType();
  int64_t n = inType.getRank() - 2;
  Value zero = createScalar(b, loc, elem, 0.0);
  auto stridesAttr = b.getI64TensorAttr(strides);
  auto dilationsAttr = b.getI64TensorAttr(dilations);

  if (group == 1 && n >= 1 && n <= 3) {
    // f16/bf16 convolutions accumulate in f32 (the named ops extend their
    // inputs to the output type), then round once.
    Type acc = getAccumulatorType(elem);
    Value init = createFilled(
        b, loc, outSizes, acc == elem ? zero : createScalar(b, loc, acc, 0.0));
    // Named storage: a TypeRange/ValueRange over a braced list dangles.
    SmallVector<Type> types = {init.getType()};
    SmallVector<Value> ins = {input, filter}, outs = {init};
    Value conv;
    if (n == 1)
      conv = linalg::Conv1DNcwFcwOp::create(b, loc, types, ins, outs,
                                            stridesAttr, dilationsAttr)
                 .getResult(0);
    else if (n == 2)
      conv = linalg::Conv2DNchwFchwOp::create(b, loc, types, ins, outs,
                                              stridesAttr, dilationsAttr)
                 .getResult(0);
    else
      conv = linalg::Conv3DNcdhwFcdhwOp::create(b, loc, types, ins, outs,
                                                stridesAttr, dilationsAttr)
                 .getResult(0);
    return narrowResult(b, loc, conv, elem);
  }

  int64_t channels = inType.getDimSize(1);
  bool depthwise = group > 1 && channels == group &&
                   filterType.getDimSize(0) == group &&
                   filterType.getDimSize(1) == 1;
  if (depthwise && n >= 1 && n <= 3) {
    // [C, 1, K...] -> [C, K...]
    SmallVector<ReassociationIndices> re = {{0, 1}};
    for (int64_t i = 0; i < n; ++i)
      re.push_back({2 + i});
    Value f = collapse(b, loc, filter, re);
    Value init = createFilled(b, loc, outSizes, zero);
    SmallVector<Type> types = {init.getType()};
    SmallVector<Value> ins = {input, f}, outs = {init};
    if (n == 1)
      return linalg::DepthwiseConv1DNcwCwOp::create(b, loc, types, ins, outs,
                                                    stridesAttr, dilationsAttr)
          .getResult(0);
    if (n == 2)
      return linalg::DepthwiseConv2DNchwChwOp::create(
                 b, loc, types, ins, outs, stridesAttr, dilationsAttr)
          .getResult(0);
    return linalg::DepthwiseConv3DNcdhwCdhwOp::create(
               b, loc, types, ins, outs, stridesAttr, dilationsAttr)
        .getResult(0);
  }

  // Grouped: split the channel dims into [G, C/G] and [G, M/G].
  SmallVector<OpFoldResult> inSizes = getDims(b, loc, input);
  SmallVector<OpFoldResult> fSizes = getDims(b, loc, filter);
  OpFoldResult g = b.getIndexAttr(group);
  auto divByGroup = [&](OpFoldResult s) -> OpFoldResult {
    if (std::optional<int64_t> c = getConstantIntValue(s))
      return b.getIndexAttr(*c / group);
    return arith::DivUIOp::create(b, loc, toValue(b, loc, s),
                                  createIndex(b, loc, group))
        .getResult();
  };
  SmallVector<ReassociationIndices> re = {{0}, {1, 2}};
  for (int64_t i = 0; i < n; ++i)
    re.push_back({3 + i});
  SmallVector<OpFoldResult> in5 = {inSizes[0], g, divByGroup(inSizes[1])};
  llvm::append_range(in5, ArrayRef(inSizes).drop_front(2));
  Value input5 = expandTo(b, loc, input, re, in5);
  SmallVector<ReassociationIndices> fre = {{0, 1}};
  for (int64_t i = 0; i < n + 1; ++i)
    fre.push_back({2 + i});
  SmallVector<OpFoldResult> f5 = {g, divByGroup(fSizes[0])};
  llvm::append_range(f5, ArrayRef(fSizes).drop_front(1));
  Value filter5 = expandTo(b, loc, filter, fre, f5);
  SmallVector<OpFoldResult> out5 = {outSizes[0], g, divByGroup(outSizes[1])};
  llvm::append_range(out5, outSizes.drop_front(2));
  // f16/bf16 accumulate in f32, then round once (as group 1).
  Type acc = getAccumulatorType(elem);
  Value init5 = createFilled(
      b, loc, out5, acc == elem ? zero : createScalar(b, loc, acc, 0.0));
  Value conv5;
  if (n == 2)
    conv5 = linalg::Conv2DNgchwGfchwOp::create(
                b, loc, TypeRange{init5.getType()}, ValueRange{input5, filter5},
                ValueRange{init5}, stridesAttr, dilationsAttr)
                .getResult(0);
  else
    conv5 = buildGroupedConvGeneric(b, loc, input5, filter5, init5, strides,
                                    dilations);
  return narrowResult(b, loc, collapse(b, loc, conv5, re), elem);
}

FailureOr<Value> kiln::codegen::detail::emitConvolution(
    OpBuilder &b, Location loc, Value input, Value filter,
    ArrayRef<int64_t> pads, ArrayRef<int64_t> strides,
    ArrayRef<int64_t> dilations, int64_t group, RankedTensorType resultType) {
  int64_t n = resultType.getRank() - 2;
  Value zero = createScalar(b, loc, resultType.getElementType(), 0.0);
  Value padded = padSpatial(b, loc, input, indexAttrs(b, pads.take_front(n)),
                            indexAttrs(b, pads.drop_front(n)), zero);
  SmallVector<OpFoldResult> outSizes = {getDim(b, loc, input, 0),
                                        getDim(b, loc, filter, 0)};
  auto filterType = cast<RankedTensorType>(filter.getType());
  for (int64_t i = 0; i < n; ++i) {
    if (!resultType.isDynamicDim(2 + i)) {
      outSizes.push_back(b.getIndexAttr(resultType.getDimSize(2 + i)));
      continue;
    }
    if (filterType.isDynamicDim(2 + i))
      return failure();
    outSizes.push_back(windowOutSize(
        b, loc, getDimValue(b, loc, input, 2 + i), filterType.getDimSize(2 + i),
        strides[i], pads[i], pads[n + i], dilations[i], /*ceilMode=*/false));
  }
  return emitConv(b, loc, padded, filter, group, strides, dilations, outSizes);
}

/// A channels_last (NHWC) 2-D convolution of static shape: the input
/// [N, H, W, C] padded along H and W, the filter [M, KH, KW, C/group], into
/// [N, OH, OW, M] (f16/bf16 accumulate in f32, like emitConv). Grouped
/// convs read the input as [N, H, W, G, C/G] and the filter as [G, M/G, KH,
/// KW, C/G] (linalg.conv_2d_nhwgc_gfhwc; reshapes of contiguous dims, so
/// views once bufferized) into [N, OH, OW, G, M/G].
static Value emitConvNhwc(OpBuilder &b, Location loc, Value input, Value filter,
                          int64_t group, ArrayRef<int64_t> pads,
                          ArrayRef<int64_t> strides,
                          ArrayRef<int64_t> dilations,
                          RankedTensorType resultType) {
  Type elem = resultType.getElementType();
  Type acc = getAccumulatorType(elem);
  Value padded = padWith(b, loc, input, indexAttrs(b, {0, pads[0], pads[1], 0}),
                         indexAttrs(b, {0, pads[2], pads[3], 0}),
                         createScalar(b, loc, elem, 0.0));
  auto filterType = cast<RankedTensorType>(filter.getType());
  bool depthwise = group > 1 && filterType.getDimSize(3) == 1 &&
                   resultType.getDimSize(3) ==
                       cast<RankedTensorType>(input.getType()).getDimSize(3);
  if (group > 1 && !depthwise) {
    auto pt = cast<RankedTensorType>(padded.getType());
    int64_t cg = pt.getDimSize(3) / group;
    int64_t mg = filterType.getDimSize(0) / group;
    Value in5 = expandTo(b, loc, padded, {{0}, {1}, {2}, {3, 4}},
                         indexAttrs(b, {pt.getDimSize(0), pt.getDimSize(1),
                                        pt.getDimSize(2), group, cg}));
    Value f5 = expandTo(b, loc, filter, {{0, 1}, {2}, {3}, {4}},
                        indexAttrs(b, {group, mg, filterType.getDimSize(1),
                                       filterType.getDimSize(2), cg}));
    Value init5 = createFilled(
        b, loc,
        indexAttrs(b, {resultType.getDimSize(0), resultType.getDimSize(1),
                       resultType.getDimSize(2), group, mg}),
        createScalar(b, loc, acc, 0.0));
    SmallVector<Type> types = {init5.getType()};
    SmallVector<Value> ins = {in5, f5}, outs = {init5};
    Value conv = linalg::Conv2DNhwgcGfhwcOp::create(
                     b, loc, types, ins, outs, b.getI64TensorAttr(strides),
                     b.getI64TensorAttr(dilations))
                     .getResult(0);
    return narrowResult(b, loc, collapse(b, loc, conv, {{0}, {1}, {2}, {3, 4}}),
                        elem);
  }
  Value init = createFilled(b, loc, indexAttrs(b, resultType.getShape()),
                            createScalar(b, loc, acc, 0.0));
  if (depthwise) {
    // Depthwise, [C, KH, KW, 1]: dims (n, oh, ow, c, kh, kw).
    MLIRContext *ctx = b.getContext();
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    SmallVector<utils::IteratorType> iterators(4,
                                               utils::IteratorType::parallel);
    iterators.append(2, utils::IteratorType::reduction);
    Value conv = buildGeneric(
        b, loc, {padded, filter},
        {AffineMap::get(6, 0,
                        {d(0), d(1) * strides[0] + d(4) * dilations[0],
                         d(2) * strides[1] + d(5) * dilations[1], d(3)},
                        ctx),
         AffineMap::get(6, 0, {d(3), d(4), d(5), getAffineConstantExpr(0, ctx)},
                        ctx)},
        init, AffineMap::get(6, 0, {d(0), d(1), d(2), d(3)}, ctx), iterators,
        multiplyAccumulate);
    return narrowResult(b, loc, conv, elem);
  }
  SmallVector<Type> types = {init.getType()};
  SmallVector<Value> ins = {padded, filter}, outs = {init};
  Value conv = linalg::Conv2DNhwcFhwcOp::create(b, loc, types, ins, outs,
                                                b.getI64TensorAttr(strides),
                                                b.getI64TensorAttr(dilations))
                   .getResult(0);
  return narrowResult(b, loc, conv, elem);
}

namespace {

struct ConvLowering : OpConversionPattern<ConvOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (std::optional<std::string> reason =
            kiln::codegen::getUnsupportedReason(op))
      return rewriter.notifyMatchFailure(op, *reason);
    Location loc = op.getLoc();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    if (op.getChannelsLast()) {
      Value conv = emitConvNhwc(
          rewriter, loc, adaptor.getInput(), adaptor.getFilter(), op.getGroup(),
          op.getPads(), op.getStrides(), op.getDilations(), resultType);
      if (Value bias = adaptor.getBias())
        conv = addChannelBias(rewriter, loc, conv, bias, resultType,
                              /*channelsLast=*/true);
      rewriter.replaceOp(op, castTo(rewriter, loc, conv, resultType));
      return success();
    }
    FailureOr<Value> result = emitConvolution(
        rewriter, loc, adaptor.getInput(), adaptor.getFilter(), op.getPads(),
        op.getStrides(), op.getDilations(), op.getGroup(), resultType);
    if (failed(result))
      return rewriter.notifyMatchFailure(op, "dynamic kernel size");
    // The bias is a separate broadcasting generic: elementwise fusion folds
    // it into the conv's consumer later.
    Value conv = *result;
    if (Value bias = adaptor.getBias())
      conv = addChannelBias(rewriter, loc, conv, bias, resultType);
    rewriter.replaceOp(op, castTo(rewriter, loc, conv, resultType));
    return success();
  }
};

/// conv_transpose as a direct convolution: the input is spread onto a zero
/// tensor with `strides` gaps (tensor.insert_slice with strides) and padded
/// by `dilation * (k - 1) - pad`, the filter is flipped spatially and its two
/// channel dims swapped per group; begin/end pads larger than the kernel span
/// are cropped from the result instead.
struct ConvTransposeLowering : OpConversionPattern<ConvTransposeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConvTransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (std::optional<std::string> reason =
            kiln::codegen::getUnsupportedReason(op))
      return rewriter.notifyMatchFailure(op, *reason);
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput(), filter = adaptor.getFilter();
    auto filterType = cast<RankedTensorType>(filter.getType());
    int64_t n = resultType.getRank() - 2;
    int64_t group = op.getGroup();
    ArrayRef<int64_t> strides = op.getStrides(), pads = op.getPads(),
                      dilations = op.getDilations(),
                      outPad = op.getOutputPadding();
    Type elem = resultType.getElementType();
    Value zero = createScalar(rewriter, loc, elem, 0.0);

    // Filter [C, M/g, K...] -> [g, M/g, C/g, K...] flipped -> [M, C/g, K...].
    SmallVector<OpFoldResult> fSizes = getDims(rewriter, loc, filter);
    auto divByGroup = [&](OpFoldResult s) -> OpFoldResult {
      if (std::optional<int64_t> c = getConstantIntValue(s))
        return rewriter.getIndexAttr(*c / group);
      return arith::DivUIOp::create(rewriter, loc, toValue(rewriter, loc, s),
                                    createIndex(rewriter, loc, group))
          .getResult();
    };
    SmallVector<ReassociationIndices> fre = {{0, 1}};
    for (int64_t i = 0; i < n + 1; ++i)
      fre.push_back({2 + i});
    SmallVector<OpFoldResult> gSizes = {rewriter.getIndexAttr(group),
                                        divByGroup(fSizes[0])};
    llvm::append_range(gSizes, ArrayRef(fSizes).drop_front(1));
    Value grouped = expandTo(rewriter, loc, filter, fre, gSizes);
    SmallVector<OpFoldResult> flippedSizes = {gSizes[0], gSizes[2], gSizes[1]};
    llvm::append_range(flippedSizes, ArrayRef(gSizes).drop_front(3));
    Value flippedInit = createEmpty(rewriter, loc, flippedSizes, elem);
    int64_t rank = n + 3;
    SmallVector<AffineExpr> readExprs = {getAffineDimExpr(0, ctx),
                                         getAffineDimExpr(2, ctx),
                                         getAffineDimExpr(1, ctx)};
    for (int64_t i = 0; i < n; ++i)
      readExprs.push_back(filterType.getDimSize(2 + i) - 1 -
                          getAffineDimExpr(3 + i, ctx));
    Value flipped = buildGeneric(
        rewriter, loc, {grouped}, {AffineMap::get(rank, 0, readExprs, ctx)},
        flippedInit, rewriter.getMultiDimIdentityMap(rank),
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    Value convFilter = collapse(rewriter, loc, flipped, fre);

    // Input spread onto zeros with stride gaps, padded by the kernel span.
    SmallVector<OpFoldResult> inSizes = getDims(rewriter, loc, input);
    SmallVector<OpFoldResult> spreadSizes(inSizes.begin(), inSizes.begin() + 2);
    SmallVector<OpFoldResult> offsets(2, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> insertStrides(2, rewriter.getIndexAttr(1));
    SmallVector<int64_t> cropBegin, cropEnd;
    bool needsCrop = false;
    for (int64_t i = 0; i < n; ++i) {
      int64_t k = filterType.getDimSize(2 + i);
      int64_t span = dilations[i] * (k - 1);
      int64_t low = span - pads[i], high = span - pads[n + i] + outPad[i];
      cropBegin.push_back(std::max<int64_t>(-low, 0));
      cropEnd.push_back(std::max<int64_t>(-high, 0));
      needsCrop |= low < 0 || high < 0;
      low = std::max<int64_t>(low, 0);
      high = std::max<int64_t>(high, 0);
      // size = stride * (in - 1) + 1 + low + high
      if (std::optional<int64_t> in = getConstantIntValue(inSizes[2 + i])) {
        spreadSizes.push_back(
            rewriter.getIndexAttr(strides[i] * (*in - 1) + 1 + low + high));
      } else {
        Value scaled = arith::MulIOp::create(
            rewriter, loc, toValue(rewriter, loc, inSizes[2 + i]),
            createIndex(rewriter, loc, strides[i]));
        spreadSizes.push_back(
            arith::AddIOp::create(
                rewriter, loc, scaled,
                createIndex(rewriter, loc, 1 - strides[i] + low + high))
                .getResult());
      }
      offsets.push_back(rewriter.getIndexAttr(low));
      insertStrides.push_back(rewriter.getIndexAttr(strides[i]));
    }
    Value spread = createFilled(rewriter, loc, spreadSizes, zero);
    spread = tensor::InsertSliceOp::create(rewriter, loc, input, spread,
                                           offsets, inSizes, insertStrides);

    // Full output sizes before cropping: spread - span (stride 1).
    SmallVector<OpFoldResult> outSizes = {inSizes[0],
                                          getDim(rewriter, loc, convFilter, 0)};
    for (int64_t i = 0; i < n; ++i) {
      int64_t span = dilations[i] * (filterType.getDimSize(2 + i) - 1);
      if (std::optional<int64_t> s = getConstantIntValue(spreadSizes[2 + i])) {
        outSizes.push_back(rewriter.getIndexAttr(*s - span));
        continue;
      }
      outSizes.push_back(
          arith::SubIOp::create(rewriter, loc,
                                toValue(rewriter, loc, spreadSizes[2 + i]),
                                createIndex(rewriter, loc, span))
              .getResult());
    }
    SmallVector<int64_t> ones(n, 1);
    Value result = emitConv(rewriter, loc, spread, convFilter, group, ones,
                            dilations, outSizes);
    if (needsCrop) {
      SmallVector<OpFoldResult> cropOffsets(2, rewriter.getIndexAttr(0)),
          cropSizes(outSizes.begin(), outSizes.begin() + 2);
      for (int64_t i = 0; i < n; ++i) {
        cropOffsets.push_back(rewriter.getIndexAttr(cropBegin[i]));
        if (!resultType.isDynamicDim(2 + i)) {
          cropSizes.push_back(
              rewriter.getIndexAttr(resultType.getDimSize(2 + i)));
          continue;
        }
        cropSizes.push_back(
            arith::SubIOp::create(
                rewriter, loc, toValue(rewriter, loc, outSizes[2 + i]),
                createIndex(rewriter, loc, cropBegin[i] + cropEnd[i]))
                .getResult());
      }
      SmallVector<OpFoldResult> unit(n + 2, rewriter.getIndexAttr(1));
      result = tensor::ExtractSliceOp::create(rewriter, loc, result,
                                              cropOffsets, cropSizes, unit);
    }
    if (Value bias = adaptor.getBias())
      result = addChannelBias(rewriter, loc, result, bias, resultType);
    rewriter.replaceOp(op, castTo(rewriter, loc, result, resultType));
    return success();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Matmul and gemm
//===----------------------------------------------------------------------===//

/// A batched matmul with numpy broadcasting of the batch dims as one generic:
/// dims (batch..., m, n, k).
static Value buildBroadcastMatmul(OpBuilder &b, Location loc, Value lhs,
                                  Value rhs, Value init) {
  MLIRContext *ctx = b.getContext();
  auto lt = cast<RankedTensorType>(lhs.getType());
  auto rt = cast<RankedTensorType>(rhs.getType());
  auto ot = cast<RankedTensorType>(init.getType());
  int64_t batch = ot.getRank() - 2;
  int64_t numDims = batch + 3;
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  auto operandMap = [&](RankedTensorType t, AffineExpr r0, AffineExpr r1) {
    SmallVector<AffineExpr> exprs;
    int64_t tb = t.getRank() - 2;
    for (int64_t j = 0; j < tb; ++j) {
      int64_t bd = j + batch - tb;
      if (t.getDimSize(j) == 1 && ot.getDimSize(bd) != 1)
        exprs.push_back(getAffineConstantExpr(0, ctx));
      else
        exprs.push_back(d(bd));
    }
    exprs.push_back(r0);
    exprs.push_back(r1);
    return AffineMap::get(numDims, 0, exprs, ctx);
  };
  SmallVector<AffineExpr> outExprs;
  for (int64_t i = 0; i < batch + 2; ++i)
    outExprs.push_back(d(i));
  SmallVector<utils::IteratorType> iterators(batch + 2,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  AffineExpr m = d(batch), n = d(batch + 1), k = d(batch + 2);
  return buildGeneric(
      b, loc, {lhs, rhs}, {operandMap(lt, m, k), operandMap(rt, k, n)}, init,
      AffineMap::get(numDims, 0, outExprs, ctx), iterators, multiplyAccumulate);
}

/// numpy.matmul of operands of rank >= 2 (batch dims broadcast).
static Value emitMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                        RankedTensorType outType) {
  auto lt = cast<RankedTensorType>(lhs.getType());
  auto rt = cast<RankedTensorType>(rhs.getType());
  Type elem = outType.getElementType();
  Value zero = createScalar(b, loc, elem, 0.0);
  int64_t lr = lt.getRank(), rr = rt.getRank(), orank = outType.getRank();
  SmallVector<OpFoldResult> ls = getDims(b, loc, lhs),
                            rs = getDims(b, loc, rhs);

  // f16/bf16 products accumulate in f32 (named ops extend their inputs).
  Type acc = getAccumulatorType(elem);
  Value accZero = acc == elem ? zero : createScalar(b, loc, acc, 0.0);
  if (lr == 2 && rr == 2) {
    Value init = createFilled(b, loc, {ls[0], rs[1]}, accZero);
    return narrowResult(
        b, loc,
        linalg::MatmulOp::create(b, loc, TypeRange{init.getType()},
                                 ValueRange{lhs, rhs}, ValueRange{init})
            .getResult(0),
        elem);
  }
  if (rr == 2) {
    // [B..., M, K] x [K, N]: fold the batch dims into M.
    ReassociationIndices rows;
    for (int64_t i = 0; i < lr - 1; ++i)
      rows.push_back(i);
    Value flat = collapse(b, loc, lhs, {rows, {lr - 1}});
    Value init =
        createFilled(b, loc, {getDim(b, loc, flat, 0), rs[1]}, accZero);
    Value mm = narrowResult(
        b, loc,
        linalg::MatmulOp::create(b, loc, TypeRange{init.getType()},
                                 ValueRange{flat, rhs}, ValueRange{init})
            .getResult(0),
        elem);
    SmallVector<OpFoldResult> sizes(ls.begin(), ls.end() - 1);
    sizes.push_back(rs[1]);
    return expandTo(b, loc, mm, {rows, {lr - 1}}, sizes);
  }
  // Output sizes: batch dims broadcast, then M and N.
  SmallVector<OpFoldResult> sizes;
  int64_t batch = orank - 2;
  for (int64_t i = 0; i < batch; ++i) {
    if (!outType.isDynamicDim(i)) {
      sizes.push_back(b.getIndexAttr(outType.getDimSize(i)));
      continue;
    }
    int64_t li = i - (batch - (lr - 2)), ri = i - (batch - (rr - 2));
    if (li >= 0 && lt.getDimSize(li) != 1)
      sizes.push_back(ls[li]);
    else if (ri >= 0)
      sizes.push_back(rs[ri]);
    else
      sizes.push_back(ls[li]);
  }
  sizes.push_back(ls[lr - 2]);
  sizes.push_back(rs[rr - 1]);
  bool sameBatch = lr == 3 && rr == 3 &&
                   (lt.getDimSize(0) == rt.getDimSize(0) ||
                    (lt.getDimSize(0) != 1 && rt.getDimSize(0) != 1));
  if (sameBatch) {
    Value accInit = createFilled(b, loc, sizes, accZero);
    return narrowResult(
        b, loc,
        linalg::BatchMatmulOp::create(b, loc, TypeRange{accInit.getType()},
                                      ValueRange{lhs, rhs}, ValueRange{accInit})
            .getResult(0),
        elem);
  }
  // Broadcast batch dims (a 4-D attention, a shared left-hand side): one
  // generic, accumulating in f32 too.
  return narrowResult(
      b, loc,
      buildBroadcastMatmul(b, loc, lhs, rhs,
                           createFilled(b, loc, sizes, accZero)),
      elem);
}

/// Transposes a 2-D tensor with linalg.transpose.
/// A 2-D float matmul of A (or A^T when `ta`) and B (or B^T when `tb`) as
/// one contraction generic over (m, n, k) whose maps do the transposing;
/// f16/bf16 products accumulate in f32 like emitMatmul's.
static Value emitTransposedMatmul(OpBuilder &b, Location loc, Value lhs,
                                  Value rhs, bool ta, bool tb,
                                  RankedTensorType outType) {
  MLIRContext *ctx = b.getContext();
  Type elem = outType.getElementType();
  Type acc = getAccumulatorType(elem);
  OpFoldResult m = getDim(b, loc, lhs, ta ? 1 : 0);
  OpFoldResult n = getDim(b, loc, rhs, tb ? 0 : 1);
  Value init = createFilled(b, loc, {m, n}, createScalar(b, loc, acc, 0.0));
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  AffineMap lhsMap = AffineMap::get(3, 0,
                                    ta ? ArrayRef<AffineExpr>{d(2), d(0)}
                                       : ArrayRef<AffineExpr>{d(0), d(2)},
                                    ctx);
  AffineMap rhsMap = AffineMap::get(3, 0,
                                    tb ? ArrayRef<AffineExpr>{d(1), d(2)}
                                       : ArrayRef<AffineExpr>{d(2), d(1)},
                                    ctx);
  Value product = buildGeneric(b, loc, {lhs, rhs}, {lhsMap, rhsMap}, init,
                               AffineMap::get(3, 0, {d(0), d(1)}, ctx),
                               {utils::IteratorType::parallel,
                                utils::IteratorType::parallel,
                                utils::IteratorType::reduction},
                               multiplyAccumulate);
  return narrowResult(b, loc, product, elem);
}

static Value transpose2D(OpBuilder &b, Location loc, Value v) {
  SmallVector<OpFoldResult> s = getDims(b, loc, v);
  Value init = createEmpty(b, loc, {s[1], s[0]}, elemOf(v));
  return linalg::TransposeOp::create(b, loc, v, init, ArrayRef<int64_t>{1, 0})
      .getResult()[0];
}

Value kiln::codegen::detail::emitNumpyMatmul(OpBuilder &b, Location loc,
                                             Value lhs, Value rhs,
                                             RankedTensorType resultType) {
  auto lt = cast<RankedTensorType>(lhs.getType());
  auto rt = cast<RankedTensorType>(rhs.getType());
  // numpy promotion of 1-D operands: [K] -> [1, K] and [K] -> [K, 1]; the
  // promoted dims are dropped from the result afterwards.
  bool lhsVector = lt.getRank() == 1, rhsVector = rt.getRank() == 1;
  if (lhsVector)
    lhs = insertUnitDims(
        b, loc, lhs, {0},
        RankedTensorType::get({1, lt.getDimSize(0)}, lt.getElementType()));
  if (rhsVector)
    rhs = insertUnitDims(
        b, loc, rhs, {1},
        RankedTensorType::get({rt.getDimSize(0), 1}, rt.getElementType()));
  SmallVector<int64_t> fullShape(resultType.getShape());
  if (lhsVector)
    fullShape.insert(fullShape.end() - (rhsVector ? 0 : 1), 1);
  if (rhsVector)
    fullShape.push_back(1);
  auto fullType = resultType.clone(fullShape);
  Value result = emitMatmul(b, loc, lhs, rhs, fullType);
  int64_t fr = fullShape.size();
  SmallVector<int64_t> dropped;
  if (lhsVector)
    dropped.push_back(fr - 2);
  if (rhsVector)
    dropped.push_back(fr - 1);
  if (!dropped.empty())
    result = dropUnitDims(b, loc, result, dropped, resultType);
  return result;
}

namespace {

struct MatMulLowering : OpConversionPattern<MatMulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Location loc = op.getLoc();
    Value result = emitNumpyMatmul(rewriter, loc, adaptor.getLhs(),
                                   adaptor.getRhs(), resultType);
    rewriter.replaceOp(op, castTo(rewriter, loc, result, resultType));
    return success();
  }
};

struct GemmLowering : OpConversionPattern<GemmOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GemmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Value a = adaptor.getA(), b = adaptor.getB(), c = adaptor.getC();
    Value ab;
    if ((op.getTransA() || op.getTransB()) &&
        isa<FloatType>(resultType.getElementType())) {
      // Transposed operands are read through the contraction's maps (the
      // tensor-core tactics load them K-major), never copied.
      ab = emitTransposedMatmul(rewriter, loc, a, b, op.getTransA(),
                                op.getTransB(), resultType);
    } else {
      if (op.getTransA())
        a = transpose2D(rewriter, loc, a);
      if (op.getTransB())
        b = transpose2D(rewriter, loc, b);
      ab = emitMatmul(rewriter, loc, a, b, resultType);
    }
    double alpha = op.getAlpha().convertToDouble();
    double beta = op.getBeta().convertToDouble();
    if (alpha == 1.0 && (!c || beta == 0.0)) {
      rewriter.replaceOp(op, castTo(rewriter, loc, ab, resultType));
      return success();
    }
    SmallVector<Value> inputs = {ab};
    if (c && beta != 0.0)
      inputs.push_back(c);
    // alpha * AB + beta * C with C broadcast to [M, N].
    Value result = buildElementwise(
        rewriter, loc, resultType, inputs,
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value v = args[0];
          if (alpha != 1.0)
            v = createMul(nb, nl, v, createScalar(nb, nl, v.getType(), alpha));
          if (args.size() == 1)
            return v;
          Value cv = args[1];
          if (beta != 1.0)
            cv =
                createMul(nb, nl, cv, createScalar(nb, nl, cv.getType(), beta));
          return createAdd(nb, nl, v, cv);
        },
        getDims(rewriter, loc, ab));
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void kiln::codegen::detail::populateContractionPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns
      .add<ConvLowering, ConvTransposeLowering, MatMulLowering, GemmLowering>(
          converter, patterns.getContext());
  populatePoolingPatterns(converter, patterns);
}
