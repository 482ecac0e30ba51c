//===- PlanDialect.cpp - kiln_plan dialect, attributes and ops
//-------------===//
#include "dialects/Plan/IR/PlanDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kiln::planir;

#include "dialects/Plan/IR/PlanDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Plan/IR/PlanAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "dialects/Plan/IR/PlanOps.cpp.inc"

void KilnPlanDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Plan/IR/PlanAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/Plan/IR/PlanOps.cpp.inc"
      >();
}

/// The one builtin.module a kernel container holds.
static LogicalResult verifyKernelsBody(Operation *op, Region &body) {
  Block &block = body.front();
  if (!llvm::hasSingleElement(block) || !isa<ModuleOp>(block.front()))
    return op->emitOpError("expected its body to hold exactly one "
                           "builtin.module");
  return success();
}

// The body's module reads and prints as `module`.
StringRef HostKernelsOp::getDefaultDialect() { return "builtin"; }
StringRef GpuKernelsOp::getDefaultDialect() { return "builtin"; }

ModuleOp HostKernelsOp::getModule() {
  return cast<ModuleOp>(getBody().front().front());
}
LogicalResult HostKernelsOp::verify() {
  return verifyKernelsBody(*this, getBody());
}

ModuleOp GpuKernelsOp::getModule() {
  return cast<ModuleOp>(getBody().front().front());
}
LogicalResult GpuKernelsOp::verify() {
  if (getTargets().empty())
    return emitOpError("expected at least one GPU target");
  return verifyKernelsBody(*this, getBody());
}

LogicalResult KernelOp::verify() {
  int64_t numArgs = getNumArgsAttr().getInt();
  auto checkArg = [&](int64_t a, StringRef what) -> LogicalResult {
    if (a < 0 || a >= numArgs)
      return emitOpError() << what << " " << a
                           << " is not an argument of the kernel function ("
                           << numArgs << " arguments)";
    return success();
  };
  for (Attribute a : getLaunches()) {
    auto launch = cast<LaunchAttr>(a);
    if (launch.getGrid().size() != 3 || launch.getBlock().size() != 3)
      return emitOpError("expected 3-D grid and block sizes in ") << launch;
    for (int64_t d : llvm::concat<const int64_t>(
             launch.getGrid().asArrayRef(), launch.getBlock().asArrayRef()))
      if (d <= 0 || d > (int64_t(1) << 31) - 1)
        return emitOpError("expected positive 32-bit grid and block sizes "
                           "in ")
               << launch;
    if (launch.getSharedMemory() < 0 ||
        launch.getSharedMemory() > (int64_t(1) << 32) - 1)
      return emitOpError("expected a 32-bit shared memory size in ") << launch;
    for (int64_t arg : launch.getArgs().asArrayRef())
      if (failed(checkArg(arg, "launch argument")))
        return failure();
  }
  int64_t scratchArg = getScratchArgAttr().getInt();
  if (scratchArg != -1 && failed(checkArg(scratchArg, "scratch argument")))
    return failure();
  if (getScratchBytesAttr().getInt() < 0)
    return emitOpError("expected a non-negative scratch size");
  if (getTensorMapArgs().size() != getTensorMaps().size())
    return emitOpError("expected one tensor map per tensor map argument, got ")
           << getTensorMapArgs().size() << " arguments and "
           << getTensorMaps().size() << " maps";
  for (auto [arg, a] : llvm::zip(getTensorMapArgs(), getTensorMaps())) {
    if (failed(checkArg(arg, "tensor map argument")))
      return failure();
    if (failed(
            checkArg(cast<TensorMapAttr>(a).getSource(), "tensor map source")))
      return failure();
  }
  return success();
}
