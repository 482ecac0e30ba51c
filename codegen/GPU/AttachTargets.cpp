//===- AttachTargets.cpp - NVVM targets of the kernels' gpu.module --------===//
//
// kiln-gpu-attach-targets: see codegen/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "codegen/Passes.h"

#include "codegen/Targets/Targets.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_GPUATTACHTARGETSPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;
using namespace kiln::codegen;

namespace {

struct GpuAttachTargetsPass
    : kiln::codegen::impl::GpuAttachTargetsPassBase<GpuAttachTargetsPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    auto merged = module.lookupSymbol<gpu::GPUModuleOp>(kMergedName);
    if (!merged) {
      module.emitError("expected gpu.module @")
          << kMergedName << " (see kiln-gpu-merge-modules)";
      return signalPassFailure();
    }
    SmallVector<Attribute> attrs;
    for (const std::string &t : targets) {
      const GpuTargetInfo *info = findGpuTarget(t);
      if (!info) {
        module.emitError("unknown GPU target '")
            << t << "': use one of " << knownGpuTargets();
        return signalPassFailure();
      }
      attrs.push_back(NVVM::NVVMTargetAttr::get(
          ctx, /*optLevel=*/3, "nvptx64-nvidia-cuda", t, info->ptxFeature));
    }
    merged.setTargetsAttr(ArrayAttr::get(ctx, attrs));
  }
};

} // namespace
