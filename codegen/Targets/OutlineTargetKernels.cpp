//===- OutlineTargetKernels.cpp - a container of kernels per target kind --===//
//
// kiln-outline-target-kernels: see codegen/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "codegen/Passes.h"

#include "codegen/Targets/Targets.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Plan/IR/PlanDialect.h"
#include "passes/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringSet.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_OUTLINETARGETKERNELSPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;
using namespace kiln;
using namespace kiln::codegen;

namespace {

struct OutlineTargetKernelsPass
    : codegen::impl::OutlineTargetKernelsPassBase<OutlineTargetKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    auto main = module.lookupSymbol<func::FuncOp>("main");
    if (!main) {
      module.emitError("expected a func.func @main (the imported graph)");
      return signalPassFailure();
    }
    bool host = false;
    SmallVector<Attribute> gpuTargets;
    for (const std::string &t : targets) {
      if (t == "host") {
        host = true;
      } else if (isGpuTarget(t)) {
        gpuTargets.push_back(StringAttr::get(ctx, t));
      } else {
        module.emitError("unknown target '")
            << t << "': use host or one of " << knownGpuTargets();
        return signalPassFailure();
      }
    }
    // The steps: @main's calls in order, but for the concats no kernel runs.
    SmallVector<Attribute> steps;
    llvm::StringSet<> elided;
    for (Operation &op : main.getBody().front().without_terminator()) {
      if (auto call = dyn_cast<func::CallOp>(op)) {
        if (call->hasAttr(planir::kElidedConcatAttr))
          elided.insert(call.getCallee());
        else
          steps.push_back(call.getCalleeAttr());
        continue;
      }
      if (isa<graph::ConstantOp>(op) || graph::isStaticView(&op))
        continue;
      op.emitOpError("was not placed in a kernel");
      return signalPassFailure();
    }
    // The kernel functions, in module order, copied into each container.
    SmallVector<func::FuncOp> kernels;
    for (auto f : module.getOps<func::FuncOp>())
      if (f != main && !f.isExternal() && !elided.contains(f.getSymName()))
        kernels.push_back(f);
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(module.getBody());
    auto fill = [&](Region &body) {
      Block *block = b.createBlock(&body);
      OpBuilder inner = OpBuilder::atBlockEnd(block);
      auto kernelModule = ModuleOp::create(inner, module.getLoc());
      kernelModule->setAttr(planir::kKernelsAttr, b.getArrayAttr(steps));
      OpBuilder into = OpBuilder::atBlockEnd(kernelModule.getBody());
      for (func::FuncOp f : kernels)
        into.clone(*f);
    };
    if (host) {
      auto op = planir::HostKernelsOp::create(b, module.getLoc());
      OpBuilder::InsertionGuard guard(b);
      fill(op.getBody());
    }
    if (!gpuTargets.empty()) {
      auto op = planir::GpuKernelsOp::create(b, module.getLoc(),
                                             b.getArrayAttr(gpuTargets));
      OpBuilder::InsertionGuard guard(b);
      fill(op.getBody());
    }
    // @main's callees stay as declarations: the plan's steps are its calls.
    for (auto f : module.getOps<func::FuncOp>())
      if (f != main && !f.isExternal())
        f.eraseBody();
  }
};

} // namespace
