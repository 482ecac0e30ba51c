//===- FinalizeTacticVariants.cpp - the variants that exist and differ ----===//
//
// kiln-finalize-tactic-variants: see codegen/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "codegen/Passes.h"

#include "dialects/Plan/IR/PlanDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringSet.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_FINALIZETACTICVARIANTSPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;
using namespace kiln::codegen;
namespace planir = kiln::planir;

namespace {

struct FinalizeTacticVariantsPass
    : kiln::codegen::impl::FinalizeTacticVariantsPassBase<
          FinalizeTacticVariantsPass> {
  KILN_PASS_STATISTICS_FinalizeTacticVariantsPass void
  runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    SymbolTable symbols(module);
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      auto choice =
          func->getAttrOfType<planir::ChoiceAttr>(planir::kChoiceAttr);
      if (!choice)
        continue;
      SmallVector<Attribute> kept;
      llvm::StringSet<> seen;
      std::string shapes;
      for (Attribute a : choice.getVariants()) {
        auto v = cast<planir::VariantAttr>(a);
        auto variant = symbols.lookup<func::FuncOp>(v.getFunction().getValue());
        if (!variant) {
          func.emitOpError("lists a tactic variant that does not exist: ")
              << v.getFunction();
          return signalPassFailure();
        }
        auto tactics = variant->getAttrOfType<StringAttr>(kTacticsAttr);
        if (!variant->hasAttr(kTacticVoidAttr) && tactics &&
            seen.insert(tactics.getValue()).second) {
          if (auto s = variant->getAttrOfType<StringAttr>(kGemmShapesAttr))
            shapes = s.getValue().str();
          kept.push_back(
              planir::VariantAttr::get(ctx, v.getFunction(), tactics));
          continue;
        }
        if (variant != func)
          symbols.erase(variant);
      }
      if (kept.size() < 2) {
        func->removeAttr(planir::kChoiceAttr);
        continue;
      }
      func->setAttr(planir::kChoiceAttr,
                    planir::ChoiceAttr::get(ctx, choice.getKey(), shapes,
                                            ArrayAttr::get(ctx, kept)));
      ++numChoices;
      numVariants += kept.size();
    }
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!func->hasAttr(kTacticStaleAttr))
        continue;
      ++numStale;
      auto tactics = func->getAttrOfType<StringAttr>(kTacticsAttr);
      auto forced = func->getAttrOfType<StringAttr>(kTacticForceAttr);
      mlir::emitWarning(func.getLoc(), "the timing cache's tactic '")
          << (forced ? forced.getValue() : StringRef("?")) << "' for kernel "
          << func.getSymName()
          << " is not a candidate here: the cost model's choice ("
          << (tactics ? tactics.getValue() : StringRef("none"))
          << ") is used; re-run kiln-tune";
    }
  }
};

} // namespace
