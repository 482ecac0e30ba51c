//===- MapLoopsToGpu.cpp - top-level loops of a kernel to blocks/threads -===//
//
// kiln-gpu-map-loops: see codegen/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_GPUMAPLOOPSPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;

Value kiln::codegen::viewRoot(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    // memref.transpose is a view too, without the interface in MLIR 22.
    if (auto transpose = dyn_cast<memref::TransposeOp>(def)) {
      v = transpose.getIn();
      continue;
    }
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      break;
    v = view.getViewSource();
  }
  return v;
}

bool kiln::codegen::allowsVectorAccess(MemRefType t, int64_t lanes) {
  if (!t.hasStaticShape() || t.getRank() == 0 ||
      t.getShape().back() % lanes != 0)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(t.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) || offset % lanes != 0 ||
      strides.back() != 1)
    return false;
  return llvm::all_of(ArrayRef(strides).drop_back(), [&](int64_t s) {
    return !ShapedType::isDynamic(s) && s % lanes == 0;
  });
}

bool kiln::codegen::isMovable(Operation *op) {
  return (isMemoryEffectFree(op) && op->getNumRegions() == 0) ||
         isa<memref::AllocOp>(op);
}

void kiln::codegen::eraseDeadBuffer(Value v) {
  while (v && v.use_empty()) {
    Operation *def = v.getDefiningOp();
    if (!def || !isa<memref::AllocOp, ViewLikeOpInterface>(def))
      return;
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    Value next = view ? view.getViewSource() : Value();
    def->erase();
    v = next;
  }
}

bool kiln::codegen::isReadOnlyArgumentLoad(Operation *op) {
  auto load = dyn_cast<memref::LoadOp>(op);
  if (!load)
    return false;
  auto func = op->getParentOfType<func::FuncOp>();
  // The function argument `v` is a view of, if any.
  auto root = [](Value v) -> Value {
    Value r = viewRoot(v);
    return isa<BlockArgument>(r) ? r : Value();
  };
  Value arg = root(load.getMemRef());
  if (!arg || !func)
    return false;
  WalkResult written = func.walk([&](Operation *other) {
    for (OpOperand &operand : other->getOpOperands()) {
      if (!isa<MemRefType>(operand.get().getType()) ||
          root(operand.get()) != arg)
        continue;
      if (isa<memref::LoadOp>(other) || isa<ViewLikeOpInterface>(other))
        continue;
      auto effects = dyn_cast<MemoryEffectOpInterface>(other);
      if (!effects ||
          effects.getEffectOnValue<MemoryEffects::Write>(operand.get()))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return !written.wasInterrupted();
}

namespace {

constexpr int64_t kMaxGridX = (int64_t(1) << 31) - 1;

/// Ops the launches can recompute: pure ops and read-only argument loads.
bool isRecomputable(Operation *op) {
  return op->getNumRegions() == 0 &&
         (isMemoryEffectFree(op) || kiln::codegen::isReadOnlyArgumentLoad(op));
}

void setMapping(scf::ParallelOp loop, ArrayRef<gpu::Processor> processors) {
  MLIRContext *ctx = loop.getContext();
  AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
  SmallVector<gpu::ParallelLoopDimMappingAttr> attrs;
  for (gpu::Processor p : processors)
    attrs.push_back(gpu::ParallelLoopDimMappingAttr::get(ctx, p, id, id));
  (void)gpu::setMappingAttr(loop, attrs);
}

/// Threads per block for a loop of `n` iterations: `blockSize`, halved
/// (down to 64) while that gives fewer than `minBlocks` blocks; never more
/// than `n` rounded up to a warp.
int64_t chooseBlockSize(int64_t n, int64_t blockSize, int64_t minBlocks) {
  int64_t b = blockSize;
  while (b > 64 && (n + b - 1) / b < minBlocks)
    b /= 2;
  int64_t warpRounded = std::max<int64_t>(32, (n + 31) / 32 * 32);
  return std::min(b, warpRounded);
}

/// Creates `scf.parallel (%bx) = (0) to (grid)` around `scf.parallel (%tx)
/// = (0) to (block)`, mapped to block_x/thread_x; calls `body` inside the
/// inner loop with the linear thread index bx * block + tx. Returns the
/// inner loop.
scf::ParallelOp
buildLaunchLoops(OpBuilder &b, Location loc, int64_t grid, int64_t block,
                 function_ref<void(OpBuilder &, Location, Value)> body) {
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  Value cGrid = arith::ConstantIndexOp::create(b, loc, grid);
  Value cBlock = arith::ConstantIndexOp::create(b, loc, block);
  scf::ParallelOp inner;
  auto outer = scf::ParallelOp::create(
      b, loc, ValueRange{c0}, ValueRange{cGrid}, ValueRange{c1},
      [&](OpBuilder &ob, Location l, ValueRange bx) {
        inner = scf::ParallelOp::create(
            ob, l, ValueRange{c0}, ValueRange{cBlock}, ValueRange{c1},
            [&](OpBuilder &ib, Location il, ValueRange tx) {
              Value base = arith::MulIOp::create(ib, il, bx[0], cBlock);
              Value linear = arith::AddIOp::create(ib, il, base, tx[0]);
              body(ib, il, linear);
            });
      });
  setMapping(outer, {gpu::Processor::BlockX});
  setMapping(inner, {gpu::Processor::ThreadX});
  return inner;
}

/// Whether `loop`'s innermost dim (lower bound 0, step 1, `count`
/// iterations) can run inside one thread that stores its `count` results as
/// one vector: the body's only memory write is a store whose last index is
/// that dim and whose other indices do not depend on it, into a static
/// buffer whose rows are exactly `count` elements of 4, 8 or 16 bytes in
/// all (buffers start 64-byte aligned, so each row is aligned), and nothing
/// in the body reads that buffer. The store (null if not).
memref::StoreOp vectorStoreOfInnermost(scf::ParallelOp loop, int64_t count) {
  if (count != 2 && count != 4 && count != 8)
    return nullptr;
  Block *body = loop.getBody();
  BlockArgument inner = body->getArgument(body->getNumArguments() - 1);
  memref::StoreOp store;
  for (Operation &op : body->without_terminator()) {
    if (auto st = dyn_cast<memref::StoreOp>(op)) {
      if (store)
        return nullptr;
      store = st;
      continue;
    }
    if (op.getNumRegions() != 0)
      return nullptr;
    if (isMemoryEffectFree(&op))
      continue;
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects || !effects.onlyHasEffect<MemoryEffects::Read>())
      return nullptr;
  }
  if (!store || store.getValueToStore() == inner)
    return nullptr;
  auto type = store.getMemRefType();
  int64_t bits = type.getElementTypeBitWidth() * count;
  if (!kiln::codegen::allowsVectorAccess(type, count) ||
      type.getShape().back() != count ||
      (bits != 32 && bits != 64 && bits != 128))
    return nullptr;
  ValueRange idx = store.getIndices();
  if (idx.back() != inner || llvm::is_contained(idx.drop_back(), inner))
    return nullptr;
  for (Value i : idx.drop_back())
    if (Operation *def = i.getDefiningOp(); def && def->getBlock() == body)
      return nullptr; // computed in the body: may depend on the inner dim
  // Nothing may read the stored buffer (the stores are deferred to the end).
  Value root = kiln::codegen::viewRoot(store.getMemRef());
  for (Operation &op : body->without_terminator())
    for (Value operand : op.getOperands())
      if (&op != store.getOperation() && isa<MemRefType>(operand.getType()) &&
          kiln::codegen::viewRoot(operand) == root)
        return nullptr;
  return store;
}

struct GpuMapLoopsPass
    : kiln::codegen::impl::GpuMapLoopsPassBase<GpuMapLoopsPass> {
  using Base::Base;

  LogicalResult mapParallel(scf::ParallelOp loop) {
    if (loop.getNumReductions() != 0)
      return loop.emitOpError("with reductions cannot be mapped to a GPU "
                              "launch by kiln-gpu-map-loops");
    SmallVector<int64_t> lbs, steps, counts;
    int64_t total = 1;
    for (auto [lb, ub, step] : llvm::zip(
             loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
      std::optional<int64_t> l = getConstantIntValue(lb);
      std::optional<int64_t> u = getConstantIntValue(ub);
      std::optional<int64_t> s = getConstantIntValue(step);
      if (!l || !u || !s || *s <= 0)
        return loop.emitOpError("has dynamic or non-positive bounds: "
                                "kiln-gpu-map-loops needs static shapes");
      int64_t n = *u > *l ? (*u - *l + *s - 1) / *s : 0;
      if (n != 0 && total > (int64_t(1) << 62) / n)
        return loop.emitOpError("has more than 2^62 iterations");
      total *= n;
      lbs.push_back(*l);
      steps.push_back(*s);
      counts.push_back(n);
    }
    if (total == 0) {
      loop.erase();
      return success();
    }
    // A short innermost dim whose results fill whole, aligned rows (the
    // channels-last stem's 8 padded channels): a thread computes the row,
    // its index a constant in each copy of the body, and stores it as one
    // vector.
    memref::StoreOp vecStore;
    int64_t rowLen = counts.back();
    if (counts.size() > 1 && lbs.back() == 0 && steps.back() == 1)
      vecStore = vectorStoreOfInnermost(loop, rowLen);
    if (vecStore) {
      total /= rowLen;
      counts.pop_back();
    }
    int64_t block = chooseBlockSize(total, blockSize, minBlocks);
    int64_t grid = (total + block - 1) / block;
    if (grid > kMaxGridX)
      return loop.emitOpError("needs ")
             << grid << " blocks of " << block
             << " threads, more than a GPU grid's x dimension allows";

    OpBuilder b(loop);
    Location loc = loop.getLoc();
    Block *oldBody = loop.getBody();
    buildLaunchLoops(
        b, loc, grid, block, [&](OpBuilder &ib, Location l, Value linear) {
          Value cTotal = arith::ConstantIndexOp::create(ib, l, total);
          Value inRange = arith::CmpIOp::create(
              ib, l, arith::CmpIPredicate::ult, linear, cTotal);
          auto guard =
              scf::IfOp::create(ib, l, inRange, /*withElseRegion=*/false);
          OpBuilder tb = guard.getThenBodyBuilder();
          IRMapping map;
          Value rest = linear;
          for (int64_t d = (int64_t)counts.size() - 1; d >= 0; --d) {
            Value idx = rest;
            if (d > 0) {
              Value cn = arith::ConstantIndexOp::create(tb, l, counts[d]);
              idx = arith::RemUIOp::create(tb, l, rest, cn);
              rest = arith::DivUIOp::create(tb, l, rest, cn);
            }
            Value iv = idx;
            if (steps[d] != 1)
              iv = arith::MulIOp::create(
                  tb, l, iv, arith::ConstantIndexOp::create(tb, l, steps[d]));
            if (lbs[d] != 0)
              iv = arith::AddIOp::create(
                  tb, l, iv, arith::ConstantIndexOp::create(tb, l, lbs[d]));
            map.map(oldBody->getArgument(d), iv);
          }
          if (!vecStore) {
            for (Operation &op : oldBody->without_terminator())
              tb.clone(op, map);
            return;
          }
          SmallVector<Value> row;
          for (int64_t c = 0; c < rowLen; ++c) {
            map.map(oldBody->getArgument(counts.size()),
                    arith::ConstantIndexOp::create(tb, l, c));
            for (Operation &op : oldBody->without_terminator())
              if (&op != vecStore.getOperation())
                tb.clone(op, map);
            row.push_back(map.lookupOrDefault(vecStore.getValueToStore()));
          }
          SmallVector<Value> at;
          for (Value i : vecStore.getIndices().drop_back())
            at.push_back(map.lookupOrDefault(i));
          at.push_back(arith::ConstantIndexOp::create(tb, l, 0));
          auto vecType = VectorType::get({rowLen}, row.front().getType());
          Value v = vector::FromElementsOp::create(tb, l, vecType, row);
          int64_t bytes =
              rowLen * vecStore.getMemRefType().getElementTypeBitWidth() / 8;
          vector::StoreOp::create(
              tb, l, v, map.lookupOrDefault(vecStore.getMemRef()), at,
              /*nontemporal=*/false, llvm::MaybeAlign(bytes));
        });
    loop.erase();
    return success();
  }

  /// Moves a run of consecutive top-level ops into one one-thread launch.
  /// Pure ops of the run that later code also uses (constants, index math)
  /// stay outside, before the launch; other values the run defines may only
  /// be used inside it.
  LogicalResult wrapSingleThread(Block &body, ArrayRef<Operation *> ops) {
    SmallVector<Operation *> run(ops.begin(), ops.end());
    auto usedOutside = [&](Operation *op,
                           const llvm::SmallPtrSetImpl<Operation *> &in) {
      for (Operation *user : op->getUsers())
        if (!in.contains(body.findAncestorOpInBlock(*user)))
          return true;
      return false;
    };
    llvm::SmallPtrSet<Operation *, 16> inRun(run.begin(), run.end());
    SmallVector<Operation *> kept, hoisted;
    for (Operation *op : run) {
      bool pure = isRecomputable(op);
      if (!pure || !usedOutside(op, inRun)) {
        kept.push_back(op);
        continue;
      }
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && inRun.contains(def))
          return op->emitOpError("computes a value from sequential GPU code "
                                 "that code after it needs: "
                                 "kiln-gpu-map-loops cannot place it");
      hoisted.push_back(op);
      inRun.erase(op);
    }
    if (kept.empty())
      return success();
    for (Operation *op : hoisted) // in order, before the launch
      op->moveBefore(kept.front());
    for (Operation *op : kept)
      if (usedOutside(op, inRun))
        return op->emitOpError("touches memory and has results used "
                               "outside its sequential code: "
                               "kiln-gpu-map-loops cannot place it in a "
                               "kernel");
    // Build the launch first, then move the ops in: moving them while the
    // builder still points before one would insert the launch into itself.
    OpBuilder b(kept.front());
    scf::ParallelOp inner = buildLaunchLoops(
        b, kept.front()->getLoc(), 1, 1, [](OpBuilder &, Location, Value) {});
    for (Operation *op : kept)
      op->moveBefore(inner.getBody()->getTerminator());
    return success();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (blockSize < 32 || blockSize > 1024 || blockSize % 32 != 0) {
      func.emitError("kiln-gpu-map-loops: block-size must be a multiple of "
                     "32 in [32, 1024], got ")
          << blockSize;
      return signalPassFailure();
    }
    if (func.isExternal())
      return;
    SmallVector<Operation *> ops;
    for (Operation &op : func.getBody().front().without_terminator())
      ops.push_back(&op);
    // Sequential code (memory accesses outside parallel loops, loops over
    // reduction dims only) is grouped into runs: a run starts at an op that
    // touches memory or holds a region, and takes every following op until
    // the next parallel loop or allocation, so that scalars loaded and
    // computed there stay inside one one-thread launch.
    SmallVector<Operation *> run;
    auto flush = [&]() -> LogicalResult {
      if (run.empty())
        return success();
      LogicalResult r = wrapSingleThread(func.getBody().front(), run);
      run.clear();
      return r;
    };
    for (Operation *op : ops) {
      LogicalResult r = success();
      if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
        r = flush();
        if (succeeded(r))
          r = mapParallel(loop);
      } else if (isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp,
                     gpu::LaunchOp>(op)) {
        r = flush(); // launches built by earlier passes stay as they are
      } else if (!run.empty() || !isRecomputable(op)) {
        run.push_back(op);
      }
      if (failed(r))
        return signalPassFailure();
    }
    if (failed(flush()))
      return signalPassFailure();
    // Loops nested in a thread run sequentially.
    func.walk([&](scf::ParallelOp loop) {
      if (loop->hasAttr(gpu::getMappingAttrName()))
        return;
      setMapping(loop, SmallVector<gpu::Processor>(loop.getNumLoops(),
                                                   gpu::Processor::Sequential));
    });
  }
};

} // namespace
