//===- LayoutNhwc.cpp - run NCHW convolutions channels-last
//----------------===//
//
// kiln-layout-nhwc: see passes/Passes.td.
//
// Every eligible convolution becomes
//
//   transpose(conv_nhwc(transpose(x, NCHW->NHWC), packed filter), NHWC->NCHW)
//
// and the transposes are then pushed through the ops that do not care about
// (or can follow) the layout, so that two inverse transposes meet and
// vanish. Walking @main once in order suffices: every op sees its operands
// already rewritten.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Graph/IR/ShapeUtils.h"
#include "kiln/Plan/Float16.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <algorithm>
#include <cstring>

namespace kiln::graph {
#define GEN_PASS_DEF_LAYOUTNHWCPASS
#include "passes/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;
using namespace kiln::graph;

namespace {

constexpr int64_t kToNhwc[] = {0, 2, 3, 1};
constexpr int64_t kToNchw[] = {0, 3, 1, 2};

bool isPerm(TransposeOp t, ArrayRef<int64_t> perm) {
  return t && t.getPerm() == perm;
}

/// A channel split [N, H, W, A, B] seen as [N, A, B, H, W] (a channel
/// shuffle's reshape of an NCHW map).
constexpr int64_t kSplitToNchw[] = {0, 3, 4, 1, 2};

/// The [N, H, W, A, B] value a [N, A, B, H, W] tensor is a transpose of.
Value splitSource(Value v) {
  auto t = v.getDefiningOp<TransposeOp>();
  return isPerm(t, kSplitToNchw) ? t.getInput() : Value();
}

bool isStatic(Value v, int64_t rank) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.getRank() == rank && t.hasStaticShape();
}

/// The NHWC value `v` (an NCHW tensor) is a transpose of, if any.
Value nhwcSource(Value v) {
  auto t = v.getDefiningOp<TransposeOp>();
  return isPerm(t, kToNchw) ? t.getInput() : Value();
}

bool isStatic4d(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.getRank() == 4 && t.hasStaticShape();
}

bool isFloat(Value v) {
  return isa<FloatType>(cast<RankedTensorType>(v.getType()).getElementType());
}

/// Elementwise ops of one operand (relu, clip, gelu, ...).
bool isUnaryElementwise(Operation *op) {
  return isa_and_nonnull<GraphDialect>(op->getDialect()) &&
         op->getNumOperands() == 1 && op->getNumResults() == 1 &&
         op->getNumRegions() == 0 &&
         op->hasTrait<OpTrait::SameOperandsAndResultType>() &&
         !isa<LRNOp, SoftmaxOp, LogSoftmaxOp, CumSumOp>(op);
}

bool isBinaryElementwise(Operation *op) {
  return isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, PowOp>(op);
}

/// A value that broadcasts the same way in any layout: one element.
bool isScalarLike(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() && t.getNumElements() == 1;
}

/// Grouped convs made dense (see rewrite): at most this many groups (the
/// MAC count grows by the group count) of at most kNarrowGroup channels and
/// filters each; groups of up to kMaxDenseGroupWidth only when the output
/// has at least kDensePixels pixels. Measured on an H200 with ResNeXt-50's
/// 32 groups (bench/README.md): groups of 4 (56x56): dense 17 vs 18 us at
/// batch 1, 118 vs 570 us at batch 32; groups of 8 (28x28): dense 19 vs 9
/// us at batch 1 (784 pixels), 75 vs 113 us at batch 32 (25 088 pixels).
constexpr int64_t kMaxDenseGroups = 64;
constexpr int64_t kNarrowGroup = 4;
constexpr int64_t kMaxDenseGroupWidth = 8;
constexpr int64_t kDensePixels = 8192;

/// `attr` (a static [d0, d1, d2, d3] tensor) with its elements permuted as
/// transpose(perm) would, into `newType`; where `newType`'s last dim is
/// longer than the permuted one, the extra elements are zero (channel
/// padding). Null for attributes it cannot read.
ElementsAttr permuteElements(ElementsAttr attr, ArrayRef<int64_t> perm,
                             RankedTensorType newType) {
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  ArrayRef<int64_t> in = cast<ShapedType>(attr.getType()).getShape();
  bool padded = newType.getDimSize(3) != in[perm[3]];
  if (dense && dense.isSplat())
    return padded ? ElementsAttr()
                  : DenseElementsAttr::get(newType,
                                           dense.getSplatValue<Attribute>());
  std::optional<ArrayRef<char>> bytes = rawElements(attr);
  if (!bytes)
    return {};
  ArrayRef<char> raw = *bytes;
  Type elem = newType.getElementType();
  if (!elem.isIntOrFloat() || elem.getIntOrFloatBitWidth() % 8 != 0)
    return {};
  size_t size = elem.getIntOrFloatBitWidth() / 8;
  int64_t n = cast<ShapedType>(attr.getType()).getNumElements();
  if ((int64_t)raw.size() != n * (int64_t)size)
    return {};
  SmallVector<int64_t, 4> inStride(4, 1);
  for (int d = 2; d >= 0; --d)
    inStride[d] = inStride[d + 1] * in[d + 1];
  ArrayRef<int64_t> out = newType.getShape();
  std::vector<char> data(newType.getNumElements() * size, 0);
  char *dst = data.data();
  for (int64_t a = 0; a < out[0]; ++a)
    for (int64_t b = 0; b < out[1]; ++b)
      for (int64_t c = 0; c < out[2]; ++c)
        for (int64_t d = 0; d < out[3]; ++d, dst += size) {
          if (d >= in[perm[3]])
            continue; // channel padding: zero
          int64_t idx[4] = {a, b, c, d};
          int64_t src = 0;
          for (int k = 0; k < 4; ++k)
            src += idx[k] * inStride[perm[k]];
          std::memcpy(dst, raw.data() + src * size, size);
        }
  return elementsLike(attr, newType, data, "_nhwc");
}

RankedTensorType permuted(Type t, ArrayRef<int64_t> perm) {
  auto r = cast<RankedTensorType>(t);
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(r.getDimSize(p));
  return r.clone(shape);
}

struct Layout {
  OpBuilder b;
  LayoutNhwcStats &stats;
  bool tf32 = false;

  /// Whether convs of this element type run on the tensor cores.
  bool tensorCoreType(Type elem) const {
    return elem.isF16() || elem.isBF16() || (tf32 && elem.isF32());
  }

  Value transpose(Location loc, Value v, ArrayRef<int64_t> perm) {
    // transpose(transpose(x, NHWC->NCHW), NCHW->NHWC) is x.
    if (perm == ArrayRef<int64_t>(kToNhwc))
      if (Value src = nhwcSource(v))
        return src;
    return TransposeOp::create(b, loc, permuted(v.getType(), perm), v,
                               b.getDenseI64ArrayAttr(perm));
  }

  /// A constant filter packed OHWI with its channels zero-padded to
  /// `channels`: not a tensor of the model, so marked kiln.derived (plans
  /// keep it even when weights are stripped: kiln-refit could not find it).
  Value packPaddedFilter(Location loc, Value filter, int64_t channels) {
    auto cst = filter.getDefiningOp<ConstantOp>();
    if (!cst)
      return {};
    RankedTensorType type = permuted(filter.getType(), kToNhwc);
    SmallVector<int64_t> shape(type.getShape());
    shape.back() = channels;
    ElementsAttr v =
        permuteElements(cst.getValue(), kToNhwc, type.clone(shape));
    if (!v)
      return {};
    auto packed = ConstantOp::create(b, loc, type.clone(shape), v);
    packed->setAttr("kiln.derived", b.getUnitAttr());
    ++stats.packedFilters;
    return packed;
  }

  /// A constant grouped filter [M, C/G, KH, KW] as the dense OHWI filter [M,
  /// KH, KW, C] of the same convolution with group 1: filter o keeps its
  /// weights at its group's channels, zeros at the others (block diagonal
  /// over the channels). Null for other filters.
  Value packDenseFilter(Location loc, Value filter, int64_t group,
                        int64_t channels) {
    auto cst = filter.getDefiningOp<ConstantOp>();
    if (!cst)
      return {};
    auto ft = cast<RankedTensorType>(filter.getType());
    int64_t m = ft.getDimSize(0), cg = ft.getDimSize(1), kh = ft.getDimSize(2),
            kw = ft.getDimSize(3), mg = m / group;
    auto type =
        RankedTensorType::get({m, kh, kw, channels}, ft.getElementType());
    // Element (o, c, t) of the OIHW filter goes to tap t, channel
    // (o / mg) * cg + c of dense filter o.
    std::optional<ArrayRef<char>> raw = rawElements(cst.getValue());
    size_t size = ft.getElementTypeBitWidth() / 8;
    if (!raw || ft.getElementTypeBitWidth() % 8 != 0 ||
        raw->size() != size_t(m * cg * kh * kw) * size)
      return {};
    std::vector<char> data(type.getNumElements() * size, 0);
    for (int64_t o = 0; o < m; ++o)
      for (int64_t c = 0; c < cg; ++c)
        for (int64_t t = 0; t < kh * kw; ++t)
          std::memcpy(
              &data[((o * kh * kw + t) * channels + (o / mg) * cg + c) * size],
              &(*raw)[((o * cg + c) * kh * kw + t) * size], size);
    ElementsAttr value = elementsLike(cst.getValue(), type, data, "_dense");
    auto out = ConstantOp::create(b, loc, type, value);
    out->setAttr("kiln.derived", b.getUnitAttr());
    ++stats.packedFilters;
    return out;
  }

  /// The filter in OHWI: a constant is packed now, anything else transposed
  /// at run time.
  Value packFilter(Location loc, Value filter) {
    RankedTensorType type = permuted(filter.getType(), kToNhwc);
    if (auto cst = filter.getDefiningOp<ConstantOp>())
      if (ElementsAttr v = permuteElements(cst.getValue(), kToNhwc, type)) {
        ++stats.packedFilters;
        return ConstantOp::create(b, loc, type, v);
      }
    return transpose(loc, filter, kToNhwc);
  }

  /// Replaces `op`'s result by transpose(newResult, NHWC->NCHW).
  void finish(Operation *op, Value nhwcResult) {
    op->getResult(0).replaceAllUsesWith(
        transpose(op->getLoc(), nhwcResult, kToNchw));
    op->erase();
  }

  Value shapeConstant(Location loc, ArrayRef<int64_t> dims) {
    auto type =
        RankedTensorType::get({(int64_t)dims.size()}, b.getI64Type());
    return ConstantOp::create(b, loc, DenseElementsAttr::get(type, dims));
  }

  /// A channel shuffle stays channels-last: reshape [N, C, H, W] ->
  /// [N, A, B, H, W] of an NHWC map is a reshape of the map to [N, H, W, A,
  /// B]; a transpose swapping A and B of such a split swaps its last two
  /// dims; reshape [N, A, B, H, W] -> [N, A*B, H, W] of one is a reshape
  /// back to [N, H, W, A*B]. Each step keeps the split form (seen through
  /// a transpose, kSplitToNchw) for the next.
  bool moveChannelShuffle(Operation *op) {
    Location loc = op->getLoc();
    if (auto r = dyn_cast<ReshapeOp>(op)) {
      Value in = r.getInput();
      if (!isStatic(r.getOutput(), 5) && !isStatic(r.getOutput(), 4))
        return false;
      ArrayRef<int64_t> o =
          cast<RankedTensorType>(r.getOutput().getType()).getShape();
      ArrayRef<int64_t> i = cast<RankedTensorType>(in.getType()).getShape();
      if (Value src = nhwcSource(in); src && isStatic(in, 4) &&
                                      o.size() == 5 && o[0] == i[0] &&
                                      o[1] * o[2] == i[1] && o[3] == i[2] &&
                                      o[4] == i[3]) {
        SmallVector<int64_t> dims = {o[0], o[3], o[4], o[1], o[2]};
        Value split = ReshapeOp::create(
            b, loc, cast<RankedTensorType>(in.getType()).clone(dims), src,
            shapeConstant(loc, dims));
        r.getOutput().replaceAllUsesWith(TransposeOp::create(
            b, loc, r.getOutput().getType(), split,
            b.getDenseI64ArrayAttr(kSplitToNchw)));
        r.erase();
        ++stats.moved;
        return true;
      }
      if (Value split = splitSource(in); split && isStatic(in, 5) &&
                                         o.size() == 4 && o[0] == i[0] &&
                                         o[1] == i[1] * i[2] && o[2] == i[3] &&
                                         o[3] == i[4]) {
        SmallVector<int64_t> dims = {o[0], o[2], o[3], o[1]};
        Value map = ReshapeOp::create(
            b, loc, cast<RankedTensorType>(in.getType()).clone(dims), split,
            shapeConstant(loc, dims));
        ++stats.moved;
        finish(r, map);
        return true;
      }
      return false;
    }
    auto t = dyn_cast<TransposeOp>(op);
    Value split = t ? splitSource(t.getInput()) : Value();
    if (!split || !isStatic(split, 5) ||
        t.getPerm() != ArrayRef<int64_t>({0, 2, 1, 3, 4}))
      return false;
    constexpr int64_t swap[] = {0, 1, 2, 4, 3};
    Value swapped = TransposeOp::create(b, loc, permuted(split.getType(), swap),
                                        split, b.getDenseI64ArrayAttr(swap));
    t.getResult().replaceAllUsesWith(
        TransposeOp::create(b, loc, t.getResult().getType(), swapped,
                            b.getDenseI64ArrayAttr(kSplitToNchw)));
    t.erase();
    ++stats.moved;
    return true;
  }

  /// A slice of an NHWC map's NCHW view slices the map along the same
  /// dims in their NHWC places (ShuffleNet's channel halves).
  bool moveSlice(SliceOp s) {
    Value src = nhwcSource(s.getInput());
    std::optional<SmallVector<int64_t>> axes = getConstantInts(s.getAxes());
    if (!src || !axes || !isStatic4d(s.getOutput()))
      return false;
    SmallVector<int64_t> moved;
    for (int64_t a : *axes) {
      if (a < -4 || a > 3)
        return false;
      moved.push_back(kToNchw[a < 0 ? a + 4 : a]);
    }
    Location loc = s.getLoc();
    Value nhwc = SliceOp::create(
        b, loc, permuted(s.getOutput().getType(), kToNhwc), src, s.getStarts(),
        s.getEnds(), shapeConstant(loc, moved), s.getSteps());
    ++stats.moved;
    finish(s, nhwc);
    return true;
  }

  bool convEligible(ConvOp conv) {
    if (conv.getChannelsLast() || conv.getAutoPad() != AutoPad::NotSet ||
        !isStatic4d(conv.getInput()) || !isStatic4d(conv.getFilter()) ||
        !isStatic4d(conv.getOutput()) || !isFloat(conv.getInput()))
      return false;
    auto in = cast<RankedTensorType>(conv.getInput().getType());
    auto f = cast<RankedTensorType>(conv.getFilter().getType());
    // Every group count: a grouped conv's filter packs OIHW -> OHWI like
    // any other ([G * M/G, KH, KW, C/G]).
    int64_t group = conv.getGroup();
    return group >= 1 && in.getDimSize(1) % group == 0 &&
           f.getDimSize(0) % group == 0;
  }

  void rewrite(Operation *op) {
    Location loc = op->getLoc();
    b.setInsertionPoint(op);
    if (auto conv = dyn_cast<ConvOp>(op)) {
      if (!convEligible(conv))
        return;
      Value x = transpose(loc, conv.getInput(), kToNhwc);
      Value f;
      // Tensor-core convs load 8 channels at a time: an image with fewer
      // (RGB) or a ragged count gets zero channels, its filter zero taps.
      auto xType = cast<RankedTensorType>(x.getType());
      int64_t c = xType.getDimSize(3), c8 = llvm::alignTo(c, 8);
      Type elem = xType.getElementType();
      if (conv.getGroup() == 1 && c != c8 && tensorCoreType(elem))
        if ((f = packPaddedFilter(loc, conv.getFilter(), c8))) {
          SmallVector<int64_t> shape(xType.getShape());
          shape.back() = c8;
          auto padsType = RankedTensorType::get({8}, b.getI64Type());
          Value pads = ConstantOp::create(
              b, loc, padsType,
              DenseElementsAttr::get(
                  padsType, ArrayRef<int64_t>{0, 0, 0, 0, 0, 0, 0, c8 - c}));
          x = PadOp::create(b, loc, xType.clone(shape), x, pads,
                            PadModeAttr::get(b.getContext(), PadMode::Constant),
                            b.getF64FloatAttr(0));
          ++stats.paddedConvs;
        }
      // A grouped f16/bf16 conv with few channels and filters per group
      // would give its tensor-core GEMMs tiles mostly of padding and scalar
      // loads (ResNeXt-50's first stages: groups of 4 and 8): it runs as
      // the dense conv of group 1 with a block-diagonal filter instead, G
      // times the MACs but one full-width GEMM (see kMaxDenseGroups).
      // Depthwise convs keep their direct kernels.
      IntegerAttr groupAttr = conv.getGroupAttr();
      int64_t group = conv.getGroup();
      auto ft = cast<RankedTensorType>(conv.getFilter().getType());
      int64_t cg = ft.getDimSize(1), mg = ft.getDimSize(0) / group;
      auto ot = cast<RankedTensorType>(conv.getType());
      int64_t pixels = ot.getDimSize(0) * ot.getDimSize(2) * ot.getDimSize(3);
      int64_t width = std::max(cg, mg);
      if (!f && group > 1 && group <= kMaxDenseGroups && cg > 1 &&
          (width <= kNarrowGroup ||
           (width <= kMaxDenseGroupWidth && pixels >= kDensePixels)) &&
          tensorCoreType(elem))
        if ((f = packDenseFilter(loc, conv.getFilter(), group, c))) {
          groupAttr = b.getI64IntegerAttr(1);
          ++stats.denseGrouped;
        }
      if (!f)
        f = packFilter(loc, conv.getFilter());
      auto nhwc = ConvOp::create(
          b, loc, permuted(conv.getType(), kToNhwc), x, f, conv.getBias(),
          conv.getStridesAttr(), conv.getPadsAttr(), conv.getDilationsAttr(),
          groupAttr, conv.getAutoPadAttr(), b.getBoolAttr(true));
      ++stats.convs;
      return finish(op, nhwc);
    }
    if (auto bn = dyn_cast<BatchNormOp>(op)) {
      Value src = nhwcSource(bn.getInput());
      if (!src || bn.getChannelsLast())
        return;
      auto nhwc = BatchNormOp::create(
          b, loc, src.getType(), src, bn.getScale(), bn.getBias(), bn.getMean(),
          bn.getVariance(), bn.getEpsilonAttr(), b.getBoolAttr(true));
      ++stats.moved;
      return finish(op, nhwc);
    }
    if (auto pool = dyn_cast<MaxPoolOp>(op)) {
      Value src = nhwcSource(pool.getInput());
      if (!src || pool.getChannelsLast() ||
          pool.getAutoPad() != AutoPad::NotSet ||
          !isStatic4d(pool.getOutput()) || !isFloat(src))
        return;
      auto nhwc = MaxPoolOp::create(
          b, loc, permuted(pool.getType(), kToNhwc), src,
          pool.getKernelShapeAttr(), pool.getStridesAttr(), pool.getPadsAttr(),
          pool.getDilationsAttr(), pool.getCeilModeAttr(),
          pool.getAutoPadAttr(), b.getBoolAttr(true));
      ++stats.moved;
      return finish(op, nhwc);
    }
    if (isUnaryElementwise(op)) {
      Value src = nhwcSource(op->getOperand(0));
      if (!src)
        return;
      Operation *nhwc = b.clone(*op);
      nhwc->setOperand(0, src);
      nhwc->getResult(0).setType(src.getType());
      ++stats.moved;
      return finish(op, nhwc->getResult(0));
    }
    if (isBinaryElementwise(op)) {
      // Both operands NHWC, or one of them a scalar. Two 4-D operands
      // broadcast alike in either layout (both permuted the same way): a
      // squeeze-and-excitation scale [N, C, 1, 1] of a map [N, C, H, W]
      // stays channels-last.
      Value lhs = op->getOperand(0), rhs = op->getOperand(1);
      Value l = nhwcSource(lhs), r = nhwcSource(rhs);
      if (!l && !r)
        return;
      if (l && r) {
        if (!isStatic4d(lhs) || !isStatic4d(rhs) ||
            !isStatic4d(op->getResult(0)))
          return;
        Operation *nhwc = b.clone(*op);
        nhwc->setOperands({l, r});
        nhwc->getResult(0).setType(
            permuted(op->getResult(0).getType(), kToNhwc));
        ++stats.moved;
        return finish(op, nhwc->getResult(0));
      }
      if (l && isScalarLike(rhs) &&
          lhs.getType() == op->getResult(0).getType()) {
        r = rhs;
      } else if (r && isScalarLike(lhs) &&
                 rhs.getType() == op->getResult(0).getType()) {
        l = lhs;
      } else {
        return;
      }
      Operation *nhwc = b.clone(*op);
      nhwc->setOperands({l, r});
      nhwc->getResult(0).setType((nhwcSource(lhs) ? l : r).getType());
      ++stats.moved;
      return finish(op, nhwc->getResult(0));
    }
    if (auto cat = dyn_cast<ConcatOp>(op)) {
      // Every input NHWC: the concat of the NHWC values along the axis's
      // NHWC position (channels: the last).
      SmallVector<Value> srcs;
      for (Value in : cat.getInputs())
        if (Value src = nhwcSource(in))
          srcs.push_back(src);
      if (srcs.empty() || srcs.size() != cat.getInputs().size() ||
          !isStatic4d(cat.getOutput()) || cat.getAxis() > 3)
        return;
      auto nhwc = ConcatOp::create(b, loc, permuted(cat.getType(), kToNhwc),
                                   srcs, kToNchw[cat.getAxis()]);
      ++stats.moved;
      return finish(op, nhwc);
    }
    if (isa<ReshapeOp, TransposeOp>(op) && moveChannelShuffle(op))
      return;
    if (auto slice = dyn_cast<SliceOp>(op); slice && moveSlice(slice))
      return;
    if (auto t = dyn_cast<TransposeOp>(op)) {
      // NCHW->NHWC of an NHWC value: the value itself.
      Value src = nhwcSource(t.getInput());
      if (!src || !isPerm(t, kToNhwc))
        return;
      t.getResult().replaceAllUsesWith(src);
      t.erase();
      return;
    }
    moveReduction(op);
  }

  /// A reduction keeping its dims follows the layout: NCHW axis a is NHWC
  /// axis kToNchw[a].
  void moveReduction(Operation *op) {
    if (!isa<ReduceMeanOp, ReduceSumOp, ReduceMaxOp, ReduceMinOp>(op))
      return;
    Value src = nhwcSource(op->getOperand(0));
    auto keep = op->getAttrOfType<BoolAttr>("keepdims");
    auto axes = op->getAttrOfType<DenseI64ArrayAttr>("axes");
    if (!src || !keep || !keep.getValue() || !axes || axes.empty())
      return;
    SmallVector<int64_t> nhwcAxes;
    for (int64_t a : axes.asArrayRef())
      nhwcAxes.push_back(kToNchw[a]);
    llvm::sort(nhwcAxes);
    Operation *nhwc = b.clone(*op);
    nhwc->setOperand(0, src);
    nhwc->setAttr("axes", b.getDenseI64ArrayAttr(nhwcAxes));
    nhwc->getResult(0).setType(permuted(op->getResult(0).getType(), kToNhwc));
    ++stats.moved;
    finish(op, nhwc->getResult(0));
  }

  /// tf32 (wgmma reads tf32 operands K-major only): a constant 2-D
  /// right-hand side [K, N] of a matmul is stored transposed, [N, K], and
  /// the matmul reads it through a transpose (its kernel reads the operand
  /// in place, K contiguous); a gemm's just flips trans_b. The stored
  /// tensor is the model's, transposed: weight stripping keeps it out of
  /// plans and kiln-refit finds it (it tries 2-D transposes).
  /// (Stacked weights [G, K, N] of sibling matmuls, kiln.stack_parts, are
  /// stored [G, N, K]: each part the model's tensor transposed.)
  void storeWeightsKMajor(Block &body) {
    auto transposed = [&](Location loc, ConstantOp cst) -> Value {
      auto type = cast<RankedTensorType>(cst.getType());
      int64_t rank = type.getRank();
      bool stacked = rank == 3 && cst->hasAttr(kStackPartsAttr);
      if ((rank != 2 && !stacked) || !type.hasStaticShape() ||
          !type.getElementType().isF32())
        return {};
      int64_t g = stacked ? type.getDimSize(0) : 1;
      int64_t k = type.getDimSize(rank - 2), n = type.getDimSize(rank - 1);
      auto newType =
          stacked ? RankedTensorType::get({g, n, k}, type.getElementType())
                  : RankedTensorType::get({n, k}, type.getElementType());
      ElementsAttr value;
      auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
      if (dense && dense.isSplat()) {
        value =
            DenseElementsAttr::get(newType, dense.getSplatValue<Attribute>());
      } else {
        std::optional<ArrayRef<char>> raw = rawElements(cst.getValue());
        if (!raw || (int64_t)raw->size() != g * k * n * 4)
          return {};
        std::vector<char> data(raw->size());
        for (int64_t p = 0; p < g; ++p)
          for (int64_t r = 0; r < k; ++r)
            for (int64_t c = 0; c < n; ++c)
              std::memcpy(&data[(p * k * n + c * k + r) * 4],
                          raw->data() + (p * k * n + r * n + c) * 4, 4);
        value = elementsLike(cst.getValue(), newType, data, "_t");
      }
      b.setInsertionPoint(cst);
      auto t = ConstantOp::create(b, loc, newType, value);
      if (stacked)
        t->setAttr(kStackPartsAttr, cst->getAttr(kStackPartsAttr));
      return t;
    };
    SmallVector<Operation *> ops;
    for (Operation &op : body)
      ops.push_back(&op);
    for (Operation *op : ops) {
      if (auto mm = dyn_cast<MatMulOp>(op)) {
        auto cst = mm.getRhs().getDefiningOp<ConstantOp>();
        if (!cst)
          continue;
        Value t = transposed(mm.getLoc(), cst);
        if (!t)
          continue;
        b.setInsertionPoint(mm);
        bool stacked = cast<RankedTensorType>(cst.getType()).getRank() == 3;
        Value back =
            TransposeOp::create(b, mm.getLoc(), cst.getType(), t,
                                stacked ? b.getDenseI64ArrayAttr({0, 2, 1})
                                        : b.getDenseI64ArrayAttr({1, 0}));
        mm.getRhsMutable().assign(back);
        ++stats.kMajorWeights;
      } else if (auto gemm = dyn_cast<GemmOp>(op)) {
        auto cst = gemm.getB().getDefiningOp<ConstantOp>();
        if (!cst || gemm.getTransB())
          continue;
        Value t = transposed(gemm.getLoc(), cst);
        if (!t)
          continue;
        gemm.getBMutable().assign(t);
        gemm.setTransB(true);
        ++stats.kMajorWeights;
      }
    }
    for (Operation *op : llvm::reverse(ops))
      if (isa<ConstantOp>(op) && op->use_empty())
        op->erase();
  }

  /// tf32: constant weights whose only readers are tensor-core operands
  /// (conv filters, matmul right-hand sides, also through the K-major
  /// transpose, gemm B) hold tf32 values: rounded to nearest here (ties
  /// away from zero, as cvt.rna), once, instead of in every kernel that
  /// loads them. Marked kiln.tf32_rounded; kiln-refit rounds too.
  void roundTensorCoreWeights(Block &body) {
    auto readsAsOperand = [](OpOperand &use) {
      Operation *user = use.getOwner();
      unsigned n = use.getOperandNumber();
      if (isa<ConvOp>(user))
        return n == 1;
      if (isa<GemmOp>(user))
        return n == 1;
      if (isa<MatMulOp>(user))
        return n == 1;
      return false;
    };
    for (Operation &op : body) {
      auto cst = dyn_cast<ConstantOp>(op);
      auto type =
          cst ? dyn_cast<RankedTensorType>(cst.getType()) : RankedTensorType();
      if (!type || !type.getElementType().isF32() || cst->use_empty() ||
          cst->hasAttr("kiln.tf32_rounded"))
        continue;
      bool only = llvm::all_of(cst->getUses(), [&](OpOperand &use) {
        if (readsAsOperand(use))
          return true;
        auto t = dyn_cast<TransposeOp>(use.getOwner());
        return t && !t->use_empty() &&
               llvm::all_of(t->getUses(), readsAsOperand);
      });
      if (!only)
        continue;
      auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
      ElementsAttr value;
      if (dense && dense.isSplat()) {
        float f = kiln::plan::floatToTf32(dense.getSplatValue<float>());
        value = DenseElementsAttr::get(
            type, ArrayRef<Attribute>{b.getF32FloatAttr(f)});
      } else {
        std::optional<ArrayRef<char>> raw = rawElements(cst.getValue());
        if (!raw || raw->size() % 4 != 0)
          continue;
        std::vector<char> data(raw->begin(), raw->end());
        kiln::plan::roundToTf32(data.data(), data.size());
        value = elementsLike(cst.getValue(), type, data, "_tf32");
      }
      cst.setValueAttr(value);
      cst->setAttr("kiln.tf32_rounded", b.getUnitAttr());
      ++stats.roundedWeights;
    }
  }

  /// What is left: transposes that only move dims of size 1 are reshapes
  /// (views, no kernel); dead transposes and packed-away constants go.
  void cleanUp(Block &body) {
    SmallVector<Operation *> ops;
    for (Operation &op : body)
      ops.push_back(&op);
    for (Operation *op : llvm::reverse(ops)) {
      if (isa<TransposeOp, ConstantOp>(op) && op->use_empty()) {
        op->erase();
        continue;
      }
      auto t = dyn_cast<TransposeOp>(op);
      if (!t || !t.getType().hasStaticShape())
        continue;
      // Order of the dims larger than 1 unchanged?
      SmallVector<int64_t> big;
      for (int64_t p : t.getPerm())
        if (cast<RankedTensorType>(t.getInput().getType()).getDimSize(p) != 1)
          big.push_back(p);
      if (!llvm::is_sorted(big))
        continue;
      b.setInsertionPoint(t);
      ArrayRef<int64_t> shape = t.getType().getShape();
      auto shapeType =
          RankedTensorType::get({(int64_t)shape.size()}, b.getI64Type());
      Value s = ConstantOp::create(b, t.getLoc(), shapeType,
                                   DenseElementsAttr::get(shapeType, shape));
      Value r = ReshapeOp::create(b, t.getLoc(), t.getType(), t.getInput(), s,
                                  b.getBoolAttr(false));
      t.getResult().replaceAllUsesWith(r);
      t.erase();
      ++stats.reshapes;
    }
    for (Operation &op : body)
      if (auto t = dyn_cast<TransposeOp>(op))
        ++stats.transposes;
  }
};

struct LayoutNhwcPass
    : public kiln::graph::impl::LayoutNhwcPassBase<LayoutNhwcPass> {
  KILN_PASS_STATISTICS_LayoutNhwcPass using LayoutNhwcPassBase::
      LayoutNhwcPassBase;
  void runOnOperation() override {
    LayoutNhwcStats stats;
    if (failed(layoutNhwc(getOperation(), stats, tf32)))
      return signalPassFailure();
    numConvs += stats.convs;
    numMoved += stats.moved;
    numTransposes += stats.transposes;
    numDenseGrouped += stats.denseGrouped;
    numKMajorWeights += stats.kMajorWeights;
    numRoundedWeights += stats.roundedWeights;
  }
};

} // namespace

LogicalResult kiln::graph::layoutNhwc(ModuleOp module, LayoutNhwcStats &stats,
                                      bool tf32) {
  auto main = module.lookupSymbol<func::FuncOp>("main");
  if (!main || !main.getBody().hasOneBlock())
    return success();
  Block &body = main.getBody().front();
  ::Layout layout{OpBuilder(module.getContext()), stats, tf32};
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  for (Operation *op : ops)
    layout.rewrite(op);
  layout.cleanUp(body);
  if (tf32) {
    layout.storeWeightsKMajor(body);
    layout.roundTensorCoreWeights(body);
  }
  return success();
}

/// The bytes of a non-splat dense or a resource attribute (none for others).
std::optional<ArrayRef<char>> kiln::graph::rawElements(ElementsAttr attr) {
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (dense.isSplat())
      return std::nullopt;
    return dense.getRawData();
  }
  if (auto res = dyn_cast<DenseResourceElementsAttr>(attr))
    if (AsmResourceBlob *blob = res.getRawHandle().getBlob())
      return blob->getData();
  return std::nullopt;
}

/// `data` as a `type` attribute of the kind of `like`: dense, or a resource
/// named after `like`'s with `suffix`.
ElementsAttr kiln::graph::elementsLike(ElementsAttr like, RankedTensorType type,
                                       ArrayRef<char> data, StringRef suffix) {
  if (isa<DenseElementsAttr>(like))
    return DenseElementsAttr::getFromRawBuffer(type, data);
  auto res = cast<DenseResourceElementsAttr>(like);
  return DenseResourceElementsAttr::get(
      type, (res.getRawHandle().getKey() + suffix).str(),
      HeapAsmResourceBlob::allocateAndCopyWithAlign(data, alignof(uint64_t)));
}
