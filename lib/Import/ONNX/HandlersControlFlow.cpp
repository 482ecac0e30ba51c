//===- HandlersControlFlow.cpp - ONNX If with a build-time condition ------===//
//
// Plans are static: kiln builds one branch of an If, the one its condition
// selects, and only when that condition is known at build time: a constant
// or an initializer, a graph input fixed with kilnc --input-value, or
// anything the importer folds to a constant on the way (comparisons of
// static shapes, say). The taken branch's nodes are imported in place, where
// they read values of the outer scope by name; its outputs become the If's.
// A condition known only at run time is refused, naming the graph inputs it
// depends on and the remedy. Loop and Scan stay unsupported.
//
//===----------------------------------------------------------------------===//
#include "NodeContext.h"

#include "dialects/Graph/IR/ShapeUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace kiln::graph;

namespace kiln::onnx_import {

namespace {

std::string quotedList(ArrayRef<std::string> names) {
  std::string list;
  for (auto [i, name] : llvm::enumerate(names))
    list += (i ? ", '" : "'") + name + "'";
  return list;
}

/// If (1, 11, 13, 16, 19 differ only in the types branches may produce).
LogicalResult importIf(NodeContext &n) {
  Value cond = n.input(0);
  const onnx::GraphProto *thenBranch = n.attrGraph("then_branch");
  const onnx::GraphProto *elseBranch = n.attrGraph("else_branch");
  if (!cond || n.hadError())
    return failure();
  if (!thenBranch || !elseBranch)
    return n.fail("needs both graph attributes 'then_branch' and "
                  "'else_branch'");
  std::string condName = n.node_().input(0);
  RankedTensorType condType = n.typeOf(cond);
  if (!condType.getElementType().isInteger(1))
    return n.fail("condition '" + condName + "' must be a bool tensor");
  if (condType.hasStaticShape() && condType.getNumElements() != 1)
    return n.fail("condition '" + condName +
                  "' must hold one element, it has " +
                  std::to_string(condType.getNumElements()));

  DenseElementsAttr value = getConstantDense(cond);
  if (!value) {
    std::string why =
        "condition '" + condName +
        "' is not known at build time; kiln builds only the branch a "
        "condition known at build time selects (plans are static)";
    SmallVector<std::string> inputs = runTimeValueSources(cond);
    if (!inputs.empty()) {
      std::string remedy;
      for (const std::string &name : inputs)
        remedy += " --input-value " + name + "=FILE";
      bool several = inputs.size() > 1;
      std::string source =
          isa<BlockArgument>(cond)
              ? "it is graph input " + quotedList(inputs)
              : "it is computed from the values of graph input" +
                    std::string(several ? "s " : " ") + quotedList(inputs);
      return n.fail(why + ": " + source +
                    ", known only at run time: fix " +
                    (several ? "them" : "it") + " at build time with kilnc" +
                    remedy + " (.pb or .npy)");
    }
    SmallVector<std::string> dynamic = dynamicShapeSources(cond);
    if (!dynamic.empty())
      return n.fail(why + ": it is computed from the dynamic dims of graph "
                          "input" +
                    (dynamic.size() > 1 ? "s " : " ") + quotedList(dynamic) +
                    ": give static shapes with kilnc --input-shape "
                    "NAME=DIMS");
    return n.fail(why + ": it is computed by ops kiln does not fold at "
                        "build time");
  }
  bool taken = value.getValues<bool>()[0];
  SmallVector<Value> outs;
  if (failed(n.inlineSubgraph(taken ? *thenBranch : *elseBranch,
                              taken ? "then_branch" : "else_branch", outs)))
    return failure();
  int used = 0;
  for (int i = 0; i < n.node_().output_size(); ++i)
    if (!n.node_().output(i).empty())
      used = i + 1;
  if ((int)outs.size() < used)
    return n.fail(std::string(taken ? "then_branch" : "else_branch") +
                  " has " + std::to_string(outs.size()) +
                  " outputs but the node has " +
                  std::to_string(n.node_().output_size()));
  for (Value v : outs)
    if (!isa<RankedTensorType>(v.getType()))
      return n.fail("a branch output is not a ranked tensor");
  return n.setResults(outs);
}

} // namespace

void registerControlFlowHandlers(HandlerRegistry &r) {
  r.add("If", 1, importIf);
}

} // namespace kiln::onnx_import
