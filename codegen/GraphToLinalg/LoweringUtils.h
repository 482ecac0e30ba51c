//===- LoweringUtils.h - graph-to-linalg pattern helpers --------*- C++ -*-===//
//
// Internal to codegen/GraphToLinalg: builders for broadcasting elementwise
// generics, shapes, reshapes and scalar constants, and the per-family
// populate functions that GraphToLinalg.cpp gathers.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_GRAPHTOLINALG_LOWERINGUTILS_H
#define KILN_CODEGEN_GRAPHTOLINALG_LOWERINGUTILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace kiln::codegen::detail {

/// Builds the scalar body of a generic: gets the block arguments of the
/// inputs (not of the init) and returns the value to yield.
using ScalarBodyFn = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

/// A constant of scalar type `type` (float, integer or index) holding `value`;
/// integers take the value truncated toward zero.
mlir::Value createScalar(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Type type, double value);

/// An index constant.
mlir::Value createIndex(mlir::OpBuilder &b, mlir::Location loc, int64_t value);

/// The lowest value of `type` (-inf for floats) or the highest (+inf), with
/// integers read as unsigned when `isUnsigned`: reduction and padding
/// identities of max/min.
mlir::Value createLowest(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Type type, bool isUnsigned);
mlir::Value createHighest(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Type type, bool isUnsigned);

/// Converts an index to `type` (integer: index_cast; float: via i64).
mlir::Value indexToScalar(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value index, mlir::Type type);

/// Converts an integer scalar (signless, read as signed unless `isUnsigned`)
/// to index.
mlir::Value scalarToIndex(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value value, bool isUnsigned = false);

/// max/min of two scalars with the semantics of `type` (NaN-propagating for
/// floats, as numpy and ONNX Runtime).
mlir::Value createMax(mlir::OpBuilder &b, mlir::Location loc, mlir::Value l,
                      mlir::Value r, bool isUnsigned);
mlir::Value createMin(mlir::OpBuilder &b, mlir::Location loc, mlir::Value l,
                      mlir::Value r, bool isUnsigned);

/// Elementwise arithmetic on scalars of any numeric signless type.
mlir::Value createAdd(mlir::OpBuilder &b, mlir::Location loc, mlir::Value l,
                      mlir::Value r);
mlir::Value createSub(mlir::OpBuilder &b, mlir::Location loc, mlir::Value l,
                      mlir::Value r);
mlir::Value createMul(mlir::OpBuilder &b, mlir::Location loc, mlir::Value l,
                      mlir::Value r);
mlir::Value createDiv(mlir::OpBuilder &b, mlir::Location loc, mlir::Value l,
                      mlir::Value r, bool isUnsigned);

/// Converts a float scalar between float types (extf / truncf / nothing).
mlir::Value convertFloat(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                         mlir::Type to);

/// The type statistics (sums, means, variances) are accumulated in: f32 for
/// f16/bf16, else the type itself.
mlir::Type getAccumulatorType(mlir::Type elementType);

/// True if `t` is an integer type kiln reads as unsigned (ui8..ui64) or i1.
bool isUnsignedLike(mlir::Type t);

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

/// Size of dim `dim` of the tensor `v` as an index value.
mlir::Value getDimValue(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                        int64_t dim);

/// Size of dim `dim` of `v`: an attribute when static, else tensor.dim.
mlir::OpFoldResult getDim(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                          int64_t dim);

/// Sizes of `v` (static ones as attributes).
llvm::SmallVector<mlir::OpFoldResult>
getDims(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);

/// Materializes an OpFoldResult as an index value.
mlir::Value toValue(mlir::OpBuilder &b, mlir::Location loc,
                    mlir::OpFoldResult ofr);

/// Product of sizes as an index value.
mlir::Value productOf(mlir::OpBuilder &b, mlir::Location loc,
                      llvm::ArrayRef<mlir::OpFoldResult> sizes);

/// tensor.empty with the given sizes.
mlir::Value createEmpty(mlir::OpBuilder &b, mlir::Location loc,
                        llvm::ArrayRef<mlir::OpFoldResult> sizes,
                        mlir::Type elementType);

/// tensor.empty + linalg.fill with `fill`.
mlir::Value createFilled(mlir::OpBuilder &b, mlir::Location loc,
                         llvm::ArrayRef<mlir::OpFoldResult> sizes,
                         mlir::Value fill);

/// Sizes of `type` where dynamic dims take the values `dynamic` in order.
llvm::SmallVector<mlir::OpFoldResult>
mixSizes(mlir::OpBuilder &b, mlir::RankedTensorType type,
         llvm::ArrayRef<mlir::Value> dynamic);

/// `v` as type `type` through tensor.cast when their shapes differ only in
/// static knowledge.
mlir::Value castTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                   mlir::Type type);

/// Sizes of the result of broadcasting `inputs` numpy-style to rank
/// `resultType.getRank()`, static dims from `resultType`.
llvm::SmallVector<mlir::OpFoldResult>
getBroadcastSizes(mlir::OpBuilder &b, mlir::Location loc,
                  mlir::RankedTensorType resultType, mlir::ValueRange inputs);

/// The indexing map reading `input` (right-aligned, numpy broadcasting) in an
/// iteration space of `rank` dims whose sizes are `resultShape`: static
/// size-1 dims that broadcast read index 0.
mlir::AffineMap getBroadcastMap(mlir::MLIRContext *ctx, mlir::Type input,
                                llvm::ArrayRef<int64_t> resultShape);

/// A parallel linalg.generic computing `body` over the numpy broadcast of
/// `inputs` into a tensor of `resultType`. `sizes` overrides the result
/// sizes (needed when they do not follow from the inputs, as for expand).
mlir::Value buildElementwise(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::RankedTensorType resultType,
                             mlir::ValueRange inputs, ScalarBodyFn body,
                             llvm::ArrayRef<mlir::OpFoldResult> sizes = {});

/// A linalg.generic over `iterationRank` dims reading `inputs` through
/// `inputMaps` and writing one init `init` through `outputMap`;
/// `iterators` gives parallel/reduction per dim.
mlir::Value
buildGeneric(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange inputs,
             llvm::ArrayRef<mlir::AffineMap> inputMaps, mlir::Value init,
             mlir::AffineMap outputMap,
             llvm::ArrayRef<mlir::utils::IteratorType> iterators,
             llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                            mlir::ValueRange)>
                 bodyWithAcc);

//===----------------------------------------------------------------------===//
// Reshapes
//===----------------------------------------------------------------------===//

/// Reassociation grouping the dims of a rank-`rank` shape so that each dim in
/// `unitDims` (sorted) joins a neighbouring kept dim; empty when every dim is
/// a unit dim. Used to drop or insert size-1 dims.
llvm::SmallVector<mlir::ReassociationIndices>
getUnitDimReassociation(int64_t rank, llvm::ArrayRef<int64_t> unitDims);

/// Drops the size-1 dims `unitDims` of `v` (tensor.collapse_shape), then casts
/// to `resultType`. Dynamic dims among `unitDims` are first cast to 1.
mlir::Value dropUnitDims(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                         llvm::ArrayRef<int64_t> unitDims,
                         mlir::RankedTensorType resultType);

/// Inserts size-1 dims at positions `unitDims` of the result
/// (tensor.expand_shape) and casts to `resultType`.
mlir::Value insertUnitDims(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value v, llvm::ArrayRef<int64_t> unitDims,
                           mlir::RankedTensorType resultType);

/// Reshapes `v` to `resultType` whose sizes are `resultSizes`: collapse or
/// expand when the shapes are static and one reassociation fits, else
/// collapse to 1-D then expand.
mlir::Value reshapeTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                      mlir::RankedTensorType resultType,
                      llvm::ArrayRef<mlir::OpFoldResult> resultSizes);

/// Expands `v` by `reassociation` to sizes `sizes` (static or dynamic).
mlir::Value expandTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                     llvm::ArrayRef<mlir::ReassociationIndices> reassociation,
                     llvm::ArrayRef<mlir::OpFoldResult> sizes);

/// Collapses `v` by `reassociation`.
mlir::Value collapse(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                     llvm::ArrayRef<mlir::ReassociationIndices> reassociation);

//===----------------------------------------------------------------------===//
// Contractions shared by the float and the integer/quantized ops
//===----------------------------------------------------------------------===//

/// Convolution of an [N, C, S...] input with an [M, C/group, K...] filter
/// (ONNX Conv without bias), padding with zeros of the result element type;
/// fails when an output size is dynamic and the kernel size is too.
mlir::FailureOr<mlir::Value>
emitConvolution(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                mlir::Value filter, llvm::ArrayRef<int64_t> pads,
                llvm::ArrayRef<int64_t> strides,
                llvm::ArrayRef<int64_t> dilations, int64_t group,
                mlir::RankedTensorType resultType);

/// numpy.matmul (1-D operands promoted, batch dims broadcast) of `lhs` and
/// `rhs` into a tensor of `resultType`'s shape and element type.
mlir::Value emitNumpyMatmul(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value lhs, mlir::Value rhs,
                            mlir::RankedTensorType resultType);

//===----------------------------------------------------------------------===//
// Pattern plumbing
//===----------------------------------------------------------------------===//

/// The converted type of `op`'s result `i` as a ranked tensor type.
mlir::RankedTensorType getResultType(const mlir::TypeConverter &converter,
                                     mlir::Operation *op, unsigned i = 0);

void populateElementwisePatterns(const mlir::TypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);
void populateContractionPatterns(const mlir::TypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);
void populateReductionPatterns(const mlir::TypeConverter &converter,
                               mlir::RewritePatternSet &patterns);
void populateDataMovementPatterns(const mlir::TypeConverter &converter,
                                  mlir::RewritePatternSet &patterns);
void populateQuantizationPatterns(const mlir::TypeConverter &converter,
                                  mlir::RewritePatternSet &patterns);

} // namespace kiln::codegen::detail

#endif // KILN_CODEGEN_GRAPHTOLINALG_LOWERINGUTILS_H
