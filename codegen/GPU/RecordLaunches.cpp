//===- RecordLaunches.cpp - kernel functions as kiln_plan.kernel records --===//
//
// kiln-gpu-record-launches: see codegen/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "codegen/Passes.h"

#include "dialects/Plan/IR/PlanDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_GPURECORDLAUNCHESPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;
namespace planir = kiln::planir;

namespace {

FailureOr<int64_t> constantDim(Value v, gpu::LaunchFuncOp launch,
                               const char *what) {
  std::optional<int64_t> c = getConstantIntValue(v);
  if (!c || *c <= 0 || *c > (int64_t(1) << 31) - 1)
    return launch.emitOpError("has a ")
           << what << " that is not a positive constant";
  return *c;
}

struct GpuRecordLaunchesPass
    : kiln::codegen::impl::GpuRecordLaunchesPassBase<GpuRecordLaunchesPass> {
  KILN_PASS_STATISTICS_GpuRecordLaunchesPass void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<SmallVector<std::string>> names =
        kiln::codegen::kernelFunctionsInOrder(module);
    if (failed(names))
      return signalPassFailure();
    SymbolTable top(module);
    for (const std::string &name : *names) {
      auto func = top.lookup<func::FuncOp>(name);
      if (!func) {
        module.emitError("kernel function @") << name << " is missing";
        return signalPassFailure();
      }
      if (failed(record(func)))
        return signalPassFailure();
    }
    // The host side has been read; only the device code is compiled.
    for (Operation &op :
         llvm::make_early_inc_range(module.getBody()->getOperations()))
      if (isa<func::FuncOp>(op))
        op.erase();
  }

  /// Puts a kiln_plan.kernel record of `func`'s launches before it.
  LogicalResult record(func::FuncOp func) {
    MLIRContext *ctx = func.getContext();
    StringRef name = func.getSymName();
    // What was recomputed inside the launches is dead here now.
    Block &body = func.getBody().front();
    SmallVector<Operation *> ops;
    for (Operation &op : body.without_terminator())
      ops.push_back(&op);
    for (Operation *op : llvm::reverse(ops))
      if (op->use_empty() &&
          (kiln::codegen::isSinkableIntoLaunch(op) || isa<memref::LoadOp>(op)))
        op->erase();
    SmallVector<Attribute> launches;
    int64_t scratchArg = -1, scratchBytes = 0;
    SmallVector<int64_t> mapArgs;
    SmallVector<Attribute> maps;
    for (unsigned a = 0; a < func.getNumArguments(); ++a)
      if (func.getArgAttr(a, kiln::codegen::kScratchAttr))
        scratchBytes =
            cast<MemRefType>(func.getArgument(a).getType()).getNumElements();
    for (Operation &op : body.without_terminator()) {
      auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
      if (!launch) {
        if (kiln::codegen::isSinkableIntoLaunch(&op))
          continue; // still used by other host-side values only
        return op.emitOpError("was left outside every GPU kernel");
      }
      gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
      gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
      Value dims[6] = {grid.x, grid.y, grid.z, block.x, block.y, block.z};
      SmallVector<int64_t> sizes;
      for (int d = 0; d < 6; ++d) {
        FailureOr<int64_t> v =
            constantDim(dims[d], launch, d < 3 ? "grid size" : "block size");
        if (failed(v))
          return failure();
        sizes.push_back(*v);
      }
      int64_t smem = 0;
      if (Value s = launch.getDynamicSharedMemorySize()) {
        FailureOr<int64_t> v = constantDim(s, launch, "shared memory size");
        if (failed(v))
          return failure();
        smem = *v;
      }
      SmallVector<int64_t> args;
      for (Value arg : launch.getKernelOperands()) {
        auto ba = dyn_cast<BlockArgument>(arg);
        if (!ba || ba.getOwner() != &body)
          return launch.emitOpError("passes a value that is not an argument "
                                    "of @")
                 << name << " to its kernel: " << arg;
        unsigned a = ba.getArgNumber();
        args.push_back(a);
        if (func.getArgAttr(a, kiln::codegen::kScratchAttr))
          scratchArg = a;
        Attribute mark = func.getArgAttr(a, planir::kTensorMapAttr);
        if (!mark || llvm::is_contained(mapArgs, int64_t(a)))
          continue;
        auto map = dyn_cast<planir::TensorMapAttr>(mark);
        if (!map)
          return func.emitOpError("argument ")
                 << a << " has a malformed " << planir::kTensorMapAttr << ": "
                 << mark;
        mapArgs.push_back(a);
        maps.push_back(map);
      }
      launches.push_back(planir::LaunchAttr::get(
          ctx, launch.getKernelAttr(),
          DenseI64ArrayAttr::get(ctx, ArrayRef(sizes).take_front(3)),
          DenseI64ArrayAttr::get(ctx, ArrayRef(sizes).drop_front(3)), smem,
          DenseI64ArrayAttr::get(ctx, args)));
    }
    if (!func->hasAttr(kiln::codegen::kTacticVariantAttr))
      numLaunches += launches.size();
    OpBuilder b(func);
    Builder attrs(ctx);
    auto choice = func->getAttrOfType<planir::ChoiceAttr>(planir::kChoiceAttr);
    planir::KernelOp::create(
        b, func.getLoc(), attrs.getStringAttr(name),
        attrs.getI64IntegerAttr(func.getNumArguments()),
        attrs.getArrayAttr(launches), attrs.getI64IntegerAttr(scratchArg),
        attrs.getI64IntegerAttr(scratchBytes),
        attrs.getDenseI64ArrayAttr(mapArgs), attrs.getArrayAttr(maps), choice);
    return success();
  }
};

} // namespace
