//===- MergeModules.cpp - every outlined kernel in one gpu.module ---------===//
//
// kiln-gpu-merge-modules: see codegen/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "codegen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_GPUMERGEMODULESPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;

namespace {

struct GpuMergeModulesPass
    : kiln::codegen::impl::GpuMergeModulesPassBase<GpuMergeModulesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<SmallVector<std::string>> names =
        kiln::codegen::kernelFunctionsInOrder(module);
    if (failed(names) || failed(merge(module, *names)))
      signalPassFailure();
  }

  LogicalResult merge(ModuleOp module, ArrayRef<std::string> kernelNames) {
    MLIRContext *ctx = module.getContext();
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(module.getBody());
    auto merged = gpu::GPUModuleOp::create(b, module.getLoc(),
                                           kiln::codegen::kMergedName);
    SymbolTable mergedTable(merged);
    SymbolTable top(module);
    for (const std::string &name : kernelNames) {
      auto func = top.lookup<func::FuncOp>(name);
      if (!func)
        return module.emitError("kernel function @") << name << " is missing";
      int k = 0;
      WalkResult r = func.walk([&](gpu::LaunchFuncOp launch) {
        auto old = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
            launch, launch.getKernelAttr());
        if (!old) {
          launch.emitOpError("refers to a kernel that does not exist");
          return WalkResult::interrupt();
        }
        std::string newName = (name + "_" + Twine(k++)).str();
        old->remove();
        old.setName(newName);
        mergedTable.insert(old);
        launch.setKernelAttr(SymbolRefAttr::get(
            merged.getNameAttr(), {FlatSymbolRefAttr::get(ctx, newName)}));
        return WalkResult::advance();
      });
      if (r.wasInterrupted())
        return failure();
    }
    // What else the kernels use (constants as memref.global): copies of the
    // same top-level symbol, so one of each name is kept.
    SmallVector<gpu::GPUModuleOp> rest;
    module.walk([&](gpu::GPUModuleOp m) {
      if (m != merged)
        rest.push_back(m);
    });
    for (gpu::GPUModuleOp m : rest) {
      for (Operation &op :
           llvm::make_early_inc_range(m.getBody()->without_terminator())) {
        auto sym = dyn_cast<SymbolOpInterface>(op);
        if (!sym || isa<gpu::GPUFuncOp>(op))
          return op.emitOpError("is left in an outlined GPU module");
        if (mergedTable.lookup(sym.getNameAttr()))
          continue;
        op.remove();
        mergedTable.insert(&op);
      }
      m.erase();
    }
    return success();
  }
};

} // namespace
