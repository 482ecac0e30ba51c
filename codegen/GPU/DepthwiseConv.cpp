//===- DepthwiseConv.cpp - channels-last depthwise convolution kernels ----===//
//
// kiln-gpu-depthwise-conv: see codegen/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "codegen/GPU/Reductions.h"
#include "codegen/Passes.h"
#include "codegen/Tactics/PaddedImage.h"
#include "codegen/Tactics/TensorCoreGemm.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_GPUDEPTHWISECONVPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;
using namespace kiln::codegen;

namespace {

constexpr int64_t kThreads = 256;
/// Most taps a kernel unrolls (9x9).
constexpr int64_t kMaxTaps = 81;

/// `e` as constant + sum of coef[d] * d over the dims: false unless it is
/// such a sum of dims times constants.
bool linearIn(AffineExpr e, SmallVectorImpl<int64_t> &coef,
              int64_t &constant) {
  if (auto d = dyn_cast<AffineDimExpr>(e)) {
    coef[d.getPosition()] += 1;
    return true;
  }
  if (auto k = dyn_cast<AffineConstantExpr>(e)) {
    constant += k.getValue();
    return true;
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return false;
  if (bin.getKind() == AffineExprKind::Add)
    return linearIn(bin.getLHS(), coef, constant) &&
           linearIn(bin.getRHS(), coef, constant);
  if (bin.getKind() != AffineExprKind::Mul)
    return false;
  auto k = dyn_cast<AffineConstantExpr>(bin.getRHS());
  auto d = dyn_cast<AffineDimExpr>(bin.getLHS());
  if (!k || !d)
    return false;
  coef[d.getPosition()] += k.getValue();
  return true;
}

bool isZero(Value v) {
  APFloat f(0.0);
  return matchPattern(v, m_ConstantFloat(&f)) && f.isZero();
}

/// `v`, or the value an extf of it widens.
Value unwidened(Value v) {
  if (auto ext = v.getDefiningOp<arith::ExtFOp>())
    return ext.getIn();
  return v;
}

/// A depthwise convolution as linalg leaves it: output[n, y, x, c] +=
/// image[n, y*sy + i*dy, x*sx + j*dx, c] * filter[..c..i..j..], the filter's
/// other dims of size 1, the body a multiply-add (operands possibly
/// widened).
struct Depthwise {
  linalg::GenericOp op;
  Value image, filter, acc;
  unsigned n, y, x, c, i, j; // loop dims
  int64_t strideY, strideX, dilY, dilX, kh, kw;
  /// Per filter dim: which of c, i, j indexes it (or -1: size 1).
  SmallVector<int> filterDims;
};

std::optional<Depthwise> matchDepthwise(linalg::GenericOp g) {
  if (!g.hasPureBufferSemantics() || g.getNumDpsInputs() != 2 ||
      g.getNumDpsInits() != 1 || g.getNumLoops() != 6 ||
      g.getNumReductionLoops() != 2)
    return std::nullopt;
  SmallVector<int64_t> loops = g.getStaticLoopRanges();
  if (ShapedType::isDynamicShape(loops))
    return std::nullopt;
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  AffineMap out = maps[2], img = maps[0], fil = maps[1];
  if (out.getNumResults() != 4 || img.getNumResults() != 4 ||
      !out.isProjectedPermutation())
    return std::nullopt;
  Depthwise d;
  d.op = g;
  d.image = g.getDpsInputs()[0];
  d.filter = g.getDpsInputs()[1];
  d.acc = g.getDpsInits()[0];
  auto dim = [](AffineExpr e) {
    return cast<AffineDimExpr>(e).getPosition();
  };
  d.n = dim(out.getResult(0));
  d.y = dim(out.getResult(1));
  d.x = dim(out.getResult(2));
  d.c = dim(out.getResult(3));
  SmallVector<unsigned> reds;
  for (auto [k, it] : llvm::enumerate(g.getIteratorTypesArray()))
    if (it == utils::IteratorType::reduction)
      reds.push_back(k);
  d.i = reds[0];
  d.j = reds[1];
  // The image: [n, y*sy + i*dy, x*sx + j*dx, c].
  if (img.getResult(0) != out.getResult(0) ||
      img.getResult(3) != out.getResult(3))
    return std::nullopt;
  auto window = [&](AffineExpr e, unsigned outer, int64_t &stride,
                    int64_t &dil, unsigned &tap) {
    SmallVector<int64_t> coef(6, 0);
    int64_t constant = 0;
    if (!linearIn(e, coef, constant) || constant != 0 || coef[outer] <= 0)
      return false;
    stride = coef[outer];
    int used = 0;
    for (unsigned r : reds)
      if (coef[r] > 0) {
        dil = coef[r];
        tap = r;
        ++used;
      }
    for (unsigned k = 0; k < 6; ++k)
      if (k != outer && !llvm::is_contained(reds, k) && coef[k] != 0)
        return false;
    return used == 1;
  };
  unsigned tapY = 0, tapX = 0;
  if (!window(img.getResult(1), d.y, d.strideY, d.dilY, tapY) ||
      !window(img.getResult(2), d.x, d.strideX, d.dilX, tapX) ||
      tapY == tapX)
    return std::nullopt;
  d.i = tapY;
  d.j = tapX;
  d.kh = loops[d.i];
  d.kw = loops[d.j];
  if (d.kh * d.kw > kMaxTaps)
    return std::nullopt;
  // The filter: c, i and j once each, its other dims constant 0 of size 1.
  auto filterType = dyn_cast<MemRefType>(d.filter.getType());
  if (!filterType || !filterType.hasStaticShape())
    return std::nullopt;
  int seen = 0;
  for (auto [k, e] : llvm::enumerate(fil.getResults())) {
    if (auto de = dyn_cast<AffineDimExpr>(e)) {
      unsigned p = de.getPosition();
      if (p != d.c && p != d.i && p != d.j)
        return std::nullopt;
      d.filterDims.push_back(p);
      seen |= p == d.c ? 1 : p == d.i ? 2 : 4;
      continue;
    }
    auto k0 = dyn_cast<AffineConstantExpr>(e);
    if (!k0 || k0.getValue() != 0 || filterType.getDimSize(k) != 1)
      return std::nullopt;
    d.filterDims.push_back(-1);
  }
  if (seen != 7)
    return std::nullopt;
  // The body: yield acc + widen(image) * widen(filter).
  Block &body = g.getRegion().front();
  auto add = body.getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return std::nullopt;
  Value accArg = body.getArgument(2);
  Value prod = add.getLhs() == accArg ? add.getRhs() : add.getLhs();
  if ((add.getLhs() != accArg && add.getRhs() != accArg) ||
      !accArg.hasOneUse())
    return std::nullopt;
  auto mul = prod.getDefiningOp<arith::MulFOp>();
  if (!mul)
    return std::nullopt;
  Value a = unwidened(mul.getLhs()), b = unwidened(mul.getRhs());
  if (!((a == body.getArgument(0) && b == body.getArgument(1)) ||
        (a == body.getArgument(1) && b == body.getArgument(0))))
    return std::nullopt;
  return d;
}

struct DepthwiseConvPass
    : public kiln::codegen::impl::GpuDepthwiseConvPassBase<DepthwiseConvPass> {
  KILN_PASS_STATISTICS_GpuDepthwiseConvPass using GpuDepthwiseConvPassBase::
      GpuDepthwiseConvPassBase;

  /// The op right after `g` when it maps `acc` elementwise (identity maps
  /// for `acc` and its output, any projected permutation for its other
  /// inputs: a bias, a residual) and nothing else reads `acc`, a fresh
  /// buffer: the kernel applies its body to each sum and stores its result.
  static linalg::GenericOp epilogueOf(linalg::GenericOp g, Value acc) {
    Operation *next = g->getNextNode();
    while (next && isMovable(next) && !isa<memref::AllocOp>(next))
      next = next->getNextNode();
    auto e = dyn_cast_or_null<linalg::GenericOp>(next);
    if (!e || !e.hasPureBufferSemantics() || e.getNumDpsInits() != 1 ||
        e.getNumReductionLoops() != 0 || e.getNumLoops() != 4 ||
        !e.getIndexingMapsArray().back().isIdentity() ||
        !e.getRegion().front().getArgument(e.getNumDpsInputs()).use_empty() ||
        llvm::any_of(e.getRegion().front(),
                     [](Operation &op) { return isa<linalg::IndexOp>(op); }))
      return {};
    bool reads = false;
    for (OpOperand *in : e.getDpsInputOperands()) {
      AffineMap m = e.getMatchingIndexingMap(in);
      if (!m.isProjectedPermutation())
        return {};
      if (in->get() == acc) {
        if (!m.isIdentity())
          return {};
        reads = true;
      }
    }
    if (!reads || viewRoot(e.getDpsInits()[0]) == viewRoot(acc))
      return {};
    return e;
  }

  /// The fill of `acc` with zero before `g` in its block, when nothing else
  /// touches `acc` between them.
  static linalg::FillOp zeroFillOf(linalg::GenericOp g, Value acc) {
    for (Operation *o = g->getPrevNode(); o; o = o->getPrevNode()) {
      if (auto f = dyn_cast<linalg::FillOp>(o)) {
        if (f.getDpsInits()[0] == acc)
          return isZero(f.getInputs()[0]) ? f : linalg::FillOp();
        continue;
      }
      if (llvm::is_contained(o->getOperands(), acc))
        return {};
    }
    return {};
  }

  void lower(const Depthwise &d) {
    linalg::GenericOp g = d.op;
    auto accType = cast<MemRefType>(d.acc.getType());
    // Sums from zero when `acc` was just filled with it (the kernel writes
    // every sum: the fill goes), else from `acc`'s values. The epilogue folds
    // in when only the kernel and it use `acc`, a fresh buffer.
    linalg::FillOp fill = zeroFillOf(g, d.acc);
    linalg::GenericOp epi = epilogueOf(g, d.acc);
    if (epi && (!d.acc.getDefiningOp<memref::AllocOp>() ||
                epi.getStaticLoopRanges() !=
                    SmallVector<int64_t>(accType.getShape()) ||
                llvm::any_of(d.acc.getUsers(), [&](Operation *user) {
                  return user != g && user != fill && user != epi;
                })))
      epi = {};
    std::optional<PaddedImage> pad =
        matchPaddedImage(g, d.image, /*channelsLast=*/true, isZero);
    Value image = pad ? pad->source : d.image;
    auto imageType = cast<MemRefType>(image.getType());
    if (!imageType.hasStaticShape())
      return;
    Value out = epi ? epi.getDpsInits()[0] : d.acc;
    auto outType = cast<MemRefType>(out.getType());
    int64_t channels = accType.getDimSize(3);
    int64_t oh = accType.getDimSize(1), ow = accType.getDimSize(2);
    // 8 channels a thread when the image moves in 16-byte vectors.
    int64_t width = imageType.getElementTypeBitWidth() == 16 &&
                            allowsVectorAccess(imageType, 8) &&
                            channels % 8 == 0
                        ? 8
                        : 1;
    bool vectorStore = width == 8 && outType.getElementTypeBitWidth() == 16 &&
                       allowsVectorAccess(outType, 8);
    int64_t groups = channels / width;
    int64_t total = accType.getDimSize(0) * oh * ow * groups;

    OpBuilder b(g);
    if (epi)
      b.setInsertionPoint(epi);
    Location loc = g.getLoc();
    auto cIdx = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    auto launch = gpu::LaunchOp::create(
        b, loc, cIdx((total + kThreads - 1) / kThreads), cIdx(1), cIdx(1),
        cIdx(kThreads), cIdx(1), cIdx(1));
    launch->setAttr(kTacticAttr,
                    b.getStringAttr(width == 8 ? "depthwise conv, 8 channels"
                                               : "depthwise conv"));
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&launch.getBody().front());
      IndexMath im{b, loc};
      Value e = im.add(im.mul(im.cast(launch.getBlockIds().x), kThreads),
                       im.cast(launch.getThreadIds().x));
      auto inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           e, im.c(total));
      auto guardIf = scf::IfOp::create(b, loc, inRange, false);
      b.setInsertionPointToStart(guardIf.thenBlock());
      // e = ((n * OH + y) * OW + x) * groups + g: channels fastest.
      Value grp = im.rem(e, groups), p = im.div(e, groups);
      Value x = im.rem(p, ow), q = im.div(p, ow);
      Value y = im.rem(q, oh), n = im.div(q, oh);
      Value c0 = im.mul(grp, width);
      Block &body = g.getRegion().front();
      Type sumType = body.getArgument(2).getType();
      SmallVector<Value> sums;
      for (int64_t k = 0; k < width; ++k)
        sums.push_back(
            fill ? arith::ConstantOp::create(b, loc,
                                             b.getFloatAttr(sumType, 0))
                       .getResult()
                 : memref::LoadOp::create(
                       b, loc, d.acc,
                       im.index(ValueRange{n, y, x, im.add(c0, k)}))
                       .getResult());
      auto filterAt = [&](Value c, int64_t i, int64_t j) {
        SmallVector<Value> idx;
        for (int dim : d.filterDims)
          idx.push_back(dim < 0                ? im.c(0)
                        : dim == (int)d.c      ? c
                        : dim == (int)d.i      ? im.c(i)
                                               : im.c(j));
        return memref::LoadOp::create(b, loc, d.filter, im.index(idx))
            .getResult();
      };
      for (int64_t i = 0; i < d.kh; ++i)
        for (int64_t j = 0; j < d.kw; ++j) {
          Value iy = im.add(im.mul(y, d.strideY), i * d.dilY);
          Value ix = im.add(im.mul(x, d.strideX), j * d.dilX);
          Value inside;
          if (pad) {
            PaddedImage::Point at = pad->locate(im, iy, ix);
            iy = at.y;
            ix = at.x;
            inside = at.inside;
          }
          SmallVector<Value> idx = im.index(ValueRange{n, iy, ix, c0});
          SmallVector<Value> pixels;
          if (width == 8) {
            Value v = vector::LoadOp::create(
                b, loc, VectorType::get({8}, imageType.getElementType()), image,
                idx, /*nontemporal=*/false, llvm::MaybeAlign(16));
            for (int64_t k = 0; k < 8; ++k)
              pixels.push_back(vector::ExtractOp::create(b, loc, v,
                                                         ArrayRef<int64_t>{k}));
          } else {
            pixels.push_back(memref::LoadOp::create(b, loc, image, idx));
          }
          for (int64_t k = 0; k < width; ++k) {
            IRMapping map;
            map.map(body.getArgument(0), pixels[k]);
            map.map(body.getArgument(1), filterAt(im.add(c0, k), i, j));
            map.map(body.getArgument(2), sums[k]);
            for (Operation &op : body.without_terminator())
              b.clone(op, map);
            Value next = map.lookup(body.getTerminator()->getOperand(0));
            // Taps in the padding add zero: skipped.
            sums[k] = inside ? arith::SelectOp::create(b, loc, inside, next,
                                                       sums[k])
                                   .getResult()
                             : next;
          }
        }
      // The epilogue's body on each sum (its other inputs loaded where its
      // maps say), or the sums themselves.
      SmallVector<Value> results;
      for (int64_t k = 0; k < width; ++k) {
        Value c = im.add(c0, k);
        SmallVector<Value> at = im.index(ValueRange{n, y, x, c});
        if (!epi) {
          results.push_back(sums[k]);
          continue;
        }
        Block &eb = epi.getRegion().front();
        IRMapping map;
        for (OpOperand *in : epi.getDpsInputOperands()) {
          BlockArgument arg = eb.getArgument(in->getOperandNumber());
          if (in->get() == d.acc) {
            map.map(arg, sums[k]);
            continue;
          }
          if (arg.use_empty())
            continue;
          SmallVector<Value> idx;
          for (AffineExpr r : epi.getMatchingIndexingMap(in).getResults())
            idx.push_back(at[cast<AffineDimExpr>(r).getPosition()]);
          map.map(arg, memref::LoadOp::create(b, loc, in->get(), idx));
        }
        for (Operation &op : eb.without_terminator())
          b.clone(op, map);
        results.push_back(map.lookup(eb.getTerminator()->getOperand(0)));
      }
      if (vectorStore) {
        Value v = vector::FromElementsOp::create(
            b, loc, VectorType::get({8}, outType.getElementType()), results);
        vector::StoreOp::create(b, loc, v, out,
                                im.index(ValueRange{n, y, x, c0}),
                                /*nontemporal=*/false, llvm::MaybeAlign(16));
      } else {
        for (int64_t k = 0; k < width; ++k)
          memref::StoreOp::create(
              b, loc, results[k], out,
              im.index(ValueRange{n, y, x, im.add(c0, k)}));
      }
      b.setInsertionPointToEnd(&launch.getBody().front());
      gpu::TerminatorOp::create(b, loc);
    }
    g->erase();
    if (fill)
      fill->erase();
    if (epi) {
      epi->erase();
      eraseDeadBuffer(d.acc);
    }
    if (pad)
      for (Operation *op : pad->dead)
        op->erase();
    ++numConvs;
  }

  void runOnOperation() override {
    SmallVector<Depthwise> convs;
    getOperation().walk([&](linalg::GenericOp g) {
      if (std::optional<Depthwise> d = matchDepthwise(g))
        convs.push_back(*d);
    });
    for (const Depthwise &d : convs)
      lower(d);
  }
};

} // namespace
