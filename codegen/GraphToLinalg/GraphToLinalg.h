//===- GraphToLinalg.h - kiln graph ops to linalg ---------------*- C++ -*-===//
#ifndef KILN_CODEGEN_GRAPHTOLINALG_GRAPHTOLINALG_H
#define KILN_CODEGEN_GRAPHTOLINALG_GRAPHTOLINALG_H

#include "mlir/Transforms/DialectConversion.h"
#include <optional>
#include <string>

namespace kiln::codegen {

/// Adds the type conversions of the lowering: kiln's unsigned integer element
/// types become signless (arith and linalg take signless integers only);
/// every other type is kept.
void populateGraphToLinalgTypeConversion(mlir::TypeConverter &converter);

/// Adds the conversion patterns lowering kiln graph ops to linalg, tensor,
/// arith and math on tensors; `converter` must hold the conversions of
/// populateGraphToLinalgTypeConversion and outlive the patterns.
void populateGraphToLinalgPatterns(const mlir::TypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);

/// As above with a process-wide converter built by
/// populateGraphToLinalgTypeConversion.
void populateGraphToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// Why `op` (a kiln op) cannot be lowered yet: std::nullopt when it can, an
/// empty string for an op that is not lowered at all, else the unsupported
/// configuration. Patterns and the pass share it so that the pass reports the
/// same reason a pattern gives up for.
std::optional<std::string> getUnsupportedReason(mlir::Operation *op);

} // namespace kiln::codegen

#endif // KILN_CODEGEN_GRAPHTOLINALG_GRAPHTOLINALG_H
