//===- GraphDialect.cpp - kiln graph dialect registration -----------------===//
#include "dialects/Graph/IR/GraphDialect.h"
#include "dialects/Graph/IR/GraphEnums.h"
#include "dialects/Graph/IR/GraphOps.h"

using namespace mlir;
using namespace kiln::graph;

#include "dialects/Graph/IR/GraphDialect.cpp.inc"

void GraphDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/Graph/IR/GraphOps.cpp.inc"
      >();
  registerAttributes();
}

Operation *GraphDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
