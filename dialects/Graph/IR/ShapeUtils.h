//===- ShapeUtils.h - shape arithmetic shared by ops and importer -*- C++
//-*-===//
#ifndef KILN_DIALECTS_GRAPH_IR_SHAPEUTILS_H
#define KILN_DIALECTS_GRAPH_IR_SHAPEUTILS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>

namespace kiln::graph {

constexpr int64_t kDynamic = mlir::ShapedType::kDynamic;

/// Broadcasts two shapes numpy-style (multidirectional). A dynamic dim
/// against a static dim > 1 takes the static one (anything else would fail at
/// run time). Fails on two different static dims > 1.
llvm::FailureOr<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// True if `from` broadcasts to exactly `to` (unidirectional broadcasting).
bool isUnidirectionalBroadcastable(llvm::ArrayRef<int64_t> from,
                                   llvm::ArrayRef<int64_t> to);

/// The dense elements of `v` if it is produced by a constant op (resource
/// blobs are not read: they hold weights, not shapes).
mlir::DenseElementsAttr getConstantDense(mlir::Value v);

/// Integer values of `v` if it is a constant integer tensor.
std::optional<llvm::SmallVector<int64_t>> getConstantInts(mlir::Value v);

/// Values of a 1-D i64 shape operand where they are known: constants, and
/// concatenations whose pieces are constants or of known length (unknown
/// entries are kDynamic). Returns nullopt if even the length is unknown.
std::optional<llvm::SmallVector<int64_t>> getPartialShapeValues(mlir::Value v);

/// Output size of a convolution/pooling window along one dim, or kDynamic.
/// Returns failure (with no diagnostic) if the window does not fit.
llvm::FailureOr<int64_t> windowOutputSize(int64_t in, int64_t kernel,
                                          int64_t stride, int64_t padBegin,
                                          int64_t padEnd, int64_t dilation,
                                          bool ceilMode);

/// Result shape of numpy-style matmul (1-D operands promoted, batch dims
/// broadcast); failure if the contraction or batch dims conflict.
llvm::FailureOr<llvm::SmallVector<int64_t>>
matmulShape(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs);

/// Result shape [N, outChannels, spatial...] of a convolution; failure if a
/// window does not fit or the attribute sizes do not match the rank.
llvm::FailureOr<llvm::SmallVector<int64_t>>
convShape(llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> filter,
          int64_t outChannels, llvm::ArrayRef<int64_t> strides,
          llvm::ArrayRef<int64_t> pads, llvm::ArrayRef<int64_t> dilations);

/// Dims [start, end) that a kiln.shape op reads from a tensor of `rank`:
/// negative values count from the end, both are clamped to [0, rank], and an
/// empty range has end == start.
std::pair<int64_t, int64_t> shapeOpRange(int64_t rank, int64_t start,
                                         std::optional<int64_t> end);

/// Product of static dims, or kDynamic if any is dynamic.
int64_t staticProduct(llvm::ArrayRef<int64_t> dims);

/// True if the two lists of ranked tensor types have the same element types
/// and compatible shapes (a `?` on either side matches any size).
bool areCompatibleTensorTypes(mlir::TypeRange l, mlir::TypeRange r);

/// Largest dim size (and window attribute) kiln accepts: shape arithmetic on
/// values up to this bound cannot overflow int64 in one multiplication.
constexpr int64_t kMaxDimSize = int64_t(1) << 40;

/// Number of elements allowed in a constant produced by folding; larger
/// results are left to run time.
constexpr int64_t kMaxFoldElements = 4096;

} // namespace kiln::graph

#endif // KILN_DIALECTS_GRAPH_IR_SHAPEUTILS_H
