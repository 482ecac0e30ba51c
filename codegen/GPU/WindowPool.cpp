//===- WindowPool.cpp - channels-last max pooling kernels
//------------------===//
//
// kiln-gpu-window-pool: see codegen/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "codegen/Tactics/PaddedImage.h"
#include "codegen/Tactics/TensorCoreGemm.h"
#include "codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_GPUWINDOWPOOLPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;
using namespace kiln::codegen;

namespace {

/// A float constant no element can be below: padding with it never wins
/// a max, so skipping the padding gives the same result.
bool isLowest(Value v) {
  APFloat f(0.0);
  if (!matchPattern(v, m_ConstantFloat(&f)))
    return false;
  if (f.isInfinity() && f.isNegative())
    return true;
  APFloat lowest = APFloat::getLargest(f.getSemantics(), /*Negative=*/true);
  return f.compare(lowest) == APFloat::cmpEqual;
}

/// Whether 8 channels of one pixel move as one 16-byte vector.
bool vectorChannels(MemRefType t) {
  if (!t.hasStaticShape() || t.getShape().back() % 8 != 0 ||
      t.getElementTypeBitWidth() != 16)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(t.getStridesAndOffset(strides, offset)) || offset % 8 != 0 ||
      strides.back() != 1)
    return false;
  return llvm::all_of(ArrayRef(strides).drop_back(),
                      [](int64_t s) { return s % 8 == 0; });
}

struct WindowPoolPass
    : public kiln::codegen::impl::GpuWindowPoolPassBase<WindowPoolPass> {
  KILN_PASS_STATISTICS_GpuWindowPoolPass using GpuWindowPoolPassBase::
      GpuWindowPoolPassBase;

  void lower(linalg::PoolingNhwcMaxOp pool) {
    Value input = pool.getInputs()[0], out = pool.getOutputs()[0];
    auto it = cast<MemRefType>(input.getType());
    auto ot = cast<MemRefType>(out.getType());
    Type elem = ot.getElementType();
    if (!it.hasStaticShape() || !ot.hasStaticShape() || !isa<FloatType>(elem))
      return;
    // The init must be the lowest value: the kernel writes the max of the
    // window alone.
    linalg::FillOp init;
    for (Operation *user : out.getUsers())
      if (auto f = dyn_cast<linalg::FillOp>(user);
          f && f->getBlock() == pool->getBlock() && f->isBeforeInBlock(pool) &&
          isLowest(f.getInputs()[0]))
        init = f;
    if (!init)
      return;
    // Nothing may touch `out` between the fill and the pool (the padding's
    // fill and copy write other buffers).
    for (Operation *o = init->getNextNode(); o != pool; o = o->getNextNode()) {
      if (isMovable(o))
        continue;
      auto dps = dyn_cast<linalg::LinalgOp>(o);
      if (!dps || !isa<linalg::FillOp, linalg::CopyOp>(o) ||
          viewRoot(dps.getDpsInits()[0]) == viewRoot(out))
        return;
    }
    std::optional<PaddedImage> pad =
        matchPaddedImage(pool, input, /*channelsLast=*/true, isLowest);
    Value image = pad ? pad->source : input;
    auto imageType = cast<MemRefType>(image.getType());
    SmallVector<int64_t> strides(pool.getStrides().getValues<int64_t>());
    SmallVector<int64_t> dilations(pool.getDilations().getValues<int64_t>());
    auto window = cast<ShapedType>(pool.getInputs()[1].getType());
    int64_t kh = window.getDimSize(0), kw = window.getDimSize(1);
    int64_t oh = ot.getDimSize(1), ow = ot.getDimSize(2),
            channels = ot.getDimSize(3);
    int64_t width = vectorChannels(imageType) && vectorChannels(ot) ? 8 : 1;
    int64_t groups = channels / width;
    int64_t total = ot.getDimSize(0) * oh * ow * groups;
    const int64_t threads = 256;

    OpBuilder b(pool);
    Location loc = pool.getLoc();
    auto dim = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    auto launch =
        gpu::LaunchOp::create(b, loc, dim((total + threads - 1) / threads),
                              dim(1), dim(1), dim(threads), dim(1), dim(1));
    launch->setAttr(kTacticAttr,
                    b.getStringAttr(width == 8 ? "window max pool, 8 channels"
                                               : "window max pool"));
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&launch.getBody().front());
      IndexMath im{b, loc};
      Value e = im.add(im.mul(im.cast(launch.getBlockIds().x), threads),
                       im.cast(launch.getThreadIds().x));
      auto inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, e,
                                           im.c(total));
      auto guardIf = scf::IfOp::create(b, loc, inRange, false);
      b.setInsertionPointToStart(guardIf.thenBlock());
      // e = ((n * OH + y) * OW + x) * groups + g: channels fastest.
      Value g = im.rem(e, groups), p = im.div(e, groups);
      Value x = im.rem(p, ow), q = im.div(p, ow);
      Value y = im.rem(q, oh), n = im.div(q, oh);
      Value c = im.mul(g, width);
      Type accType = width == 8 ? Type(VectorType::get({8}, elem)) : elem;
      auto lowestAttr = b.getFloatAttr(
          elem, APFloat::getInf(cast<FloatType>(elem).getFloatSemantics(),
                                /*Negative=*/true));
      Value lowest =
          width == 8
              ? arith::ConstantOp::create(
                    b, loc, accType,
                    DenseElementsAttr::get(cast<VectorType>(accType),
                                           lowestAttr))
                    .getResult()
              : arith::ConstantOp::create(b, loc, lowestAttr).getResult();
      Value acc = lowest;
      for (int64_t i = 0; i < kh; ++i)
        for (int64_t j = 0; j < kw; ++j) {
          Value iy = im.add(im.mul(y, strides[0]), i * dilations[0]);
          Value ix = im.add(im.mul(x, strides[1]), j * dilations[1]);
          Value inside;
          if (pad) {
            PaddedImage::Point at = pad->locate(im, iy, ix);
            iy = at.y;
            ix = at.x;
            inside = at.inside;
          }
          SmallVector<Value> idx = im.index(ValueRange{n, iy, ix, c});
          Value v =
              width == 8
                  ? vector::LoadOp::create(b, loc, cast<VectorType>(accType),
                                           image, idx, false,
                                           llvm::MaybeAlign(16))
                        .getResult()
                  : memref::LoadOp::create(b, loc, image, idx).getResult();
          if (inside)
            v = arith::SelectOp::create(b, loc, inside, v, lowest);
          acc = arith::MaximumFOp::create(b, loc, acc, v);
        }
      SmallVector<Value> outIdx = im.index(ValueRange{n, y, x, c});
      if (width == 8)
        vector::StoreOp::create(b, loc, acc, out, outIdx, false,
                                llvm::MaybeAlign(16));
      else
        memref::StoreOp::create(b, loc, acc, out, outIdx);
      b.setInsertionPointToEnd(&launch.getBody().front());
      gpu::TerminatorOp::create(b, loc);
    }
    Value windowBuffer = pool.getInputs()[1];
    pool->erase();
    init->erase();
    eraseDeadBuffer(windowBuffer);
    if (pad)
      for (Operation *op : pad->dead)
        op->erase();
  }

  void runOnOperation() override {
    int64_t before = countRegionTacticLaunches(getOperation());
    runOnFunction();
    numPools += countRegionTacticLaunches(getOperation()) - before;
  }

  void runOnFunction() {
    SmallVector<linalg::PoolingNhwcMaxOp> pools;
    getOperation().walk([&](linalg::PoolingNhwcMaxOp op) {
      if (op.hasPureBufferSemantics())
        pools.push_back(op);
    });
    for (linalg::PoolingNhwcMaxOp pool : pools)
      lower(pool);
  }
};

} // namespace
