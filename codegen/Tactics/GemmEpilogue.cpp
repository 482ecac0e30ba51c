//===- GemmEpilogue.cpp - where a tensor-core GEMM stores -----------------===//
//
// The epilogues of kiln-gpu-tensor-core's kernels: GemmEpilogue.h.
//
//===----------------------------------------------------------------------===//
#include "codegen/Tactics/GemmEpilogue.h"
#include "codegen/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace kiln::codegen;

namespace {

/// The neighbour of `op` in its block in direction `forward`, skipping
/// movable ops.
Operation *neighbour(Operation *op, bool forward) {
  for (Operation *o = forward ? op->getNextNode() : op->getPrevNode(); o;
       o = forward ? o->getNextNode() : o->getPrevNode())
    if (!isMovable(o))
      return o;
  return nullptr;
}

/// 8 values of `v`'s element type loaded from (or stored to) `memref`
/// along its last dim from `idx`.
Value loadVector8(OpBuilder &b, Location loc, Value memref, ValueRange idx) {
  Type elem = cast<MemRefType>(memref.getType()).getElementType();
  return vector::LoadOp::create(b, loc, VectorType::get({8}, elem), memref, idx,
                                /*nontemporal=*/false, llvm::MaybeAlign(16));
}

void storeVector8(OpBuilder &b, Location loc, ArrayRef<Value> values,
                  Value memref, ValueRange idx) {
  Type elem = cast<MemRefType>(memref.getType()).getElementType();
  Value v = vector::FromElementsOp::create(b, loc, VectorType::get({8}, elem),
                                           values);
  vector::StoreOp::create(b, loc, v, memref, idx, /*nontemporal=*/false,
                          llvm::MaybeAlign(16));
}

/// Whether every access to `buffer` (an allocation, or a kernel's output
/// argument) other than by `own` (the anchor, its consumer, the fill) comes
/// after `consumer` (the last of them), in the same block, the first of
/// them overwriting the whole buffer without reading it: one-shot
/// bufferization reuses a dead buffer for a later result (softmax's
/// exponentials after the attention scores), which does not keep the
/// anchor's f32 result alive. An argument's value outlives the kernel: it
/// must be overwritten (an allocation may also just die).
bool reusedWholeAfter(Value buffer, Operation *consumer,
                      ArrayRef<Operation *> own) {
  SmallVector<std::pair<Operation *, Value>> accesses;
  SmallVector<Value> worklist{buffer};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (llvm::is_contained(own, user))
        continue;
      if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(user)) {
        worklist.push_back(user->getResult(0));
        continue;
      }
      accesses.push_back({user, v});
    }
  }
  if (accesses.empty())
    return !isa<BlockArgument>(buffer);
  for (auto [user, v] : accesses)
    if (user->getBlock() != consumer->getBlock() ||
        !consumer->isBeforeInBlock(user))
      return false;
  auto first = *llvm::min_element(accesses, [](auto &a, auto &b) {
    return a.first->isBeforeInBlock(b.first);
  });
  auto op = dyn_cast<linalg::LinalgOp>(first.first);
  if (!op || !op.hasPureBufferSemantics() ||
      op.getNumLoops() != op.getNumParallelLoops())
    return false;
  // Written once as an output, whole (a reshaped view covers the buffer),
  // and not read by the body or as an input.
  int64_t writes = 0;
  for (OpOperand &operand : op->getOpOperands()) {
    if (viewRoot(operand.get()) != buffer)
      continue;
    if (operand.get() != first.second || !op.isDpsInit(&operand) ||
        op.payloadUsesValueFromOperand(&operand) ||
        !op.getMatchingIndexingMap(&operand).isIdentity())
      return false;
    ++writes;
  }
  return writes == 1;
}

/// `e` with `consumer` (reading the anchor's result as input `input`) fused
/// in. The consumer's operands may be defined between the two ops (views,
/// allocations): they move before the anchor, since the fused kernel needs
/// them first.
GemmEpilogue fuseConsumer(GemmEpilogue e, Operation *anchor,
                          linalg::GenericOp consumer, unsigned input) {
  e.consumer = consumer;
  e.consumerInput = input;
  SmallVector<Operation *> between;
  for (Operation *o = anchor->getNextNode(); o != consumer;
       o = o->getNextNode())
    between.push_back(o);
  for (Operation *o : between)
    o->moveBefore(anchor);
  return e;
}

} // namespace

bool GemmEpilogue::readsFullOperand() {
  auto outType = cast<MemRefType>(out.getType());
  if (!consumer || !outType.hasStaticShape())
    return false;
  for (OpOperand *in : consumer.getDpsInputOperands()) {
    auto t = dyn_cast<MemRefType>(in->get().getType());
    if (in->getOperandNumber() != consumerInput && t && t.hasStaticShape() &&
        t.getNumElements() == outType.getNumElements())
      return true;
  }
  return false;
}

SmallVector<Value> GemmEpilogue::loopIndices(ValueRange idx) const {
  if (loopOf.empty())
    return SmallVector<Value>(idx);
  SmallVector<Value> l(idx.size());
  for (auto [j, d] : llvm::enumerate(loopOf))
    l[d] = idx[j];
  return l;
}

void GemmEpilogue::store(OpBuilder &b, Location loc, ValueRange idx,
                         Value value) {
  if (accumulate)
    value = arith::AddFOp::create(
        b, loc, memref::LoadOp::create(b, loc, out, idx), value);
  if (!consumer) {
    memref::StoreOp::create(b, loc, value, out, idx);
    return;
  }
  SmallVector<Value> loops = loopIndices(idx);
  idx = loops;
  Block &body = consumer.getRegion().front();
  IRMapping map;
  auto indexAt = [&](AffineMap m) {
    SmallVector<Value> r;
    for (AffineExpr e : m.getResults()) {
      if (auto d = dyn_cast<AffineDimExpr>(e)) {
        r.push_back(idx[d.getPosition()]);
        continue;
      }
      if (auto c = dyn_cast<AffineConstantExpr>(e)) {
        r.push_back(arith::ConstantIndexOp::create(b, loc, c.getValue()));
        continue;
      }
      r.push_back(affine::AffineApplyOp::create(
          b, loc, AffineMap::get(m.getNumDims(), 0, e), idx));
    }
    return r;
  };
  SmallVector<AffineMap> maps = consumer.getIndexingMapsArray();
  for (OpOperand &operand : consumer->getOpOperands()) {
    BlockArgument arg = body.getArgument(operand.getOperandNumber());
    if (operand.getOperandNumber() == consumerInput) {
      map.map(arg, value);
      continue;
    }
    if (arg.use_empty())
      continue;
    map.map(arg,
            memref::LoadOp::create(b, loc, operand.get(),
                                   indexAt(maps[operand.getOperandNumber()])));
  }
  for (Operation &op : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(op)) {
      map.map(index.getResult(), idx[index.getDim()]);
      continue;
    }
    b.clone(op, map);
  }
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  for (auto [i, init] : llvm::enumerate(consumer.getDpsInits()))
    memref::StoreOp::create(b, loc, map.lookup(yield.getOperand(i)), init,
                            indexAt(maps[consumer.getNumDpsInputs() + i]));
}

bool GemmEpilogue::vectorizes() {
  if (!consumer)
    return allowsVectorAccess(cast<MemRefType>(out.getType()));
  // The 8 elements must lie along the consumer's last loop dim too.
  if (!loopOf.empty() && loopOf.back() != loopOf.size() - 1)
    return false;
  return llvm::any_of(consumer.getDpsInits(), [](Value init) {
    return allowsVectorAccess(cast<MemRefType>(init.getType()));
  });
}

void GemmEpilogue::store8(OpBuilder &b, Location loc, ValueRange idx,
                          ArrayRef<Value> values) {
  unsigned rank = idx.size();
  auto at = [&](unsigned i) {
    SmallVector<Value> r(idx);
    if (i)
      r.back() = arith::AddIOp::create(
          b, loc, r.back(), arith::ConstantIndexOp::create(b, loc, i));
    return r;
  };
  SmallVector<SmallVector<Value>> idxs;
  for (unsigned i = 0; i < 8; ++i)
    idxs.push_back(at(i));
  // Per element, or one 8-vector, of memref through `m`.
  auto read = [&](Value memref, AffineMap m) {
    SmallVector<Value> r;
    bool usesLast = false, lastIsLast = false;
    for (auto [j, e] : llvm::enumerate(m.getResults())) {
      if (e.isFunctionOfDim(rank - 1)) {
        usesLast = true;
        lastIsLast = j + 1 == m.getNumResults() &&
                     e == getAffineDimExpr(rank - 1, b.getContext());
      }
    }
    auto indexAt = [&](ArrayRef<Value> ix) {
      SmallVector<Value> out;
      for (AffineExpr e : m.getResults()) {
        if (auto d = dyn_cast<AffineDimExpr>(e))
          out.push_back(ix[d.getPosition()]);
        else if (auto c = dyn_cast<AffineConstantExpr>(e))
          out.push_back(arith::ConstantIndexOp::create(b, loc, c.getValue()));
        else
          out.push_back(affine::AffineApplyOp::create(
              b, loc, AffineMap::get(m.getNumDims(), 0, e), ix));
      }
      return out;
    };
    if (!usesLast) {
      Value v = memref::LoadOp::create(b, loc, memref, indexAt(idxs[0]));
      r.assign(8, v);
      return r;
    }
    int usesOfLast = llvm::count_if(m.getResults(), [&](AffineExpr e) {
      return e.isFunctionOfDim(rank - 1);
    });
    if (lastIsLast && usesOfLast == 1 &&
        allowsVectorAccess(cast<MemRefType>(memref.getType()))) {
      Value v = loadVector8(b, loc, memref, indexAt(idxs[0]));
      for (int64_t i = 0; i < 8; ++i)
        r.push_back(vector::ExtractOp::create(b, loc, v, i));
      return r;
    }
    for (unsigned i = 0; i < 8; ++i)
      r.push_back(memref::LoadOp::create(b, loc, memref, indexAt(idxs[i])));
    return r;
  };
  auto write = [&](ArrayRef<Value> vs, Value memref) {
    if (allowsVectorAccess(cast<MemRefType>(memref.getType()))) {
      storeVector8(b, loc, vs, memref, idxs[0]);
      return;
    }
    for (unsigned i = 0; i < 8; ++i)
      memref::StoreOp::create(b, loc, vs[i], memref, idxs[i]);
  };
  SmallVector<Value> vals(values);
  if (accumulate) {
    SmallVector<Value> old = read(out, b.getMultiDimIdentityMap(rank));
    for (unsigned i = 0; i < 8; ++i)
      vals[i] = arith::AddFOp::create(b, loc, old[i], vals[i]);
  }
  if (!consumer)
    return write(vals, out);
  // From here on, indices are the consumer's loop indices (its last loop
  // dim is `out`'s last dim: vectorizes()).
  for (SmallVector<Value> &ix : idxs)
    ix = loopIndices(ix);
  Block &body = consumer.getRegion().front();
  SmallVector<AffineMap> maps = consumer.getIndexingMapsArray();
  // Operands first (each read once for all 8), then the body 8 times.
  SmallVector<SmallVector<Value>> operands(consumer->getNumOperands());
  for (OpOperand &operand : consumer->getOpOperands()) {
    unsigned n = operand.getOperandNumber();
    if (n == consumerInput || body.getArgument(n).use_empty())
      continue;
    operands[n] = read(operand.get(), maps[n]);
  }
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  SmallVector<SmallVector<Value>> results(consumer.getNumDpsInits());
  for (unsigned i = 0; i < 8; ++i) {
    IRMapping map;
    for (unsigned n = 0; n < consumer->getNumOperands(); ++n) {
      if (n == consumerInput)
        map.map(body.getArgument(n), vals[i]);
      else if (!operands[n].empty())
        map.map(body.getArgument(n), operands[n][i]);
    }
    for (Operation &op : body.without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(op)) {
        map.map(index.getResult(), idxs[i][index.getDim()]);
        continue;
      }
      b.clone(op, map);
    }
    for (unsigned r = 0; r < results.size(); ++r)
      results[r].push_back(map.lookup(yield.getOperand(r)));
  }
  for (auto [r, init] : llvm::enumerate(consumer.getDpsInits()))
    write(results[r], init);
}

GemmEpilogue kiln::codegen::planEpilogue(Operation *anchor, Value out,
                                         ValueRange inputs) {
  GemmEpilogue e;
  e.out = out;
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(neighbour(anchor, false));
      fill && fill.getOutputs()[0] == out &&
      matchPattern(fill.getInputs()[0], m_AnyZeroFloat())) {
    e.fill = fill;
    e.accumulate = false;
  }
  auto consumer = dyn_cast_or_null<linalg::GenericOp>(neighbour(anchor, true));
  // In place (f32 results, tf32: bufferization runs the consumer on the
  // anchor's own buffer): `out` holds the consumer's result afterwards, so
  // the kernel stores that instead. The consumer reads `out` once, with
  // the identity map (each element is read and written by the thread that
  // computes it), and has no other output.
  if (consumer && consumer.hasPureBufferSemantics() &&
      consumer.getNumDpsInits() == 1 && consumer.getDpsInits()[0] == out) {
    OpOperand &init = consumer.getDpsInitsMutable()[0];
    auto outType = cast<MemRefType>(out.getType());
    if (consumer.getNumLoops() != outType.getRank() ||
        consumer.getNumReductionLoops() != 0 ||
        !consumer.getMatchingIndexingMap(&init).isIdentity() ||
        consumer.payloadUsesValueFromOperand(&init))
      return e;
    std::optional<unsigned> input;
    for (OpOperand *operand : consumer.getDpsInputOperands()) {
      if (viewRoot(operand->get()) != viewRoot(out))
        continue;
      if (input || operand->get() != out ||
          !consumer.getMatchingIndexingMap(operand).isIdentity())
        return e;
      input = operand->getOperandNumber();
    }
    if (!input)
      return e;
    return fuseConsumer(e, anchor, consumer, *input);
  }
  // `out` is a fresh buffer or an output argument of the kernel (which a
  // later op of it overwrites: f32 attention scores whose buffer
  // bufferization gave to the softmax), or a reshaped view of one.
  Value root = viewRoot(out);
  auto arg = dyn_cast<BlockArgument>(root);
  if (!consumer || !consumer.hasPureBufferSemantics() ||
      !(root.getDefiningOp<memref::AllocOp>() ||
        (arg && isa<func::FuncOp>(arg.getOwner()->getParentOp()))))
    return e;
  for (Value v = out; v != root; v = v.getDefiningOp()->getOperand(0))
    if (!isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(v.getDefiningOp()))
      return e;
  if (!reusedWholeAfter(
          root, consumer,
          {anchor, consumer.getOperation(), e.fill.getOperation()}))
    return e;
  auto outType = cast<MemRefType>(out.getType());
  if (consumer.getNumLoops() != outType.getRank() ||
      consumer.getNumReductionLoops() != 0)
    return e;
  // The f32 buffer must die in the consumer: no reader but it, read once
  // with an identity map; outputs written with identity maps; no output
  // may alias what the anchor reads (the kernel reads them while it writes).
  std::optional<unsigned> input;
  for (OpOperand *operand : consumer.getDpsInputOperands())
    if (operand->get() == out) {
      if (input)
        return e;
      input = operand->getOperandNumber();
    }
  if (!input)
    return e;
  AffineMap read =
      consumer.getMatchingIndexingMap(&consumer->getOpOperand(*input));
  if (!read.isPermutation())
    return e;
  if (!read.isIdentity())
    for (AffineExpr r : read.getResults())
      e.loopOf.push_back(cast<AffineDimExpr>(r).getPosition());
  // (Other readers and writers of the buffer: reusedWholeAfter.)
  for (OpOperand &init : consumer.getDpsInitsMutable()) {
    if (!consumer.getMatchingIndexingMap(&init).isIdentity())
      return e;
    Value root = viewRoot(init.get());
    for (Value in : inputs)
      if (viewRoot(in) == root)
        return e;
  }
  return fuseConsumer(e, anchor, consumer, *input);
}
