//===- AnchorGemm.h - tensor-core anchors as GEMMs --------------*- C++ -*-===//
//
// kiln-gpu-tensor-core's view of a conv or contraction as one GEMM: the
// sizes, the operand loads (implicit GEMM for convs), TMA views and the
// epilogue's stores of a GemmSpec (TensorCoreGemm.h).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_TACTICS_ANCHORGEMM_H
#define KILN_CODEGEN_TACTICS_ANCHORGEMM_H

#include "codegen/Tactics/GemmEpilogue.h"
#include "codegen/Tactics/TensorCoreGemm.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <optional>

namespace kiln::codegen {

/// The GEMM that replaces a tensor-core anchor op (isTensorCoreAnchor).
struct AnchorGemm {
  GemmSpec spec;
  /// Where the spec's stores go (its callbacks share it).
  std::shared_ptr<GemmEpilogue> epilogue;
  /// What to erase after the anchor: a padded copy of a conv's image
  /// (PaddedImage::dead), which the loads read around instead.
  llvm::SmallVector<mlir::Operation *> dead;
};

/// `anchor` as a GEMM, or none where it does not take the tensor cores:
/// dynamic shapes, operands not f16/bf16 (or f32 with `tf32`), a result not
/// f32, a contraction whose maps are no projections. Plans the epilogue
/// (planEpilogue), which may move the ops between the anchor and its
/// fused consumer before the anchor.
std::optional<AnchorGemm> anchorGemm(mlir::Operation *anchor, bool tf32);

} // namespace kiln::codegen

#endif // KILN_CODEGEN_TACTICS_ANCHORGEMM_H
