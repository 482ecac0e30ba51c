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
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <algorithm>
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
                                   Operation *combiner, Value acc,
                                   int64_t minOffset) {
  Type elem = acc.getType();
  Value width = arith::ConstantIntOp::create(b, loc, 32, 32);
  for (int64_t off = 16; off >= minOffset; off /= 2) {
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

static Value cIndex(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

static Value cmpI(OpBuilder &b, Location loc, arith::CmpIPredicate p, Value x,
                  Value y) {
  return arith::CmpIOp::create(b, loc, p, x, y);
}

/// Leaves the builder at the start of a new `scf.if cond`'s then block.
static void ifThen(OpBuilder &b, Location loc, Value cond) {
  auto op = scf::IfOp::create(b, loc, cond, false);
  b.setInsertionPointToStart(op.thenBlock());
}

/// A 1-D gpu.launch tagged `kiln.tactic` = `tactic`, its body terminated and
/// the builder left before the terminator.
static gpu::LaunchOp buildLaunch1d(OpBuilder &b, Location loc, int64_t blocks,
                                   int64_t threads, StringRef tactic) {
  auto c = [&](int64_t v) { return cIndex(b, loc, v); };
  auto launch = gpu::LaunchOp::create(b, loc, c(blocks), c(1), c(1), c(threads),
                                      c(1), c(1));
  launch->setAttr(kTacticAttr, b.getStringAttr(tactic));
  Block &body = launch.getBody().front();
  b.setInsertionPointToStart(&body);
  auto terminator = gpu::TerminatorOp::create(b, loc);
  b.setInsertionPoint(terminator);
  return launch;
}

WarpRows kiln::codegen::buildWarpRows(OpBuilder &b, Location loc, int64_t rows,
                                      int64_t warpsPerBlock, StringRef tactic) {
  constexpr int64_t warp = 32;
  auto c = [&](int64_t v) { return cIndex(b, loc, v); };
  gpu::LaunchOp launch =
      buildLaunch1d(b, loc, (rows + warpsPerBlock - 1) / warpsPerBlock,
                    warp * warpsPerBlock, tactic);
  Value tid = launch.getThreadIds().x;
  Value lane = arith::RemUIOp::create(b, loc, tid, c(warp));
  Value row = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, launch.getBlockIds().x, c(warpsPerBlock)),
      arith::DivUIOp::create(b, loc, tid, c(warp)));
  ifThen(b, loc, cmpI(b, loc, arith::CmpIPredicate::ult, row, c(rows)));
  return {launch, lane, row};
}

namespace {

constexpr int64_t kWarp = 32;
constexpr int64_t kWarpsPerBlock = 8;
constexpr int64_t kBlockThreads = 256;
/// Independent accumulators per thread in block and column reductions.
constexpr int64_t kUnroll = 4;
/// Column reductions are split over this many blocks per SM (a full SM's
/// 2048 threads: loads enough in flight to hide the memory latency).
constexpr int64_t kColumnBlocksPerSm = 8;
/// Most threads of a block of the vector column kernel.
constexpr int64_t kVectorColumnThreads = 1024;

/// Elements per 16-byte load of the column kernel: every input that `g`
/// reads walks the innermost kept dim (`inner`, of `extent` elements), the
/// inputs' elements have one width, and their vectors along that dim start
/// 16-byte aligned (allowsVectorAccess). 1 when any of that fails.
static int64_t columnVectorWidth(linalg::GenericOp g, unsigned inner,
                                 int64_t extent) {
  Block &body = g.getRegion().front();
  if (llvm::any_of(body,
                   [](Operation &op) { return isa<linalg::IndexOp>(op); }))
    return 1;
  int64_t width = 0;
  for (OpOperand *in : g.getDpsInputOperands()) {
    AffineMap m = g.getMatchingIndexingMap(in);
    if (body.getArgument(in->getOperandNumber()).use_empty() ||
        m.getNumResults() == 0)
      continue;
    auto t = dyn_cast<MemRefType>(in->get().getType());
    if (!t || !t.hasStaticShape() ||
        cast<AffineDimExpr>(m.getResults().back()).getPosition() != inner)
      return 1;
    unsigned bits = t.getElementTypeBitWidth();
    if (bits != 16 && bits != 32)
      return 1;
    int64_t w = 128 / bits;
    if (width && w != width)
      return 1;
    width = w;
    if (!allowsVectorAccess(t, w))
      return 1;
  }
  return width && extent % width == 0 ? width : 1;
}

/// The op right before `g` when it fills `out` with `identity` and nothing
/// else (a generic yielding a scalar constant): the block and column
/// kernels then store their totals instead of combining with `out`.
/// The nearest op before (`forward` false) or after `op` that touches
/// memory: views and constants in between are skipped.
static Operation *neighbour(Operation *op, bool forward) {
  do
    op = forward ? op->getNextNode() : op->getPrevNode();
  while (op && isMemoryEffectFree(op) && op->getNumRegions() == 0);
  return op;
}

static linalg::GenericOp identityFill(linalg::GenericOp g, Value out,
                                      double identity) {
  auto f = dyn_cast_or_null<linalg::GenericOp>(neighbour(g, false));
  if (!f || !f.hasPureBufferSemantics() || f.getNumDpsInits() != 1 ||
      f.getDpsInits()[0] != out || f.getNumReductionLoops() != 0 ||
      !f.getIndexingMapsArray().back().isIdentity())
    return {};
  Block &body = f.getRegion().front();
  if (!body.without_terminator().empty())
    return {};
  Value y = body.getTerminator()->getOperand(0);
  if (auto arg = dyn_cast<BlockArgument>(y)) {
    if (arg.getArgNumber() >= f.getNumDpsInputs())
      return {};
    y = f.getDpsInputs()[arg.getArgNumber()];
  }
  FloatAttr value;
  if (isa<ShapedType>(y.getType()) || !matchPattern(y, m_Constant(&value)) ||
      value.getValueAsDouble() != identity)
    return {};
  return f;
}

/// The op right after `g` when it maps `out` elementwise into another
/// buffer (a mean's division and cast) and `out` is scratch that nothing
/// else reads: the kernels then apply its body to each total and store
/// into its output, and `out` goes away.
/// Erases `out` (an alloc, or a view of one) once nothing uses it.
static void eraseDeadScratch(Value out) {
  if (!out.use_empty())
    return;
  Operation *def = out.getDefiningOp();
  Value root = out;
  if (auto view = dyn_cast<memref::ExpandShapeOp>(def)) {
    root = view.getSrc();
    view.erase();
  }
  if (root.use_empty())
    root.getDefiningOp()->erase();
}

static linalg::GenericOp mapOfOutput(linalg::GenericOp g, Value out) {
  auto e = dyn_cast_or_null<linalg::GenericOp>(neighbour(g, true));
  if (!e || !e.hasPureBufferSemantics() || e.getNumDpsInputs() != 1 ||
      e.getNumDpsInits() != 1 || e.getDpsInputs()[0] != out ||
      e.getNumReductionLoops() != 0 ||
      llvm::any_of(e.getIndexingMapsArray(),
                   [](AffineMap m) { return !m.isIdentity(); }))
    return {};
  Block &body = e.getRegion().front();
  if (!body.getArgument(1).use_empty() || llvm::any_of(body, [](Operation &op) {
        return isa<linalg::IndexOp>(op);
      }))
    return {};
  Value root = out;
  if (auto view = out.getDefiningOp<memref::ExpandShapeOp>()) {
    root = view.getSrc();
    if (!root.hasOneUse())
      return {};
  }
  if (!root.getDefiningOp<memref::AllocOp>())
    return {};
  Operation *before = neighbour(g, false);
  for (Operation *user : out.getUsers())
    if (user != g && user != e && user != before)
      return {};
  return e;
}

struct RowReducePass
    : public kiln::codegen::impl::GpuRowReducePassBase<RowReducePass> {
  KILN_PASS_STATISTICS_GpuRowReducePass using GpuRowReducePassBase::
      GpuRowReducePassBase;

  /// Fills and maps that lower() folded into a kernel (and erased).
  llvm::SmallPtrSet<Operation *, 4> erased;

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
    // neighbours in memory: long ones get the column kernel, short ones
    // the generic mapping, a thread per output looping over the row, which
    // reads coalesced.
    bool alongRow = false, acrossRows = !parallel.empty();
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
      acrossRows = acrossRows && inner == parallel.back();
    }
    AffineMap outMap = maps.back();
    acrossRows =
        acrossRows && outMap.getNumResults() > 0 &&
        cast<AffineDimExpr>(outMap.getResults().back()).getPosition() ==
            parallel.back();
    bool block = k >= blockLength;
    // Across rows with 16-byte loads: one launch for any length.
    int64_t width = vectorColumns && acrossRows && !alongRow
                        ? columnVectorWidth(g, parallel.back(),
                                            loops[parallel.back()])
                        : 1;
    if (!alongRow && !((block || width > 1) && acrossRows))
      return;

    OpBuilder b(g);
    Location loc = g.getLoc();
    auto c = [&](int64_t v) { return cIndex(b, loc, v); };
    OpBuilder::InsertionGuard guard(b);
    SmallVector<Value> idx(loops.size());
    // The parallel indices of output `row` (row-major over the kept dims).
    auto setRow = [&](Value row) {
      Value rest = row;
      for (unsigned d : llvm::reverse(parallel)) {
        idx[d] = arith::RemUIOp::create(b, loc, rest, c(loops[d]));
        rest = arith::DivUIOp::create(b, loc, rest, c(loops[d]));
      }
    };
    auto at = [&](AffineMap m) {
      SmallVector<Value> r;
      for (AffineExpr e : m.getResults())
        r.push_back(idx[cast<AffineDimExpr>(e).getPosition()]);
      return r;
    };
    auto makeIdentity = [&]() -> Value {
      return arith::ConstantOp::create(b, loc,
                                       b.getFloatAttr(elem, comb->identity));
    };
    // `acc` combined with element `kk` of the reduction (row-major over the
    // reduced dims) of the current output: the body, on loaded inputs.
    auto setReduced = [&](Value kk) {
      for (unsigned d : llvm::reverse(reds)) {
        if (d == reds.front()) {
          idx[d] = kk;
          break;
        }
        idx[d] = arith::RemUIOp::create(b, loc, kk, c(loops[d]));
        kk = arith::DivUIOp::create(b, loc, kk, c(loops[d]));
      }
    };
    auto foldAt = [&](Value kk, Value acc) -> Value {
      setReduced(kk);
      Block &body = g.getRegion().front();
      IRMapping map;
      for (OpOperand *in : g.getDpsInputOperands()) {
        BlockArgument arg = body.getArgument(in->getOperandNumber());
        if (arg.use_empty())
          continue;
        map.map(arg, memref::LoadOp::create(b, loc, in->get(),
                                            at(maps[in->getOperandNumber()])));
      }
      map.map(body.getArgument(g.getNumDpsInputs()), acc);
      for (Operation &op : body.without_terminator()) {
        if (auto index = dyn_cast<linalg::IndexOp>(op)) {
          map.map(index.getResult(), idx[index.getDim()]);
          continue;
        }
        b.clone(op, map);
      }
      return map.lookup(body.getTerminator()->getOperand(0));
    };
    // `accs` (`width` accumulators, for the outputs from the current row
    // on) combined with elements `kks` of their reductions, in order: every
    // input's 16-byte vectors at all of `kks` are loaded first (in flight
    // together), then the body is applied to each of their elements. kks[0]
    // must be in range; a later one past the end loads the last element and
    // leaves the accumulators as they are (no branches between the loads).
    auto foldVecAt = [&](ArrayRef<Value> kks,
                         ValueRange accs) -> SmallVector<Value> {
      Block &body = g.getRegion().front();
      SmallVector<SmallVector<std::pair<BlockArgument, Value>>> loaded;
      SmallVector<Value> valid;
      for (auto [i, kk] : llvm::enumerate(kks)) {
        Value at0 = kk;
        valid.push_back({});
        if (i > 0) {
          valid.back() = cmpI(b, loc, arith::CmpIPredicate::ult, kk, c(k));
          at0 = arith::MinUIOp::create(b, loc, kk, c(k - 1));
        }
        setReduced(at0);
        auto &vs = loaded.emplace_back();
        for (OpOperand *in : g.getDpsInputOperands()) {
          BlockArgument arg = body.getArgument(in->getOperandNumber());
          if (arg.use_empty())
            continue;
          AffineMap m = maps[in->getOperandNumber()];
          auto t = cast<MemRefType>(in->get().getType());
          Value v =
              m.getNumResults() == 0
                  ? memref::LoadOp::create(b, loc, in->get(), ValueRange{})
                        .getResult()
                  : vector::LoadOp::create(
                        b, loc, VectorType::get({width}, t.getElementType()),
                        in->get(), at(m), /*nontemporal=*/false,
                        llvm::MaybeAlign(16))
                        .getResult();
          vs.push_back({arg, v});
        }
      }
      SmallVector<Value> acc(accs);
      for (auto [vs, ok] : llvm::zip(loaded, valid))
        for (int64_t j = 0; j < width; ++j) {
          IRMapping map;
          for (auto [arg, v] : vs)
            map.map(arg, isa<VectorType>(v.getType())
                             ? vector::ExtractOp::create(b, loc, v,
                                                         ArrayRef<int64_t>{j})
                                   .getResult()
                             : v);
          map.map(body.getArgument(g.getNumDpsInputs()), acc[j]);
          for (Operation &op : body.without_terminator())
            b.clone(op, map);
          Value next = map.lookup(body.getTerminator()->getOperand(0));
          acc[j] = ok ? arith::SelectOp::create(b, loc, ok, next, acc[j])
                            .getResult()
                      : next;
        }
      return acc;
    };
    // Block and column kernels fold an identity fill of the output before
    // them and an elementwise map of it after them (the mean's division):
    // two launches fewer.
    bool whole = block || width > 1; // a kernel that stores whole totals
    linalg::GenericOp fill =
        whole ? identityFill(g, out, comb->identity) : nullptr;
    linalg::GenericOp map = whole ? mapOfOutput(g, out) : nullptr;
    // out[row] = combine(out[row], total) (or the map of it), by the thread
    // that has `total`.
    auto storeTotal = [&](Value total) {
      SmallVector<Value> outIdx = at(outMap);
      Value v = total;
      if (!fill)
        v = combine(b, loc, comb->op,
                    memref::LoadOp::create(b, loc, out, outIdx), total);
      if (!map) {
        memref::StoreOp::create(b, loc, v, out, outIdx);
        return;
      }
      Block &body = map.getRegion().front();
      IRMapping values;
      values.map(body.getArgument(0), v);
      for (Operation &op : body.without_terminator())
        b.clone(op, values);
      memref::StoreOp::create(
          b, loc, values.lookupOrDefault(body.getTerminator()->getOperand(0)),
          map.getDpsInits()[0], outIdx);
    };

    if (whole) {
      if (width > 1)
        vectorColumnReduction(b, loc, rows, k, width, elem, *comb,
                              makeIdentity, setRow, foldVecAt, storeTotal);
      else if (alongRow)
        blockPerRow(b, loc, rows, k, elem, *comb, makeIdentity, setRow, foldAt,
                    storeTotal);
      else
        columns(b, loc, rows, k, elem, *comb, makeIdentity, setRow, foldAt,
                storeTotal);
      g.erase();
      for (linalg::GenericOp folded : {fill, map})
        if (folded) {
          erased.insert(folded);
          folded.erase();
        }
      if (map)
        eraseDeadScratch(out);
      return;
    }

    auto [launch, lane, row] =
        buildWarpRows(b, loc, rows, kWarpsPerBlock, "warp row reduction");
    setRow(row);
    Value identity = makeIdentity();
    // Each lane folds the elements lane, lane + 32, ... of its row.
    auto loop =
        scf::ForOp::create(b, loc, lane, c(k), c(kWarp), ValueRange{identity});
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(loop.getBody());
      scf::YieldOp::create(
          b, loc, foldAt(loop.getInductionVar(), loop.getRegionIterArgs()[0]));
    }
    // Butterfly across the warp: every lane ends with the row's total.
    Value acc = warpAllReduce(b, loc, comb->op, loop.getResult(0));
    ifThen(b, loc, cmpI(b, loc, arith::CmpIPredicate::eq, lane, c(0)));
    storeTotal(acc);
    g.erase();
  }

  using FoldFn = llvm::function_ref<Value(Value, Value)>;
  using VecFoldFn =
      llvm::function_ref<SmallVector<Value>(ArrayRef<Value>, ValueRange)>;
  using RowFn = llvm::function_ref<void(Value)>;
  using MakeFn = llvm::function_ref<Value()>;

  /// Folds elements begin, begin + stride, ... (< end) into kUnroll
  /// independent accumulators (loads in flight together), then combines
  /// them: the thread's partial.
  static Value foldStrided(OpBuilder &b, Location loc, Value begin, Value end,
                           int64_t stride, const Combiner &comb, Value identity,
                           FoldFn foldAt) {
    auto c = [&](int64_t v) { return cIndex(b, loc, v); };
    SmallVector<Value> init(kUnroll, identity);
    auto loop =
        scf::ForOp::create(b, loc, begin, end, c(stride * kUnroll), init);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(loop.getBody());
      SmallVector<Value> next;
      for (int64_t j = 0; j < kUnroll; ++j) {
        Value acc = loop.getRegionIterArgs()[j];
        Value kk = j == 0 ? loop.getInductionVar()
                          : Value(arith::AddIOp::create(
                                b, loc, loop.getInductionVar(), c(j * stride)));
        if (j == 0) {
          next.push_back(foldAt(kk, acc));
          continue;
        }
        auto guarded =
            scf::IfOp::create(b, loc, acc.getType(),
                              cmpI(b, loc, arith::CmpIPredicate::ult, kk, end),
                              /*withElseRegion=*/true);
        {
          OpBuilder::InsertionGuard g2(b);
          b.setInsertionPointToStart(guarded.thenBlock());
          scf::YieldOp::create(b, loc, foldAt(kk, acc));
          b.setInsertionPointToStart(guarded.elseBlock());
          scf::YieldOp::create(b, loc, acc);
        }
        next.push_back(guarded.getResult(0));
      }
      scf::YieldOp::create(b, loc, next);
    }
    Value acc = loop.getResult(0);
    for (int64_t j = 1; j < kUnroll; ++j)
      acc = combine(b, loc, comb.op, acc, loop.getResult(j));
    return acc;
  }

  /// A block of kBlockThreads per output: each thread folds every
  /// kBlockThreads-th element, each warp's lanes combine by shuffles, the
  /// warps' totals through shared memory.
  static void blockPerRow(OpBuilder &b, Location loc, int64_t rows, int64_t k,
                          Type elem, const Combiner &comb, MakeFn makeIdentity,
                          RowFn setRow, FoldFn foldAt,
                          llvm::function_ref<void(Value)> storeTotal) {
    auto c = [&](int64_t v) { return cIndex(b, loc, v); };
    constexpr int64_t warps = kBlockThreads / kWarp;
    gpu::LaunchOp launch =
        buildLaunch1d(b, loc, rows, kBlockThreads, "block row reduction");
    auto smemType =
        MemRefType::get({warps}, elem, MemRefLayoutAttrInterface(),
                        gpu::AddressSpaceAttr::get(
                            b.getContext(), gpu::AddressSpace::Workgroup));
    Value smem = launch.addWorkgroupAttribution(smemType, loc);
    Value tid = launch.getThreadIds().x;
    setRow(launch.getBlockIds().x);
    Value identity = makeIdentity();
    Value acc =
        foldStrided(b, loc, tid, c(k), kBlockThreads, comb, identity, foldAt);
    acc = warpAllReduce(b, loc, comb.op, acc);
    Value lane = arith::RemUIOp::create(b, loc, tid, c(kWarp));
    Value warp = arith::DivUIOp::create(b, loc, tid, c(kWarp));
    {
      OpBuilder::InsertionGuard g(b);
      ifThen(b, loc, cmpI(b, loc, arith::CmpIPredicate::eq, lane, c(0)));
      memref::StoreOp::create(b, loc, acc, smem, ValueRange{warp});
    }
    gpu::BarrierOp::create(b, loc);
    OpBuilder::InsertionGuard g(b);
    ifThen(b, loc, cmpI(b, loc, arith::CmpIPredicate::eq, warp, c(0)));
    Value first = arith::MinUIOp::create(b, loc, lane, c(warps - 1));
    Value v = memref::LoadOp::create(b, loc, smem, ValueRange{first});
    v = arith::SelectOp::create(
        b, loc, cmpI(b, loc, arith::CmpIPredicate::ult, lane, c(warps)), v,
        identity);
    v = warpAllReduce(b, loc, comb.op, v);
    ifThen(b, loc, cmpI(b, loc, arith::CmpIPredicate::eq, lane, c(0)));
    storeTotal(v);
  }

  /// Outputs contiguous along their innermost dim, each the reduction of a
  /// strided column: blocks of 32 neighbouring outputs (a warp's lanes, so
  /// every load coalesces) x kBlockThreads / 32 warps, the reduction split
  /// into chunks over enough blocks to keep every SM busy twice over. A
  /// single chunk stores its total; several write partials to scratch that
  /// a second launch combines in chunk order.
  void columns(OpBuilder &b, Location loc, int64_t rows, int64_t k, Type elem,
               const Combiner &comb, MakeFn makeIdentity, RowFn setRow,
               FoldFn foldAt, llvm::function_ref<void(Value)> storeTotal) {
    auto c = [&](int64_t v) { return cIndex(b, loc, v); };
    constexpr int64_t warps = kBlockThreads / kWarp;
    int64_t tiles = (rows + kWarp - 1) / kWarp;
    // Chunks of at least kUnroll elements per warp's lane, over enough
    // blocks for kColumnBlocksPerSm on every SM (on the H200, 96x48x512
    // fp16: 8 per SM take 9.0 us, 4 11.6, 2 18.4).
    int64_t maxSplit = std::max<int64_t>(1, k / (warps * kUnroll));
    int64_t split = std::clamp<int64_t>(
        (kColumnBlocksPerSm * numSms + tiles - 1) / tiles, 1, maxSplit);
    int64_t chunk = (k + split - 1) / split;
    split = (k + chunk - 1) / chunk;
    Value partials;
    if (split > 1)
      partials =
          memref::AllocOp::create(b, loc, MemRefType::get({split, rows}, elem),
                                  b.getI64IntegerAttr(64));
    {
      OpBuilder::InsertionGuard g(b);
      gpu::LaunchOp launch = buildLaunch1d(b, loc, tiles * split, kBlockThreads,
                                           "column reduction");
      auto smemType =
          MemRefType::get({warps, kWarp}, elem, MemRefLayoutAttrInterface(),
                          gpu::AddressSpaceAttr::get(
                              b.getContext(), gpu::AddressSpace::Workgroup));
      Value smem = launch.addWorkgroupAttribution(smemType, loc);
      Value tid = launch.getThreadIds().x;
      Value bid = launch.getBlockIds().x;
      Value lane = arith::RemUIOp::create(b, loc, tid, c(kWarp));
      Value warp = arith::DivUIOp::create(b, loc, tid, c(kWarp));
      Value tile = arith::RemUIOp::create(b, loc, bid, c(tiles));
      Value part = arith::DivUIOp::create(b, loc, bid, c(tiles));
      Value row = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, tile, c(kWarp)), lane);
      // Lanes past the last output read the last one's column (in bounds,
      // no divergence in the loop) and store nothing.
      setRow(arith::MinUIOp::create(b, loc, row, c(rows - 1)));
      Value begin = arith::MulIOp::create(b, loc, part, c(chunk));
      Value end = arith::MinUIOp::create(
          b, loc, arith::AddIOp::create(b, loc, begin, c(chunk)), c(k));
      Value identity = makeIdentity();
      Value acc =
          foldStrided(b, loc, arith::AddIOp::create(b, loc, begin, warp), end,
                      warps, comb, identity, foldAt);
      memref::StoreOp::create(b, loc, acc, smem, ValueRange{warp, lane});
      gpu::BarrierOp::create(b, loc);
      ifThen(b, loc,
             arith::AndIOp::create(
                 b, loc, cmpI(b, loc, arith::CmpIPredicate::eq, warp, c(0)),
                 cmpI(b, loc, arith::CmpIPredicate::ult, row, c(rows))));
      Value total =
          memref::LoadOp::create(b, loc, smem, ValueRange{c(0), lane});
      for (int64_t w = 1; w < warps; ++w)
        total = combine(
            b, loc, comb.op, total,
            memref::LoadOp::create(b, loc, smem, ValueRange{c(w), lane}));
      if (split == 1)
        storeTotal(total);
      else
        memref::StoreOp::create(b, loc, total, partials, ValueRange{part, row});
    }
    if (split == 1)
      return;
    // The chunks' partials, in order, into the output.
    OpBuilder::InsertionGuard g(b);
    int64_t blocks = (rows + kBlockThreads - 1) / kBlockThreads;
    gpu::LaunchOp launch = buildLaunch1d(b, loc, blocks, kBlockThreads,
                                         "column reduction (combine)");
    Value row = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, launch.getBlockIds().x, c(kBlockThreads)),
        launch.getThreadIds().x);
    ifThen(b, loc, cmpI(b, loc, arith::CmpIPredicate::ult, row, c(rows)));
    setRow(row);
    Value total =
        memref::LoadOp::create(b, loc, partials, ValueRange{c(0), row});
    for (int64_t s = 1; s < split; ++s)
      total = combine(
          b, loc, comb.op, total,
          memref::LoadOp::create(b, loc, partials, ValueRange{c(s), row}));
    storeTotal(total);
  }

  /// Outputs contiguous along their innermost dim, read `width` at a time
  /// (16 bytes), in one launch: a block per `lanes` x `width` neighbouring
  /// outputs, its threads `lanes` wide (neighbouring vectors, whole 32-byte
  /// sectors) and `walkers` deep along the reduction, each with kUnroll
  /// loads in flight; the walkers' partials combine by warp shuffles, then
  /// the warps' through shared memory, in a fixed order (deterministic).
  /// The whole reduction of an output stays in its block: no partials, no
  /// second launch.
  void vectorColumnReduction(OpBuilder &b, Location loc, int64_t rows,
                             int64_t k, int64_t width, Type elem,
                             const Combiner &comb, MakeFn makeIdentity,
                             RowFn setRow, VecFoldFn foldVecAt,
                             llvm::function_ref<void(Value)> storeTotal) {
    auto c = [&](int64_t v) { return cIndex(b, loc, v); };
    int64_t groups = rows / width;
    // Wider blocks only while every SM still gets one.
    int64_t lanes = 1;
    for (int64_t l : {4, 2})
      if ((groups + l - 1) / l >= numSms) {
        lanes = l;
        break;
      }
    int64_t walkers = std::min<int64_t>(
        kVectorColumnThreads / lanes,
        (int64_t)llvm::PowerOf2Ceil((k + kUnroll - 1) / kUnroll));
    int64_t threads = std::max<int64_t>(kWarp, walkers * lanes);
    walkers = threads / lanes;
    int64_t warps = threads / kWarp;
    int64_t blocks = (groups + lanes - 1) / lanes;
    gpu::LaunchOp launch = buildLaunch1d(b, loc, blocks, threads,
                                         "vector column reduction");
    auto smemType = MemRefType::get(
        {warps, lanes * width}, elem, MemRefLayoutAttrInterface(),
        gpu::AddressSpaceAttr::get(b.getContext(),
                                   gpu::AddressSpace::Workgroup));
    Value smem = launch.addWorkgroupAttribution(smemType, loc);
    Value tid = launch.getThreadIds().x;
    Value bid = launch.getBlockIds().x;
    Value lane = arith::RemUIOp::create(b, loc, tid, c(kWarp));
    Value warp = arith::DivUIOp::create(b, loc, tid, c(kWarp));
    Value sub = arith::RemUIOp::create(b, loc, tid, c(lanes));
    Value walker = arith::DivUIOp::create(b, loc, tid, c(lanes));
    // Threads past the last vector read the last one (in bounds) and store
    // nothing.
    Value group = arith::MinUIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc,
                              arith::MulIOp::create(b, loc, bid, c(lanes)),
                              sub),
        c(groups - 1));
    setRow(arith::MulIOp::create(b, loc, group, c(width)));
    Value identity = makeIdentity();
    // `width` accumulators; each step loads elements walker,
    // walker + walkers, ... (kUnroll of them, in flight together).
    SmallVector<Value> init(width, identity);
    auto loop = scf::ForOp::create(b, loc, walker, c(k),
                                   c(walkers * kUnroll), init);
    SmallVector<Value> acc;
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(loop.getBody());
      SmallVector<Value> kks = {loop.getInductionVar()};
      for (int64_t u = 1; u < kUnroll; ++u)
        kks.push_back(arith::AddIOp::create(b, loc, loop.getInductionVar(),
                                            c(u * walkers)));
      scf::YieldOp::create(b, loc, foldVecAt(kks, loop.getRegionIterArgs()));
    }
    acc.assign(loop.getResults().begin(), loop.getResults().end());
    // Lanes equal modulo `lanes` walk the same outputs: combine them.
    for (Value &a : acc)
      a = warpAllReduce(b, loc, comb.op, a, lanes);
    {
      OpBuilder::InsertionGuard g(b);
      ifThen(b, loc, cmpI(b, loc, arith::CmpIPredicate::ult, lane, c(lanes)));
      Value base = arith::MulIOp::create(b, loc, lane, c(width));
      for (int64_t j = 0; j < width; ++j)
        memref::StoreOp::create(
            b, loc, acc[j], smem,
            ValueRange{warp, arith::AddIOp::create(b, loc, base, c(j))});
    }
    gpu::BarrierOp::create(b, loc);
    // Thread t < lanes * width: output bid * lanes * width + t, over the
    // warps in order.
    Value row = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, bid, c(lanes * width)), tid);
    OpBuilder::InsertionGuard g(b);
    ifThen(b, loc,
           arith::AndIOp::create(
               b, loc,
               cmpI(b, loc, arith::CmpIPredicate::ult, tid, c(lanes * width)),
               cmpI(b, loc, arith::CmpIPredicate::ult, row, c(rows))));
    Value total = memref::LoadOp::create(b, loc, smem, ValueRange{c(0), tid});
    for (int64_t w = 1; w < warps; ++w)
      total = combine(
          b, loc, comb.op, total,
          memref::LoadOp::create(b, loc, smem, ValueRange{c(w), tid}));
    setRow(row);
    storeTotal(total);
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
      if (!erased.contains(g))
        lower(g);
    erased.clear();
  }
};

} // namespace
