//===- PaddedImage.h - recognize a padded copy of an image ------*- C++ -*-===//
#ifndef KILN_CODEGEN_GPU_PADDEDIMAGE_H
#define KILN_CODEGEN_GPU_PADDEDIMAGE_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace kiln::codegen {

/// A padded copy of a 4-D image that only one op (a conv, a pool) reads: a
/// fresh buffer filled with the pad value (linalg.fill, or a linalg.map
/// yielding it), then the source copied into a unit-stride subview. The
/// reader can read the source with bounds checks instead, and the three
/// ops and the buffer go away.
struct PaddedImage {
  mlir::Value source;
  /// The source's place in the padded buffer (spatial dims).
  int64_t top = 0, left = 0, height = 0, width = 0;
  llvm::SmallVector<mlir::Operation *> dead; // fill, copy, subview, alloc
};

/// Matches `padded`, read by `reader` in its block; `channelsLast`: the
/// image is [N, H, W, C] (else [N, C, H, W]); `isPadValue` accepts the fill
/// value.
std::optional<PaddedImage>
matchPaddedImage(mlir::Operation *reader, mlir::Value padded,
                 bool channelsLast,
                 llvm::function_ref<bool(mlir::Value)> isPadValue);

} // namespace kiln::codegen

#endif // KILN_CODEGEN_GPU_PADDEDIMAGE_H
