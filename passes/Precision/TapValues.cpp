//===- TapValues.cpp - model nodes' f32 values as extra outputs -----------===//
//
// kiln-tap-values: see passes/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/GlobPattern.h"

namespace kiln::graph {
#define GEN_PASS_DEF_TAPVALUESPASS
#include "passes/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;
using namespace kiln::graph;

namespace {

struct TapValuesPass : kiln::graph::impl::TapValuesPassBase<TapValuesPass> {
  KILN_PASS_STATISTICS_TapValuesPass using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto main = module.lookupSymbol<func::FuncOp>("main");
    if (!main) {
      module.emitError("kiln-tap-values: expected a func.func @main");
      return signalPassFailure();
    }
    std::vector<llvm::GlobPattern> globs;
    for (const std::string &n : nodes) {
      llvm::Expected<llvm::GlobPattern> g = llvm::GlobPattern::create(n);
      if (!g) {
        module.emitError("kiln-tap-values: bad node pattern '")
            << n << "': " << llvm::toString(g.takeError());
        return signalPassFailure();
      }
      globs.push_back(std::move(*g));
    }
    Block &body = main.getBody().front();
    Operation *ret = body.getTerminator();
    // Names already taken by outputs.
    llvm::StringMap<int> used;
    for (unsigned i = 0; i < main.getNumResults(); ++i)
      if (auto n = main.getResultAttrOfType<StringAttr>(i, "kiln.name"))
        used[n.strref()] = 1;
    // Values per node, to number a node's second and later values.
    llvm::StringMap<SmallVector<Value>> byNode;
    SmallVector<std::string> order;
    for (Operation &op : body.without_terminator()) {
      auto loc = dyn_cast<NameLoc>(op.getLoc());
      if (!loc || isa<ConstantOp>(op))
        continue;
      StringRef node = loc.getName().strref();
      if (!llvm::any_of(
              globs, [&](const llvm::GlobPattern &g) { return g.match(node); }))
        continue;
      for (Value r : op.getResults()) {
        auto t = dyn_cast<RankedTensorType>(r.getType());
        if (!t || !t.getElementType().isF32())
          continue;
        auto &list = byNode[node];
        if (list.empty())
          order.push_back(node.str());
        list.push_back(r);
      }
    }
    SmallVector<Value> outs(ret->getOperands());
    SmallVector<Type> types(main.getFunctionType().getResults());
    SmallVector<DictionaryAttr> attrs;
    for (unsigned i = 0; i < main.getNumResults(); ++i)
      attrs.push_back(main.getResultAttrDict(i));
    Builder b(module.getContext());
    for (const std::string &node : order) {
      const auto &list = byNode[node];
      for (size_t k = 0; k < list.size(); ++k) {
        std::string name = k ? node + "#" + std::to_string(k) : node;
        if (used.count(name))
          continue; // already an output under that name
        used[name] = 1;
        outs.push_back(list[k]);
        types.push_back(list[k].getType());
        attrs.push_back(b.getDictionaryAttr(
            b.getNamedAttr("kiln.name", b.getStringAttr(name))));
        ++numTaps;
      }
    }
    ret->setOperands(outs);
    main.setFunctionType(FunctionType::get(
        module.getContext(), main.getFunctionType().getInputs(), types));
    main.setAllResultAttrs(attrs);
  }
};

} // namespace
