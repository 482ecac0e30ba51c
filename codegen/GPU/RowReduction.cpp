//===- RowReduction.cpp - one warp per reduced row ------------------------===//
//
// kiln-gpu-row-reduce: see codegen/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "codegen/GPU/Reductions.h"
#include "codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

#include <cmath>

namespace kiln::codegen {
#define GEN_PASS_DEF_GPUROWREDUCEPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;
using namespace kiln::codegen;

std::optional<Combiner> kiln::codegen::matchCombiner(linalg::GenericOp g) {
  Block &body = g.getRegion().front();
  BlockArgument out = body.getArgument(g.getNumDpsInputs());
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Operation *op = yield.getOperand(0).getDefiningOp();
  if (!op || op->getNumOperands() != 2 || !out.hasOneUse() ||
      *out.user_begin() != op)
    return std::nullopt;
  Combiner c;
  c.op = op;
  if (isa<arith::AddFOp>(op))
    c.identity = 0.0;
  else if (isa<arith::MaximumFOp, arith::MaxNumFOp>(op))
    c.identity = -INFINITY;
  else if (isa<arith::MinimumFOp, arith::MinNumFOp>(op))
    c.identity = INFINITY;
  else
    return std::nullopt;
  return c;
}

Value kiln::codegen::combine(OpBuilder &b, Location loc, Operation *combiner,
                             Value x, Value y) {
  OperationState state(loc, combiner->getName());
  state.addOperands({x, y});
  state.addTypes(x.getType());
  state.addAttributes(combiner->getAttrs());
  return b.create(state)->getResult(0);
}

Value kiln::codegen::warpAllReduce(OpBuilder &b, Location loc,
                                   Operation *combiner, Value acc) {
  Type elem = acc.getType();
  Value width = arith::ConstantIntOp::create(b, loc, 32, 32);
  for (int64_t off = 16; off >= 1; off /= 2) {
    Value wide =
        elem.isF32()
            ? acc
            : arith::ExtFOp::create(b, loc, b.getF32Type(), acc).getResult();
    Value other =
        gpu::ShuffleOp::create(b, loc, wide,
                               arith::ConstantIntOp::create(b, loc, off, 32),
                               width, gpu::ShuffleMode::XOR)
            .getShuffleResult();
    if (!elem.isF32())
      other = arith::TruncFOp::create(b, loc, elem, other);
    acc = combine(b, loc, combiner, acc, other);
  }
  return acc;
}

WarpRows kiln::codegen::buildWarpRows(OpBuilder &b, Location loc, int64_t rows,
                                      int64_t warpsPerBlock, StringRef tactic) {
  constexpr int64_t warp = 32;
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto launch = gpu::LaunchOp::create(
      b, loc, c((rows + warpsPerBlock - 1) / warpsPerBlock), c(1), c(1),
      c(warp * warpsPerBlock), c(1), c(1));
  launch->setAttr(kTacticAttr, b.getStringAttr(tactic));
  Block &body = launch.getBody().front();
  b.setInsertionPointToStart(&body);
  auto terminator = gpu::TerminatorOp::create(b, loc);
  b.setInsertionPoint(terminator);
  Value tid = launch.getThreadIds().x;
  Value lane = arith::RemUIOp::create(b, loc, tid, c(warp));
  Value row = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, launch.getBlockIds().x, c(warpsPerBlock)),
      arith::DivUIOp::create(b, loc, tid, c(warp)));
  auto inRange = scf::IfOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, c(rows)),
      false);
  b.setInsertionPointToStart(inRange.thenBlock());
  return {launch, lane, row};
}

namespace {

constexpr int64_t kWarp = 32;
constexpr int64_t kWarpsPerBlock = 8;

struct RowReducePass
    : public kiln::codegen::impl::GpuRowReducePassBase<RowReducePass> {
  KILN_PASS_STATISTICS_GpuRowReducePass using GpuRowReducePassBase::
      GpuRowReducePassBase;

  void lower(linalg::GenericOp g) {
    if (!g.hasPureBufferSemantics() || g.getNumDpsInits() != 1 ||
        g.getNumReductionLoops() == 0 || g->getNumResults() != 0 ||
        linalg::isaContractionOpInterface(g))
      return;
    SmallVector<int64_t> loops = g.getStaticLoopRanges();
    if (ShapedType::isDynamicShape(loops))
      return;
    SmallVector<AffineMap> maps = g.getIndexingMapsArray();
    for (AffineMap m : maps)
      if (!m.isProjectedPermutation())
        return;
    // Several reduction dims are walked as one (row-major).
    SmallVector<unsigned> reds, parallel;
    for (auto [i, it] : llvm::enumerate(g.getIteratorTypesArray()))
      (it == utils::IteratorType::reduction ? reds : parallel).push_back(i);
    int64_t k = 1, rows = 1;
    for (unsigned d : reds)
      k *= loops[d];
    for (unsigned d : parallel)
      rows *= loops[d];
    Value out = g.getDpsInits()[0];
    Type elem = getElementTypeOrSelf(out.getType());
    if (k < minLength || !isa<Float32Type, Float16Type, BFloat16Type>(elem) ||
        llvm::any_of(
            reds, [&](unsigned d) { return maps.back().isFunctionOfDim(d); }))
      return;
    std::optional<Combiner> comb = matchCombiner(g);
    if (!comb)
      return;
    // A warp walks a row: its lanes' loads coalesce only where some input
    // is contiguous along the reduction. Where every input read is
    // contiguous along a parallel dim instead (channels-last global
    // pooling: [N, H, W, C] summed over H and W), neighbouring outputs are
    // neighbours in memory, and the generic mapping, a thread per output
    // looping over the row, reads coalesced.
    bool alongRow = false;
    for (OpOperand *in : g.getDpsInputOperands()) {
      AffineMap m = maps[in->getOperandNumber()];
      if (g.getRegion()
              .front()
              .getArgument(in->getOperandNumber())
              .use_empty() ||
          m.getNumResults() == 0)
        continue;
      unsigned inner = cast<AffineDimExpr>(m.getResults().back()).getPosition();
      alongRow |= llvm::is_contained(reds, inner);
    }
    if (!alongRow)
      return;

    OpBuilder b(g);
    Location loc = g.getLoc();
    auto c = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    OpBuilder::InsertionGuard guard(b);
    auto [launch, lane, row] =
        buildWarpRows(b, loc, rows, kWarpsPerBlock, "warp row reduction");
    SmallVector<Value> idx(loops.size());
    Value rest = row;
    for (unsigned d : llvm::reverse(parallel)) {
      idx[d] = arith::RemUIOp::create(b, loc, rest, c(loops[d]));
      rest = arith::DivUIOp::create(b, loc, rest, c(loops[d]));
    }
    auto at = [&](AffineMap m) {
      SmallVector<Value> r;
      for (AffineExpr e : m.getResults())
        r.push_back(idx[cast<AffineDimExpr>(e).getPosition()]);
      return r;
    };
    Value identity =
        arith::ConstantOp::create(b, loc, b.getFloatAttr(elem, comb->identity));
    // Each lane folds the elements lane, lane + 32, ... of its row.
    auto loop =
        scf::ForOp::create(b, loc, lane, c(k), c(kWarp), ValueRange{identity});
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(loop.getBody());
      Value kk = loop.getInductionVar();
      for (unsigned d : llvm::reverse(reds)) {
        if (d == reds.front()) {
          idx[d] = kk;
          break;
        }
        idx[d] = arith::RemUIOp::create(b, loc, kk, c(loops[d]));
        kk = arith::DivUIOp::create(b, loc, kk, c(loops[d]));
      }
      Block &body = g.getRegion().front();
      IRMapping map;
      for (OpOperand *in : g.getDpsInputOperands()) {
        BlockArgument arg = body.getArgument(in->getOperandNumber());
        if (arg.use_empty())
          continue;
        map.map(arg, memref::LoadOp::create(b, loc, in->get(),
                                            at(maps[in->getOperandNumber()])));
      }
      map.map(body.getArgument(g.getNumDpsInputs()),
              loop.getRegionIterArgs()[0]);
      for (Operation &op : body.without_terminator()) {
        if (auto index = dyn_cast<linalg::IndexOp>(op)) {
          map.map(index.getResult(), idx[index.getDim()]);
          continue;
        }
        b.clone(op, map);
      }
      scf::YieldOp::create(b, loc,
                           map.lookup(body.getTerminator()->getOperand(0)));
    }
    // Butterfly across the warp: every lane ends with the row's total.
    Value acc = warpAllReduce(b, loc, comb->op, loop.getResult(0));
    auto first = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, c(0)),
        false);
    b.setInsertionPointToStart(first.thenBlock());
    SmallVector<Value> outIdx = at(maps.back());
    Value init = memref::LoadOp::create(b, loc, out, outIdx);
    memref::StoreOp::create(b, loc, combine(b, loc, comb->op, init, acc), out,
                            outIdx);
    g.erase();
  }

  void runOnOperation() override {
    int64_t before = countRegionTacticLaunches(getOperation());
    runOnFunction();
    numReductions += countRegionTacticLaunches(getOperation()) - before;
  }

  void runOnFunction() {
    // linalg.reduce (softmax, layer normalization) as the generic it is.
    SmallVector<linalg::ReduceOp> reduces;
    getOperation().walk([&](linalg::ReduceOp r) { reduces.push_back(r); });
    IRRewriter rewriter(&getContext());
    for (linalg::ReduceOp r : reduces) {
      if (!r.hasPureBufferSemantics())
        continue;
      rewriter.setInsertionPoint(r);
      (void)linalg::generalizeNamedOp(rewriter, r);
    }
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp g) { ops.push_back(g); });
    for (linalg::GenericOp g : ops)
      lower(g);
  }
};

} // namespace
