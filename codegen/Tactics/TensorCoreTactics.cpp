//===- TensorCoreTactics.cpp - conv/matmul onto tensor-core kernels -------===//
//
// kiln-gpu-tensor-core: see codegen/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "codegen/Tactics/PaddedImage.h"
#include "codegen/Tactics/TensorCoreGemm.h"
#include "codegen/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_GPUTENSORCOREPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

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
  return vector::LoadOp::create(b, loc, VectorType::get({8}, elem), memref,
                                idx, /*nontemporal=*/false,
                                llvm::MaybeAlign(16));
}

void storeVector8(OpBuilder &b, Location loc, ArrayRef<Value> values,
                  Value memref, ValueRange idx) {
  Type elem = cast<MemRefType>(memref.getType()).getElementType();
  Value v = vector::FromElementsOp::create(
      b, loc, VectorType::get({8}, elem), values);
  vector::StoreOp::create(b, loc, v, memref, idx, /*nontemporal=*/false,
                          llvm::MaybeAlign(16));
}

/// `operand` as a TMA tensor (GemmSpec::TmaView) when it is a statically
/// strided memref whose index `map` (results: loop dims, or 0) holds the
/// loop dims of `contiguous` (stride 1), `other` and `batch` (loop extents
/// `loops`), each group's dims linearizable with one stride (the last the
/// fastest); batch dims become one TMA dim where they linearize too.
std::optional<GemmSpec::TmaView>
tmaViewOf(Value operand, AffineMap map, ArrayRef<int64_t> loops,
          ArrayRef<unsigned> contiguous, ArrayRef<unsigned> other,
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
  auto linear = [&](ArrayRef<unsigned> ds, int64_t &extent,
                    int64_t &stride) {
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
Pixel outputPixel(OpBuilder &b, Location loc, Value m, int64_t oh,
                  int64_t ow) {
  IndexMath im{b, loc};
  Value img = im.div(m, oh * ow), r = im.rem(m, oh * ow);
  return Pixel{img, im.div(r, ow), im.rem(r, ow)};
}

/// How the result of one anchor op reaches memory: either stored directly
/// into its (f32) output buffer, or — when the only reader of that buffer
/// is the elementwise linalg.generic right after the op — passed through
/// that generic's body and stored into the generic's outputs (the f32
/// buffer then disappears).
struct Epilogue {
  Value out;                  // the anchor op's output buffer
  bool accumulate = true;     // out was not zero-filled just before
  linalg::FillOp fill;        // the zero fill to drop, if any
  linalg::GenericOp consumer; // fused elementwise consumer, if any
  unsigned consumerInput = 0; // which of its inputs reads `out`
  /// The consumer's loop dim of each dim of `out`: it may read `out`
  /// through a permutation (a transpose after a gemm); empty: identity.
  SmallVector<unsigned> loopOf;

  /// Whether the consumer reads another operand element for element with
  /// `out` (a residual), besides `out` itself.
  bool readsFullOperand() {
    auto outType = cast<MemRefType>(out.getType());
    if (!consumer || !outType.hasStaticShape())
      return false;
    for (OpOperand *in : consumer.getDpsInputOperands()) {
      auto t = dyn_cast<MemRefType>(in->get().getType());
      if (in->getOperandNumber() != consumerInput && t &&
          t.hasStaticShape() &&
          t.getNumElements() == outType.getNumElements())
        return true;
    }
    return false;
  }

  /// The consumer's loop indices at element `idx` of `out`.
  SmallVector<Value> loopIndices(ValueRange idx) const {
    if (loopOf.empty())
      return SmallVector<Value>(idx);
    SmallVector<Value> l(idx.size());
    for (auto [j, d] : llvm::enumerate(loopOf))
      l[d] = idx[j];
    return l;
  }

  /// Stores `value` for element `idx` of `out`.
  void store(OpBuilder &b, Location loc, ValueRange idx, Value value) {
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
      map.map(arg, memref::LoadOp::create(
                       b, loc, operand.get(),
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
      memref::StoreOp::create(
          b, loc, map.lookup(yield.getOperand(i)), init,
          indexAt(maps[consumer.getNumDpsInputs() + i]));
  }

  /// Whether store8 can write `out`'s last dim 8 at a time (it always can;
  /// this says whether the stores will be vectors, worth the staging).
  bool vectorizes() {
    if (!consumer)
      return allowsVectorAccess(cast<MemRefType>(out.getType()));
    // The 8 elements must lie along the consumer's last loop dim too.
    if (!loopOf.empty() && loopOf.back() != loopOf.size() - 1)
      return false;
    return llvm::any_of(consumer.getDpsInits(), [](Value init) {
      return allowsVectorAccess(cast<MemRefType>(init.getType()));
    });
  }

  /// Stores `values` for the 8 elements of `out` from `idx` along its last
  /// dim (idx.back() a multiple of 8): what store() does, with one 16-byte
  /// access for every operand read or written along that dim where its
  /// layout allows, one load for operands constant along it, else per
  /// element.
  void store8(OpBuilder &b, Location loc, ValueRange idx,
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
};

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
Epilogue fuseConsumer(Epilogue e, Operation *anchor,
                      linalg::GenericOp consumer, unsigned input) {
  e.consumer = consumer;
  e.consumerInput = input;
  SmallVector<Operation *> between;
  for (Operation *o = anchor->getNextNode(); o != consumer; o = o->getNextNode())
    between.push_back(o);
  for (Operation *o : between)
    o->moveBefore(anchor);
  return e;
}

/// Decides the epilogue of `anchor`, whose output buffer is `out` and whose
/// other operands are `inputs`.
Epilogue planEpilogue(Operation *anchor, Value out, ValueRange inputs) {
  Epilogue e;
  e.out = out;
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(neighbour(anchor, false));
      fill && fill.getOutputs()[0] == out &&
      matchPattern(fill.getInputs()[0], m_AnyZeroFloat())) {
    e.fill = fill;
    e.accumulate = false;
  }
  auto consumer =
      dyn_cast_or_null<linalg::GenericOp>(neighbour(anchor, true));
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
  if (!reusedWholeAfter(root, consumer,
                        {anchor, consumer.getOperation(),
                         e.fill.getOperation()}))
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
  AffineMap read = consumer.getMatchingIndexingMap(&consumer->getOpOperand(*input));
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

struct TensorCorePass
    : public kiln::codegen::impl::GpuTensorCorePassBase<TensorCorePass> {
  KILN_PASS_STATISTICS_GpuTensorCorePass
  using GpuTensorCorePassBase::GpuTensorCorePassBase;

  /// One way to run a GEMM: a wgmma tile, or else an mma.sync tile.
  struct GemmTactic {
    std::optional<WgmmaTile> wgmma;
    MmaTile mma;
    std::string str() const {
      return wgmma ? "wgmma " + wgmma->str() : "mma.sync " + mma.str();
    }
  };

  /// The tactics for `spec`: the cost model's choice (or the forced one)
  /// first; with the cost model in charge, then the other wgmma tiles and
  /// mma.sync tiles by estimated cost, alternately (the candidates of
  /// `kilnc --tactics all`).
  std::vector<GemmTactic> tacticsFor(const GemmSpec &spec) {
    bool hopper = wgmma != "off" && wgmmaApplies(spec);
    auto mmaTile = [&](MmaTile tile) {
      if (spec.vecA && spec.vecB)
        tile.stages = mmaStages;
      return tile;
    };
    GemmTactic first;
    if (hopper)
      first.wgmma = wgmma == "auto" ? chooseWgmmaTile(spec, numSms)
                                    : parseWgmmaTile(wgmma);
    if (!first.wgmma) {
      first.mma = mmaTile(
          chooseMmaTile(spec, numSms, double(latencyCycles), clusterSplitK));
      if (forceSplitK > 0) {
        first.mma.splitK = forceSplitK;
        first.mma.cluster = clusterSplitK && forceSplitK > 1 &&
                            forceSplitK <= MmaTile::kMaxClusterSplit;
      }
    }
    std::vector<GemmTactic> out{first};
    if (forceSplitK > 0 || (hopper && wgmma != "auto"))
      return out;
    std::vector<GemmTactic> hoppers, mmas;
    if (hopper)
      for (const WgmmaTile &t : rankWgmmaTiles(spec, numSms))
        hoppers.push_back({t, MmaTile()});
    for (const MmaTile &t :
         rankMmaTiles(spec, numSms, double(latencyCycles), clusterSplitK))
      mmas.push_back({std::nullopt, mmaTile(t)});
    llvm::StringSet<> seen;
    seen.insert(first.str());
    for (size_t i = 0; i < std::max(hoppers.size(), mmas.size()); ++i)
      for (std::vector<GemmTactic> *list : {&hoppers, &mmas})
        if (i < list->size() && seen.insert((*list)[i].str()).second)
          out.push_back((*list)[i]);
    return out;
  }

  /// Emits `spec` in place of `anchor` and removes what the epilogue
  /// absorbed. The tactic is tacticsFor(spec)'s first, unless the kernel
  /// function asks for another one (`kiln.tactic_variant`: the N-th;
  /// `kiln.tactic_force`: by name, from a timing cache).
  void replace(Operation *anchor, GemmSpec &spec, Epilogue &epilogue) {
    OpBuilder b(anchor);
    Location loc = anchor->getLoc();
    spec.epilogueReads = epilogue.readsFullOperand();
    std::vector<GemmTactic> tactics = tacticsFor(spec);
    const GemmTactic *pick = &tactics.front();
    if (variant >= 0) {
      if (size_t(variant) < tactics.size())
        pick = &tactics[variant];
      else
        voidVariant = true;
    }
    if (!forced.empty()) {
      StringRef want = forced.size() > chosen.size() ? forced[chosen.size()] : "";
      auto it = llvm::find_if(
          tactics, [&](const GemmTactic &t) { return t.str() == want; });
      if (it != tactics.end())
        pick = &*it;
      else
        staleForce = true;
    }
    chosen.push_back(pick->str());
    shapes.push_back((spec.batch > 1 ? std::to_string(spec.batch) + "x" : "") +
                     std::to_string(spec.m) + "x" + std::to_string(spec.n) +
                     "x" + std::to_string(spec.k));
    gpu::LaunchOp launch;
    std::string tactic = pick->str();
    if (pick->wgmma) {
      // Which operands got a tensor map (the kernel loads those by TMA).
      bool mapA = false, mapB = false;
      if (tma)
        spec.tensorMap = [&](const GemmSpec::TmaView &view,
                             ArrayRef<int64_t> box) {
          Value map = tensorMapArgument(anchor, view, box);
          if (map)
            (spec.tmaA && &view == &*spec.tmaA ? mapA : mapB) = true;
          return map;
        };
      launch = buildWgmmaGemm(b, loc, spec, *pick->wgmma, numSms);
      if (mapA || mapB)
        tactic += mapA && mapB ? ", TMA A, B" : mapA ? ", TMA A" : ", TMA B";
    } else {
      MmaTile tile = pick->mma;
      Value partials;
      if (tile.splitK > 1 && !tile.cluster)
        partials = memref::AllocOp::create(
            b, loc,
            MemRefType::get({tile.splitK, spec.batch, spec.m, spec.n},
                            b.getF32Type()));
      launch = buildMmaGemm(b, loc, spec, tile, partials);
    }
    // What was chosen, for the build report and tests.
    launch->setAttr(kTacticAttr,
                    b.getStringAttr(tactic + (epilogue.consumer
                                                  ? " + fused epilogue"
                                                  : "")));
    // Counted once per region: not in its tactic variants' clones.
    if (variant < 1) {
      ++numTensorCoreOps;
      numWgmmaOps += pick->wgmma.has_value();
      numTmaOps += pick->wgmma && tactic.find(", TMA") != std::string::npos;
      numFusedEpilogues += bool(epilogue.consumer);
    }
    anchor->erase();
    if (epilogue.fill)
      epilogue.fill.erase();
    if (epilogue.consumer) {
      epilogue.consumer.erase();
      // The f32 buffer (and its view) are dead now.
      eraseDeadBuffer(epilogue.out);
    }
  }

  /// A new argument of `anchor`'s kernel function for the TMA tensor map
  /// of `view` with `box` (kTensorMapAttr says what the runtime encodes),
  /// or null where `view` is no kernel argument at a static, 16-byte
  /// aligned offset with 16-byte multiple strides (TMA's rules).
  Value tensorMapArgument(Operation *anchor, const GemmSpec::TmaView &view,
                          ArrayRef<int64_t> box) {
    Value v = view.memref;
    while (Operation *def = v.getDefiningOp()) {
      // memref.view's byte shift is not in its type.
      auto like = dyn_cast<ViewLikeOpInterface>(def);
      if (!like || isa<memref::ViewOp>(def))
        return {};
      v = like.getViewSource();
    }
    auto func = anchor->getParentOfType<func::FuncOp>();
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner() != &func.getBody().front() ||
        !cast<MemRefType>(arg.getType()).getLayout().isIdentity())
      return {};
    auto type = cast<MemRefType>(view.memref.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        ShapedType::isDynamic(offset))
      return {};
    int64_t elemBytes = type.getElementTypeBitWidth() / 8;
    SmallVector<int64_t> byteStrides;
    for (int64_t st : ArrayRef(view.strides).drop_front()) {
      byteStrides.push_back(st * elemBytes);
      if (byteStrides.back() % 16 != 0 || byteStrides.back() <= 0)
        return {};
    }
    if ((offset * elemBytes) % 16 != 0)
      return {};
    MLIRContext *ctx = anchor->getContext();
    Builder b(ctx);
    auto map = kiln::planir::TensorMapAttr::get(
        ctx, arg.getArgNumber(), offset * elemBytes, type.getElementType(),
        b.getDenseI64ArrayAttr(view.dims), b.getDenseI64ArrayAttr(byteStrides),
        b.getDenseI64ArrayAttr(box), /*swizzle=*/3);
    unsigned index = func.getNumArguments();
    auto mapType = MemRefType::get({128}, b.getI8Type());
    if (failed(func.insertArgument(
            index, mapType,
            b.getDictionaryAttr(b.getNamedAttr(kTensorMapAttr, map)),
            anchor->getLoc())))
      return {};
    return func.getArgument(index);
  }

  void lowerConv(linalg::Conv2DNchwFchwOp conv) {
    Value input = conv.getInputs()[0], filter = conv.getInputs()[1];
    Value out = conv.getOutputs()[0];
    if (!takesTensorCores(input, filter, out, tf32))
      return;
    auto it = cast<MemRefType>(input.getType());
    auto ft = cast<MemRefType>(filter.getType());
    auto ot = cast<MemRefType>(out.getType());
    SmallVector<int64_t> strides(conv.getStrides().getValues<int64_t>());
    SmallVector<int64_t> dilations(conv.getDilations().getValues<int64_t>());
    int64_t channels = ft.getDimSize(1), kh = ft.getDimSize(2),
            kw = ft.getDimSize(3);
    int64_t oh = ot.getDimSize(2), ow = ot.getDimSize(3);
    auto epilogue = std::make_shared<Epilogue>(
        planEpilogue(conv, out, ValueRange{input, filter}));
    GemmSpec spec;
    spec.m = ot.getDimSize(0) * oh * ow;
    spec.n = ot.getDimSize(1);
    spec.k = channels * kh * kw;
    spec.elementType = it.getElementType();
    spec.bRounded = roundedAtBuild(filter);
    spec.aContiguousM = true;   // along ow
    spec.bContiguousN = false;  // filter rows are [c][kh][kw]
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
    std::optional<PaddedImage> pad = matchPaddedImage(
        conv, input, /*channelsLast=*/false, isZeroFloat);
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
      return t.getLayout().isIdentity() && allowsVectorLoads(MemRefType::get(
                                               {t.getNumElements()},
                                               t.getElementType()));
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
                      IndexMath(b, loc).index(ValueRange{p.img, n, p.y, p.x}),
                      v);
    };
    replace(conv, spec, *epilogue);
    if (pad)
      for (Operation *op : pad->dead)
        op->erase();
  }

  /// A channels-last conv as an implicit GEMM: M = output pixels (n, oy,
  /// ox), N = filters, K = taps (ky, kx, c) with c fastest. A row of A is a
  /// run of channels of one input pixel, so 8 channels are one 16-byte load
  /// (and a whole vector is in the padding or not); B is the filter as
  /// [F][KH*KW*C] rows; C is the [N, OH, OW, F] output, F fastest.
  void lowerConvNhwc(linalg::Conv2DNhwcFhwcOp conv) {
    lowerChannelsLastConv(conv, /*grouped=*/false);
  }

  /// A grouped channels-last conv (linalg.conv_2d_nhwgc_gfhwc: input [N, H,
  /// W, G, C/G], filter [G, M/G, KH, KW, C/G], output [N, OH, OW, G, M/G])
  /// as G batched implicit GEMMs: batch = group, the rest as lowerConvNhwc
  /// within each group. Its zero-padded image is an [N, H, W, G, C/G]
  /// buffer (reshape propagation puts the grouping before the pad).
  void lowerConvNhwgc(linalg::Conv2DNhwgcGfhwcOp conv) {
    lowerChannelsLastConv(conv, /*grouped=*/true);
  }

  /// lowerConvNhwc and lowerConvNhwgc: `grouped` convs have a group dim
  /// before the channels of every operand (the filter's first), which is
  /// the GEMM's batch; otherwise the batch is 1 and the batch index unused.
  void lowerChannelsLastConv(linalg::LinalgOp conv, bool grouped) {
    Value input = conv.getDpsInputs()[0], filter = conv.getDpsInputs()[1];
    Value out = conv.getDpsInits()[0];
    if (!takesTensorCores(input, filter, out, tf32))
      return;
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
    auto epilogue = std::make_shared<Epilogue>(
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
    std::optional<PaddedImage> pad = matchPaddedImage(
        conv, input, /*channelsLast=*/true, isZeroFloat);
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
      Value v = memref::LoadOp::create(b, loc, image,
                                       IndexMath(b, loc).index(src.idx));
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
        return GemmSpec::Ref{image, IndexMath(b, loc).index(src.idx),
                             src.inside};
      };
    auto outIndex = [=](OpBuilder &b, Location loc, Value g, Value m,
                        Value n) {
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
    replace(conv, spec, *epilogue);
    if (pad)
      for (Operation *op : pad->dead)
        op->erase();
  }

  /// Any linalg contraction (matmul, batch_matmul, transposed or
  /// broadcasting generics: mul-add bodies, possibly through casts) whose
  /// operand maps are projections: its batch, M, N and K dims (each
  /// possibly several) are linearized into one GEMM.
  void lowerContraction(linalg::LinalgOp op) {
    if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
        !linalg::isaContractionOpInterface(op))
      return;
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(op);
    if (failed(dims) || dims->k.empty())
      return;
    Value lhs = op.getDpsInputs()[0], rhs = op.getDpsInputs()[1];
    Value out = op.getDpsInits()[0];
    if (!takesTensorCores(lhs, rhs, out, tf32))
      return;
    auto lt = cast<MemRefType>(lhs.getType());
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    for (AffineMap m : maps)
      for (AffineExpr e : m.getResults())
        if (!isa<AffineDimExpr, AffineConstantExpr>(e))
          return;
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
    auto epilogue = std::make_shared<Epilogue>(
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
    auto loopIndices = [=](OpBuilder &b, Location loc, Value bi, Value i,
                           Value j, bool aRows, bool bCols) {
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
    auto at = [](OpBuilder &b, Location loc, AffineMap m,
                 ArrayRef<Value> idx) {
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
      spec.tmaA = tmaViewOf(lhs, maps[0], loops,
                            spec.aContiguousM ? dims->m : dims->k,
                            spec.aContiguousM ? dims->k : dims->m,
                            dims->batch);
    if (spec.vecB)
      spec.tmaB = tmaViewOf(rhs, maps[1], loops,
                            spec.bContiguousN ? dims->n : dims->k,
                            spec.bContiguousN ? dims->k : dims->n,
                            dims->batch);
    spec.storeC = [=](OpBuilder &b, Location loc, Value bi, Value m, Value n,
                      Value v) {
      SmallVector<Value> idx = loopIndices(b, loc, bi, m, n, true, true);
      epilogue->store(b, loc, at(b, loc, maps[2], idx), v);
    };
    // 8 consecutive linear n are 8 consecutive elements of C's last dim
    // when that dim is the fastest n dim and a multiple of 8 long.
    auto lastC = dyn_cast<AffineDimExpr>(maps[2].getResults().back());
    if (!spec.cContiguousM && lastC && !dims->n.empty() &&
        lastC.getPosition() == dims->n.back() &&
        loops[dims->n.back()] % 8 == 0 && epilogue->vectorizes())
      spec.storeC8 = [=](OpBuilder &b, Location loc, Value bi, Value m,
                         Value n, ArrayRef<Value> values) {
        SmallVector<Value> idx = loopIndices(b, loc, bi, m, n, true, true);
        epilogue->store8(b, loc, at(b, loc, maps[2], idx), values);
      };
    replace(op, spec, *epilogue);
  }

  void runOnOperation() override {
    if (minSm < 80)
      return; // mma.sync m16n8k16 needs sm_80
    if (mmaStages < 2 || mmaStages > 8) {
      getOperation().emitError("kiln-gpu-tensor-core: mma-stages must be 2 "
                               "(register double buffering) to 8, got ")
          << static_cast<int64_t>(mmaStages);
      return signalPassFailure();
    }
    if (wgmma != "off" && wgmma != "auto" && !parseWgmmaTile(wgmma)) {
      getOperation().emitError("kiln-gpu-tensor-core: bad wgmma tile '")
          << wgmma << "': use off, auto or MxNxS[xD] (M 64|128, N "
                      "64|128|256, S stages up to 8 within 227 KB of shared "
                      "memory, D = 1 or 2 steps of MMAs in flight, S >= D + "
                      "2)";
      return signalPassFailure();
    }
    SmallVector<Operation *> anchors;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isTensorCoreAnchor(op))
        anchors.push_back(op);
    });
    func::FuncOp func = getOperation();
    variant = -1;
    if (auto v = func->getAttrOfType<IntegerAttr>(kTacticVariantAttr))
      variant = v.getInt();
    forced.clear();
    if (auto f = func->getAttrOfType<StringAttr>(kTacticForceAttr))
      llvm::SplitString(f.getValue(), forced, ";");
    for (StringRef &f : forced)
      f = f.trim();
    chosen.clear();
    shapes.clear();
    voidVariant = staleForce = false;
    for (Operation *op : anchors) {
      if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op))
        lowerConv(conv);
      else if (auto conv = dyn_cast<linalg::Conv2DNhwcFhwcOp>(op))
        lowerConvNhwc(conv);
      else if (auto conv = dyn_cast<linalg::Conv2DNhwgcGfhwcOp>(op))
        lowerConvNhwgc(conv);
      else
        lowerContraction(cast<linalg::LinalgOp>(op));
    }
    Builder b(func.getContext());
    // A variant beyond every anchor's tactics (or of a function without
    // tensor-core work) duplicates variant 0: the compiler drops it.
    if (variant > 0 && (voidVariant || chosen.empty()))
      func->setAttr(kTacticVoidAttr, b.getUnitAttr());
    if (staleForce || (!forced.empty() && forced.size() != chosen.size()))
      func->setAttr(kTacticStaleAttr, b.getUnitAttr());
    if (!chosen.empty())
      func->setAttr(kTacticsAttr, b.getStringAttr(llvm::join(chosen, "; ")));
    if (!shapes.empty())
      func->setAttr(kGemmShapesAttr, b.getStringAttr(llvm::join(shapes, "; ")));
  }

  // Per kernel function (runOnOperation).
  int64_t variant = -1;
  SmallVector<StringRef> forced;
  SmallVector<std::string> chosen, shapes;
  bool voidVariant = false, staleForce = false;
};

} // namespace

bool kiln::codegen::isTensorCoreAnchor(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.hasPureBufferSemantics() &&
         (isa<linalg::Conv2DNchwFchwOp, linalg::Conv2DNhwcFhwcOp,
              linalg::Conv2DNhwgcGfhwcOp>(op) ||
          linalg::isaContractionOpInterface(linalgOp));
}

std::optional<PaddedImage>
kiln::codegen::matchPaddedImage(Operation *conv, Value padded,
                                bool channelsLast,
                                function_ref<bool(Value)> isPadValue) {
  auto alloc = padded.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != conv->getBlock())
    return std::nullopt;
  Operation *fill = nullptr;
  memref::SubViewOp subview;
  for (Operation *user : alloc->getUsers()) {
    if (user == conv)
      continue;
    if (auto sv = dyn_cast<memref::SubViewOp>(user)) {
      if (subview)
        return std::nullopt;
      subview = sv;
      continue;
    }
    Value fillValue;
    if (auto f = dyn_cast<linalg::FillOp>(user))
      fillValue = f.getInputs()[0];
    else if (auto map = dyn_cast<linalg::MapOp>(user);
             map && map.getInputs().empty())
      fillValue =
          cast<linalg::YieldOp>(map.getMapper().front().getTerminator())
              .getOperand(0);
    if (fill || !fillValue || !isPadValue(fillValue))
      return std::nullopt;
    fill = user;
  }
  if (!fill || !subview || !subview->hasOneUse() || !subview.hasUnitStride())
    return std::nullopt;
  auto copy = dyn_cast<linalg::CopyOp>(*subview->user_begin());
  if (!copy || copy.getOutputs()[0] != subview.getResult() ||
      copy->getBlock() != conv->getBlock() ||
      !fill->isBeforeInBlock(copy) || !copy->isBeforeInBlock(conv))
    return std::nullopt;
  // Nothing between the copy and the conv may write memory: the conv will
  // read the source later than the copy did.
  for (Operation *o = copy->getNextNode(); o != conv; o = o->getNextNode())
    if (!isMovable(o) && !isa<linalg::FillOp>(o))
      return std::nullopt;
  ArrayRef<int64_t> offsets = subview.getStaticOffsets();
  ArrayRef<int64_t> sizes = subview.getStaticSizes();
  // Spatial dims y, x; the others (batch, channels: [G, C/G] for a grouped
  // channels-last image) are whole.
  int64_t y = channelsLast ? 1 : 2, x = y + 1;
  auto at = cast<MemRefType>(padded.getType());
  int64_t rank = offsets.size();
  if ((rank != 4 && !(channelsLast && rank == 5)) ||
      ShapedType::isDynamicShape(offsets) || ShapedType::isDynamicShape(sizes))
    return std::nullopt;
  for (int64_t d = 0; d < rank; ++d)
    if (d != y && d != x && (offsets[d] != 0 || sizes[d] != at.getDimSize(d)))
      return std::nullopt;
  PaddedImage pad;
  pad.source = copy.getInputs()[0];
  pad.top = offsets[y];
  pad.left = offsets[x];
  pad.height = sizes[y];
  pad.width = sizes[x];
  pad.dead = {fill, copy, subview, alloc};
  return pad;
}
