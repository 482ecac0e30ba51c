//===- ParallelFirst.cpp - parallel linalg dims before reduction dims ----===//
//
// kiln-linalg-parallel-first: see codegen/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "codegen/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_LINALGPARALLELFIRSTPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;

namespace {

/// The permutation that lists parallel dims first, each group in its
/// original order; empty when the op is already in that order.
SmallVector<unsigned> parallelFirstOrder(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  bool seenReduction = false, needed = false;
  for (utils::IteratorType t : iterators) {
    if (t == utils::IteratorType::reduction)
      seenReduction = true;
    else if (seenReduction)
      needed = true;
  }
  if (!needed)
    return {};
  SmallVector<unsigned> order;
  for (auto [i, t] : llvm::enumerate(iterators))
    if (t == utils::IteratorType::parallel)
      order.push_back(i);
  for (auto [i, t] : llvm::enumerate(iterators))
    if (t != utils::IteratorType::parallel)
      order.push_back(i);
  return order;
}

struct LinalgParallelFirstPass
    : kiln::codegen::impl::LinalgParallelFirstPassBase<
          LinalgParallelFirstPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!parallelFirstOrder(op).empty())
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      SmallVector<unsigned> order = parallelFirstOrder(op);
      rewriter.setInsertionPoint(op);
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        FailureOr<linalg::GenericOp> g =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(g)) {
          op.emitOpError("cannot be generalized to put its parallel dims "
                         "before its reduction dims");
          return signalPassFailure();
        }
        generic = *g;
      }
      if (failed(linalg::interchangeGenericOp(rewriter, generic, order))) {
        generic.emitOpError("cannot be interchanged to put its parallel dims "
                            "before its reduction dims");
        return signalPassFailure();
      }
    }
  }
};

} // namespace
