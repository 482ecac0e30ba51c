//===- PlaceSliceResults.cpp - kernel results written into slices ---------===//
//
// kiln-place-slice-results: see codegen/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "codegen/Passes.h"

#include "dialects/Plan/IR/PlanDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_PLACESLICERESULTSPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;
namespace planir = kiln::planir;

namespace {

/// The types the views of `v` get when `v` becomes `type` (a strided
/// slice of a bigger buffer), by view op; false where one cannot follow
/// (a view other than subview/collapse/expand, or dims that no longer
/// collapse).
bool retypedViews(Value v, MemRefType type,
                  llvm::DenseMap<Operation *, MemRefType> &types) {
  for (Operation *user : v.getUsers()) {
    MemRefType next;
    if (auto sub = dyn_cast<memref::SubViewOp>(user)) {
      next = memref::SubViewOp::inferRankReducedResultType(
          sub.getType().getShape(), type, sub.getMixedOffsets(),
          sub.getMixedSizes(), sub.getMixedStrides());
    } else if (auto collapse = dyn_cast<memref::CollapseShapeOp>(user)) {
      if (!memref::CollapseShapeOp::isGuaranteedCollapsible(
              type, collapse.getReassociationIndices()))
        return false;
      next = memref::CollapseShapeOp::computeCollapsedType(
          type, collapse.getReassociationIndices());
    } else if (auto expand = dyn_cast<memref::ExpandShapeOp>(user)) {
      FailureOr<MemRefType> t = memref::ExpandShapeOp::computeExpandedType(
          type, expand.getType().getShape(), expand.getReassociationIndices());
      if (failed(t))
        return false;
      next = *t;
    } else if (isa<ViewLikeOpInterface>(user) || isa<func::ReturnOp>(user)) {
      return false;
    } else {
      continue; // reads or writes the buffer: any layout
    }
    types[user] = next;
    if (!retypedViews(user->getResult(0), next, types))
      return false;
  }
  return true;
}

struct PlaceSliceResultsPass
    : kiln::codegen::impl::PlaceSliceResultsPassBase<PlaceSliceResultsPass> {
  KILN_PASS_STATISTICS_PlaceSliceResultsPass void runOnOperation() override {
    WalkResult r = getOperation().walk([&](func::FuncOp func) {
      auto slices = func->getAttrOfType<ArrayAttr>(planir::kIntoSlicesAttr);
      if (!slices)
        return WalkResult::advance();
      for (Attribute a : slices)
        if (failed(place(func, dyn_cast<planir::IntoSliceAttr>(a))))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }

  /// Makes the out-param of `slice`'s result the whole buffer, written
  /// through a subview (or by a copy at the end).
  LogicalResult place(func::FuncOp func, planir::IntoSliceAttr slice) {
    if (!slice || slice.getOutParam() < 0)
      return func.emitOpError("expected #kiln_plan.into_slice with its "
                              "out-param (run "
                              "kiln-promote-results-to-out-params first)");
    ArrayRef<int64_t> shape = slice.getShape().asArrayRef();
    ArrayRef<int64_t> offsets = slice.getOffsets().asArrayRef();
    unsigned index = unsigned(slice.getOutParam());
    if (index >= func.getNumArguments())
      return func.emitOpError("has no out-param for result ")
             << slice.getResult();
    BlockArgument arg = func.getArgument(index);
    auto sliceType = cast<MemRefType>(arg.getType());
    if (!sliceType.hasStaticShape() || !sliceType.getLayout().isIdentity() ||
        sliceType.getRank() != int64_t(shape.size()))
      return func.emitOpError("cannot place result ")
             << slice.getResult() << " of type " << sliceType << " in a slice";
    auto fullType = MemRefType::get(shape, sliceType.getElementType());
    SmallVector<int64_t> ones(shape.size(), 1);
    auto viewType = memref::SubViewOp::inferResultType(
        fullType, offsets, sliceType.getShape(), ones);
    llvm::DenseMap<Operation *, MemRefType> types;
    bool inPlace = retypedViews(arg, cast<MemRefType>(viewType), types);
    OpBuilder b(func.getBody());
    b.setInsertionPointToStart(&func.getBody().front());
    Location loc = func.getLoc();
    Value own;
    if (!inPlace) {
      own = memref::AllocOp::create(b, loc, sliceType);
      arg.replaceAllUsesWith(own);
    }
    arg.setType(fullType);
    SmallVector<Type> inputs(func.getBody().front().getArgumentTypes());
    func.setType(
        FunctionType::get(func.getContext(), inputs, func.getResultTypes()));
    Value view = memref::SubViewOp::create(b, loc, arg, offsets,
                                           sliceType.getShape(), ones);
    if (inPlace) {
      arg.replaceAllUsesExcept(view, view.getDefiningOp());
      for (auto [user, type] : types)
        user->getResult(0).setType(type);
      ++numInPlace;
    } else {
      func.walk([&](func::ReturnOp ret) {
        OpBuilder rb(ret);
        memref::CopyOp::create(rb, ret.getLoc(), own, view);
      });
      ++numCopied;
    }
    return success();
  }
};

} // namespace
