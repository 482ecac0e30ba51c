//===- PaddedImage.h - recognize a padded copy of an image ------*- C++ -*-===//
#ifndef KILN_CODEGEN_GPU_PADDEDIMAGE_H
#define KILN_CODEGEN_GPU_PADDEDIMAGE_H

#include "codegen/Tactics/TensorCoreGemm.h"

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

  /// Coordinates in the source of a point of the padded image.
  struct Point {
    mlir::Value y, x, inside;
  };
  /// Where padded coordinates (py, px) (i32) fall in the source: (py - top,
  /// px - left), or (0, 0) where that is outside it (`inside` false; above
  /// or left of the source the unsigned differences wrap around, so one
  /// compare per dim suffices).
  Point locate(IndexMath &im, mlir::Value py, mlir::Value px) const {
    mlir::Value y = im.sub(py, top), x = im.sub(px, left);
    mlir::Value inside = im.andI(im.lt(y, height), im.lt(x, width));
    mlir::Value zero = im.c(0);
    return {mlir::arith::SelectOp::create(im.b, im.loc, inside, y, zero),
            mlir::arith::SelectOp::create(im.b, im.loc, inside, x, zero),
            inside};
  }
};

/// Matches `padded`, read by `reader` in its block; `channelsLast`: the
/// image is [N, H, W, C] or, grouped, [N, H, W, G, C/G] (else [N, C, H,
/// W]); only H and W may be padded. `isPadValue` accepts the fill value.
std::optional<PaddedImage>
matchPaddedImage(mlir::Operation *reader, mlir::Value padded, bool channelsLast,
                 llvm::function_ref<bool(mlir::Value)> isPadValue);

} // namespace kiln::codegen

#endif // KILN_CODEGEN_GPU_PADDEDIMAGE_H
