//===- SinkIntoLaunches.cpp - launches that take only buffers -------------===//
//
// kiln-gpu-sink-into-launches: see codegen/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "codegen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_GPUSINKINTOLAUNCHESPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;

bool kiln::codegen::isSinkableIntoLaunch(Operation *op) {
  return op->getNumRegions() == 0 &&
         (isMemoryEffectFree(op) || isa<ViewLikeOpInterface>(op) ||
          isReadOnlyArgumentLoad(op));
}

namespace {

struct GpuSinkIntoLaunchesPass
    : kiln::codegen::impl::GpuSinkIntoLaunchesPassBase<
          GpuSinkIntoLaunchesPass> {
  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation().walk([&](gpu::LaunchOp op) { launches.push_back(op); });
    for (gpu::LaunchOp launch : launches) {
      Region &body = launch.getBody();
      OpBuilder b(launch.getContext());
      b.setInsertionPointToStart(&body.front());
      IRMapping map;
      std::function<void(Value)> materialize = [&](Value v) {
        Operation *def = v.getDefiningOp();
        if (!def || map.contains(v) ||
            !kiln::codegen::isSinkableIntoLaunch(def))
          return;
        for (Value operand : def->getOperands())
          materialize(operand);
        b.clone(*def, map);
      };
      SetVector<Value> used;
      getUsedValuesDefinedAbove(body, used);
      for (Value v : used)
        materialize(v);
      for (Value v : used)
        if (Value inside = map.lookupOrNull(v))
          replaceAllUsesInRegionWith(v, inside, body);
    }
  }
};

} // namespace
