//===- MarkTf32RoundedWeights.cpp - kernel args that are rounded weights --===//
//
// kiln-mark-tf32-rounded-weights: see passes/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Plan/IR/PlanDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace kiln::graph {
#define GEN_PASS_DEF_MARKTF32ROUNDEDWEIGHTSPASS
#include "passes/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;
using namespace kiln::graph;

namespace {

struct MarkTf32RoundedWeightsPass
    : kiln::graph::impl::MarkTf32RoundedWeightsPassBase<
          MarkTf32RoundedWeightsPass> {
  KILN_PASS_STATISTICS_MarkTf32RoundedWeightsPass void
  runOnOperation() override {
    ModuleOp module = getOperation();
    auto main = module.lookupSymbol<func::FuncOp>("main");
    if (!main)
      return;
    main.walk([&](func::CallOp call) {
      auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
      if (!callee)
        return;
      for (auto [i, operand] : llvm::enumerate(call.getOperands()))
        if (auto cst = operand.getDefiningOp<ConstantOp>();
            cst && cst->hasAttr(kiln::planir::kTf32RoundedAttr)) {
          callee.setArgAttr(i, kiln::planir::kTf32RoundedAttr,
                            UnitAttr::get(module.getContext()));
          ++numMarked;
        }
    });
  }
};

} // namespace
