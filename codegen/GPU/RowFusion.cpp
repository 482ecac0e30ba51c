//===- RowFusion.cpp - a kernel's row-wise ops as one warp-per-row launch -===//
//
// kiln-gpu-row-fuse: see codegen/Passes.td.
//
// A run is a sequence of linalg ops (generalized) over the same rows: R
// (the leading k loops, identical for every op) and, for "row ops", an
// inner loop of L elements that is parallel (elementwise) or a reduction
// into a value per row. "Scalar ops" have only the k row loops. In the
// launch, warp w of block b owns row r = 4 b + w; its lane l owns the
// elements j = l + 32 i (i < ceil(L / 32)) of every row op, so a buffer
// one op writes and a later op reads with the identity map is a list of
// SSA values per lane ("registers"), and a value per row is one SSA value
// the whole warp agrees on. Writes reach memory once, at the end, and only
// for buffers someone reads after the run (or that are not the kernel's
// own allocations).
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
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_GPUROWFUSEPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;
using namespace kiln::codegen;

namespace {

constexpr int64_t kWarp = 32;
constexpr int64_t kWarpsPerBlock = 4;

/// What one op of a run does.
enum class Kind { Elementwise, Reduction, Scalar };

/// The run being formed.
struct Run {
  SmallVector<linalg::GenericOp> ops;
  SmallVector<Kind> kinds;
  SmallVector<int64_t> rows; // the k row loop sizes
  int64_t length = 0;        // L (0 until a row op joins)
  /// Buffers written so far, with whether they hold a row (else a value
  /// per row).
  llvm::MapVector<Value, bool> written;
  /// Buffers (view roots) an op read from memory at other rows' elements:
  /// no later op may write them (the run's stores come last and would race
  /// with other warps' reads).
  llvm::SmallDenseSet<Value> foreignReads;
  /// Every buffer read from memory, by view root: a later write to the same
  /// root through another view would race with other warps' reads.
  llvm::DenseMap<Value, SmallVector<Value>> memoryReads;

  int64_t rowCount() const {
    int64_t n = 1;
    for (int64_t r : rows)
      n *= r;
    return n;
  }
  int64_t rowOps() const {
    return llvm::count_if(kinds, [](Kind k) { return k != Kind::Scalar; });
  }
};

/// Whether `m` is the identity over the k row loops (and the row's loop j,
/// with `withInner`).
bool isRowIdentity(AffineMap m, unsigned k, bool withInner) {
  unsigned n = withInner ? k + 1 : k;
  if (m.getNumResults() != n)
    return false;
  for (unsigned i = 0; i < n; ++i) {
    auto d = dyn_cast<AffineDimExpr>(m.getResult(i));
    if (!d || d.getPosition() != i)
      return false;
  }
  return true;
}

struct RowFusePass
    : public kiln::codegen::impl::GpuRowFusePassBase<RowFusePass> {
  KILN_PASS_STATISTICS_GpuRowFusePass using GpuRowFusePassBase::
      GpuRowFusePassBase;

  /// Whether `g` can join `run` (updating the run's shape when it is the
  /// first); its kind in `kind`. `hint`: the row loops of the next
  /// reduction ahead, which tells a first op that is all parallel whether
  /// it is a value per row (a fill of a reduction's output) or a row.
  bool admits(Run &run, linalg::GenericOp g, Kind &kind,
              ArrayRef<int64_t> hint) {
    if (!g.hasPureBufferSemantics() || g->getNumResults() != 0)
      return false;
    SmallVector<int64_t> loops = g.getStaticLoopRanges();
    if (loops.empty() || ShapedType::isDynamicShape(loops))
      return false;
    SmallVector<utils::IteratorType> its = g.getIteratorTypesArray();
    for (AffineMap m : g.getIndexingMapsArray())
      for (AffineExpr e : m.getResults())
        if (!isa<AffineDimExpr, AffineConstantExpr>(e))
          return false;
    for (Value v : g->getOperands())
      if (auto t = dyn_cast<MemRefType>(v.getType()); t && !t.hasStaticShape())
        return false;
    unsigned n = loops.size();
    // Kind and row loops.
    unsigned k;
    if (its.back() == utils::IteratorType::reduction) {
      kind = Kind::Reduction;
      k = n - 1;
    } else if (!run.rows.empty() && n == run.rows.size()) {
      kind = Kind::Scalar;
      k = n;
    } else if (!run.rows.empty() && n == run.rows.size() + 1) {
      kind = Kind::Elementwise;
      k = n - 1;
    } else if (run.rows.empty() && ArrayRef<int64_t>(loops) == hint) {
      kind = Kind::Scalar;
      k = n;
    } else if (run.rows.empty()) {
      // Otherwise the first op's last loop is the row's.
      kind = Kind::Elementwise;
      k = n - 1;
    } else {
      return false;
    }
    for (unsigned i = 0; i < k; ++i)
      if (its[i] != utils::IteratorType::parallel)
        return false;
    ArrayRef<int64_t> rows(loops.data(), k);
    if (!run.rows.empty() && ArrayRef<int64_t>(run.rows) != rows)
      return false;
    int64_t length = kind == Kind::Scalar ? 0 : loops.back();
    if (kind != Kind::Scalar && ((run.length && run.length != length) ||
                                 length < minLength || length > maxLength))
      return false;
    if (kind == Kind::Reduction) {
      if (g.getNumDpsInits() != 1 || !matchCombiner(g))
        return false;
      Type elem = getElementTypeOrSelf(g.getDpsInits()[0].getType());
      if (!isa<Float32Type, Float16Type, BFloat16Type>(elem))
        return false;
    }
    // Outputs: the identity over the row loops (and j for elementwise).
    for (OpOperand &init : g.getDpsInitsMutable())
      if (!isRowIdentity(g.getMatchingIndexingMap(&init), k,
                         kind == Kind::Elementwise))
        return false;
    // Reads of what the run wrote: identity maps only, and no other view
    // of a written buffer may be read or written.
    auto writtenAlias = [&](Value v) {
      Value root = viewRoot(v);
      for (auto &[w, isRow] : run.written)
        if (w != v && viewRoot(w) == root)
          return true;
      return false;
    };
    SmallVector<Value> foreign, memoryRead;
    for (OpOperand &operand : g->getOpOperands()) {
      Value v = operand.get();
      if (!isa<MemRefType>(v.getType()))
        continue;
      if (writtenAlias(v))
        return false;
      AffineMap m = g.getMatchingIndexingMap(&operand);
      if (g.isDpsInit(&operand)) {
        Value root = viewRoot(v);
        if (run.foreignReads.contains(root))
          return false;
        auto reads = run.memoryReads.find(root);
        if (reads != run.memoryReads.end() &&
            llvm::any_of(reads->second, [&](Value r) { return r != v; }))
          return false;
        continue;
      }
      auto it = run.written.find(v);
      if (it == run.written.end()) {
        if (!isRowIdentity(m, k, kind != Kind::Scalar) &&
            !isRowIdentity(m, k, false))
          foreign.push_back(viewRoot(v));
        memoryRead.push_back(v);
        continue;
      }
      bool isRow = it->second;
      if (isRow && (kind == Kind::Scalar || !isRowIdentity(m, k, true)))
        return false;
      if (!isRow && !isRowIdentity(m, k, false))
        return false;
    }
    for (Value init : g.getDpsInits()) {
      if (llvm::is_contained(foreign, viewRoot(init)))
        return false;
      for (Value r : memoryRead)
        if (r != init && viewRoot(r) == viewRoot(init))
          return false;
    }
    run.foreignReads.insert(foreign.begin(), foreign.end());
    for (Value v : memoryRead)
      run.memoryReads[viewRoot(v)].push_back(v);
    if (run.rows.empty())
      run.rows.assign(rows.begin(), rows.end());
    if (kind != Kind::Scalar)
      run.length = length;
    return true;
  }

  /// Emits `run` as one launch in place of its ops.
  void emit(Run &run, func::FuncOp func) {
    linalg::GenericOp first = run.ops.front(), last = run.ops.back();
    // Movable ops between the run's ops (constants, views, allocations)
    // must come first.
    SmallVector<Operation *> between;
    for (Operation *o = first->getNextNode(); o != last; o = o->getNextNode())
      if (!llvm::is_contained(run.ops, o))
        between.push_back(o);
    for (Operation *o : between)
      o->moveBefore(first);

    const unsigned k = run.rows.size();
    const int64_t length = run.length, rows = run.rowCount();
    const int64_t slots = (length + kWarp - 1) / kWarp;
    const bool ragged = length % kWarp != 0;
    OpBuilder b(first);
    Location loc = first.getLoc();
    auto c = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    OpBuilder::InsertionGuard guard(b);
    auto [launch, lane, row] = buildWarpRows(
        b, loc, rows, kWarpsPerBlock,
        "warp row fusion of " + std::to_string(run.ops.size()) + " ops");
    SmallVector<Value> rowIdx(k);
    Value rest = row;
    for (unsigned d = k; d-- > 0;) {
      rowIdx[d] = d == 0 ? rest
                         : arith::RemUIOp::create(b, loc, rest, c(run.rows[d]))
                               .getResult();
      if (d > 0)
        rest = arith::DivUIOp::create(b, loc, rest, c(run.rows[d]));
    }
    // j of each slot, clamped into the row (a ragged last slot computes
    // garbage past L that is never stored or combined), and whether the
    // slot is inside the row.
    SmallVector<Value> js, inside;
    for (int64_t i = 0; i < slots; ++i) {
      Value j = arith::AddIOp::create(b, loc, lane, c(i * kWarp));
      Value in;
      if (ragged && i == slots - 1) {
        in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, j,
                                   c(length));
        j = arith::MinUIOp::create(b, loc, j, c(length - 1));
      }
      js.push_back(j);
      inside.push_back(in);
    }

    llvm::DenseMap<Value, SmallVector<Value>> rowRegs; // per slot
    llvm::DenseMap<Value, Value> scalarRegs;
    auto indices = [&](AffineMap m, Value j) {
      SmallVector<Value> r;
      for (AffineExpr e : m.getResults()) {
        if (auto d = dyn_cast<AffineDimExpr>(e))
          r.push_back(d.getPosition() < k ? rowIdx[d.getPosition()] : j);
        else
          r.push_back(c(cast<AffineConstantExpr>(e).getValue()));
      }
      return r;
    };
    // Memory does not change until the run's stores at the end: each
    // element is loaded once.
    llvm::DenseMap<std::pair<Value, AffineMap>, SmallVector<Value>> loaded;
    // The value of operand `operand` of `g` at slot `i` (-1: scalar op).
    auto read = [&](linalg::GenericOp g, OpOperand &operand, int64_t i) {
      Value v = operand.get();
      if (!isa<MemRefType>(v.getType()))
        return v;
      if (auto it = rowRegs.find(v); it != rowRegs.end())
        return it->second[i];
      if (auto it = scalarRegs.find(v); it != scalarRegs.end())
        return it->second;
      AffineMap m = g.getMatchingIndexingMap(&operand);
      SmallVector<Value> &cache = loaded[{v, m}];
      if (cache.empty())
        cache.resize(slots + 1);
      Value &slot = cache[i < 0 ? slots : i];
      if (!slot)
        slot = memref::LoadOp::create(b, loc, v,
                                      indices(m, i < 0 ? Value() : js[i]));
      return slot;
    };
    // Evaluates g's body at slot i with `acc` for the (reduction) output.
    auto body = [&](linalg::GenericOp g, int64_t i,
                    ArrayRef<Value> outs) -> SmallVector<Value> {
      Block &blk = g.getRegion().front();
      IRMapping map;
      for (OpOperand *in : g.getDpsInputOperands()) {
        BlockArgument arg = blk.getArgument(in->getOperandNumber());
        if (!arg.use_empty())
          map.map(arg, read(g, *in, i));
      }
      for (auto [n, v] : llvm::enumerate(outs))
        if (v)
          map.map(blk.getArgument(g.getNumDpsInputs() + n), v);
      for (Operation &op : blk.without_terminator()) {
        if (auto index = dyn_cast<linalg::IndexOp>(op)) {
          uint64_t d = index.getDim();
          map.map(index.getResult(), d < k ? rowIdx[d] : js[i]);
          continue;
        }
        b.clone(op, map);
      }
      SmallVector<Value> r;
      for (Value y : blk.getTerminator()->getOperands())
        r.push_back(map.lookupOrDefault(y));
      return r;
    };

    for (auto [g, kind] : llvm::zip(run.ops, run.kinds)) {
      Block &blk = g.getRegion().front();
      if (kind == Kind::Scalar) {
        SmallVector<Value> outs;
        for (OpOperand &init : g.getDpsInitsMutable())
          outs.push_back(blk.getArgument(init.getOperandNumber()).use_empty()
                             ? Value()
                             : read(g, init, -1));
        SmallVector<Value> ys = body(g, -1, outs);
        for (auto [init, y] : llvm::zip(g.getDpsInits(), ys)) {
          rowRegs.erase(init);
          scalarRegs[init] = y;
        }
        continue;
      }
      if (kind == Kind::Elementwise) {
        SmallVector<SmallVector<Value>> results(g.getNumDpsInits());
        for (int64_t i = 0; i < slots; ++i) {
          SmallVector<Value> outs;
          for (OpOperand &init : g.getDpsInitsMutable())
            outs.push_back(blk.getArgument(init.getOperandNumber()).use_empty()
                               ? Value()
                               : read(g, init, i));
          SmallVector<Value> ys = body(g, i, outs);
          for (auto [n, y] : llvm::enumerate(ys))
            results[n].push_back(y);
        }
        for (auto [init, vals] : llvm::zip(g.getDpsInits(), results)) {
          scalarRegs.erase(init);
          rowRegs[init] = vals;
        }
        continue;
      }
      // Reduction: each lane folds its slots from the identity, the warp
      // combines the lanes, then the output's initial value joins.
      Combiner comb = *matchCombiner(g);
      OpOperand &init = g.getDpsInitsMutable()[0];
      Type elem = getElementTypeOrSelf(init.get().getType());
      Value identity = arith::ConstantOp::create(
          b, loc, b.getFloatAttr(elem, comb.identity));
      Value acc = identity;
      for (int64_t i = 0; i < slots; ++i) {
        Value next = body(g, i, {acc})[0];
        if (inside[i])
          next = arith::SelectOp::create(b, loc, inside[i], next, acc);
        acc = next;
      }
      acc = warpAllReduce(b, loc, comb.op, acc);
      acc = combine(b, loc, comb.op, read(g, init, -1), acc);
      rowRegs.erase(init.get());
      scalarRegs[init.get()] = acc;
    }

    // Stores: buffers that are not the kernel's own, or that an op after
    // the run reads (through any view).
    Block *top = &func.getBody().front();
    auto liveOut = [&](Value v) {
      if (!v.getDefiningOp<memref::AllocOp>())
        return true;
      SmallVector<Value> work{v};
      while (!work.empty()) {
        Value x = work.pop_back_val();
        for (Operation *user : x.getUsers()) {
          if (auto view = dyn_cast<ViewLikeOpInterface>(user);
              view && view.getViewSource() == x) {
            work.push_back(user->getResult(0));
            continue;
          }
          Operation *at = top->findAncestorOpInBlock(*user);
          if (at && !llvm::is_contained(run.ops, at) &&
              last->isBeforeInBlock(at))
            return true;
        }
      }
      return false;
    };
    Value lane0 =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, c(0));
    for (auto &[v, isRow] : run.written) {
      if (!liveOut(v))
        continue;
      auto rank = cast<MemRefType>(v.getType()).getRank();
      AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
      if (!isRow) {
        auto ifOp = scf::IfOp::create(b, loc, lane0, false);
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        memref::StoreOp::create(b, loc, scalarRegs.lookup(v), v,
                                indices(id, Value()));
        continue;
      }
      SmallVector<Value> &vals = rowRegs[v];
      for (int64_t i = 0; i < slots; ++i) {
        if (!inside[i]) {
          memref::StoreOp::create(b, loc, vals[i], v, indices(id, js[i]));
          continue;
        }
        auto ifOp = scf::IfOp::create(b, loc, inside[i], false);
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        memref::StoreOp::create(b, loc, vals[i], v, indices(id, js[i]));
      }
    }

    SmallVector<Value> buffers;
    for (auto &[v, isRow] : run.written)
      buffers.push_back(v);
    for (linalg::GenericOp g : run.ops)
      g.erase();
    // Allocations nobody reads any more (and their views) go.
    for (Value v : buffers)
      eraseDeadBuffer(v);
  }

  void runOnOperation() override {
    int64_t before = countRegionTacticLaunches(getOperation());
    runOnFunction();
    numFusions += countRegionTacticLaunches(getOperation()) - before;
  }

  void runOnFunction() {
    func::FuncOp func = getOperation();
    // Named ops of the body as the generics they are.
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> named;
    for (Operation &op : func.getBody().front())
      if (isa<linalg::FillOp, linalg::CopyOp, linalg::TransposeOp,
              linalg::ReduceOp, linalg::MapOp>(op))
        named.push_back(cast<linalg::LinalgOp>(op));
    for (linalg::LinalgOp op : named) {
      if (!op.hasPureBufferSemantics())
        continue;
      rewriter.setInsertionPoint(op);
      (void)linalg::generalizeNamedOp(rewriter, op);
    }

    // For each op, the row loops of the first reduction in the stretch of
    // generics from it on.
    SmallVector<Operation *> seq;
    for (Operation &op : func.getBody().front())
      if (!isMovable(&op))
        seq.push_back(&op);
    SmallVector<SmallVector<int64_t>> hints(seq.size() + 1);
    for (size_t i = seq.size(); i-- > 0;) {
      auto g = dyn_cast<linalg::GenericOp>(seq[i]);
      if (!g || linalg::isaContractionOpInterface(g))
        continue;
      hints[i] = hints[i + 1];
      if (g.getNumLoops() >= 1 &&
          g.getIteratorTypesArray().back() == utils::IteratorType::reduction) {
        SmallVector<int64_t> loops = g.getStaticLoopRanges();
        hints[i].assign(loops.begin(), loops.end() - 1);
      }
    }

    std::vector<Run> runs;
    Run run;
    auto close = [&]() {
      // Worth it: two ops or more, one of them over rows.
      if (run.ops.size() >= 2 && run.rowOps() >= 1 && run.length > 0)
        runs.push_back(std::move(run));
      run = Run();
    };
    for (auto [i, op] : llvm::enumerate(seq)) {
      auto g = dyn_cast<linalg::GenericOp>(op);
      Kind kind;
      if (!g || linalg::isaContractionOpInterface(g)) {
        close();
        continue;
      }
      if (!admits(run, g, kind, hints[i])) {
        close();
        if (!admits(run, g, kind, hints[i])) {
          run = Run();
          continue;
        }
      }
      run.ops.push_back(g);
      run.kinds.push_back(kind);
      for (Value init : g.getDpsInits())
        run.written[init] = kind == Kind::Elementwise;
    }
    close();
    for (Run &r : runs)
      emit(r, func);
  }
};

} // namespace
