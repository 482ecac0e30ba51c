//===- GraphDialect.h - kiln graph dialect ------------------------*- C++
//-*-===//
#ifndef KILN_DIALECTS_GRAPH_IR_GRAPHDIALECT_H
#define KILN_DIALECTS_GRAPH_IR_GRAPHDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialects/Graph/IR/GraphDialect.h.inc"

#endif // KILN_DIALECTS_GRAPH_IR_GRAPHDIALECT_H
