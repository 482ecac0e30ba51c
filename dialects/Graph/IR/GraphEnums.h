//===- GraphEnums.h - kiln graph dialect enums and their attributes -*- C++
//-*-===//
#ifndef KILN_DIALECTS_GRAPH_IR_GRAPHENUMS_H
#define KILN_DIALECTS_GRAPH_IR_GRAPHENUMS_H

#include "dialects/Graph/IR/GraphDialect.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "dialects/Graph/IR/GraphEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Graph/IR/GraphAttrs.h.inc"

#endif // KILN_DIALECTS_GRAPH_IR_GRAPHENUMS_H
