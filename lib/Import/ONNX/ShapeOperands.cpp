//===- ShapeOperands.cpp - operands that decide result shapes -------------===//
//
// Plans have static shapes, fixed at build time. An op whose result shape is
// read from an operand's values (Reshape's shape, Slice's starts, Range's
// limit, ...) therefore needs those values at build time: when they are
// computed from the values of a graph input, the import is refused with the
// remedy (kilnc --input-value, or an initializer) instead of trusting the
// model's declared output type, which another value at run time would
// silently contradict.
//
//===----------------------------------------------------------------------===//
#include "NodeContext.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kiln;

namespace kiln::onnx_import {

namespace {
using NamedOperands = SmallVector<std::pair<StringRef, Value>, 4>;
} // namespace

/// The operands of `op` whose values decide its result shape.
static NamedOperands shapeOperands(Operation *op) {
  return llvm::TypeSwitch<Operation *, NamedOperands>(op)
      .Case([](graph::ReshapeOp o) {
        return NamedOperands{{"shape", o.getShape()}};
      })
      .Case([](graph::ExpandOp o) {
        return NamedOperands{{"shape", o.getShape()}};
      })
      .Case([](graph::TileOp o) {
        return NamedOperands{{"repeats", o.getRepeats()}};
      })
      .Case([](graph::PadOp o) {
        return NamedOperands{{"pads", o.getPads()}};
      })
      .Case([](graph::ConstantOfShapeOp o) {
        return NamedOperands{{"shape", o.getShape()}};
      })
      .Case([](graph::SliceOp o) {
        return NamedOperands{{"starts", o.getStarts()},
                             {"ends", o.getEnds()},
                             {"axes", o.getAxes()},
                             {"steps", o.getSteps()}};
      })
      .Case([](graph::ResizeOp o) {
        return o.getSizes() ? NamedOperands{{"sizes", o.getSizes()}}
                            : NamedOperands{};
      })
      .Case([](graph::RangeOp o) {
        return NamedOperands{{"start", o.getStart()},
                             {"limit", o.getLimit()},
                             {"delta", o.getDelta()}};
      })
      .Default([](Operation *) { return NamedOperands{}; });
}

/// Names of the graph inputs that `v` is computed from, sorted, walking its
/// operands back to the function's arguments. With `shapesOnly`, the inputs
/// whose dynamic dims `v` depends on: the walk goes through kiln.shape and
/// kiln.size and only arguments without a static shape count. Without, the
/// inputs whose values it depends on: kiln.shape and kiln.size read only
/// their operand's shape, which plans fix at build time (--input-shape), so
/// the walk stops there; inputs fixed with --input-value are constants by
/// now.
static SmallVector<std::string> graphInputSources(Value v, bool shapesOnly) {
  SmallVector<std::string> names;
  llvm::SmallPtrSet<Operation *, 16> seen;
  llvm::SmallPtrSet<void *, 4> args;
  SmallVector<Value> work{v};
  while (!work.empty()) {
    Value next = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(next)) {
      auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!func || (shapesOnly && (!type || type.hasStaticShape())) ||
          !args.insert(arg.getAsOpaquePointer()).second)
        continue;
      auto name =
          func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "kiln.name");
      names.push_back(name ? name.str()
                           : "input_" + std::to_string(arg.getArgNumber()));
      continue;
    }
    Operation *def = next.getDefiningOp();
    if (!def || (!shapesOnly && isa<graph::ShapeOp, graph::SizeOp>(def)) ||
        !seen.insert(def).second)
      continue;
    work.append(def->operand_begin(), def->operand_end());
  }
  llvm::sort(names);
  names.erase(llvm::unique(names), names.end());
  return names;
}

SmallVector<std::string> runTimeValueSources(Value v) {
  return graphInputSources(v, /*shapesOnly=*/false);
}

SmallVector<std::string> dynamicShapeSources(Value v) {
  return graphInputSources(v, /*shapesOnly=*/true);
}

LogicalResult NodeContext::checkShapeOperands(Operation *op) {
  SmallVector<StringRef> operands;
  SmallVector<std::string> inputs;
  for (auto [what, v] : shapeOperands(op)) {
    SmallVector<std::string> sources = runTimeValueSources(v);
    if (sources.empty())
      continue;
    operands.push_back(what);
    llvm::append_range(inputs, sources);
  }
  if (inputs.empty())
    return success();
  llvm::sort(inputs);
  inputs.erase(llvm::unique(inputs), inputs.end());
  auto quoted = [](auto &&names) {
    std::string list;
    for (auto [i, name] : llvm::enumerate(names))
      list += (i ? ", '" : "'") + std::string(name) + "'";
    return list;
  };
  std::string remedy;
  for (const std::string &name : inputs)
    remedy += " --input-value " + name + "=FILE";
  bool several = inputs.size() > 1;
  return fail("the result shape of " + op->getName().getStringRef() +
              " depends on the values of its " + quoted(operands) + " operand" +
              (operands.size() > 1 ? "s" : "") +
              ", which come from graph input" + (several ? "s " : " ") +
              quoted(inputs) + ", known only at run time: fix " +
              (several ? "them" : "it") + " at build time with kilnc" + remedy +
              " (.pb or .npy), or make " +
              (several ? "them initializers" : "it an initializer"));
}

} // namespace kiln::onnx_import
