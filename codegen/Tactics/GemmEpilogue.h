//===- GemmEpilogue.h - where a tensor-core GEMM stores ---------*- C++ -*-===//
//
// kiln-gpu-tensor-core's epilogue fusion: how the f32 result of a conv or
// contraction reaches memory, directly or through the elementwise op right
// after it (bias, activation, residual add) fused into the kernel.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_TACTICS_GEMMEPILOGUE_H
#define KILN_CODEGEN_TACTICS_GEMMEPILOGUE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

namespace kiln::codegen {

/// How the result of one anchor op reaches memory: either stored directly
/// into its (f32) output buffer, or — when the only reader of that buffer
/// is the elementwise linalg.generic right after the op — passed through
/// that generic's body and stored into the generic's outputs (the f32
/// buffer then disappears).
struct GemmEpilogue {
  mlir::Value out;                  // the anchor op's output buffer
  bool accumulate = true;           // out was not zero-filled just before
  mlir::linalg::FillOp fill;        // the zero fill to drop, if any
  mlir::linalg::GenericOp consumer; // fused elementwise consumer, if any
  unsigned consumerInput = 0;       // which of its inputs reads `out`
  /// The consumer's loop dim of each dim of `out`: it may read `out`
  /// through a permutation (a transpose after a gemm); empty: identity.
  llvm::SmallVector<unsigned> loopOf;

  /// Whether the consumer reads another operand element for element with
  /// `out` (a residual), besides `out` itself.
  bool readsFullOperand();
  /// The consumer's loop indices at element `idx` of `out`.
  llvm::SmallVector<mlir::Value> loopIndices(mlir::ValueRange idx) const;
  /// Stores `value` for element `idx` of `out`.
  void store(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange idx,
             mlir::Value value);
  /// Whether store8 can write `out`'s last dim 8 at a time (it always can;
  /// this says whether the stores will be vectors, worth the staging).
  bool vectorizes();
  /// Stores `values` for the 8 elements of `out` from `idx` along its last
  /// dim (idx.back() a multiple of 8): what store() does, with one 16-byte
  /// access for every operand read or written along that dim where its
  /// layout allows, one load for operands constant along it, else per
  /// element.
  void store8(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange idx,
              llvm::ArrayRef<mlir::Value> values);
};

/// Decides the epilogue of `anchor`, whose output buffer is `out` and whose
/// other operands are `inputs`.
GemmEpilogue planEpilogue(mlir::Operation *anchor, mlir::Value out,
                          mlir::ValueRange inputs);

} // namespace kiln::codegen

#endif // KILN_CODEGEN_TACTICS_GEMMEPILOGUE_H
