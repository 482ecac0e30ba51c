//===- PromoteResultsToOutParams.cpp - kernel results as out-params -------===//
//
// kiln-promote-results-to-out-params: see codegen/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "codegen/Passes.h"

#include "dialects/Plan/IR/PlanDialect.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_PROMOTERESULTSTOOUTPARAMSPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;
namespace planir = kiln::planir;

namespace {

/// A kernel that returns one buffer twice (its results were CSE'd, as the
/// empty pieces of a split) returns a copy for each repeat: MLIR 22's
/// promoteBufferResultsToOutParams crashes when hoisting an allocation that
/// is returned more than once.
int64_t copyRepeatedResults(ModuleOp kernels) {
  int64_t copies = 0;
  kernels.walk([&](func::ReturnOp ret) {
    llvm::SmallPtrSet<Value, 4> seen;
    for (OpOperand &operand : ret->getOpOperands()) {
      Value v = operand.get();
      auto type = dyn_cast<MemRefType>(v.getType());
      if (seen.insert(v).second || !type || !type.hasStaticShape() ||
          !type.getLayout().isIdentity())
        continue;
      OpBuilder b(ret);
      Value copy = memref::AllocOp::create(b, ret.getLoc(), type);
      memref::CopyOp::create(b, ret.getLoc(), v, copy);
      operand.set(copy);
      ++copies;
    }
  });
  return copies;
}

/// A kernel result that is a reshaped view of a fresh buffer reaches its
/// out-param through a memref.copy (promoteBufferResultsToOutParams hoists
/// only buffers returned as they are); the buffer becomes the inverse view
/// of the out-param instead, so that its writers write the result in place
/// and the copy (a launch on the GPU) disappears.
int64_t forwardViewCopies(ModuleOp kernels) {
  SmallVector<memref::CopyOp> copies;
  kernels.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
  int64_t forwarded = 0;
  for (memref::CopyOp copy : copies) {
    auto target = dyn_cast<BlockArgument>(copy.getTarget());
    auto targetType = cast<MemRefType>(copy.getTarget().getType());
    if (!target || !target.hasOneUse() || !targetType.getLayout().isIdentity())
      continue;
    // The views from the copied value back to the buffer, outermost first.
    SmallVector<Operation *> views;
    Value v = copy.getSource();
    while (Operation *def = v.getDefiningOp()) {
      if (!isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(def))
        break;
      views.push_back(def);
      v = def->getOperand(0);
    }
    auto alloc = v.getDefiningOp<memref::AllocOp>();
    if (views.empty() || !alloc || alloc->getBlock() != copy->getBlock() ||
        !alloc.getType().getLayout().isIdentity() ||
        !alloc.getType().hasStaticShape())
      continue;
    if (llvm::any_of(views, [](Operation *view) {
          auto t = cast<MemRefType>(view->getOperand(0).getType());
          return !t.getLayout().isIdentity() || !t.hasStaticShape();
        }))
      continue;
    // Undo the views on the out-param, outermost first, right after the
    // buffer's allocation.
    OpBuilder b(alloc);
    b.setInsertionPointAfter(alloc);
    Value inverse = copy.getTarget();
    for (Operation *view : views) {
      auto srcType = cast<MemRefType>(view->getOperand(0).getType());
      if (auto collapse = dyn_cast<memref::CollapseShapeOp>(view))
        inverse = memref::ExpandShapeOp::create(
            b, view->getLoc(), srcType.getShape(), inverse,
            collapse.getReassociationIndices());
      else
        inverse = memref::CollapseShapeOp::create(
            b, view->getLoc(), inverse,
            cast<memref::ExpandShapeOp>(view).getReassociationIndices());
    }
    alloc.getResult().replaceAllUsesWith(inverse);
    alloc.erase();
    copy.erase();
    ++forwarded;
  }
  return forwarded;
}

struct PromoteResultsToOutParamsPass
    : kiln::codegen::impl::PromoteResultsToOutParamsPassBase<
          PromoteResultsToOutParamsPass> {
  KILN_PASS_STATISTICS_PromoteResultsToOutParamsPass void
  runOnOperation() override {
    ModuleOp kernels = getOperation();
    numRepeated += copyRepeatedResults(kernels);
    // Where each kernel's out-params will start: its slices' results become
    // the out-params from there on.
    llvm::DenseMap<Operation *, unsigned> argsBefore;
    kernels.walk([&](func::FuncOp func) {
      if (func->hasAttr(planir::kIntoSlicesAttr))
        argsBefore[func] = func.getNumArguments();
    });
    bufferization::BufferResultsToOutParamsOpts outParams;
    outParams.hoistStaticAllocs = true;
    if (failed(
            bufferization::promoteBufferResultsToOutParams(kernels, outParams)))
      return signalPassFailure();
    numForwarded += forwardViewCopies(kernels);
    for (auto [op, numArgs] : argsBefore) {
      auto slices = op->getAttrOfType<ArrayAttr>(planir::kIntoSlicesAttr);
      SmallVector<Attribute> placed;
      for (Attribute a : slices) {
        auto s = dyn_cast<planir::IntoSliceAttr>(a);
        if (!s) {
          op->emitOpError("expected #kiln_plan.into_slice in ")
              << planir::kIntoSlicesAttr << ", got " << a;
          return signalPassFailure();
        }
        placed.push_back(planir::IntoSliceAttr::get(
            &getContext(), s.getResult(), s.getShape(), s.getOffsets(),
            int64_t(numArgs) + s.getResult()));
      }
      op->setAttr(planir::kIntoSlicesAttr,
                  ArrayAttr::get(&getContext(), placed));
    }
  }
};

} // namespace
