//===- Ptxas.cpp - a cubin per target from its PTX ------------------------===//
//
// kiln-gpu-ptxas: see codegen/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "codegen/Passes.h"

#include "codegen/Targets/Targets.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_GPUPTXASPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;
using namespace kiln::codegen;

namespace {

struct GpuPtxasPass : kiln::codegen::impl::GpuPtxasPassBase<GpuPtxasPass> {
  KILN_PASS_STATISTICS_GpuPtxasPass using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto binary = module.lookupSymbol<gpu::BinaryOp>(kMergedName);
    if (!binary) {
      module.emitError("expected gpu.binary @")
          << kMergedName << " (see gpu-module-to-binary)";
      return signalPassFailure();
    }
    std::string tool = findPtxas(ptxas, cudaPath);
    SmallVector<Attribute> objects;
    for (Attribute a : binary.getObjects()) {
      auto object = cast<gpu::ObjectAttr>(a);
      objects.push_back(object);
      auto target = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget());
      if (!target) {
        binary.emitOpError("has a non-NVVM object");
        return signalPassFailure();
      }
      if (object.getFormat() != gpu::CompilationTarget::Assembly)
        continue;
      StringRef arch = target.getChip();
      if (tool.empty() || !llvm::sys::fs::can_execute(tool)) {
        module.emitError("cannot find ptxas (CUDA toolkit) to build cubins "
                         "for ")
            << arch
            << ": install the CUDA toolkit, set CUDA_HOME, or pass "
               "--cuda-path";
        return signalPassFailure();
      }
      StringRef ptx = object.getObject().getValue();
      std::string archFlag = ("-arch=" + arch).str();
      std::vector<char> cubin;
      if (failed(runToolOnFile(
              tool, ("ptxas for " + arch).str(),
              ArrayRef<char>(ptx.data(), ptx.size()), "kernels.ptx",
              "kernels.cubin",
              [&](SmallVectorImpl<StringRef> &args) {
                args.append({archFlag, "-O3"});
              },
              cubin, module.getLoc())))
        return signalPassFailure();
      numPtxBytes += ptx.size();
      numCubinBytes += cubin.size();
      objects.push_back(gpu::ObjectAttr::get(
          &getContext(), target, gpu::CompilationTarget::Binary,
          StringAttr::get(&getContext(), StringRef(cubin.data(), cubin.size())),
          object.getProperties(), object.getKernels()));
    }
    binary.setObjectsAttr(ArrayAttr::get(&getContext(), objects));
  }
};

} // namespace
