//===- WindowUtils.h - helpers of the windowed lowerings ----------*- C++
//-*-===//
//
// Private to codegen/GraphToLinalg: the padding and window-size helpers that
// the convolution lowerings (Contraction.cpp) and the pooling lowerings
// (Pooling.cpp) share, and the pooling populate function
// (populateContractionPatterns adds its patterns).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_GRAPHTOLINALG_WINDOWUTILS_H
#define KILN_CODEGEN_GRAPHTOLINALG_WINDOWUTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kiln::codegen::detail {

/// tensor.pad of `v` by `low`/`high` with the scalar `padValue`; the result
/// is static where the source dim and both amounts are.
mlir::Value padWith(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                    llvm::ArrayRef<mlir::OpFoldResult> low,
                    llvm::ArrayRef<mlir::OpFoldResult> high,
                    mlir::Value padValue);

/// Pads the spatial dims (2..) of an [N, C, spatial...] tensor.
mlir::Value padSpatial(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                       llvm::ArrayRef<mlir::OpFoldResult> begin,
                       llvm::ArrayRef<mlir::OpFoldResult> end,
                       mlir::Value padValue);

/// `values` as index attributes.
llvm::SmallVector<mlir::OpFoldResult>
indexAttrs(mlir::OpBuilder &b, llvm::ArrayRef<int64_t> values);

/// Output size of a window sweep along one dim (the rule of
/// kiln::graph::windowOutputSize) for a run-time input size `in`; the kernel
/// size is static in every caller.
mlir::Value windowOutSize(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value in, int64_t kernel, int64_t stride,
                          int64_t padBegin, int64_t padEnd, int64_t dilation,
                          bool ceilMode);

/// Lowerings of max_pool and avg_pool (Pooling.cpp).
void populatePoolingPatterns(const mlir::TypeConverter &converter,
                             mlir::RewritePatternSet &patterns);

} // namespace kiln::codegen::detail

#endif // KILN_CODEGEN_GRAPHTOLINALG_WINDOWUTILS_H
