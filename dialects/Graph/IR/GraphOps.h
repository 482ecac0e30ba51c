//===- GraphOps.h - kiln graph dialect ops ------------------------*- C++
//-*-===//
#ifndef KILN_DIALECTS_GRAPH_IR_GRAPHOPS_H
#define KILN_DIALECTS_GRAPH_IR_GRAPHOPS_H

#include "dialects/Graph/IR/GraphDialect.h"
#include "dialects/Graph/IR/GraphEnums.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "dialects/Graph/IR/GraphOps.h.inc"

#endif // KILN_DIALECTS_GRAPH_IR_GRAPHOPS_H
