//===- RoundTf32AtProducers.cpp - tf32 rounding where activations are made ===//
//
// kiln-round-tf32-at-producers: see passes/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Plan/IR/PlanDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace kiln::graph {
#define GEN_PASS_DEF_ROUNDTF32ATPRODUCERSPASS
#include "passes/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;
using namespace kiln::graph;
namespace planir = kiln::planir;

namespace {

/// Whether kernel argument (or value) `v` is read only as a data operand of
/// convs and matmuls/gemms (A or B), maybe through views, transposes,
/// slices and zero pads: a value those read as tf32 anyway.
bool readOnlyByTensorCores(Value v) {
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    unsigned n = use.getOperandNumber();
    if ((isa<ConvOp, MatMulOp, GemmOp>(user) && n < 2))
      continue;
    if (auto pad = dyn_cast<PadOp>(user);
        pad && n == 0 && pad.getMode() == PadMode::Constant &&
        pad.getValue().convertToDouble() == 0.0 &&
        readOnlyByTensorCores(pad.getResult()))
      continue;
    if ((isa<TransposeOp, SliceOp>(user) || isStaticView(user)) && n == 0 &&
        readOnlyByTensorCores(user->getResult(0)))
      continue;
    return false;
  }
  return !v.use_empty();
}

/// The call operands `v` reaches through @main's views; false if it reaches
/// anything else.
bool callReaders(Value v, SmallVectorImpl<OpOperand *> &out) {
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (isStaticView(user)) {
      if (!callReaders(user->getResult(0), out))
        return false;
    } else if (isa<func::CallOp>(user)) {
      out.push_back(&use);
    } else {
      return false;
    }
  }
  return true;
}

bool holdsConvOrMatmul(func::FuncOp func) {
  return func
      .walk([](Operation *op) {
        return isa<ConvOp, MatMulOp, GemmOp>(op) ? WalkResult::interrupt()
                                                 : WalkResult::advance();
      })
      .wasInterrupted();
}

struct RoundTf32AtProducersPass
    : kiln::graph::impl::RoundTf32AtProducersPassBase<
          RoundTf32AtProducersPass> {
  KILN_PASS_STATISTICS_RoundTf32AtProducersPass void runOnOperation() override {
    ModuleOp module = getOperation();
    auto main = module.lookupSymbol<func::FuncOp>("main");
    if (!main)
      return;
    SymbolTable symbols(module);
    llvm::StringMap<int64_t> callsOf;
    main.walk([&](func::CallOp call) { ++callsOf[call.getCallee()]; });
    MLIRContext *ctx = module.getContext();
    for (auto call : main.getBody().front().getOps<func::CallOp>()) {
      auto producer = symbols.lookup<func::FuncOp>(call.getCallee());
      // Only a conv/matmul kernel rounds for free, in its epilogue (a pool
      // or pad kernel would need a launch of its own for it).
      if (!producer || callsOf[call.getCallee()] != 1 ||
          !holdsConvOrMatmul(producer))
        continue;
      SmallVector<int64_t> results;
      for (OpResult res : call->getResults()) {
        auto type = cast<RankedTensorType>(res.getType());
        SmallVector<OpOperand *> uses;
        if (!type.getElementType().isF32() || !callReaders(res, uses) ||
            uses.empty())
          continue;
        bool ok = llvm::all_of(uses, [&](OpOperand *use) {
          auto reader = cast<func::CallOp>(use->getOwner());
          auto callee = symbols.lookup<func::FuncOp>(reader.getCallee());
          return callee && callsOf[reader.getCallee()] == 1 &&
                 readOnlyByTensorCores(
                     callee.getArgument(use->getOperandNumber()));
        });
        if (!ok)
          continue;
        for (OpOperand *use : uses)
          symbols
              .lookup<func::FuncOp>(
                  cast<func::CallOp>(use->getOwner()).getCallee())
              .setArgAttr(use->getOperandNumber(), planir::kTf32RoundedAttr,
                          UnitAttr::get(ctx));
        results.push_back(res.getResultNumber());
      }
      if (results.empty())
        continue;
      producer->setAttr(planir::kRoundTf32ResultsAttr,
                        DenseI64ArrayAttr::get(ctx, results));
      numRounded += results.size();
    }
  }
};

} // namespace
