//===- FormKernels.cpp - partition @main into outlined kernel functions ---===//
#include "passes/Passes.h"

#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace kiln::graph {
#define GEN_PASS_DEF_FORMKERNELSPASS
#include "passes/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;
using namespace kiln::graph;

bool kiln::graph::isStaticView(Operation *op) {
  if (!isa<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp>(op))
    return false;
  auto in = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto out = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  return in && out && in.hasStaticShape() && out.hasStaticShape();
}

/// Binary elementwise ops (with broadcasting) that fuse like unary ones.
static bool isElementwiseArith(Operation *op) {
  return isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, PowOp, PReluOp>(op);
}

/// True when `user` can join the kernel whose last op produced `v`: an
/// elementwise op with v's type (inference batch normalization included).
/// Its other operands may be anything: they dominate `user`, and the
/// kernel's call goes where the group's last op was.
static bool isFusableConsumer(Operation *user, Value v) {
  if (!isa_and_nonnull<GraphDialect>(user->getDialect()) ||
      user->getNumResults() != 1 || user->getNumRegions() != 0)
    return false;
  if (user->getResult(0).getType() != v.getType())
    return false;
  if (auto bn = dyn_cast<BatchNormOp>(user))
    return bn->getOperand(0) == v;
  return user->hasTrait<OpTrait::SameOperandsAndResultType>() ||
         isElementwiseArith(user);
}

/// Data movement a matmul reads through instead of a copy: transposes and
/// static reshapes compose into the contraction's indexing maps when the
/// kernel is lowered, and a slice becomes a view of its input.
static bool isMovement(Operation *op) {
  return isa<TransposeOp, SliceOp>(op) || isStaticView(op);
}

/// Whether `def` (in `anchor`'s block, not taken by another prologue) has
/// one result whose only reader is `user`: it can join `anchor`'s kernel
/// ahead of `user`.
static bool feedsOnly(Operation *def, Operation *user, Operation *anchor,
                      const llvm::SmallPtrSetImpl<Operation *> &taken) {
  return def && def->getBlock() == anchor->getBlock() && !taken.contains(def) &&
         def->getResult(0).hasOneUse() &&
         *def->getResult(0).getUsers().begin() == user;
}

/// The chains of single-use data movement ops that feed `anchor` (a matmul
/// or gemm) and end in a transpose or slice, in program order: they join
/// its kernel as a prologue, so that the operands are never materialized.
static SmallVector<Operation *>
operandPrologue(Operation *anchor,
                const llvm::SmallPtrSetImpl<Operation *> &taken) {
  if (!isa<MatMulOp, GemmOp>(anchor))
    return {};
  SmallVector<Operation *> prologue;
  for (Value operand : anchor->getOperands()) {
    SmallVector<Operation *> chain;
    size_t useful = 0; // chain[0, useful) ends in a transpose or slice
    Operation *user = anchor;
    for (Operation *def = operand.getDefiningOp();
         feedsOnly(def, user, anchor, taken) && isMovement(def);
         def = def->getOperand(0).getDefiningOp()) {
      chain.push_back(def);
      if (!isStaticView(def))
        useful = chain.size();
      user = def;
    }
    prologue.append(chain.begin(), chain.begin() + useful);
  }
  llvm::sort(prologue,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return prologue;
}

bool kiln::graph::readsSliceInPlace(Operation *user, Value v) {
  if (auto conv = dyn_cast<ConvOp>(user))
    return conv.getInput() == v;
  if (auto bn = dyn_cast<BatchNormOp>(user))
    return bn.getInput() == v && bn.getType() == v.getType();
  return isa_and_nonnull<GraphDialect>(user->getDialect()) &&
         user->getNumResults() == 1 && user->getNumRegions() == 0 &&
         user->getResult(0).getType() == v.getType() &&
         (user->hasTrait<OpTrait::SameOperandsAndResultType>() ||
          isElementwiseArith(user));
}

/// The single-use static slices that `op` reads in place
/// (readsSliceInPlace): they join its kernel ahead of it, and lower to
/// views of their input.
static SmallVector<Operation *>
slicePrologue(Operation *op, const llvm::SmallPtrSetImpl<Operation *> &taken) {
  SmallVector<Operation *> slices;
  for (Value operand : op->getOperands()) {
    auto slice = operand.getDefiningOp<SliceOp>();
    if (!slice || !feedsOnly(slice, op, op, taken) ||
        !cast<RankedTensorType>(slice.getType()).hasStaticShape() ||
        slice.getInput().getDefiningOp<ConstantOp>() ||
        llvm::is_contained(slices, slice.getOperation()) ||
        !readsSliceInPlace(op, operand))
      continue;
    slices.push_back(slice);
  }
  return slices;
}

/// The single-use transpose and float cast (in that order from the pad)
/// that feed a constant pad join its kernel as a prologue: the pad then
/// reads its source directly (GraphToLinalg's padThroughMovement). The
/// channels-last stem's input cast, NCHW -> NHWC transpose and channel pad
/// become one pass.
static SmallVector<Operation *>
padPrologue(Operation *anchor,
            const llvm::SmallPtrSetImpl<Operation *> &taken) {
  auto pad = dyn_cast<PadOp>(anchor);
  if (!pad || pad.getMode() != PadMode::Constant)
    return {};
  SmallVector<Operation *> chain;
  Operation *user = anchor;
  Operation *def = pad.getInput().getDefiningOp();
  if (feedsOnly(def, user, anchor, taken) && isa<TransposeOp>(def)) {
    chain.push_back(def);
    user = def;
    def = def->getOperand(0).getDefiningOp();
  }
  if (feedsOnly(def, user, anchor, taken))
    if (auto cast = dyn_cast<CastOp>(def);
        cast && isa<FloatType>(getElementTypeOrSelf(cast.getInput())) &&
        isa<FloatType>(getElementTypeOrSelf(cast.getOutput())))
      chain.push_back(def);
  std::reverse(chain.begin(), chain.end());
  return chain;
}

/// Dense (non-resource) constants small enough to clone into a kernel.
static bool isInlineConstant(Value v, int64_t maxElements) {
  auto cst = v.getDefiningOp<ConstantOp>();
  if (!cst)
    return false;
  auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
  return dense && dense.getNumElements() <= maxElements;
}

LogicalResult kiln::graph::formKernels(ModuleOp module, func::FuncOp main,
                                       int64_t maxInlineConstantElements,
                                       FormKernelsResult &result) {
  if (!main.getBody().hasOneBlock())
    return main.emitOpError("expected a single block, got ")
           << main.getBody().getBlocks().size();
  Block &body = main.getBody().front();
  SymbolTable symbols(module);

  // The operand prologues of matmuls are reserved first: those ops come
  // before their matmul, which takes them when its turn comes.
  llvm::DenseMap<Operation *, SmallVector<Operation *>> prologues;
  llvm::SmallPtrSet<Operation *, 32> reserved;
  for (Operation &op : body.without_terminator()) {
    SmallVector<Operation *> prologue = operandPrologue(&op, reserved);
    bool isPad = false;
    if (prologue.empty()) {
      prologue = padPrologue(&op, reserved);
      isPad = true;
    }
    if (prologue.empty())
      continue;
    reserved.insert(prologue.begin(), prologue.end());
    (isPad ? result.padPrologueOps : result.prologueOps) += prologue.size();
    prologues[&op] = std::move(prologue);
  }
  // Slices read in place join whichever kernel their reader joins, just
  // ahead of it.
  llvm::DenseMap<Operation *, SmallVector<Operation *>> slices;
  for (Operation &op : body.without_terminator()) {
    if (prologues.count(&op) || reserved.contains(&op))
      continue;
    SmallVector<Operation *> prologue = slicePrologue(&op, reserved);
    if (prologue.empty())
      continue;
    reserved.insert(prologue.begin(), prologue.end());
    result.sliceReads += prologue.size();
    slices[&op] = std::move(prologue);
  }

  // Collect the groups: anchors in program order, each after its operand
  // prologue and followed by its fused consumer chain.
  SmallVector<SmallVector<Operation *>> groups;
  // Each group's anchor, whose location names the kernel (not a prologue's).
  SmallVector<Location> anchorLocs;
  llvm::SmallPtrSet<Operation *, 32> grouped;
  for (Operation &op : body.without_terminator()) {
    if (grouped.contains(&op) || reserved.contains(&op) ||
        isa<ConstantOp>(op) || !isa_and_nonnull<GraphDialect>(op.getDialect()))
      continue;
    if (isStaticView(&op)) {
      ++result.views;
      continue;
    }
    SmallVector<Operation *> group;
    // Appends `o` to the group, after the slices it reads in place.
    auto join = [&](Operation *o) {
      if (auto it = slices.find(o); it != slices.end()) {
        group.append(it->second.begin(), it->second.end());
        grouped.insert(it->second.begin(), it->second.end());
      }
      group.push_back(o);
      grouped.insert(o);
    };
    if (auto it = prologues.find(&op); it != prologues.end())
      group = it->second;
    grouped.insert(group.begin(), group.end());
    join(&op);
    while (group.back()->getNumResults() == 1) {
      Value v = group.back()->getResult(0);
      if (!v.hasOneUse())
        break;
      Operation *user = *v.getUsers().begin();
      // Static reshapes between the two join as well (a gemm's [S*B, E]
      // result viewed as [S, B, E] before the residual add).
      SmallVector<Operation *> views;
      while (isStaticView(user) && user->getBlock() == &body &&
             !grouped.contains(user) && !reserved.contains(user) &&
             user->getResult(0).hasOneUse()) {
        views.push_back(user);
        v = user->getResult(0);
        user = *v.getUsers().begin();
      }
      // (An op already in an earlier group — which took it through its
      // other operand — stays there.) A matmul's result may also be
      // transposed on its way (attention's output projection back to
      // [B, S, E]): the kernel's epilogue writes it permuted.
      bool transposed = isa<TransposeOp>(user) && isa<MatMulOp, GemmOp>(op);
      if (user->getBlock() != &body || grouped.contains(user) ||
          reserved.contains(user) ||
          !(transposed || isFusableConsumer(user, v)))
        break;
      group.append(views.begin(), views.end());
      grouped.insert(views.begin(), views.end());
      join(user);
      ++result.fusedOps;
    }
    // Then a DAG: the first op after the group that reads any of its values
    // joins if it is elementwise (GELU reads the bias add twice). Only the
    // first such op may: one before it that stays outside would read a
    // value the kernel's call, placed at the new last op, defines later.
    auto readsGroup = [&](Operation *o) -> Value {
      for (Value operand : o->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && llvm::is_contained(group, def))
          return operand;
      return Value();
    };
    for (Operation *o = group.back()->getNextNode(); o;) {
      Value v = readsGroup(o);
      if (!v) {
        o = o->getNextNode();
        continue;
      }
      if (grouped.contains(o) || !isFusableConsumer(o, v))
        break;
      join(o);
      ++result.fusedOps;
      o = o->getNextNode();
    }
    groups.push_back(std::move(group));
    anchorLocs.push_back(op.getLoc());
  }

  OpBuilder builder(module.getContext());
  Operation *insertAfter = main;
  int64_t index = 0;
  for (auto [group, anchorLoc] : llvm::zip(groups, anchorLocs)) {
    llvm::SmallPtrSet<Operation *, 8> members(group.begin(), group.end());
    llvm::SetVector<Value> inputs, outputs;
    for (Operation *op : group) {
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def && members.contains(def))
          continue;
        if (!isInlineConstant(operand, maxInlineConstantElements))
          inputs.insert(operand);
      }
      for (Value res : op->getResults())
        if (llvm::any_of(res.getUsers(),
                         [&](Operation *u) { return !members.contains(u); }))
          outputs.insert(res);
    }
    if (outputs.empty()) {
      // Dead pure ops: nothing to compute.
      for (Operation *op : llvm::reverse(group))
        op->erase();
      continue;
    }

    // The outlined function, placed after @main.
    SmallVector<Type> inTypes, outTypes;
    for (Value v : inputs)
      inTypes.push_back(v.getType());
    for (Value v : outputs)
      outTypes.push_back(v.getType());
    builder.setInsertionPointAfter(insertAfter);
    Location loc = anchorLoc;
    auto kernel =
        func::FuncOp::create(builder, loc, ("kernel_" + Twine(index++)).str(),
                             builder.getFunctionType(inTypes, outTypes));
    kernel.setPrivate();
    symbols.insert(kernel);
    insertAfter = kernel;
    Block *entry = kernel.addEntryBlock();
    IRMapping mapping;
    for (auto [v, arg] : llvm::zip(inputs, entry->getArguments()))
      mapping.map(v, arg);
    builder.setInsertionPointToStart(entry);
    for (Operation *op : group) {
      for (Value operand : op->getOperands())
        if (!mapping.contains(operand) &&
            isInlineConstant(operand, maxInlineConstantElements))
          builder.clone(*operand.getDefiningOp(), mapping);
      builder.clone(*op, mapping);
    }
    SmallVector<Value> results;
    for (Value v : outputs)
      results.push_back(mapping.lookup(v));
    func::ReturnOp::create(builder, loc, results);

    // Every operand of the group dominates its last op: call there.
    builder.setInsertionPoint(group.back());
    auto call =
        func::CallOp::create(builder, loc, kernel, inputs.getArrayRef());
    for (auto [v, r] : llvm::zip(outputs, call.getResults()))
      Value(v).replaceAllUsesWith(r);
    for (Operation *op : llvm::reverse(group))
      op->erase();
    ++result.kernels;
  }

  // Constants only kernels used are now dead in @main.
  for (Operation &op : llvm::make_early_inc_range(body.without_terminator()))
    if (isa<ConstantOp>(op) && op.use_empty())
      op.erase();
  return success();
}

namespace {
struct FormKernelsPass
    : kiln::graph::impl::FormKernelsPassBase<FormKernelsPass> {
  KILN_PASS_STATISTICS_FormKernelsPass using FormKernelsPassBase::
      FormKernelsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto main = module.lookupSymbol<func::FuncOp>("main");
    if (!main) {
      module.emitError("expected a func.func @main to partition into kernels");
      return signalPassFailure();
    }
    FormKernelsResult result;
    if (failed(formKernels(module, main, maxInlineConstantElements, result)))
      return signalPassFailure();
    numKernels += result.kernels;
    numFusedOps += result.fusedOps;
    numViews += result.views;
    numPrologueOps += result.prologueOps;
    numPadPrologueOps += result.padPrologueOps;
    numSliceReads += result.sliceReads;
  }
};
} // namespace
