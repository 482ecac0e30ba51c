//===- AnchorGemm.cpp - tensor-core anchors as GEMMs ----------------------===//
//
// Convs (NCHW, NHWC, grouped NHWC) and linalg contractions as GemmSpecs:
// AnchorGemm.h.
//
//===----------------------------------------------------------------------===//
#include "codegen/Tactics/AnchorGemm.h"
#include "codegen/Passes.h"
#include "codegen/Tactics/PaddedImage.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace kiln::codegen;

namespace {

/// f16 and bf16 run on the tensor cores; f32 too, as tf32, where allowed.
bool isTensorCoreType(Type t, bool tf32) {
  return t.isF16() || t.isBF16() || (tf32 && t.isF32());
}

bool isZeroFloat(Value v) { return matchPattern(v, m_AnyZeroFloat()); }

/// Whether `operand` (or what it views) is an argument of its kernel
/// function marked kiln.tf32_rounded (--precision tf32): a weight kilnc
/// rounded to tf32 at build time, or an activation the kernel producing it
/// rounded; the kernel need not round it again.
bool roundedAtBuild(Value operand) {
  auto arg = dyn_cast<BlockArgument>(viewRoot(operand));
  if (!arg)
    return false;
  auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  return func && func.getArgAttr(arg.getArgNumber(), kTf32RoundedAttr);
}

/// Statically shaped operands of a tensor-core type with an f32 result.
bool takesTensorCores(Value a, Value b, Value out, bool tf32) {
  auto at = cast<MemRefType>(a.getType());
  auto bt = cast<MemRefType>(b.getType());
  auto ot = cast<MemRefType>(out.getType());
  return at.hasStaticShape() && bt.hasStaticShape() && ot.hasStaticShape() &&
         isTensorCoreType(at.getElementType(), tf32) &&
         at.getElementType() == bt.getElementType() &&
         ot.getElementType().isF32();
}

/// A vector of 8 f16/bf16 (16 bytes) or f32 (two of 16 bytes) can be
/// loaded at any index whose innermost coordinate is a multiple of 8
/// (allowsVectorAccess).
bool allowsVectorLoads(MemRefType t) {
  return isTensorCoreType(t.getElementType(), /*tf32=*/true) &&
         allowsVectorAccess(t);
}

/// `operand` as a TMA tensor (GemmSpec::TmaView) when it is a statically
/// strided memref whose index `map` (results: loop dims, or 0) holds the
/// loop dims of `contiguous` (stride 1), `other` and `batch` (loop extents
/// `loops`), each group's dims linearizable with one stride (the last the
/// fastest); batch dims become one TMA dim where they linearize too.
std::optional<GemmSpec::TmaView> tmaViewOf(Value operand, AffineMap map,
                                           ArrayRef<int64_t> loops,
                                           ArrayRef<unsigned> contiguous,
                                           ArrayRef<unsigned> other,
                                           ArrayRef<unsigned> batch) {
  auto type = cast<MemRefType>(operand.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type.hasStaticShape() ||
      failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) || ShapedType::isDynamicShape(strides))
    return std::nullopt;
  llvm::DenseMap<unsigned, unsigned> where; // loop dim -> memref dim
  for (auto [i, e] : llvm::enumerate(map.getResults())) {
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      if (!where.insert({d.getPosition(), unsigned(i)}).second)
        return std::nullopt;
    } else if (auto c = dyn_cast<AffineConstantExpr>(e); !c || c.getValue()) {
      return std::nullopt;
    }
  }
  // Extent and stride of a group of loop dims as one linear index.
  auto linear = [&](ArrayRef<unsigned> ds, int64_t &extent, int64_t &stride) {
    extent = 1;
    stride = 0;
    int64_t next = -1;
    for (unsigned d : llvm::reverse(ds)) {
      auto it = where.find(d);
      if (it == where.end())
        return false;
      int64_t st = strides[it->second];
      if (next >= 0 && st != next)
        return false;
      if (next < 0)
        stride = st;
      extent *= loops[d];
      next = st * loops[d];
    }
    return !ds.empty();
  };
  GemmSpec::TmaView view{operand, {}, {}};
  int64_t extent, stride;
  if (!linear(contiguous, extent, stride) || stride != 1)
    return std::nullopt;
  view.dims.push_back(extent);
  view.strides.push_back(1);
  if (!linear(other, extent, stride))
    return std::nullopt;
  view.dims.push_back(extent);
  view.strides.push_back(stride);
  if (batch.empty())
    return view;
  if (linear(batch, extent, stride)) {
    view.dims.push_back(extent);
    view.strides.push_back(stride);
    return view;
  }
  for (unsigned d : llvm::reverse(batch)) {
    if (!linear({d}, extent, stride))
      return std::nullopt;
    view.dims.push_back(extent);
    view.strides.push_back(stride);
  }
  if (view.dims.size() > 5)
    return std::nullopt;
  return view;
}

/// The output pixel (image, y, x) of row m of a conv's implicit GEMM over
/// an oh x ow output.
struct Pixel {
  Value img, y, x;
};
Pixel outputPixel(OpBuilder &b, Location loc, Value m, int64_t oh, int64_t ow) {
  IndexMath im{b, loc};
  Value img = im.div(m, oh * ow), r = im.rem(m, oh * ow);
  return Pixel{img, im.div(r, ow), im.rem(r, ow)};
}

/// An NCHW conv (linalg.conv_2d_nchw_fchw) as an implicit GEMM: M = output
/// pixels (n, oy, ox), N = filters, K = taps (c, ky, kx) with kx fastest;
/// A is read through the im2col view of the image (the pixels' ox walks
/// its contiguous x), B is the filter as [F][C*KH*KW] rows.
std::optional<AnchorGemm> convGemm(linalg::Conv2DNchwFchwOp conv, bool tf32) {
  Value input = conv.getInputs()[0], filter = conv.getInputs()[1];
  Value out = conv.getOutputs()[0];
  if (!takesTensorCores(input, filter, out, tf32))
    return std::nullopt;
  auto it = cast<MemRefType>(input.getType());
  auto ft = cast<MemRefType>(filter.getType());
  auto ot = cast<MemRefType>(out.getType());
  SmallVector<int64_t> strides(conv.getStrides().getValues<int64_t>());
  SmallVector<int64_t> dilations(conv.getDilations().getValues<int64_t>());
  int64_t channels = ft.getDimSize(1), kh = ft.getDimSize(2),
          kw = ft.getDimSize(3);
  int64_t oh = ot.getDimSize(2), ow = ot.getDimSize(3);
  auto epilogue = std::make_shared<GemmEpilogue>(
      planEpilogue(conv, out, ValueRange{input, filter}));
  GemmSpec spec;
  spec.m = ot.getDimSize(0) * oh * ow;
  spec.n = ot.getDimSize(1);
  spec.k = channels * kh * kw;
  spec.elementType = it.getElementType();
  spec.bRounded = roundedAtBuild(filter);
  spec.aContiguousM = true;  // along ow
  spec.bContiguousN = false; // filter rows are [c][kh][kw]
  spec.cContiguousM = true;
  spec.loadCost = 10;
  auto pixel = [=](OpBuilder &b, Location loc, Value m) {
    return outputPixel(b, loc, m, oh, ow);
  };
  auto tap = [=](OpBuilder &b, Location loc, Value k) {
    IndexMath im{b, loc};
    Value c = im.div(k, kh * kw), r = im.rem(k, kh * kw);
    return std::array<Value, 3>{c, im.div(r, kw), im.rem(r, kw)};
  };
  std::optional<PaddedImage> pad =
      matchPaddedImage(conv, input, /*channelsLast=*/false, isZeroFloat);
  Value image = pad ? pad->source : input;
  // An activation its producer rounded to tf32 (kiln.tf32_rounded).
  spec.aRounded = roundedAtBuild(image);
  Type elem = it.getElementType();
  spec.loadA = [=](OpBuilder &b, Location loc, Value, Value m, Value k) {
    IndexMath im{b, loc};
    Pixel p = pixel(b, loc, m);
    auto [c, y, x] = tap(b, loc, k);
    Value iy = im.add(im.mul(p.y, strides[0]), im.mul(y, dilations[0]));
    Value ix = im.add(im.mul(p.x, strides[1]), im.mul(x, dilations[1]));
    if (!pad)
      return memref::LoadOp::create(b, loc, image,
                                    im.index(ValueRange{p.img, c, iy, ix}))
          .getResult();
    PaddedImage::Point at = pad->locate(im, iy, ix);
    Value v = memref::LoadOp::create(
        b, loc, image, im.index(ValueRange{p.img, c, at.y, at.x}));
    Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(elem, 0.0));
    return arith::SelectOp::create(b, loc, at.inside, v, zero).getResult();
  };
  spec.loadB = [=](OpBuilder &b, Location loc, Value, Value k, Value n) {
    auto [c, y, x] = tap(b, loc, k);
    return memref::LoadOp::create(
               b, loc, filter, IndexMath(b, loc).index(ValueRange{n, c, y, x}))
        .getResult();
  };
  // The filter as [F][C*KH*KW] rows; a 1x1, stride-1 conv's image as
  // [N][C][H*W] (pixels are its M).
  auto contiguous = [](MemRefType t) {
    return t.getLayout().isIdentity() &&
           allowsVectorLoads(
               MemRefType::get({t.getNumElements()}, t.getElementType()));
  };
  if (contiguous(ft) && spec.k % 8 == 0)
    spec.tmaB = GemmSpec::TmaView{filter, {spec.k, spec.n}, {1, spec.k}};
  if (contiguous(ft) && spec.k % 8 == 0)
    spec.vecB = [=](OpBuilder &b, Location loc, Value, Value k, Value n) {
      Value rows = memref::CollapseShapeOp::create(
          b, loc, filter, ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}});
      return GemmSpec::Ref{rows, IndexMath(b, loc).index(ValueRange{n, k})};
    };
  bool pointwise = kh == 1 && kw == 1 && strides[0] == 1 && strides[1] == 1 &&
                   !pad && it.getDimSize(2) == oh && it.getDimSize(3) == ow;
  if (pointwise && contiguous(it) && (oh * ow) % 8 == 0)
    spec.vecA = [=](OpBuilder &b, Location loc, Value, Value m, Value k) {
      IndexMath im{b, loc};
      Value flat = memref::CollapseShapeOp::create(
          b, loc, image, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
      return GemmSpec::Ref{flat, im.index(ValueRange{im.div(m, oh * ow), k,
                                                     im.rem(m, oh * ow)})};
    };
  spec.storeC = [=](OpBuilder &b, Location loc, Value, Value m, Value n,
                    Value v) {
    Pixel p = pixel(b, loc, m);
    epilogue->store(b, loc,
                    IndexMath(b, loc).index(ValueRange{p.img, n, p.y, p.x}), v);
  };
  AnchorGemm gemm{std::move(spec), epilogue, {}};
  if (pad)
    gemm.dead = pad->dead;
  return gemm;
}

/// A channels-last conv (linalg.conv_2d_nhwc_fhwc) as an implicit GEMM: M =
/// output pixels (n, oy, ox), N = filters, K = taps (ky, kx, c) with c
/// fastest. A row of A is a run of channels of one input pixel, so 8
/// channels are one 16-byte load (and a whole vector is in the padding or
/// not); B is the filter as [F][KH*KW*C] rows; C is the [N, OH, OW, F]
/// output, F fastest.
///
/// `grouped`: a grouped channels-last conv (linalg.conv_2d_nhwgc_gfhwc:
/// input [N, H, W, G, C/G], filter [G, M/G, KH, KW, C/G], output [N, OH,
/// OW, G, M/G]) as G batched implicit GEMMs: batch = group, the rest as
/// above within each group; the group dim comes before the channels of
/// every operand (the filter's first). Its zero-padded image is an [N, H,
/// W, G, C/G] buffer (reshape propagation puts the grouping before the
/// pad). Otherwise the batch is 1 and the batch index unused.
std::optional<AnchorGemm> channelsLastConvGemm(linalg::LinalgOp conv,
                                               bool grouped, bool tf32) {
  Value input = conv.getDpsInputs()[0], filter = conv.getDpsInputs()[1];
  Value out = conv.getDpsInits()[0];
  if (!takesTensorCores(input, filter, out, tf32))
    return std::nullopt;
  auto it = cast<MemRefType>(input.getType());
  auto ft = cast<MemRefType>(filter.getType());
  auto ot = cast<MemRefType>(out.getType());
  auto attr = [&](StringRef name) {
    return SmallVector<int64_t>(
        conv->getAttrOfType<DenseIntElementsAttr>(name).getValues<int64_t>());
  };
  SmallVector<int64_t> strides = attr("strides"), dilations = attr("dilations");
  // Filter [G,] F, KH, KW, C; output [N, OH, OW, (G,)] F.
  const int64_t g0 = grouped ? 1 : 0;
  int64_t kh = ft.getDimSize(g0 + 1), kw = ft.getDimSize(g0 + 2),
          channels = ft.getDimSize(g0 + 3);
  int64_t oh = ot.getDimSize(1), ow = ot.getDimSize(2);
  auto epilogue = std::make_shared<GemmEpilogue>(
      planEpilogue(conv, out, ValueRange{input, filter}));
  GemmSpec spec;
  spec.batch = grouped ? ft.getDimSize(0) : 1;
  spec.m = ot.getDimSize(0) * oh * ow;
  spec.n = ot.getDimSize(ot.getRank() - 1);
  spec.k = kh * kw * channels;
  spec.elementType = it.getElementType();
  spec.bRounded = roundedAtBuild(filter);
  spec.aContiguousM = false; // along c
  spec.bContiguousN = false; // filter rows are [kh][kw][c]
  spec.cContiguousM = false; // output rows are [f]
  spec.loadCost = 8;
  auto pixel = [=](OpBuilder &b, Location loc, Value m) {
    return outputPixel(b, loc, m, oh, ow);
  };
  // Indices with the group (when grouped) before the last one.
  auto withGroup = [=](SmallVector<Value> idx, Value g) {
    if (grouped)
      idx.insert(idx.end() - 1, g);
    return idx;
  };
  std::optional<PaddedImage> pad =
      matchPaddedImage(conv, input, /*channelsLast=*/true, isZeroFloat);
  Value image = pad ? pad->source : input;
  // An activation its producer rounded to tf32 (kiln.tf32_rounded).
  spec.aRounded = roundedAtBuild(image);
  Type elem = it.getElementType();
  // Source coordinates (img, y, x, (g,) c) of A(m, k) and whether they
  // lie in the image (null: no padding to check).
  struct Source {
    SmallVector<Value> idx;
    Value inside;
  };
  auto source = [=](OpBuilder &b, Location loc, Value g, Value m, Value k) {
    IndexMath im{b, loc};
    Pixel p = pixel(b, loc, m);
    Value c = im.rem(k, channels), tap = im.div(k, channels);
    Value ty = im.div(tap, kw), tx = im.rem(tap, kw);
    Value iy = im.add(im.mul(p.y, strides[0]), im.mul(ty, dilations[0]));
    Value ix = im.add(im.mul(p.x, strides[1]), im.mul(tx, dilations[1]));
    if (!pad)
      return Source{withGroup({p.img, iy, ix, c}, g), Value()};
    PaddedImage::Point at = pad->locate(im, iy, ix);
    return Source{withGroup({p.img, at.y, at.x, c}, g), at.inside};
  };
  spec.loadA = [=](OpBuilder &b, Location loc, Value g, Value m, Value k) {
    Source src = source(b, loc, g, m, k);
    Value v =
        memref::LoadOp::create(b, loc, image, IndexMath(b, loc).index(src.idx));
    if (!src.inside)
      return v;
    Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(elem, 0.0));
    return arith::SelectOp::create(b, loc, src.inside, v, zero).getResult();
  };
  // The filter as rows [(G,) F, KH*KW*C].
  auto rows = [=](OpBuilder &b, Location loc) {
    SmallVector<ReassociationIndices> re;
    if (grouped)
      re.push_back({0});
    re.push_back({g0});
    re.push_back({g0 + 1, g0 + 2, g0 + 3});
    return memref::CollapseShapeOp::create(b, loc, filter, re).getResult();
  };
  // Row indices ((g,) n, k).
  auto rowIndex = [=](Value g, Value n, Value k) {
    SmallVector<Value> idx;
    if (grouped)
      idx.push_back(g);
    idx.append({n, k});
    return idx;
  };
  bool filterRows = ft.getLayout().isIdentity();
  spec.loadB = [=](OpBuilder &b, Location loc, Value g, Value k, Value n) {
    IndexMath im{b, loc};
    if (filterRows)
      return memref::LoadOp::create(b, loc, rows(b, loc),
                                    im.index(rowIndex(g, n, k)))
          .getResult();
    Value c = im.rem(k, channels), tap = im.div(k, channels);
    SmallVector<Value> idx = {n, im.div(tap, kw), im.rem(tap, kw), c};
    if (grouped)
      idx.insert(idx.begin(), g);
    return memref::LoadOp::create(b, loc, filter, im.index(idx)).getResult();
  };
  auto imageType = cast<MemRefType>(image.getType());
  if (filterRows && allowsVectorLoads(ft) && spec.k % 8 == 0) {
    // TMA: the filter as [(G,) F, K] rows.
    spec.tmaB = GemmSpec::TmaView{filter, {spec.k, spec.n}, {1, spec.k}};
    if (grouped) {
      spec.tmaB->dims.push_back(spec.batch);
      spec.tmaB->strides.push_back(spec.n * spec.k);
    }
  }
  // A pointwise conv's image is a plain [N*H*W, (G,) C] matrix.
  SmallVector<int64_t> imageStrides;
  int64_t imageOffset;
  if (kh == 1 && kw == 1 && strides[0] == 1 && strides[1] == 1 && !pad &&
      imageType.getDimSize(1) == oh && imageType.getDimSize(2) == ow &&
      succeeded(imageType.getStridesAndOffset(imageStrides, imageOffset)) &&
      imageStrides.back() == 1) {
    // Pixels (n, y, x) linearize with the x stride when rows are dense.
    int64_t pixel = imageStrides[2];
    if (imageStrides[1] == pixel * ow && imageStrides[0] == pixel * oh * ow) {
      spec.tmaA = GemmSpec::TmaView{image, {channels, spec.m}, {1, pixel}};
      if (grouped) {
        spec.tmaA->dims.push_back(spec.batch);
        spec.tmaA->strides.push_back(imageStrides[3]);
      }
    }
  }
  if (filterRows && allowsVectorLoads(ft) && spec.k % 8 == 0)
    spec.vecB = [=](OpBuilder &b, Location loc, Value g, Value k, Value n) {
      return GemmSpec::Ref{rows(b, loc),
                           IndexMath(b, loc).index(rowIndex(g, n, k))};
    };
  // 8 consecutive k are 8 channels of one tap (and group) when C is a
  // multiple of 8.
  if (channels % 8 == 0 && allowsVectorLoads(imageType))
    spec.vecA = [=](OpBuilder &b, Location loc, Value g, Value m, Value k) {
      Source src = source(b, loc, g, m, k);
      return GemmSpec::Ref{image, IndexMath(b, loc).index(src.idx), src.inside};
    };
  auto outIndex = [=](OpBuilder &b, Location loc, Value g, Value m, Value n) {
    Pixel p = pixel(b, loc, m);
    return IndexMath(b, loc).index(withGroup({p.img, p.y, p.x, n}, g));
  };
  spec.storeC = [=](OpBuilder &b, Location loc, Value g, Value m, Value n,
                    Value v) {
    epilogue->store(b, loc, outIndex(b, loc, g, m, n), v);
  };
  if (spec.n % 8 == 0 && epilogue->vectorizes())
    spec.storeC8 = [=](OpBuilder &b, Location loc, Value g, Value m, Value n,
                       ArrayRef<Value> values) {
      epilogue->store8(b, loc, outIndex(b, loc, g, m, n), values);
    };
  AnchorGemm gemm{std::move(spec), epilogue, {}};
  if (pad)
    gemm.dead = pad->dead;
  return gemm;
}

/// Any linalg contraction (matmul, batch_matmul, transposed or
/// broadcasting generics: mul-add bodies, possibly through casts) whose
/// operand maps are projections: its batch, M, N and K dims (each
/// possibly several) are linearized into one GEMM.
std::optional<AnchorGemm> contractionGemm(linalg::LinalgOp op, bool tf32) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->k.empty())
    return std::nullopt;
  Value lhs = op.getDpsInputs()[0], rhs = op.getDpsInputs()[1];
  Value out = op.getDpsInits()[0];
  if (!takesTensorCores(lhs, rhs, out, tf32))
    return std::nullopt;
  auto lt = cast<MemRefType>(lhs.getType());
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (AffineMap m : maps)
    for (AffineExpr e : m.getResults())
      if (!isa<AffineDimExpr, AffineConstantExpr>(e))
        return std::nullopt;
  SmallVector<int64_t> loops = op.getStaticLoopRanges();
  auto product = [&](ArrayRef<unsigned> ds) {
    int64_t p = 1;
    for (unsigned d : ds)
      p *= loops[d];
    return p;
  };
  // The dim group (0 batch, 1 m, 2 n, 3 k) of the operand's innermost
  // index: neighbouring threads should walk it.
  auto innermost = [&](AffineMap m) -> int {
    if (m.getNumResults() == 0)
      return -1;
    auto d = dyn_cast<AffineDimExpr>(m.getResults().back());
    if (!d)
      return -1;
    unsigned pos = d.getPosition();
    if (llvm::is_contained(dims->m, pos))
      return 1;
    if (llvm::is_contained(dims->n, pos))
      return 2;
    if (llvm::is_contained(dims->k, pos))
      return 3;
    return 0;
  };
  auto epilogue = std::make_shared<GemmEpilogue>(
      planEpilogue(op, out, ValueRange{lhs, rhs}));
  GemmSpec spec;
  spec.batch = product(dims->batch);
  spec.m = product(dims->m);
  spec.n = product(dims->n);
  spec.k = product(dims->k);
  spec.elementType = lt.getElementType();
  spec.aRounded = roundedAtBuild(lhs);
  spec.bRounded = roundedAtBuild(rhs);
  spec.aContiguousM = innermost(maps[0]) == 1;
  spec.bContiguousN = innermost(maps[1]) == 2;
  spec.cContiguousM = innermost(maps[2]) == 1;
  unsigned numLoops = loops.size();
  auto groups = std::make_shared<linalg::ContractionDimensions>(*dims);
  // Loop indices from the linear batch, row and column indices.
  auto loopIndices = [=](OpBuilder &b, Location loc, Value bi, Value i, Value j,
                         bool aRows, bool bCols) {
    IndexMath im{b, loc};
    SmallVector<Value> idx(numLoops);
    auto spread = [&](Value linear, ArrayRef<unsigned> ds) {
      for (unsigned d : llvm::reverse(ds)) {
        if (ds.size() == 1) {
          idx[d] = linear;
          break;
        }
        idx[d] = im.rem(linear, loops[d]);
        linear = im.div(linear, loops[d]);
      }
    };
    spread(bi, groups->batch);
    // A: (m, k); B: (k, n); C: (m, n).
    spread(i, aRows ? groups->m : groups->k);
    spread(j, bCols ? groups->n : groups->k);
    return idx;
  };
  auto at = [](OpBuilder &b, Location loc, AffineMap m, ArrayRef<Value> idx) {
    SmallVector<Value> r;
    for (AffineExpr e : m.getResults()) {
      if (auto d = dyn_cast<AffineDimExpr>(e))
        r.push_back(IndexMath(b, loc).index(idx[d.getPosition()]));
      else
        r.push_back(arith::ConstantIndexOp::create(
            b, loc, cast<AffineConstantExpr>(e).getValue()));
    }
    return r;
  };
  spec.loadA = [=](OpBuilder &b, Location loc, Value bi, Value m, Value k) {
    SmallVector<Value> idx = loopIndices(b, loc, bi, m, k, true, false);
    return memref::LoadOp::create(b, loc, lhs, at(b, loc, maps[0], idx))
        .getResult();
  };
  spec.loadB = [=](OpBuilder &b, Location loc, Value bi, Value k, Value n) {
    SmallVector<Value> idx = loopIndices(b, loc, bi, k, n, false, true);
    return memref::LoadOp::create(b, loc, rhs, at(b, loc, maps[1], idx))
        .getResult();
  };
  // Vector loads along an operand's contiguous index: it must be the last
  // (fastest) dim of its group, so that 8 consecutive linear indices are 8
  // consecutive elements.
  auto vectorizable = [&](Value operand, AffineMap m,
                          ArrayRef<unsigned> group) {
    auto last = dyn_cast<AffineDimExpr>(m.getResults().back());
    return last && !group.empty() && last.getPosition() == group.back() &&
           allowsVectorLoads(cast<MemRefType>(operand.getType()));
  };
  if (vectorizable(lhs, maps[0], spec.aContiguousM ? dims->m : dims->k))
    spec.vecA = [=](OpBuilder &b, Location loc, Value bi, Value m, Value k) {
      SmallVector<Value> idx = loopIndices(b, loc, bi, m, k, true, false);
      return GemmSpec::Ref{lhs, at(b, loc, maps[0], idx)};
    };
  if (vectorizable(rhs, maps[1], spec.bContiguousN ? dims->n : dims->k))
    spec.vecB = [=](OpBuilder &b, Location loc, Value bi, Value k, Value n) {
      SmallVector<Value> idx = loopIndices(b, loc, bi, k, n, false, true);
      return GemmSpec::Ref{rhs, at(b, loc, maps[1], idx)};
    };
  // TMA views of the operands whose groups are strided dims.
  if (spec.vecA)
    spec.tmaA =
        tmaViewOf(lhs, maps[0], loops, spec.aContiguousM ? dims->m : dims->k,
                  spec.aContiguousM ? dims->k : dims->m, dims->batch);
  if (spec.vecB)
    spec.tmaB =
        tmaViewOf(rhs, maps[1], loops, spec.bContiguousN ? dims->n : dims->k,
                  spec.bContiguousN ? dims->k : dims->n, dims->batch);
  spec.storeC = [=](OpBuilder &b, Location loc, Value bi, Value m, Value n,
                    Value v) {
    SmallVector<Value> idx = loopIndices(b, loc, bi, m, n, true, true);
    epilogue->store(b, loc, at(b, loc, maps[2], idx), v);
  };
  // 8 consecutive linear n are 8 consecutive elements of C's last dim
  // when that dim is the fastest n dim and a multiple of 8 long.
  auto lastC = dyn_cast<AffineDimExpr>(maps[2].getResults().back());
  if (!spec.cContiguousM && lastC && !dims->n.empty() &&
      lastC.getPosition() == dims->n.back() && loops[dims->n.back()] % 8 == 0 &&
      epilogue->vectorizes())
    spec.storeC8 = [=](OpBuilder &b, Location loc, Value bi, Value m, Value n,
                       ArrayRef<Value> values) {
      SmallVector<Value> idx = loopIndices(b, loc, bi, m, n, true, true);
      epilogue->store8(b, loc, at(b, loc, maps[2], idx), values);
    };
  return AnchorGemm{std::move(spec), epilogue, {}};
}

} // namespace

std::optional<AnchorGemm> kiln::codegen::anchorGemm(Operation *anchor,
                                                    bool tf32) {
  if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(anchor))
    return convGemm(conv, tf32);
  if (auto conv = dyn_cast<linalg::Conv2DNhwcFhwcOp>(anchor))
    return channelsLastConvGemm(conv, /*grouped=*/false, tf32);
  if (auto conv = dyn_cast<linalg::Conv2DNhwgcGfhwcOp>(anchor))
    return channelsLastConvGemm(conv, /*grouped=*/true, tf32);
  return contractionGemm(cast<linalg::LinalgOp>(anchor), tf32);
}

bool kiln::codegen::isTensorCoreAnchor(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.hasPureBufferSemantics() &&
         (isa<linalg::Conv2DNchwFchwOp, linalg::Conv2DNhwcFhwcOp,
              linalg::Conv2DNhwgcGfhwcOp>(op) ||
          linalg::isaContractionOpInterface(linalgOp));
}
