//===- Resampling.cpp - pad, grid_sample, resize
//----------------------------===//
//
// The ops that read outside (or between) the input's elements: pad by
// constant, reflection, edge or wrap, grid_sample and resize interpolating
// by nearest, linear or cubic. Each output element computes its source
// coordinates and reads them with tensor.extract.
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

/// A constant pad of a value that single-use ops moved or converted on its
/// way: pad(transpose?(cast?(x))) with static, non-negative pads (what
/// kiln-form-kernels gives a pad as its prologue; the channels-last stem
/// reads its f32 NCHW input as f16 NHWC padded to 8 channels). One generic
/// over the padded result reads x itself, so the transposed and converted
/// copies are never stored. Null where the pattern does not apply.
static Value padThroughMovement(PadOp op, ArrayRef<int64_t> pads,
                                RankedTensorType resultType,
                                ConversionPatternRewriter &rewriter) {
  Value v = op.getInput();
  int64_t rank = resultType.getRank();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  auto transpose = v.getDefiningOp<TransposeOp>();
  if (transpose && transpose->hasOneUse()) {
    perm = llvm::to_vector(transpose.getPerm());
    v = transpose.getInput();
  } else {
    transpose = nullptr;
  }
  auto cast = v.getDefiningOp<CastOp>();
  if (cast && cast->hasOneUse() && isa<FloatType>(elemOf(cast.getInput())) &&
      isa<FloatType>(elemOf(cast.getOutput())))
    v = cast.getInput();
  else
    cast = nullptr;
  if (!transpose && !cast)
    return Value();
  if (llvm::any_of(pads, [](int64_t p) { return p < 0; }) ||
      !resultType.hasStaticShape() || int64_t(perm.size()) != rank)
    return Value();
  Value src = rewriter.getRemappedValue(v);
  auto srcType = src ? dyn_cast<RankedTensorType>(src.getType()) : nullptr;
  if (!srcType || !srcType.hasStaticShape() || srcType.getRank() != rank)
    return Value();
  Location loc = op.getLoc();
  Type elem = resultType.getElementType();
  Value padValue =
      createScalar(rewriter, loc, elem, op.getValue().convertToDouble());
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < rank; ++d)
    sizes.push_back(rewriter.getIndexAttr(resultType.getDimSize(d)));
  return buildIndexedGeneric(
      rewriter, loc, sizes, elem,
      [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
        // Result dim d is x's dim perm[d], shifted by the low pad; outside
        // x the index is clamped to 0 (a valid read) and the pad value used.
        SmallVector<Value> at(rank);
        Value inside;
        for (int64_t d = 0; d < rank; ++d) {
          int64_t extent = srcType.getDimSize(perm[d]);
          Value i = ivs[d];
          if (pads[d] == 0 && pads[rank + d] == 0) {
            at[perm[d]] = i;
            continue;
          }
          if (pads[d] != 0)
            i = arith::SubIOp::create(b, l, i, idx(b, l, pads[d]));
          // Below the low pad the index wraps: unsigned it is out of range.
          Value in = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, i,
                                           idx(b, l, extent));
          at[perm[d]] = arith::SelectOp::create(b, l, in, i, idx(b, l, 0));
          inside =
              inside ? arith::AndIOp::create(b, l, inside, in).getResult() : in;
        }
        Value x = tensor::ExtractOp::create(b, l, src, at);
        if (cast)
          x = convertFloat(b, l, x, elem);
        return inside ? arith::SelectOp::create(b, l, inside, x, padValue)
                            .getResult()
                      : x;
      });
}

struct PadLowering : OpConversionPattern<PadOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    Type elem = inType.getElementType();
    int64_t rank = inType.getRank();
    PadMode mode = op.getMode();
    Value padValue =
        createScalar(rewriter, loc, elem, op.getValue().convertToDouble());
    std::optional<SmallVector<int64_t>> pads = getConstantInts(op.getPads());

    if (mode == PadMode::Constant && pads)
      if (Value r = padThroughMovement(op, *pads, resultType, rewriter)) {
        rewriter.replaceOp(op, r);
        return success();
      }
    if (mode == PadMode::Constant && pads) {
      // Negative pads crop: slice first, then pad what is left.
      SmallVector<OpFoldResult> offsets, sizes, low, high;
      SmallVector<OpFoldResult> inSizes = getDims(rewriter, loc, input);
      bool crops = false;
      for (int64_t d = 0; d < rank; ++d) {
        int64_t lo = (*pads)[d], hi = (*pads)[rank + d];
        crops |= lo < 0 || hi < 0;
        offsets.push_back(rewriter.getIndexAttr(std::max<int64_t>(-lo, 0)));
        int64_t cut = std::max<int64_t>(-lo, 0) + std::max<int64_t>(-hi, 0);
        if (std::optional<int64_t> s = getConstantIntValue(inSizes[d]))
          sizes.push_back(rewriter.getIndexAttr(*s - cut));
        else
          sizes.push_back(arith::SubIOp::create(
                              rewriter, loc, toValue(rewriter, loc, inSizes[d]),
                              idx(rewriter, loc, cut))
                              .getResult());
        low.push_back(rewriter.getIndexAttr(std::max<int64_t>(lo, 0)));
        high.push_back(rewriter.getIndexAttr(std::max<int64_t>(hi, 0)));
      }
      Value v = input;
      if (crops)
        v = tensor::ExtractSliceOp::create(
            rewriter, loc, v, offsets, sizes,
            SmallVector<OpFoldResult>(rank, rewriter.getIndexAttr(1)));
      auto vType = cast<RankedTensorType>(v.getType());
      SmallVector<int64_t> shape;
      for (int64_t d = 0; d < rank; ++d)
        shape.push_back(vType.isDynamicDim(d)
                            ? ShapedType::kDynamic
                            : vType.getDimSize(d) +
                                  *getConstantIntValue(low[d]) +
                                  *getConstantIntValue(high[d]));
      Value r = tensor::PadOp::create(rewriter, loc, vType.clone(shape), v, low,
                                      high, padValue);
      rewriter.replaceOp(op, castTo(rewriter, loc, r, resultType));
      return success();
    }

    // Index math: o - low is the source index, mapped back into [0, n) per
    // mode (or replaced by the pad value for "constant").
    SmallVector<Value> low, high, inDims;
    for (int64_t d = 0; d < rank; ++d) {
      low.push_back(pads ? idx(rewriter, loc, (*pads)[d])
                         : extractIndex(rewriter, loc, adaptor.getPads(), d));
      high.push_back(
          pads ? idx(rewriter, loc, (*pads)[rank + d])
               : extractIndex(rewriter, loc, adaptor.getPads(), rank + d));
      inDims.push_back(getDimValue(rewriter, loc, input, d));
    }
    SmallVector<OpFoldResult> sizes =
        resultSizes(rewriter, resultType, [&](int64_t d) -> OpFoldResult {
          return arith::AddIOp::create(
                     rewriter, loc, inDims[d],
                     arith::AddIOp::create(rewriter, loc, low[d], high[d]))
              .getResult();
        });
    Value r = buildIndexedGeneric(
        rewriter, loc, sizes, elem,
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
          Value zero = idx(b, l, 0), one = idx(b, l, 1);
          Value inside;
          SmallVector<Value> at;
          for (int64_t d = 0; d < rank; ++d) {
            Value n = inDims[d];
            Value i = arith::SubIOp::create(b, l, ivs[d], low[d]);
            Value last = arith::SubIOp::create(b, l, n, one);
            Value src;
            if (mode == PadMode::Edge || mode == PadMode::Constant) {
              src = clampIndex(b, l, i, zero, last);
              if (mode == PadMode::Constant) {
                Value in = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                                 i, src);
                inside = inside ? Value(arith::AndIOp::create(b, l, inside, in))
                                : in;
              }
            } else if (mode == PadMode::Wrap) {
              Value m = arith::RemSIOp::create(b, l, i, n);
              src = arith::RemSIOp::create(
                  b, l, arith::AddIOp::create(b, l, m, n), n);
            } else { // reflect, period 2 (n - 1), at least 1
              Value period = arith::MaxSIOp::create(
                  b, l, arith::MulIOp::create(b, l, last, idx(b, l, 2)), one);
              Value m = arith::RemSIOp::create(
                  b, l,
                  arith::AddIOp::create(
                      b, l, arith::RemSIOp::create(b, l, i, period), period),
                  period);
              Value mirrored = arith::SubIOp::create(b, l, period, m);
              Value direct =
                  arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, m, n);
              src = arith::SelectOp::create(b, l, direct, m, mirrored);
            }
            at.push_back(src);
          }
          Value v = tensor::ExtractOp::create(b, l, input, at);
          if (mode != PadMode::Constant)
            return v;
          return arith::SelectOp::create(b, l, inside, v, padValue);
        });
    rewriter.replaceOp(op, castTo(rewriter, loc, r, resultType));
    return success();
  }
};

/// grid_sample as ONNX's reference defines it, per output element: the
/// grid position is denormalized, rounded (nearest), moved inside the image
/// by the padding mode, then the 1, 4 or 16 pixels around it are read (each
/// read again applies the padding mode to its integer index) and weighted.
/// Arithmetic in f32 at least.
struct GridSampleLowering : OpConversionPattern<GridSampleOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GridSampleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput(), grid = adaptor.getGrid();
    Type elem = resultType.getElementType();
    Type f = getAccumulatorType(elem);
    InterpolationMode mode = op.getMode();
    GridSamplePaddingMode padding = op.getPaddingMode();
    bool alignCorners = op.getAlignCorners();
    SmallVector<OpFoldResult> sizes = {
        getDim(rewriter, loc, input, 0), getDim(rewriter, loc, input, 1),
        getDim(rewriter, loc, grid, 1), getDim(rewriter, loc, grid, 2)};
    Value hDim = getDimValue(rewriter, loc, input, 2);
    Value wDim = getDimValue(rewriter, loc, input, 3);

    Value result = buildIndexedGeneric(
        rewriter, loc, sizes, elem,
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
          auto cst = [&](double v) { return createScalar(b, l, f, v); };
          auto toF = [&](Value index) { return indexToScalar(b, l, index, f); };
          auto cmp = [&](arith::CmpFPredicate p, Value x, Value y) {
            return arith::CmpFOp::create(b, l, p, x, y).getResult();
          };
          auto sel = [&](Value c, Value x, Value y) {
            return arith::SelectOp::create(b, l, c, x, y).getResult();
          };
          Value hF = toF(hDim), wF = toF(wDim);
          // Borders of the valid coordinate range per dim.
          auto lo = [&](Value) { return cst(alignCorners ? 0.0 : -0.5); };
          auto hi = [&](Value dimF) {
            return arith::SubFOp::create(b, l, dimF,
                                         cst(alignCorners ? 1.0 : 0.5))
                .getResult();
          };
          // Mirrors x at lo/hi until it lies in [lo, hi].
          auto reflect = [&](Value x, Value dimF) -> Value {
            Value xmin = lo(dimF), xmax = hi(dimF);
            Value range = arith::SubFOp::create(b, l, xmax, xmin);
            Value below = cmp(arith::CmpFPredicate::OLT, x, xmin);
            Value above = cmp(arith::CmpFPredicate::OGT, x, xmax);
            Value dx = sel(below, arith::SubFOp::create(b, l, xmin, x),
                           arith::SubFOp::create(b, l, x, xmax));
            Value turns = math::FloorOp::create(
                b, l, arith::DivFOp::create(b, l, dx, range));
            Value r = arith::SubFOp::create(
                b, l, dx, arith::MulFOp::create(b, l, turns, range));
            Value half = math::FloorOp::create(
                b, l, arith::MulFOp::create(b, l, turns, cst(0.5)));
            Value even =
                cmp(arith::CmpFPredicate::OEQ,
                    arith::MulFOp::create(b, l, half, cst(2.0)), turns);
            Value fromLo = arith::AddFOp::create(b, l, xmin, r);
            Value fromHi = arith::SubFOp::create(b, l, xmax, r);
            Value inBelow = sel(even, fromLo, fromHi);
            Value inAbove = sel(even, fromHi, fromLo);
            return sel(below, inBelow, sel(above, inAbove, x));
          };
          // The denormalized coordinate of one grid component.
          auto coordinate = [&](int64_t component, Value dimF) -> Value {
            Value g = tensor::ExtractOp::create(
                b, l, grid,
                ValueRange{ivs[0], ivs[2], ivs[3], idx(b, l, component)});
            g = convertFloat(b, l, g, f);
            Value plusOne = arith::AddFOp::create(b, l, g, cst(1.0));
            Value x =
                alignCorners
                    ? arith::MulFOp::create(
                          b, l, arith::MulFOp::create(b, l, plusOne, cst(0.5)),
                          arith::SubFOp::create(b, l, dimF, cst(1.0)))
                    : arith::MulFOp::create(
                          b, l,
                          arith::SubFOp::create(
                              b, l, arith::MulFOp::create(b, l, plusOne, dimF),
                              cst(1.0)),
                          cst(0.5));
            if (mode == InterpolationMode::Nearest)
              x = math::RoundEvenOp::create(b, l, x);
            if (padding == GridSamplePaddingMode::Border) {
              // Only positions outside [lo, hi] move (cubic reads the
              // difference inside the half-pixel margin).
              Value outside = arith::OrIOp::create(
                  b, l, cmp(arith::CmpFPredicate::OLT, x, lo(dimF)),
                  cmp(arith::CmpFPredicate::OGT, x, hi(dimF)));
              Value clamped =
                  createMin(b, l, createMax(b, l, x, cst(0.0), false),
                            arith::SubFOp::create(b, l, dimF, cst(1.0)), false);
              return sel(outside, clamped, x);
            }
            if (padding == GridSamplePaddingMode::Reflection)
              return reflect(x, dimF);
            return x;
          };
          // Pixel (iy, ix) (integral f values) under the padding mode.
          auto pixel = [&](Value iy, Value ix) -> Value {
            Value valid;
            auto fix = [&](Value i, Value dim, Value dimF) -> Value {
              if (padding == GridSamplePaddingMode::Reflection)
                i = reflect(i, dimF);
              // fptosi truncates toward zero, as the reference's int().
              Value ii = arith::FPToSIOp::create(b, l, b.getI64Type(), i);
              Value index =
                  arith::IndexCastOp::create(b, l, b.getIndexType(), ii);
              Value zero = idx(b, l, 0);
              Value last = arith::SubIOp::create(b, l, dim, idx(b, l, 1));
              if (padding == GridSamplePaddingMode::Zeros) {
                Value ok = arith::AndIOp::create(
                    b, l,
                    arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge,
                                          index, zero),
                    arith::CmpIOp::create(b, l, arith::CmpIPredicate::sle,
                                          index, last));
                valid = valid
                            ? arith::AndIOp::create(b, l, valid, ok).getResult()
                            : ok;
              }
              // Clamping also keeps NaN or huge positions from reading out of
              // bounds.
              return clampIndex(b, l, index, zero, last);
            };
            Value y = fix(iy, hDim, hF), x = fix(ix, wDim, wF);
            Value v = tensor::ExtractOp::create(
                b, l, input, ValueRange{ivs[0], ivs[1], y, x});
            v = convertFloat(b, l, v, f);
            return valid ? sel(valid, v, cst(0.0)) : v;
          };
          Value x = coordinate(0, wF), y = coordinate(1, hF);
          Value out;
          if (mode == InterpolationMode::Nearest) {
            out = pixel(y, x);
          } else if (mode == InterpolationMode::Linear) {
            Value x0 = math::FloorOp::create(b, l, x);
            Value y0 = math::FloorOp::create(b, l, y);
            Value x1 = arith::AddFOp::create(b, l, x0, cst(1.0));
            Value y1 = arith::AddFOp::create(b, l, y0, cst(1.0));
            Value wx = arith::SubFOp::create(b, l, x, x0);
            Value wy = arith::SubFOp::create(b, l, y, y0);
            auto lerp = [&](Value a, Value c, Value w) -> Value {
              return arith::AddFOp::create(
                  b, l,
                  arith::MulFOp::create(
                      b, l, arith::SubFOp::create(b, l, cst(1.0), w), a),
                  arith::MulFOp::create(b, l, w, c));
            };
            out = lerp(lerp(pixel(y0, x0), pixel(y0, x1), wx),
                       lerp(pixel(y1, x0), pixel(y1, x1), wx), wy);
          } else {
            assert(mode == InterpolationMode::Cubic &&
                   "verifier admits no other mode");
            // Keys cubic convolution weights (a = -0.75) for offsets -1..2.
            auto weights = [&](Value t) {
              const double a = -0.75;
              auto poly = [&](Value s, bool outer) -> Value {
                // outer: ((a s - 5a) s + 8a) s - 4a; inner: ((a + 2) s - (a +
                // 3)) s s + 1
                if (outer) {
                  Value p = arith::SubFOp::create(
                      b, l, arith::MulFOp::create(b, l, cst(a), s), cst(5 * a));
                  p = arith::AddFOp::create(
                      b, l, arith::MulFOp::create(b, l, p, s), cst(8 * a));
                  return arith::SubFOp::create(
                      b, l, arith::MulFOp::create(b, l, p, s), cst(4 * a));
                }
                Value p = arith::SubFOp::create(
                    b, l, arith::MulFOp::create(b, l, cst(a + 2), s),
                    cst(a + 3));
                p = arith::MulFOp::create(b, l,
                                          arith::MulFOp::create(b, l, p, s), s);
                return arith::AddFOp::create(b, l, p, cst(1.0));
              };
              Value oneMinus = arith::SubFOp::create(b, l, cst(1.0), t);
              return SmallVector<Value, 4>{
                  poly(arith::AddFOp::create(b, l, t, cst(1.0)), true),
                  poly(t, false), poly(oneMinus, false),
                  poly(arith::SubFOp::create(b, l, cst(2.0), t), true)};
            };
            Value x0 = math::FloorOp::create(b, l, x);
            Value y0 = math::FloorOp::create(b, l, y);
            SmallVector<Value, 4> cx =
                weights(arith::SubFOp::create(b, l, x, x0));
            SmallVector<Value, 4> cy =
                weights(arith::SubFOp::create(b, l, y, y0));
            for (int i = 0; i < 4; ++i) {
              Value yi = arith::AddFOp::create(b, l, y0, cst(i - 1));
              Value row;
              for (int j = 0; j < 4; ++j) {
                Value xj = arith::AddFOp::create(b, l, x0, cst(j - 1));
                Value term = arith::MulFOp::create(b, l, cx[j], pixel(yi, xj));
                row = row ? arith::AddFOp::create(b, l, row, term).getResult()
                          : term;
              }
              Value term = arith::MulFOp::create(b, l, cy[i], row);
              out = out ? arith::AddFOp::create(b, l, out, term).getResult()
                        : term;
            }
          }
          return convertFloat(b, l, out, elem);
        });
    rewriter.replaceOp(op, castTo(rewriter, loc, result, resultType));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// resize
//===----------------------------------------------------------------------===//

struct ResizeLowering : OpConversionPattern<ResizeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ResizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (std::optional<std::string> reason =
            kiln::codegen::getUnsupportedReason(op))
      return rewriter.notifyMatchFailure(op, *reason);
    Location loc = op.getLoc();
    RankedTensorType resultType = getResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t rank = inType.getRank();
    Type f32 = rewriter.getF32Type();
    std::optional<ArrayRef<float>> scales = op.getScales();

    SmallVector<Value> inDims, outDims, scaleValues;
    SmallVector<bool> identity;
    for (int64_t d = 0; d < rank; ++d) {
      Value in = getDimValue(rewriter, loc, input, d);
      bool same = !inType.isDynamicDim(d) && !resultType.isDynamicDim(d) &&
                  inType.getDimSize(d) == resultType.getDimSize(d) &&
                  (!scales || (*scales)[d] == 1.0f);
      identity.push_back(same);
      inDims.push_back(in);
      if (same) { // read through the output index, no coordinates needed
        outDims.push_back(in);
        scaleValues.push_back(Value());
        continue;
      }
      Value inF = indexToScalar(rewriter, loc, in, f32);
      Value out;
      if (!resultType.isDynamicDim(d))
        out = idx(rewriter, loc, resultType.getDimSize(d));
      else if (Value sizes = adaptor.getSizes())
        out = extractIndex(rewriter, loc, sizes, d);
      else {
        Value scaled = arith::MulFOp::create(
            rewriter, loc, inF, createScalar(rewriter, loc, f32, (*scales)[d]));
        out = arith::IndexCastOp::create(
            rewriter, loc, rewriter.getIndexType(),
            arith::FPToSIOp::create(
                rewriter, loc, rewriter.getI64Type(),
                math::FloorOp::create(rewriter, loc, scaled)));
      }
      Value scale = scales ? createScalar(rewriter, loc, f32, (*scales)[d])
                           : Value(arith::DivFOp::create(
                                 rewriter, loc,
                                 indexToScalar(rewriter, loc, out, f32), inF));
      outDims.push_back(out);
      scaleValues.push_back(scale);
    }
    CoordinateTransformationMode coordMode =
        op.getCoordinateTransformationMode();
    NearestMode nearestMode = op.getNearestMode();
    bool linear = op.getMode() == InterpolationMode::Linear;
    bool cubic = op.getMode() == InterpolationMode::Cubic;
    SmallVector<OpFoldResult> sizes =
        llvm::map_to_vector(outDims, [](Value v) -> OpFoldResult { return v; });
    for (int64_t d = 0; d < rank; ++d)
      if (!resultType.isDynamicDim(d))
        sizes[d] = rewriter.getIndexAttr(resultType.getDimSize(d));

    Value r = buildIndexedGeneric(
        rewriter, loc, sizes, resultType.getElementType(),
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
          auto f = [&](double v) { return createScalar(b, l, f32, v); };
          // Source coordinate of output index ivs[d] in input space.
          auto sourceCoord = [&](int64_t d) -> Value {
            Value x = indexToScalar(b, l, ivs[d], f32);
            Value scale = scaleValues[d];
            auto outF = [&] { return indexToScalar(b, l, outDims[d], f32); };
            auto inF = [&] { return indexToScalar(b, l, inDims[d], f32); };
            auto halfPixel = [&]() -> Value {
              return arith::SubFOp::create(
                  b, l,
                  arith::DivFOp::create(
                      b, l, arith::AddFOp::create(b, l, x, f(0.5)), scale),
                  f(0.5));
            };
            if (coordMode == CoordinateTransformationMode::Asymmetric)
              return arith::DivFOp::create(b, l, x, scale);
            if (coordMode ==
                CoordinateTransformationMode::TfHalfPixelForNn) // (x + 0.5) /
                                                                // scale
              return arith::DivFOp::create(
                  b, l, arith::AddFOp::create(b, l, x, f(0.5)), scale);
            if (coordMode == CoordinateTransformationMode::AlignCorners) {
              // ONNX uses the unrounded resized length, in * scale (2.4
              // when 4 is scaled by 0.6), not the output dim.
              Value out = arith::MulFOp::create(b, l, inF(), scale);
              Value den = arith::SubFOp::create(b, l, out, f(1.0));
              Value v = arith::DivFOp::create(
                  b, l,
                  arith::MulFOp::create(
                      b, l, x, arith::SubFOp::create(b, l, inF(), f(1.0))),
                  den);
              Value single = arith::CmpFOp::create(
                  b, l, arith::CmpFPredicate::OLE, out, f(1.0));
              return arith::SelectOp::create(b, l, single, f(0.0), v);
            }
            if (coordMode == CoordinateTransformationMode::PytorchHalfPixel) {
              Value single = arith::CmpFOp::create(
                  b, l, arith::CmpFPredicate::OLE, outF(), f(1.0));
              return arith::SelectOp::create(b, l, single, f(0.0), halfPixel());
            }
            if (coordMode == CoordinateTransformationMode::HalfPixelSymmetric) {
              // offset = in / 2 * (1 - out / (scale * in))
              Value in = inF();
              Value adjustment = arith::DivFOp::create(
                  b, l, outF(), arith::MulFOp::create(b, l, scale, in));
              Value offset = arith::MulFOp::create(
                  b, l, arith::MulFOp::create(b, l, in, f(0.5)),
                  arith::SubFOp::create(b, l, f(1.0), adjustment));
              return arith::AddFOp::create(b, l, offset, halfPixel());
            }
            return halfPixel(); // "half_pixel"
          };
          auto toIndexClamped = [&](Value xf, int64_t d) -> Value {
            Value i = arith::IndexCastOp::create(
                b, l, b.getIndexType(),
                arith::FPToSIOp::create(b, l, b.getI64Type(), xf));
            return clampIndex(
                b, l, i, idx(b, l, 0),
                arith::SubIOp::create(b, l, inDims[d], idx(b, l, 1)));
          };
          if (!linear && !cubic) {
            SmallVector<Value> at;
            for (int64_t d = 0; d < rank; ++d) {
              if (identity[d]) {
                at.push_back(ivs[d]);
                continue;
              }
              Value x = sourceCoord(d);
              Value rounded;
              if (nearestMode == NearestMode::Floor)
                rounded = math::FloorOp::create(b, l, x);
              else if (nearestMode == NearestMode::Ceil)
                rounded = math::CeilOp::create(b, l, x);
              else if (nearestMode == NearestMode::RoundPreferCeil)
                rounded = math::FloorOp::create(
                    b, l, arith::AddFOp::create(b, l, x, f(0.5)));
              else // round_prefer_floor
                rounded = math::CeilOp::create(
                    b, l, arith::SubFOp::create(b, l, x, f(0.5)));
              at.push_back(toIndexClamped(rounded, d));
            }
            return tensor::ExtractOp::create(b, l, input, at);
          }
          if (cubic) {
            // Bicubic (Keys, a = cubic_coeff_a): 4 neighbours x0-1..x0+2 per
            // resized dim, clamped to the edge as ONNX's reference pads with
            // edge values; exclude_outside drops the neighbours outside the
            // input and renormalizes the weights.
            SmallVector<int64_t> resized;
            SmallVector<SmallVector<Value, 4>> at4, w4;
            double a = op.getCubicCoeffA().convertToDouble();
            bool exclude = op.getExcludeOutside();
            for (int64_t d = 0; d < rank; ++d) {
              if (identity[d])
                continue;
              resized.push_back(d);
              Value x = sourceCoord(d);
              Value x0 = math::FloorOp::create(b, l, x);
              Value t = arith::SubFOp::create(b, l, x, x0);
              auto add = [&](Value u, Value v) -> Value {
                return arith::AddFOp::create(b, l, u, v);
              };
              auto sub = [&](Value u, Value v) -> Value {
                return arith::SubFOp::create(b, l, u, v);
              };
              auto mul = [&](Value u, Value v) -> Value {
                return arith::MulFOp::create(b, l, u, v);
              };
              // |s| in [1, 2): ((a s - 5a) s + 8a) s - 4a
              auto outer = [&](Value s) {
                return sub(
                    mul(add(mul(sub(mul(f(a), s), f(5 * a)), s), f(8 * a)), s),
                    f(4 * a));
              };
              // |s| in [0, 1): ((a + 2) s - (a + 3)) s^2 + 1
              auto inner = [&](Value s) {
                return add(mul(sub(mul(f(a + 2), s), f(a + 3)), mul(s, s)),
                           f(1.0));
              };
              Value u = sub(f(1.0), t);
              SmallVector<Value, 4> w = {outer(add(t, f(1.0))), inner(t),
                                         inner(u), outer(add(u, f(1.0)))};
              SmallVector<Value, 4> at;
              Value inF = indexToScalar(b, l, inDims[d], f32);
              Value sum = f(0.0);
              for (int64_t i = 0; i < 4; ++i) {
                Value xi = add(x0, f(i - 1));
                if (exclude) {
                  Value inside = arith::AndIOp::create(
                      b, l,
                      arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, xi,
                                            f(0.0)),
                      arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, xi,
                                            inF));
                  w[i] = arith::SelectOp::create(b, l, inside, w[i], f(0.0));
                  sum = add(sum, w[i]);
                }
                at.push_back(toIndexClamped(xi, d));
              }
              if (exclude)
                for (Value &wi : w)
                  wi = arith::DivFOp::create(b, l, wi, sum);
              at4.push_back(at);
              w4.push_back(w);
            }
            Type elem = resultType.getElementType();
            Value acc = createScalar(b, l, elem, 0.0);
            int64_t count = 1;
            for (size_t k = 0; k < resized.size(); ++k)
              count *= 4;
            for (int64_t corner = 0; corner < count; ++corner) {
              SmallVector<Value> at(ivs.begin(), ivs.begin() + rank);
              Value weight = f(1.0);
              int64_t rest = corner;
              for (auto [k, d] : llvm::enumerate(resized)) {
                int64_t i = rest % 4;
                rest /= 4;
                at[d] = at4[k][i];
                weight = arith::MulFOp::create(b, l, weight, w4[k][i]);
              }
              Value v = tensor::ExtractOp::create(b, l, input, at);
              acc = arith::AddFOp::create(
                  b, l, acc,
                  arith::MulFOp::create(b, l, v,
                                        convertFloat(b, l, weight, elem)));
            }
            return acc;
          }
          // Multilinear: 2^k corners over the k resized dims, neighbours
          // clamped to the edge (as ONNX's reference pads with edge values).
          SmallVector<int64_t> resized;
          SmallVector<Value> lo, hi, w;
          for (int64_t d = 0; d < rank; ++d) {
            if (identity[d])
              continue;
            resized.push_back(d);
            Value x = sourceCoord(d);
            Value x0 = math::FloorOp::create(b, l, x);
            w.push_back(arith::SubFOp::create(b, l, x, x0));
            lo.push_back(toIndexClamped(x0, d));
            hi.push_back(
                toIndexClamped(arith::AddFOp::create(b, l, x0, f(1.0)), d));
          }
          Type elem = resultType.getElementType();
          Value acc = createScalar(b, l, elem, 0.0);
          for (int64_t corner = 0; corner < (1 << resized.size()); ++corner) {
            SmallVector<Value> at(ivs.begin(), ivs.begin() + rank);
            Value weight = f(1.0);
            for (auto [k, d] : llvm::enumerate(resized)) {
              bool upper = corner & (1 << k);
              at[d] = upper ? hi[k] : lo[k];
              Value wk =
                  upper ? w[k] : arith::SubFOp::create(b, l, f(1.0), w[k]);
              weight = arith::MulFOp::create(b, l, weight, wk);
            }
            Value v = tensor::ExtractOp::create(b, l, input, at);
            acc = arith::AddFOp::create(
                b, l, acc,
                arith::MulFOp::create(b, l, v,
                                      convertFloat(b, l, weight, elem)));
          }
          return acc;
        });
    rewriter.replaceOp(op, castTo(rewriter, loc, r, resultType));
    return success();
  }
};

} // namespace

void kiln::codegen::detail::populateResamplingPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<PadLowering, GridSampleLowering, ResizeLowering>(
      converter, patterns.getContext());
}
