//===- Passes.h - kiln codegen passes ---------------------------*- C++ -*-===//
#ifndef KILN_CODEGEN_PASSES_H
#define KILN_CODEGEN_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace kiln::codegen {

/// The buffer `v` is a view of: follows view-like ops (subview, reshapes,
/// memref.view, memref.transpose) to the first value no view defines.
mlir::Value viewRoot(mlir::Value v);

/// Ops that may move across others: no memory access and no regions
/// (constants, index math, views), or a fresh allocation.
bool isMovable(mlir::Operation *op);

/// Erases `buffer` if nobody uses it and it is an allocation or a view,
/// then the buffers it viewed, as long as they become unused.
void eraseDeadBuffer(mlir::Value buffer);

/// True for a memref.load from a function argument (directly or through
/// views) that nothing in the function stores to: reading it anywhere after
/// the function starts gives the same value, so GPU lowering may recompute
/// it inside each kernel that uses it.
bool isReadOnlyArgumentLoad(mlir::Operation *op);

/// Whether `lanes` consecutive elements along the last dim of `t`, starting
/// at a multiple of `lanes`, can move as one vector: static, unit innermost
/// stride, other strides, the offset and the last dim multiples of `lanes`
/// (buffers start 64-byte aligned).
bool allowsVectorAccess(mlir::MemRefType t, int64_t lanes = 8);

/// Whether kiln-gpu-tensor-core considers `op` for a tensor-core kernel: a
/// linalg conv (NCHW, NHWC or grouped NHWC) or contraction on buffers.
bool isTensorCoreAnchor(mlir::Operation *op);

/// Function attributes of kiln-gpu-tensor-core's tactic variants (`kilnc
/// --tactics all` clones a kernel function per candidate; `--timing-cache`
/// forces the measured best):
///  - in: `kiln.tactic_variant` (i64): run the N-th candidate of every
///    anchor (0: the cost model's choice); `kiln.tactic_force` (string): the
///    anchors' tactics by name, in order, separated by ';';
///  - out: `kiln.tactics` (string): the tactics used, separated by "; ";
///    `kiln.tactic_void` (unit): the variant does not exist (fewer
///    candidates); `kiln.tactic_stale` (unit): a forced tactic is not a
///    candidate any more (the cost model's choice was used).
inline constexpr llvm::StringLiteral kTacticVariantAttr = "kiln.tactic_variant";
inline constexpr llvm::StringLiteral kTacticForceAttr = "kiln.tactic_force";
inline constexpr llvm::StringLiteral kTacticsAttr = "kiln.tactics";
/// Out, with kiln.tactics: each GEMM's "[batch x]MxNxK".
inline constexpr llvm::StringLiteral kGemmShapesAttr = "kiln.gemm_shapes";
inline constexpr llvm::StringLiteral kTacticVoidAttr = "kiln.tactic_void";
inline constexpr llvm::StringLiteral kTacticStaleAttr = "kiln.tactic_stale";
/// Argument attribute of a kernel function (unit): the argument is a weight
/// kilnc rounded to tf32 at build time (--precision tf32; also on the
/// graph's kiln.constant ops), so the tensor-core kernels need not round it.
inline constexpr llvm::StringLiteral kTf32RoundedAttr = "kiln.tf32_rounded";

/// Argument attribute of a kernel function (dictionary): the argument is a
/// 128-byte TMA tensor map for the wgmma kernel, which the runtime encodes
/// (plan::TensorMap): `source` (i64, the argument holding the tensor),
/// `offset` (i64, bytes into it), `dtype` (type), `dims`, `strides` (bytes,
/// of dims 1..), `box` (i64 arrays, innermost first), `swizzle` (i64,
/// CUtensorMapSwizzle: 3 = 128 bytes).
inline constexpr llvm::StringLiteral kTensorMapAttr = "kiln.tensor_map";

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "codegen/Passes.h.inc"

} // namespace kiln::codegen

#endif // KILN_CODEGEN_PASSES_H
