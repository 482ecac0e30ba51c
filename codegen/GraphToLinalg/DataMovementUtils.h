//===- DataMovementUtils.h - helpers of the data-movement lowerings -*- C++
//-*-===//
//
// Private to codegen/GraphToLinalg: the index helpers that DataMovement.cpp,
// GatherScatter.cpp and Resampling.cpp share, and the populate functions of
// the latter two (populateDataMovementPatterns adds their patterns).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_GRAPHTOLINALG_DATAMOVEMENTUTILS_H
#define KILN_CODEGEN_GRAPHTOLINALG_DATAMOVEMENTUTILS_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kiln::codegen::detail {

/// The element type of `v`'s (tensor) type.
mlir::Type elemOf(mlir::Value v);

/// An index constant.
mlir::Value idx(mlir::OpBuilder &b, mlir::Location loc, int64_t v);

/// Element `i` of a 1-D integer tensor as an index (signed).
mlir::Value extractIndex(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value tensor, int64_t i);

/// `v` clamped to [lo, hi] (signed).
mlir::Value clampIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                       mlir::Value lo, mlir::Value hi);

/// A generic with no inputs over `sizes` whose body gets the iteration
/// indices and returns the element: the form of every gather-like op.
mlir::Value buildIndexedGeneric(
    mlir::OpBuilder &b, mlir::Location loc,
    llvm::ArrayRef<mlir::OpFoldResult> sizes, mlir::Type elem,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                   llvm::ArrayRef<mlir::Value>)>
        body,
    mlir::ValueRange inputs = {},
    llvm::ArrayRef<mlir::AffineMap> inputMaps = {});

/// Sizes of `resultType`, taking dynamic dim d from `dynamicSize(d)`.
llvm::SmallVector<mlir::OpFoldResult>
resultSizes(mlir::OpBuilder &b, mlir::RankedTensorType resultType,
            llvm::function_ref<mlir::OpFoldResult(int64_t)> dynamicSize);

/// Lowerings of gather, gather_elements, gather_nd, scatter_elements and
/// scatter_nd (GatherScatter.cpp).
void populateGatherScatterPatterns(const mlir::TypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);
/// Lowerings of pad, grid_sample and resize (Resampling.cpp).
void populateResamplingPatterns(const mlir::TypeConverter &converter,
                                mlir::RewritePatternSet &patterns);

} // namespace kiln::codegen::detail

#endif // KILN_CODEGEN_GRAPHTOLINALG_DATAMOVEMENTUTILS_H
