//===- CheckStaticShapes.cpp - plans need static shapes -------------------===//
//
// kiln-check-static-shapes: see passes/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace kiln::graph {
#define GEN_PASS_DEF_CHECKSTATICSHAPESPASS
#include "passes/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;
using namespace kiln::graph;

std::string kiln::graph::graphValueName(func::FuncOp main, bool input,
                                        unsigned i) {
  DictionaryAttr attrs =
      input ? main.getArgAttrDict(i) : main.getResultAttrDict(i);
  if (attrs)
    if (auto name = attrs.getAs<StringAttr>("kiln.name"))
      return name.str();
  return ((input ? "input_" : "output_") + llvm::Twine(i)).str();
}

namespace {

/// Graph inputs (by name) that `op`'s operands are computed from and that
/// are small enough to be shape-like values (at most 64 elements, rank <= 1):
/// candidates for kilnc --input-value.
SmallVector<std::string> shapeInputsOf(func::FuncOp main, Operation *op) {
  SmallVector<std::string> names;
  llvm::SmallPtrSet<Operation *, 16> seen;
  llvm::SmallDenseSet<unsigned> args;
  SmallVector<Value> work(op->getOperands());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      auto t = dyn_cast<RankedTensorType>(arg.getType());
      if (arg.getOwner()->getParentOp() == main && t && t.hasStaticShape() &&
          t.getRank() <= 1 && t.getNumElements() <= 64 &&
          args.insert(arg.getArgNumber()).second)
        names.push_back(
            graphValueName(main, /*input=*/true, arg.getArgNumber()));
      continue;
    }
    if (Operation *def = v.getDefiningOp(); def && seen.insert(def).second)
      work.append(def->operand_begin(), def->operand_end());
  }
  llvm::sort(names);
  return names;
}

/// Every tensor in @main must have a static shape.
LogicalResult checkStatic(func::FuncOp main) {
  for (auto [i, arg] : llvm::enumerate(main.getArguments())) {
    auto t = dyn_cast<RankedTensorType>(arg.getType());
    if (!t)
      return main.emitError("input ")
             << i << " is not a ranked tensor: " << arg.getType();
    if (!t.hasStaticShape()) {
      std::string name = graphValueName(main, /*input=*/true, i);
      std::string dims;
      llvm::raw_string_ostream os(dims);
      llvm::interleave(
          t.getShape(), os,
          [&](int64_t d) {
            if (ShapedType::isDynamic(d))
              os << "N";
            else
              os << d;
          },
          "x");
      return emitError(arg.getLoc(), "input '")
             << name << "' has a dynamic shape " << t
             << ": plans need static shapes; pass --input-shape " << name << "="
             << dims
             << " with N replaced by the size to compile for, or --profile "
             << name << "=" << dims
             << " once per size for one plan that runs several sizes";
    }
  }
  WalkResult r = main.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      if (auto rt = dyn_cast<RankedTensorType>(t); rt && !rt.hasStaticShape()) {
        InFlightDiagnostic diag = op->emitOpError("has a dynamic result shape ")
                                  << rt;
        // Every input has a static shape here, so the shape depends on
        // values: name the small graph inputs it is computed from.
        SmallVector<std::string> names = shapeInputsOf(main, op);
        if (names.empty()) {
          diag << ": plans need static shapes (set every input's shape "
                  "with --input-shape)";
        } else {
          diag << ": it depends on the values of graph input";
          diag << (names.size() > 1 ? "s " : " ");
          for (auto [i, name] : llvm::enumerate(names))
            diag << (i ? ", '" : "'") << name << "'";
          diag << ", known only at run time; plans need static shapes: fix "
               << (names.size() > 1 ? "them" : "it")
               << " at build time with kilnc";
          for (const std::string &name : names)
            diag << " --input-value " << name << "=FILE";
        }
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

struct CheckStaticShapesPass
    : kiln::graph::impl::CheckStaticShapesPassBase<CheckStaticShapesPass> {
  void runOnOperation() override {
    auto main = getOperation().lookupSymbol<func::FuncOp>("main");
    if (!main) {
      getOperation().emitError(
          "expected a func.func @main (the imported graph)");
      return signalPassFailure();
    }
    if (failed(checkStatic(main)))
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};

} // namespace
