//===- GraphOpsHelpers.h - helpers shared by the graph ops' files -*- C++
//-*-===//
//
// Private to dialects/Graph/IR: the inference shorthands and small verifiers
// that GraphOps.cpp, GraphOpsNN.cpp and GraphOpsTensor.cpp all use.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECTS_GRAPH_IR_GRAPHOPSHELPERS_H
#define KILN_DIALECTS_GRAPH_IR_GRAPHOPSHELPERS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace kiln::graph {

inline mlir::RankedTensorType rankedType(mlir::Value v) {
  return v ? llvm::dyn_cast<mlir::RankedTensorType>(v.getType())
           : mlir::RankedTensorType();
}

/// Shorthand for inference functions: fetch a ranked operand type or fail.
#define KILN_RANKED(var, value)                                                \
  RankedTensorType var = rankedType(value);                                    \
  if (!var)                                                                    \
    return emitOptionalError(location, "expected a ranked tensor operand");

/// Runs the adaptor's attribute verifier so inference never reads a missing
/// attribute.
#define KILN_VERIFY_ADAPTOR()                                                  \
  if (failed(adaptor.verify(location ? *location : UnknownLoc::get(context)))) \
    return failure();

#define KILN_COMPATIBLE(OP)                                                    \
  bool OP::isCompatibleReturnTypes(TypeRange l, TypeRange r) {                 \
    return areCompatibleTensorTypes(l, r);                                     \
  }

inline bool isSortedUnique(llvm::ArrayRef<int64_t> values) {
  for (size_t i = 1; i < values.size(); ++i)
    if (values[i] <= values[i - 1])
      return false;
  return true;
}

inline mlir::LogicalResult verifyAxis(mlir::Operation *op, int64_t axis,
                                      int64_t rank,
                                      llvm::StringRef what = "axis") {
  if (axis < 0 || axis >= rank)
    return op->emitOpError()
           << "expected " << what << " in [0, " << rank << "), got " << axis;
  return mlir::success();
}

} // namespace kiln::graph

#endif // KILN_DIALECTS_GRAPH_IR_GRAPHOPSHELPERS_H
