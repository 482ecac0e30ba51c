//===- MaterializeOutputCopies.cpp - a kernel result for every output -----===//
//
// kiln-materialize-output-copies: see passes/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace kiln::graph {
#define GEN_PASS_DEF_MATERIALIZEOUTPUTCOPIESPASS
#include "passes/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;
using namespace kiln::graph;

namespace {

struct MaterializeOutputCopiesPass
    : kiln::graph::impl::MaterializeOutputCopiesPassBase<
          MaterializeOutputCopiesPass> {
  KILN_PASS_STATISTICS_MaterializeOutputCopiesPass void
  runOnOperation() override {
    ModuleOp module = getOperation();
    auto main = module.lookupSymbol<func::FuncOp>("main");
    if (!main)
      return;
    // New kernels continue kiln-form-kernels' numbering.
    int64_t nextKernel = 0;
    module.walk([&](func::FuncOp f) { nextKernel += f != main; });
    auto ret = cast<func::ReturnOp>(main.getBody().front().getTerminator());
    llvm::SmallPtrSet<Value, 8> bound;
    OpBuilder b(module.getContext());
    Operation *insertAfter = main;
    for (OpOperand &operand : ret->getOpOperands()) {
      Value v = operand.get();
      if (v.getDefiningOp<func::CallOp>() && bound.insert(v).second)
        continue;
      auto type = cast<RankedTensorType>(v.getType());
      b.setInsertionPointAfter(insertAfter);
      Location loc = v.getLoc();
      auto kernel =
          func::FuncOp::create(b, loc, ("kernel_" + Twine(nextKernel++)).str(),
                               b.getFunctionType({type}, {type}));
      kernel.setPrivate();
      insertAfter = kernel;
      Block *entry = kernel.addEntryBlock();
      b.setInsertionPointToStart(entry);
      Value empty = tensor::EmptyOp::create(b, loc, type.getShape(),
                                            type.getElementType());
      Value copy = linalg::CopyOp::create(b, loc, entry->getArgument(0), empty)
                       .getResult(0);
      func::ReturnOp::create(b, loc, copy);
      b.setInsertionPoint(ret);
      auto call = func::CallOp::create(b, loc, kernel, ValueRange{v});
      operand.set(call.getResult(0));
      bound.insert(call.getResult(0));
      ++numCopies;
    }
  }
};

} // namespace
