//===- ElideConcats.cpp - concats written in place by their producers -----===//
//
// kiln-elide-concats: see passes/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Plan/IR/PlanDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace kiln::graph {
#define GEN_PASS_DEF_ELIDECONCATSPASS
#include "passes/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;
using namespace kiln::graph;
namespace planir = kiln::planir;

namespace {

/// The concat of a concat kernel: a lone kiln.concat of the function's
/// arguments, in order, returned (null for other functions).
ConcatOp concatKernel(func::FuncOp callee) {
  if (!callee || callee.getBody().empty() ||
      callee.getBody().front().getOperations().size() != 2)
    return {};
  auto cat = dyn_cast<ConcatOp>(callee.getBody().front().front());
  auto ret = dyn_cast<func::ReturnOp>(callee.getBody().front().back());
  if (!cat || !ret || ret.getNumOperands() != 1 ||
      ret.getOperand(0) != cat.getResult() ||
      cat.getInputs().size() != callee.getNumArguments() ||
      !llvm::equal(cat.getInputs(), callee.getArguments()))
    return {};
  return cat;
}

struct ElideConcatsPass
    : kiln::graph::impl::ElideConcatsPassBase<ElideConcatsPass> {
  KILN_PASS_STATISTICS_ElideConcatsPass void runOnOperation() override {
    ModuleOp module = getOperation();
    auto main = module.lookupSymbol<func::FuncOp>("main");
    if (!main)
      return;
    SymbolTable symbols(module);
    llvm::StringMap<int64_t> callsOf;
    main.walk([&](func::CallOp call) { ++callsOf[call.getCallee()]; });
    MLIRContext *ctx = module.getContext();
    Builder b(ctx);
    for (auto call : main.getBody().front().getOps<func::CallOp>()) {
      // A concat kernel called again elsewhere still has to run there.
      ConcatOp cat =
          callsOf[call.getCallee()] == 1
              ? concatKernel(symbols.lookup<func::FuncOp>(call.getCallee()))
              : ConcatOp();
      if (!cat)
        continue;
      auto type = cast<RankedTensorType>(cat.getType());
      if (!type.hasStaticShape())
        continue;
      // Every input must be the only use of a result of a kernel called once.
      SmallVector<std::pair<func::CallOp, unsigned>> producers;
      for (Value operand : call.getOperands()) {
        auto result = dyn_cast<OpResult>(operand);
        auto producer =
            result ? dyn_cast<func::CallOp>(result.getOwner()) : func::CallOp();
        if (!producer || !operand.hasOneUse() ||
            producer->hasAttr(planir::kElidedConcatAttr) ||
            callsOf[producer.getCallee()] != 1 ||
            !cast<RankedTensorType>(operand.getType()).hasStaticShape())
          break;
        producers.push_back({producer, result.getResultNumber()});
      }
      if (producers.size() != call.getNumOperands())
        continue;
      int64_t axis = cat.getAxis(), at = 0;
      for (auto [producer, result] : producers) {
        auto callee = symbols.lookup<func::FuncOp>(producer.getCallee());
        SmallVector<int64_t> offsets(type.getRank(), 0);
        offsets[axis] = at;
        at += cast<RankedTensorType>(producer.getResult(result).getType())
                  .getDimSize(axis);
        SmallVector<Attribute> slices;
        if (auto old =
                callee->getAttrOfType<ArrayAttr>(planir::kIntoSlicesAttr))
          slices.assign(old.begin(), old.end());
        slices.push_back(planir::IntoSliceAttr::get(
            ctx, result, b.getDenseI64ArrayAttr(type.getShape()),
            b.getDenseI64ArrayAttr(offsets), /*out_param=*/-1));
        callee->setAttr(planir::kIntoSlicesAttr, b.getArrayAttr(slices));
      }
      call->setAttr(planir::kElidedConcatAttr, b.getUnitAttr());
      ++numElided;
      numInputs += producers.size();
    }
  }
};

} // namespace
