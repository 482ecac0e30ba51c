//===- AnnotateKernels.cpp - kernel attributes implied by their launches --===//
//
// kiln-gpu-annotate-kernels: see codegen/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "codegen/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_GPUANNOTATEKERNELSPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;

namespace {

struct GpuAnnotateKernelsPass
    : kiln::codegen::impl::GpuAnnotateKernelsPassBase<GpuAnnotateKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder b(module.getContext());
    // Shared buffers move 16 bytes at a time; LLVM would align them to
    // their element type only, and a dynamic shared buffer placed next to
    // them can shift them off 16 bytes.
    module.walk([&](gpu::GPUFuncOp func) {
      for (unsigned i = 0; i < func.getNumWorkgroupAttributions(); ++i)
        if (!func.getWorkgroupAttributionAttr(i, "llvm.align"))
          func.setWorkgroupAttributionAttr(i, "llvm.align",
                                           b.getI64IntegerAttr(16));
    });
    // A cluster launch's shape is compiled into its kernel, so that a plain
    // cuLaunchKernel forms the clusters.
    WalkResult r = module.walk([&](gpu::LaunchFuncOp launch) {
      if (!launch.hasClusterSize())
        return WalkResult::advance();
      gpu::KernelDim3 cluster = launch.getClusterSizeOperandValues();
      gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
      Value dims[3] = {cluster.x, cluster.y, cluster.z};
      Value grids[3] = {grid.x, grid.y, grid.z};
      SmallVector<int32_t> shape;
      for (int d = 0; d < 3; ++d) {
        std::optional<int64_t> c = getConstantIntValue(dims[d]);
        std::optional<int64_t> g = getConstantIntValue(grids[d]);
        if (!c || !g || *c <= 0 || *c > 16 || *g % *c != 0) {
          launch.emitOpError("has a cluster shape that is not a constant "
                             "divisor of its grid");
          return WalkResult::interrupt();
        }
        shape.push_back(int32_t(*c));
      }
      auto func = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernelAttr());
      if (!func) {
        launch.emitOpError("launches a kernel that is missing");
        return WalkResult::interrupt();
      }
      func->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                    DenseI32ArrayAttr::get(launch.getContext(), shape));
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
