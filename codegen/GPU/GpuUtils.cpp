//===- GpuUtils.cpp - what the GPU passes share ---------------------------===//
#include "codegen/Passes.h"

#include "dialects/Plan/IR/PlanDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"

#include <map>

using namespace mlir;
namespace planir = kiln::planir;

FailureOr<SmallVector<std::string>>
kiln::codegen::kernelFunctionsInOrder(ModuleOp module) {
  auto kernels = module->getAttrOfType<ArrayAttr>(planir::kKernelsAttr);
  if (!kernels)
    return module.emitError("expected the kernel functions in call order "
                            "(module attribute ")
           << planir::kKernelsAttr << ", see kiln-outline-target-kernels)";
  SmallVector<std::string> names;
  for (Attribute a : kernels)
    names.push_back(cast<FlatSymbolRefAttr>(a).getValue().str());
  // Then the variants of each region, regions by name.
  std::map<std::string, planir::ChoiceAttr> choices;
  for (Operation &op : *module.getBody())
    if (auto choice = op.getAttrOfType<planir::ChoiceAttr>(planir::kChoiceAttr))
      if (auto sym =
              op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
        choices[sym.str()] = choice;
  for (auto &[name, choice] : choices)
    for (Attribute v : choice.getVariants()) {
      StringRef fn = cast<planir::VariantAttr>(v).getFunction().getValue();
      if (fn != name)
        names.push_back(fn.str());
    }
  return names;
}

int64_t kiln::codegen::countRegionTacticLaunches(func::FuncOp func) {
  if (func->hasAttr(kTacticVariantAttr))
    return 0;
  int64_t n = 0;
  func.walk([&](gpu::LaunchOp launch) { n += launch->hasAttr(kTacticAttr); });
  return n;
}
