//===- CloneTacticVariants.cpp - a clone per further tactic candidate -----===//
//
// kiln-clone-tactic-variants: see codegen/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "codegen/Passes.h"

#include "codegen/Tactics/TacticVariants.h"
#include "dialects/Plan/IR/PlanDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_CLONETACTICVARIANTSPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;
using namespace kiln::codegen;
namespace planir = kiln::planir;

namespace {

struct CloneTacticVariantsPass
    : kiln::codegen::impl::CloneTacticVariantsPassBase<
          CloneTacticVariantsPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (candidates < 2 || candidates > 8) {
      module.emitError("kiln-clone-tactic-variants: candidates must be 2 to "
                       "8, got ")
          << int64_t(candidates);
      return signalPassFailure();
    }
    MLIRContext *ctx = module.getContext();
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      // Regions the timing cache decided keep its tactic.
      if (func.isExternal() || func->hasAttr(kTacticForceAttr) ||
          func->hasAttr(kTacticVariantAttr) || !hasTensorCoreAnchor(func))
        continue;
      std::string key = regionKey(func, module);
      StringRef name = func.getSymName();
      SmallVector<Attribute> variants = {
          planir::VariantAttr::get(ctx, FlatSymbolRefAttr::get(ctx, name), "")};
      OpBuilder b(func);
      b.setInsertionPointAfter(func);
      for (int64_t v = 1; v < candidates; ++v) {
        auto clone = cast<func::FuncOp>(b.clone(*func));
        std::string cloneName = (name + "__v" + Twine(v)).str();
        clone.setSymName(cloneName);
        clone->setAttr(kTacticVariantAttr, b.getI64IntegerAttr(v));
        variants.push_back(planir::VariantAttr::get(
            ctx, FlatSymbolRefAttr::get(ctx, cloneName), ""));
      }
      func->setAttr(
          planir::kChoiceAttr,
          planir::ChoiceAttr::get(ctx, key, "", ArrayAttr::get(ctx, variants)));
    }
  }
};

} // namespace
