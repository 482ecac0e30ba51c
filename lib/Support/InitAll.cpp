//===- InitAll.cpp - the one place that pulls in upstream registrations ---===//
//
// Upstream's InitAll* headers are expensive to compile; they are included
// here only.
//
//===----------------------------------------------------------------------===//
#include "kiln/InitAll.h"

#include "codegen/Passes.h"
#include "kiln/Pipelines.h"
#include "dialects/Graph/IR/GraphDialect.h"
#include "dialects/Plan/IR/PlanDialect.h"
#include "passes/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void kiln::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<kiln::graph::GraphDialect, kiln::planir::KilnPlanDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
}

void kiln::registerAllPasses() {
  mlir::registerAllPasses();
  kiln::codegen::registerCodegenPasses();
  kiln::graph::registerGraphPasses();
  kiln::registerKilnPipelines();
}
